//! The entries of a JSON object as CEL reads it: built once per object of a document, then
//! only looked up and iterated.

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
        let index = (entries.len() > LINEAR_MAX).then(|| {
            Box::new(
                entries
                    .iter()
                    .enumerate()
                    .map(|(i, (k, _))| (k.clone(), i))
                    .collect(),
            )
        });
        JsonObject { entries, index }
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
