//! Schema → CEL types (Kubernetes `apiserver/pkg/cel/common/schemas.go` `SchemaDeclType` and
//! `types.go` `DeclType`).
//!
//! [`DeclType::from_schema`] maps a structural schema to the type CEL rules see, with the size
//! bounds the cost estimator needs:
//!
//! | schema | CEL type | min serialized size | max elements |
//! |---|---|---|---|
//! | `x-kubernetes-int-or-string` | `dyn` | 1 | 4·maxLength, else 3 145 726 |
//! | boolean / integer / number | `bool` / `int` / `double` | 4 / 1 / 1 | 0 |
//! | string | `string` | 2 | 4·maxLength, else longest enum string, else 3 145 726 |
//! | string `byte` / `duration` / `date` / `date-time` | `bytes` / `duration` / `timestamp` | 2 / 3 / 12 / 21 | maxLength or 3 145 726 / 32 / 12 / 32 |
//! | array of T | `list(T)` | 2 | maxItems, else ⌊3 145 726 / (min(T)+1)⌋ |
//! | object with additionalProperties V | `map(string, V)` | 2 | maxProperties, else ⌊3 145 726 / (min(V)+6)⌋ |
//! | other object | object type | 2 + Σ required, no default: len(name)+min+4 | 0 |
//!
//! Schemas CEL cannot see (no type, preserve-unknown-fields only, arrays/maps of such) map to
//! `None` and their properties are left out of the object type. Object types are named as
//! Kubernetes names them once a root name is assigned: `<root>.<field>`, list elements
//! `<…>.@idx`, map values `<…>.@elem` (field names escaped, [`crate::escaping`]).
//! [`DeclTypeProvider`] answers the checker's questions about these object types.

use std::collections::HashMap;
use std::sync::Arc;

use cel::Type;
use cel::checker::TypeProvider;
use indexmap::IndexMap;
use serde_json::Value;

use crate::escaping;
use crate::structural::Structural;

/// `MaxRequestSizeBytes`: the basis of all worst-case size estimates.
pub const MAX_REQUEST_SIZE_BYTES: i64 = 3_145_728;
/// Smallest JSON encodings (`apiserver/pkg/cel/limits.go`).
pub const MIN_STRING_SIZE: i64 = 2;
/// The smallest JSON encoding of a `bool` (`true`).
pub const MIN_BOOL_SIZE: i64 = 4;
/// The smallest JSON encoding of a number (`0`).
pub const MIN_NUMBER_SIZE: i64 = 1;
/// The smallest JSON encoding of a `duration` string (`"0"`, quoted).
pub const MIN_DURATION_SIZE_JSON: i64 = 3;
/// The largest JSON encoding of a `duration` string.
pub const MAX_DURATION_SIZE_JSON: i64 = 32;
/// The JSON encoding of a `date` string (`"2006-01-02"`, quoted).
pub const JSON_DATE_SIZE: i64 = 12;
/// The smallest JSON encoding of a `date-time` string.
pub const MIN_DATETIME_SIZE_JSON: i64 = 21;
/// The largest JSON encoding of a `date-time` string.
pub const MAX_DATETIME_SIZE_JSON: i64 = 32;

/// The CEL-visible type of a schema node.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclType {
    /// What the type is.
    pub kind: DeclKind,
    /// Bytes of the smallest JSON encoding of a value of this type.
    pub min_serialized_size: i64,
    /// The upper bound of `size()` the estimator uses (0 where it has none: numbers, bools,
    /// objects).
    pub max_elements: i64,
}

/// What a [`DeclType`] is.
#[derive(Clone, Debug, PartialEq)]
pub enum DeclKind {
    /// `bool`.
    Bool,
    /// `int`.
    Int,
    /// `double`.
    Double,
    /// `string`.
    String,
    /// `bytes` (`format: byte`).
    Bytes,
    /// `google.protobuf.Duration` (`format: duration`).
    Duration,
    /// `google.protobuf.Timestamp` (`format: date` and `date-time`).
    Timestamp,
    /// `x-kubernetes-int-or-string`: `dyn` (an int or a string at runtime).
    IntOrString,
    /// `list(T)`: an array with its items' type.
    List(Arc<DeclType>),
    /// `map(string, V)`.
    Map(Arc<DeclType>),
    /// An object with its fields.
    Object(ObjectType),
}

