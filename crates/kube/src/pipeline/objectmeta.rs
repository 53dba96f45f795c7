//! ObjectMeta validation (apimachinery `pkg/api/validation/objectmeta.go`, reference §6) and the
//! metadata of embedded resources (apiextensions `schema/objectmeta/validation.go`, §6.3).

use std::borrow::Cow;

use crate::field::{BadValue, FieldError, Path};
use crate::name_validation::{
    is_dns1035_label, is_dns1123_label, is_dns1123_subdomain, is_label_key, is_qualified_name,
    is_valid_label_value, mask_trailing_dash,
};
use crate::values::{Json, JsonObject};

/// Total size of annotation keys and values.
pub const TOTAL_ANNOTATION_SIZE_LIMIT: i64 = 256 * 1024;

/// `IsValidPathSegmentName` (prefix: only the "may not contain" checks).
pub fn path_segment_name(s: &str, prefix: bool) -> Vec<String> {
    if !prefix {
        for bad in [".", ".."] {
            if s == bad {
                return vec![format!("may not be '{bad}'")];
            }
        }
    }
    ["/", "%"]
        .iter()
        .filter(|c| s.contains(**c))
        .map(|c| format!("may not contain '{c}'"))
        .collect()
}

/// Name validation function (`NameIsDNSSubdomain`, `ValidatePathSegmentName`,
/// `NameIsDNSLabel`, `NameIsDNS1035Label`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    /// `metadata.name` a DNS-1123 subdomain (custom resources, most built-in kinds).
    DnsSubdomain,
    /// `metadata.name` a valid path segment (`ValidatePathSegmentName`; RBAC kinds).
    PathSegment,
    /// `NameIsDNSLabel` (namespaces).
    DnsLabel,
    /// `NameIsDNS1035Label` (services).
    Dns1035Label,
}

impl NameRule {
    fn check(self, name: &str, prefix: bool) -> Vec<String> {
        let masked = || {
            if prefix {
                Cow::Owned(mask_trailing_dash(name))
            } else {
                Cow::Borrowed(name)
            }
        };
        match self {
            NameRule::DnsSubdomain => is_dns1123_subdomain(&masked()),
            NameRule::PathSegment => path_segment_name(name, prefix),
            NameRule::DnsLabel => crate::name_validation::is_dns1123_label(&masked()),
            NameRule::Dns1035Label => crate::name_validation::is_dns1035_label(&masked()),
        }
    }
}

fn str_field<'a>(m: &'a JsonObject, k: &str) -> &'a str {
    match m.get(k) {
        Some(Json::String(s)) => s,
        _ => "",
    }
}

/// The entries of the string map `m[k]` (a value that is not a string reads as empty).
fn string_map<'a>(m: &'a JsonObject, k: &str) -> impl Iterator<Item = (&'a str, &'a str)> {
    let entries = match m.get(k) {
        Some(Json::Object(o)) => Some(o.iter()),
        _ => None,
    };
    entries.into_iter().flatten().map(|(k, v)| {
        let v: &str = match v {
            Json::String(s) => s,
            _ => "",
        };
        (&**k, v)
    })
}

/// The integer `m[k]`.
fn int_field(m: &JsonObject, k: &str) -> Option<i64> {
    match m.get(k) {
        Some(Json::Int(i)) => Some(*i),
        _ => None,
    }
}

/// Namespace checks of [`validate_object_meta`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamespaceRule {
    /// Namespaced kind: required, a DNS label.
    Required,
    /// Cluster-scoped kind: forbidden.
    Forbidden,
    /// Embedded resources: a DNS label when set.
    IfSet,
}

