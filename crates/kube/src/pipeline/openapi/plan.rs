//! The OpenAPI validation of a schema, planned once per CRD version: which validators each
//! schema node needs, so that a document is first checked by a walk that builds no field path,
//! no error text and no per-node result ([`SchemaValidator::quick`]).
//!
//! The quick walk answers "valid, with kube-openapi's `MatchCount`" or "not proven valid". Only
//! the second answer costs more: the general walk ([`SchemaValidator::validate`]) then runs over
//! the whole document, with its paths, texts and ratcheting, as if there had been no plan. A
//! document is thus walked at most twice, and a valid one once, without paths.
//!
//! A node the plan does not cover (junctors, `x-kubernetes-int-or-string`, untyped
//! nodes, formats, `patternProperties`, tuples, `uniqueItems`, `dependencies`) is checked inside
//! the quick walk by the general walk of that node alone, whose errors then only mean "not
//! proven valid".

use super::{MAX_VALUE_DEPTH, NodeResult, SchemaValidator, enum_allows};
use crate::schema_props::{JsonSchemaProps, SchemaLookup, SchemaOrArray, SchemaOrBool};
use crate::values::{Json, JsonObject};
use cel::go::regexp::{Regex, RegexError};

/// What the quick walk knows about one schema node, with the plans of the nodes below it.
#[derive(Debug)]
pub struct NodePlan {
    check: Check,
    /// Whether the node has a `format` (whether it applies depends on the Kubernetes version).
    has_format: bool,
    /// The node's `pattern`, compiled (string nodes with a non-empty `pattern`).
    pattern: Option<Result<Regex, RegexError>>,
    /// The plans of `properties`, by position (empty for nodes checked by the general walk).
    properties: Vec<NodePlan>,
    /// The plan of `items` (a single schema).
    items: Option<Box<NodePlan>>,
    /// The plan of `additionalProperties` (a schema).
    additional: Option<Box<NodePlan>>,
    /// How `required` is checked.
    required: Required,
}

/// The validators a node needs, as far as the quick walk is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Check {
    /// Anything the quick walk does not cover: the general walk checks the node.
    General,
    /// `type: string`: type, `maxLength`, `minLength`, `pattern`, `enum`.
    String,
    /// `type: boolean`: type, `enum`.
    Boolean,
    /// `type: integer` or `type: number`: type, `multipleOf`, `minimum`, `maximum` (and from
    /// 1.36 the range of the type and kept format), `enum`. A kept numeric format changes the
    /// type validator's steps, not its verdict on a number of the schema's type, nor its
    /// `MatchCount`.
    Number,
    /// `type: object` without `enum` or `patternProperties`: type, `minProperties`,
    /// `maxProperties`, the fields, `required`.
    Object,
    /// `type: array` of one item schema without `enum` or `uniqueItems`: type, the items,
    /// `minItems`, `maxItems`.
    Array,
}

/// How many properties a node may have for its `required` fields to be found by position.
const MAX_REQUIRED_BY_POSITION: usize = 64;

/// How a node's `required` fields are found.
#[derive(Debug)]
enum Required {
    /// Each is a declared property (of at most [`MAX_REQUIRED_BY_POSITION`]): marked while the
    /// fields are walked, by their positions.
    Positions(u64),
    /// Looked up by name.
    ByName,
}

/// kube-openapi's `MatchCount` of a valid node checked by the quick walk: one per validator
/// that applies (type, junctors, string or slice, enum, object) plus the node's own, as
/// `SchemaValidator.Validate` counts them; the type validator counts one more when it passes.
const STRING_MATCHES: usize = 7;
const BOOLEAN_MATCHES: usize = 6;
const NUMBER_MATCHES: usize = 7;
const CONTAINER_MATCHES: usize = 7;

impl NodePlan {
    /// The plan of `schema` and of the nodes below it.
    pub fn new(schema: &JsonSchemaProps) -> NodePlan {
        NodePlan::build(schema, 0)
    }

