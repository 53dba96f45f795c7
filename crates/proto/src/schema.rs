//! OpenAPI v3 schemas for protobuf messages, as skv2's protoc-gen-openapi emits them, plus markers.
//!
//! Messages are inlined wherever they are used (each message is generated once and copied).
//! Recursion is detected: a message that contains itself, directly or through other messages, is an
//! error naming the cycle, unless a field on the cycle carries `+kubebuilder:validation:Type=object`
//! or `Type=value`, which replace that field's schema by an opaque one. Nesting depth and the total
//! size of the output are bounded, so no input can exhaust the stack or memory.

use std::collections::{HashMap, HashSet};

use prost_reflect::{DescriptorPool, EnumDescriptor, FieldDescriptor, Kind, MessageDescriptor};
use serde_json::{Map, Number, Value, json};

use crate::comments::{Comment, DescriptionMode, FileComments};
use crate::diagnostic::Diagnostic;
use crate::markers::{Marker, MarkerKind, OpaqueType, Parsed, Scope, parse_marker};

/// A JSON object holding one schema.
pub type Schema = Map<String, Value>;

/// Messages may nest at most this deep (a message field inside a message field …).
pub const MAX_DEPTH: usize = 100;

/// Generation options. [`Options::default`] is skv2's configuration.
#[derive(Clone, Debug)]
pub struct Options {
    /// 64-bit integers as plain `type: integer` (skv2: on). Off: protoc-gen-openapi's default,
    /// `x-kubernetes-int-or-string: true` beside `type: integer`.
    pub int_native: bool,
    /// Oneofs become a `oneOf` constraint allowing at most one member (skv2: on).
    pub proto_oneof: bool,
    /// How comments become descriptions (skv2: multi-line).
    pub descriptions: DescriptionMode,
    /// Enums as `type: string` with `x-kubernetes-int-or-string` and no value list (skv2: off).
    pub enum_as_int_or_string: bool,
    /// Messages (full names) generated as an opaque object with preserved unknown fields.
    pub additional_empty_schemas: Vec<String>,
    /// Marker lines containing any of these substrings are dropped before parsing.
    pub ignored_marker_substrings: Vec<String>,
    /// Keep only the `Type` and `Required` markers.
    pub disable_kube_markers: bool,
    /// `google.protobuf.FieldMask` as `type: string` (its proto3 JSON form) instead of the object
    /// protoc-gen-openapi derives from the descriptor.
    pub field_mask_as_string: bool,
    /// The most schema nodes generation may produce (a bound on output size).
    pub max_schema_nodes: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            int_native: true,
            proto_oneof: true,
            descriptions: DescriptionMode::Multiline,
            enum_as_int_or_string: false,
            additional_empty_schemas: Vec::new(),
            ignored_marker_substrings: Vec::new(),
            disable_kube_markers: false,
            field_mask_as_string: false,
            max_schema_nodes: 2_000_000,
        }
    }
}

/// A message being generated, and the field through which generation left it (for cycle reports).
struct Frame {
    message: String,
    via: Option<FieldRef>,
}

/// A field, named for messages.
#[derive(Clone)]
struct FieldRef {
    name: String,
    file: String,
    line: Option<u32>,
}

/// Marker lines of one element, parsed, with where they are.
struct Markers {
    list: Vec<(Marker, u32)>,
    file: String,
}

/// Generates schemas from a descriptor pool; collects diagnostics as it goes.
pub struct Generator<'a> {
    pool: &'a DescriptorPool,
    options: &'a Options,
    diagnostics: Vec<Diagnostic>,
    reported: HashSet<(String, Option<u32>, String)>,
    reported_cycles: HashSet<Vec<String>>,
    comments: HashMap<String, FileComments>,
    cache: HashMap<String, (Schema, usize)>,
    /// How many fields in the pool have each message as their type (map values included):
    /// messages used once are not cached, which saves a copy of each subtree.
    uses: HashMap<String, usize>,
    stack: Vec<Frame>,
    nodes: usize,
    over_budget: bool,
    too_deep: bool,
}

