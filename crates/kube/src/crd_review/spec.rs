//! CRD checks outside the schema (apiextensions `ValidateCustomResourceDefinition` /
//! `ValidateCustomResourceDefinitionUpdate`, reference §4): `metadata.name`, `spec.group`,
//! `spec.scope`, `spec.names`, `spec.versions` (names, uniqueness, exactly one storage version,
//! a schema for each), `spec.conversion` (`conversion.rs`), the stored versions the
//! create strategy records, the scale subresource, and on update the immutable group, plural
//! and name.
//!
//! The API server validates the internal form of a v1 CRD: `singular` and `listKind` are
//! defaulted from `kind`, and a schema (or subresources) shared by every version is hoisted to
//! `spec.validation` (`spec.subresources`), which is where such errors point.

use serde_json::Value;

use super::go_struct_json::go_struct_json;
use crate::crd::{
    CustomResourceDefinition, CustomResourceDefinitionVersion, CustomResourceSubresources,
};
use crate::field::{BadValue, FieldError, Path};
use crate::name_validation::{is_dns1035_label, is_dns1123_subdomain};

/// Whether every version has the same (present) value of `part`, so that the internal form
/// holds it once at the top level.
fn hoisted<T: PartialEq>(
    versions: &[CustomResourceDefinitionVersion],
    part: impl Fn(&CustomResourceDefinitionVersion) -> Option<&T>,
) -> bool {
    let Some(first) = versions.first().and_then(&part) else {
        return false;
    };
    versions.iter().all(|v| part(v) == Some(first))
}

/// Whether every version carries the same schema (errors then read `spec.validation…`).
pub fn schemas_hoisted(crd: &CustomResourceDefinition) -> bool {
    hoisted(&crd.spec.versions, |v| v.schema.as_ref())
}

fn subresources_hoisted(crd: &CustomResourceDefinition) -> bool {
    hoisted(&crd.spec.versions, |v| v.subresources.as_ref())
}

/// Go's `encoding/json` of the internal `CustomResourceSubresources`.
fn subresources_json(s: &CustomResourceSubresources) -> String {
    let q = |s: &str| crate::field::go_json(&Value::String(s.to_string()));
    let status = if s.status.is_some() { "{}" } else { "null" };
    let scale = match &s.scale {
        None => "null".to_string(),
        Some(sc) => format!(
            "{{\"SpecReplicasPath\":{},\"StatusReplicasPath\":{},\"LabelSelectorPath\":{}}}",
            q(&sc.spec_replicas_path),
            q(&sc.status_replicas_path),
            sc.label_selector_path.as_deref().map_or("null".into(), q)
        ),
    };
    format!("{{\"Status\":{status},\"Scale\":{scale}}}")
}

/// Go's `encoding/json` of an internal `CustomResourceDefinitionVersion` (Go field names, in
/// struct order; hoisted parts are `null`). Printer columns and selectable fields are not part
/// of the model and print as `null`.
fn version_json(
    v: &CustomResourceDefinitionVersion,
    schema_hoisted: bool,
    subresources_hoisted: bool,
) -> String {
    let q = |s: &str| crate::field::go_json(&Value::String(s.to_string()));
    let schema = match v.open_api_v3_schema() {
        Some(s) if !schema_hoisted => format!("{{\"OpenAPIV3Schema\":{}}}", go_struct_json(s)),
        _ if !schema_hoisted && v.schema.is_some() => "{\"OpenAPIV3Schema\":null}".into(),
        _ => "null".into(),
    };
    let subresources = match &v.subresources {
        Some(s) if !subresources_hoisted => subresources_json(s),
        _ => "null".into(),
    };
    format!(
        "{{\"Name\":{},\"Served\":{},\"Storage\":{},\"Deprecated\":{},\"DeprecationWarning\":{},\"Schema\":{schema},\"Subresources\":{subresources},\"AdditionalPrinterColumns\":null,\"SelectableFields\":null}}",
        q(&v.name),
        v.served,
        v.storage,
        v.deprecated,
        v.deprecation_warning.as_deref().map_or("null".into(), q),
    )
}

