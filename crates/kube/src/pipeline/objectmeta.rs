//! ObjectMeta validation (apimachinery `pkg/api/validation/objectmeta.go`, reference §6) and the
//! metadata of embedded resources (apiextensions `schema/objectmeta/validation.go`, §6.3).

use std::sync::OnceLock;

use regex::Regex;
use serde_json::{Map, Value};

use crate::field::{BadValue, FieldError, Path};

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const QUALIFIED_NAME_ERR: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
/// Total size of annotation keys and values.
pub const TOTAL_ANNOTATION_SIZE_LIMIT: i64 = 256 * 1024;

fn anchored(cell: &'static OnceLock<Option<Regex>>, fmt: &str) -> Option<&'static Regex> {
    cell.get_or_init(|| Regex::new(&format!("^(?:{fmt})$")).ok())
        .as_ref()
}

fn full_match(which: &str, s: &str) -> bool {
    static LABEL: OnceLock<Option<Regex>> = OnceLock::new();
    static SUBDOMAIN: OnceLock<Option<Regex>> = OnceLock::new();
    static DNS1035: OnceLock<Option<Regex>> = OnceLock::new();
    static QUALIFIED: OnceLock<Option<Regex>> = OnceLock::new();
    static VALUE: OnceLock<Option<Regex>> = OnceLock::new();
    let re = match which {
        "label" => anchored(&LABEL, DNS1123_LABEL_FMT),
        "subdomain" => anchored(&SUBDOMAIN, DNS1123_SUBDOMAIN_FMT),
        "dns1035" => anchored(&DNS1035, DNS1035_LABEL_FMT),
        "qualified" => anchored(&QUALIFIED, QUALIFIED_NAME_FMT),
        _ => anchored(&VALUE, LABEL_VALUE_FMT),
    };
    re.is_some_and(|r| r.is_match(s))
}

/// apimachinery `RegexError`.
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{fmt}')");
    }
    let mut out = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push('\'');
        out.push_str(e);
        out.push_str("', ");
    }
    out.push_str("regex used for validation is '");
    out.push_str(fmt);
    out.push_str("')");
    out
}

fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// `IsDNS1123Label`.
pub fn dns1123_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !full_match("label", s) {
        errs.push(regex_error(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
            DNS1123_LABEL_FMT,
            &["my-name", "123-abc"],
        ));
    }
    errs
}

/// `IsDNS1123Subdomain`.
pub fn dns1123_subdomain(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push(max_len_error(253));
    }
    if !full_match("subdomain", s) {
        errs.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `IsDNS1035Label`.
pub fn dns1035_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !full_match("dns1035", s) {
        errs.push(regex_error(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// `IsQualifiedName`; `label_key` selects the label-key wording of the many-slashes message.
pub fn qualified_name(s: &str, label_key: bool) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = s.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                for m in dns1123_subdomain(prefix) {
                    errs.push(format!("prefix part {m}"));
                }
            }
            *name
        }
        _ => {
            let lead = if label_key {
                "a valid label key "
            } else {
                "a qualified name "
            };
            return vec![format!(
                "{lead}{} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(
                    QUALIFIED_NAME_ERR,
                    QUALIFIED_NAME_FMT,
                    &["MyName", "my.name", "123-abc"]
                )
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len_error(63)));
    }
    if !full_match("qualified", name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                QUALIFIED_NAME_ERR,
                QUALIFIED_NAME_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// `IsValidLabelValue`.
pub fn label_value(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !full_match("value", s) {
        errs.push(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

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

/// Name validation function (`NameIsDNSSubdomain`, `ValidatePathSegmentName`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    DnsSubdomain,
    PathSegment,
}

impl NameRule {
    fn check(self, name: &str, prefix: bool) -> Vec<String> {
        match self {
            NameRule::DnsSubdomain => {
                if prefix {
                    let mut masked = name.to_string();
                    if masked.len() > 1 && masked.ends_with('-') {
                        masked.pop();
                        masked.push('a');
                    }
                    dns1123_subdomain(&masked)
                } else {
                    dns1123_subdomain(name)
                }
            }
            NameRule::PathSegment => path_segment_name(name, prefix),
        }
    }
}

fn str_field<'a>(m: &'a Map<String, Value>, k: &str) -> &'a str {
    m.get(k).and_then(Value::as_str).unwrap_or("")
}

fn string_map(m: &Map<String, Value>, k: &str) -> Vec<(String, String)> {
    match m.get(k) {
        Some(Value::Object(o)) => o
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
            .collect(),
        _ => Vec::new(),
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
    meta: &Map<String, Value>,
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
            for msg in dns1123_label(ns) {
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
    if let Some(g) = meta.get("generation").and_then(Value::as_i64)
        && g < 0
    {
        errs.push(FieldError::invalid(
            path.child("generation"),
            BadValue::Int(g),
            "must be greater than or equal to 0",
        ));
    }
    errs.extend(validate_labels(
        &string_map(meta, "labels"),
        &path.child("labels"),
    ));
    errs.extend(validate_annotations(
        &string_map(meta, "annotations"),
        &path.child("annotations"),
    ));
    if let Some(Value::Array(refs)) = meta.get("ownerReferences") {
        errs.extend(validate_owner_references(
            refs,
            &path.child("ownerReferences"),
        ));
    }
    if let Some(Value::Array(fins)) = meta.get("finalizers") {
        let fpath = path.child("finalizers");
        for f in fins.iter().filter_map(Value::as_str) {
            for msg in qualified_name(f, false) {
                errs.push(FieldError::invalid(
                    fpath.clone(),
                    BadValue::String(f.to_string()),
                    msg,
                ));
            }
        }
        let has = |n: &str| fins.iter().any(|f| f.as_str() == Some(n));
        if has("orphan") && has("foregroundDeletion") {
            errs.push(FieldError::invalid(
                fpath,
                BadValue::Json(Value::Array(fins.clone())),
                "finalizer orphan and foregroundDeletion cannot be both set",
            ));
        }
    }
    errs
}

/// `ValidateLabels`.
pub fn validate_labels(labels: &[(String, String)], path: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (k, v) in labels {
        for msg in qualified_name(k, true) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::String(k.clone()),
                msg,
            ));
        }
        for msg in label_value(v) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::String(v.clone()),
                msg,
            ));
        }
    }
    errs
}

