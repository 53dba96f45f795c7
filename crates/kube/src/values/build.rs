//! Building [`Json`] documents straight from a reader: the YAML builder (`yaml.rs`) and JSON
//! streams (`documents.rs`) make the tree the pipeline works on, with no `serde_json` tree in
//! between, and note while they build what the pipeline's entry needs to know ([`JsonBody`]).

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::{Json, JsonObject, json_object};
use crate::pipeline::decode::MAX_REQUEST_BODY_DEPTH;

/// Object keys shared by the objects of a document or stream: first the key last seen at the
/// same nesting depth and position in its object (the objects of a list usually repeat their
/// keys in the same order: `name`, `value` in each of 65,536 items, so a key costs one
/// comparison), then a table of the keys met so far (documents of one stream share their
/// `apiVersion`, `metadata`, ...), so each such key is allocated once and shared.
#[derive(Default)]
pub struct KeyCache {
    /// The key last seen by depth and position.
    by_position: Vec<Vec<Arc<str>>>,
    /// Keys met so far, at most [`KeyCache::MAX_TABLE_KEYS`] of at most
    /// [`KeyCache::MAX_TABLE_KEY_BYTES`] bytes; hashed with `foldhash` (randomly seeded per
    /// process).
    table: HashSet<Arc<str>, foldhash::fast::RandomState>,
}

impl KeyCache {
    /// How many key positions per depth are remembered.
    const MAX_KEY_POSITIONS: usize = 64;
    /// How many depths keep keys.
    const MAX_KEY_DEPTHS: usize = 64;
    /// How many keys the table keeps.
    const MAX_TABLE_KEYS: usize = 4096;
    /// The longest key the table keeps.
    const MAX_TABLE_KEY_BYTES: usize = 64;

    /// The key `key` of the entry at `position` of an object at `depth`, shared with an equal
    /// key seen before when there is one.
    pub(crate) fn key(&mut self, depth: usize, position: usize, key: &str) -> Arc<str> {
        if depth >= Self::MAX_KEY_DEPTHS || position >= Self::MAX_KEY_POSITIONS {
            return self.shared(key);
        }
        if self.by_position.len() <= depth {
            self.by_position.resize_with(depth + 1, Vec::new);
        }
        let Some(seen) = self.by_position.get_mut(depth) else {
            return key.into();
        };
        match seen.get(position) {
            Some(k) if **k == *key => return k.clone(),
            _ => {}
        }
        let k = self.shared(key);
        if let Some(seen) = self.by_position.get_mut(depth) {
            if position < seen.len() {
                seen[position] = k.clone();
            } else if seen.len() == position {
                // Positions fill in order: an object with a new key at position `p` has seen
                // positions `0..p` just before.
                seen.push(k.clone());
            }
        }
        k
    }

    /// `key` from the table, added to it when there is room.
    fn shared(&mut self, key: &str) -> Arc<str> {
        if let Some(k) = self.table.get(key) {
            return k.clone();
        }
        let k: Arc<str> = key.into();
        if self.table.len() < Self::MAX_TABLE_KEYS && key.len() <= Self::MAX_TABLE_KEY_BYTES {
            self.table.insert(k.clone());
        }
        k
    }
}

/// An array of `items`.
pub(crate) fn array(items: Vec<Json>) -> Json {
    Json::Array(items.into())
}

/// An object of `object`'s entries.
pub(crate) fn object(object: JsonObject) -> Json {
    Json::Object(Arc::new(object))
}

/// An integer beyond int64 as [`Json`] holds it (a float, as the API server's unstructured
/// decoding reads it).
pub(crate) fn wide_integer(u: u64) -> Json {
    Json::Double(u as f64)
}

/// A request body as [`Json`], with what the pipeline's entry checks: whether it nests deeper
/// than the request decoder accepts ([`MAX_REQUEST_BODY_DEPTH`]) and whether it may hold a
/// `null` (the null-pruning walk runs only then). A reader notes both while it builds the tree
/// (its own depth limits are far below the decoder's); a tree from elsewhere is walked once.
///
/// A document with an integer beyond int64 also keeps its exact `serde_json` form, for the
/// readers that see the number as written (CRDs, admission documents, the typed decoding of
/// built-in kinds): [`Json`] holds such a number as a float.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonBody {
    json: Json,
    /// Whether the body may hold a `null`: `true` whenever it does (also after a repeated key
    /// replaced the only `null`).
    has_null: bool,
    /// Whether a node lies deeper than [`MAX_REQUEST_BODY_DEPTH`].
    too_deep: bool,
    /// Whether the reader met an integer beyond int64.
    wide: bool,
    /// The exact `serde_json` form of a body with such an integer.
    exact: Option<Arc<serde_json::Value>>,
}

