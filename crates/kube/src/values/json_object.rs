//! The entries of a JSON object: built by the readers, changed in place by decoding, pruning,
//! defaulting and preparation while the pipeline owns the document, then looked up and
//! iterated by the validation walks and CEL.

use std::collections::HashMap;
use std::sync::Arc;

use smallvec::SmallVec;

use super::Json;

/// Objects with more keys than this get a hash index; smaller ones are searched in order
/// (most objects of a document have a handful of keys, for which comparing the keys costs less
/// than hashing one, and they need no table).
const LINEAR_MAX: usize = 8;

/// How many entries an object holds in place, without an allocation of its own: the objects of
/// the lists that make documents large (`{name, value}` pairs, ports, conditions' few fields)
/// then cost one allocation each, the object's `Arc`.
pub(super) const INLINE_ENTRIES: usize = 2;

/// An object's entries, the first [`INLINE_ENTRIES`] in place.
pub(super) type Entries = SmallVec<[(Arc<str>, Json); INLINE_ENTRIES]>;

/// The entries of a JSON object in document order, keys unique. Equality ignores the order,
/// as Go's `reflect.DeepEqual` on maps does.
#[derive(Clone, Debug, Default)]
pub struct JsonObject {
    entries: Entries,
    /// Key → position in `entries`, for objects of more than [`LINEAR_MAX`] keys; hashed with
    /// `foldhash` (randomly seeded per process). Boxed: the many small objects without an
    /// index then carry one word for it, not a whole table header.
    #[expect(
        clippy::box_collection,
        reason = "a word instead of a table header in every small object"
    )]
    index: Option<Box<HashMap<Arc<str>, usize, foldhash::fast::RandomState>>>,
}

impl JsonObject {
    /// An object of `entries`, whose keys are unique (the keys of a decoded JSON object are).
    pub fn from_entries(entries: Vec<(Arc<str>, Json)>) -> JsonObject {
        JsonObject::new(SmallVec::from_vec(entries))
    }

    /// An object of `entries`, whose keys are unique.
    pub(super) fn new(entries: Entries) -> JsonObject {
        let mut o = JsonObject {
            entries,
            index: None,
        };
        o.reindex();
        o
    }

    /// An empty object with room for `capacity` entries.
    pub fn with_capacity(capacity: usize) -> JsonObject {
        JsonObject {
            entries: Entries::with_capacity(capacity),
            index: None,
        }
    }

    /// Rebuilds the hash index from the entries: present exactly when there are more than
    /// [`LINEAR_MAX`] of them.
    fn reindex(&mut self) {
        self.index = (self.entries.len() > LINEAR_MAX).then(|| {
            Box::new(
                self.entries
                    .iter()
                    .enumerate()
                    .map(|(i, (k, _))| (k.clone(), i))
                    .collect(),
            )
        });
    }

    /// The position of `key` in document order.
    fn position(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(key).copied(),
            None => self.entries.iter().position(|(k, _)| **k == *key),
        }
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the object has no keys.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match &self.index {
            Some(index) => index
                .get(key)
                .and_then(|&i| self.entries.get(i))
                .map(|(_, v)| v),
            None => self
                .entries
                .iter()
                .find(|(k, _)| **k == *key)
                .map(|(_, v)| v),
        }
    }

    /// The value under `key`, to change in place.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        let i = self.position(key)?;
        self.entries.get_mut(i).map(|(_, v)| v)
    }

    /// Sets `key` to `value`: an existing key keeps its position (its old value is returned),
    /// a new one goes last. A decoded object's repeated key thus keeps its first position and
    /// its last value, as `encoding/json` and `serde_json`'s ordered maps do.
    pub fn insert(&mut self, key: Arc<str>, value: Json) -> Option<Json> {
        if let Some(slot) = self.get_mut(&key) {
            return Some(std::mem::replace(slot, value));
        }
        let position = self.entries.len();
        match &mut self.index {
            Some(index) => {
                index.insert(key.clone(), position);
            }
            None if position == LINEAR_MAX => {
                self.entries.push((key, value));
                self.reindex();
                return None;
            }
            None => {}
        }
        self.entries.push((key, value));
        None
    }

    /// The value under `key`, inserted last with `make` when absent.
    pub fn get_or_insert_with(&mut self, key: &str, make: impl FnOnce() -> Json) -> &mut Json {
        let i = match self.position(key) {
            Some(i) => i,
            None => {
                self.insert(key.into(), make());
                self.entries.len() - 1
            }
        };
        &mut self.entries[i].1
    }

    /// Removes `key`, keeping the order of the other entries; returns its value.
    pub fn remove(&mut self, key: &str) -> Option<Json> {
        let i = self.position(key)?;
        let (_, value) = self.entries.remove(i);
        if self.index.is_some() {
            self.reindex();
        }
        Some(value)
    }

    /// Keeps the entries for which `keep` holds, in order; `keep` may change their values.
    pub fn retain(&mut self, mut keep: impl FnMut(&Arc<str>, &mut Json) -> bool) {
        let before = self.entries.len();
        self.entries.retain(|(k, v)| keep(k, v));
        if self.entries.len() != before {
            self.reindex();
        }
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.index = None;
    }

    /// The entries in document order, their values to change in place.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&Arc<str>, &mut Json)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// Whether the object has `key`.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The entry at `position` in document order.
    pub fn get_index(&self, position: usize) -> Option<(&Arc<str>, &Json)> {
        self.entries.get(position).map(|(k, v)| (k, v))
    }

    /// The entries in document order.
    pub fn iter(&self) -> impl Iterator<Item = (&Arc<str>, &Json)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The keys in document order.
    pub fn keys(&self) -> impl Iterator<Item = &Arc<str>> {
        self.entries.iter().map(|(k, _)| k)
    }
}

