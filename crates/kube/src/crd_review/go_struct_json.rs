//! Go's `encoding/json` of apiextensions' internal structs, as CRD errors print a whole schema
//! (`field.Invalid` with the schema as its value): the internal `JSONSchemaProps` and
//! `ValidationRule` have no JSON tags, so keys are Go field names and every field is written,
//! `null` for nil pointers and slices (Go's `encoding/json` `Marshal` over
//! `k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/types_jsonschema.go`).

use serde_json::Value;

use super::schema::MAX_SCHEMA_WALK_DEPTH;
use crate::schema_props::{
    JsonSchemaProps, SchemaMap, SchemaOrArray, SchemaOrBool, SchemaOrStringArray,
};

/// Go's `encoding/json` of the internal `apiextensions.JSONSchemaProps` struct (no JSON tags:
/// Go field names, every field, `null` for nil pointers and slices), as CRD errors print a
/// whole schema.
pub(crate) fn go_struct_json(s: &JsonSchemaProps) -> String {
    let mut out = String::new();
    write_props(s, &mut out, 0);
    out
}

/// Go's `encoding/json` of an internal `apiextensions.ValidationRule`.
fn go_rule_json(r: &crate::schema_props::ValidationRule) -> String {
    let q = |s: &str| crate::field::go_json(&Value::String(s.to_string()));
    format!(
        "{{\"Rule\":{},\"Message\":{},\"MessageExpression\":{},\"Reason\":{},\"FieldPath\":{},\"OptionalOldSelf\":{}}}",
        q(&r.rule),
        q(&r.message),
        q(&r.message_expression),
        r.reason.as_deref().map_or("null".to_string(), q),
        q(&r.field_path),
        r.optional_old_self
            .map_or("null".to_string(), |b| b.to_string())
    )
}