impl JsonBody {
    /// A body of `json`, walked once for its depth and `null`s.
    pub fn new(json: Json) -> JsonBody {
        let (too_deep, has_null) = depth_and_nulls(&json);
        JsonBody {
            json,
            has_null,
            too_deep,
            wide: false,
            exact: None,
        }
    }

    /// A body a reader built, noting whether it may hold a `null` and whether it held an
    /// integer beyond int64; its nesting is within the reader's limit (YAML's 500 levels,
    /// serde_json's 128), far below [`MAX_REQUEST_BODY_DEPTH`].
    pub(crate) fn read(json: Json, has_null: bool, wide: bool) -> JsonBody {
        JsonBody {
            json,
            has_null,
            too_deep: false,
            wide,
            exact: None,
        }
    }

    /// The tree.
    pub fn json(&self) -> &Json {
        &self.json
    }

    /// Whether the reader met an integer beyond int64 and the exact form is not attached yet.
    pub(crate) fn needs_exact(&self) -> bool {
        self.wide && self.exact.is_none()
    }

    /// Attaches the exact `serde_json` form of a body that holds an integer beyond int64.
    pub(crate) fn with_exact(mut self, exact: Option<serde_json::Value>) -> JsonBody {
        self.exact = exact.map(Arc::new);
        self
    }

    /// The exact `serde_json` form, when the body holds an integer beyond int64.
    pub(crate) fn exact(&self) -> Option<&serde_json::Value> {
        self.exact.as_deref()
    }

    /// Element `i` of the array under `key` (a `kind: List`'s `items`), as a body of its own.
    pub(crate) fn item(&self, key: &str, i: usize, item: Json) -> JsonBody {
        JsonBody {
            json: item,
            has_null: self.has_null,
            too_deep: self.too_deep,
            wide: self.wide,
            exact: self
                .exact
                .as_ref()
                .and_then(|e| e.get(key)?.get(i).cloned())
                .map(Arc::new),
        }
    }

    /// The body as `serde_json` holds it: the exact form when kept, else the tree converted
    /// ([`Json::to_serde`], identical for a body without integers beyond int64).
    pub fn to_serde(&self) -> serde_json::Value {
        match &self.exact {
            Some(e) => (**e).clone(),
            None => self.json.to_serde(),
        }
    }

    /// [`JsonBody::to_serde`], taking the body.
    pub fn into_serde(self) -> serde_json::Value {
        match self.exact {
            Some(e) => Arc::unwrap_or_clone(e),
            None => self.json.to_serde(),
        }
    }

    /// The tree and whether it may hold a `null`, or `None` when it nests deeper than
    /// [`MAX_REQUEST_BODY_DEPTH`].
    pub(crate) fn into_checked(self) -> Option<(Json, bool)> {
        (!self.too_deep).then_some((self.json, self.has_null))
    }

    /// The tree.
    pub fn into_json(self) -> Json {
        self.json
    }
}

impl From<Json> for JsonBody {
    fn from(json: Json) -> JsonBody {
        JsonBody::new(json)
    }
}

