//! ApplyConfiguration patches: server-side-apply merge without field ownership, as
//! `patch/smd.go` (`ApplyStructuredMergeDiff`, `validatePatch`, `findAtomics`) runs it over
//! `sigs.k8s.io/structured-merge-diff/v6`.
//!
//! The schema is the kind's OpenAPI schema read as `k8s.io/kube-openapi/pkg/schemaconv`
//! (`openapi.go`: `parseSchema`, `parseObject`, `parseList`; `smd.go`: `convertPrimitive`,
//! `getListElementRelationship`, `getMapElementRelationship`, the `__untyped_atomic_` and
//! `__untyped_deduced_` types) reads it: objects with `properties` are structs,
//! `additionalProperties` maps; `x-kubernetes-map-type: atomic` makes either atomic; lists are
//! atomic unless `x-kubernetes-list-type` says `set` or `map` (keyed by
//! `x-kubernetes-list-map-keys`). Then:
//!
//! * the patch is converted to a typed value (`typed/validate.go`: unknown fields are
//!   `field not declared in schema`, scalars checked by kind);
//! * it may not set atomic structs, maps or lists (`may not mutate atomic arrays, maps or
//!   structs: <paths>`);
//! * it is merged into the object (`typed/merge.go`, `ruleKeepRHS`): scalars and atomics are
//!   replaced, structs and maps merged member by member, associative lists merged item by
//!   item by key, in `visitListItems`' order.
//!
//! A custom resource's schema may leave out `apiVersion`, `kind` and `metadata`, which the
//! server's published OpenAPI adds (`ObjectMeta`); here they read as strings and, for
//! `metadata`, as a granular map whose lists are atomic.
//!
//! The shipped built-in schemas carry no `x-kubernetes-patch-strategy`/`-merge-key` (dropped
//! when they were packed), so lists marked only by those hints read as atomic here; in
//! Kubernetes 1.35 every such list of the core kinds also has `x-kubernetes-list-type`.

use std::collections::HashMap;

use cel::go::fmt::quote;
use serde_json::{Map, Value};

use crate::schema_props::{JsonSchemaProps, SchemaOrArray, SchemaOrBool};

/// How deep the typed conversion, the atomics search and the apply merge walk a value (and the
/// schema beside it): deeper values are a conversion or merge error, not a stack overflow.
const MAX_MERGE_DEPTH: usize = 200;

/// A type of the converted schema.
#[derive(Clone, Copy, Debug)]
enum Node<'a> {
    /// A schema node; `preserve`: inside `x-kubernetes-preserve-unknown-fields`.
    Schema(&'a JsonSchemaProps, bool),
    /// `__untyped_deduced_`: anything; maps granular, lists atomic.
    Deduced,
    /// `__untyped_atomic_`: anything, atomic.
    Untyped,
    /// No type (`schema.TypeRef{}`): a struct's element type when it has none.
    None,
    /// The resource root: the schema, plus what the published OpenAPI of every kind has even
    /// where a CRD's schema leaves it out (`apiVersion` and `kind` strings, `metadata` read as
    /// a granular map when the schema does not describe it).
    Root(&'a JsonSchemaProps),
    /// `apiVersion` and `kind` of a root that does not declare them.
    TypeMeta,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scalar {
    Numeric,
    String,
    Boolean,
    Untyped,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Relationship {
    /// Not set (a struct or map without `x-kubernetes-map-type`): merged member by member.
    Unset,
    Separable,
    Atomic,
    Associative,
}

#[derive(Clone, Debug)]
struct MapAtom<'a> {
    node: Node<'a>,
    relationship: Relationship,
}

#[derive(Clone, Debug)]
struct ListAtom<'a> {
    relationship: Relationship,
    keys: Vec<String>,
    element: Node<'a>,
}

#[derive(Clone, Debug, Default)]
struct Atom<'a> {
    scalar: Option<Scalar>,
    list: Option<ListAtom<'a>>,
    map: Option<MapAtom<'a>>,
}

fn items(s: &JsonSchemaProps) -> Option<&JsonSchemaProps> {
    match &s.items {
        Some(SchemaOrArray::Schema(i)) => Some(i),
        Some(SchemaOrArray::Array(a)) => a.first(),
        None => None,
    }
}

fn map_relationship(s: &JsonSchemaProps) -> Relationship {
    match s.x_map_type.as_deref() {
        Some("atomic") => Relationship::Atomic,
        Some("granular") => Relationship::Separable,
        _ => Relationship::Unset,
    }
}

