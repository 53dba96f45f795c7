//! CRD self-validation (apiextensions `pkg/apis/apiextensions/validation`, `schema/validation.go`;
//! reference §4): structural-schema rules, placement rules and defaults that must validate,
//! with Kubernetes' causes and paths.
//!
//! CEL rule compilation and cost problems are the rules module's; this module covers the schema.

use serde_json::Value;

use super::go_struct_json::go_struct_json;
use crate::crd::CustomResourceDefinition;
use crate::field::{BadValue, FieldError, Path};
use crate::pipeline::openapi::SchemaValidator;
use crate::schema_props::{JsonSchemaProps, SchemaOrArray, SchemaOrBool};
use crate::version::KubeVersion;

const TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];
/// How deep the schema walks go (CRDs are read at most [`crate::load::MAX_CRD_DEPTH`] deep).
pub(crate) const MAX_SCHEMA_WALK_DEPTH: usize = 200;

/// Where a schema node sits, for the rules that depend on it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Root,
    Property,
    Items,
    AdditionalProperties,
}

/// Checks that an update of a CRD skips when the stored CRD already fails them (reference §4.2,
/// `ValidateCustomResourceDefinitionUpdate`'s options): Kubernetes does not tighten validation
/// on persisted data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Requirements {
    /// `requireValidPropertyType`: `type` is one of the OpenAPI types.
    pub valid_property_type: bool,
    /// `requirePrunedDefaults`: defaults have no unknown fields.
    pub pruned_defaults: bool,
    /// `requireAtomicSetType`: items of `x-kubernetes-list-type: set` lists are atomic.
    pub atomic_set_type: bool,
    /// `requireMapListKeysMapSetValidation`: list-map keys required or defaulted and not
    /// nullable; set and map items not nullable.
    pub map_list_keys_map_set: bool,
}

impl Requirements {
    /// Everything required (CRD creation).
    pub const ALL: Requirements = Requirements {
        valid_property_type: true,
        pruned_defaults: true,
        atomic_set_type: true,
        map_list_keys_map_set: true,
    };
}

/// Every problem with a CRD, as `ValidateCustomResourceDefinition` reports them on creation.
/// CEL rule compilation and cost problems are the rules module's and not included.
pub fn validate_crd(crd: &CustomResourceDefinition, version: KubeVersion) -> Vec<FieldError> {
    check(crd, version, Requirements::ALL).0
}

/// The problems `kcel check` reports for a CRD: those of [`validate_crd`] (creation).
pub fn problems(crd: &CustomResourceDefinition, kube_version: KubeVersion) -> Vec<FieldError> {
    validate_crd(crd, kube_version)
}

/// The problems of updating the stored CRD `old` to `crd` (`ValidateCustomResourceDefinitionUpdate`):
/// the group, plural and name are immutable, and each ratcheted check of [`Requirements`] only
/// applies if `old` passes it.
pub fn validate_crd_update(
    crd: &CustomResourceDefinition,
    old: &CustomResourceDefinition,
    version: KubeVersion,
) -> Vec<FieldError> {
    let (_, old_violations) = check(old, version, Requirements::ALL);
    let req = Requirements {
        valid_property_type: !old_violations.valid_property_type,
        pruned_defaults: !old_violations.pruned_defaults,
        atomic_set_type: !old_violations.atomic_set_type,
        map_list_keys_map_set: !old_violations.map_list_keys_map_set,
    };
    let mut errs = super::spec::validate_update(crd, old);
    errs.extend(check(crd, version, req).0);
    errs
}

/// Which ratcheted checks a CRD fails (same fields as [`Requirements`]).
#[derive(Clone, Copy, Debug, Default)]
struct Violations {
    valid_property_type: bool,
    pruned_defaults: bool,
    atomic_set_type: bool,
    map_list_keys_map_set: bool,
}

fn check(
    crd: &CustomResourceDefinition,
    version: KubeVersion,
    req: Requirements,
) -> (Vec<FieldError>, Violations) {
    let mut errs = super::spec::validate_spec(crd);
    let mut violations = Violations::default();
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
            req,
            violations: &mut violations,
        };
        c.node(schema, &base, Place::Root, &Context::default(), 0);
        c.root(schema, &base, v.has_status_subresource());
        errs.extend(v_errs);
    }
    (errs, violations)
}

/// What the position of a node implies (`specStandardValidatorV3`'s state).
#[derive(Clone, Default)]
struct Context {
    /// Below the `metadata`, `apiVersion` or `kind` of the resource or of an embedded resource.
    inside_resource_meta: bool,
    /// Why defaults are forbidden here, if they are.
    defaults_forbidden: Option<String>,
}

