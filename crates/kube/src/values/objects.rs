//! Object and map views of JSON objects.

use std::borrow::Cow;
use std::sync::Arc;

use cel::value::{Key, KeyRef, Map, MapProvider};
use cel::{EvalResult, Value};

use super::{Json, JsonObject, Unknown, ValueError, to_value};
use crate::escaping;
use crate::schema_props::SchemaLookup;
use crate::structural::Structural;

/// A JSON object read with an object schema (`properties`): fields by CEL (escaped) name.
///
/// Field selection and `has()` see only declared properties whose value is not null. `size()`
/// counts every key (null-valued and unknown ones too), as Kubernetes does. Keys of the map
/// interface are the escaped names of declared properties and the raw names of undeclared
/// ones; [`MapProvider::get`] with an undeclared raw name yields an opaque [`Unknown`] so that
/// equality can compare preserved unknown fields.
#[derive(Clone, Debug)]
pub struct ObjectView {
    obj: Arc<JsonObject>,
    schema: Arc<Structural>,
}

impl ObjectView {
    /// A view of `obj` read with the object schema `schema`.
    pub fn new(obj: Arc<JsonObject>, schema: Arc<Structural>) -> Self {
        ObjectView { obj, schema }
    }

    /// The schema the object is read with.
    pub fn schema(&self) -> &Arc<Structural> {
        &self.schema
    }

    /// The JSON object.
    pub fn json(&self) -> &Arc<JsonObject> {
        &self.obj
    }

    /// Field `name` (CEL, escaped) with the conversion error if its data does not fit its
    /// schema; `Ok(None)` when the field is absent, null or undeclared.
    pub fn read_field(&self, name: &str) -> Result<Option<Value>, ValueError> {
        let Some(property) = property_of(name) else {
            return Ok(None);
        };
        let Some(prop_schema) = self.schema.properties.lookup(property.as_ref()) else {
            return Ok(None);
        };
        match self.obj.get(property.as_ref()) {
            None | Some(Json::Null) => Ok(None),
            Some(node) => to_value(node, prop_schema).map(Some),
        }
    }

    /// [`MapProvider::field_hinted`]: the field where `hint` says (a property position and a
    /// JSON entry position, see [`pack_hint`]) when both hold `name` itself, else found by
    /// [`ObjectView::read_field`]'s search, with the positions where it was found.
    fn field_at(&self, name: &str, hint: usize) -> Option<(Value, usize)> {
        let (prop_at, json_at) = unpack_hint(hint);
        let properties = &self.schema.properties;
        if let Some((key, prop_schema)) = properties.get_index(prop_at)
            && *key == *name
            && let Some((json_key, node)) = self.obj.get_index(json_at)
            && **json_key == *name
            && escaping::is_plain_identifier(name)
        {
            // `name` is its own property name, and keys are unique: what the search finds.
            return match node {
                Json::Null => None,
                node => to_value(node, prop_schema).ok().map(|v| (v, hint)),
            };
        }
        let property = property_of(name)?;
        let prop_at = properties.lookup_index(property.as_ref())?;
        let (_, prop_schema) = properties.get_index(prop_at)?;
        let (node, hint) = match self
            .obj
            .iter()
            .take(HINT_SEARCH_MAX)
            .position(|(k, _)| **k == *property)
        {
            Some(json_at) => (self.obj.get_index(json_at)?.1, pack_hint(prop_at, json_at)),
            None => (self.obj.get(property.as_ref())?, hint),
        };
        match node {
            Json::Null => None,
            node => to_value(node, prop_schema).ok().map(|v| (v, hint)),
        }
    }

    /// The value under map key `name`: a field by its CEL name, else a declared property
    /// whose name cannot be escaped by its raw name (Kubernetes finds such keys raw, so that
    /// equality compares them), else an undeclared key by its raw name as an opaque
    /// [`Unknown`]. Null values are absent.
    pub fn read_key(&self, name: &str) -> Result<Option<Value>, ValueError> {
        if let Some(v) = self.read_field(name)? {
            return Ok(Some(v));
        }
        let node = match self.obj.get(name) {
            None | Some(Json::Null) => return Ok(None),
            Some(node) => node,
        };
        match self.schema.properties.lookup(name) {
            Some(prop_schema) if escaping::escape(name).is_none() => {
                to_value(node, prop_schema).map(Some)
            }
            Some(_) => Ok(None),
            None => Ok(Some(Value::Opaque(Arc::new(Unknown(node.clone()))))),
        }
    }

    /// The CEL key under which a raw JSON key is exposed: a declared property by its escaped
    /// name (by its raw name when it has none), an undeclared key by its raw name.
    fn key_of<'k>(&self, raw: &'k str) -> Cow<'k, str> {
        if self.schema.properties.contains_key(raw) {
            escaping::escape(raw).unwrap_or(Cow::Borrowed(raw))
        } else {
            Cow::Borrowed(raw)
        }
    }
}