fn versions_json(crd: &CustomResourceDefinition) -> String {
    let (sh, rh) = (schemas_hoisted(crd), subresources_hoisted(crd));
    let items: Vec<String> = crd
        .spec
        .versions
        .iter()
        .map(|v| version_json(v, sh, rh))
        .collect();
    if items.is_empty() {
        "null".into()
    } else {
        format!("[{}]", items.join(","))
    }
}

/// An `Invalid` error whose value is a Go struct printed as JSON (field order kept).
fn invalid_struct(path: Path, json: &str, detail: &str) -> FieldError {
    FieldError::invalid(path, BadValue::Omit, format!("{json}: {detail}"))
}

/// The checks of `validateCustomResourceDefinitionSpec` and `ValidateObjectMeta` that do not
/// concern the schema, in Kubernetes' order.
pub fn validate_spec(crd: &CustomResourceDefinition) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let spec = &crd.spec;
    let sp = Path::new("spec");

    // metadata.name: a DNS subdomain equal to <plural>.<group>.
    let name = &crd.metadata.name;
    let npath = Path::new("metadata").child("name");
    if name.is_empty() {
        errs.push(FieldError::required(
            npath,
            "name or generateName is required",
        ));
    } else {
        let mut msgs = is_dns1123_subdomain(name);
        if *name != format!("{}.{}", spec.names.plural, spec.group) {
            msgs.push("must be spec.names.plural+\".\"+spec.group".into());
        }
        for m in msgs {
            errs.push(FieldError::invalid(
                npath.clone(),
                BadValue::String(name.clone()),
                m,
            ));
        }
    }

    if spec.group.is_empty() {
        errs.push(FieldError::required(sp.child("group"), ""));
    } else {
        let g = is_dns1123_subdomain(&spec.group);
        if !g.is_empty() {
            errs.push(FieldError::invalid(
                sp.child("group"),
                BadValue::String(spec.group.clone()),
                g.join(","),
            ));
        } else if !spec.group.contains('.') {
            errs.push(FieldError::invalid(
                sp.child("group"),
                BadValue::String(spec.group.clone()),
                "should be a domain with at least one dot",
            ));
        }
    }

    match spec.scope.as_str() {
        "" => errs.push(FieldError::required(sp.child("scope"), "")),
        "Cluster" | "Namespaced" => {}
        other => errs.push(FieldError::not_supported(
            sp.child("scope"),
            BadValue::String(other.to_string()),
            &["Cluster".into(), "Namespaced".into()],
        )),
    }

    let vpath = sp.child("versions");
    let mut storage = 0;
    let mut seen = std::collections::HashSet::new();
    let mut unique = true;
    let schema_hoisted = schemas_hoisted(crd);
    for (i, v) in spec.versions.iter().enumerate() {
        if v.storage {
            storage += 1;
        }
        unique &= seen.insert(v.name.as_str());
        let e = is_dns1035_label(&v.name);
        if !e.is_empty() {
            errs.push(FieldError::invalid(
                vpath.index(i).child("name"),
                BadValue::String(v.name.clone()),
                e.join(","),
            ));
        }
        if !schema_hoisted && v.open_api_v3_schema().is_none() {
            errs.push(FieldError::required(
                vpath.index(i).child("schema").child("openAPIV3Schema"),
                "schemas are required",
            ));
        }
        if !subresources_hoisted(crd)
            && let Some(sub) = &v.subresources
        {
            errs.extend(validate_subresources(
                sub,
                &vpath.index(i).child("subresources"),
            ));
        }
    }
    if subresources_hoisted(crd)
        && let Some(sub) = spec.versions.first().and_then(|v| v.subresources.as_ref())
    {
        errs.extend(validate_subresources(sub, &sp.child("subresources")));
    }
    if !unique {
        errs.push(invalid_struct(
            vpath.clone(),
            &versions_json(crd),
            "must contain unique version names",
        ));
    }
    if storage != 1 {
        errs.push(invalid_struct(
            vpath.clone(),
            &versions_json(crd),
            "must have exactly one version marked as storage version",
        ));
    }

    errs.extend(validate_names(crd));
    errs.extend(super::conversion::validate_conversion(crd));
    errs.extend(validate_stored_versions(crd));
    errs
}