/// Whether a node of `json` lies deeper than [`MAX_REQUEST_BODY_DEPTH`], and whether it holds
/// a `null`. Iterative: a tree built in memory may nest without limit.
fn depth_and_nulls(json: &Json) -> (bool, bool) {
    let (mut too_deep, mut has_null) = (false, false);
    let mut stack = vec![(json, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        if depth > MAX_REQUEST_BODY_DEPTH {
            too_deep = true;
            continue;
        }
        match node {
            Json::Null => has_null = true,
            Json::Array(items) => stack.extend(items.iter().map(|x| (x, depth + 1))),
            Json::Object(o) => stack.extend(o.iter().map(|(_, x)| (x, depth + 1))),
            _ => {}
        }
    }
    (too_deep, has_null)
}

/// What a JSON reader notes while it builds one document.
#[derive(Default)]
struct Notes {
    keys: KeyCache,
    has_null: bool,
    wide: bool,
}

/// A JSON value at `depth`, built into [`Json`] (numbers as [`Json::from_serde`] maps
/// `serde_json`'s: int64 integers as `Int`, other integers and floats as `Double`).
struct ValueSeed<'n> {
    notes: &'n mut Notes,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Json;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }

    fn visit_i64<E>(self, i: i64) -> Result<Json, E> {
        Ok(Json::Int(i))
    }

    fn visit_u64<E>(self, u: u64) -> Result<Json, E> {
        Ok(match i64::try_from(u) {
            Ok(i) => Json::Int(i),
            Err(_) => {
                self.notes.wide = true;
                wide_integer(u)
            }
        })
    }

    fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<Json, E> {
        // serde_json's `Value` holds a float that is not finite as `null`.
        if f.is_finite() {
            Ok(Json::Double(f))
        } else {
            self.visit_unit()
        }
    }

    fn visit_str<E>(self, s: &str) -> Result<Json, E> {
        Ok(Json::String(s.into()))
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        self.notes.has_null = true;
        Ok(Json::Null)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Json, E> {
        self.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(x) = seq.next_element_seed(ValueSeed {
            notes: &mut *self.notes,
            depth: self.depth + 1,
        })? {
            items.push(x);
        }
        Ok(array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut o = JsonObject::with_capacity(json_object::INLINE_ENTRIES);
        loop {
            let seed = KeySeed {
                keys: &mut self.notes.keys,
                depth: self.depth,
                position: o.len(),
            };
            let Some(key) = map.next_key_seed(seed)? else {
                break;
            };
            let value = map.next_value_seed(ValueSeed {
                notes: &mut *self.notes,
                depth: self.depth + 1,
            })?;
            // A repeated key keeps its first position and takes the last value, as
            // `serde_json`'s ordered map does.
            o.insert(key, value);
        }
        Ok(object(o))
    }
}

/// An object key, shared through the document's [`KeyCache`].
struct KeySeed<'k> {
    keys: &'k mut KeyCache,
    depth: usize,
    position: usize,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Arc<str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Arc<str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Arc<str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_str<E>(self, s: &str) -> Result<Arc<str>, E> {
        Ok(self.keys.key(self.depth, self.position, s))
    }
}

impl<'de> serde::Deserialize<'de> for JsonBody {
    /// One JSON document (of a stream) read into [`Json`], its keys shared per document.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<JsonBody, D::Error> {
        let mut notes = Notes::default();
        let json = ValueSeed {
            notes: &mut notes,
            depth: 0,
        }
        .deserialize(d)?;
        Ok(JsonBody::read(json, notes.has_null, notes.wide))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> JsonBody {
        serde_json::from_str(text).expect("JSON")
    }

    /// Both trees printed in document order.
    fn same_as_serde(text: &str) {
        let body = read(text);
        let serde: serde_json::Value = serde_json::from_str(text).expect("JSON");
        let via_serde = Json::from_serde(&serde).expect("converts");
        assert_eq!(
            serde_json::to_string(&body.json().to_serde()).expect("prints"),
            serde_json::to_string(&via_serde.to_serde()).expect("prints"),
            "{text}"
        );
    }

    #[test]
    fn json_streams_build_the_tree_serde_json_converts_to() {
        for text in [
            r#"{"a": 1, "b": 1.0, "c": 1e3, "d": -9223372036854775808, "e": 9223372036854775808}"#,
            r#"{"f": 18446744073709551615, "g": 1e300, "h": 2.5, "i": null, "j": [true, "x"]}"#,
            r#"{"k": 1, "l": {"m": 2}, "k": {"n": [1, {"o": null}]}}"#,
            r#"[{"name": "a", "value": "1"}, {"name": "b", "value": "2"}, {"value": "3"}]"#,
            r#""\u00e9\n""#,
        ] {
            same_as_serde(text);
        }
    }

    #[test]
    fn readers_note_nulls_and_wide_integers() {
        let b = read(r#"{"a": [1, {"b": null}]}"#);
        assert!(b.has_null && !b.wide && !b.needs_exact());
        let b = read(r#"{"a": 18446744073709551615}"#);
        assert!(!b.has_null && b.wide && b.needs_exact());
        assert_eq!(
            b.json().get("a"),
            Some(&Json::Double(18446744073709551615u64 as f64))
        );
        let exact: serde_json::Value =
            serde_json::from_str(r#"{"a": 18446744073709551615}"#).expect("JSON");
        let b = b.with_exact(Some(exact.clone()));
        assert!(!b.needs_exact());
        assert_eq!(b.to_serde(), exact);
        assert_eq!(b.into_serde(), exact);
    }

    #[test]
    fn list_items_share_their_keys() {
        let b = read(r#"[{"name": "a", "value": "1"}, {"name": "b", "value": "2"}]"#);
        let items = b.json().as_array().expect("array");
        let key = |i: usize, p: usize| {
            items[i]
                .as_object()
                .and_then(|o| o.get_index(p))
                .map(|(k, _)| k.clone())
                .expect("entry")
        };
        assert!(Arc::ptr_eq(&key(0, 0), &key(1, 0)));
        assert!(Arc::ptr_eq(&key(0, 1), &key(1, 1)));
    }

    #[test]
    fn trees_from_elsewhere_are_walked_for_depth_and_nulls() {
        let mut deep = Json::Null;
        for _ in 0..MAX_REQUEST_BODY_DEPTH {
            deep = array(vec![deep]);
        }
        let b = JsonBody::new(deep.clone());
        assert!(b.has_null && !b.too_deep);
        assert!(b.into_checked().is_some());
        let b = JsonBody::new(array(vec![deep]));
        assert!(b.too_deep);
        assert!(b.into_checked().is_none());
        let b = JsonBody::from(Json::Int(1));
        assert!(!b.has_null && !b.too_deep);
    }
}
