//! A protobuf message as a CEL value: cel-go's `protoObj`
//! (`common/types/object.go`): field selection through the descriptor,
//! `has()` by presence, equality as `proto.Equal`.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use prost_reflect::{DynamicMessage, Kind, ReflectMessage, Value as PValue};

use super::convert;
use super::enums::EnumMode;
use super::provider::{Field, find_field};
use crate::error::{EvalError, EvalResult};
use crate::types::Type;
use crate::value::Opaque;

/// A message that is not a well-known type.
#[derive(Clone)]
pub struct Message {
    message: DynamicMessage,
    /// The type's full name (kept: `Opaque::type_name` lends it out).
    name: Arc<str>,
    /// How its enum fields read.
    enums: EnumMode,
}

impl Message {
    /// `message`, its enums read as `int`s.
    pub fn new(message: DynamicMessage) -> Self {
        Self::with_enum_mode(message, EnumMode::Legacy)
    }

    /// `message`, its enums read as `enums` says.
    pub fn with_enum_mode(message: DynamicMessage, enums: EnumMode) -> Self {
        let name = message.descriptor().full_name().into();
        Message {
            message,
            name,
            enums,
        }
    }

    /// The message's fully qualified type name.
    pub fn full_name(&self) -> &str {
        &self.name
    }

    /// The message.
    pub fn message(&self) -> &DynamicMessage {
        &self.message
    }

    fn field(&self, name: &str) -> EvalResult<Field> {
        find_field(&self.message.descriptor(), name)
            .ok_or_else(|| EvalError::msg(format!("no such field '{name}'")))
    }
}

/// As the value prints (`prost-reflect`'s own `Debug` prints descriptors,
/// endlessly for recursive message types).
impl fmt::Debug for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.display(f)
    }
}

impl Opaque for Message {
    fn type_name(&self) -> &str {
        self.full_name()
    }

    fn runtime_type(&self) -> Type {
        Type::object(self.full_name())
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<Message>()
            .is_some_and(|o| messages_equal(&self.message, &o.message))
    }

    fn select(&self, name: &str) -> Option<EvalResult> {
        Some(
            self.field(name)
                .and_then(|f| convert::read_field(&self.message, &f, self.enums)),
        )
    }

    fn has(&self, name: &str) -> Option<EvalResult<bool>> {
        Some(self.field(name).map(|f| match &f {
            Field::Plain(d) => self.message.has_field(d),
            Field::Extension(e) => self.message.has_extension(e),
        }))
    }

    /// A message with no field set (cel-go's `IsZeroValue`: `proto.Size == 0`).
    fn is_zero(&self) -> bool {
        self.message.fields().next().is_none() && self.message.extensions().next().is_none()
    }

    /// The protobuf JSON mapping (`prost-reflect`'s: field names in
    /// lowerCamelCase, 64-bit integers as strings, enums by name, well-known
    /// types in their JSON forms, `Any` with `@type`).
    fn to_json(&self) -> Option<EvalResult<serde_json::Value>> {
        let options = prost_reflect::SerializeOptions::new();
        Some(
            self.message
                .serialize_with_options(serde_json::value::Serializer, &options)
                .map_err(|e| EvalError::msg(format!("cannot convert {} to JSON: {e}", self.name))),
        )
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // CEL construction syntax: `pkg.T{field: value, ...}`, set fields
        // in number order, then extensions by full name.
        write!(f, "{}{{", self.full_name())?;
        let fields = self.message.fields().map(|(d, _)| Field::Plain(d));
        let extensions = self.message.extensions().map(|(e, _)| Field::Extension(e));
        for (i, field) in fields.chain(extensions).enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match &field {
                Field::Plain(d) => f.write_str(d.name())?,
                Field::Extension(e) => f.write_str(e.full_name())?,
            }
            match convert::read_field(&self.message, &field, self.enums) {
                Ok(v) => write!(f, ": {v}")?,
                Err(e) => write!(f, ": <{}>", e.message())?,
            }
        }
        f.write_str("}")
    }
}

/// `proto.Equal`: the same type, the same fields present with equal values
/// (floating-point fields by IEEE equality, so NaN differs from itself).
pub(super) fn messages_equal(a: &DynamicMessage, b: &DynamicMessage) -> bool {
    let desc = a.descriptor();
    if desc.full_name() != b.descriptor().full_name() {
        return false;
    }
    for f in desc.fields() {
        let (ha, hb) = (a.has_field(&f), b.has_field(&f));
        if ha != hb || (ha && !values_equal(&a.get_field(&f), &b.get_field(&f))) {
            return false;
        }
    }
    let ext_a: Vec<_> = a.extensions().collect();
    let ext_b: Vec<_> = b.extensions().collect();
    ext_a.len() == ext_b.len()
        && ext_a.iter().all(|(e, v)| {
            ext_b
                .iter()
                .any(|(e2, v2)| e2.full_name() == e.full_name() && values_equal(v, v2))
        })
}

fn values_equal(a: &PValue, b: &PValue) -> bool {
    match (a, b) {
        (PValue::Message(x), PValue::Message(y)) => messages_equal(x, y),
        (PValue::List(x), PValue::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| values_equal(x, y))
        }
        (PValue::Map(x), PValue::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| values_equal(v, w)))
        }
        _ => a == b,
    }
}

/// True when `kind` is a message kind named `name`.
pub(super) fn is_message(kind: &Kind, name: &str) -> bool {
    matches!(kind, Kind::Message(m) if m.full_name() == name)
}
