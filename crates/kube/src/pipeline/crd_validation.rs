//! CRD self-validation (apiextensions `pkg/apis/apiextensions/validation`, `schema/validation.go`;
//! reference §4): structural-schema rules, placement rules and defaults that must validate,
//! with Kubernetes' causes and paths.
//!
//! CEL rule compilation and cost problems are the rules module's; this module covers the schema.

use serde_json::Value;

use super::openapi::{SchemaValidator, go_regexp_error};
use super::version::KubeVersion;
use crate::crd::CustomResourceDefinition;
use crate::field::{BadValue, FieldError, Path};
use crate::schema_props::{JsonSchemaProps, SchemaOrArray, SchemaOrBool};

const TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];
const MAX_DEPTH: usize = 200;

/// Where a schema node sits, for the rules that depend on it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Root,
    Property,
    Items,
    AdditionalProperties,
}

/// Every problem with the CRD's schemas and names, as `ValidateCustomResourceDefinition`
/// reports them.
pub fn validate_crd(crd: &CustomResourceDefinition, version: KubeVersion) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let expected = format!("{}.{}", crd.spec.names.plural, crd.spec.group);
    if crd.metadata.name != expected {
        errs.push(FieldError::invalid(
            Path::new("metadata").child("name"),
            BadValue::String(crd.metadata.name.clone()),
            "must be spec.names.plural+\".\"+spec.group",
        ));
    }
    if crd.spec.preserve_unknown_fields {
        errs.push(FieldError::invalid(
            Path::new("spec").child("preserveUnknownFields"),
            BadValue::Bool(true),
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
        ));
    }
    let schemas: Vec<Option<&JsonSchemaProps>> = crd
        .spec
        .versions
        .iter()
        .map(|v| v.open_api_v3_schema())
        .collect();
    let identical = schemas.windows(2).all(|w| w[0] == w[1]);
    for (i, v) in crd.spec.versions.iter().enumerate() {
        let Some(schema) = v.open_api_v3_schema() else {
            continue;
        };
        if identical && i > 0 {
            break;
        }
        let base = if identical {
            Path::new("spec")
                .child("validation")
                .child("openAPIV3Schema")
        } else {
            Path::new("spec")
                .child("versions")
                .index(i)
                .child("schema")
                .child("openAPIV3Schema")
        };
        let mut v_errs = Vec::new();
        let mut c = Checker {
            errs: &mut v_errs,
            version,
        };
        c.node(schema, &base, Place::Root, 0);
        c.root(schema, &base, v.has_status_subresource());
        errs.extend(v_errs);
    }
    errs
}

struct Checker<'e> {
    errs: &'e mut Vec<FieldError>,
    version: KubeVersion,
}

