//! Map values.

use std::fmt;
use std::sync::Arc;

use indexmap::IndexMap;

use super::{Key, KeyRef, Value};
use crate::error::EvalResult;

/// A map supplied by a host, read on demand.
pub trait MapProvider: fmt::Debug + Send + Sync {
    /// The number of entries.
    fn len(&self) -> usize;

    /// The value under `key`, `None` when absent.
    fn get(&self, key: KeyRef<'_>) -> Option<Value>;

    /// The keys, in the host's order.
    fn keys(&self) -> Box<dyn Iterator<Item = Key> + '_>;

    /// Whether there are no entries.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Field selection `m.name`. Hosts whose objects treat some entries as
    /// absent for selection and `has()` (Kubernetes: null values) override this.
    fn field(&self, name: &str) -> Option<Value> {
        self.get(KeyRef::String(name))
    }

    /// [`MapProvider::field`] with a position hint: `hint` is what this method (or
    /// [`MapProvider::try_field_hinted`]) last returned for the same field name at the same
    /// place of an expression — 0 at first, and possibly what a different map returned there:
    /// another provider's hint, or a plain map's entry position —, so that maps of one shape
    /// can find the field without a search. Returns the field and the hint to keep; the value
    /// must be exactly what [`MapProvider::field`] returns, whatever the hint. The default
    /// ignores the hint.
    fn field_hinted(&self, name: &str, hint: usize) -> Option<(Value, usize)> {
        self.field(name).map(|v| (v, hint))
    }

    /// [`MapProvider::try_field`] with a position hint as [`MapProvider::field_hinted`] takes
    /// it: the outcome must be exactly what [`MapProvider::try_field`] returns, whatever the
    /// hint (`has()` reads fields through this). The default ignores the hint.
    fn try_field_hinted(&self, name: &str, hint: usize) -> EvalResult<(Option<Value>, usize)> {
        self.try_field(name).map(|v| (v, hint))
    }

    /// [`MapProvider::get`] that can fail: `Err` when the host's data under `key` cannot be
    /// read as a CEL value (Kubernetes: data that does not fit its schema). Index, `in` and
    /// optional lookups go through this; the default never fails.
    fn try_get(&self, key: KeyRef<'_>) -> EvalResult<Option<Value>> {
        Ok(self.get(key))
    }

    /// [`MapProvider::field`] that can fail, as [`MapProvider::try_get`]. Field selection and
    /// `has()` go through this (after a fast path on [`MapProvider::field`] that takes only
    /// present values); the default never fails.
    fn try_field(&self, name: &str) -> EvalResult<Option<Value>> {
        Ok(self.field(name))
    }

    /// Host-specific equality, or `None` for CEL's map equality.
    fn equals(&self, _other: &Map) -> Option<bool> {
        None
    }
}

/// A map value: plain (insertion-ordered), or provided by the host.
#[derive(Clone)]
pub enum Map {
    /// Entries held by the engine, in insertion order.
    Values(Arc<IndexMap<Key, Value>>),
    /// Entries supplied by the host, read on demand.
    Provided(Arc<dyn MapProvider>),
}

impl Map {
    /// A map of `entries`.
    pub fn new(entries: IndexMap<Key, Value>) -> Self {
        Map::Values(Arc::new(entries))
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        match self {
            Map::Values(m) => m.len(),
            Map::Provided(p) => p.len(),
        }
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value at `key`, if any.
    pub fn get(&self, key: KeyRef<'_>) -> Option<Value> {
        match self {
            Map::Values(m) => lookup(m, key).cloned(),
            Map::Provided(p) => p.get(key),
        }
    }

    /// [`Map::get`] with the host's read error (see [`MapProvider::try_get`]).
    pub fn try_get(&self, key: KeyRef<'_>) -> EvalResult<Option<Value>> {
        match self {
            Map::Values(m) => Ok(lookup(m, key).cloned()),
            Map::Provided(p) => p.try_get(key),
        }
    }

    /// Field selection `m.name`: `None` when absent, and also when a host cannot read the
    /// field's data (use [`Map::try_field`] to see that error).
    pub fn field(&self, name: &str) -> Option<Value> {
        match self {
            Map::Values(m) => lookup(m, KeyRef::String(name)).cloned(),
            Map::Provided(p) => p.field(name),
        }
    }

    /// Field selection `m.name` with the host's read error (see [`MapProvider::try_field`]).
    pub fn try_field(&self, name: &str) -> EvalResult<Option<Value>> {
        match self {
            Map::Values(m) => Ok(lookup(m, KeyRef::String(name)).cloned()),
            Map::Provided(p) => p.try_field(name),
        }
    }

    /// Field selection by reference: `Some` only for a plain map holding
    /// `name` (a host's map hands out owned values: use [`Map::field`]).
    #[inline]
    pub fn field_ref(&self, name: &str) -> Option<&Value> {
        match self {
            Map::Values(m) => lookup(m, KeyRef::String(name)),
            Map::Provided(_) => None,
        }
    }

    /// [`Map::field_ref`] that tries entry `at` first (where a map of the same
    /// shape held `name`), returning the entry's index too.
    #[inline(always)]
    pub(crate) fn field_ref_at(&self, name: &str, at: usize) -> Option<(usize, &Value)> {
        let Map::Values(m) = self else {
            return None;
        };
        if let Some((Key::String(k), v)) = m.get_index(at)
            && names_equal(k, name)
        {
            return Some((at, v));
        }
        lookup_full(m, KeyRef::String(name))
    }

    /// Whether `key` has an entry.
    pub fn contains_key(&self, key: KeyRef<'_>) -> bool {
        match self {
            Map::Values(m) => lookup(m, key).is_some(),
            Map::Provided(p) => p.get(key).is_some(),
        }
    }

    /// [`Map::contains_key`] with the host's read error: `key in m` fails when the value under
    /// `key` cannot be read (as Kubernetes' maps answer `Contains` with the error).
    pub fn try_contains_key(&self, key: KeyRef<'_>) -> EvalResult<bool> {
        match self {
            Map::Values(m) => Ok(lookup(m, key).is_some()),
            Map::Provided(p) => p.try_get(key).map(|v| v.is_some()),
        }
    }

    /// The keys in order.
    pub fn keys(&self) -> Box<dyn Iterator<Item = Key> + '_> {
        match self {
            Map::Values(m) => Box::new(m.keys().cloned()),
            Map::Provided(p) => p.keys(),
        }
    }

