//! What kube-apiserver does to a written object between decoding and validation: the request's
//! namespace, system metadata, generated names, `generation`, and the strategies'
//! `PrepareForCreate` / `PrepareForUpdate` (reference §1.2).
//!
//! Sources: apiserver `endpoints/handlers/create.go` and `update.go` (system fields wiped,
//! namespace checked against the URL's), `registry/generic/registry/store.go` `Store.create`
//! (name generation), `registry/rest/create.go` `BeforeCreate`, `registry/rest/update.go`
//! `BeforeUpdate`, `registry/rest/meta.go`, and apiextensions
//! `registry/customresource/strategy.go` / `status_strategy.go`.
//!
//! kcel has no clock and no UID generator: where the server fills `uid` and
//! `creationTimestamp` with fresh values, kcel leaves them unset.

use std::sync::{Arc, LazyLock};

use crate::values::{Json, JsonObject};

/// The 400 BadRequest text of `EnsureObjectNamespaceMatchesRequestNamespace`.
pub const NAMESPACE_MISMATCH: &str =
    "the namespace of the provided object does not match the namespace sent on the request";

/// Characters of generated names (`utilrand.String`).
const NAME_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// How many characters of `generateName` a generated name keeps (`names.SimpleNameGenerator`:
/// `maxGeneratedNameLength` = 63 − 5).
const MAX_GENERATED_PREFIX: usize = 58;

pub(super) fn meta_str<'v>(v: &'v Json, k: &str) -> &'v str {
    v.get("metadata").and_then(|m| m.str_field(k)).unwrap_or("")
}

/// The object's `metadata`, created when absent (a root that is not an object has none).
fn meta_mut(v: &mut Json) -> Option<&mut JsonObject> {
    v.as_object_mut()?
        .get_or_insert_with("metadata", || Json::Object(Arc::default()))
        .as_object_mut()
}

pub(super) fn set_meta(v: &mut Json, k: &'static str, x: Json) {
    if let Some(m) = meta_mut(v) {
        m.insert(meta_key(k), x);
    }
}

/// `k` as an object key: the keys every create sets are made once per process.
fn meta_key(k: &'static str) -> Arc<str> {
    static GENERATION: LazyLock<Arc<str>> = LazyLock::new(|| "generation".into());
    static NAMESPACE: LazyLock<Arc<str>> = LazyLock::new(|| "namespace".into());
    match k {
        "generation" => Arc::clone(&GENERATION),
        "namespace" => Arc::clone(&NAMESPACE),
        _ => k.into(),
    }
}

/// The unstructured setters' convention (`Unstructured.SetNamespace`, `SetGeneration`, ...):
/// the zero value removes the field.
fn set_or_remove(v: &mut Json, k: &'static str, x: Option<Json>) {
    match x {
        Some(x) => set_meta(v, k, x),
        None => {
            if let Some(m) = v
                .as_object_mut()
                .and_then(|o| o.get_mut("metadata"))
                .filter(|m| m.get(k).is_some())
                .and_then(Json::as_object_mut)
            {
                m.remove(k);
            }
        }
    }
}

/// The namespace a write is sent to: the one asked for, else the object's own, else
/// `default` (what kubectl sends: `-n`, the object's namespace, the context's default).
pub fn request_namespace(asked: Option<&str>, obj: &Json) -> String {
    match asked.filter(|n| !n.is_empty()) {
        Some(n) => n.to_string(),
        None => match meta_str(obj, "namespace") {
            "" => "default".to_string(),
            own => own.to_string(),
        },
    }
}

/// `EnsureObjectNamespaceMatchesRequestNamespace(ExpectedNamespaceForScope(..))`: `expected`
/// is the request's namespace for namespaced kinds and empty for cluster-scoped ones. An
/// object without a namespace gets the expected one, a cluster-scoped object loses its own,
/// and a different namespace is refused (`false`: [`NAMESPACE_MISMATCH`]).
pub fn ensure_namespace(obj: &mut Json, expected: &str) -> bool {
    let own = meta_str(obj, "namespace");
    if own == expected {
        true
    } else if own.is_empty() {
        set_meta(obj, "namespace", Json::String(expected.into()));
        true
    } else if expected.is_empty() {
        set_or_remove(obj, "namespace", None);
        true
    } else {
        false
    }
}