impl<'a> Generator<'a> {
    /// A generator over `pool`.
    pub fn new(pool: &'a DescriptorPool, options: &'a Options) -> Self {
        Generator {
            pool,
            options,
            diagnostics: Vec::new(),
            reported: HashSet::new(),
            reported_cycles: HashSet::new(),
            comments: HashMap::new(),
            cache: HashMap::new(),
            uses: count_uses(pool),
            stack: Vec::new(),
            nodes: 0,
            over_budget: false,
            too_deep: false,
        }
    }

    /// The diagnostics found so far.
    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.diagnostics
    }

    /// The schemas of every top-level message and enum of the file named `file`, keyed
    /// `package.Name`.
    pub fn file_schemas(&mut self, file: &str, out: &mut Vec<(String, Schema)>) {
        let Some(fd) = self.pool.get_file_by_name(file) else {
            return;
        };
        for msg in fd.messages() {
            let schema = self.message_schema(&msg);
            out.push((msg.full_name().to_owned(), schema));
        }
        for en in fd.enums() {
            let mut schema = self.enum_schema(&en);
            let comment = self.comment(&en.parent_file(), en.path());
            if let Some(d) = comment.description {
                schema.insert("description".into(), Value::String(d));
            }
            out.push((en.full_name().to_owned(), schema));
        }
    }

    /// The schema of one message, as it stands at the top level (with its own description).
    pub fn message_schema(&mut self, msg: &MessageDescriptor) -> Schema {
        match self.message_type_schema(msg, None) {
            Some(mut schema) => {
                let comment = self.comment(&msg.parent_file(), msg.path());
                if let Some(d) = comment.description {
                    schema.insert("description".into(), Value::String(d));
                }
                schema
            }
            None => Schema::new(),
        }
    }

    /// The comment of the element at `path` in `file`.
    fn comment(&mut self, file: &prost_reflect::FileDescriptor, path: &[i32]) -> Comment {
        let mode = self.options.descriptions;
        self.file_comments(file).comment(path, mode)
    }

    fn file_comments(&mut self, file: &prost_reflect::FileDescriptor) -> &FileComments {
        self.comments
            .entry(file.name().to_owned())
            .or_insert_with(|| FileComments::new(file.file_descriptor_proto()))
    }

    /// Records a diagnostic once.
    fn report(&mut self, d: Diagnostic) {
        let key = (
            d.file.clone().unwrap_or_default(),
            d.line,
            d.message.clone(),
        );
        if self.reported.insert(key) {
            self.diagnostics.push(d);
        }
    }

    /// Counts `n` new schema nodes against the budget; false once it is spent.
    fn spend(&mut self, n: usize) -> bool {
        self.nodes = self.nodes.saturating_add(n);
        if self.nodes > self.options.max_schema_nodes {
            if !self.over_budget {
                self.over_budget = true;
                let max = self.options.max_schema_nodes;
                self.report(Diagnostic::error(
                    None,
                    None,
                    format!(
                        "the generated schemas exceed {max} nodes: messages are inlined at every use, \
                         so a message used many times over many levels multiplies; mark some fields \
                         +kubebuilder:validation:Type=object"
                    ),
                ));
            }
            return false;
        }
        true
    }

    /// Parses the marker lines of a comment, reporting unknown and malformed ones.
    fn markers(&mut self, comment: &Comment, file: &str) -> Markers {
        let mut list = Vec::new();
        for (text, line) in &comment.markers {
            if self
                .options
                .ignored_marker_substrings
                .iter()
                .any(|s| !s.is_empty() && text.contains(s.as_str()))
            {
                continue;
            }
            match parse_marker(text) {
                Ok(Parsed::Marker(m)) => {
                    if self.options.disable_kube_markers
                        && !matches!(m.kind, MarkerKind::Type(_) | MarkerKind::Required)
                    {
                        continue;
                    }
                    list.push((m, *line));
                }
                Ok(Parsed::Unknown(name)) => self.report(Diagnostic::warning(
                    Some(file),
                    Some(*line),
                    format!("unknown marker {name}: ignored"),
                )),
                Err(why) => self.report(Diagnostic::error(
                    Some(file),
                    Some(*line),
                    format!("malformed marker: {why}"),
                )),
            }
        }
        Markers {
            list,
            file: file.to_owned(),
        }
    }

    /// The schema of a message used as a type (no description), or `None` when it cannot be built
    /// (a cycle, too deep, over budget: each already reported). `via` is the field being entered.
    fn message_type_schema(
        &mut self,
        msg: &MessageDescriptor,
        via: Option<FieldRef>,
    ) -> Option<Schema> {
        if self.over_budget {
            return None;
        }
        if let Some(s) = self.special_schema(msg) {
            return Some(s);
        }
        let name = msg.full_name();
        if let Some(n) = self.cache.get(name).map(|(_, n)| *n) {
            // Spend before copying, so that an over-budget copy is never made.
            if !self.spend(n) {
                return None;
            }
            return self.cache.get(name).map(|(schema, _)| schema.clone());
        }
        if let Some(start) = self.stack.iter().position(|f| f.message == name) {
            if let Some(last) = self.stack.last_mut() {
                last.via = via;
            }
            self.report_cycle(start, name);
            return None;
        }
        if self.stack.len() >= MAX_DEPTH {
            if self.too_deep {
                return None;
            }
            self.too_deep = true;
            let (file, line) = via.map(|v| (Some(v.file), v.line)).unwrap_or((None, None));
            self.report(Diagnostic::error(
                file.as_deref(),
                line,
                format!("messages nest more than {MAX_DEPTH} levels deep at {name}"),
            ));
            return None;
        }
        if let Some(last) = self.stack.last_mut() {
            last.via = via;
        }
        self.stack.push(Frame {
            message: name.to_owned(),
            via: None,
        });
        let before = self.nodes;
        let built = self.build_message(msg);
        self.stack.pop();
        let built = built?;
        let n = self.nodes.saturating_sub(before).max(1);
        if self.uses.get(name).copied().unwrap_or(0) > 1 {
            self.cache.insert(name.to_owned(), (built.clone(), n));
        }
        Some(built)
    }

    /// Reports the cycle that starts at stack frame `start` and comes back to `name`.
    fn report_cycle(&mut self, start: usize, name: &str) {
        let frames = self.stack.get(start..).unwrap_or_default();
        // One report per cycle, whichever message generation entered it from.
        let mut members: Vec<String> = frames.iter().map(|f| f.message.clone()).collect();
        members.sort();
        if !self.reported_cycles.insert(members) {
            return;
        }
        let mut path = Vec::new();
        let mut fields = Vec::new();
        for f in frames {
            match &f.via {
                Some(v) => {
                    path.push(format!("{}.{}", f.message, v.name));
                    fields.push(v.clone());
                }
                None => path.push(f.message.clone()),
            }
        }
        path.push(name.to_owned());
        let first = fields.first().cloned();
        let suggestions: Vec<String> = frames
            .iter()
            .filter_map(|f| {
                f.via.as_ref().map(|v| match v.line {
                    Some(line) => format!("{}.{} ({}:{line})", f.message, v.name, v.file),
                    None => format!("{}.{} ({})", f.message, v.name, v.file),
                })
            })
            .collect();
        let message = format!(
            "recursive message: {}; a schema cannot contain itself: put +kubebuilder:validation:Type=object \
             (or Type=value) on one of the fields of the cycle: {}",
            path.join(" -> "),
            suggestions.join(", ")
        );
        let (file, line) = first
            .map(|f| (Some(f.file), f.line))
            .unwrap_or((None, None));
        self.report(Diagnostic::error(file.as_deref(), line, message));
    }

    /// Fixed schemas of well-known and configured types.
    fn special_schema(&mut self, msg: &MessageDescriptor) -> Option<Schema> {
        let name = msg.full_name();
        let preserve = || json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true});
        let v = match name {
            "google.protobuf.Struct" | "google.protobuf.Any" => preserve(),
            "google.protobuf.Value" => json!({"x-kubernetes-preserve-unknown-fields": true}),
            "google.protobuf.ListValue" => json!({"type": "array", "items": {"type": "object"}}),
            "google.protobuf.Empty" => json!({"type": "object", "maxProperties": 0}),
            "google.protobuf.Duration" => json!({"type": "string"}),
            "google.protobuf.Timestamp" => json!({"type": "string", "format": "date-time"}),
            "google.protobuf.BoolValue" => json!({"type": "boolean", "nullable": true}),
            "google.protobuf.StringValue" => json!({"type": "string", "nullable": true}),
            "google.protobuf.DoubleValue" | "google.protobuf.FloatValue" => {
                json!({"type": "number", "nullable": true})
            }
            "google.protobuf.Int32Value" => {
                json!({"type": "integer", "nullable": true, "minimum": i32::MIN, "maximum": i32::MAX})
            }
            "google.protobuf.UInt32Value" => {
                json!({"type": "integer", "nullable": true, "minimum": 0, "maximum": u32::MAX})
            }
            // protoc-gen-openapi writes the 64-bit bounds as floats.
            #[allow(clippy::cast_precision_loss)]
            "google.protobuf.Int64Value" => {
                json!({"type": "integer", "nullable": true, "minimum": i64::MIN as f64, "maximum": i64::MAX as f64})
            }
            #[allow(clippy::cast_precision_loss)]
            "google.protobuf.UInt64Value" => {
                json!({"type": "integer", "nullable": true, "minimum": 0, "maximum": u64::MAX as f64})
            }
            "google.protobuf.FieldMask" if self.options.field_mask_as_string => {
                json!({"type": "string"})
            }
            _ if self
                .options
                .additional_empty_schemas
                .iter()
                .any(|n| n == name) =>
            {
                preserve()
            }
            _ => return None,
        };
        match v {
            Value::Object(m) => self.spend(1).then_some(m),
            _ => None,
        }
    }

    /// Builds a message's object schema: properties, required, oneofs, message markers.
    fn build_message(&mut self, msg: &MessageDescriptor) -> Option<Schema> {
        if !self.spend(1) {
            return None;
        }
        let file = msg.parent_file();
        let comment = self.comment(&file, msg.path());
        let markers = self.markers(&comment, file.name());
        let mut properties = Schema::new();
        let mut required = Vec::new();
        let mut ok = true;
        for field in msg.fields() {
            match self.field_schema(&field) {
                Some((schema, is_required)) => {
                    if is_required {
                        required.push(Value::String(field.json_name().to_owned()));
                    }
                    properties.insert(field.json_name().to_owned(), Value::Object(schema));
                }
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        let mut schema = Schema::new();
        schema.insert("type".into(), Value::from("object"));
        if !properties.is_empty() {
            schema.insert("properties".into(), Value::Object(properties));
        }
        if !required.is_empty() {
            schema.insert("required".into(), Value::Array(required));
        }
        if self.options.proto_oneof {
            add_oneofs(msg, &mut schema);
        }
        let mut unused = false;
        self.apply_markers(&mut schema, &markers, false, &mut unused, msg.full_name());
        Some(schema)
    }

    /// A field's schema (with its description and markers) and whether it is required.
    fn field_schema(&mut self, field: &FieldDescriptor) -> Option<(Schema, bool)> {
        let file = field.parent_file();
        let comment = self.comment(&file, field.path());
        let line = self.file_comments(&file).line(field.path());
        let markers = self.markers(&comment, file.name());
        let what = field.full_name().to_owned();
        let opaque = markers.list.iter().find_map(|(m, _)| match m.kind {
            MarkerKind::Type(t) => Some(t),
            _ => None,
        });
        let mut schema = if let Some(t) = opaque {
            if !self.spend(1) {
                return None;
            }
            let inner = match t {
                OpaqueType::Object => {
                    json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
                }
                OpaqueType::Value => json!({"x-kubernetes-preserve-unknown-fields": true}),
            };
            let v = if field.is_list() {
                json!({"type": "array", "items": inner})
            } else {
                inner
            };
            match v {
                Value::Object(m) => m,
                _ => Schema::new(),
            }
        } else {
            let via = FieldRef {
                name: field.name().to_owned(),
                file: file.name().to_owned(),
                line,
            };
            if field.is_map() {
                let Kind::Message(entry) = field.kind() else {
                    return None;
                };
                let value = entry.map_entry_value_field();
                let mut value_schema = self.value_schema(&value.kind(), Some(via))?;
                value_schema.remove("description");
                let mut m = Schema::new();
                m.insert("type".into(), Value::from("object"));
                m.insert("additionalProperties".into(), Value::Object(value_schema));
                m
            } else {
                let item = self.value_schema(&field.kind(), Some(via))?;
                if field.is_list() {
                    let mut m = Schema::new();
                    m.insert("type".into(), Value::from("array"));
                    m.insert("items".into(), Value::Object(item));
                    m
                } else {
                    let mut item = item;
                    item.remove("description");
                    item
                }
            }
        };
        if let Some(d) = comment.description {
            schema.insert("description".into(), Value::String(d));
        }
        let mut required = false;
        self.apply_markers(&mut schema, &markers, true, &mut required, &what);
        Some((schema, required))
    }

    /// The schema of one value of a field's type (a list item, a map value, or the field itself).
    fn value_schema(&mut self, kind: &Kind, via: Option<FieldRef>) -> Option<Schema> {
        if let Kind::Message(msg) = kind {
            let mut schema = self.message_type_schema(msg, via)?;
            // As protoc-gen-openapi: a message keeps its own description where it is a list item.
            if self.special_schema_name(msg) {
                return Some(schema);
            }
            let comment = self.comment(&msg.parent_file(), msg.path());
            if let Some(d) = comment.description {
                schema.insert("description".into(), Value::String(d));
            }
            return Some(schema);
        }
        if !self.spend(1) {
            return None;
        }
        let int64 = |format: &str, native: bool| {
            let mut m = json!({"type": "integer", "format": format});
            if !native {
                m["x-kubernetes-int-or-string"] = Value::Bool(true);
            }
            m
        };
        let native = self.options.int_native;
        let v = match kind {
            Kind::Double | Kind::Float => json!({"type": "number"}),
            Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 | Kind::Fixed32 => {
                json!({"type": "integer", "format": "int32"})
            }
            Kind::Uint32 => json!({"type": "integer", "minimum": 0, "maximum": u32::MAX}),
            Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 | Kind::Fixed64 => int64("int64", native),
            Kind::Uint64 if native => json!({"type": "integer", "minimum": 0, "format": "uint64"}),
            Kind::Uint64 => int64("int64", false),
            Kind::Bool => json!({"type": "boolean"}),
            Kind::String => json!({"type": "string"}),
            Kind::Bytes => json!({"type": "string", "format": "byte"}),
            Kind::Enum(en) => Value::Object(self.enum_schema(en)),
            Kind::Message(_) => return None,
        };
        match v {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// Whether a message has a fixed schema (those never carry the message's comment).
    fn special_schema_name(&self, msg: &MessageDescriptor) -> bool {
        msg.full_name().starts_with("google.protobuf.")
            || self
                .options
                .additional_empty_schemas
                .iter()
                .any(|n| n == msg.full_name())
    }

    /// An enum's schema (no description).
    fn enum_schema(&mut self, en: &EnumDescriptor) -> Schema {
        let mut m = Schema::new();
        m.insert("type".into(), Value::from("string"));
        if self.options.enum_as_int_or_string {
            m.insert("x-kubernetes-int-or-string".into(), Value::Bool(true));
        } else {
            let values = en
                .values()
                .map(|v| Value::String(v.name().to_owned()))
                .collect();
            m.insert("enum".into(), Value::Array(values));
        }
        m
    }

    /// Applies parsed markers to `schema`. `on_field` tells field from message markers; `required`
    /// receives `Required`/`Optional`. `what` names the element in errors.
    fn apply_markers(
        &mut self,
        schema: &mut Schema,
        markers: &Markers,
        on_field: bool,
        required: &mut bool,
        what: &str,
    ) {
        let mut optional = false;
        let mut schemaless = false;
        for (marker, line) in &markers.list {
            let result = if !on_field && marker.kind.field_only() {
                Err(format!(
                    "{} applies to fields only, not to message {what}",
                    marker_name(&marker.kind)
                ))
            } else {
                match &marker.kind {
                    MarkerKind::Required => {
                        *required = true;
                        Ok(())
                    }
                    MarkerKind::Optional => {
                        optional = true;
                        Ok(())
                    }
                    MarkerKind::Schemaless => {
                        schemaless = true;
                        Ok(())
                    }
                    MarkerKind::Type(_) => Ok(()),
                    kind => match target(schema, marker.scope) {
                        Some(t) => apply(t, kind),
                        None => Err(format!(
                            "{} markers apply to {} fields; {what} is not one",
                            scope_name(marker.scope),
                            if marker.scope == Scope::Items {
                                "repeated"
                            } else {
                                "map"
                            }
                        )),
                    },
                }
            };
            if let Err(why) = result {
                self.report(Diagnostic::error(
                    Some(&markers.file),
                    Some(*line),
                    format!("{what}: {why}"),
                ));
            }
        }
        if optional {
            // As controller-tools: an explicit Optional wins over Required.
            *required = false;
        }
        if schemaless {
            schema.retain(|k, _| k == "description");
        }
    }
}

/// Counts, for each message, the fields of the pool whose type (or map value type) it is.
fn count_uses(pool: &DescriptorPool) -> HashMap<String, usize> {
    let mut uses: HashMap<String, usize> = HashMap::new();
    for msg in pool.all_messages() {
        for field in msg.fields() {
            let kind = match field.kind() {
                Kind::Message(m) if m.is_map_entry() => m.map_entry_value_field().kind(),
                k => k,
            };
            if let Kind::Message(m) = kind
                && !m.is_map_entry()
            {
                *uses.entry(m.full_name().to_owned()).or_default() += 1;
            }
        }
    }
    uses
}

/// The schema a marker of `scope` applies to.
fn target(schema: &mut Schema, scope: Scope) -> Option<&mut Schema> {
    match scope {
        Scope::Own => Some(schema),
        Scope::Items => schema.get_mut("items").and_then(Value::as_object_mut),
        Scope::MapValues => schema
            .get_mut("additionalProperties")
            .and_then(Value::as_object_mut),
    }
}

fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Own => "field",
        Scope::Items => "item",
        Scope::MapValues => "map-value",
    }
}

/// A marker's name, for messages.
fn marker_name(kind: &MarkerKind) -> &'static str {
    match kind {
        MarkerKind::XValidation(_) => "XValidation",
        MarkerKind::Type(_) => "Type",
        MarkerKind::Number(k, _) | MarkerKind::Bool(k, _) | MarkerKind::Count(k, _) => k,
        MarkerKind::Pattern(_) => "Pattern",
        MarkerKind::Format(_) => "Format",
        MarkerKind::Enum(_) => "Enum",
        MarkerKind::Default(_) => "default",
        MarkerKind::Example(_) => "example",
        MarkerKind::Required => "Required",
        MarkerKind::Optional => "Optional",
        MarkerKind::Nullable => "Nullable",
        MarkerKind::EmbeddedResource => "EmbeddedResource",
        MarkerKind::Schemaless => "Schemaless",
        MarkerKind::XIntOrString => "XIntOrString",
        MarkerKind::PreserveUnknownFields => "PreserveUnknownFields",
        MarkerKind::ListType(_) => "listType",
        MarkerKind::ListMapKey(_) => "listMapKey",
        MarkerKind::MapType(_) => "mapType",
    }
}