/// `spec.names` after defaulting (`singular` = lower-case kind, `listKind` = kind + `List`).
fn validate_names(crd: &CustomResourceDefinition) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let n = &crd.spec.names;
    let np = Path::new("spec").child("names");
    let singular = if n.singular.is_empty() {
        n.kind.to_lowercase()
    } else {
        n.singular.clone()
    };
    let list_kind = if n.list_kind.is_empty() && !n.kind.is_empty() {
        format!("{}List", n.kind)
    } else {
        n.list_kind.clone()
    };
    for (field, value) in [
        ("plural", &n.plural),
        ("singular", &singular),
        ("kind", &n.kind),
        ("listKind", &list_kind),
    ] {
        if value.is_empty() {
            errs.push(FieldError::required(np.child(field), ""));
        }
    }
    let label = |value: &str, mixed_case: bool, path: Path, errs: &mut Vec<_>| {
        if value.is_empty() {
            return;
        }
        let checked = if mixed_case {
            value.to_lowercase()
        } else {
            value.to_string()
        };
        let e = is_dns1035_label(&checked);
        if !e.is_empty() {
            let detail = if mixed_case {
                format!(
                    "may have mixed case, but should otherwise match: {}",
                    e.join(",")
                )
            } else {
                e.join(",")
            };
            errs.push(FieldError::invalid(
                path,
                BadValue::String(value.to_string()),
                detail,
            ));
        }
    };
    label(&n.plural, false, np.child("plural"), &mut errs);
    label(&singular, false, np.child("singular"), &mut errs);
    label(&n.kind, true, np.child("kind"), &mut errs);
    label(&list_kind, true, np.child("listKind"), &mut errs);
    for (i, s) in n.short_names.iter().enumerate() {
        let e = is_dns1035_label(s);
        if !e.is_empty() {
            errs.push(FieldError::invalid(
                np.child("shortNames").index(i),
                BadValue::String(s.clone()),
                e.join(","),
            ));
        }
    }
    if !n.kind.is_empty() && n.kind == list_kind {
        errs.push(FieldError::invalid(
            np.child("listKind"),
            BadValue::String(list_kind.clone()),
            "kind and listKind may not be the same",
        ));
    }
    for (i, c) in n.categories.iter().enumerate() {
        let e = is_dns1035_label(c);
        if !e.is_empty() {
            errs.push(FieldError::invalid(
                np.child("categories").index(i),
                BadValue::String(c.clone()),
                e.join(","),
            ));
        }
    }
    errs
}

/// `status.storedVersions` as the create strategy sets it (the first storage version).
fn validate_stored_versions(crd: &CustomResourceDefinition) -> Vec<FieldError> {
    let path = Path::new("status").child("storedVersions");
    let Some(first) = crd.spec.versions.iter().find(|v| v.storage) else {
        return vec![FieldError::invalid(
            path,
            BadValue::Json(Value::Array(Vec::new())),
            "must have at least one stored version",
        )];
    };
    let (sh, rh) = (schemas_hoisted(crd), subresources_hoisted(crd));
    crd.spec
        .versions
        .iter()
        .filter(|v| v.storage && v.name != first.name)
        .map(|v| {
            invalid_struct(
                path.clone(),
                &version_json(v, sh, rh),
                &format!("must have the storage version {}", v.name),
            )
        })
        .collect()
}

