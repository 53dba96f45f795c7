//! A request body as the pipeline takes it: a `serde_json` value, converted on entry
//! ([`super::decode::from_serde_owned`]), or a [`JsonBody`] a reader built straight into the
//! pipeline's tree, taken as it is.

use serde_json::Value;

use super::decode::{self, TooDeep};
use crate::documents::pointer_str;
use crate::values::{Json, JsonBody};

/// A request body.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// A `serde_json` value (converted once on entry).
    Serde(Value),
    /// A [`Json`] tree with what its reader noted.
    Json(JsonBody),
}

impl Body {
    /// The tree the pipeline works on and whether it may hold a `null`; [`TooDeep`] when it
    /// nests deeper than the request decoder accepts
    /// ([`decode::MAX_REQUEST_BODY_DEPTH`]).
    pub(crate) fn decode(self) -> Result<(Json, bool), TooDeep> {
        match self {
            Body::Serde(v) => decode::from_serde_owned(v),
            Body::Json(b) => b.into_checked().ok_or(TooDeep),
        }
    }

    /// The string at `pointer` (`/metadata/name`), when there is one.
    pub fn str_at(&self, pointer: &str) -> Option<&str> {
        match self {
            Body::Serde(v) => pointer_str(v, pointer),
            Body::Json(b) => crate::documents::json_pointer_str(b.json(), pointer),
        }
    }

    /// The body as `serde_json` (exact: a [`JsonBody`] keeps the exact form of integers beyond
    /// int64).
    pub fn into_serde(self) -> Value {
        match self {
            Body::Serde(v) => v,
            Body::Json(b) => b.into_serde(),
        }
    }
}

impl From<Value> for Body {
    fn from(v: Value) -> Body {
        Body::Serde(v)
    }
}

impl From<JsonBody> for Body {
    fn from(b: JsonBody) -> Body {
        Body::Json(b)
    }
}

impl From<Json> for Body {
    fn from(j: Json) -> Body {
        Body::Json(JsonBody::new(j))
    }
}