/// Checks that `schema` has one of `types` (a schema without `type` accepts everything).
fn expect_type(schema: &Schema, marker: &str, types: &[&str]) -> Result<(), String> {
    match schema.get("type").and_then(Value::as_str) {
        Some(t) if !types.contains(&t) => Err(format!(
            "{marker} applies to {} schemas, not to type {t}",
            types.join(" or ")
        )),
        _ => Ok(()),
    }
}

/// Applies one schema-changing marker.
fn apply(t: &mut Schema, kind: &MarkerKind) -> Result<(), String> {
    const NUMERIC: &[&str] = &["integer", "number"];
    match kind {
        MarkerKind::XValidation(rule) => {
            let list = t
                .entry("x-kubernetes-validations")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(items) = list {
                items.push(rule.to_json());
            }
        }
        MarkerKind::Number(k, n) => {
            expect_type(t, k, NUMERIC)?;
            if *k == "multipleOf" {
                if n.as_f64().is_some_and(|f| f <= 0.0) {
                    return Err("multipleOf must be greater than 0".into());
                }
                if t.get("type").and_then(Value::as_str) == Some("integer")
                    && !(n.is_i64() || n.is_u64())
                {
                    return Err(format!(
                        "multipleOf {n} must be an integer on an integer field"
                    ));
                }
            }
            t.insert((*k).into(), Value::Number(n.clone()));
        }
        MarkerKind::Bool(k, b) => {
            if *k == "uniqueItems" {
                expect_type(t, k, &["array"])?;
            } else {
                expect_type(t, k, NUMERIC)?;
            }
            t.insert((*k).into(), Value::Bool(*b));
        }
        MarkerKind::Count(k, n) => {
            let types: &[&str] = match *k {
                "maxLength" | "minLength" => &["string"],
                "maxItems" | "minItems" => &["array"],
                _ => &["object"],
            };
            expect_type(t, k, types)?;
            t.insert((*k).into(), Value::Number(Number::from(*n)));
        }
        MarkerKind::Pattern(p) => {
            expect_type(t, "Pattern", &["string"])?;
            t.insert("pattern".into(), Value::String(p.clone()));
        }
        MarkerKind::Format(f) => {
            t.insert("format".into(), Value::String(f.clone()));
        }
        MarkerKind::Enum(values) => {
            t.insert("enum".into(), Value::Array(values.clone()));
        }
        MarkerKind::Default(v) => {
            t.insert("default".into(), v.clone());
        }
        MarkerKind::Example(v) => {
            t.insert("example".into(), v.clone());
        }
        MarkerKind::Nullable => {
            t.insert("nullable".into(), Value::Bool(true));
        }
        MarkerKind::EmbeddedResource => {
            t.insert("x-kubernetes-embedded-resource".into(), Value::Bool(true));
        }
        MarkerKind::XIntOrString => {
            t.insert("x-kubernetes-int-or-string".into(), Value::Bool(true));
        }
        MarkerKind::PreserveUnknownFields => {
            t.insert(
                "x-kubernetes-preserve-unknown-fields".into(),
                Value::Bool(true),
            );
        }
        MarkerKind::ListType(lt) => {
            expect_type(t, "listType", &["array"])?;
            t.insert("x-kubernetes-list-type".into(), Value::String(lt.clone()));
        }
        MarkerKind::ListMapKey(key) => {
            expect_type(t, "listMapKey", &["array"])?;
            let list = t
                .entry("x-kubernetes-list-map-keys")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(items) = list {
                items.push(Value::String(key.clone()));
            }
        }
        MarkerKind::MapType(mt) => {
            expect_type(t, "mapType", &["object"])?;
            t.insert("x-kubernetes-map-type".into(), Value::String(mt.clone()));
        }
        MarkerKind::Type(_)
        | MarkerKind::Required
        | MarkerKind::Optional
        | MarkerKind::Schemaless => {}
    }
    Ok(())
}

/// Adds protoc-gen-openapi's `proto_oneof` constraint: at most one member of each oneof is set.
fn add_oneofs(msg: &MessageDescriptor, schema: &mut Schema) {
    let mut constraints = Vec::new();
    for oneof in msg.oneofs().filter(|o| !o.is_synthetic()) {
        let names: Vec<Value> = oneof
            .fields()
            .map(|f| json!({"required": [f.json_name()]}))
            .collect();
        let mut branches = vec![json!({"not": {"anyOf": names.clone()}})];
        branches.extend(names);
        constraints.push(Value::Array(branches));
    }
    match constraints.len() {
        0 => {}
        1 => {
            if let Some(c) = constraints.pop() {
                schema.insert("oneOf".into(), c);
            }
        }
        _ => {
            let all = constraints
                .into_iter()
                .map(|c| json!({"oneOf": c}))
                .collect();
            schema.insert("allOf".into(), Value::Array(all));
        }
    }
}