/// An object type: its name and fields by CEL (escaped) name.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectType {
    /// The type's name (`selfType<N>.spec`).
    pub name: Arc<str>,
    /// The fields by their escaped CEL names.
    pub fields: IndexMap<String, DeclField>,
}

/// One field of an object type.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclField {
    /// The CEL (escaped) name.
    pub name: String,
    /// The property name in the schema and in documents.
    pub property: String,
    /// The field's type.
    pub ty: Arc<DeclType>,
    /// Whether the schema lists the field as `required`.
    pub required: bool,
    /// The schema's `enum` values.
    pub enum_values: Vec<Value>,
    /// The schema's `default`.
    pub default: Option<Value>,
}

impl DeclType {
    /// The CEL type of `schema`, with object types named from `name` (Kubernetes uses the
    /// per-compilation `selfType<N>` name for `self`). `is_resource_root` is true for the root of
    /// a custom resource; embedded resources are handled as roots automatically. `None` when the
    /// schema is not visible to CEL.
    pub fn from_schema(
        schema: &Arc<Structural>,
        is_resource_root: bool,
        name: &str,
    ) -> Option<Arc<DeclType>> {
        build(schema, is_resource_root, name, 0)
    }

    fn simple(kind: DeclKind, min: i64, max: i64) -> Arc<DeclType> {
        Arc::new(DeclType {
            kind,
            min_serialized_size: min,
            max_elements: max,
        })
    }

    /// The type the checker uses.
    pub fn cel_type(&self) -> Type {
        match &self.kind {
            DeclKind::Bool => Type::Bool,
            DeclKind::Int => Type::Int,
            DeclKind::Double => Type::Double,
            DeclKind::String => Type::String,
            DeclKind::Bytes => Type::Bytes,
            DeclKind::Duration => Type::Duration,
            DeclKind::Timestamp => Type::Timestamp,
            DeclKind::IntOrString => Type::Dyn,
            DeclKind::List(e) => Type::list(e.cel_type()),
            DeclKind::Map(v) => Type::map(Type::String, v.cel_type()),
            DeclKind::Object(o) => Type::Object(o.name.clone()),
        }
    }

    /// The object type, if this is one.
    pub fn as_object(&self) -> Option<&ObjectType> {
        match &self.kind {
            DeclKind::Object(o) => Some(o),
            _ => None,
        }
    }

    /// `⌊3 145 728 / (min_serialized_size + 1)⌋`: how many values of this type fit in one
    /// request, the cardinality Kubernetes multiplies a rule's cost by when some ancestor list or
    /// map is unbounded (§8.4).
    pub fn max_cardinality(&self) -> u64 {
        let size = self.min_serialized_size.max(0) as u64 + 1;
        MAX_REQUEST_SIZE_BYTES as u64 / size
    }

    /// The size estimate of the value at `path` as Kubernetes' estimator gives it: the first step
    /// (the variable) is ignored, `@items`/`@values` go to list elements or map values, `@keys`
    /// to map keys (whose bound is 0), names to object fields. Returns the max `size()`
    /// (the min is always 0); `None` for steps the type has no answer for.
    pub fn estimate_size<'a>(&self, path: impl IntoIterator<Item = &'a str>) -> Option<i64> {
        let mut current = self;
        let mut steps = path.into_iter();
        steps.next()?;
        for step in steps {
            current = match (step, &current.kind) {
                ("@items", DeclKind::List(e)) => e,
                ("@values", DeclKind::Map(v)) => v,
                ("@keys", DeclKind::Map(_)) => return Some(0),
                (name, DeclKind::Object(o)) => &o.fields.get(name)?.ty,
                _ => return None,
            };
        }
        Some(current.max_elements)
    }
}