fn list_atom(s: &JsonSchemaProps, preserve: bool) -> ListAtom<'_> {
    let (relationship, keys) = match s.x_list_type.as_deref() {
        Some("set") => (Relationship::Associative, Vec::new()),
        Some("map") => (Relationship::Associative, s.x_list_map_keys.clone()),
        _ => (Relationship::Atomic, Vec::new()),
    };
    let element = match items(s) {
        Some(i) => Node::Schema(i, preserve || i.x_preserve_unknown_fields == Some(true)),
        None => Node::Untyped,
    };
    ListAtom {
        relationship,
        keys,
        element,
    }
}

fn map_atom(s: &JsonSchemaProps, preserve: bool) -> MapAtom<'_> {
    MapAtom {
        node: Node::Schema(s, preserve),
        relationship: map_relationship(s),
    }
}

impl<'a> Node<'a> {
    /// `Schema.Resolve`: the atom of this type.
    fn atom(self) -> Atom<'a> {
        match self {
            Node::None => Atom::default(),
            Node::TypeMeta => scalar(Scalar::String),
            Node::Root(s) => {
                let mut atom = Node::Schema(s, false).atom();
                if let Some(m) = &mut atom.map {
                    m.node = Node::Root(s);
                }
                atom
            }
            Node::Untyped => Atom {
                scalar: Some(Scalar::Untyped),
                list: Some(ListAtom {
                    relationship: Relationship::Atomic,
                    keys: Vec::new(),
                    element: Node::Untyped,
                }),
                map: Some(MapAtom {
                    node: Node::Untyped,
                    relationship: Relationship::Atomic,
                }),
            },
            Node::Deduced => Atom {
                scalar: Some(Scalar::Untyped),
                list: Some(ListAtom {
                    relationship: Relationship::Atomic,
                    keys: Vec::new(),
                    element: Node::Untyped,
                }),
                map: Some(MapAtom {
                    node: Node::Deduced,
                    relationship: Relationship::Separable,
                }),
            },
            Node::Schema(s, preserve) => {
                let preserve = preserve || s.x_preserve_unknown_fields == Some(true);
                match s.type_.as_deref().unwrap_or("") {
                    "" => Atom {
                        scalar: Some(Scalar::Untyped),
                        list: Some(list_atom(s, preserve)),
                        map: Some(map_atom(s, preserve)),
                    },
                    "object" => Atom {
                        map: Some(map_atom(s, preserve)),
                        ..Atom::default()
                    },
                    "array" => Atom {
                        list: Some(list_atom(s, preserve)),
                        ..Atom::default()
                    },
                    "integer" | "number" => scalar(Scalar::Numeric),
                    "boolean" => scalar(Scalar::Boolean),
                    "string" => match s.format.as_deref().unwrap_or("") {
                        "" | "byte" => scalar(Scalar::String),
                        _ => scalar(Scalar::Untyped),
                    },
                    _ => scalar(Scalar::Untyped),
                }
            }
        }
    }

    /// The type of member `key` of a map or struct (`Map.FindField`, else `ElementType`), and
    /// whether it is a declared field.
    fn member(self, key: &str) -> (Node<'a>, bool) {
        match self {
            Node::Root(s) => match key {
                "apiVersion" | "kind" if !s.properties.contains_key(key) => (Node::TypeMeta, true),
                "metadata"
                    if s.properties
                        .get(key)
                        .is_none_or(|m| m.properties.is_empty()) =>
                {
                    (Node::Deduced, true)
                }
                _ => Node::Schema(s, false).member(key),
            },
            Node::Schema(s, preserve) => {
                let preserve = preserve || s.x_preserve_unknown_fields == Some(true);
                if let Some(f) = s.properties.get(key) {
                    return (Node::Schema(f, preserve), true);
                }
                let element = match &s.additional_properties {
                    Some(SchemaOrBool::Schema(ap)) => Node::Schema(ap, preserve),
                    Some(SchemaOrBool::Bool(true)) => Node::Deduced,
                    Some(SchemaOrBool::Bool(false)) => Node::None,
                    None if preserve || s.properties.is_empty() => Node::Deduced,
                    None => Node::None,
                };
                (element, false)
            }
            Node::Deduced => (Node::Deduced, false),
            Node::Untyped => (Node::Untyped, false),
            Node::None | Node::TypeMeta => (Node::None, false),
        }
    }

    /// The `default` of struct field `key`, for keys of associative lists.
    fn field_default(self, key: &str) -> Option<&'a Value> {
        match self {
            Node::Schema(s, _) | Node::Root(s) => s.properties.get(key)?.default.as_ref(),
            _ => None,
        }
    }
}