impl PartialEq for JsonObject {
    fn eq(&self, other: &JsonObject) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl JsonObject {
        fn with(mut self, key: &str, value: Json) -> JsonObject {
            self.insert(key.into(), value);
            self
        }
    }

    fn object(n: usize) -> JsonObject {
        JsonObject::from_entries(
            (0..n)
                .map(|i| (Arc::from(format!("k{i}")), Json::Int(i as i64)))
                .collect(),
        )
    }

    #[test]
    fn small_and_indexed_objects_find_every_key_and_keep_the_order() {
        for n in [0, 1, LINEAR_MAX, LINEAR_MAX + 1, 100] {
            let o = object(n);
            assert_eq!(o.index.is_some(), n > LINEAR_MAX);
            for i in 0..n {
                assert_eq!(o.get(&format!("k{i}")), Some(&Json::Int(i as i64)));
                assert_eq!(
                    o.get_index(i).map(|(k, _)| k.to_string()),
                    Some(format!("k{i}"))
                );
            }
            assert_eq!(o.get("absent"), None);
            assert_eq!(o.keys().count(), n);
        }
    }

    fn keys_of(o: &JsonObject) -> Vec<String> {
        o.keys().map(|k| k.to_string()).collect()
    }

    /// Every key found where `get` and `get_index` say, and the index present exactly above
    /// [`LINEAR_MAX`] keys.
    fn assert_consistent(o: &JsonObject) {
        assert_eq!(o.index.is_some(), o.len() > LINEAR_MAX);
        for (i, (k, v)) in o.iter().enumerate() {
            assert_eq!(o.get(k), Some(v));
            assert_eq!(o.position(k), Some(i));
        }
    }

    #[test]
    fn insert_replaces_in_place_or_appends_across_the_index_threshold() {
        let mut o = JsonObject::default();
        for i in 0..LINEAR_MAX + 3 {
            assert_eq!(o.insert(format!("k{i}").into(), Json::Int(i as i64)), None);
            assert_consistent(&o);
        }
        assert_eq!(o.insert("k0".into(), Json::Bool(true)), Some(Json::Int(0)));
        assert_eq!(keys_of(&o)[0], "k0");
        assert_eq!(o.get("k0"), Some(&Json::Bool(true)));
        assert_eq!(o, object(LINEAR_MAX + 3).with("k0", Json::Bool(true)));
        assert_consistent(&o);
    }

    #[test]
    fn remove_and_retain_keep_the_order_and_the_index_valid() {
        for n in [3, LINEAR_MAX + 1, LINEAR_MAX + 5, 40] {
            let mut o = object(n);
            assert_eq!(o.remove("k1"), Some(Json::Int(1)));
            assert_eq!(o.remove("k1"), None);
            assert_consistent(&o);
            let expected: Vec<String> = (0..n)
                .filter(|&i| i != 1)
                .map(|i| format!("k{i}"))
                .collect();
            assert_eq!(keys_of(&o), expected);
            o.retain(|k, v| {
                *v = Json::String(k.clone());
                k.len() > 2 || k.as_ref() == "k0"
            });
            assert_consistent(&o);
            let kept: Vec<String> = (0..n)
                .filter(|&i| i != 1 && (i == 0 || i >= 10))
                .map(|i| format!("k{i}"))
                .collect();
            assert_eq!(keys_of(&o), kept);
            assert_eq!(o.get("k0"), Some(&Json::String("k0".into())));
            o.clear();
            assert!(o.is_empty());
            assert_consistent(&o);
        }
    }

    #[test]
    fn get_mut_and_get_or_insert_with_change_values_in_place() {
        let mut o = object(LINEAR_MAX + 1);
        if let Some(v) = o.get_mut("k3") {
            *v = Json::Null;
        }
        assert_eq!(o.get("k3"), Some(&Json::Null));
        *o.get_or_insert_with("k4", || Json::Bool(false)) = Json::Bool(true);
        assert_eq!(o.get_index(4).map(|(_, v)| v), Some(&Json::Bool(true)));
        *o.get_or_insert_with("new", || Json::Int(7)) = Json::Int(8);
        assert_eq!(keys_of(&o).last().map(String::as_str), Some("new"));
        assert_eq!(o.get("new"), Some(&Json::Int(8)));
        for (_, v) in o.iter_mut() {
            *v = Json::Null;
        }
        assert!(o.iter().all(|(_, v)| *v == Json::Null));
        assert_consistent(&o);
    }

    #[test]
    fn equality_ignores_the_order_of_keys() {
        let entries = |keys: &[&str]| {
            JsonObject::from_entries(
                keys.iter()
                    .map(|k| (Arc::from(*k), Json::String(Arc::from(*k))))
                    .collect(),
            )
        };
        assert_eq!(entries(&["a", "b"]), entries(&["b", "a"]));
        assert_ne!(entries(&["a", "b"]), entries(&["a", "c"]));
        assert_ne!(entries(&["a"]), entries(&["a", "b"]));
        assert_eq!(object(20), object(20));
    }
}