    fn build(s: &JsonSchemaProps, depth: usize) -> NodePlan {
        let check = if depth > MAX_VALUE_DEPTH {
            Check::General
        } else {
            Check::of(s)
        };
        let plan_of = |c: &JsonSchemaProps| Box::new(NodePlan::build(c, depth + 1));
        let mut plan = NodePlan {
            check,
            has_format: s.format.as_deref().is_some_and(|f| !f.is_empty()),
            pattern: None,
            properties: Vec::new(),
            items: None,
            additional: None,
            required: Required::ByName,
        };
        match check {
            Check::Object => {
                plan.properties = s
                    .properties
                    .values()
                    .map(|p| NodePlan::build(p, depth + 1))
                    .collect();
                if let Some(SchemaOrBool::Schema(a)) = &s.additional_properties {
                    plan.additional = Some(plan_of(a));
                }
                plan.required = Required::of(s);
            }
            Check::Array => {
                if let Some(SchemaOrArray::Schema(i)) = &s.items {
                    plan.items = Some(plan_of(i));
                }
            }
            Check::String => {
                plan.pattern = s
                    .pattern
                    .as_deref()
                    .filter(|p| !p.is_empty())
                    .map(Regex::cached);
            }
            Check::General | Check::Boolean | Check::Number => {}
        }
        plan
    }

    /// The plan of property `name`.
    pub fn property(&self, schema: &JsonSchemaProps, name: &str) -> Option<&NodePlan> {
        schema
            .properties
            .lookup_index(name)
            .and_then(|i| self.properties.get(i))
    }
}

impl Check {
    fn of(s: &JsonSchemaProps) -> Check {
        let plain = !s.x_int_or_string
            && s.any_of.is_empty()
            && s.one_of.is_empty()
            && s.all_of.is_empty()
            && s.not.is_none()
            && s.dependencies.is_empty();
        if !plain {
            return Check::General;
        }
        match s.type_.as_deref() {
            Some("string") => Check::String,
            Some("boolean") => Check::Boolean,
            Some("integer" | "number") => Check::Number,
            Some("object") if s.enum_.is_empty() && s.pattern_properties.is_empty() => {
                Check::Object
            }
            Some("array")
                if s.enum_.is_empty()
                    && !s.unique_items
                    && !matches!(s.items, Some(SchemaOrArray::Array(_))) =>
            {
                Check::Array
            }
            _ => Check::General,
        }
    }
}

impl Required {
    fn of(s: &JsonSchemaProps) -> Required {
        if s.properties.len() > MAX_REQUIRED_BY_POSITION {
            return Required::ByName;
        }
        let mut bits = 0u64;
        for name in &s.required {
            match s.properties.lookup_index(name) {
                Some(i) => bits |= 1 << i,
                None => return Required::ByName,
            }
        }
        Required::Positions(bits)
    }
}

impl SchemaValidator {
    /// The result of validating `value` against `schema` when the quick walk proves it valid
    /// (no errors, kube-openapi's `MatchCount`); `None` when it does not, and the general walk
    /// must run.
    pub(crate) fn quick_result(
        &self,
        value: &Json,
        schema: &JsonSchemaProps,
        plan: &NodePlan,
    ) -> Option<NodeResult> {
        self.quick(value, schema, plan, 0)
            .map(|matches| NodeResult {
                matches,
                ..NodeResult::default()
            })
    }

    /// The `MatchCount` of the node at nesting `depth` when it is valid; `None` when it may not
    /// be.
    fn quick(
        &self,
        value: &Json,
        schema: &JsonSchemaProps,
        plan: &NodePlan,
        depth: usize,
    ) -> Option<usize> {
        if depth > MAX_VALUE_DEPTH {
            return None;
        }
        match (plan.check, value) {
            (Check::String, Json::String(s)) => {
                if plan.has_format && !self.format(schema).is_empty() {
                    return self.general_matches(value, schema, depth);
                }
                let failure = self.string_failure(s, schema, plan.pattern.as_ref());
                (failure.is_none() && enum_allows(schema, value)).then_some(STRING_MATCHES)
            }
            (Check::Boolean, Json::Bool(_)) => {
                enum_allows(schema, value).then_some(BOOLEAN_MATCHES)
            }
            // A float where the schema says integer passes when it is integral: the general walk
            // decides.
            (Check::Number, Json::Double(_)) if schema.type_.as_deref() == Some("integer") => {
                self.general_matches(value, schema, depth)
            }
            (Check::Number, Json::Int(_) | Json::Double(_)) => {
                let mut scratch = NodeResult::default();
                self.check_number(value, schema, "", &mut scratch);
                (scratch.is_valid() && enum_allows(schema, value)).then_some(NUMBER_MATCHES)
            }
            (Check::Object, Json::Object(map)) => self.quick_object(map, schema, plan, depth),
            (Check::Array, Json::Array(items)) => {
                if !within_limits(items.len(), (schema.min_items, schema.max_items)) {
                    return None;
                }
                let mut matches = CONTAINER_MATCHES;
                if let Some(SchemaOrArray::Schema(item_schema)) = &schema.items {
                    let item_plan = plan.items.as_deref()?;
                    for item in items.iter() {
                        matches += self.quick(item, item_schema, item_plan, depth + 1)?;
                    }
                }
                Some(matches)
            }
            (Check::General, _) => self.general_matches(value, schema, depth),
            // A value of another type than the schema's, or null: type errors, or `nullable`.
            _ => None,
        }
    }