/// `rest.WipeObjectMetaSystemFields`, which the create handler applies to the request's
/// object: the fields the server owns.
pub fn wipe_system_fields(obj: &mut Json) {
    const SYSTEM_FIELDS: [&str; 5] = [
        "creationTimestamp",
        "uid",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "selfLink",
    ];
    let has_system_field = |m: &JsonObject| m.keys().any(|k| SYSTEM_FIELDS.contains(&&**k));
    if !matches!(obj.get("metadata"), Some(Json::Object(m)) if has_system_field(m)) {
        return;
    }
    for k in SYSTEM_FIELDS {
        set_or_remove(obj, k, None);
    }
}

/// `Store.create`: a name from `generateName` when the object has none (`generateName`'s
/// first 58 characters and `suffix`, or 5 random characters of `utilrand`'s alphabet).
pub fn generate_name(obj: &mut Json, suffix: Option<&str>) {
    let generate = meta_str(obj, "generateName");
    if generate.is_empty() || !meta_str(obj, "name").is_empty() {
        return;
    }
    let prefix: String = generate.chars().take(MAX_GENERATED_PREFIX).collect();
    let suffix = suffix.map_or_else(random_suffix, str::to_string);
    set_meta(
        obj,
        "name",
        Json::String(format!("{prefix}{suffix}").into()),
    );
}

fn random_suffix() -> String {
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x9E37_79B9_7F4A_7C15, |d| d.as_nanos() as u64)
        | 1;
    (0..5)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            NAME_ALPHABET[(seed % NAME_ALPHABET.len() as u64) as usize] as char
        })
        .collect()
}

/// `customResourceStrategy.PrepareForCreate`: no `status` when the status subresource owns
/// it; `generation` 1.
pub fn prepare_for_create(obj: &mut Json, has_status_subresource: bool) {
    if has_status_subresource
        && obj.get("status").is_some()
        && let Some(o) = obj.as_object_mut()
    {
        o.remove("status");
    }
    set_meta(obj, "generation", Json::Int(1));
}

/// Whether two objects are equal outside `metadata` (`copyNonMetadata` of both compared);
/// values that are not objects count as equal to each other.
fn same_non_metadata(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Object(a), Json::Object(b)) => {
            let others = |o: &JsonObject| o.len() - usize::from(o.contains_key("metadata"));
            others(a) == others(b)
                && a.iter()
                    .filter(|(k, _)| &***k != "metadata")
                    .all(|(k, v)| b.get(k) == Some(v))
        }
        (Json::Object(_), _) | (_, Json::Object(_)) => false,
        _ => true,
    }
}

fn old_generation(old: &Json) -> i64 {
    match old.get("metadata").and_then(|m| m.get("generation")) {
        Some(Json::Int(g)) => *g,
        _ => 0,
    }
}

/// Sets or removes `status` of `obj` to `status`.
fn replace_status(obj: &mut Json, status: Option<&Json>) {
    match status {
        Some(s) => {
            if let Some(o) = obj.as_object_mut() {
                o.insert("status".into(), s.clone());
            }
        }
        None => {
            if obj.get("status").is_some()
                && let Some(o) = obj.as_object_mut()
            {
                o.remove("status");
            }
        }
    }
}

