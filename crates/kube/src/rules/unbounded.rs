//! The unbounded declarations behind an expensive rule: lists without `maxItems`, maps without
//! `maxProperties` and strings without `maxLength`, whose sizes the cost estimator must assume to
//! be as large as a request allows (`decl.rs`: 3,145,726 bytes over the smallest element).
//!
//! Kubernetes' own message for a rule over budget only says where such bounds could go ("try
//! simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and
//! strings are declared", `getCostErrorMessage` in apiextensions-apiserver
//! `pkg/apis/apiextensions/validation/validation.go`). The estimate of a rule is its cost per
//! evaluation times the cardinality of its node (`validation.go`, `ValidateCustomResourceDefinitionOpenAPISchema`);
//! both factors come from declarations:
//!
//! - the cardinality: every list or map above the rule's node that is unbounded makes the
//!   cardinality the request-size estimate (`CELSchemaContext.MaxCardinality`,
//!   `pkg/apiserver/schema/cel/model` and `unbounded` in `validation.go`), so each such ancestor
//!   is reported;
//! - the cost per evaluation: the estimator sizes only the values the expression reaches from
//!   `self` (`oldSelf`). A descendant of the rule's node is reported when it is unbounded and
//!   every property on the way to it is named in the expression (as a CEL identifier, escaped as
//!   Kubernetes escapes property names, or as a string, e.g. `self['a-b']`); list items and map
//!   values are on the way to everything below them. This over-approximates what the expression
//!   reads (a name may be mentioned for another value) and never misses a value it selects by
//!   name; a rule that reads a whole subtree without naming its fields (`self == oldSelf`) is
//!   reported with the subtree's top, whose size is what the estimator charges.

use std::collections::HashSet;

use crate::escaping;
use crate::field::Path;
use crate::schema_props::{JsonSchemaProps, SchemaOrArray, SchemaOrBool};
use crate::structural::MAX_SCHEMA_DEPTH;

/// The bound a declaration lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MissingBound {
    /// An array without `maxItems`.
    MaxItems,
    /// A map (`additionalProperties`) without `maxProperties`.
    MaxProperties,
    /// A string (also `byte` and `int-or-string`) without `maxLength` nor `enum`.
    MaxLength,
}

impl MissingBound {
    /// The schema keyword that would bound it.
    pub fn keyword(self) -> &'static str {
        match self {
            MissingBound::MaxItems => "maxItems",
            MissingBound::MaxProperties => "maxProperties",
            MissingBound::MaxLength => "maxLength",
        }
    }
}

/// One unbounded declaration: its schema path (as rule paths are written) and the missing bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unbounded {
    /// `spec.validation.openAPIV3Schema.properties[spec].properties[items]`, …
    pub path: String,
    /// What would bound it.
    pub missing: MissingBound,
}

/// The bound `p` lacks, if its size is unbounded for the estimator (the table of `decl.rs`:
/// `duration`, `date` and `date-time` strings and enums have sizes of their own).
pub fn missing_bound(p: &JsonSchemaProps) -> Option<MissingBound> {
    if p.x_int_or_string {
        return p.max_length.is_none().then_some(MissingBound::MaxLength);
    }
    match p.type_.as_deref() {
        Some("array") => p.max_items.is_none().then_some(MissingBound::MaxItems),
        Some("object") if matches!(p.additional_properties, Some(SchemaOrBool::Schema(_))) => p
            .max_properties
            .is_none()
            .then_some(MissingBound::MaxProperties),
        Some("string") => {
            let sized_format =
                matches!(p.format.as_deref(), Some("duration" | "date" | "date-time"));
            (p.max_length.is_none() && p.enum_.is_empty() && !sized_format)
                .then_some(MissingBound::MaxLength)
        }
        _ => None,
    }
}

/// The identifiers and the words inside string literals of `expression`: the names it may select.
fn mentioned_names(expression: &str) -> HashSet<&str> {
    expression
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .flat_map(|w| std::iter::once(w).chain(w.split(['-', '.'])))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether the expression mentions property `name`: as written (in a string) or as the CEL
/// identifier Kubernetes gives it.
fn mentions(names: &HashSet<&str>, name: &str) -> bool {
    names.contains(name) || escaping::escape(name).is_some_and(|e| names.contains(e.as_ref()))
}

/// The unbounded declarations at and below `node` (at `path`) that `expression` reaches, in
/// schema order, the node itself first.
pub fn unbounded_below(node: &JsonSchemaProps, path: &Path, expression: &str) -> Vec<Unbounded> {
    let names = mentioned_names(expression);
    let mut out = Vec::new();
    walk(node, path, &names, &mut out, 0);
    out
}

fn walk(
    p: &JsonSchemaProps,
    path: &Path,
    names: &HashSet<&str>,
    out: &mut Vec<Unbounded>,
    depth: usize,
) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    if let Some(missing) = missing_bound(p) {
        out.push(Unbounded {
            path: path.to_string(),
            missing,
        });
    }
    for (name, prop) in &p.properties {
        if mentions(names, name) {
            walk(
                prop,
                &path.child("properties").key(name),
                names,
                out,
                depth + 1,
            );
        }
    }
    if let Some(SchemaOrArray::Schema(items)) = &p.items {
        walk(items, &path.child("items"), names, out, depth + 1);
    }
    if let Some(SchemaOrBool::Schema(values)) = &p.additional_properties {
        walk(
            values,
            &path.child("additionalProperties"),
            names,
            out,
            depth + 1,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn props(v: serde_json::Value) -> JsonSchemaProps {
        serde_json::from_value(v).expect("schema")
    }

    fn paths(found: &[Unbounded]) -> Vec<String> {
        found
            .iter()
            .map(|u| format!("{} {}", u.path, u.missing.keyword()))
            .collect()
    }

    #[test]
    fn reports_what_the_expression_names() {
        let node = props(json!({
            "type": "object",
            "properties": {
                "items": {"type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": "string"},
                    "other-name": {"type": "string"},
                    "kind": {"type": "string", "enum": ["a", "b"]},
                    "when": {"type": "string", "format": "date-time"},
                    "unused": {"type": "string"}
                }}},
                "labels": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 3}},
                "port": {"x-kubernetes-int-or-string": true},
                "bounded": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 5}}
            }
        }));
        let found = unbounded_below(
            &node,
            &Path::new("s"),
            "self.items.all(i, i.name != '' && i.other__dash__name != '' && i.kind == 'a' && i.when > now) && self.labels.size() < 3 && self.bounded.size() > 0",
        );
        assert_eq!(
            paths(&found),
            [
                "s.properties[items] maxItems",
                "s.properties[items].items.properties[name] maxLength",
                "s.properties[items].items.properties[other-name] maxLength",
                "s.properties[labels] maxProperties",
            ]
        );
        // A property named in a string (map-style access) counts too.
        let found = unbounded_below(&node, &Path::new("s"), "self['port'] == 1");
        assert_eq!(paths(&found), ["s.properties[port] maxLength"]);
    }
}