fn write_props(s: &JsonSchemaProps, out: &mut String, depth: usize) {
    if depth > MAX_SCHEMA_WALK_DEPTH {
        out.push_str("null");
        return;
    }
    let q = |s: &str| crate::field::go_json(&Value::String(s.to_string()));
    let opt_str = |v: &Option<String>| q(v.as_deref().unwrap_or(""));
    let opt_f = |v: Option<f64>| {
        v.map_or("null".to_string(), |f| {
            crate::field::go_json(&Value::from(f))
        })
    };
    let opt_i = |v: Option<i64>| v.map_or("null".to_string(), |i| i.to_string());
    let opt_json = |v: &Option<Value>| v.as_ref().map_or("null".to_string(), crate::field::go_json);
    let list = |v: &[JsonSchemaProps], out: &mut String| {
        if v.is_empty() {
            out.push_str("null");
            return;
        }
        out.push('[');
        for (i, x) in v.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_props(x, out, depth + 1);
        }
        out.push(']');
    };
    let map = |m: &SchemaMap<JsonSchemaProps>, out: &mut String| {
        write_sorted_map(m, out, |x, out| write_props(x, out, depth + 1));
    };
    let schema_or_bool = |v: &Option<SchemaOrBool>, out: &mut String| match v {
        None => out.push_str("null"),
        Some(SchemaOrBool::Bool(b)) => out.push_str(&format!("{{\"Allows\":{b},\"Schema\":null}}")),
        Some(SchemaOrBool::Schema(x)) => {
            out.push_str("{\"Allows\":true,\"Schema\":");
            write_props(x, out, depth + 1);
            out.push('}');
        }
    };
    out.push_str(&format!(
        "{{\"ID\":{},\"Schema\":{},\"Ref\":{},\"Description\":{},\"Type\":{},\"Nullable\":{},\"Format\":{},\"Title\":{},\"Default\":{},\"Maximum\":{},\"ExclusiveMaximum\":{},\"Minimum\":{},\"ExclusiveMinimum\":{},\"MaxLength\":{},\"MinLength\":{},\"Pattern\":{},\"MaxItems\":{},\"MinItems\":{},\"UniqueItems\":{},\"MultipleOf\":{},\"Enum\":{},\"MaxProperties\":{},\"MinProperties\":{},\"Required\":{},\"Items\":",
        opt_str(&s.id),
        opt_str(&s.schema),
        s.ref_.as_deref().map_or("null".to_string(), q),
        opt_str(&s.description),
        opt_str(&s.type_),
        s.nullable,
        opt_str(&s.format),
        opt_str(&s.title),
        opt_json(&s.default),
        opt_f(s.maximum),
        s.exclusive_maximum,
        opt_f(s.minimum),
        s.exclusive_minimum,
        opt_i(s.max_length),
        opt_i(s.min_length),
        opt_str(&s.pattern),
        opt_i(s.max_items),
        opt_i(s.min_items),
        s.unique_items,
        opt_f(s.multiple_of),
        if s.enum_.is_empty() { "null".to_string() } else { crate::field::go_json(&Value::Array(s.enum_.clone())) },
        opt_i(s.max_properties),
        opt_i(s.min_properties),
        if s.required.is_empty() { "null".to_string() } else { crate::field::go_json(&Value::from(s.required.clone())) },
    ));
    match &s.items {
        None => out.push_str("null"),
        Some(SchemaOrArray::Schema(x)) => {
            out.push_str("{\"Schema\":");
            write_props(x, out, depth + 1);
            out.push_str(",\"JSONSchemas\":null}");
        }
        Some(SchemaOrArray::Array(xs)) => {
            out.push_str("{\"Schema\":null,\"JSONSchemas\":");
            list(xs, out);
            out.push('}');
        }
    }
    out.push_str(",\"AllOf\":");
    list(&s.all_of, out);
    out.push_str(",\"OneOf\":");
    list(&s.one_of, out);
    out.push_str(",\"AnyOf\":");
    list(&s.any_of, out);
    out.push_str(",\"Not\":");
    match &s.not {
        None => out.push_str("null"),
        Some(n) => write_props(n, out, depth + 1),
    }
    out.push_str(",\"Properties\":");
    map(&s.properties, out);
    out.push_str(",\"AdditionalProperties\":");
    schema_or_bool(&s.additional_properties, out);
    out.push_str(",\"PatternProperties\":");
    map(&s.pattern_properties, out);
    out.push_str(",\"Dependencies\":");
    write_sorted_map(&s.dependencies, out, |d, out| match d {
        SchemaOrStringArray::Schema(x) => {
            out.push_str("{\"Schema\":");
            write_props(x, out, depth + 1);
            out.push_str(",\"Property\":null}");
        }
        SchemaOrStringArray::Properties(p) => {
            out.push_str("{\"Schema\":null,\"Property\":");
            out.push_str(&crate::field::go_json(&Value::from(p.clone())));
            out.push('}');
        }
    });
    out.push_str(",\"AdditionalItems\":");
    schema_or_bool(&s.additional_items, out);
    out.push_str(",\"Definitions\":");
    map(&s.definitions, out);
    out.push_str(",\"ExternalDocs\":");
    match &s.external_docs {
        None => out.push_str("null"),
        Some(d) => out.push_str(&format!(
            "{{\"Description\":{},\"URL\":{}}}",
            q(&d.description),
            q(&d.url)
        )),
    }
    out.push_str(&format!(
        ",\"Example\":{},\"XPreserveUnknownFields\":{},\"XEmbeddedResource\":{},\"XIntOrString\":{},\"XListMapKeys\":{},\"XListType\":{},\"XMapType\":{},\"XValidations\":",
        opt_json(&s.example),
        s.x_preserve_unknown_fields.map_or("null".to_string(), |b| b.to_string()),
        s.x_embedded_resource,
        s.x_int_or_string,
        if s.x_list_map_keys.is_empty() { "null".to_string() } else { crate::field::go_json(&Value::from(s.x_list_map_keys.clone())) },
        s.x_list_type.as_deref().map_or("null".to_string(), q),
        s.x_map_type.as_deref().map_or("null".to_string(), q),
    ));
    if s.x_validations.is_empty() {
        out.push_str("null");
    } else {
        out.push('[');
        for (i, r) in s.x_validations.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&go_rule_json(r));
        }
        out.push(']');
    }
    out.push('}');
}

/// A Go `map[string]T` as `encoding/json` writes it: keys sorted, `null` when empty (a nil map).
fn write_sorted_map<V>(m: &SchemaMap<V>, out: &mut String, mut value: impl FnMut(&V, &mut String)) {
    if m.is_empty() {
        out.push_str("null");
        return;
    }
    let mut entries: Vec<(&String, &V)> = m.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    out.push('{');
    for (i, (k, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&crate::field::go_json(&Value::String(k.clone())));
        out.push(':');
        value(v, out);
    }
    out.push('}');
}