/// `BeforeUpdate` around `customResourceStrategy.PrepareForUpdate`: `generation` is the
/// stored one, plus one when anything outside `metadata` changed (`status` is the stored one
/// when the status subresource owns it); `uid` defaults to the stored one; the stored
/// `creationTimestamp` and `deletionTimestamp` win; `deletionGracePeriodSeconds` cannot be
/// removed.
pub fn prepare_for_update(obj: &mut Json, old: &Json, has_status_subresource: bool) {
    if has_status_subresource {
        replace_status(obj, old.get("status"));
    }
    let mut generation = old_generation(old);
    if !same_non_metadata(obj, old) {
        generation += 1;
    }
    set_or_remove(
        obj,
        "generation",
        (generation != 0).then_some(Json::Int(generation)),
    );
    let old_meta = |k: &str| old.get("metadata").and_then(|m| m.get(k)).cloned();
    if meta_str(obj, "uid").is_empty() {
        set_or_remove(
            obj,
            "uid",
            old_meta("uid").filter(|u| u.as_str() != Some("")),
        );
    }
    // The stored object always has a creation time on a server; kcel's may not, and then
    // the request's is dropped the same way.
    set_or_remove(obj, "creationTimestamp", old_meta("creationTimestamp"));
    if let Some(t) = old_meta("deletionTimestamp").filter(|t| !t.is_null()) {
        set_meta(obj, "deletionTimestamp", t);
    }
    let has_grace = obj
        .get("metadata")
        .is_some_and(|m| m.get("deletionGracePeriodSeconds").is_some());
    if !has_grace && let Some(g) = old_meta("deletionGracePeriodSeconds") {
        set_meta(obj, "deletionGracePeriodSeconds", g);
    }
}

/// `statusStrategy.PrepareForUpdate`: the stored object with the request's `status` (or
/// none) and `managedFields`; everything else the request says is ignored. The stored
/// object's containers are shared, not copied, except those the changes go through.
pub fn prepare_for_status_update(obj: &Json, old: &Json) -> Json {
    let mut out = old.clone();
    replace_status(&mut out, obj.get("status"));
    let managed = obj
        .get("metadata")
        .and_then(|m| m.get("managedFields"))
        .filter(|m| !m.is_null())
        .cloned();
    set_or_remove(&mut out, "managedFields", managed);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document of a `json!` literal as the pipeline holds it.
    macro_rules! json {
        ($($t:tt)+) => {
            Json::from_serde(&serde_json::json!($($t)+)).expect("json")
        };
    }

    #[test]
    fn namespaces() {
        let mut o = json!({"metadata": {"name": "a"}});
        assert!(ensure_namespace(&mut o, "team-a"));
        assert_eq!(o, json!({"metadata": {"name": "a", "namespace": "team-a"}}));
        assert!(!ensure_namespace(&mut o, "team-b"));
        assert!(ensure_namespace(&mut o, ""));
        assert_eq!(o, json!({"metadata": {"name": "a"}}));
        assert_eq!(request_namespace(None, &o), "default");
        assert_eq!(
            request_namespace(None, &json!({"metadata": {"namespace": "x"}})),
            "x"
        );
        assert_eq!(
            request_namespace(Some("y"), &json!({"metadata": {"namespace": "x"}})),
            "y"
        );
    }

    #[test]
    fn update_metadata() {
        let old = json!({"metadata": {"generation": 3, "uid": "u", "creationTimestamp": "t",
            "deletionGracePeriodSeconds": 30}, "spec": 1});
        let mut o = json!({"metadata": {"creationTimestamp": "mine", "generation": 9}, "spec": 2});
        prepare_for_update(&mut o, &old, false);
        assert_eq!(
            o,
            json!({"metadata": {"creationTimestamp": "t", "generation": 4, "uid": "u",
                "deletionGracePeriodSeconds": 30}, "spec": 2})
        );
        let mut same = json!({"metadata": {"generation": 9}, "spec": 1});
        prepare_for_update(&mut same, &json!({"spec": 1}), false);
        assert_eq!(same, json!({"metadata": {}, "spec": 1}));
    }

    #[test]
    fn status_update_keeps_the_stored_object() {
        let old = json!({"metadata": {"name": "a", "labels": {"x": "y"}}, "spec": 1});
        let new = json!({"metadata": {"name": "a", "managedFields": [{}]}, "spec": 2,
            "status": {"p": 1}});
        assert_eq!(
            prepare_for_status_update(&new, &old),
            json!({"metadata": {"name": "a", "labels": {"x": "y"}, "managedFields": [{}]},
                "spec": 1, "status": {"p": 1}})
        );
    }
}