/// `(3 145 728 − 2)`: the longest string (or bytes) one request can hold.
const MAX_STRING_BYTES: i64 = MAX_REQUEST_SIZE_BYTES - 2;

fn string_max(schema: &Structural) -> i64 {
    if let Some(max) = schema.max_length() {
        return max.saturating_mul(4);
    }
    if !schema.enum_values().is_empty() {
        return schema
            .enum_values()
            .iter()
            .filter_map(Value::as_str)
            .map(|s| s.len() as i64)
            .max()
            .unwrap_or(0);
    }
    MAX_STRING_BYTES
}

fn build(
    schema: &Arc<Structural>,
    is_resource_root: bool,
    name: &str,
    depth: usize,
) -> Option<Arc<DeclType>> {
    if depth > crate::structural::MAX_SCHEMA_DEPTH {
        return None;
    }
    if schema.extensions.int_or_string {
        let max = schema
            .max_length()
            .map_or(MAX_STRING_BYTES, |m| m.saturating_mul(4));
        return Some(DeclType::simple(DeclKind::IntOrString, 1, max));
    }
    let rooted;
    let schema = if is_resource_root {
        rooted = schema.with_type_and_object_meta();
        &rooted
    } else {
        schema
    };
    match schema.type_() {
        "array" => {
            let items = schema.items.as_ref()?;
            let elem = build(
                items,
                items.extensions.embedded_resource,
                &format!("{name}.@idx"),
                depth + 1,
            )?;
            let max = match schema.max_items() {
                Some(m) => m.max(0),
                None => MAX_STRING_BYTES / (elem.min_serialized_size.saturating_add(1)).max(1),
            };
            Some(DeclType::simple(DeclKind::List(elem), 2, max))
        }
        "object" => {
            if let Some(ap) = schema.additional_properties_schema() {
                let value = build(
                    ap,
                    ap.extensions.embedded_resource,
                    &format!("{name}.@elem"),
                    depth + 1,
                )?;
                let max = match schema.max_properties() {
                    Some(m) => m.max(0),
                    None => MAX_STRING_BYTES / (value.min_serialized_size.saturating_add(6)).max(1),
                };
                return Some(DeclType::simple(DeclKind::Map(value), 2, max));
            }
            let required = schema.required();
            let mut fields = IndexMap::with_capacity(schema.properties.len());
            let mut min_size: i64 = 2;
            for (prop_name, prop) in &schema.properties {
                let escaped = escaping::escape(prop_name);
                let field_type_name = format!("{name}.{}", escaped.as_deref().unwrap_or(prop_name));
                let Some(ty) = build(
                    prop,
                    prop.extensions.embedded_resource,
                    &field_type_name,
                    depth + 1,
                ) else {
                    continue;
                };
                let is_required = required.iter().any(|r| r == prop_name);
                if is_required && prop.generic.default.is_none() {
                    min_size = min_size
                        .saturating_add(prop_name.len() as i64)
                        .saturating_add(ty.min_serialized_size)
                        .saturating_add(4);
                }
                if let Some(escaped) = escaped {
                    let escaped = escaped.into_owned();
                    fields.insert(
                        escaped.clone(),
                        DeclField {
                            name: escaped,
                            property: prop_name.clone(),
                            ty,
                            required: is_required,
                            enum_values: prop.enum_values().to_vec(),
                            default: prop.generic.default.clone(),
                        },
                    );
                }
            }
            Some(Arc::new(DeclType {
                kind: DeclKind::Object(ObjectType {
                    name: name.into(),
                    fields,
                }),
                min_serialized_size: min_size,
                max_elements: 0,
            }))
        }
        "string" => Some(match schema.format() {
            "byte" => DeclType::simple(
                DeclKind::Bytes,
                MIN_STRING_SIZE,
                schema.max_length().unwrap_or(MAX_STRING_BYTES),
            ),
            "duration" => DeclType::simple(
                DeclKind::Duration,
                MIN_DURATION_SIZE_JSON,
                MAX_DURATION_SIZE_JSON,
            ),
            "date" => DeclType::simple(DeclKind::Timestamp, JSON_DATE_SIZE, JSON_DATE_SIZE),
            "date-time" => DeclType::simple(
                DeclKind::Timestamp,
                MIN_DATETIME_SIZE_JSON,
                MAX_DATETIME_SIZE_JSON,
            ),
            _ => DeclType::simple(DeclKind::String, MIN_STRING_SIZE, string_max(schema)),
        }),
        "boolean" => Some(DeclType::simple(DeclKind::Bool, MIN_BOOL_SIZE, 0)),
        "integer" => Some(DeclType::simple(DeclKind::Int, MIN_NUMBER_SIZE, 0)),
        "number" => Some(DeclType::simple(DeclKind::Double, MIN_NUMBER_SIZE, 0)),
        _ => None,
    }
}