struct Checker<'e> {
    errs: &'e mut Vec<FieldError>,
    version: KubeVersion,
    req: Requirements,
    violations: &'e mut Violations,
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
            stripped.default = None;
            if stripped != JsonSchemaProps::default() {
                self.push(FieldError::forbidden(
                    mpath.clone(),
                    "must not specify anything other than name and generateName, but metadata is implicitly specified",
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

    fn node(
        &mut self,
        s: &JsonSchemaProps,
        path: &Path,
        place: Place,
        ctx: &Context,
        depth: usize,
    ) {
        if depth > MAX_SCHEMA_WALK_DEPTH {
            return;
        }
        let t = s.type_.as_deref().unwrap_or("");
        let preserve = s.x_preserve_unknown_fields == Some(true);
        if !t.is_empty() && !TYPES.contains(&t) {
            self.violations.valid_property_type = true;
            if self.req.valid_property_type {
                self.push(FieldError::not_supported(
                    path.child("type"),
                    BadValue::String(t.to_string()),
                    &TYPES.map(String::from),
                ));
            }
            if t == "null" {
                self.push(FieldError::forbidden(
                    path.child("type"),
                    "type cannot be set to null, use nullable as an alternative",
                ));
            }
        }
        if ctx.inside_resource_meta && s.x_embedded_resource {
            self.push(FieldError::forbidden(
                path.child("x-kubernetes-embedded-resource"),
                "must not be used inside of resource meta",
            ));
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
            && let Err(e) = cel::go::regexp::Regex::cached(p)
        {
            self.push(FieldError::invalid(
                path.child("pattern"),
                BadValue::String(p.to_string()),
                format!("must be a valid regular expression, but isn't: {e}"),
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
            match &ctx.defaults_forbidden {
                // A forbidden default is reported, not validated.
                Some(reason) => self.push(FieldError::forbidden(
                    path.child("default"),
                    format!("must not be set {reason}"),
                )),
                None => self.default(s, d, path, depth),
            }
        }
        for (name, p) in &s.properties {
            let ppath = path.child("properties").key(name);
            let is_meta = matches!(name.as_str(), "metadata" | "apiVersion" | "kind");
            let child_ctx = if is_meta && (place == Place::Root || s.x_embedded_resource) {
                Context {
                    inside_resource_meta: true,
                    defaults_forbidden: if place == Place::Root {
                        Some(format!("in top-level {name}"))
                    } else {
                        ctx.defaults_forbidden.clone()
                    },
                }
            } else {
                ctx.clone()
            };
            self.node(p, &ppath, Place::Property, &child_ctx, depth + 1);
        }
        if let Some(SchemaOrArray::Schema(i)) = &s.items {
            self.node(i, &path.child("items"), Place::Items, ctx, depth + 1);
        }
        if let Some(SchemaOrBool::Schema(a)) = &s.additional_properties {
            let child_ctx = if ctx.inside_resource_meta {
                Context {
                    inside_resource_meta: true,
                    defaults_forbidden: Some(
                        "inside additionalProperties applying to object metadata".into(),
                    ),
                }
            } else {
                ctx.clone()
            };
            self.node(
                a,
                &path.child("additionalProperties"),
                Place::AdditionalProperties,
                &child_ctx,
                depth + 1,
            );
        }
    }

    /// `x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and `x-kubernetes-map-type`
    /// (`ValidateCustomResourceDefinitionOpenAPISchema` and `validateMapListKeysMapSet`).
    fn list_and_map_type(&mut self, s: &JsonSchemaProps, path: &Path, t: &str) {
        if s.x_map_type.is_some() && t != "object" {
            self.push(type_required_or_invalid(
                path,
                t,
                "must be object if x-kubernetes-map-type is specified",
            ));
        }
        if let Some(mt) = s.x_map_type.as_deref()
            && mt != "atomic"
            && mt != "granular"
        {
            self.push(FieldError::not_supported(
                path.child("x-kubernetes-map-type"),
                BadValue::String(mt.to_string()),
                &["atomic".into(), "granular".into()],
            ));
        }
        let item = match &s.items {
            Some(SchemaOrArray::Schema(i)) => Some(i.as_ref()),
            _ => None,
        };
        let list_type = s.x_list_type.as_deref();
        if list_type.is_some() && t != "array" {
            self.push(type_required_or_invalid(
                path,
                t,
                "must be array if x-kubernetes-list-type is specified",
            ));
        } else if list_type == Some("set")
            && let Some(is) = item
        {
            // The value printed is the item's list type, even for objects (a quirk).
            let shown = is
                .x_list_type
                .as_ref()
                .map_or(BadValue::Null, |l| BadValue::String(l.clone()));
            let sub = match is.type_.as_deref() {
                Some("array") if is.x_list_type.as_deref().is_some_and(|l| l != "atomic") => {
                    Some("x-kubernetes-list-type")
                }
                Some("object") if is.x_map_type.as_deref() != Some("atomic") => {
                    Some("x-kubernetes-map-type")
                }
                _ => None,
            };
            if let Some(sub) = sub {
                self.violations.atomic_set_type = true;
                if self.req.atomic_set_type {
                    self.push(FieldError::invalid(
                        path.child("items").child(sub),
                        shown,
                        "must be atomic as item of a list with x-kubernetes-list-type=set",
                    ));
                }
            }
        }
        if let Some(lt) = list_type
            && !matches!(lt, "atomic" | "set" | "map")
        {
            self.push(FieldError::not_supported(
                path.child("x-kubernetes-list-type"),
                BadValue::String(lt.to_string()),
                &["atomic".into(), "set".into(), "map".into()],
            ));
        }
        let keys_json = || BadValue::Json(Value::from(s.x_list_map_keys.clone()));
        if !s.x_list_map_keys.is_empty() {
            match list_type {
                None => self.push(FieldError::required(
                    path.child("x-kubernetes-list-type"),
                    "must be map if x-kubernetes-list-map-keys is non-empty",
                )),
                Some("map") => {}
                Some(other) => self.push(FieldError::invalid(
                    path.child("x-kubernetes-list-type"),
                    BadValue::String(other.to_string()),
                    "must be map if x-kubernetes-list-map-keys is non-empty",
                )),
            }
        }
        if list_type == Some("map") {
            if s.x_list_map_keys.is_empty() {
                self.push(FieldError::required(
                    path.child("x-kubernetes-list-map-keys"),
                    "must not be empty if x-kubernetes-list-type is map",
                ));
            }
            match &s.items {
                None => self.push(FieldError::required(
                    path.child("items"),
                    "must have a schema if x-kubernetes-list-type is map",
                )),
                Some(SchemaOrArray::Array(xs)) => {
                    let mut json = String::from("{\"Schema\":null,\"JSONSchemas\":[");
                    for (i, x) in xs.iter().enumerate() {
                        if i > 0 {
                            json.push(',');
                        }
                        json.push_str(&go_struct_json(x));
                    }
                    json.push_str("]}");
                    self.push(FieldError::invalid(
                        path.child("items"),
                        BadValue::Omit,
                        format!(
                            "{json}: must only have a single schema if x-kubernetes-list-type is map"
                        ),
                    ));
                }
                Some(SchemaOrArray::Schema(is)) => {
                    let it = is.type_.as_deref().unwrap_or("");
                    if it != "object" {
                        self.push(FieldError::invalid(
                            path.child("items").child("type"),
                            BadValue::String(it.to_string()),
                            "must be object if parent array's x-kubernetes-list-type is map",
                        ));
                    } else {
                        let mut seen = std::collections::HashSet::new();
                        for k in &s.x_list_map_keys {
                            match is.properties.get(k) {
                                Some(kp) => {
                                    if matches!(kp.type_.as_deref(), Some("array" | "object")) {
                                        // The value printed is the item's type (a quirk).
                                        self.push(FieldError::invalid(
                                            path.child("items").child("properties").key(k).child("type"),
                                            BadValue::String(it.to_string()),
                                            "must be a scalar type if parent array's x-kubernetes-list-type is map",
                                        ));
                                    }
                                }
                                None => self.push(FieldError::invalid(
                                    path.child("x-kubernetes-list-map-keys"),
                                    keys_json(),
                                    "entries must all be names of item properties",
                                )),
                            }
                            if !seen.insert(k.as_str()) {
                                self.push(FieldError::invalid(
                                    path.child("x-kubernetes-list-map-keys"),
                                    keys_json(),
                                    "must not contain duplicate entries",
                                ));
                            }
                        }
                    }
                }
            }
        }
        self.map_list_keys_map_set(s, path);
    }

    /// `validateMapListKeysMapSet`: set and map items are not nullable; list-map keys are
    /// required or defaulted, and not nullable.
    fn map_list_keys_map_set(&mut self, s: &JsonSchemaProps, path: &Path) {
        let Some(SchemaOrArray::Schema(is)) = &s.items else {
            return;
        };
        let Some(lt @ ("set" | "map")) = s.x_list_type.as_deref() else {
            return;
        };
        let mut found = Vec::new();
        if is.nullable {
            found.push(FieldError::forbidden(
                path.child("items").child("nullable"),
                format!("cannot be nullable when x-kubernetes-list-type is {lt}"),
            ));
        }
        if lt == "map" {
            for k in &s.x_list_map_keys {
                let Some(kp) = is.properties.get(k) else {
                    continue;
                };
                let kpath = path.child("items").child("properties").key(k);
                if !is.required.contains(k) && kp.default.is_none() {
                    found.push(FieldError::required(
                        kpath.child("default"),
                        "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                    ));
                }
                if kp.nullable {
                    found.push(FieldError::forbidden(
                        kpath.child("nullable"),
                        "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                    ));
                }
            }
        }
        if !found.is_empty() {
            self.violations.map_list_keys_map_set = true;
            if self.req.map_list_keys_map_set {
                self.errs.extend(found);
            }
        }
    }

    /// Inside `allOf`/`anyOf`/`oneOf`/`not`: only value validations may appear,
    /// except for the int-or-string pattern (`anyOf: [{type: integer}, {type:
    /// string}]`, directly or as the first `allOf`), which Kubernetes exempts.
    fn junctors(&mut self, s: &JsonSchemaProps, path: &Path, depth: usize) {
        self.junctors_skipping(s, path, depth, is_int_or_string_any_of(&s.any_of));
    }

    fn junctors_skipping(
        &mut self,
        s: &JsonSchemaProps,
        path: &Path,
        depth: usize,
        skip_any_of: bool,
    ) {
        let skip_first_all_of_any_of = s
            .all_of
            .first()
            .is_some_and(|a| is_int_or_string_any_of(&a.any_of));
        for (name, list) in [
            ("allOf", &s.all_of),
            ("anyOf", &s.any_of),
            ("oneOf", &s.one_of),
        ] {
            if name == "anyOf" && skip_any_of {
                continue;
            }
            for (i, sub) in list.iter().enumerate() {
                let skip = name == "allOf" && i == 0 && skip_first_all_of_any_of;
                self.nested_value_validation_skipping(
                    sub,
                    &path.child(name).index(i),
                    depth + 1,
                    skip,
                );
            }
        }
        if let Some(n) = &s.not {
            self.nested_value_validation(n, &path.child("not"), depth + 1);
        }
    }

    fn nested_value_validation(&mut self, s: &JsonSchemaProps, path: &Path, depth: usize) {
        self.nested_value_validation_skipping(s, path, depth, false);
    }

    fn nested_value_validation_skipping(
        &mut self,
        s: &JsonSchemaProps,
        path: &Path,
        depth: usize,
        skip_any_of: bool,
    ) {
        if depth > MAX_SCHEMA_WALK_DEPTH {
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
            if name == "anyOf" && skip_any_of {
                continue;
            }
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
        let unknown = crate::pipeline::prune::unknown_fields(d, s, false);
        if !unknown.is_empty() {
            self.violations.pruned_defaults = true;
            if self.req.pruned_defaults {
                self.push(FieldError::invalid(
                    dpath.clone(),
                    crate::pipeline::openapi::bad_value_of(d),
                    "must not have unknown fields",
                ));
                return;
            }
        }
        // Converted as the API server decodes the default (`apiextensions` `JSON` through
        // `runtime.DeepCopyJSONValue`): integers beyond int64 become floats.
        let Ok(d) = crate::values::Json::from_serde(d) else {
            return;
        };
        let v = SchemaValidator::new(self.version);
        for e in v.validate(&d, s, "", None).errors {
            self.push(e.to_field_error(&dpath));
        }
    }
}

/// `type: Required` when the type is missing, else `type: Invalid` (list and map types).
fn type_required_or_invalid(path: &Path, t: &str, detail: &str) -> FieldError {
    if t.is_empty() {
        FieldError::required(path.child("type"), detail)
    } else {
        FieldError::invalid(path.child("type"), BadValue::String(t.to_string()), detail)
    }
}

/// `<path>.<suffix>` as text (junctor property paths are named in messages).
fn path_text(base: &Path, suffix: &str) -> String {
    format!("{base}.{suffix}")
}

/// Kubernetes' `intOrStringAnyOf`: exactly `[{type: integer}, {type: string}]`.
fn is_int_or_string_any_of(any_of: &[JsonSchemaProps]) -> bool {
    let only_type = |t: &str| JsonSchemaProps {
        type_: Some(t.to_string()),
        ..JsonSchemaProps::default()
    };
    matches!(any_of, [a, b] if *a == only_type("integer") && *b == only_type("string"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd_with(schema: Value) -> CustomResourceDefinition {
        serde_json::from_value(json!({
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "kind": "Widget"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                              "schema": {"openAPIV3Schema": schema}}]}
        }))
        .expect("crd")
    }

    fn strings(errs: &[FieldError]) -> Vec<String> {
        let mut v: Vec<String> = errs.iter().map(ToString::to_string).collect();
        v.sort();
        v
    }

    const P: &str = "spec.validation.openAPIV3Schema.properties[spec].properties";

    fn list_map_schema() -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "l": {"type": "array", "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["k", "o", "k", "missing"],
                  "items": {"type": "object", "nullable": true, "required": ["k", "o"], "properties": {
                      "k": {"type": "string", "nullable": true},
                      "o": {"type": "object"}}}},
            "s": {"type": "array", "x-kubernetes-list-type": "set",
                  "items": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}},
            "m": {"type": "string", "x-kubernetes-list-map-keys": ["a"]}
        }}}})
    }

    #[test]
    fn list_map_keys_must_be_scalar_unique_known_and_not_nullable() {
        let got = strings(&validate_crd(
            &crd_with(list_map_schema()),
            KubeVersion::NEWEST,
        ));
        let want = [
            format!(
                r#"{P}[l].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is map"#
            ),
            // Once per mention of the key, as Kubernetes iterates the keys as written.
            format!(
                r#"{P}[l].items.properties[k].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable"#
            ),
            format!(
                r#"{P}[l].items.properties[k].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable"#
            ),
            format!(
                r#"{P}[l].items.properties[o].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map"#
            ),
            format!(
                r#"{P}[l].x-kubernetes-list-map-keys: Invalid value: ["k","o","k","missing"]: entries must all be names of item properties"#
            ),
            format!(
                r#"{P}[l].x-kubernetes-list-map-keys: Invalid value: ["k","o","k","missing"]: must not contain duplicate entries"#
            ),
            format!(
                r#"{P}[m].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified"#
            ),
            format!(
                r#"{P}[m].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty"#
            ),
            format!(
                r#"{P}[s].items.x-kubernetes-list-type: Invalid value: "set": must be atomic as item of a list with x-kubernetes-list-type=set"#
            ),
        ];
        // `m` has list-map keys but no list type: only the list-type error applies.
        let want: Vec<String> = want
            .into_iter()
            .filter(|w| !w.contains("[m].type"))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn ratcheted_rules_are_skipped_when_the_stored_crd_already_breaks_them() {
        let bad = crd_with(list_map_schema());
        // Updating to the same schema keeps only the non-ratcheted errors.
        let got = strings(&validate_crd_update(&bad, &bad, KubeVersion::NEWEST));
        assert_eq!(got.len(), 4, "{got:#?}");
        assert!(
            got.iter()
                .all(|e| !e.contains("nullable") && !e.contains("atomic"))
        );
        // From a clean CRD every rule applies.
        let good = crd_with(json!({"type": "object"}));
        assert_eq!(
            validate_crd_update(&bad, &good, KubeVersion::NEWEST).len(),
            validate_crd(&bad, KubeVersion::NEWEST).len()
        );
    }

    #[test]
    fn resource_meta_rules() {
        let schema = json!({"type": "object", "properties": {
            "apiVersion": {"type": "string", "default": "x"},
            "metadata": {"type": "object", "properties": {"name": {"type": "string", "default": "n"}}},
            "spec": {"type": "object", "properties": {"e": {
                "type": "object", "x-kubernetes-embedded-resource": true,
                "x-kubernetes-preserve-unknown-fields": true,
                "properties": {"metadata": {"type": "object", "properties": {
                    "labels": {"type": "object", "additionalProperties": {"type": "string", "default": "v"}},
                    "inner": {"type": "object", "x-kubernetes-embedded-resource": true,
                              "x-kubernetes-preserve-unknown-fields": true}}}}}}}}});
        let got = strings(&validate_crd(&crd_with(schema), KubeVersion::NEWEST));
        let r = "spec.validation.openAPIV3Schema.properties";
        assert_eq!(
            got,
            [
                format!(
                    "{r}[apiVersion].default: Forbidden: must not be set in top-level apiVersion"
                ),
                format!(
                    "{r}[metadata].properties[name].default: Forbidden: must not be set in top-level metadata"
                ),
                format!(
                    "{r}[spec].properties[e].properties[metadata].properties[inner].x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta"
                ),
                format!(
                    "{r}[spec].properties[e].properties[metadata].properties[labels].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata"
                ),
            ]
        );
    }
}