/// `ValidateObjectMetaAccessor` over a decoded `metadata` object.
pub fn validate_object_meta(
    meta: &JsonObject,
    namespace: NamespaceRule,
    names: NameRule,
    name_required: bool,
    path: &Path,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let generate_name = str_field(meta, "generateName");
    if !generate_name.is_empty() {
        for msg in names.check(generate_name, true) {
            errs.push(FieldError::invalid(
                path.child("generateName"),
                BadValue::String(generate_name.to_string()),
                msg,
            ));
        }
    }
    let name = str_field(meta, "name");
    if name.is_empty() {
        if name_required {
            errs.push(FieldError::required(
                path.child("name"),
                "name or generateName is required",
            ));
        }
    } else {
        for msg in names.check(name, false) {
            errs.push(FieldError::invalid(
                path.child("name"),
                BadValue::String(name.to_string()),
                msg,
            ));
        }
    }
    let ns = str_field(meta, "namespace");
    match namespace {
        NamespaceRule::Required if ns.is_empty() => {
            errs.push(FieldError::required(path.child("namespace"), ""));
        }
        NamespaceRule::Required | NamespaceRule::IfSet if !ns.is_empty() => {
            for msg in is_dns1123_label(ns) {
                errs.push(FieldError::invalid(
                    path.child("namespace"),
                    BadValue::String(ns.to_string()),
                    msg,
                ));
            }
        }
        NamespaceRule::Forbidden if !ns.is_empty() => {
            errs.push(FieldError::forbidden(
                path.child("namespace"),
                "not allowed on this type",
            ));
        }
        _ => {}
    }
    if let Some(g) = int_field(meta, "generation")
        && g < 0
    {
        errs.push(FieldError::invalid(
            path.child("generation"),
            BadValue::Int(g),
            "must be greater than or equal to 0",
        ));
    }
    // The paths are built only for maps that are there.
    if meta.contains_key("labels") {
        errs.extend(validate_labels(
            string_map(meta, "labels"),
            &path.child("labels"),
        ));
    }
    if meta.contains_key("annotations") {
        errs.extend(validate_annotations(
            string_map(meta, "annotations"),
            &path.child("annotations"),
        ));
    }
    if let Some(Json::Array(refs)) = meta.get("ownerReferences") {
        errs.extend(validate_owner_references(
            refs,
            &path.child("ownerReferences"),
        ));
    }
    if let Some(Json::Array(fins)) = meta.get("finalizers") {
        let fpath = path.child("finalizers");
        let strings = || {
            fins.iter().filter_map(|f| match f {
                Json::String(s) => Some(&**s),
                _ => None,
            })
        };
        for f in strings() {
            for msg in is_qualified_name(f) {
                errs.push(FieldError::invalid(
                    fpath.clone(),
                    BadValue::String(f.to_string()),
                    msg,
                ));
            }
        }
        let has = |n: &str| strings().any(|f| f == n);
        if has("orphan") && has("foregroundDeletion") {
            errs.push(FieldError::invalid(
                fpath,
                BadValue::of_json_list(fins),
                "finalizer orphan and foregroundDeletion cannot be both set",
            ));
        }
    }
    errs
}

/// `ValidateLabels`.
pub fn validate_labels<'a>(
    labels: impl IntoIterator<Item = (&'a str, &'a str)>,
    path: &Path,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (k, v) in labels {
        for msg in is_label_key(k) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::String(k.to_string()),
                msg,
            ));
        }
        for msg in is_valid_label_value(v) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::String(v.to_string()),
                msg,
            ));
        }
    }
    errs
}

/// `ValidateAnnotations`.
pub fn validate_annotations<'a>(
    annotations: impl IntoIterator<Item = (&'a str, &'a str)>,
    path: &Path,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut total: i64 = 0;
    for (k, v) in annotations {
        for msg in is_qualified_name(&k.to_lowercase()) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::String(k.to_string()),
                msg,
            ));
        }
        total += (k.len() + v.len()) as i64;
    }
    if total > TOTAL_ANNOTATION_SIZE_LIMIT {
        errs.push(FieldError::too_long(
            path.clone(),
            TOTAL_ANNOTATION_SIZE_LIMIT,
        ));
    }
    errs
}

fn validate_owner_references(refs: &[Json], path: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut controllers = Vec::new();
    for (i, r) in refs.iter().enumerate() {
        let Json::Object(r) = r else { continue };
        let p = path.index(i);
        let api_version = str_field(r, "apiVersion");
        let version = api_version.rsplit('/').next().unwrap_or("");
        if version.is_empty() || api_version.matches('/').count() > 1 {
            errs.push(FieldError::invalid(
                p.child("apiVersion"),
                BadValue::String(api_version.to_string()),
                "version must not be empty",
            ));
        }
        for (field, what) in [("kind", "kind"), ("name", "name"), ("uid", "uid")] {
            let v = str_field(r, field);
            if v.is_empty() {
                errs.push(FieldError::invalid(
                    p.child(field),
                    BadValue::String(String::new()),
                    format!("{what} must not be empty"),
                ));
            }
        }
        if r.get("controller") == Some(&Json::Bool(true)) {
            controllers.push(format!("{}/{}", str_field(r, "kind"), str_field(r, "name")));
        }
    }
    if controllers.len() > 1 {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::of_json_list(refs),
            format!(
                "Only one reference can have Controller set to true. Found \"true\" in references for {}",
                controllers.join(" and ")
            ),
        ));
    }
    errs
}

/// `ValidateObjectMetaAccessorUpdate`.
pub fn validate_object_meta_update(
    new: &JsonObject,
    old: &JsonObject,
    path: &Path,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let rv = str_field(new, "resourceVersion");
    if rv.is_empty() {
        errs.push(FieldError::invalid(
            path.child("resourceVersion"),
            BadValue::String(String::new()),
            "must be specified for an update",
        ));
    }
    let generation = |m: &JsonObject| int_field(m, "generation").unwrap_or(0);
    if generation(new) < generation(old) {
        errs.push(FieldError::invalid(
            path.child("generation"),
            BadValue::Int(generation(new)),
            "must not be decremented",
        ));
    }
    for field in [
        "name",
        "namespace",
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    ] {
        let (n, o) = (new.get(field), old.get(field));
        fn norm(v: Option<&Json>) -> Option<&Json> {
            v.filter(|v| match v {
                Json::Null => false,
                Json::String(s) => !s.is_empty(),
                _ => true,
            })
        }
        if norm(n) != norm(o) {
            let bad = match norm(n) {
                Some(Json::String(s)) => BadValue::String(s.to_string()),
                Some(Json::Int(x)) => BadValue::Int(*x),
                Some(Json::Double(_)) => BadValue::Null,
                Some(_) => BadValue::Null,
                None if field == "deletionTimestamp" || field == "deletionGracePeriodSeconds" => {
                    BadValue::Null
                }
                None => BadValue::String(String::new()),
            };
            errs.push(FieldError::invalid(
                path.child(field),
                bad,
                "field is immutable",
            ));
        }
    }
    errs
}

