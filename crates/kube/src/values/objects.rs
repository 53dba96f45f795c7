//! Object and map views of JSON objects.

use std::borrow::Cow;
use std::sync::Arc;

use cel::value::{Key, KeyRef, Map, MapProvider, names_equal};
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

    /// Where field `name` (CEL, escaped) is, looked up where `hint` says first (a property
    /// position and a JSON entry position, see [`pack_hint`]): its JSON node (not null), its
    /// property schema and the hint to keep. `None` when the field is absent, null or
    /// undeclared, as [`ObjectView::read_field`] finds it.
    fn locate(&self, name: &str, hint: usize) -> Option<(&Json, &Arc<Structural>, usize)> {
        let (prop_at, json_at, own_name) = unpack_hint(hint);
        let properties = &self.schema.properties;
        // The hint holds: the property and the entry of the name's own spelling, where the
        // last read found them (the hint is kept as is).
        if own_name
            && let Some((key, prop_schema)) = properties.get_index(prop_at)
            && names_equal(key, name)
            && let Some((entry, node)) = self.obj.get_index(json_at)
            && names_equal(entry, name)
        {
            return match node {
                Json::Null => None,
                node => Some((node, prop_schema, hint)),
            };
        }
        // The property: at the hinted position when the site's name is known to select the
        // property of its own spelling (the flag) and that property is there.
        let (prop_at, prop_schema, property) = match properties.get_index(prop_at) {
            Some((key, prop_schema)) if own_name && names_equal(key, name) => {
                (prop_at, prop_schema, Cow::Borrowed(name))
            }
            _ => {
                let property = property_of(name)?;
                let prop_at = properties.lookup_index(property.as_ref())?;
                (prop_at, properties.get_index(prop_at)?.1, property)
            }
        };
        let own_name = match &property {
            // `property_of` borrows the name itself for a plain identifier, a part of it for an
            // escaped reserved word.
            Cow::Borrowed(p) => p.len() == name.len(),
            Cow::Owned(p) => names_equal(p, name),
        };
        // The entry: at the hinted position, else searched in order among the first entries
        // (remembering where), else looked up.
        let (node, json_at) = match self.obj.get_index(json_at) {
            Some((key, node)) if names_equal(key, &property) => (node, json_at),
            _ => match self
                .obj
                .iter()
                .take(HINT_SEARCH_MAX)
                .position(|(k, _)| names_equal(k, &property))
            {
                Some(at) => (self.obj.get_index(at)?.1, at),
                // Searched whole: absent.
                None if self.obj.len() <= HINT_SEARCH_MAX => return None,
                None => (self.obj.get(property.as_ref())?, json_at),
            },
        };
        match node {
            Json::Null => None,
            node => Some((node, prop_schema, pack_hint(prop_at, json_at, own_name))),
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
        let (node, schema, hint) = self.locate(name, hint)?;
        to_value(node, schema).ok().map(|v| (v, hint))
    }

    fn try_field_hinted(&self, name: &str, hint: usize) -> EvalResult<(Option<Value>, usize)> {
        match self.locate(name, hint) {
            None => Ok((None, hint)),
            Some((node, schema, hint)) => match to_value(node, schema) {
                Ok(v) => Ok((Some(v), hint)),
                Err(e) => Err(e.to_eval_error()),
            },
        }
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
    // `__<reserved word>__` is that word's escaped spelling.
    if let Some(word) = name.strip_prefix("__").and_then(|s| s.strip_suffix("__"))
        && escaping::is_reserved(word)
    {
        return Some(Cow::Borrowed(word));
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
/// position in the JSON object in the high half below the top bit (positions past a half do not
/// fit and miss), and in the top bit whether the site's CEL name selects the property of its own
/// spelling (a plain identifier: `property_of` is the name itself). Only [`ObjectView`] sets
/// that bit; the other hints a site may hold (0 at first, a plain map's entry position) never
/// have it, so a hint with it set was made for the same name.
fn pack_hint(prop_at: usize, json_at: usize, own_name: bool) -> usize {
    let half = usize::BITS / 2;
    let low = (1usize << half) - 1;
    let high = (1usize << (half - 1)) - 1;
    (prop_at & low) | ((json_at & high) << half) | (usize::from(own_name) << (usize::BITS - 1))
}

/// The positions and the flag of a [`pack_hint`] hint.
fn unpack_hint(hint: usize) -> (usize, usize, bool) {
    let half = usize::BITS / 2;
    let low = (1usize << half) - 1;
    let high = (1usize << (half - 1)) - 1;
    (
        hint & low,
        (hint >> half) & high,
        hint >> (usize::BITS - 1) == 1,
    )
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::schema_props::JsonSchemaProps;

    fn view(doc: serde_json::Value, schema: &Arc<Structural>) -> ObjectView {
        let Json::Object(obj) = Json::from_serde(&doc).expect("json") else {
            panic!("not an object");
        };
        ObjectView::new(obj, schema.clone())
    }

    /// A read's outcome in comparable form: the value's debug text or the error's.
    fn outcome(r: EvalResult<Option<Value>>) -> String {
        match r {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn hinted_reads_find_what_plain_reads_find_whatever_the_hint() {
        let props: JsonSchemaProps = serde_json::from_value(json!({
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "namespace": {"type": "string"},
                "x-y": {"type": "integer"},
                "__if__": {"type": "string"},
                "if": {"type": "string"},
                "b": {"type": "integer"},
                "o": {"type": "object", "properties": {"c": {"type": "string"}}},
            }
        }))
        .expect("props");
        let schema = Arc::new(Structural::from_props(&props).expect("structural"));
        let docs = [
            json!({"a": "1", "namespace": "ns", "x-y": 3, "b": 4, "o": {"c": "x"}}),
            json!({"o": {}, "b": 5, "x-y": 6, "namespace": "other", "a": "2"}),
            json!({"b": "not an int", "a": null, "__if__": "raw", "if": "word"}),
            json!({"u1": 1, "u2": 2, "u3": 3, "u4": 4, "u5": 5, "u6": 6, "u7": 7, "u8": 8,
                   "a": "late", "b": 9}),
            json!({}),
        ];
        let names = [
            "a",
            "namespace",
            "__namespace__",
            "x__dash__y",
            "x-y",
            "__if__",
            "if",
            "b",
            "o",
            "missing",
            "u1",
            "a__b",
        ];
        let views: Vec<ObjectView> = docs.iter().map(|d| view(d.clone(), &schema)).collect();
        for name in names {
            // Hints a site may hold: its first, plain maps' entry positions, and what reading
            // each document at that site left.
            let mut hints = vec![0, 1, 5, 100];
            for v in &views {
                for h in hints.clone() {
                    if let Some((_, found)) = v.field_hinted(name, h) {
                        hints.push(found);
                    }
                    if let Ok((_, found)) = v.try_field_hinted(name, h) {
                        hints.push(found);
                    }
                }
            }
            for v in &views {
                let expected = outcome(v.try_field(name));
                let expected_field = format!("{:?}", v.field(name));
                for &h in &hints {
                    let got = outcome(v.try_field_hinted(name, h).map(|(x, _)| x));
                    assert_eq!(got, expected, "try_field_hinted {name} hint {h:#x}");
                    let got = format!("{:?}", v.field_hinted(name, h).map(|(x, _)| x));
                    assert_eq!(got, expected_field, "field_hinted {name} hint {h:#x}");
                }
            }
        }
    }
}