fn scalar<'a>(s: Scalar) -> Atom<'a> {
    Atom {
        scalar: Some(s),
        ..Atom::default()
    }
}

/// `deduceAtom`: the part of the atom that fits the value, or the whole atom.
fn deduce<'a>(atom: Atom<'a>, v: Option<&Value>) -> Atom<'a> {
    match v {
        Some(Value::Number(_) | Value::String(_) | Value::Bool(_)) if atom.scalar.is_some() => {
            Atom {
                scalar: atom.scalar,
                ..Atom::default()
            }
        }
        Some(Value::Array(_)) if atom.list.is_some() => Atom {
            list: atom.list,
            ..Atom::default()
        },
        Some(Value::Object(_)) if atom.map.is_some() => Atom {
            map: atom.map,
            ..Atom::default()
        },
        _ => atom,
    }
}

/// A structured-merge-diff validation error: a path and a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmdError {
    /// The field path at fault, as structured-merge-diff prints it.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// structured-merge-diff's `ValidationErrors` (`typed/validate.go`, `ValidationErrors.Error()`:
/// one error as `path: message`, several under `errors:`, one per indented line).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", render_errors(.0))]
pub struct ValidationErrors(pub Vec<SmdError>);

fn render_errors(errors: &[SmdError]) -> String {
    let one = |e: &SmdError| {
        if e.path.is_empty() {
            e.message.clone()
        } else {
            format!("{}: {}", e.path, e.message)
        }
    };
    if let [e] = errors {
        return one(e);
    }
    let mut lines = vec!["errors:".to_string()];
    lines.extend(errors.iter().map(|e| format!("  {}", one(e))));
    lines.join("\n")
}

fn error(message: String) -> Vec<SmdError> {
    vec![SmdError {
        path: String::new(),
        message,
    }]
}

fn prefixed(mut errors: Vec<SmdError>, prefix: &str) -> Vec<SmdError> {
    for e in &mut errors {
        e.path.insert_str(0, prefix);
    }
    errors
}

/// A path element of an associative list item (`fieldpath.PathElement`): its keys or its
/// value, rendered as `String()` renders it and compared by that rendering.
fn value_string(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::String(s) => quote(s),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => n.as_f64().map_or_else(|| n.to_string(), |f| f.to_string()),
        },
        Value::Bool(b) => b.to_string(),
        other => other.to_string(),
    }
}

/// `listItemToPathElement`.
fn item_path_element(list: &ListAtom<'_>, item: &Value) -> Result<String, String> {
    if list.relationship != Relationship::Associative {
        return Err("invalid indexing of non-associative list".into());
    }
    if list.keys.is_empty() {
        return match item {
            Value::Object(_) => {
                Err("associative list without keys has an element that's a map type".into())
            }
            Value::Array(_) => Err("not supported: associative list with lists as elements".into()),
            Value::Null => {
                Err("associative list without keys has an element that's an explicit null".into())
            }
            v => Ok(format!("[={}]", value_string(v))),
        };
    }
    let Value::Object(m) = item else {
        return Err(if item.is_null() {
            "associative list with keys may not have a null element".into()
        } else {
            "associative list with keys may not have non-map elements".into()
        });
    };
    let element = list.element;
    if element.atom().map.is_none() {
        return Err(format!(
            "couldn't find default value for {}: associative list may not have non-map types",
            list.keys[0]
        ));
    }
    let mut fields: Vec<(&str, &Value)> = Vec::new();
    for k in &list.keys {
        if let Some(v) = m.get(k) {
            fields.push((k, v));
        } else if let Some(d) = element.field_default(k) {
            fields.push((k, d));
        }
    }
    if fields.is_empty() {
        let keys: Vec<String> = list.keys.iter().map(|k| quote(k)).collect();
        return Err(format!(
            "associative list with keys has an element that omits all key fields [{}] (and doesn't have default values for any key fields)",
            keys.join(" ")
        ));
    }
    fields.sort_by(|a, b| a.0.cmp(b.0));
    let parts: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{k}={}", value_string(v)))
        .collect();
    Ok(format!("[{}]", parts.join(",")))
}