impl MapProvider for ObjectView {
    fn len(&self) -> usize {
        self.obj.len()
    }

    fn get(&self, key: KeyRef<'_>) -> Option<Value> {
        self.try_get(key).ok().flatten()
    }

    fn try_get(&self, key: KeyRef<'_>) -> EvalResult<Option<Value>> {
        let KeyRef::String(name) = key else {
            return Ok(None);
        };
        self.read_key(name).map_err(|e| e.to_eval_error())
    }

    fn field(&self, name: &str) -> Option<Value> {
        self.read_field(name).ok().flatten()
    }

    fn field_hinted(&self, name: &str, hint: usize) -> Option<(Value, usize)> {
        self.field_at(name, hint)
    }

    fn try_field(&self, name: &str) -> EvalResult<Option<Value>> {
        self.read_field(name).map_err(|e| e.to_eval_error())
    }

    fn keys(&self) -> Box<dyn Iterator<Item = Key> + '_> {
        Box::new(
            self.obj
                .iter()
                .filter(|(_, v)| !matches!(v, Json::Null))
                .map(|(k, _)| Key::String(self.key_of(k).as_ref().into())),
        )
    }

    /// Same raw key count; every non-null key of the left equals the right's value under the
    /// same CEL key (declared properties by CEL equality, unknown ones deeply); null and absent
    /// are alike.
    fn equals(&self, other: &Map) -> Option<bool> {
        if self.obj.len() != other.len() {
            return Some(false);
        }
        for (raw, node) in self.obj.iter() {
            let k = self.key_of(raw);
            let left = if matches!(node, Json::Null) {
                None
            } else {
                self.get(KeyRef::String(&k))
            };
            let right = other.get(KeyRef::String(&k));
            match (left, right) {
                (None, None) => {}
                (Some(l), Some(r)) if l.equals(&r) => {}
                _ => return Some(false),
            }
        }
        Some(true)
    }
}

/// The property a CEL field name selects: a plain identifier is its own spelling (a reserved
/// word is found under its plain name too); otherwise the escaped spelling of a property
/// (`x__dash__y` selects `x-y`, `x-y` selects nothing).
fn property_of(name: &str) -> Option<Cow<'_, str>> {
    if escaping::is_plain_identifier(name) {
        return Some(Cow::Borrowed(name));
    }
    let property = escaping::unescape(name)?;
    // Only the escaped spelling names a field, except that a reserved word is found under its
    // plain name too (`namespace`, 1.31+).
    if escaping::escape(&property).as_deref() != Some(name) && !escaping::is_reserved(name) {
        return None;
    }
    Some(property)
}

/// How many entries of an object a hinted field read searches in order for the entry's
/// position (larger objects are looked up as usual, and their fields keep the old hint).
const HINT_SEARCH_MAX: usize = 8;

/// A field's position hint: its property's position in the schema in the low half, its entry's
/// position in the JSON object in the high half (positions past a half do not fit and miss).
fn pack_hint(prop_at: usize, json_at: usize) -> usize {
    let half = usize::BITS / 2;
    let mask = (1usize << half) - 1;
    (prop_at & mask) | ((json_at & mask) << half)
}

/// The positions of a [`pack_hint`] hint.
fn unpack_hint(hint: usize) -> (usize, usize) {
    let half = usize::BITS / 2;
    let mask = (1usize << half) - 1;
    (hint & mask, hint >> half)
}

/// A JSON object read with `additionalProperties`: every key, unescaped, values typed by the
/// value schema; a missing key is absent.
#[derive(Clone, Debug)]
pub struct MapView {
    obj: Arc<JsonObject>,
    values: Arc<Structural>,
}

impl MapView {
    /// A view of the map `obj` whose values are read with `values`.
    pub fn new(obj: Arc<JsonObject>, values: Arc<Structural>) -> Self {
        MapView { obj, values }
    }

    /// The value under `key` with the conversion error if its data does not fit the schema.
    pub fn read(&self, key: &str) -> Result<Option<Value>, ValueError> {
        match self.obj.get(key) {
            None => Ok(None),
            Some(node) => to_value(node, &self.values).map(Some),
        }
    }
}

impl MapProvider for MapView {
    fn len(&self) -> usize {
        self.obj.len()
    }

    fn get(&self, key: KeyRef<'_>) -> Option<Value> {
        self.try_get(key).ok().flatten()
    }

    fn try_get(&self, key: KeyRef<'_>) -> EvalResult<Option<Value>> {
        let KeyRef::String(k) = key else {
            return Ok(None);
        };
        self.read(k).map_err(|e| e.to_eval_error())
    }

    fn keys(&self) -> Box<dyn Iterator<Item = Key> + '_> {
        Box::new(self.obj.keys().map(|k| Key::String(k.clone())))
    }
}