    /// The entries in order.
    pub fn entries(&self) -> Box<dyn Iterator<Item = (Key, Value)> + '_> {
        match self {
            Map::Values(m) => Box::new(m.iter().map(|(k, v)| (k.clone(), v.clone()))),
            Map::Provided(p) => Box::new(
                p.keys()
                    .filter_map(move |k| p.get(k.as_ref()).map(|v| (k, v))),
            ),
        }
    }
}

/// Maps up to this size are searched linearly: comparing a few keys is
/// cheaper than hashing one (object-shaped maps are small).
const LINEAR_LOOKUP_MAX: usize = 8;

/// The value under `key`: a linear scan for small maps, a hash lookup else
/// (same equivalence either way: an int and a uint of equal value are one key).
#[inline]
fn lookup<'m>(m: &'m IndexMap<Key, Value>, key: KeyRef<'_>) -> Option<&'m Value> {
    if m.len() > LINEAR_LOOKUP_MAX {
        return m.get(&key);
    }
    match key {
        KeyRef::String(name) => m.iter().find_map(|(k, v)| match k {
            Key::String(s) if **s == *name => Some(v),
            _ => None,
        }),
        other => m
            .iter()
            .find_map(|(k, v)| (k.as_ref() == other).then_some(v)),
    }
}

/// `a == b` for names: those of at most 16 bytes (field and variable names)
/// compared as two machine words each, without a call to `memcmp` (hosts
/// comparing field names use it too).
#[inline(always)]
pub fn names_equal(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let word = |c: Option<&[u8; 8]>| c.map(|w| u64::from_ne_bytes(*w));
    let half = |c: Option<&[u8; 4]>| c.map(|w| u32::from_ne_bytes(*w));
    match a.len() {
        0 => true,
        1..4 => a.iter().zip(b).all(|(x, y)| x == y),
        4..8 => {
            half(a.first_chunk()) == half(b.first_chunk())
                && half(a.last_chunk()) == half(b.last_chunk())
        }
        8..=16 => {
            word(a.first_chunk()) == word(b.first_chunk())
                && word(a.last_chunk()) == word(b.last_chunk())
        }
        _ => a == b,
    }
}

/// [`lookup`] with the entry's index.
#[inline(never)]
fn lookup_full<'m>(m: &'m IndexMap<Key, Value>, key: KeyRef<'_>) -> Option<(usize, &'m Value)> {
    if m.len() > LINEAR_LOOKUP_MAX {
        return m.get_full(&key).map(|(i, _, v)| (i, v));
    }
    let i = m.keys().position(|k| k.as_ref() == key)?;
    m.get_index(i).map(|(_, v)| (i, v))
}

impl From<IndexMap<Key, Value>> for Map {
    fn from(m: IndexMap<Key, Value>) -> Self {
        Map::new(m)
    }
}

impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.entries()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_equal_agrees_with_string_equality() {
        let names = [
            "",
            "a",
            "b",
            "ab",
            "abc",
            "abd",
            "self",
            "selg",
            "items",
            "itemz",
            "replicas",
            "replicaz",
            "minReplicas",
            "maxReplicas",
            "sixteen-bytes-xx",
            "sixteen-bytes-xy",
            "seventeen-bytes-x",
            "seventeen-bytes-y",
            "é",
            "ü",
        ];
        for a in names {
            for b in names {
                assert_eq!(names_equal(a, b), a == b, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn field_ref_at_finds_fields_wherever_the_hint_points() {
        let entries: IndexMap<Key, Value> = (0..12)
            .map(|i| (Key::String(format!("f{i}").into()), Value::Int(i)))
            .collect();
        for n in [3, 12] {
            let m = Map::new(
                entries
                    .iter()
                    .take(n)
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            );
            for i in 0..n {
                for at in [0, i, n - 1, n, usize::MAX] {
                    let found = m.field_ref_at(&format!("f{i}"), at);
                    assert!(matches!(found, Some((j, Value::Int(x))) if j == i && *x == i as i64));
                }
            }
            assert!(m.field_ref_at("absent", 0).is_none());
        }
    }
}