/// A value as Go's `%#v` prints a `value.Value` (`&value.valueUnstructured{Value:...}`).
fn go_sharp_v(v: &Value) -> String {
    format!("&value.valueUnstructured{{Value:{}}}", go_sharp(v))
}

/// Go's `%#v` of an unstructured value.
fn go_sharp(v: &Value) -> String {
    match v {
        Value::Null => "interface {}(nil)".into(),
        Value::String(s) => quote(s),
        Value::Array(a) => format!(
            "[]interface {{}}{{{}}}",
            a.iter().map(go_sharp).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .iter()
                .map(|k| format!("{}:{}", quote(k), go_sharp(&m[*k])))
                .collect();
            format!("map[string]interface {{}}{{{}}}", parts.join(", "))
        }
        other => go_v(other),
    }
}

/// A value as Go's `%v` prints an unstructured value in SMD's messages.
fn go_v(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::String(s) => s.clone(),
        Value::Array(a) => format!("[{}]", a.iter().map(go_v).collect::<Vec<_>>().join(" ")),
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .iter()
                .map(|k| format!("{k}:{}", go_v(&m[*k])))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
        other => other.to_string(),
    }
}

/// The Go type name `%T` prints for an unstructured value.
fn go_t(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// `validateScalar`.
fn validate_scalar(t: Scalar, v: Option<&Value>, prefix: &str) -> Vec<SmdError> {
    let Some(v) = v else { return Vec::new() };
    let ok = matches!(
        (t, v),
        (_, Value::Null)
            | (Scalar::Numeric, Value::Number(_))
            | (Scalar::String, Value::String(_))
            | (Scalar::Boolean, Value::Bool(_))
            | (
                Scalar::Untyped,
                Value::Number(_) | Value::String(_) | Value::Bool(_)
            )
    );
    if ok {
        return Vec::new();
    }
    error(match t {
        Scalar::Numeric => format!("{prefix}expected numeric (int or float), got {}", go_t(v)),
        Scalar::String => format!("{prefix}expected string, got {}", go_sharp_v(v)),
        Scalar::Boolean => format!("{prefix}expected boolean, got &{{{}}}", go_v(v)),
        Scalar::Untyped => format!("{prefix}expected any scalar, got &{{{}}}", go_v(v)),
    })
}

/// The typed conversion of `v` (`typed.AsTyped` → `validate`): the patch's errors, empty when
/// it conforms. `allow_duplicates`: the live object's associative lists may repeat keys.
fn validate(node: Node<'_>, v: &Value, allow_duplicates: bool, depth: usize) -> Vec<SmdError> {
    if depth > MAX_MERGE_DEPTH {
        return error(format!("value nests deeper than {MAX_MERGE_DEPTH} levels"));
    }
    let atom = deduce(node.atom(), Some(v));
    if let Some(m) = atom.map {
        return validate_map(&m, v, allow_duplicates, depth);
    }
    if let Some(s) = atom.scalar {
        return validate_scalar(s, Some(v), "");
    }
    if let Some(l) = atom.list {
        return validate_list(&l, v, allow_duplicates, depth);
    }
    error("schema error: invalid atom: inlined".into())
}

fn validate_map(m: &MapAtom<'_>, v: &Value, allow_duplicates: bool, depth: usize) -> Vec<SmdError> {
    let obj = match v {
        Value::Null => return Vec::new(),
        Value::Object(o) => o,
        other => return error(format!("expected map, got &{{{}}}", go_v(other))),
    };
    let mut errors = Vec::new();
    let mut keys: Vec<&String> = obj.keys().collect();
    keys.sort();
    for key in keys {
        let (member, declared) = m.node.member(key);
        if !declared && matches!(member, Node::None) {
            errors.extend(prefixed(
                error("field not declared in schema".into()),
                &format!(".{key}"),
            ));
            break;
        }
        errors.extend(prefixed(
            validate(member, &obj[key], allow_duplicates, depth + 1),
            &format!(".{key}"),
        ));
    }
    errors
}

fn validate_list(
    l: &ListAtom<'_>,
    v: &Value,
    allow_duplicates: bool,
    depth: usize,
) -> Vec<SmdError> {
    let items = match v {
        Value::Null => return Vec::new(),
        Value::Array(a) => a,
        other => return error(format!("expected list, got &{{{}}}", go_v(other))),
    };
    let mut errors = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, item) in items.iter().enumerate() {
        let pe = if l.relationship == Relationship::Associative {
            match item_path_element(l, item) {
                Ok(pe) => {
                    if !seen.insert(pe.clone()) && !allow_duplicates {
                        errors.extend(error(format!("duplicate entries for key {pe}")));
                    }
                    pe
                }
                Err(e) => {
                    errors.extend(error(format!("element {i}: {e}")));
                    return errors;
                }
            }
        } else {
            format!("[{i}]")
        };
        errors.extend(prefixed(
            validate(l.element, item, allow_duplicates, depth + 1),
            &pe,
        ));
    }
    errors
}

