//! [`ProtoTypes`] as the checker's and planner's type provider: cel-go's
//! `common/types/pb/type.go` (`FieldType`: protobuf field → CEL type) and
//! `common/types/provider.go` (`FindStructType`, `FindStructFieldType`,
//! `EnumValue`, `NewValue`).

use prost_reflect::{FieldDescriptor, Kind, MessageDescriptor};

use super::enums::{enum_to_cel, enum_type};
use super::{EnumMode, ProtoTypes, convert};
use crate::checker::TypeProvider;
use crate::checker::names::well_known_type;
use crate::error::EvalResult;
use crate::types::Type;
use crate::value::Value;

/// The full name of `google.protobuf.NullValue`, an enum CEL reads as `null`.
pub(super) const NULL_VALUE: &str = "google.protobuf.NullValue";

impl TypeProvider for ProtoTypes {
    fn find_type(&self, name: &str) -> Option<Type> {
        let Some(desc) = self.pool.get_message_by_name(name) else {
            // Strong enums are types too (`type(x) == pkg.E`).
            let e = self.pool.get_enum_by_name(name)?;
            return (self.enums == EnumMode::Strong && name != NULL_VALUE)
                .then(|| enum_type(&e, self.enums));
        };
        if desc.is_map_entry() {
            return None;
        }
        Some(well_known_type(name).unwrap_or_else(|| Type::object(name)))
    }

    fn field_type(&self, type_name: &str, field: &str) -> Option<Type> {
        let desc = self.pool.get_message_by_name(type_name)?;
        let f = find_field(&desc, field)?;
        Some(field_type(&f.kind(), f.is_list(), f.is_map(), self.enums))
    }

    fn field_names(&self, type_name: &str) -> Vec<String> {
        self.pool
            .get_message_by_name(type_name)
            .map(|d| d.fields().map(|f| f.name().to_string()).collect())
            .unwrap_or_default()
    }

    fn enum_value(&self, name: &str) -> Option<i64> {
        let (enum_name, value) = name.rsplit_once('.')?;
        let e = self.pool.get_enum_by_name(enum_name)?;
        Some(i64::from(e.get_value_by_name(value)?.number()))
    }

    fn enum_constant(&self, name: &str) -> Option<(Type, Value)> {
        let (enum_name, value) = name.rsplit_once('.')?;
        let e = self.pool.get_enum_by_name(enum_name)?;
        let n = e.get_value_by_name(value)?.number();
        // `NullValue.NULL_VALUE` stays the int 0 in both modes (see `field_type`).
        let mode = if enum_name == NULL_VALUE {
            EnumMode::Legacy
        } else {
            self.enums
        };
        Some((enum_type(&e, mode), enum_to_cel(&e, n, mode)))
    }

    fn new_object(&self, type_name: &str, fields: &[(&str, Value)]) -> Option<EvalResult> {
        let desc = self.pool.get_message_by_name(type_name)?;
        Some(
            convert::new_message(&desc, fields)
                .and_then(|m| convert::message_to_cel(&m, self.enums)),
        )
    }
}

/// A field of `desc` by name, or an extension of it by fully qualified name
/// (`pkg.ext`, as `proto.getExt` selects it).
pub(super) fn find_field(desc: &MessageDescriptor, name: &str) -> Option<Field> {
    if let Some(f) = desc.get_field_by_name(name) {
        return Some(Field::Plain(f));
    }
    let ext = desc.parent_pool().get_extension_by_name(name)?;
    (ext.containing_message().full_name() == desc.full_name()).then_some(Field::Extension(ext))
}

/// A field or an extension.
#[derive(Clone)]
pub(super) enum Field {
    Plain(FieldDescriptor),
    Extension(prost_reflect::ExtensionDescriptor),
}

impl Field {
    pub(super) fn kind(&self) -> Kind {
        match self {
            Field::Plain(f) => f.kind(),
            Field::Extension(e) => e.kind(),
        }
    }

    pub(super) fn is_list(&self) -> bool {
        match self {
            Field::Plain(f) => f.is_list(),
            Field::Extension(e) => e.is_list(),
        }
    }

    pub(super) fn is_map(&self) -> bool {
        match self {
            Field::Plain(f) => f.is_map(),
            Field::Extension(e) => e.is_map(),
        }
    }
}

/// The CEL type of a field of kind `kind` (cel-go's `FieldType`): repeated
/// fields are lists, map fields maps, enums `int` or their own type (by
/// `enums`), well-known messages their CEL types.
pub(super) fn field_type(kind: &Kind, list: bool, map: bool, enums: EnumMode) -> Type {
    if map && let Kind::Message(entry) = kind {
        let k = entry.map_entry_key_field().kind();
        let v = entry.map_entry_value_field().kind();
        return Type::map(
            field_type(&k, false, false, enums),
            field_type(&v, false, false, enums),
        );
    }
    let t = match kind {
        Kind::Double | Kind::Float => Type::Double,
        Kind::Int32
        | Kind::Int64
        | Kind::Sint32
        | Kind::Sint64
        | Kind::Sfixed32
        | Kind::Sfixed64 => Type::Int,
        Kind::Uint32 | Kind::Uint64 | Kind::Fixed32 | Kind::Fixed64 => Type::Uint,
        Kind::Bool => Type::Bool,
        Kind::String => Type::String,
        Kind::Bytes => Type::Bytes,
        // Legacy enums are `int` (cel-go's only mode). `NullValue` is `int`
        // in both modes: its constant `NullValue.NULL_VALUE` is the int 0.
        Kind::Enum(e) if e.full_name() == NULL_VALUE => Type::Int,
        Kind::Enum(e) => enum_type(e, enums),
        Kind::Message(m) => {
            well_known_type(m.full_name()).unwrap_or_else(|| Type::object(m.full_name()))
        }
    };
    if list { Type::list(t) } else { t }
}