impl Checker<'_> {
    fn push(&mut self, e: FieldError) {
        self.errs.push(e);
    }

    fn root(&mut self, s: &JsonSchemaProps, path: &Path, status_subresource: bool) {
        match s.type_.as_deref() {
            None | Some("") => {
                self.push(FieldError::required(
                    path.child("type"),
                    "must not be empty at the root",
                ));
            }
            Some("object") => {}
            Some(t) if TYPES.contains(&t) => self.push(FieldError::invalid(
                path.child("type"),
                BadValue::String(t.to_string()),
                "must be object at the root",
            )),
            Some(_) => {}
        }
        if s.nullable {
            self.push(FieldError::forbidden(
                path.child("nullable"),
                "nullable cannot be true at the root",
            ));
        }
        if s.additional_properties.is_some() {
            self.push(FieldError::forbidden(
                path.child("additionalProperties"),
                "must not be used at the root",
            ));
        }
        if let Some(meta) = s.properties.get("metadata") {
            let mpath = path.child("properties").key("metadata");
            let mut stripped = meta.clone();
            stripped.type_ = None;
            stripped.properties.shift_remove("name");
            stripped.properties.shift_remove("generateName");
            let has_default = meta.default.is_some();
            stripped.default = None;
            if stripped != JsonSchemaProps::default() {
                self.push(FieldError::forbidden(
                    mpath.clone(),
                    "must not specify anything other than name and generateName, but metadata is implicitly specified",
                ));
            }
            if has_default {
                self.push(FieldError::forbidden(
                    mpath.child("default"),
                    "must not be set in top-level metadata",
                ));
            }
        }
        for k in ["apiVersion", "kind"] {
            if let Some(p) = s.properties.get(k)
                && p.default.is_some()
            {
                self.push(FieldError::forbidden(
                    path.child("properties").key(k).child("default"),
                    "must not be set in top-level metadata",
                ));
            }
        }
        if status_subresource {
            let disallowed = s.id.as_deref().is_some_and(|x| !x.is_empty())
                || s.schema.as_deref().is_some_and(|x| !x.is_empty())
                || s.ref_.is_some()
                || s.nullable
                || s.default.is_some()
                || !s.enum_.is_empty()
                || s.max_properties.is_some()
                || s.min_properties.is_some()
                || !s.all_of.is_empty()
                || !s.one_of.is_empty()
                || !s.any_of.is_empty()
                || s.not.is_some()
                || s.additional_properties.is_some()
                || !s.pattern_properties.is_empty()
                || !s.dependencies.is_empty()
                || s.additional_items.is_some()
                || !s.definitions.is_empty()
                || s.x_embedded_resource
                || s.x_int_or_string
                || !s.x_list_map_keys.is_empty()
                || s.x_list_type.is_some()
                || s.x_map_type.is_some();
            if disallowed {
                // The value is the Go struct's JSON (field order, not sorted keys): printed
                // through the detail, with the value itself omitted.
                self.push(FieldError::invalid(
                    path.clone(),
                    BadValue::Omit,
                    format!(
                        "{}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled",
                        go_struct_json(s)
                    ),
                ));
            }
        }
        // Junctors at the root must only name properties defined structurally.
        let mut junctor_props = Vec::new();
        for (name, list) in [
            ("allOf", &s.all_of),
            ("anyOf", &s.any_of),
            ("oneOf", &s.one_of),
        ] {
            for (i, sub) in list.iter().enumerate() {
                for p in sub.properties.keys() {
                    junctor_props.push((p.clone(), format!("{name}[{i}].properties[{p}]")));
                }
            }
        }
        if let Some(not) = &s.not {
            for p in not.properties.keys() {
                junctor_props.push((p.clone(), format!("not.properties[{p}]")));
            }
        }
        for (p, at) in junctor_props {
            if !s.properties.contains_key(&p) {
                self.push(FieldError::required(
                    path.child("properties").key(&p),
                    format!("because it is defined in {}", path_text(path, &at)),
                ));
            }
        }
    }

    fn node(&mut self, s: &JsonSchemaProps, path: &Path, place: Place, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let t = s.type_.as_deref().unwrap_or("");
        let preserve = s.x_preserve_unknown_fields == Some(true);
        if !t.is_empty() && !TYPES.contains(&t) {
            if t == "null" {
                self.push(FieldError::forbidden(
                    path.child("type"),
                    "type cannot be set to null, use nullable as an alternative",
                ));
            } else {
                self.push(FieldError::not_supported(
                    path.child("type"),
                    BadValue::String(t.to_string()),
                    &TYPES.map(String::from),
                ));
            }
        }
        if t.is_empty() && !s.x_int_or_string && !preserve && s.ref_.is_none() {
            match place {
                Place::Property => self.push(FieldError::required(
                    path.child("type"),
                    "must not be empty for specified object fields",
                )),
                Place::Items => self.push(FieldError::required(
                    path.child("type"),
                    "must not be empty for specified array items",
                )),
                Place::AdditionalProperties => self.push(FieldError::required(
                    path.child("type"),
                    "must not be empty for specified object fields",
                )),
                Place::Root => {}
            }
        }
        if t == "array" && s.items.is_none() {
            self.push(FieldError::required(
                path.child("items"),
                "must be specified",
            ));
        }
        if let Some(SchemaOrArray::Array(_)) = &s.items {
            self.push(FieldError::forbidden(
                path.child("items"),
                "items must be a schema object and not an array",
            ));
        }
        if !s.properties.is_empty()
            && s.additional_properties
                .as_ref()
                .is_some_and(|a| a.schema().is_some() || !a.allows())
        {
            self.push(FieldError::forbidden(
                path.child("additionalProperties"),
                "additionalProperties and properties are mutual exclusive",
            ));
        }
        if s.unique_items {
            self.push(FieldError::forbidden(
                path.child("uniqueItems"),
                "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            ));
        }
        for (field, present) in [
            ("$ref", s.ref_.is_some()),
            ("patternProperties", !s.pattern_properties.is_empty()),
            ("definitions", !s.definitions.is_empty()),
            ("dependencies", !s.dependencies.is_empty()),
            ("additionalItems", s.additional_items.is_some()),
            ("id", s.id.as_deref().is_some_and(|x| !x.is_empty())),
        ] {
            if present {
                self.push(FieldError::forbidden(
                    path.child(field),
                    format!("{field} is not supported"),
                ));
            }
        }
        if let Some(p) = s.pattern.as_deref()
            && let Err(e) = regex::Regex::new(p)
        {
            self.push(FieldError::invalid(
                path.child("pattern"),
                BadValue::String(p.to_string()),
                format!(
                    "must be a valid regular expression, but isn't: {}",
                    go_regexp_error(p, &e)
                ),
            ));
        }
        if s.x_preserve_unknown_fields == Some(false) {
            self.push(FieldError::invalid(
                path.child("x-kubernetes-preserve-unknown-fields"),
                BadValue::Bool(false),
                "must be true or undefined",
            ));
        }
        if s.x_int_or_string && preserve {
            self.push(FieldError::invalid(
                path.child("x-kubernetes-preserve-unknown-fields"),
                BadValue::Bool(true),
                "must be false if x-kubernetes-int-or-string is true",
            ));
        }
        if s.x_int_or_string && s.x_embedded_resource {
            self.push(FieldError::invalid(
                path.child("x-kubernetes-embedded-resource"),
                BadValue::Bool(true),
                "must be false if x-kubernetes-int-or-string is true",
            ));
        }
        if s.x_embedded_resource {
            if !preserve && s.properties.is_empty() {
                self.push(FieldError::required(
                    path.child("properties"),
                    "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
                ));
            }
            if t != "object" {
                self.push(FieldError::invalid(
                    path.child("type"),
                    BadValue::String(t.to_string()),
                    "must be object if x-kubernetes-embedded-resource is true",
                ));
            }
        }
        self.list_and_map_type(s, path, t);
        self.junctors(s, path, depth);
        if let Some(d) = &s.default {
            self.default(s, d, path, depth);
        }
        for (name, p) in &s.properties {
            let ppath = path.child("properties").key(name);
            if place == Place::Root
                && matches!(name.as_str(), "metadata" | "apiVersion" | "kind")
                && p.default.is_some()
            {
                // Reported by the root checks; such defaults are not validated.
                let mut without = p.clone();
                without.default = None;
                self.node(&without, &ppath, Place::Property, depth + 1);
                continue;
            }
            self.node(p, &ppath, Place::Property, depth + 1);
        }
        if let Some(SchemaOrArray::Schema(i)) = &s.items {
            self.node(i, &path.child("items"), Place::Items, depth + 1);
        }
        if let Some(SchemaOrBool::Schema(a)) = &s.additional_properties {
            self.node(
                a,
                &path.child("additionalProperties"),
                Place::AdditionalProperties,
                depth + 1,
            );
        }
    }

    fn list_and_map_type(&mut self, s: &JsonSchemaProps, path: &Path, t: &str) {
        if let Some(lt) = s.x_list_type.as_deref() {
            if t != "array" {
                self.push(FieldError::invalid(
                    path.child("type"),
                    BadValue::String(t.to_string()),
                    "must be array if x-kubernetes-list-type is specified",
                ));
            } else {
                match lt {
                    "atomic" => {}
                    "set" => {
                        if let Some(SchemaOrArray::Schema(i)) = &s.items {
                            let it = i.type_.as_deref().unwrap_or("");
                            if (it == "object" || it == "array")
                                && i.x_map_type.as_deref() != Some("atomic")
                                && i.x_list_type.as_deref() != Some("atomic")
                            {
                                let sub = if it == "object" {
                                    "x-kubernetes-map-type"
                                } else {
                                    "x-kubernetes-list-type"
                                };
                                self.push(FieldError::invalid(
                                    path.child("items").child(sub),
                                    BadValue::Null,
                                    "must be atomic as item of a list with x-kubernetes-list-type=set",
                                ));
                            }
                        }
                    }
                    "map" => {
                        if s.x_list_map_keys.is_empty() {
                            self.push(FieldError::required(
                                path.child("x-kubernetes-list-map-keys"),
                                "must not be empty if x-kubernetes-list-type is map",
                            ));
                        }
                        if let Some(SchemaOrArray::Schema(i)) = &s.items {
                            for k in &s.x_list_map_keys {
                                if let Some(kp) = i.properties.get(k) {
                                    if !i.required.contains(k) && kp.default.is_none() {
                                        self.push(FieldError::required(
                                            path.child("items").child("properties").key(k).child("default"),
                                            "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                                        ));
                                    }
                                } else {
                                    self.push(FieldError::invalid(
                                        path.child("x-kubernetes-list-map-keys"),
                                        BadValue::Json(Value::from(s.x_list_map_keys.clone())),
                                        "entries must all be names of item properties",
                                    ));
                                }
                            }
                        }
                    }
                    other => self.push(FieldError::not_supported(
                        path.child("x-kubernetes-list-type"),
                        BadValue::String(other.to_string()),
                        &["atomic".into(), "set".into(), "map".into()],
                    )),
                }
            }
        }
        if !s.x_list_map_keys.is_empty() && s.x_list_type.as_deref() != Some("map") {
            self.push(FieldError::invalid(
                path.child("x-kubernetes-list-type"),
                s.x_list_type
                    .as_ref()
                    .map_or(BadValue::Null, |l| BadValue::String(l.clone())),
                "must be map if x-kubernetes-list-map-keys is non-empty",
            ));
        }
        if let Some(mt) = s.x_map_type.as_deref() {
            if t != "object" {
                self.push(FieldError::invalid(
                    path.child("type"),
                    BadValue::String(t.to_string()),
                    "must be object if x-kubernetes-map-type is specified",
                ));
            }
            if mt != "atomic" && mt != "granular" {
                self.push(FieldError::not_supported(
                    path.child("x-kubernetes-map-type"),
                    BadValue::String(mt.to_string()),
                    &["atomic".into(), "granular".into()],
                ));
            }
        }
    }

    /// Inside `allOf`/`anyOf`/`oneOf`/`not`: only value validations may appear.
    fn junctors(&mut self, s: &JsonSchemaProps, path: &Path, depth: usize) {
        let mut subs: Vec<(Path, &JsonSchemaProps)> = Vec::new();
        for (name, list) in [
            ("allOf", &s.all_of),
            ("anyOf", &s.any_of),
            ("oneOf", &s.one_of),
        ] {
            for (i, sub) in list.iter().enumerate() {
                subs.push((path.child(name).index(i), sub));
            }
        }
        if let Some(n) = &s.not {
            subs.push((path.child("not"), n));
        }
        for (p, sub) in subs {
            self.nested_value_validation(sub, &p, depth + 1);
        }
    }

    fn nested_value_validation(&mut self, s: &JsonSchemaProps, path: &Path, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let empty = "must be empty to be structural";
        if s.type_.as_deref().is_some_and(|t| !t.is_empty()) {
            self.push(FieldError::forbidden(path.child("type"), empty));
        }
        if s.description.as_deref().is_some_and(|t| !t.is_empty()) {
            self.push(FieldError::forbidden(path.child("description"), empty));
        }
        if s.title.as_deref().is_some_and(|t| !t.is_empty()) {
            self.push(FieldError::forbidden(path.child("title"), empty));
        }
        if s.default.is_some() {
            self.push(FieldError::forbidden(
                path.child("default"),
                "must be undefined to be structural",
            ));
        }
        if s.nullable {
            self.push(FieldError::forbidden(
                path.child("nullable"),
                "must be false to be structural",
            ));
        }
        if s.additional_properties.is_some() {
            self.push(FieldError::forbidden(
                path.child("additionalProperties"),
                "must be undefined to be structural",
            ));
        }
        if s.x_preserve_unknown_fields.is_some() {
            self.push(FieldError::forbidden(
                path.child("x-kubernetes-preserve-unknown-fields"),
                "must be false to be structural",
            ));
        }
        if s.x_embedded_resource {
            self.push(FieldError::forbidden(
                path.child("x-kubernetes-embedded-resource"),
                "must be false to be structural",
            ));
        }
        if s.x_int_or_string {
            self.push(FieldError::forbidden(
                path.child("x-kubernetes-int-or-string"),
                "must be false to be structural",
            ));
        }
        if !s.x_list_map_keys.is_empty() {
            self.push(FieldError::forbidden(
                path.child("x-kubernetes-list-map-keys"),
                empty,
            ));
        }
        if s.x_list_type.is_some() {
            self.push(FieldError::forbidden(
                path.child("x-kubernetes-list-type"),
                empty,
            ));
        }
        if s.x_map_type.is_some() {
            self.push(FieldError::forbidden(
                path.child("x-kubernetes-map-type"),
                empty,
            ));
        }
        if !s.x_validations.is_empty() {
            self.push(FieldError::forbidden(
                path.child("x-kubernetes-validations"),
                empty,
            ));
        }
        if s.properties.contains_key("metadata") && depth > 0 {
            // metadata inside a junctor
        }
        for (name, p) in &s.properties {
            if name == "metadata" {
                self.push(FieldError::forbidden(
                    path.child("properties").key(name),
                    "must not be specified in a nested context",
                ));
            }
            self.nested_value_validation(p, &path.child("properties").key(name), depth + 1);
        }
        if let Some(SchemaOrArray::Schema(i)) = &s.items {
            self.nested_value_validation(i, &path.child("items"), depth + 1);
        }
        for (name, list) in [
            ("allOf", &s.all_of),
            ("anyOf", &s.any_of),
            ("oneOf", &s.one_of),
        ] {
            for (i, sub) in list.iter().enumerate() {
                self.nested_value_validation(sub, &path.child(name).index(i), depth + 1);
            }
        }
        if let Some(n) = &s.not {
            self.nested_value_validation(n, &path.child("not"), depth + 1);
        }
    }

    /// Defaults must be pruned already (no unknown fields) and validate against their schema.
    fn default(&mut self, s: &JsonSchemaProps, d: &Value, path: &Path, _depth: usize) {
        let dpath = path.child("default");
        let mut pruned = d.clone();
        let unknown = super::prune::prune(&mut pruned, s, false);
        if !unknown.is_empty() {
            self.push(FieldError::invalid(
                dpath.clone(),
                super::openapi::bad_value_of(d),
                "must not have unknown fields",
            ));
            return;
        }
        let v = SchemaValidator::new(self.version);
        for e in v.validate(d, s, "", None).errors {
            self.push(e.to_field_error(&dpath));
        }
    }
}

/// `<path>.<suffix>` as text (junctor property paths are named in messages).
fn path_text(base: &Path, suffix: &str) -> String {
    format!("{base}.{suffix}")
}

/// Go's `encoding/json` of the internal `apiextensions.JSONSchemaProps` struct (no JSON tags:
/// Go field names, every field, `null` for nil pointers and slices), as CRD errors print a
/// whole schema.
pub fn go_struct_json(s: &JsonSchemaProps) -> String {
    let mut out = String::new();
    write_props(s, &mut out, 0);
    out
}

/// Go's `encoding/json` of an internal `apiextensions.ValidationRule`.
pub fn go_rule_json(r: &crate::schema_props::ValidationRule) -> String {
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
    if depth > MAX_DEPTH {
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
    let map = |m: &indexmap::IndexMap<String, JsonSchemaProps>, out: &mut String| {
        if m.is_empty() {
            out.push_str("null");
            return;
        }
        let mut keys: Vec<&String> = m.keys().collect();
        keys.sort();
        out.push('{');
        for (i, k) in keys.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&q(k));
            out.push(':');
            if let Some(x) = m.get(k) {
                write_props(x, out, depth + 1);
            }
        }
        out.push('}');
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
    if s.dependencies.is_empty() {
        out.push_str("null");
    } else {
        let mut keys: Vec<&String> = s.dependencies.keys().collect();
        keys.sort();
        out.push('{');
        for (i, k) in keys.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&q(k));
            out.push(':');
            match s.dependencies.get(k) {
                Some(crate::schema_props::SchemaOrStringArray::Schema(x)) => {
                    out.push_str("{\"Schema\":");
                    write_props(x, out, depth + 1);
                    out.push_str(",\"Property\":null}");
                }
                Some(crate::schema_props::SchemaOrStringArray::Properties(p)) => {
                    out.push_str("{\"Schema\":null,\"Property\":");
                    out.push_str(&crate::field::go_json(&Value::from(p.clone())));
                    out.push('}');
                }
                None => out.push_str("null"),
            }
        }
        out.push('}');
    }
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
