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

use serde_json::{Map, Value};

/// The 400 BadRequest text of `EnsureObjectNamespaceMatchesRequestNamespace`.
pub const NAMESPACE_MISMATCH: &str =
    "the namespace of the provided object does not match the namespace sent on the request";

/// Characters of generated names (`utilrand.String`).
const NAME_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// How many characters of `generateName` a generated name keeps (`names.SimpleNameGenerator`:
/// `maxGeneratedNameLength` = 63 − 5).
const MAX_GENERATED_PREFIX: usize = 58;

pub(super) fn meta_str<'v>(v: &'v Value, k: &str) -> &'v str {
    v.get("metadata")
        .and_then(|m| m.get(k))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The object's `metadata`, created when absent (a root that is not an object has none).
fn meta_mut(v: &mut Value) -> Option<&mut Map<String, Value>> {
    let Value::Object(o) = v else { return None };
    match o
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()))
    {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

pub(super) fn set_meta(v: &mut Value, k: &str, x: Value) {
    if let Some(m) = meta_mut(v) {
        m.insert(k.to_string(), x);
    }
}

/// The unstructured setters' convention (`Unstructured.SetNamespace`, `SetGeneration`, ...):
/// the zero value removes the field.
fn set_or_remove(v: &mut Value, k: &str, x: Option<Value>) {
    match x {
        Some(x) => set_meta(v, k, x),
        None => {
            if let Some(Value::Object(m)) = v.get_mut("metadata") {
                m.shift_remove(k);
            }
        }
    }
}

/// The namespace a write is sent to: the one asked for, else the object's own, else
/// `default` (what kubectl sends: `-n`, the object's namespace, the context's default).
pub fn request_namespace(asked: Option<&str>, obj: &Value) -> String {
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
pub fn ensure_namespace(obj: &mut Value, expected: &str) -> bool {
    let own = meta_str(obj, "namespace");
    if own == expected {
        true
    } else if own.is_empty() {
        set_meta(obj, "namespace", Value::String(expected.to_string()));
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
pub fn wipe_system_fields(obj: &mut Value) {
    for k in [
        "creationTimestamp",
        "uid",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "selfLink",
    ] {
        set_or_remove(obj, k, None);
    }
}

/// `Store.create`: a name from `generateName` when the object has none (`generateName`'s
/// first 58 characters and `suffix`, or 5 random characters of `utilrand`'s alphabet).
pub fn generate_name(obj: &mut Value, suffix: Option<&str>) {
    let generate = meta_str(obj, "generateName");
    if !meta_str(obj, "name").is_empty() || generate.is_empty() {
        return;
    }
    let prefix: String = generate.chars().take(MAX_GENERATED_PREFIX).collect();
    let suffix = suffix.map_or_else(random_suffix, str::to_string);
    set_meta(obj, "name", Value::String(format!("{prefix}{suffix}")));
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
pub fn prepare_for_create(obj: &mut Value, has_status_subresource: bool) {
    if has_status_subresource && let Value::Object(o) = obj {
        o.shift_remove("status");
    }
    set_meta(obj, "generation", Value::from(1));
}

/// The object without `metadata` (`copyNonMetadata`).
fn non_metadata(v: &Value) -> Option<Map<String, Value>> {
    let mut m = v.as_object()?.clone();
    m.shift_remove("metadata");
    Some(m)
}

fn old_generation(old: &Value) -> i64 {
    old.get("metadata")
        .and_then(|m| m.get("generation"))
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

/// `BeforeUpdate` around `customResourceStrategy.PrepareForUpdate`: `generation` is the
/// stored one, plus one when anything outside `metadata` changed (`status` is the stored one
/// when the status subresource owns it); `uid` defaults to the stored one; the stored
/// `creationTimestamp` and `deletionTimestamp` win; `deletionGracePeriodSeconds` cannot be
/// removed.
pub fn prepare_for_update(obj: &mut Value, old: &Value, has_status_subresource: bool) {
    if has_status_subresource && let Value::Object(o) = obj {
        match old.get("status") {
            Some(s) => {
                o.insert("status".into(), s.clone());
            }
            None => {
                o.shift_remove("status");
            }
        }
    }
    let mut generation = old_generation(old);
    if non_metadata(obj) != non_metadata(old) {
        generation += 1;
    }
    set_or_remove(
        obj,
        "generation",
        (generation != 0).then(|| Value::from(generation)),
    );
    let old_meta = |k: &str| old.get("metadata").and_then(|m| m.get(k)).cloned();
    if meta_str(obj, "uid").is_empty() {
        set_or_remove(obj, "uid", old_meta("uid").filter(|u| u != ""));
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
/// none) and `managedFields`; everything else the request says is ignored.
pub fn prepare_for_status_update(obj: &Value, old: &Value) -> Value {
    let mut out = old.clone();
    if let Value::Object(o) = &mut out {
        match obj.get("status") {
            Some(s) => {
                o.insert("status".into(), s.clone());
            }
            None => {
                o.shift_remove("status");
            }
        }
    }
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
    use serde_json::json;

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
