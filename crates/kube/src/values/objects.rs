//! Object and map views of JSON objects.

use std::sync::Arc;

use cel::Value;
use cel::value::{Key, KeyRef, Map, MapProvider};

use super::{Json, JsonObject, Unknown, to_value};
use crate::escaping;
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
    pub fn try_field(&self, name: &str) -> Result<Option<Value>, super::ValueError> {
        let property = if escaping::is_plain_identifier(name) {
            // Its own escaped spelling (or a reserved word, found under its plain name too):
            // the common case, without the round trip below.
            std::borrow::Cow::Borrowed(name)
        } else {
            let Some(property) = escaping::unescape(name) else {
                return Ok(None);
            };
            // Only the escaped spelling names a field (`x__dash__y`, not `x-y`), except that a
            // reserved word is found under its plain name too (`namespace`, 1.31+).
            if escaping::escape(&property).as_deref() != Some(name) && !escaping::is_reserved(name)
            {
                return Ok(None);
            }
            property
        };
        let Some(prop_schema) = self.schema.properties.get(property.as_ref()) else {
            return Ok(None);
        };
        match self.obj.get(property.as_ref()) {
            None | Some(Json::Null) => Ok(None),
            Some(node) => to_value(node, prop_schema).map(Some),
        }
    }

    /// The CEL key under which a raw JSON key is exposed.
    fn key_of(&self, raw: &str) -> Option<Key> {
        if self.schema.properties.contains_key(raw) {
            escaping::escape(raw).map(|e| Key::String(e.as_ref().into()))
        } else {
            Some(Key::String(raw.into()))
        }
    }
}

impl MapProvider for ObjectView {
    fn len(&self) -> usize {
        self.obj.len()
    }

    fn get(&self, key: KeyRef<'_>) -> Option<Value> {
        let KeyRef::String(name) = key else {
            return None;
        };
        if let Some(v) = self.field(name) {
            return Some(v);
        }
        // An undeclared key, by its raw name.
        if self.schema.properties.contains_key(name) {
            return None;
        }
        match self.obj.get(name) {
            None | Some(Json::Null) => None,
            Some(node) => Some(Value::Opaque(Arc::new(Unknown(node.clone())))),
        }
    }

    fn field(&self, name: &str) -> Option<Value> {
        self.try_field(name).ok().flatten()
    }

    fn keys(&self) -> Box<dyn Iterator<Item = Key> + '_> {
        Box::new(
            self.obj
                .iter()
                .filter(|(_, v)| !matches!(v, Json::Null))
                .filter_map(|(k, _)| self.key_of(k)),
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
            let Some(key) = self.key_of(raw) else {
                continue;
            };
            let Key::String(k) = &key else { continue };
            let left = if matches!(node, Json::Null) {
                None
            } else {
                self.get(KeyRef::String(k))
            };
            let right = other.get(KeyRef::String(k));
            match (left, right) {
                (None, None) => {}
                (Some(l), Some(r)) if l.equals(&r) => {}
                _ => return Some(false),
            }
        }
        Some(true)
    }
}

/// A JSON object read with `additionalProperties`: every key, unescaped, values typed by the
/// value schema; a missing key is absent.
#[derive(Clone, Debug)]
pub struct MapView {
    obj: Arc<JsonObject>,
    values: Arc<Structural>,
}

impl MapView {
    pub fn new(obj: Arc<JsonObject>, values: Arc<Structural>) -> Self {
        MapView { obj, values }
    }

    /// The value under `key` with the conversion error if its data does not fit the schema.
    pub fn try_get(&self, key: &str) -> Result<Option<Value>, super::ValueError> {
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
        let KeyRef::String(k) = key else { return None };
        self.try_get(k).ok().flatten()
    }

    fn keys(&self) -> Box<dyn Iterator<Item = Key> + '_> {
        Box::new(self.obj.keys().map(|k| Key::String(k.clone())))
    }
}
