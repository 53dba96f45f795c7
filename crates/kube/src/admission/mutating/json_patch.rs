//! RFC 6902 JSON Patch exactly as kube-apiserver applies a mutation's patch: with
//! `gopkg.in/evanphx/json-patch.v4` (v4.13.0, `patch.go`: `Patch.ApplyIndent` and the
//! `add`/`remove`/`replace`/`move`/`test`/`copy` methods, `findObject`, the containers'
//! `get`/`set`/`add`/`remove`), with its quirks and error texts:
//!
//! * a path's parent must exist; the last segment of an object path may be absent even for
//!   `replace` (it then adds), and `null` members count as absent;
//! * negative array indices count from the end; `-` appends for `add` only;
//! * `test` compares structurally, scalars by their JSON text (`1` and `1.0` differ; the
//!   caller passes documents and values with numbers as Go's encoders write them); a failed
//!   `test` is
//!   [`PatchError::TestFailed`], which the caller treats as "leave the object unchanged"
//!   (`json_patch.go`: `errors.Is(err, jsonpatch.ErrTestFailed)`).
//!
//! The `json-patch` crate applies RFC 6902 strictly (a `replace` of an absent member fails,
//! other texts), so the v4 behaviour is ported here instead.

use cel::go::fmt::quote;
use serde_json::Value;

/// One operation, as `json_patch.go` builds it from a `JSONPatch` value: `from` only when
/// non-empty, `value` only when set.
#[derive(Clone, Debug, PartialEq)]
pub struct Operation {
    /// `op`: `add`, `remove`, `replace`, `move`, `copy` or `test`.
    pub op: String,
    /// `path`: a JSON Pointer (RFC 6901).
    pub path: String,
    /// `from`: the source pointer of `move` and `copy`.
    pub from: Option<String>,
    /// `value`: the value of `add`, `replace` and `test`.
    pub value: Option<Value>,
}

/// The operations, as the errors name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `add`.
    Add,
    /// `remove`.
    Remove,
    /// `replace`.
    Replace,
    /// `move`.
    Move,
    /// `test`.
    Test,
    /// `copy`.
    Copy,
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Op::Add => "add",
            Op::Remove => "remove",
            Op::Replace => "replace",
            Op::Move => "move",
            Op::Test => "test",
            Op::Copy => "copy",
        })
    }
}

/// Why a patch does not apply, with evanphx/json-patch's texts (`patch.go`: the `errors.Wrapf`
/// of each operation method; `ErrMissing` prints `missing value`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// A `test` operation failed (`ErrTestFailed`): the caller leaves the object unchanged.
    #[error("testing value {path} failed: test failed")]
    TestFailed {
        /// The path tested.
        path: String,
    },
    /// An `op` that is none of the six (`Unexpected kind`).
    #[error("Unexpected kind: {0}")]
    UnknownOp(String),
    /// The parent of `path` does not exist (`findObject` found no container).
    #[error("{}", missing_path(*.op, .path))]
    MissingPath {
        /// The operation (`add`, `remove`, `replace` or `test`).
        op: Op,
        /// The operation's `path`.
        path: String,
    },
    /// `replace` of a member its container cannot hold (`doc is missing key`).
    #[error("replace operation does not apply: doc is missing key: {0}: missing value")]
    MissingKey(String),
    /// `replace` of the whole document by a scalar.
    #[error("replace operation value must be object or array: %!w(<nil>)")]
    RootNotContainer,
    /// `move` or `copy` without `from`.
    #[error("{0} operation failed to decode from: operation, missing from field: missing value")]
    NoFrom(Op),
    /// The parent of `from` does not exist.
    #[error("{op} operation does not apply: doc is missing from path: {from}: missing value")]
    MissingFrom {
        /// `move` or `copy`.
        op: Op,
        /// The operation's `from`.
        from: String,
    },
    /// The parent of a `move` or `copy` destination does not exist.
    #[error(
        "{op} operation does not apply: doc is missing destination path: {path}: missing value"
    )]
    MissingDestination {
        /// `move` or `copy`.
        op: Op,
        /// The operation's `path`.
        path: String,
    },
    /// The container refused the access (`error in <op> for path: '<at>': ...`). As in
    /// `patch.go`, `replace` reports itself as `remove`, and `move` names the decoded last
    /// segment of `from` for reading and removing.
    #[error("error in {op} for path: '{at}': {cause}")]
    Access {
        /// The operation word of the text.
        op: Op,
        /// The path (or key) of the text.
        at: String,
        /// What the container said.
        cause: AccessError,
    },
    /// `copy` could not read `from`.
    #[error("error in copy for from: '{from}': {cause}")]
    CopyFrom {
        /// The operation's `from`.
        from: String,
        /// What the container said.
        cause: AccessError,
    },
    /// `copy` could not add the value at `path`.
    #[error("error while adding value during copy: {0}")]
    CopyAdd(AccessError),
}