/// `findAtomics`: the paths of atomic structs, maps and lists the patch sets, in the patch's
/// (sorted) member order.
fn find_atomics(node: Node<'_>, v: &Value, path: &mut String, out: &mut Vec<String>, depth: usize) {
    if depth > MAX_MERGE_DEPTH {
        return;
    }
    let atom = node.atom();
    match v {
        Value::Object(obj) => {
            if let Some(m) = atom.map {
                if m.relationship == Relationship::Atomic {
                    out.push(path.clone());
                }
                let mut keys: Vec<&String> = obj.keys().collect();
                keys.sort();
                for key in keys {
                    let (member, declared) = m.node.member(key);
                    if declared {
                        let len = path.len();
                        path.push('.');
                        path.push_str(key);
                        find_atomics(member, &obj[key], path, out, depth + 1);
                        path.truncate(len);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(l) = atom.list {
                if l.relationship == Relationship::Atomic {
                    out.push(path.clone());
                }
                for (i, item) in items.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    find_atomics(l.element, item, path, out, depth + 1);
                    path.truncate(len);
                }
            }
        }
        _ => {}
    }
}

/// Why an apply configuration cannot be merged, with `ApplyStructuredMergeDiff`'s texts
/// (`apiserver/pkg/admission/plugin/policy/mutating/patch/smd.go`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    /// The patch does not convert to the kind's typed value.
    #[error("failed to convert patch object to typed object: {0}")]
    ConvertPatch(ValidationErrors),
    /// The patch sets atomic lists, maps or structs (`validatePatch`), by path.
    #[error(
        "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: {}",
        .0.join(", ")
    )]
    Atomic(Vec<String>),
    /// The object does not convert to the kind's typed value.
    #[error("failed to convert original object to typed object: {0}")]
    ConvertObject(ValidationErrors),
    /// The merge failed.
    #[error("failed to merge patch: {0}")]
    Merge(ValidationErrors),
}

/// `ApplyStructuredMergeDiff`: `patch` (with the object's `apiVersion` and `kind`) merged into
/// `object`, both read with `schema`.
pub fn apply(schema: &JsonSchemaProps, object: &Value, patch: &Value) -> Result<Value, ApplyError> {
    convert(schema, patch, false).map_err(ApplyError::ConvertPatch)?;
    let atomics = atomics(schema, patch);
    if !atomics.is_empty() {
        return Err(ApplyError::Atomic(atomics));
    }
    convert(schema, object, true).map_err(ApplyError::ConvertObject)?;
    merge_typed(schema, object, patch).map_err(ApplyError::Merge)
}

/// The typed conversion of `value` (`TypeConverter.ObjectToTyped`): `Err` with its
/// `ValidationErrors`. `allow_duplicates`: associative lists may repeat keys
/// (`typed.AllowDuplicates`, used for the live object).
pub fn convert(
    schema: &JsonSchemaProps,
    value: &Value,
    allow_duplicates: bool,
) -> Result<(), ValidationErrors> {
    let errors = validate(Node::Root(schema), value, allow_duplicates, 0);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ValidationErrors(errors))
    }
}

/// `findAtomics` of `validatePatch`: the paths of the atomic lists, maps and structs `patch`
/// sets.
pub fn atomics(schema: &JsonSchemaProps, patch: &Value) -> Vec<String> {
    let mut out = Vec::new();
    find_atomics(Node::Root(schema), patch, &mut String::new(), &mut out, 0);
    out
}