/// Validation of an embedded resource (`x-kubernetes-embedded-resource`): `apiVersion` and
/// `kind` required and well formed, `metadata` checked with path-segment name rules.
pub fn validate_embedded(obj: &JsonObject, path: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match obj.get("apiVersion") {
        None | Some(Json::Null) => errs.push(FieldError::required(path.child("apiVersion"), "")),
        Some(Json::String(s)) if s.is_empty() => errs.push(FieldError::invalid(
            path.child("apiVersion"),
            BadValue::String(String::new()),
            "must not be empty",
        )),
        Some(Json::String(s)) => {
            if **s != *"/" && s.matches('/').count() > 1 {
                errs.push(FieldError::invalid(
                    path.child("apiVersion"),
                    BadValue::String(s.to_string()),
                    format!("unexpected GroupVersion string: {s}"),
                ));
            }
        }
        Some(_) => {}
    }
    match obj.get("kind") {
        None | Some(Json::Null) => errs.push(FieldError::required(path.child("kind"), "")),
        Some(Json::String(s)) if s.is_empty() => errs.push(FieldError::invalid(
            path.child("kind"),
            BadValue::String(String::new()),
            "must not be empty",
        )),
        Some(Json::String(s)) => {
            for msg in is_dns1035_label(&s.to_lowercase()) {
                errs.push(FieldError::invalid(
                    path.child("kind"),
                    BadValue::String(s.to_string()),
                    format!("may have mixed case, but should otherwise match: {msg}"),
                ));
            }
        }
        Some(_) => {}
    }
    if let Some(Json::Object(meta)) = obj.get("metadata") {
        errs.extend(validate_object_meta(
            meta,
            NamespaceRule::IfSet,
            NameRule::PathSegment,
            false,
            &path.child("metadata"),
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The errors of `validate_object_meta` for DNS-subdomain names, as Kubernetes prints them.
    fn meta_errors(
        meta: serde_json::Value,
        namespace: NamespaceRule,
        name_required: bool,
    ) -> Vec<String> {
        let Ok(Json::Object(meta)) = Json::from_serde(&meta) else {
            panic!("not an object: {meta}");
        };
        validate_object_meta(
            &meta,
            namespace,
            NameRule::DnsSubdomain,
            name_required,
            &Path::new("metadata"),
        )
        .iter()
        .map(ToString::to_string)
        .collect()
    }

    /// Every name a rule accepts is a valid path segment: the DNS rules allow only
    /// `[a-z0-9.-]`, never `/` or `%`, and their names start with an alphanumeric character,
    /// so are neither `.` nor `..`. The create pipeline relies on it to skip `BeforeCreate`'s
    /// second metadata validation, which differs from the first only in checking names as path
    /// segments, for objects without `generateName`. A `generateName` is checked masked by
    /// the DNS rules and as written by the path-segment rule, so the second pass can find
    /// more there: `x/-` masks to `xa`.
    #[test]
    fn every_rule_accepts_only_path_segments() {
        let words = crate::name_validation::words_up_to(&['a', '0', '-', '.', '/', '%', 'A'], 5);
        let rules = [
            NameRule::DnsSubdomain,
            NameRule::PathSegment,
            NameRule::DnsLabel,
            NameRule::Dns1035Label,
        ];
        let mut accepted = 0;
        for rule in rules {
            for w in &words {
                if rule.check(w, false).is_empty() {
                    accepted += 1;
                    assert_eq!(
                        NameRule::PathSegment.check(w, false),
                        Vec::<String>::new(),
                        "{rule:?} {w:?}"
                    );
                }
            }
        }
        assert!(accepted > 1000, "{accepted}");
        assert!(NameRule::DnsSubdomain.check("x/-", true).is_empty());
        assert!(!NameRule::PathSegment.check("x/-", true).is_empty());
    }

    #[test]
    fn texts() {
        assert_eq!(path_segment_name("..", false), ["may not be '..'"]);
        let meta = json!({"generateName": "Bad-", "name": "Bad-abcde"});
        assert_eq!(meta_errors(meta, NamespaceRule::Forbidden, true).len(), 2);
    }

    #[test]
    fn masked_prefix_and_dotted_namespace_as_apimachinery() {
        // maskTrailingDash drops the dash and the character before it: "ab_-" checks as "aba".
        let meta = json!({"generateName": "ab_-", "namespace": "a.b"});
        assert_eq!(
            meta_errors(meta, NamespaceRule::Required, false),
            [r#"metadata.namespace: Invalid value: "a.b": must not contain dots"#]
        );
    }
}
