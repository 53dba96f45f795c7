//! The object a pipeline answers with ([`super::Response::object`]): the request's [`Json`]
//! tree as decoding, pruning, defaulting, preparation and validation left it (a body given as
//! `serde_json` was converted once on entry, `decode::from_serde_owned`). A caller that wants
//! `serde_json` gets it converted once, on first use; an object a caller holds as `serde_json`
//! is wrapped as it is (`From<Value>`).

use std::sync::OnceLock;

use serde_json::Value;

use crate::values::{Json, ValueError};

/// The object as it would be stored, in whichever tree the pipeline last held it.
#[derive(Clone, Debug)]
pub struct StoredObject {
    /// The CEL tree, when the rule step took the object over.
    json: Option<Json>,
    /// The `serde_json` tree: the pipeline's, or `json` converted on first use.
    value: OnceLock<Value>,
}

impl StoredObject {
    /// The object as `serde_json` (converted from the CEL tree on the first call).
    pub fn as_value(&self) -> &Value {
        self.value
            .get_or_init(|| self.json.as_ref().map_or(Value::Null, Json::to_serde))
    }

    /// The object as `serde_json`, taken.
    pub fn into_value(self) -> Value {
        match self.value.into_inner() {
            Some(v) => v,
            None => self.json.as_ref().map_or(Value::Null, Json::to_serde),
        }
    }

    /// The CEL tree, when the rule step built it.
    pub fn as_json(&self) -> Option<&Json> {
        self.json.as_ref()
    }

    /// The object as the rules read it: the CEL tree (shared, not copied), else the
    /// `serde_json` tree converted.
    pub fn to_json(&self) -> Result<Json, ValueError> {
        match &self.json {
            Some(j) => Ok(j.clone()),
            None => Json::from_serde(self.as_value()),
        }
    }

    /// The string under top-level `key`, read in whichever tree holds the object ("" when
    /// absent or not a string).
    pub(crate) fn str_field(&self, key: &str) -> &str {
        match (&self.json, self.value.get()) {
            (Some(j), _) => j.str_field(key),
            (None, Some(v)) => v.get(key).and_then(Value::as_str),
            (None, None) => None,
        }
        .unwrap_or("")
    }

    /// `metadata.<key>` as a string, read in whichever tree holds the object.
    pub(crate) fn meta_str(&self, key: &str) -> &str {
        match (&self.json, self.value.get()) {
            (Some(Json::Object(o)), _) => o.get("metadata").and_then(|m| m.str_field(key)),
            (Some(_), _) | (None, None) => None,
            (None, Some(v)) => v
                .get("metadata")
                .and_then(|m| m.get(key))
                .and_then(Value::as_str),
        }
        .unwrap_or("")
    }
}

impl From<Value> for StoredObject {
    fn from(value: Value) -> StoredObject {
        StoredObject {
            json: None,
            value: OnceLock::from(value),
        }
    }
}

impl From<Json> for StoredObject {
    fn from(json: Json) -> StoredObject {
        StoredObject {
            json: Some(json),
            value: OnceLock::new(),
        }
    }
}

/// Equal when the objects are equal as `serde_json`.
impl PartialEq for StoredObject {
    fn eq(&self, other: &StoredObject) -> bool {
        self.as_value() == other.as_value()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn both_trees_read_alike_and_convert_back_to_the_same_object() {
        let doc =
            json!({"kind": "W", "metadata": {"name": "n", "generation": 1}, "spec": {"x": 1.0}});
        let serde = StoredObject::from(doc.clone());
        let cel = StoredObject::from(Json::from_serde(&doc).expect("json"));
        for o in [&serde, &cel] {
            assert_eq!(o.str_field("kind"), "W");
            assert_eq!(o.str_field("spec"), "");
            assert_eq!(o.meta_str("name"), "n");
            assert_eq!(o.meta_str("generation"), "");
            assert_eq!(o.to_json(), Json::from_serde(&doc));
        }
        assert!(serde.as_json().is_none() && cel.as_json().is_some());
        assert_eq!(cel.as_value().to_string(), doc.to_string());
        assert_eq!(serde, cel);
        assert_eq!(cel.clone().into_value().to_string(), doc.to_string());
        assert_eq!(StoredObject::from(Json::Null).meta_str("name"), "");
    }
}
