//! Values of types defined by libraries.

use std::any::Any;
use std::cmp::Ordering;
use std::fmt;

use crate::types::Type;

/// A value of a library-defined type (Kubernetes' `Quantity`, `IP`, `CIDR`,
/// `URL`, `Semver`; the network extension's `net.IP`).
pub trait Opaque: fmt::Debug + Send + Sync + Any {
    /// The runtime type name, as `type(v)` shows it.
    fn type_name(&self) -> &str;

    /// The runtime type.
    fn runtime_type(&self) -> Type {
        Type::opaque(self.type_name(), Vec::new())
    }

    /// Equality with another opaque value (false for other types).
    fn equals(&self, other: &dyn Opaque) -> bool;

    /// Ordering, for types that have one.
    fn compare(&self, _other: &dyn Opaque) -> Option<Ordering> {
        None
    }

    /// Field selection `v.name`: `None` when the type has no fields (the
    /// caller reports that), `Some(Err)` for a field it does not have.
    fn select(&self, _name: &str) -> Option<crate::error::EvalResult> {
        None
    }

    /// The presence test `has(v.name)`, `None` when the type has no fields.
    fn has(&self, _name: &str) -> Option<crate::error::EvalResult<bool>> {
        None
    }

    /// True for the zero value of the type (`optional.ofNonZeroValue`).
    fn is_zero(&self) -> bool {
        false
    }

    /// The value's JSON form (`Value::to_json`), for types that have one
    /// (protobuf messages: the protobuf JSON mapping); `None`: none.
    fn to_json(&self) -> Option<crate::error::EvalResult<serde_json::Value>> {
        None
    }

    /// For downcasting in library functions.
    fn as_any(&self) -> &dyn Any;

    /// How the value prints (`kcel eval` output, messages).
    fn display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}