/// `validateSimpleJSONPath` plus the required prefix (a `*string` value prints like the string).
fn json_path(s: &str, path: Path, prefixes: &[&str], under: &str) -> Vec<FieldError> {
    if s.is_empty() {
        return vec![FieldError::invalid(
            path,
            BadValue::String(String::new()),
            "must not be empty",
        )];
    }
    if !s.starts_with('.') {
        return vec![FieldError::invalid(
            path,
            BadValue::String(s.to_string()),
            "must be a simple json path starting with .",
        )];
    }
    if prefixes.iter().any(|p| s.starts_with(p)) {
        return Vec::new();
    }
    vec![FieldError::invalid(
        path,
        BadValue::String(s.to_string()),
        format!("should be a json path under {under}"),
    )]
}

/// `ValidateCustomResourceDefinitionSubresources` (the scale paths).
fn validate_subresources(sub: &CustomResourceSubresources, path: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(scale) = &sub.scale else {
        return errs;
    };
    let spec_path = path.child("scale.specReplicasPath");
    if scale.spec_replicas_path.is_empty() {
        errs.push(FieldError::required(spec_path, ""));
    } else {
        errs.extend(json_path(
            &scale.spec_replicas_path,
            spec_path,
            &[".spec."],
            ".spec",
        ));
    }
    let status_path = path.child("scale.statusReplicasPath");
    if scale.status_replicas_path.is_empty() {
        errs.push(FieldError::required(status_path, ""));
    } else {
        errs.extend(json_path(
            &scale.status_replicas_path,
            status_path,
            &[".status."],
            ".status",
        ));
    }
    if let Some(sel) = scale
        .label_selector_path
        .as_deref()
        .filter(|s| !s.is_empty())
    {
        errs.extend(json_path(
            sel,
            path.child("scale.labelSelectorPath"),
            &[".spec.", ".status."],
            "either .spec or .status",
        ));
    }
    errs
}