    fn quick_object(
        &self,
        map: &JsonObject,
        schema: &JsonSchemaProps,
        plan: &NodePlan,
        depth: usize,
    ) -> Option<usize> {
        let limits = (schema.min_properties, schema.max_properties);
        if !within_limits(map.len(), limits) {
            return None;
        }
        let (additional, closed) = match &schema.additional_properties {
            Some(SchemaOrBool::Schema(s)) => {
                (Some((s.as_ref(), plan.additional.as_deref()?)), false)
            }
            Some(SchemaOrBool::Bool(false)) => (None, true),
            _ => (None, false),
        };
        let mut matches = CONTAINER_MATCHES;
        let mut present = 0u64;
        for (k, v) in map.iter() {
            match schema.properties.lookup_index(k) {
                Some(i) => {
                    let (_, property) = schema.properties.get_index(i)?;
                    matches += self.quick(v, property, plan.properties.get(i)?, depth + 1)?;
                    if i < MAX_REQUIRED_BY_POSITION {
                        present |= 1 << i;
                    }
                }
                None if closed => return None,
                None => {
                    if let Some((s, p)) = additional {
                        matches += self.quick(v, s, p, depth + 1)?;
                    }
                }
            }
        }
        let has_required = match plan.required {
            Required::Positions(bits) => present & bits == bits,
            Required::ByName => schema.required.iter().all(|r| map.contains_key(r)),
        };
        has_required.then_some(matches)
    }

    /// The `MatchCount` of a node the plan does not cover, by the general walk of that node
    /// (without a path or ratcheting: only whether it found errors matters).
    fn general_matches(
        &self,
        value: &Json,
        schema: &JsonSchemaProps,
        depth: usize,
    ) -> Option<usize> {
        let r = self.node(value, schema, &mut String::new(), None, false, depth);
        r.is_valid().then_some(r.matches)
    }
}