/// The object types of one [`DeclType`] tree, for the checker.
///
/// Field lookup follows Kubernetes from compatibility version 1.31 on: a field named like a CEL
/// reserved word is found under its plain name too (`self.namespace` for `__namespace__`).
#[derive(Clone, Debug, Default)]
pub struct DeclTypeProvider {
    objects: HashMap<Arc<str>, Arc<DeclType>>,
}

impl DeclTypeProvider {
    /// Registers every object type reachable from `root`.
    pub fn new(root: &Arc<DeclType>) -> Self {
        let mut p = DeclTypeProvider::default();
        p.add(root);
        p
    }

    /// Registers every object type reachable from `root` (several roots may share a provider,
    /// for example `self` types of different nodes).
    pub fn add(&mut self, root: &Arc<DeclType>) {
        let mut stack = vec![root.clone()];
        while let Some(t) = stack.pop() {
            match &t.kind {
                DeclKind::List(e) | DeclKind::Map(e) => stack.push(e.clone()),
                DeclKind::Object(o) => {
                    stack.extend(o.fields.values().map(|f| f.ty.clone()));
                    self.objects.insert(o.name.clone(), t.clone());
                }
                _ => {}
            }
        }
    }

    /// The object type named `name`.
    pub fn object(&self, name: &str) -> Option<&ObjectType> {
        self.objects.get(name).and_then(|t| t.as_object())
    }

    /// The declared type named `name`.
    pub fn decl_type(&self, name: &str) -> Option<&Arc<DeclType>> {
        self.objects.get(name)
    }

    /// Field `field` of object type `type_name`, with the reserved-word fallback.
    pub fn field(&self, type_name: &str, field: &str) -> Option<&DeclField> {
        let obj = self.object(type_name)?;
        if let Some(f) = obj.fields.get(field) {
            return Some(f);
        }
        if escaping::is_reserved(field) {
            return obj.fields.get(&format!("__{field}__"));
        }
        None
    }
}

impl TypeProvider for DeclTypeProvider {
    fn find_type(&self, name: &str) -> Option<Type> {
        self.objects.get(name).map(|t| t.cel_type())
    }

    fn field_type(&self, type_name: &str, field: &str) -> Option<Type> {
        self.field(type_name, field).map(|f| f.ty.cel_type())
    }

    fn field_names(&self, type_name: &str) -> Vec<String> {
        self.object(type_name)
            .map(|o| o.fields.keys().cloned().collect())
            .unwrap_or_default()
    }
}

/// The object types of a [`DeclType`] tree under a root name chosen per compilation, named as
/// [`DeclType::from_schema`] would name them (`<root>.<field>`, `<…>.@idx`, `<…>.@elem`) but
/// resolved on demand: one tree (built once for a whole schema, whatever names it carries) serves
/// every schema node's compilation without being rebuilt under each node's `selfType<N>` name.
///
/// Names resolve by walking the tree from the root: escaped field names contain no `.` and
/// `@idx`/`@elem` are no field names, so the walk is unambiguous.
#[derive(Clone, Debug)]
pub struct NamedDeclTypes {
    root_name: Arc<str>,
    root: Arc<DeclType>,
}

