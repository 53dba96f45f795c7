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
        let property = if escaping::is_plain_identifier(name) {
            // Its own escaped spelling (or a reserved word, found under its plain name too):
            // the common case, without the round trip below.
            Cow::Borrowed(name)
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
        let Some(prop_schema) = self.schema.properties.lookup(property.as_ref()) else {
            return Ok(None);
        };
        match self.obj.get(property.as_ref()) {
            None | Some(Json::Null) => Ok(None),
            Some(node) => to_value(node, prop_schema).map(Some),
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
