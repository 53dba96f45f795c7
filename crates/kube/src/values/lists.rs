//! List views: atomic lists, set lists and map lists (`x-kubernetes-list-type`), with
//! Kubernetes' equality and `+` (k8s-cel.md §6.1: both follow the left operand).

use std::collections::HashSet;
use std::sync::Arc;

use cel::value::{List, ListProvider};
use cel::{EvalError, EvalResult, Value};

use super::{Json, ValueError, to_value};
use crate::escaping;
use crate::structural::Structural;

/// The list type of a list view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListKind {
    /// `atomic` or unset: a plain list.
    Atomic,
    /// `set`: equality ignores order and duplicates' positions; `+` is a union.
    Set,
    /// `map` with the CEL (escaped) names of the key fields: equality by key, `+` merges.
    Map(Arc<[String]>),
}

impl ListKind {
    /// The list kind of an array schema.
    pub fn of(schema: &Structural) -> Result<ListKind, ValueError> {
        match schema.extensions.list_type.as_deref() {
            None | Some("atomic") => Ok(ListKind::Atomic),
            Some("set") => Ok(ListKind::Set),
            Some("map") => Ok(ListKind::Map(
                schema
                    .extensions
                    .list_map_keys
                    .iter()
                    .map(|k| escaping::escape(k).map_or_else(|| k.clone(), |e| e.into_owned()))
                    .collect(),
            )),
            Some(other) => Err(ValueError::ListType(other.to_string())),
        }
    }
}

/// Where the elements of a list view are.
#[derive(Clone, Debug)]
enum Elements {
    /// JSON elements typed by the item schema.
    Json {
        items: Arc<[Json]>,
        schema: Arc<Structural>,
    },
    /// CEL values (the result of `+` on a set or map list).
    Values(Arc<Vec<Value>>),
}

/// A JSON array (or the result of `+` on one) as a CEL list.
#[derive(Clone, Debug)]
pub struct ListView {
    elements: Elements,
    kind: ListKind,
}

impl ListView {
    /// A view of `items` read with the item schema `schema`, compared as `kind` says.
    pub fn from_json(items: Arc<[Json]>, schema: Arc<Structural>, kind: ListKind) -> Self {
        ListView {
            elements: Elements::Json { items, schema },
            kind,
        }
    }

    /// A list of CEL values with set or map-list semantics.
    pub fn from_values(values: Vec<Value>, kind: ListKind) -> Self {
        ListView {
            elements: Elements::Values(Arc::new(values)),
            kind,
        }
    }

    /// How the list compares and concatenates.
    pub fn kind(&self) -> &ListKind {
        &self.kind
    }

    /// Element `index` with the conversion error if its data does not fit the item schema.
    pub fn read(&self, index: usize) -> Result<Option<Value>, ValueError> {
        match &self.elements {
            Elements::Json { items, schema } => match items.get(index) {
                None => Ok(None),
                Some(node) => to_value(node, schema).map(Some),
            },
            Elements::Values(v) => Ok(v.get(index).cloned()),
        }
    }

    fn values(&self) -> Vec<Value> {
        (0..self.len()).filter_map(|i| self.get(i)).collect()
    }
}

impl ListProvider for ListView {
    fn len(&self) -> usize {
        match &self.elements {
            Elements::Json { items, .. } => items.len(),
            Elements::Values(v) => v.len(),
        }
    }

    fn get(&self, index: usize) -> Option<Value> {
        self.read(index).ok().flatten()
    }

    fn try_get(&self, index: usize) -> EvalResult<Option<Value>> {
        self.read(index).map_err(|e| e.to_eval_error())
    }

    fn equals(&self, other: &List) -> Option<bool> {
        match &self.kind {
            ListKind::Atomic => None,
            ListKind::Set => Some(set_equals(self, other).unwrap_or(false)),
            ListKind::Map(keys) => Some(map_list_equals(self, other, keys)),
        }
    }

    fn add(&self, other: &List) -> Option<EvalResult<List>> {
        match &self.kind {
            ListKind::Atomic => None,
            ListKind::Set => Some(set_union(self, other)),
            ListKind::Map(keys) => Some(Ok(map_list_merge(self, other, keys))),
        }
    }
}

/// A hashable form of a scalar CEL value (numbers of equal value are one key).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum ScalarKey {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(u64),
    String(Arc<str>),
    Bytes(Arc<[u8]>),
    Timestamp(i64, u32),
    Duration(i64),
}