/// `<op> operation does not apply: ... missing path` as each method words it.
fn missing_path(op: Op, path: &str) -> String {
    match op {
        Op::Add | Op::Remove => {
            format!("{op} operation does not apply: doc is missing path: \"{path}\": {MISSING}")
        }
        Op::Test => format!("test operation does not apply: is missing path: {path}: {MISSING}"),
        Op::Replace | Op::Move | Op::Copy => {
            format!("{op} operation does not apply: doc is missing path: {path}: {MISSING}")
        }
    }
}

/// Why a container (`partialDoc`, `partialArray`) refused an access.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AccessError {
    /// The container is neither an object nor an array (`ErrMissing`).
    #[error("missing value")]
    Missing,
    /// The key is not an integer (`strconv.Atoi`'s error).
    #[error(transparent)]
    Atoi(#[from] AtoiError),
    /// The index is out of the array (`ErrInvalidIndex`).
    #[error("Unable to access invalid index: {0}: invalid index referenced")]
    InvalidIndex(i64),
    /// `add` at a key that is not an array index.
    #[error("value was not a proper array index: '{key}': {cause}")]
    NotAnIndex {
        /// The key.
        key: String,
        /// `strconv.Atoi`'s error.
        cause: AtoiError,
    },
    /// `remove` of an absent object member.
    #[error("Unable to remove nonexistent key: {0}: missing value")]
    NonexistentKey(String),
}

/// Go's `strconv.Atoi` error (`*strconv.NumError`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AtoiError {
    /// `ErrSyntax`.
    #[error("strconv.Atoi: parsing {}: invalid syntax", quote(.0))]
    Syntax(String),
    /// `ErrRange`.
    #[error("strconv.Atoi: parsing {}: value out of range", quote(.0))]
    Range(String),
}

const MISSING: &str = "missing value";

/// Applies `ops` to `doc` in order (`Patch.Apply`); on error, `doc` is left partly patched
/// (the caller discards it, as the server does).
pub fn apply(doc: &mut Value, ops: &[Operation]) -> Result<(), PatchError> {
    for op in ops {
        match op.op.as_str() {
            "add" => add(doc, op)?,
            "remove" => remove(doc, op)?,
            "replace" => replace(doc, op)?,
            "move" => move_op(doc, op)?,
            "test" => test(doc, op)?,
            "copy" => copy(doc, op)?,
            other => return Err(PatchError::UnknownOp(other.to_string())),
        }
    }
    Ok(())
}