impl NamedDeclTypes {
    /// A provider whose root type `root` is named `root_name`, its object types named below it.
    pub fn new(root: Arc<DeclType>, root_name: &str) -> Self {
        NamedDeclTypes {
            root_name: root_name.into(),
            root,
        }
    }

    /// The CEL type of the root (the type of `self`).
    pub fn root_type(&self) -> Type {
        named_cel_type(&self.root, &self.root_name)
    }

    /// The type named `name` (object types only, as [`DeclTypeProvider`] registers them).
    fn resolve(&self, name: &str) -> Option<&DeclType> {
        let rest = name.strip_prefix(&*self.root_name)?;
        let mut current: &DeclType = &self.root;
        if !rest.is_empty() {
            let path = rest.strip_prefix('.')?;
            for step in path.split('.') {
                current = match (&current.kind, step) {
                    (DeclKind::List(e), "@idx") => e,
                    (DeclKind::Map(v), "@elem") => v,
                    (DeclKind::Object(o), field) => &o.fields.get(field)?.ty,
                    _ => return None,
                };
            }
        }
        current.as_object().map(|_| current)
    }

    /// Field `field` of object type `type_name`, with the reserved-word fallback of
    /// [`DeclTypeProvider::field`].
    fn field(&self, type_name: &str, field: &str) -> Option<&DeclField> {
        let obj = self.resolve(type_name)?.as_object()?;
        if let Some(f) = obj.fields.get(field) {
            return Some(f);
        }
        if escaping::is_reserved(field) {
            return obj.fields.get(&format!("__{field}__"));
        }
        None
    }
}

/// The CEL type of `t` with its object types named from `name`.
fn named_cel_type(t: &DeclType, name: &str) -> Type {
    match &t.kind {
        DeclKind::List(e) => Type::list(named_cel_type(e, &format!("{name}.@idx"))),
        DeclKind::Map(v) => Type::map(Type::String, named_cel_type(v, &format!("{name}.@elem"))),
        DeclKind::Object(_) => Type::Object(name.into()),
        _ => t.cel_type(),
    }
}

impl TypeProvider for NamedDeclTypes {
    fn find_type(&self, name: &str) -> Option<Type> {
        self.resolve(name).map(|_| Type::Object(name.into()))
    }

    fn field_type(&self, type_name: &str, field: &str) -> Option<Type> {
        let f = self.field(type_name, field)?;
        Some(named_cel_type(&f.ty, &format!("{type_name}.{}", f.name)))
    }