/// `ValidateAnnotations`.
pub fn validate_annotations(annotations: &[(String, String)], path: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut total: i64 = 0;
    for (k, v) in annotations {
        for msg in qualified_name(&k.to_lowercase(), false) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::String(k.clone()),
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

fn validate_owner_references(refs: &[Value], path: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut controllers = Vec::new();
    for (i, r) in refs.iter().enumerate() {
        let Value::Object(r) = r else { continue };
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
        if r.get("controller").and_then(Value::as_bool) == Some(true) {
            controllers.push(format!("{}/{}", str_field(r, "kind"), str_field(r, "name")));
        }
    }
    if controllers.len() > 1 {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Json(Value::Array(refs.to_vec())),
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
    new: &Map<String, Value>,
    old: &Map<String, Value>,
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
    let generation =
        |m: &Map<String, Value>| m.get("generation").and_then(Value::as_i64).unwrap_or(0);
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
        fn norm(v: Option<&Value>) -> Option<&Value> {
            v.filter(|v| !v.is_null() && v.as_str() != Some(""))
        }
        if norm(n) != norm(o) {
            let bad = match norm(n) {
                Some(Value::String(s)) => BadValue::String(s.clone()),
                Some(Value::Number(x)) => x.as_i64().map_or(BadValue::Null, BadValue::Int),
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
pub fn validate_embedded(obj: &Map<String, Value>, path: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match obj.get("apiVersion") {
        None | Some(Value::Null) => errs.push(FieldError::required(path.child("apiVersion"), "")),
        Some(Value::String(s)) if s.is_empty() => errs.push(FieldError::invalid(
            path.child("apiVersion"),
            BadValue::String(String::new()),
            "must not be empty",
        )),
        Some(Value::String(s)) => {
            if s != "/" && s.matches('/').count() > 1 {
                errs.push(FieldError::invalid(
                    path.child("apiVersion"),
                    BadValue::String(s.clone()),
                    format!("unexpected GroupVersion string: {s}"),
                ));
            }
        }
        Some(_) => {}
    }
    match obj.get("kind") {
        None | Some(Value::Null) => errs.push(FieldError::required(path.child("kind"), "")),
        Some(Value::String(s)) if s.is_empty() => errs.push(FieldError::invalid(
            path.child("kind"),
            BadValue::String(String::new()),
            "must not be empty",
        )),
        Some(Value::String(s)) => {
            for msg in dns1035_label(&s.to_lowercase()) {
                errs.push(FieldError::invalid(
                    path.child("kind"),
                    BadValue::String(s.clone()),
                    format!("may have mixed case, but should otherwise match: {msg}"),
                ));
            }
        }
        Some(_) => {}
    }
    if let Some(Value::Object(meta)) = obj.get("metadata") {
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

    #[test]
    fn texts() {
        assert_eq!(dns1123_subdomain("Bad_Name").len(), 1);
        assert!(qualified_name("a/b/c", true)[0].starts_with("a valid label key must consist"));
        assert!(label_value("-bad-")[0].contains("(e.g. 'MyValue',  or 'my_value',  or '12345'"));
        assert_eq!(path_segment_name("..", false), ["may not be '..'"]);
        let meta = json!({"generateName": "Bad-", "name": "Bad-abcde"});
        let errs = validate_object_meta(
            meta.as_object().expect("object"),
            NamespaceRule::Forbidden,
            NameRule::DnsSubdomain,
            true,
            &Path::new("metadata"),
        );
        assert_eq!(errs.len(), 2);
    }
}