/// `TypedValue.Merge` of converted values, then `TypedToObject`.
pub fn merge_typed(
    schema: &JsonSchemaProps,
    object: &Value,
    patch: &Value,
) -> Result<Value, ValidationErrors> {
    let mut errors = Vec::new();
    let merged = merge(
        Node::Root(schema),
        Some(object),
        Some(patch),
        &mut errors,
        0,
    );
    if !errors.is_empty() {
        return Err(ValidationErrors(errors));
    }
    Ok(merged.unwrap_or_else(|| Value::Object(Map::new())))
}

/// `mergingWalker.merge` with `ruleKeepRHS`: the merged value, `None` for no value.
fn merge(
    node: Node<'_>,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    errors: &mut Vec<SmdError>,
    depth: usize,
) -> Option<Value> {
    if depth > MAX_MERGE_DEPTH {
        errors.extend(error(format!(
            "value nests deeper than {MAX_MERGE_DEPTH} levels"
        )));
        return None;
    }
    let atom = node.atom();
    let alhs = deduce(atom.clone(), lhs);
    let arhs = deduce(atom, rhs);
    let chosen = if rhs.is_none() { alhs } else { arhs };
    if let Some(m) = chosen.map {
        return merge_map(&m, lhs, rhs, errors, depth);
    }
    if let Some(s) = chosen.scalar {
        let l = validate_scalar(s, lhs, "lhs: ");
        let r = validate_scalar(s, rhs, "rhs: ");
        if !l.is_empty() && !r.is_empty() {
            errors.extend(l);
            errors.extend(r);
            return None;
        }
        return keep_rhs(lhs, rhs);
    }
    if let Some(l) = chosen.list {
        return merge_list(&l, lhs, rhs, errors, depth);
    }
    errors.extend(error("schema error: invalid atom: inlined".into()));
    None
}

/// `ruleKeepRHS`.
fn keep_rhs(lhs: Option<&Value>, rhs: Option<&Value>) -> Option<Value> {
    rhs.or(lhs).cloned()
}

fn merge_map(
    m: &MapAtom<'_>,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    errors: &mut Vec<SmdError>,
    depth: usize,
) -> Option<Value> {
    let l = lhs.and_then(Value::as_object);
    let r = rhs.and_then(Value::as_object);
    let empty = l.is_none_or(Map::is_empty) && r.is_none_or(Map::is_empty);
    if m.relationship == Relationship::Atomic || empty {
        return keep_rhs(lhs, rhs);
    }
    let mut out = Map::new();
    let mut keys: Vec<&String> = l.into_iter().flat_map(|o| o.keys()).collect();
    for k in r.into_iter().flat_map(|o| o.keys()) {
        if l.is_none_or(|o| !o.contains_key(k)) {
            keys.push(k);
        }
    }
    for key in keys {
        let (member, _) = m.node.member(key);
        let lv = l.and_then(|o| o.get(key));
        let rv = r.and_then(|o| o.get(key));
        let mut child = Vec::new();
        let merged = merge(member, lv, rv, &mut child, depth + 1);
        errors.extend(prefixed(child, &format!(".{key}")));
        if let Some(v) = merged {
            out.insert(key.clone(), v);
        }
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// `indexListPathElements`: each item's path element, and the item first seen for each
/// (`None` when the key repeats: a duplicated element has no single value).
fn index_items<'v>(
    l: &ListAtom<'_>,
    items: &'v [Value],
    allow_duplicates: bool,
    errors: &mut Vec<SmdError>,
) -> (Vec<String>, HashMap<String, Option<&'v Value>>) {
    let mut pes = Vec::with_capacity(items.len());
    let mut observed: HashMap<String, Option<&Value>> = HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let pe = match item_path_element(l, item) {
            Ok(pe) => pe,
            Err(e) => {
                errors.extend(error(format!("element {i}: {e}")));
                continue;
            }
        };
        if let Some(slot) = observed.get_mut(&pe) {
            if !allow_duplicates {
                errors.extend(error(format!("duplicate entries for key {pe}")));
                continue;
            }
            *slot = None;
        } else {
            observed.insert(pe.clone(), Some(item));
        }
        pes.push(pe);
    }
    (pes, observed)
}