/// `decodePatchKey`: `~1` → `/`, then `~0` → `~`, in one left-to-right pass.
fn decode_key(k: &str) -> String {
    let mut out = String::with_capacity(k.len());
    let mut rest = k;
    while let Some(i) = rest.find('~') {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        if let Some(r) = after.strip_prefix("~1") {
            out.push('/');
            rest = r;
        } else if let Some(r) = after.strip_prefix("~0") {
            out.push('~');
            rest = r;
        } else {
            out.push('~');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    out
}

/// Go's `strconv.Atoi` on a 64-bit platform, with its error texts.
fn atoi(s: &str) -> Result<i64, AtoiError> {
    let syntax = || AtoiError::Syntax(s.to_string());
    let (negative, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(syntax());
    }
    let magnitude: u128 = digits
        .bytes()
        .try_fold(0u128, |acc, b| {
            let next = acc * 10 + u128::from(b - b'0');
            // Anything past i64's range is out of range; stop growing.
            Some(next.min(u128::from(u64::MAX)))
        })
        .unwrap_or(u128::from(u64::MAX));
    let limit = if negative {
        u128::from(i64::MAX as u64) + 1
    } else {
        u128::from(i64::MAX as u64)
    };
    if magnitude > limit {
        return Err(AtoiError::Range(s.to_string()));
    }
    let m = magnitude as i128;
    Ok(if negative { -m } else { m } as i64)
}

/// An index of `len` elements for `get`/`set`/`remove`: negative counts from the end.
fn resolve_index(idx: i64, len: usize) -> Result<usize, AccessError> {
    let invalid = || AccessError::InvalidIndex(idx);
    let len_i = i64::try_from(len).unwrap_or(i64::MAX);
    let i = if idx < 0 {
        if idx < -len_i {
            return Err(invalid());
        }
        idx + len_i
    } else {
        idx
    };
    if i >= len_i {
        return Err(invalid());
    }
    usize::try_from(i).map_err(|_| invalid())
}

/// `findObject`: the container holding the path's last segment, and that segment decoded.
fn find_object<'a>(doc: &'a mut Value, path: &str) -> Option<(&'a mut Value, String)> {
    let split: Vec<&str> = path.split('/').collect();
    if split.len() < 2 {
        return None;
    }
    let mut cur = doc;
    for part in &split[1..split.len() - 1] {
        let key = decode_key(part);
        let next = match cur {
            Value::Object(m) => m.get_mut(&key)?,
            Value::Array(a) => {
                let i = resolve_index(atoi(&key).ok()?, a.len()).ok()?;
                &mut a[i]
            }
            _ => return None,
        };
        // A null member is a nil node; scalars do not decode into containers.
        if !matches!(next, Value::Object(_) | Value::Array(_)) {
            return None;
        }
        cur = next;
    }
    Some((cur, decode_key(split[split.len() - 1])))
}

/// The container's `get`: `Ok(None)` for an absent (or null) object member.
fn get(con: &Value, key: &str) -> Result<Option<Value>, AccessError> {
    match con {
        Value::Object(m) => Ok(m.get(key).filter(|v| !v.is_null()).cloned()),
        Value::Array(a) => {
            let i = resolve_index(atoi(key)?, a.len())?;
            Ok(Some(a[i].clone()).filter(|v| !v.is_null()))
        }
        _ => Err(AccessError::Missing),
    }
}

/// The container's `add` (`partialDoc.add` sets; `partialArray.add` inserts, `-` appends).
fn add_at(con: &mut Value, key: &str, val: Value) -> Result<(), AccessError> {
    match con {
        Value::Object(m) => {
            m.insert(key.to_string(), val);
            Ok(())
        }
        Value::Array(a) => {
            if key == "-" {
                a.push(val);
                return Ok(());
            }
            let idx = atoi(key).map_err(|cause| AccessError::NotAnIndex {
                key: key.to_string(),
                cause,
            })?;
            let invalid = || AccessError::InvalidIndex(idx);
            let size = i64::try_from(a.len()).unwrap_or(i64::MAX) + 1;
            if idx >= size {
                return Err(invalid());
            }
            let i = if idx < 0 {
                if idx < -size {
                    return Err(invalid());
                }
                idx + size
            } else {
                idx
            };
            let i = usize::try_from(i).map_err(|_| invalid())?;
            a.insert(i.min(a.len()), val);
            Ok(())
        }
        _ => Err(AccessError::Missing),
    }
}

/// The container's `set` (`replace`).
fn set_at(con: &mut Value, key: &str, val: Value) -> Result<(), AccessError> {
    match con {
        Value::Object(m) => {
            m.insert(key.to_string(), val);
            Ok(())
        }
        Value::Array(a) => {
            let idx = atoi(key)?;
            let len = i64::try_from(a.len()).unwrap_or(i64::MAX);
            if idx < -len {
                return Err(AccessError::InvalidIndex(idx));
            }
            let i = resolve_index(idx, a.len())?;
            a[i] = val;
            Ok(())
        }
        _ => Err(AccessError::Missing),
    }
}

/// The container's `remove`.
fn remove_at(con: &mut Value, key: &str) -> Result<Value, AccessError> {
    match con {
        Value::Object(m) => m
            .shift_remove(key)
            .ok_or_else(|| AccessError::NonexistentKey(key.to_string())),
        Value::Array(a) => {
            let i = resolve_index(atoi(key)?, a.len())?;
            Ok(a.remove(i))
        }
        _ => Err(AccessError::Missing),
    }
}

/// The value an operation carries (`null` when it has none: a nil node marshals as `null`).
fn op_value(op: &Operation) -> Value {
    op.value.clone().unwrap_or(Value::Null)
}

/// The container's error at `at` for the text of `op`.
fn access(op: Op, at: &str) -> impl FnOnce(AccessError) -> PatchError {
    move |cause| PatchError::Access {
        op,
        at: at.to_string(),
        cause,
    }
}

fn missing_path_of(op: Op, path: &str) -> PatchError {
    PatchError::MissingPath {
        op,
        path: path.to_string(),
    }
}

fn add(doc: &mut Value, op: &Operation) -> Result<(), PatchError> {
    let path = &op.path;
    let Some((con, key)) = find_object(doc, path) else {
        return Err(missing_path_of(Op::Add, path));
    };
    add_at(con, &key, op_value(op)).map_err(access(Op::Add, path))
}

fn remove(doc: &mut Value, op: &Operation) -> Result<(), PatchError> {
    let path = &op.path;
    let Some((con, key)) = find_object(doc, path) else {
        return Err(missing_path_of(Op::Remove, path));
    };
    remove_at(con, &key)
        .map(drop)
        .map_err(access(Op::Remove, path))
}

fn replace(doc: &mut Value, op: &Operation) -> Result<(), PatchError> {
    let path = &op.path;
    if path.is_empty() {
        let val = op_value(op);
        if !matches!(val, Value::Object(_) | Value::Array(_)) {
            return Err(PatchError::RootNotContainer);
        }
        *doc = val;
        return Ok(());
    }
    let Some((con, key)) = find_object(doc, path) else {
        return Err(missing_path_of(Op::Replace, path));
    };
    if get(con, &key).is_err() {
        return Err(PatchError::MissingKey(path.clone()));
    }
    // `patch.go` words a failed replace as a remove.
    set_at(con, &key, op_value(op)).map_err(access(Op::Remove, path))
}

fn move_op(doc: &mut Value, op: &Operation) -> Result<(), PatchError> {
    let from = op.from.as_deref().ok_or(PatchError::NoFrom(Op::Move))?;
    let Some((con, key)) = find_object(doc, from) else {
        return Err(PatchError::MissingFrom {
            op: Op::Move,
            from: from.to_string(),
        });
    };
    let val = get(con, &key)
        .map_err(access(Op::Move, &key))?
        .unwrap_or(Value::Null);
    remove_at(con, &key).map_err(access(Op::Move, &key))?;
    let path = &op.path;
    let Some((con, key)) = find_object(doc, path) else {
        return Err(PatchError::MissingDestination {
            op: Op::Move,
            path: path.clone(),
        });
    };
    add_at(con, &key, val).map_err(access(Op::Move, path))
}

fn test(doc: &mut Value, op: &Operation) -> Result<(), PatchError> {
    let path = &op.path;
    let test_failed = || PatchError::TestFailed { path: path.clone() };
    if path.is_empty() {
        return match &op.value {
            Some(v) if equal(doc, v) => Ok(()),
            _ => Err(test_failed()),
        };
    }
    let Some((con, key)) = find_object(doc, path) else {
        return Err(missing_path_of(Op::Test, path));
    };
    let val = get(con, &key).map_err(access(Op::Test, path))?;
    match (val, &op.value) {
        (None, None) => Ok(()),
        (Some(v), Some(expected)) if equal(&v, expected) => Ok(()),
        _ => Err(test_failed()),
    }
}

fn copy(doc: &mut Value, op: &Operation) -> Result<(), PatchError> {
    let from = op.from.as_deref().ok_or(PatchError::NoFrom(Op::Copy))?;
    let Some((con, key)) = find_object(doc, from) else {
        return Err(PatchError::MissingFrom {
            op: Op::Copy,
            from: from.to_string(),
        });
    };
    let val = get(con, &key)
        .map_err(|cause| PatchError::CopyFrom {
            from: from.to_string(),
            cause,
        })?
        .unwrap_or(Value::Null);
    let path = &op.path;
    let Some((con, key)) = find_object(doc, path) else {
        return Err(PatchError::MissingDestination {
            op: Op::Copy,
            path: path.clone(),
        });
    };
    add_at(con, &key, val).map_err(PatchError::CopyAdd)
}

/// `lazyNode.equal`: objects and arrays member by member, scalars by their compact JSON text.
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    y.get(k)
                        .is_some_and(|w| (v.is_null() && w.is_null()) || equal(v, w))
                })
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| equal(v, w))
        }
        (Value::Number(x), Value::Number(y)) => x.to_string() == y.to_string(),
        (x, y) => x == y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn op(op: &str, path: &str, from: Option<&str>, value: Option<Value>) -> Operation {
        Operation {
            op: op.into(),
            path: path.into(),
            from: from.map(Into::into),
            value,
        }
    }

    #[test]
    fn go_atoi() {
        assert_eq!(atoi("+7"), Ok(7));
        assert_eq!(atoi("-3"), Ok(-3));
        assert_eq!(
            atoi("-").unwrap_err().to_string(),
            "strconv.Atoi: parsing \"-\": invalid syntax"
        );
        assert_eq!(
            atoi("99999999999999999999").unwrap_err().to_string(),
            "strconv.Atoi: parsing \"99999999999999999999\": value out of range"
        );
        assert_eq!(atoi("-9223372036854775808"), Ok(i64::MIN));
    }

    #[test]
    fn keys_decode_once() {
        assert_eq!(decode_key("a~1b~0c~01"), "a/b~c~1");
    }

    #[test]
    fn v4_quirks() {
        let mut doc = json!({"a": {"x": 1}, "l": [1, 2, 3]});
        // replace of an absent member adds it.
        apply(&mut doc, &[op("replace", "/a/y", None, Some(json!(2)))]).unwrap();
        assert_eq!(doc["a"]["y"], 2);
        // negative indices count from the end.
        apply(&mut doc, &[op("remove", "/l/-1", None, None)]).unwrap();
        assert_eq!(doc["l"], json!([1, 2]));
        let e = apply(&mut doc, &[op("add", "/l/5", None, Some(json!(0)))]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "error in add for path: '/l/5': Unable to access invalid index: 5: invalid index referenced"
        );
        let e = apply(&mut doc, &[op("test", "/a/x", None, Some(json!(2)))]).unwrap_err();
        assert!(matches!(e, PatchError::TestFailed { .. }));
        let e = apply(&mut doc, &[op("remove", "/b/c", None, None)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "remove operation does not apply: doc is missing path: \"/b/c\": missing value"
        );
    }
}