/// `ValidateCustomResourceDefinitionSpecUpdate` / `ValidateObjectMetaUpdate`: the group, the
/// plural and hence the name never change.
pub fn validate_update(
    crd: &CustomResourceDefinition,
    old: &CustomResourceDefinition,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let immutable = |path: Path, new: &str, old: &str, errs: &mut Vec<FieldError>| {
        if new != old {
            errs.push(FieldError::invalid(
                path,
                BadValue::String(new.to_string()),
                "field is immutable",
            ));
        }
    };
    immutable(
        Path::new("metadata").child("name"),
        &crd.metadata.name,
        &old.metadata.name,
        &mut errs,
    );
    let sp = Path::new("spec");
    immutable(
        sp.child("group"),
        &crd.spec.group,
        &old.spec.group,
        &mut errs,
    );
    immutable(
        sp.child("names").child("plural"),
        &crd.spec.names.plural,
        &old.spec.names.plural,
        &mut errs,
    );
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(v: Value) -> CustomResourceDefinition {
        serde_json::from_value(v).expect("crd")
    }

    fn strings(errs: &[FieldError]) -> Vec<String> {
        let mut v: Vec<String> = errs.iter().map(ToString::to_string).collect();
        v.sort();
        v
    }

    #[test]
    fn a_good_spec_passes() {
        let c = crd(
            json!({"metadata": {"name": "widgets.example.com"}, "spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": {"type": "object"}}}]}}),
        );
        assert!(
            validate_spec(&c).is_empty(),
            "{:?}",
            strings(&validate_spec(&c))
        );
    }

    #[test]
    fn names_group_scope_and_versions() {
        let c = crd(
            json!({"metadata": {"name": "widgets.example.com"}, "spec": {
            "group": "example", "scope": "Everywhere",
            "names": {"plural": "Widgets", "kind": "9Widget", "listKind": "9Widget", "shortNames": ["w_"]},
            "versions": [
                {"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object"}}},
                {"name": "V2", "served": true, "storage": true}]}}),
        );
        let got = strings(&validate_spec(&c));
        let dns1035 = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
        let want = [
            r#"metadata.name: Invalid value: "widgets.example.com": must be spec.names.plural+"."+spec.group"#.to_string(),
            r#"spec.group: Invalid value: "example": should be a domain with at least one dot"#.to_string(),
            r#"spec.scope: Unsupported value: "Everywhere": supported values: "Cluster", "Namespaced""#.to_string(),
            format!(r#"spec.versions[1].name: Invalid value: "V2": {dns1035}"#),
            r#"spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required"#.to_string(),
            format!(r#"spec.names.plural: Invalid value: "Widgets": {dns1035}"#),
            format!(r#"spec.names.kind: Invalid value: "9Widget": may have mixed case, but should otherwise match: {dns1035}"#),
            format!(r#"spec.names.listKind: Invalid value: "9Widget": may have mixed case, but should otherwise match: {dns1035}"#),
            r#"spec.names.listKind: Invalid value: "9Widget": kind and listKind may not be the same"#.to_string(),
            format!(r#"spec.names.shortNames[0]: Invalid value: "w_": {dns1035}"#),
            format!(r#"spec.names.singular: Invalid value: "9widget": {dns1035}"#),
        ];
        for w in &want {
            assert!(got.contains(w), "missing {w}\n got {got:#?}");
        }
        let storage: Vec<&String> = got
            .iter()
            .filter(|s| s.contains("storage version"))
            .collect();
        assert_eq!(storage.len(), 2, "{got:#?}");
        assert!(storage.iter().any(|s| s.starts_with(
            r#"spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":{"OpenAPIV3Schema":{"ID":"""#
        ) && s.ends_with("must have exactly one version marked as storage version")));
        assert!(storage.iter().any(|s| s.starts_with(
            r#"status.storedVersions: Invalid value: {"Name":"V2","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null"#
        ) && s.ends_with("must have the storage version V2")));
        assert_eq!(got.len(), want.len() + 2, "{got:#?}");
    }

    #[test]
    fn no_storage_version_and_duplicate_names() {
        let c = crd(
            json!({"metadata": {"name": "widgets.example.com"}, "spec": {
            "group": "example.com", "scope": "Cluster", "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1"}, {"name": "v1"}]}}),
        );
        let got = strings(&validate_spec(&c));
        assert!(
            got.contains(
                &"status.storedVersions: Invalid value: []: must have at least one stored version"
                    .to_string()
            )
        );
        assert!(got.iter().any(|s| s.starts_with(r#"spec.versions: Invalid value: [{"Name":"v1","Served":false,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null"#)
            && s.ends_with("must contain unique version names")));
    }

    #[test]
    fn scale_paths_and_immutable_names() {
        let c = crd(
            json!({"metadata": {"name": "widgets.example.com"}, "spec": {
            "group": "example.com", "scope": "Cluster", "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object"}},
                "subresources": {"scale": {"specReplicasPath": "spec.replicas", "statusReplicasPath": ".spec.x", "labelSelectorPath": ".meta"}}}]}}),
        );
        assert_eq!(
            strings(&validate_spec(&c)),
            [
                r#"spec.subresources.scale.labelSelectorPath: Invalid value: ".meta": should be a json path under either .spec or .status"#,
                r#"spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with ."#,
                r#"spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.x": should be a json path under .status"#,
            ]
        );
        let mut renamed = c.clone();
        renamed.spec.group = "example.org".into();
        renamed.metadata.name = "widgets.example.org".into();
        assert_eq!(
            strings(&validate_update(&renamed, &c)),
            [
                r#"metadata.name: Invalid value: "widgets.example.org": field is immutable"#,
                r#"spec.group: Invalid value: "example.org": field is immutable"#,
            ]
        );
    }
}