/// Whether `len` items or properties meet their limits (`count_limits` reports nothing: at
/// least `min`, at most `max`).
fn within_limits(len: usize, (min, max): (Option<i64>, Option<i64>)) -> bool {
    let n = i64::try_from(len).unwrap_or(i64::MAX);
    min.is_none_or(|min| n >= min) && max.is_none_or(|max| n <= max)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::version::KubeVersion;

    fn schema(v: Value) -> JsonSchemaProps {
        serde_json::from_value(v).expect("schema")
    }

    /// The quick walk proves valid exactly what the general walk finds valid, with the same
    /// `MatchCount`, or gives up, before numeric formats were enforced and since; the answer
    /// of the newest release.
    fn agree(s: &JsonSchemaProps, value: &Value) -> Option<usize> {
        let value = &Json::from_serde(value).expect("json");
        let mut answer = None;
        for version in [
            KubeVersion::new(35).expect("supported"),
            KubeVersion::NEWEST,
        ] {
            let v = SchemaValidator::new(version);
            let general = v.validate(value, s, "", None);
            let quick = v.quick_result(value, s, &NodePlan::new(s));
            if let Some(q) = &quick {
                assert!(general.is_valid(), "{value:?}: {:?}", general.errors);
                assert_eq!(q.matches, general.matches, "{value:?}");
            }
            answer = quick.map(|q| q.matches);
        }
        answer
    }

    #[test]
    fn quick_walk_agrees_with_the_general_walk() {
        let s = schema(json!({
            "type": "object",
            "required": ["spec"],
            "properties": {
                "spec": {
                    "type": "object",
                    "required": ["items"],
                    "maxProperties": 3,
                    "properties": {
                        "items": {
                            "type": "array",
                            "maxItems": 2,
                            "items": {
                                "type": "object",
                                "required": ["name"],
                                "properties": {
                                    "name": {"type": "string", "maxLength": 3, "pattern": "^a"},
                                    "on": {"type": "boolean", "enum": [true]},
                                    "n": {"type": "integer", "minimum": 1},
                                    "f": {"type": "number", "maximum": 2.5, "multipleOf": 0.5},
                                    "m": {"type": "integer", "enum": [1, 2]},
                                    "d": {"type": "string", "format": "date-time"},
                                    "e": {"type": "string", "enum": ["x", "y"]},
                                    "p": {"type": "integer", "format": "int32", "maximum": 65535},
                                    "r": {"type": "number", "format": "float"}
                                }
                            }
                        },
                        "labels": {"type": "object", "additionalProperties": {"type": "string", "minLength": 1}},
                        "closed": {"type": "object", "additionalProperties": false, "properties": {"a": {"type": "string"}}},
                        "any": {"anyOf": [{"type": "string"}, {"type": "integer"}]}
                    }
                }
            }
        }));
        let valid = [
            json!({"spec": {"items": []}}),
            json!({"spec": {"items": [{"name": "abc", "on": true, "n": 2, "e": "x"}]}}),
            json!({"spec": {"items": [{"name": "a", "n": 3.0, "f": 2.0, "m": 2}]}}),
            json!({"spec": {"items": [{"name": "a", "f": 1.5, "m": 1.0}]}}),
            json!({"spec": {"items": [{"name": "a", "d": "2024-01-01T00:00:00Z"}], "labels": {"k": "v"}}}),
            json!({"spec": {"items": [], "closed": {"a": "b"}, "any": 3}}),
            json!({"spec": {"items": [{"name": "a", "p": 80, "r": 1}, {"name": "a", "r": 2.5}]}}),
            json!({"spec": {"items": []}, "other": 1}),
        ];
        for v in &valid {
            assert!(agree(&s, v).is_some(), "{v}");
        }
        let invalid = [
            json!({}),
            json!({"spec": {}}),
            json!({"spec": {"items": [{}]}}),
            json!({"spec": {"items": [{"name": "abcd"}]}}),
            json!({"spec": {"items": [{"name": "b"}]}}),
            json!({"spec": {"items": [{"name": "a", "on": false}]}}),
            json!({"spec": {"items": [{"name": "a", "n": 0}]}}),
            json!({"spec": {"items": [{"name": "a", "n": 1.5}]}}),
            json!({"spec": {"items": [{"name": "a", "n": "1"}]}}),
            json!({"spec": {"items": [{"name": "a", "f": 3.0}]}}),
            // Go truncates the factor for an integer value: 0.5 becomes 0, never positive.
            json!({"spec": {"items": [{"name": "a", "f": 2}]}}),
            json!({"spec": {"items": [{"name": "a", "f": 0.7}]}}),
            json!({"spec": {"items": [{"name": "a", "m": 3}]}}),
            json!({"spec": {"items": [{"name": "a", "p": 65536}]}}),
            json!({"spec": {"items": [{"name": "a", "p": 3_000_000_000_i64}]}}),
            json!({"spec": {"items": [{"name": "a", "p": 1.5}]}}),
            json!({"spec": {"items": [{"name": "a", "r": 1e300}]}}),
            json!({"spec": {"items": [{"name": "a", "d": "yesterday"}]}}),
            json!({"spec": {"items": [{"name": "a", "e": "z"}]}}),
            json!({"spec": {"items": [{"name": "a"}, {"name": "a"}, {"name": "a"}]}}),
            json!({"spec": {"items": [], "labels": {"k": ""}}}),
            json!({"spec": {"items": [], "closed": {"b": "c"}}}),
            json!({"spec": {"items": [], "any": true}}),
            json!({"spec": {"items": [], "labels": {}, "closed": {}, "any": 1}}),
            json!({"spec": {"items": null}}),
            json!({"spec": "x"}),
        ];
        for v in &invalid {
            assert_eq!(agree(&s, v), None, "{v}");
        }
    }
}
