//! Map keys. CEL map keys are bool, int, uint or string; an int and a uint of
//! the same numeric value are the same key.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use indexmap::Equivalent;

/// An owned map key.
#[derive(Clone, Debug)]
pub enum Key {
    /// A `bool` key.
    Bool(bool),
    /// An `int` key.
    Int(i64),
    /// A `uint` key.
    Uint(u64),
    /// A `string` key.
    String(Arc<str>),
}

/// A borrowed map key, for lookups that must not allocate.
#[derive(Clone, Copy, Debug)]
pub enum KeyRef<'a> {
    /// A `bool` key.
    Bool(bool),
    /// An `int` key.
    Int(i64),
    /// A `uint` key.
    Uint(u64),
    /// A `string` key.
    String(&'a str),
}

impl Key {
    /// The key, borrowed.
    pub fn as_ref(&self) -> KeyRef<'_> {
        match self {
            Key::Bool(b) => KeyRef::Bool(*b),
            Key::Int(i) => KeyRef::Int(*i),
            Key::Uint(u) => KeyRef::Uint(*u),
            Key::String(s) => KeyRef::String(s),
        }
    }

    /// The key as a value.
    pub fn to_value(&self) -> crate::Value {
        match self {
            Key::Bool(b) => crate::Value::Bool(*b),
            Key::Int(i) => crate::Value::Int(*i),
            Key::Uint(u) => crate::Value::Uint(*u),
            Key::String(s) => crate::Value::String(s.clone()),
        }
    }
}

impl KeyRef<'_> {
    /// The key, owned.
    pub fn to_owned_key(&self) -> Key {
        match *self {
            KeyRef::Bool(b) => Key::Bool(b),
            KeyRef::Int(i) => Key::Int(i),
            KeyRef::Uint(u) => Key::Uint(u),
            KeyRef::String(s) => Key::String(s.into()),
        }
    }

    /// The key a value stands for in a lookup: doubles with an integral value
    /// find the int or uint key of that value (cel-go's heterogeneous lookup).
    pub fn from_value(v: &crate::Value) -> Option<KeyRef<'_>> {
        use crate::Value;
        match v {
            Value::Bool(b) => Some(KeyRef::Bool(*b)),
            Value::Int(i) => Some(KeyRef::Int(*i)),
            Value::Uint(u) => Some(KeyRef::Uint(*u)),
            Value::String(s) => Some(KeyRef::String(s)),
            Value::Double(d) => {
                if d.fract() != 0.0 || !d.is_finite() {
                    None
                } else if *d >= -9.223_372_036_854_776e18 && *d < 9.223_372_036_854_776e18 {
                    Some(KeyRef::Int(*d as i64))
                } else if *d >= 0.0 && *d < 1.844_674_407_370_955_2e19 {
                    Some(KeyRef::Uint(*d as u64))
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// Normal form: a uint that fits in an int compares and hashes as that int.
    fn normal(&self) -> KeyRef<'_> {
        match *self {
            KeyRef::Uint(u) if u <= i64::MAX as u64 => KeyRef::Int(u as i64),
            other => other,
        }
    }
}

impl PartialEq for KeyRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self.normal(), other.normal()) {
            (KeyRef::Bool(a), KeyRef::Bool(b)) => a == b,
            (KeyRef::Int(a), KeyRef::Int(b)) => a == b,
            (KeyRef::Uint(a), KeyRef::Uint(b)) => a == b,
            (KeyRef::String(a), KeyRef::String(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for KeyRef<'_> {}

impl Hash for KeyRef<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self.normal() {
            KeyRef::Bool(b) => {
                0u8.hash(state);
                b.hash(state)
            }
            KeyRef::Int(i) => {
                1u8.hash(state);
                i.hash(state)
            }
            KeyRef::Uint(u) => {
                2u8.hash(state);
                u.hash(state)
            }
            KeyRef::String(s) => {
                3u8.hash(state);
                s.hash(state)
            }
        }
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.as_ref() == other.as_ref()
    }
}

impl Eq for Key {}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_ref().hash(state)
    }
}

impl Equivalent<Key> for KeyRef<'_> {
    fn equivalent(&self, key: &Key) -> bool {
        *self == key.as_ref()
    }
}

impl From<&str> for Key {
    fn from(s: &str) -> Self {
        Key::String(s.into())
    }
}