    fn field_names(&self, type_name: &str) -> Vec<String> {
        self.resolve(type_name)
            .and_then(DeclType::as_object)
            .map(|o| o.fields.keys().cloned().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema_props::JsonSchemaProps;
    use serde_json::json;

    fn decl(v: serde_json::Value, root: bool) -> Option<Arc<DeclType>> {
        let props: JsonSchemaProps = serde_json::from_value(v).expect("props");
        let s = Arc::new(Structural::from_props(&props).expect("structural"));
        DeclType::from_schema(&s, root, "selfType0")
    }

    #[test]
    fn scalar_types_and_sizes() {
        let t = |v| {
            decl(v, false).map(|d| {
                (
                    d.cel_type().to_string(),
                    d.min_serialized_size,
                    d.max_elements,
                )
            })
        };
        assert_eq!(t(json!({"type": "boolean"})), Some(("bool".into(), 4, 0)));
        assert_eq!(
            t(json!({"type": "integer", "format": "int32"})),
            Some(("int".into(), 1, 0))
        );
        assert_eq!(t(json!({"type": "number"})), Some(("double".into(), 1, 0)));
        assert_eq!(
            t(json!({"type": "string"})),
            Some(("string".into(), 2, 3_145_726))
        );
        assert_eq!(
            t(json!({"type": "string", "maxLength": 10})),
            Some(("string".into(), 2, 40))
        );
        assert_eq!(
            t(json!({"type": "string", "enum": ["a", "abcd"]})),
            Some(("string".into(), 2, 4))
        );
        assert_eq!(
            t(json!({"type": "string", "format": "byte", "maxLength": 10})),
            Some(("bytes".into(), 2, 10))
        );
        assert_eq!(
            t(json!({"type": "string", "format": "duration", "maxLength": 3})),
            Some(("google.protobuf.Duration".into(), 3, 32))
        );
        assert_eq!(
            t(json!({"type": "string", "format": "date"})),
            Some(("google.protobuf.Timestamp".into(), 12, 12))
        );
        assert_eq!(
            t(json!({"type": "string", "format": "date-time"})),
            Some(("google.protobuf.Timestamp".into(), 21, 32))
        );
        assert_eq!(
            t(json!({"x-kubernetes-int-or-string": true})),
            Some(("dyn".into(), 1, 3_145_726))
        );
        assert_eq!(
            t(json!({"x-kubernetes-preserve-unknown-fields": true})),
            None
        );
    }

    #[test]
    fn worked_collection_bounds() {
        let max = |v| decl(v, false).map(|d| d.max_elements);
        assert_eq!(
            max(json!({"type": "array", "items": {"type": "number"}})),
            Some(1_572_863)
        );
        assert_eq!(
            max(json!({"type": "array", "items": {"type": "string"}})),
            Some(1_048_575)
        );
        assert_eq!(
            max(json!({"type": "array", "items": {"type": "boolean"}})),
            Some(629_145)
        );
        assert_eq!(
            max(json!({"type": "array", "items": {"type": "string", "format": "date"}})),
            Some(241_978)
        );
        assert_eq!(
            max(
                json!({"type": "array", "items": {"type": "object", "required": ["required"],
                "properties": {"required": {"type": "string"}}}})
            ),
            Some(185_042)
        );
        assert_eq!(
            max(json!({"type": "object", "additionalProperties": {"type": "number"}})),
            Some(449_389)
        );
        assert_eq!(
            max(json!({"type": "object", "additionalProperties": {"type": "string"}})),
            Some(393_215)
        );
        assert_eq!(
            max(json!({"type": "array", "maxItems": -3, "items": {"type": "string"}})),
            Some(0)
        );
        assert_eq!(
            max(json!({"type": "array", "items": {"x-kubernetes-preserve-unknown-fields": true}})),
            None
        );
    }

    #[test]
    fn objects_are_named_and_escaped() {
        let d = decl(
            json!({"type": "object", "properties": {
                "spec": {"type": "object", "properties": {
                    "namespace": {"type": "string"},
                    "a.b": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}}},
                    "m": {"type": "object", "additionalProperties": {"type": "object"}},
                    "1bad": {"type": "string"},
                    "opaque": {"x-kubernetes-preserve-unknown-fields": true}
                }}
            }}),
            true,
        )
        .expect("visible");
        assert_eq!(d.cel_type(), Type::object("selfType0"));
        let p = DeclTypeProvider::new(&d);
        assert_eq!(
            p.field_names("selfType0.spec"),
            ["__namespace__", "a__dot__b", "m"]
                .map(String::from)
                .to_vec()
        );
        assert_eq!(
            p.field_type("selfType0.spec", "namespace"),
            Some(Type::String)
        );
        assert_eq!(
            p.field_type("selfType0.spec", "a__dot__b")
                .map(|t| t.to_string()),
            Some("list(selfType0.spec.a__dot__b.@idx)".into())
        );
        assert_eq!(
            p.field_type("selfType0.spec.a__dot__b.@idx", "x"),
            Some(Type::Int)
        );
        assert_eq!(
            p.field_type("selfType0.spec", "m").map(|t| t.to_string()),
            Some("map(string, selfType0.spec.m.@elem)".into())
        );
        assert_eq!(
            p.field_type("selfType0.metadata", "name"),
            Some(Type::String)
        );
        assert_eq!(p.field_type("selfType0.metadata", "labels"), None);
        assert_eq!(p.field_type("selfType0", "apiVersion"), Some(Type::String));
        assert_eq!(d.estimate_size(["self", "metadata", "name"]), Some(1012));
        assert_eq!(
            d.estimate_size(["oldSelf", "metadata", "generateName"]),
            Some(1008)
        );
        assert_eq!(d.estimate_size(["self", "spec", "m", "@keys"]), Some(0));
        assert_eq!(
            d.estimate_size(["self", "spec", "a__dot__b", "@indices"]),
            None
        );
    }

    /// A [`NamedDeclTypes`] over a tree built under another name answers exactly as the
    /// eagerly named [`DeclTypeProvider`] of a tree built under the view's name.
    #[test]
    fn named_view_answers_as_the_eagerly_named_tree() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "namespace": {"type": "object", "properties": {"if": {"type": "string"}}},
                "a.b": {"type": "array", "items": {"type": "object", "properties": {
                    "x": {"type": "integer"},
                    "l": {"type": "array", "items": {"type": "array", "items": {
                        "type": "object", "properties": {"deep": {"type": "boolean"}}}}}
                }}},
                "m": {"type": "object", "additionalProperties": {"type": "object",
                    "properties": {"v": {"type": "string"}}}},
                "emb": {"type": "object", "x-kubernetes-embedded-resource": true,
                    "properties": {"spec": {"type": "object"}}},
                "1bad": {"type": "string"},
                "opaque": {"x-kubernetes-preserve-unknown-fields": true}
            }}
        }});
        for root in [true, false] {
            let eager = decl(schema.clone(), root).expect("visible");
            let props: JsonSchemaProps = serde_json::from_value(schema.clone()).expect("props");
            let s = Arc::new(Structural::from_props(&props).expect("structural"));
            let other = DeclType::from_schema(&s, root, "object").expect("visible");
            let named = NamedDeclTypes::new(other, "selfType0");
            let p = DeclTypeProvider::new(&eager);
            assert_eq!(named.root_type(), eager.cel_type());
            let mut names: Vec<&Arc<str>> = p.objects.keys().collect();
            names.sort();
            assert!(names.len() >= 8, "{names:?}");
            for name in names {
                assert_eq!(named.find_type(name), p.find_type(name), "{name}");
                let fields = p.field_names(name);
                assert_eq!(named.field_names(name), fields, "{name}");
                for f in fields
                    .iter()
                    .map(String::as_str)
                    .chain(["namespace", "if", "nope"])
                {
                    assert_eq!(
                        named.field_type(name, f),
                        p.field_type(name, f),
                        "{name}.{f}"
                    );
                }
            }
            for missing in [
                "selfType0.",
                "selfType0.spec.a__dot__b",
                "selfType0.spec.m.@idx",
                "selfType0.spec.1bad",
                "selfType0x",
                "object.spec",
                "",
            ] {
                assert_eq!(named.find_type(missing), None, "{missing}");
                assert_eq!(p.find_type(missing), None, "{missing}");
            }
        }
    }

    #[test]
    fn object_min_size_counts_required_without_default() {
        let d = decl(
            json!({"type": "object", "required": ["abc", "d", "e", "hidden"], "properties": {
                "abc": {"type": "string"},
                "d": {"type": "integer", "default": 1},
                "e": {"type": "boolean"},
                "hidden": {"x-kubernetes-preserve-unknown-fields": true}
            }}),
            false,
        )
        .expect("visible");
        assert_eq!(d.min_serialized_size, 2 + (3 + 2 + 4) + (1 + 4 + 4));
        assert_eq!(d.max_cardinality(), 3_145_728 / 21);
    }
}
