//! The CEL rules of a generated document (a CRD, or a `{schemas: …}` map of OpenAPI schemas)
//! reviewed before it is written, with the paths Kubernetes would name.

use std::fmt;

use serde_json::Value;

use crate::crd::CustomResourceDefinition;
use crate::crd_review::validate_crd;
use crate::version::KubeVersion;

/// A problem with one generated rule.
#[derive(Debug, PartialEq)]
pub struct RuleProblem {
    /// Where the expression is, as Kubernetes names schema paths, e.g.
    /// `spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule`.
    pub path: String,
    /// The compiler's report.
    pub message: String,
}

impl fmt::Display for RuleProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Schemas nest at most this deep in the walk (generation bounds it well below).
const MAX_WALK_DEPTH: usize = 1000;

/// Checks a generated document as `kcel check` would, before anything is written.
///
/// A CRD goes through everything kube-apiserver checks when it is written
/// ([`validate_crd`], newest Kubernetes version): the
/// structural schema rules, every rule and messageExpression compiled against
/// the schema's types, and the estimated costs against the per-rule and per-CRD
/// budgets. A `{schemas: …}` document is checked the same way, each schema as
/// the `spec` of a stand-in CRD, keeping the problems of its rules
/// (`x-kubernetes-validations`), with paths rewritten to `schemas[<name>]`.
/// A document that does not decode as a CRD falls back to parsing each
/// expression, reporting syntax errors with their schema path.
pub fn check_rules(doc: &Value) -> Vec<RuleProblem> {
    if doc.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
        && let Ok(crd) = serde_json::from_value::<CustomResourceDefinition>(doc.clone())
    {
        return review(&crd)
            .into_iter()
            .map(|e| RuleProblem {
                path: e.path.to_string(),
                message: e.body(),
            })
            .collect();
    }
    if let Some(schemas) = doc.get("schemas").and_then(Value::as_object) {
        let mut problems = Vec::new();
        for (name, schema) in schemas {
            let Ok(crd) = serde_json::from_value::<CustomResourceDefinition>(stand_in_crd(schema))
            else {
                continue;
            };
            for e in review(&crd) {
                let path = e.path.to_string();
                if !path.contains("x-kubernetes-validations") {
                    continue;
                }
                problems.push(RuleProblem {
                    path: path.replacen(STAND_IN_PREFIX, &format!("schemas[{name}]"), 1),
                    message: e.body(),
                });
            }
        }
        return problems;
    }
    parse_only(doc)
}

/// Where a schema sits in [`stand_in_crd`].
/// Kubernetes names a single-version CRD's schema `spec.validation`.
const STAND_IN_PREFIX: &str = "spec.validation.openAPIV3Schema.properties[spec]";

/// A minimal CRD whose only version has `schema` as its `spec`.
fn stand_in_crd(schema: &Value) -> Value {
    serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "checks.kcel.example"},
        "spec": {
            "group": "kcel.example",
            "names": {"plural": "checks", "singular": "check", "kind": "Check", "listKind": "CheckList"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": schema}}}
            }]
        }
    })
}

fn review(crd: &CustomResourceDefinition) -> Vec<crate::field::FieldError> {
    validate_crd(crd, None, KubeVersion::default())
}

/// Parses every `rule` and `messageExpression`, reporting syntax errors.
fn parse_only(doc: &Value) -> Vec<RuleProblem> {
    let env = cel::Env::builder().build();
    let mut problems = Vec::new();
    let mut visit =
        |path: &str, schema: &Value| check_schema_rules(&env, path, schema, &mut problems);
    if let Some(versions) = doc.pointer("/spec/versions").and_then(Value::as_array) {
        for (i, v) in versions.iter().enumerate() {
            if let Some(s) = v.pointer("/schema/openAPIV3Schema") {
                walk(
                    &format!("spec.versions[{i}].schema.openAPIV3Schema"),
                    s,
                    0,
                    &mut visit,
                );
            }
        }
    }
    problems
}