fn merge_list(
    l: &ListAtom<'_>,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    errors: &mut Vec<SmdError>,
    depth: usize,
) -> Option<Value> {
    let la = lhs.and_then(Value::as_array);
    let ra = rhs.and_then(Value::as_array);
    let empty = la.is_none_or(Vec::is_empty) && ra.is_none_or(Vec::is_empty);
    if l.relationship == Relationship::Atomic || empty {
        return keep_rhs(lhs, rhs);
    }
    let la: &[Value] = la.map_or(&[], Vec::as_slice);
    let ra: &[Value] = ra.map_or(&[], Vec::as_slice);
    let mut index_errors = Vec::new();
    let (rhs_pes, observed_rhs) = index_items(l, ra, false, &mut index_errors);
    let (lhs_pes, observed_lhs) = index_items(l, la, true, &mut index_errors);
    if !index_errors.is_empty() {
        errors.extend(index_errors);
        return None;
    }
    // `visitListItems`: items keep the live order, the patch's new items are placed after the
    // shared item they follow in the patch. Errors of the items themselves are dropped, as the
    // upstream loop shadows its error list.
    let mut shared: std::collections::VecDeque<&String> = rhs_pes
        .iter()
        .filter(|pe| observed_lhs.contains_key(*pe))
        .collect();
    let mut next_shared = shared.pop_front();
    let mut merged_rhs = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(la.len().max(ra.len()));
    let item = |lv: Option<&Value>, rv: Option<&Value>, out: &mut Vec<Value>| {
        let mut ignored = Vec::new();
        if let Some(v) = merge(l.element, lv, rv, &mut ignored, depth + 1) {
            out.push(v);
        }
    };
    let (mut li, mut ri) = (0, 0);
    while li < lhs_pes.len() || ri < rhs_pes.len() {
        if li < lhs_pes.len() && ri < rhs_pes.len() {
            let pe = &lhs_pes[li];
            if *pe == rhs_pes[ri] {
                merged_rhs.insert(pe.clone());
                let lv = observed_lhs.get(pe).copied().flatten();
                let rv = observed_rhs.get(pe).copied().flatten();
                item(lv, rv, &mut out);
                li += 1;
                ri += 1;
                next_shared = shared.pop_front();
                continue;
            }
            if observed_rhs.contains_key(pe) && next_shared.is_some_and(|n| n != pe) {
                li += 1;
                continue;
            }
        }
        if li < lhs_pes.len() {
            let pe = &lhs_pes[li];
            if !observed_rhs.contains_key(pe) {
                item(Some(&la[li]), None, &mut out);
                li += 1;
                continue;
            } else if merged_rhs.contains(pe) {
                li += 1;
            }
        }
        if ri < rhs_pes.len() {
            let pe = &rhs_pes[ri];
            merged_rhs.insert(pe.clone());
            let lv = observed_lhs.get(pe).copied().flatten();
            let rv = observed_rhs.get(pe).copied().flatten();
            item(lv, rv, &mut out);
            ri += 1;
            if next_shared.is_some_and(|n| n == pe) {
                next_shared = shared.pop_front();
            }
        }
    }
    (!out.is_empty()).then_some(Value::Array(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> JsonSchemaProps {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn merges_keyed_lists_and_rejects_atomics() {
        let s = schema(json!({
            "type": "object",
            "properties": {
                "list": {"type": "array", "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {
                        "name": {"type": "string"}, "v": {"type": "integer"}}}},
                "sel": {"type": "object", "x-kubernetes-map-type": "atomic",
                    "properties": {"a": {"type": "string"}}}
            }
        }));
        let obj = json!({"list": [{"name": "x", "v": 1}, {"name": "y"}]});
        let got = apply(
            &s,
            &obj,
            &json!({"list": [{"name": "y", "v": 2}, {"name": "z"}]}),
        )
        .unwrap();
        assert_eq!(
            got,
            json!({"list": [{"name": "x", "v": 1}, {"name": "y", "v": 2}, {"name": "z"}]})
        );
        let e = apply(&s, &obj, &json!({"sel": {"a": "b"}})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .sel"
        );
        // A custom resource's schema need not declare apiVersion, kind or metadata.
        let got = apply(
            &s,
            &json!({"apiVersion": "x/v1", "kind": "K", "metadata": {"labels": {"a": "1"}}}),
            &json!({"apiVersion": "x/v1", "kind": "K", "metadata": {"labels": {"b": "2"}}}),
        )
        .unwrap();
        assert_eq!(got["metadata"]["labels"], json!({"a": "1", "b": "2"}));
        let e = apply(&s, &obj, &json!({"nope": 1})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "failed to convert patch object to typed object: .nope: field not declared in schema"
        );
    }
}