fn scalar_key(v: &Value) -> Option<ScalarKey> {
    Some(match v {
        Value::Null => ScalarKey::Null,
        Value::Bool(b) => ScalarKey::Bool(*b),
        Value::Int(i) => ScalarKey::Int(*i),
        Value::Uint(u) if *u <= i64::MAX as u64 => ScalarKey::Int(*u as i64),
        Value::Uint(u) => ScalarKey::Uint(*u),
        Value::Double(d)
            if d.fract() == 0.0
                && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(d) =>
        {
            ScalarKey::Int(*d as i64)
        }
        Value::Double(d) if *d == 0.0 => ScalarKey::Int(0),
        Value::Double(d) => ScalarKey::Double(d.to_bits()),
        Value::String(s) => ScalarKey::String(s.clone()),
        Value::Bytes(b) => ScalarKey::Bytes(b.clone()),
        Value::Timestamp(t) => ScalarKey::Timestamp(t.seconds, t.nanos),
        Value::Duration(d) => ScalarKey::Duration(d.nanos),
        _ => return None,
    })
}

const SET_SCALARS_ONLY: &str = "listSet operations are only supported on lists of scalar values";

/// Order-insensitive equality: same size, same distinct elements. `Err` when an element is not
/// a scalar.
fn set_equals(left: &ListView, right: &List) -> Result<bool, EvalError> {
    if left.len() != right.len() {
        return Ok(false);
    }
    let mut seen = HashSet::with_capacity(left.len());
    for v in left.values() {
        seen.insert(scalar_key(&v).ok_or_else(|| EvalError::msg(SET_SCALARS_ONLY))?);
    }
    let mut right_distinct = HashSet::with_capacity(right.len());
    for v in right.iter() {
        let k = scalar_key(&v).ok_or_else(|| EvalError::msg(SET_SCALARS_ONLY))?;
        if !seen.contains(&k) {
            return Ok(false);
        }
        right_distinct.insert(k);
    }
    Ok(seen.len() == right_distinct.len())
}

/// Union: left elements in place, then right elements not yet present, in order.
fn set_union(left: &ListView, right: &List) -> EvalResult<List> {
    let mut out = left.values();
    let mut seen = HashSet::with_capacity(out.len() + right.len());
    for v in &out {
        seen.insert(scalar_key(v).ok_or_else(|| EvalError::msg(SET_SCALARS_ONLY))?);
    }
    for v in right.iter() {
        let k = scalar_key(&v).ok_or_else(|| EvalError::msg(SET_SCALARS_ONLY))?;
        if seen.insert(k) {
            out.push(v);
        }
    }
    Ok(List::Provided(Arc::new(ListView::from_values(
        out,
        ListKind::Set,
    ))))
}

/// The key of a map-list element: the values of its key fields (absent fields are null).
fn element_key(v: &Value, keys: &[String]) -> Option<Vec<ScalarKey>> {
    let Value::Map(m) = v else { return None };
    keys.iter()
        .map(|k| match m.field(k) {
            None => Some(ScalarKey::Null),
            Some(v) => scalar_key(&v),
        })
        .collect()
}

/// Order-insensitive equality by key: same size, every right element's key is on the left
/// with an equal element, and every left key is matched.
fn map_list_equals(left: &ListView, right: &List, keys: &[String]) -> bool {
    if left.len() != right.len() {
        return false;
    }
    let mut by_key = std::collections::HashMap::with_capacity(left.len());
    for v in left.values() {
        let Some(k) = element_key(&v, keys) else {
            return false;
        };
        by_key.entry(k).or_insert(v);
    }
    let mut matched = HashSet::with_capacity(by_key.len());
    for w in right.iter() {
        let Some(k) = element_key(&w, keys) else {
            return false;
        };
        match by_key.get(&k) {
            Some(v) if v.equals(&w) => {
                matched.insert(k);
            }
            _ => return false,
        }
    }
    matched.len() == by_key.len()
}

/// Merge: left order kept, right elements with an existing key replace it in place, new keys
/// are appended.
fn map_list_merge(left: &ListView, right: &List, keys: &[String]) -> List {
    let mut out = left.values();
    let mut index = std::collections::HashMap::with_capacity(out.len());
    for (i, v) in out.iter().enumerate() {
        if let Some(k) = element_key(v, keys) {
            index.entry(k).or_insert(i);
        }
    }
    for w in right.iter() {
        match element_key(&w, keys).and_then(|k| index.get(&k).copied().map(Ok).or(Some(Err(k)))) {
            Some(Ok(i)) => {
                if let Some(slot) = out.get_mut(i) {
                    *slot = w;
                }
            }
            Some(Err(k)) => {
                index.insert(k, out.len());
                out.push(w);
            }
            None => out.push(w),
        }
    }
    List::Provided(Arc::new(ListView::from_values(
        out,
        ListKind::Map(keys.into()),
    )))
}