/// Calls `visit` on `schema` and every schema nested in it, with its path.
fn walk(path: &str, schema: &Value, depth: usize, visit: &mut dyn FnMut(&str, &Value)) {
    if depth > MAX_WALK_DEPTH {
        return;
    }
    visit(path, schema);
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, s) in props {
            walk(&format!("{path}.properties[{name}]"), s, depth + 1, visit);
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(s) = schema.get(key).filter(|s| s.is_object()) {
            walk(&format!("{path}.{key}"), s, depth + 1, visit);
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(list) = schema.get(key).and_then(Value::as_array) {
            for (i, s) in list.iter().enumerate() {
                walk(&format!("{path}.{key}[{i}]"), s, depth + 1, visit);
            }
        }
    }
}

/// Parses the expressions of one schema's `x-kubernetes-validations`.
fn check_schema_rules(env: &cel::Env, path: &str, schema: &Value, problems: &mut Vec<RuleProblem>) {
    let Some(rules) = schema
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
    else {
        return;
    };
    for (i, rule) in rules.iter().enumerate() {
        for key in ["rule", "messageExpression"] {
            if let Some(text) = rule.get(key).and_then(Value::as_str)
                && let Err(issues) = env.parse(text)
            {
                problems.push(RuleProblem {
                    path: format!("{path}.x-kubernetes-validations[{i}].{key}"),
                    message: issues.to_string(),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn walk_visits_every_nested_schema_with_its_path() {
        let doc = json!({"schemas": {"p.M": {
            "properties": {"a": {"items": {"x": 1}}, "b": {"additionalProperties": {}}},
            "oneOf": [{"required": ["a"]}],
        }}});
        let mut seen = Vec::new();
        if let Some(s) = doc.pointer("/schemas/p.M") {
            walk("schemas[p.M]", s, 0, &mut |p, _| seen.push(p.to_owned()));
        }
        seen.sort();
        assert_eq!(
            seen,
            [
                "schemas[p.M]",
                "schemas[p.M].oneOf[0]",
                "schemas[p.M].properties[a]",
                "schemas[p.M].properties[a].items",
                "schemas[p.M].properties[b]",
                "schemas[p.M].properties[b].additionalProperties",
            ]
        );
    }

    #[test]
    fn syntax_errors_are_reported_with_the_rule_path() {
        let doc = json!({"spec": {"versions": [{"schema": {"openAPIV3Schema": {
            "properties": {"spec": {"x-kubernetes-validations": [{"rule": "self.x >"}]}}
        }}}]}});
        // Not a decodable CRD (no names, group): syntax is still checked.
        let problems = check_rules(&doc);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(
            problems[0].path,
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
        );
        assert!(
            problems[0].message.contains("ERROR: <input>:1:"),
            "{}",
            problems[0].message
        );
    }

    #[test]
    fn valid_rules_and_message_expressions_pass() {
        let doc = json!({"schemas": {"p.M": {"type": "object", "properties": {
            "a": {"type": "array", "items": {"type": "string", "maxLength": 20}, "maxItems": 10,
                  "x-kubernetes-validations": [
                {"rule": "self.all(x, x.size() > 0)", "messageExpression": "'got ' + self[0]"}
            ]},
            "b": {"type": "string"}
        }}}});
        assert_eq!(check_rules(&doc), []);
    }

    #[test]
    fn type_errors_in_schema_documents_are_reported_with_the_schema_path() {
        let doc = json!({"schemas": {"p.M": {"type": "object", "properties": {
            "a": {"type": "integer", "x-kubernetes-validations": [{"rule": "self + 'x' == 1"}]}
        }}}});
        let problems = check_rules(&doc);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(
            problems[0].path,
            "schemas[p.M].properties[a].x-kubernetes-validations[0].rule"
        );
        assert!(
            problems[0].message.contains("found no matching overload"),
            "{}",
            problems[0].message
        );
    }
}
