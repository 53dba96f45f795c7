//! OpenAPI value validation as kube-openapi (`pkg/validation/validate`) does it for custom
//! resources (reference §2), with KEP-4008 ratcheting (§5.3).
//!
//! Every node runs, in kube-openapi's order (`NewSchemaValidator`, schema.go), the validators
//! that apply to it: type, junctors (`anyOf`, `oneOf`, `allOf`, `not`), string (stopping at the
//! first failing of `maxLength`, `minLength`, `pattern`), format, number (`multipleOf`,
//! `minimum`, `maximum`), slice (items, then `minItems`, `maxItems`, `uniqueItems`), enum,
//! object (`minProperties`, `maxProperties`, fields, `required`). Errors merge as `Result.Merge`
//! merges them (one per text) and in the order Go emits them. Errors carry
//! kube-openapi's dotted path (`spec.m.key`, `spec.items[0]`) and text; [`OpenApiError::to_field_error`]
//! converts them the way apiextensions does (`kubeOpenAPIResultToFieldErrors`).
//!
//! Ratcheting: a validation may carry the old object. Property and list-map item children are
//! then correlated with their old counterparts (`crate::correlation`, the correlation the CEL
//! rules ratchet with too); a correlated node whose subtree is unchanged drops every error found
//! in it. A resource root's `apiVersion` and `kind` never correlate
//! (`ratchetingValueValidator.SubPropertyValidator`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use cel::go::regexp::{Regex, RegexError};
use serde_json::Value;
use smallvec::SmallVec;

use super::formats;
use super::numeric_formats::{self, Repr};
use crate::correlation::Correlation;
use crate::field::{BadValue, FieldError, Path};
use crate::go::fmt::{FloatStyle, format_float};
use crate::schema_props::{
    JsonSchemaProps, SchemaLookup, SchemaOrArray, SchemaOrBool, SchemaOrStringArray,
};
use crate::values::{Json, JsonObject};
use crate::version::KubeVersion;

mod plan;
pub(crate) use plan::NodePlan;

/// A node of the new object correlated with its old value.
type Correlated<'a> = Correlation<'a, Json, JsonSchemaProps>;

/// How deep values may nest before validation stops descending (an error is reported).
pub const MAX_VALUE_DEPTH: usize = 1000;

/// What went wrong, with the data apiextensions needs to build a `field.Error`.
#[derive(Clone, Debug, PartialEq)]
pub enum ErrorKind {
    /// `required`: `field.Required`.
    Required,
    /// `enum`: `field.NotSupported` with the allowed values rendered.
    Enum(Vec<String>),
    /// `maxLength`: `field.TooLong`.
    TooLong(i64),
    /// `maxItems`/`maxProperties`: `field.TooMany`.
    TooMany {
        /// How many items or properties the value has.
        actual: i64,
        /// The limit.
        max: i64,
    },
    /// `type` and `format`: `field.TypeInvalid`.
    TypeInvalid,
    /// Every other `Validation` error: `field.Invalid`.
    Invalid,
    /// A plain (non-`Validation`) error: junctor summaries; path nil, value `""`.
    Plain,
}

/// One kube-openapi error.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenApiError {
    /// What kind of error.
    pub kind: ErrorKind,
    /// kube-openapi's path (`spec.items[0]`).
    pub name: String,
    /// The offending value.
    pub value: BadValue,
    /// The message (`spec.x in body should match '^a'`).
    pub message: String,
}

impl OpenApiError {
    /// `kubeOpenAPIResultToFieldErrors` for one error: the field path is `base` + the kube-openapi
    /// path with one leading `.` removed (map keys stay raw).
    pub fn to_field_error(&self, base: &Path) -> FieldError {
        let err_path = || {
            if self.name.is_empty() || self.name == "." {
                base.clone()
            } else {
                base.child(self.name.strip_prefix('.').unwrap_or(&self.name))
            }
        };
        match &self.kind {
            ErrorKind::Required => FieldError::required(err_path(), ""),
            ErrorKind::Enum(values) => {
                FieldError::not_supported(err_path(), self.value.clone(), values)
            }
            ErrorKind::TooLong(max) => FieldError::too_long(err_path(), *max),
            ErrorKind::TooMany { actual, max } => FieldError::too_many(err_path(), *actual, *max),
            ErrorKind::TypeInvalid => FieldError::new(
                crate::field::ErrorType::TypeInvalid,
                err_path(),
                self.value.clone(),
                self.message.clone(),
            ),
            ErrorKind::Invalid => {
                FieldError::invalid(err_path(), self.value.clone(), self.message.clone())
            }
            ErrorKind::Plain => FieldError::invalid(
                base.clone(),
                BadValue::String(String::new()),
                self.message.clone(),
            ),
        }
    }
}

/// The result of validating one node (kube-openapi's `Result`): errors, each text once, plus
/// `MatchCount` (one per validator that applied and per node, as `SchemaValidator.Validate`
/// counts), which picks the reported branch of a failed `anyOf`/`oneOf`.
#[derive(Debug, Default)]
pub struct NodeResult {
    /// The errors, each text once.
    pub errors: Vec<OpenApiError>,
    /// kube-openapi's `MatchCount`.
    pub matches: usize,
    /// The texts of `errors` once there are more than [`LINEAR_TEXTS`] (`Result.AddErrors`
    /// drops an error whose text is already there); fewer are compared in order, so that the
    /// many nodes without errors build no set.
    texts: Option<std::collections::HashSet<String, foldhash::fast::RandomState>>,
}

impl NodeResult {
    /// `Result.AddErrors` for one error.
    fn push(&mut self, e: OpenApiError) {
        let new = match &mut self.texts {
            Some(texts) => texts.insert(e.message.clone()),
            None if self.errors.len() < LINEAR_TEXTS => {
                !self.errors.iter().any(|x| x.message == e.message)
            }
            None => {
                let mut texts: std::collections::HashSet<String, _> =
                    self.errors.iter().map(|x| x.message.clone()).collect();
                let new = texts.insert(e.message.clone());
                self.texts = Some(texts);
                new
            }
        };
        if new {
            self.errors.push(e);
        }
    }

    /// `Result.Merge`.
    fn merge(&mut self, other: NodeResult) {
        if !other.errors.is_empty() {
            for e in other.errors {
                self.push(e);
            }
        }
        self.matches += other.matches;
    }

    /// Drops every error (a ratcheted subtree).
    fn clear_errors(&mut self) {
        self.errors.clear();
        self.texts = None;
    }

    /// Whether no error was found.
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }
}

/// The constraint of a `stringValidator` a string fails.
enum StringFailure<'s> {
    /// `maxLength`.
    TooLong(i64),
    /// `minLength`.
    TooShort(i64),
    /// `pattern`, which does not match.
    NoMatch(&'s str),
    /// `pattern`, which does not compile.
    BadPattern(&'s str, RegexError),
}

/// Up to how many errors a [`NodeResult`] finds repeated texts by comparing them in order.
const LINEAR_TEXTS: usize = 8;

/// Compiled `pattern`s by their text (Go's compile error for a pattern that does not compile).
pub type Patterns = HashMap<String, Result<Regex, RegexError>>;

/// Every `pattern` of `schema` and of the schemas below it, compiled.
pub fn compile_patterns(schema: &JsonSchemaProps) -> Patterns {
    fn walk(s: &JsonSchemaProps, out: &mut Patterns, depth: usize) {
        if depth > MAX_VALUE_DEPTH {
            return;
        }
        if let Some(p) = &s.pattern {
            out.entry(p.clone()).or_insert_with(|| Regex::cached(p));
        }
        for c in s.subschemas() {
            walk(c, out, depth + 1);
        }
    }
    let mut out = Patterns::new();
    walk(schema, &mut out, 0);
    out
}

/// A kube-openapi schema validator for one Kubernetes version. Holds compiled patterns: those
/// compiled beforehand ([`SchemaValidator::with_patterns`]) and those it compiles itself.
pub struct SchemaValidator {
    version: KubeVersion,
    compiled: Option<Arc<Patterns>>,
    patterns: RefCell<Patterns>,
}

/// JSON kind names as kube-openapi reports them.
fn schema_type_of(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Double(_) => "number",
        Json::Int(_) => "integer",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

/// The Go-ish format kube-openapi infers from data (`int64`, `float64`, else empty).
fn format_of(v: &Json) -> &'static str {
    match v {
        Json::Double(_) => "float64",
        Json::Int(_) => "int64",
        _ => "",
    }
}

/// `fmt`'s `%v` for a float.
fn go_v(f: f64) -> String {
    format_float(f, false, FloatStyle::V)
}

/// Go's `int64(f)` on amd64: truncation, and `math.MinInt64` for NaN and out-of-range values.
pub fn go_f64_to_i64(f: f64) -> i64 {
    // 2^63 is exactly representable; every float in [-2^63, 2^63) converts.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f.is_nan() || !(-TWO_63..TWO_63).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

/// go-openapi/swag `IsFloat64AJSONInteger`: integral within ±(2^53−1), up to a relative error
/// of 1e-9.
pub fn is_float64_a_json_integer(f: f64) -> bool {
    const MAX_JSON_FLOAT: f64 = 9_007_199_254_740_991.0;
    const EPSILON: f64 = 1e-9;
    if f.is_nan() || f.is_infinite() || !(-MAX_JSON_FLOAT..=MAX_JSON_FLOAT).contains(&f) {
        return false;
    }
    let fa = f.abs();
    // Go's `uint64(f)` on amd64 for negative values reinterprets `int64(f)`.
    let g = if f < 0.0 {
        (f as i64) as u64 as f64
    } else {
        (f as u64) as f64
    };
    let ga = g.abs();
    let diff = (f - g).abs();
    if f == g || f == (f as i64) as f64 {
        return true;
    }
    if f == 0.0 || g == 0.0 || diff < f64::MIN_POSITIVE * f64::EPSILON {
        return diff < EPSILON * (f64::MIN_POSITIVE * f64::EPSILON);
    }
    diff / (fa + ga).min(f64::MAX) < EPSILON
}

/// The value as a float, as kube-openapi's `asFloat64`.
fn as_f64(v: &Json) -> Option<f64> {
    match v {
        Json::Int(i) => Some(*i as f64),
        Json::Double(d) => Some(*d),
        _ => None,
    }
}

/// The bad value of enum and bound errors: the data itself.
pub fn bad_value_of(v: &Value) -> BadValue {
    match v {
        Value::Null => BadValue::Null,
        Value::Bool(b) => BadValue::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) if !n.is_f64() => BadValue::Int(i),
            _ => BadValue::Float(n.as_f64().unwrap_or(0.0)),
        },
        Value::String(s) => BadValue::String(s.clone()),
        other => BadValue::Json(other.clone()),
    }
}

/// A child path: `parent.key`, no dot at the root.
/// The correlation of field `k` of a correlated object; a resource root's `apiVersion` and
/// `kind` never correlate (`ratchetingValueValidator.SubPropertyValidator`, `isTypeMetaField`).
fn child_correlation<'a>(
    c: &Correlated<'a>,
    k: &str,
    resource_root: bool,
) -> Option<Correlated<'a>> {
    if resource_root && (k == "apiVersion" || k == "kind") {
        return None;
    }
    c.key(k)
}

fn child_path(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// One step below a node, appended to the path being walked.
enum Step<'k> {
    /// `.key` (no dot at the root).
    Key(&'k str),
    /// `[i]`.
    Index(usize),
}

/// The types a schema accepts: one, two (`x-kubernetes-int-or-string` is `integer,string`) or
/// none.
struct Types<'s> {
    names: [&'s str; 2],
    len: usize,
}

impl<'s> Types<'s> {
    fn as_slice(&self) -> &[&'s str] {
        &self.names[..self.len]
    }
}

impl SchemaValidator {
    /// A validator for `version` that compiles patterns as it meets them.
    pub fn new(version: KubeVersion) -> SchemaValidator {
        SchemaValidator {
            version,
            compiled: None,
            patterns: RefCell::new(HashMap::new()),
        }
    }

    /// A validator that looks patterns up in `compiled` (see [`compile_patterns`]) before
    /// compiling them itself.
    pub fn with_patterns(version: KubeVersion, compiled: Arc<Patterns>) -> SchemaValidator {
        SchemaValidator {
            compiled: Some(compiled),
            ..SchemaValidator::new(version)
        }
    }

    /// Validates `value` against `schema` with kube-openapi path `path` (empty at the root).
    /// With `old`, errors in unchanged correlated subtrees are dropped (ratcheting).
    pub fn validate(
        &self,
        value: &Json,
        schema: &JsonSchemaProps,
        path: &str,
        old: Option<&Json>,
    ) -> NodeResult {
        let corr = old.map(|o| Correlation::new(value, o, schema));
        self.node(value, schema, &mut path.to_string(), corr.as_ref(), true, 0)
    }

    /// Validates a node correlated with an old value (ratcheting below a resource root, e.g.
    /// `status` on a status update).
    pub fn validate_correlated(
        &self,
        value: &Json,
        schema: &JsonSchemaProps,
        path: &str,
        old: &Json,
    ) -> NodeResult {
        let corr = Correlation::new(value, old, schema);
        self.node(value, schema, &mut path.to_string(), Some(&corr), false, 0)
    }

    /// [`SchemaValidator::node`] for the child `step` of the node at `path`; `path` is
    /// restored afterwards.
    fn child(
        &self,
        value: &Json,
        schema: &JsonSchemaProps,
        path: &mut String,
        step: Step<'_>,
        corr: Option<&Correlated<'_>>,
        depth: usize,
    ) -> NodeResult {
        let len = path.len();
        match step {
            Step::Key(k) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
            }
            Step::Index(i) => {
                path.push('[');
                path.push_str(itoa::Buffer::new().format(i));
                path.push(']');
            }
        }
        let out = self.node(value, schema, path, corr, false, depth + 1);
        path.truncate(len);
        out
    }

    /// The types a schema accepts (`x-kubernetes-int-or-string` is `integer,string`).
    fn types(schema: &JsonSchemaProps) -> Types<'_> {
        if schema.x_int_or_string {
            return Types {
                names: ["integer", "string"],
                len: 2,
            };
        }
        match schema.type_.as_deref() {
            Some(t) if !t.is_empty() => Types {
                names: [t, ""],
                len: 1,
            },
            _ => Types {
                names: ["", ""],
                len: 0,
            },
        }
    }

    /// The format after apiextensions' stripping: registered string formats on string or
    /// untyped schemas, and from 1.36 the numeric formats of [`numeric_formats::kept_format`].
    fn format<'s>(&self, schema: &'s JsonSchemaProps) -> &'s str {
        let Some(f) = schema.format.as_deref().filter(|f| !f.is_empty()) else {
            return "";
        };
        if schema.x_int_or_string {
            return "";
        }
        if let Some(kept) = numeric_formats::kept_format(schema, self.version) {
            return kept;
        }
        let t = schema.type_.as_deref().unwrap_or("");
        if !(t.is_empty() || t == "string") {
            return "";
        }
        if formats::is_supported(f, self.version) {
            f
        } else {
            ""
        }
    }

    /// Validates the node at `path` (the walk's path buffer: children append their step and
    /// restore it).
    fn node(
        &self,
        value: &Json,
        schema: &JsonSchemaProps,
        path: &mut String,
        corr: Option<&Correlated<'_>>,
        resource_root: bool,
        depth: usize,
    ) -> NodeResult {
        let mut out = NodeResult::default();
        if depth > MAX_VALUE_DEPTH {
            out.push(OpenApiError {
                kind: ErrorKind::Plain,
                name: path.to_string(),
                value: BadValue::Omit,
                message: format!("{path} nests deeper than {MAX_VALUE_DEPTH} levels"),
            });
            return out;
        }
        let format = self.format(schema);
        if matches!(value, Json::Null) {
            // `SchemaValidator.Validate`: null meets only the type and enum validators.
            self.check_type(value, schema, format, path, &mut out);
            self.check_enum(value, schema, path, &mut out);
        } else {
            // Every validator that applies, in `NewSchemaValidator`'s order, counts one match.
            if Self::types(schema).len > 0 || !format.is_empty() {
                self.check_type(value, schema, format, path, &mut out);
                out.matches += 1;
            }
            self.junctors(value, schema, path, depth, &mut out);
            out.matches += 1;
            if let Json::String(s) = value {
                self.check_string(s, schema, path, &mut out);
                out.matches += 1;
                // Numeric formats are not in the string-format registry.
                if !format.is_empty() && formats::is_supported(format, self.version) {
                    self.check_format(s, format, path, &mut out);
                    out.matches += 1;
                }
            }
            if matches!(value, Json::Int(_) | Json::Double(_)) {
                self.check_number(value, schema, path, &mut out);
                out.matches += 1;
            }
            if let Json::Array(items) = value {
                self.check_slice(items, schema, path, corr, depth, &mut out);
                out.matches += 1;
            }
            self.check_enum(value, schema, path, &mut out);
            out.matches += 1;
            if let Json::Object(map) = value {
                self.check_object(map, schema, path, corr, resource_root, depth, &mut out);
                out.matches += 1;
            }
            out.matches += 1;
        }
        if !out.errors.is_empty() && corr.is_some_and(|c| c.unchanged()) {
            out.clear_errors();
        }
        out
    }

    /// `formatValidator`: a registered format the string does not have.
    fn check_format(&self, s: &str, format: &str, path: &str, out: &mut NodeResult) {
        if !formats::check(format, s, self.version) {
            out.push(OpenApiError {
                kind: ErrorKind::TypeInvalid,
                name: path.to_string(),
                value: BadValue::String(s.to_string()),
                message: format!(
                    "{path} in body must be of type {format}: {}",
                    crate::go::fmt::quote(s)
                ),
            });
        }
    }

    fn check_type(
        &self,
        value: &Json,
        schema: &JsonSchemaProps,
        format: &str,
        path: &str,
        out: &mut NodeResult,
    ) {
        let types = Self::types(schema);
        let types = types.as_slice();
        let invalid = |expected: String, actual: &str| OpenApiError {
            kind: ErrorKind::TypeInvalid,
            name: path.to_string(),
            value: BadValue::String(actual.to_string()),
            message: format!(
                "{path} in body must be of type {expected}: {}",
                crate::go::fmt::quote(actual)
            ),
        };
        if matches!(value, Json::Null) {
            if !types.is_empty() && !types.contains(&"null") && !schema.nullable {
                out.push(invalid(types.join(","), "null"));
            } else {
                out.matches += 1;
            }
            return;
        }
        if types.is_empty() && format.is_empty() {
            return;
        }
        let sch_type = schema_type_of(value);
        // The common case, a value of the schema's own type and no format: every test below
        // passes.
        if format.is_empty() && types.contains(&sch_type) {
            out.matches += 1;
            return;
        }
        let data_format = format_of(value);
        let contains = |t: &str| types.contains(&t);
        let is_float_int = sch_type == "number"
            && as_f64(value).is_some_and(is_float64_a_json_integer)
            && contains("integer");
        let is_int_float = sch_type == "integer" && contains("number");
        let is_string_or_slice = matches!(value, Json::String(_) | Json::Array(_));
        let format_matches =
            contains(sch_type) || data_format == format || is_float_int || is_int_float;
        if !(is_string_or_slice || format.is_empty() || format_matches) {
            out.push(invalid(format.to_string(), data_format));
            return;
        }
        if is_string_or_slice && !(contains("number") || contains("integer") || format.is_empty()) {
            out.matches += 1;
            return;
        }
        if !(contains(sch_type) || is_float_int || is_int_float) {
            out.push(invalid(types.join(","), sch_type));
            return;
        }
        out.matches += 1;
    }

    /// `schemaPropsValidator`: `anyOf`, `oneOf`, `allOf`, `not`, `dependencies`, in that
    /// order; a failed `anyOf`/`oneOf` reports its branch with the most matches.
    fn junctors(
        &self,
        value: &Json,
        schema: &JsonSchemaProps,
        path: &mut String,
        depth: usize,
        out: &mut NodeResult,
    ) {
        let quoted = |path: &str| crate::go::fmt::quote(path);
        if !schema.any_of.is_empty() {
            let mut best: Option<NodeResult> = None;
            let mut success: Option<NodeResult> = None;
            for sub in &schema.any_of {
                let r = self.node(value, sub, path, None, false, depth + 1);
                if r.is_valid() {
                    best = None;
                    success = Some(r);
                    break;
                }
                if best.as_ref().is_none_or(|b| r.matches > b.matches) {
                    best = Some(r);
                }
            }
            if success.is_none() {
                out.push(plain(
                    path,
                    format!("{} must validate at least one schema (anyOf)", quoted(path)),
                ));
            }
            if let Some(b) = best {
                out.merge(b);
            } else if let Some(s) = success {
                out.merge(s);
            }
        }
        if !schema.one_of.is_empty() {
            let mut best: Option<NodeResult> = None;
            let mut first_success: Option<NodeResult> = None;
            let mut validated = 0;
            for sub in &schema.one_of {
                let r = self.node(value, sub, path, None, false, depth + 1);
                if r.is_valid() {
                    validated += 1;
                    best = None;
                    if first_success.is_none() {
                        first_success = Some(r);
                    }
                    continue;
                }
                if validated == 0 && best.as_ref().is_none_or(|b| r.matches > b.matches) {
                    best = Some(r);
                }
            }
            if validated != 1 {
                let extra = if validated == 0 {
                    "Found none valid".to_string()
                } else {
                    format!("Found {validated} valid alternatives")
                };
                out.push(plain(
                    path,
                    format!(
                        "{} must validate one and only one schema (oneOf). {extra}",
                        quoted(path)
                    ),
                ));
                if let Some(b) = best {
                    out.merge(b);
                }
            } else if let Some(s) = first_success {
                out.merge(s);
            }
        }
        if !schema.all_of.is_empty() {
            let mut all_valid = true;
            let mut validated = 0;
            for sub in &schema.all_of {
                let r = self.node(value, sub, path, None, false, depth + 1);
                if r.is_valid() {
                    validated += 1;
                } else {
                    all_valid = false;
                }
                out.merge(r);
            }
            if !all_valid {
                let suffix = if validated == 0 {
                    ". None validated"
                } else {
                    ""
                };
                out.push(plain(
                    path,
                    format!(
                        "{} must validate all the schemas (allOf){suffix}",
                        quoted(path)
                    ),
                ));
            }
        }
        if let Some(not) = &schema.not {
            let r = self.node(value, not, path, None, false, depth + 1);
            if r.is_valid() {
                out.push(plain(
                    path,
                    format!("{} must not validate the schema (not)", quoted(path)),
                ));
            }
        }
        // `dependencies` (kept by kube-openapi; structural CRD schemas forbid them).
        if let Json::Object(map) = value
            && !schema.dependencies.is_empty()
        {
            for key in map.keys() {
                match schema.dependencies.get(&**key) {
                    Some(SchemaOrStringArray::Schema(dep)) => {
                        let mut dep_path = format!("{path}.{key}");
                        let r = self.node(value, dep, &mut dep_path, None, false, depth + 1);
                        out.merge(r);
                    }
                    Some(SchemaOrStringArray::Properties(props)) => {
                        for p in props.iter().filter(|p| !map.contains_key(p)) {
                            out.push(plain(
                                path,
                                format!("{} has a dependency on {p}", quoted(path)),
                            ));
                        }
                    }
                    None => {}
                }
            }
        }
        out.matches += 1;
    }

    /// `stringValidator`: `maxLength`, `minLength`, `pattern`, stopping at the first that
    /// fails.
    fn check_string(&self, s: &str, schema: &JsonSchemaProps, path: &str, out: &mut NodeResult) {
        let Some(failure) = self.string_failure(s, schema, None) else {
            return;
        };
        let bad = BadValue::String(s.to_string());
        out.push(match failure {
            StringFailure::TooLong(max) => OpenApiError {
                kind: ErrorKind::TooLong(max),
                name: path.to_string(),
                value: bad,
                message: format!("{path} in body should be at most {max} chars long"),
            },
            StringFailure::TooShort(min) => invalid(
                path,
                bad,
                format!("{path} in body should be at least {min} chars long"),
            ),
            StringFailure::NoMatch(pattern) => invalid(
                path,
                bad,
                format!("{path} in body should match '{pattern}'"),
            ),
            StringFailure::BadPattern(pattern, e) => invalid(
                path,
                bad,
                format!("{path} in body should match '{pattern}, but pattern is invalid: {e}'"),
            ),
        });
    }

    /// The first of `maxLength`, `minLength` and `pattern` that `s` fails; `compiled`: the
    /// schema's pattern compiled, when the caller has it.
    fn string_failure<'s>(
        &self,
        s: &str,
        schema: &'s JsonSchemaProps,
        compiled: Option<&Result<Regex, RegexError>>,
    ) -> Option<StringFailure<'s>> {
        // The length in characters is at most the length in bytes and at least a quarter of
        // it: counted only when the byte length cannot decide.
        let bytes = i64::try_from(s.len()).unwrap_or(i64::MAX);
        let chars = || s.chars().count() as i64;
        if let Some(max) = schema.max_length
            && bytes > max
            && chars() > max
        {
            return Some(StringFailure::TooLong(max));
        }
        if let Some(min) = schema.min_length
            && bytes < min.saturating_mul(4)
            && chars() < min
        {
            return Some(StringFailure::TooShort(min));
        }
        let pattern = schema.pattern.as_deref().filter(|p| !p.is_empty())?;
        let matched = match compiled {
            Some(Ok(re)) => Ok(re.is_match(s)),
            Some(Err(e)) => Err(e.clone()),
            None => self.pattern_matches(pattern, s),
        };
        match matched {
            Ok(true) => None,
            Ok(false) => Some(StringFailure::NoMatch(pattern)),
            Err(e) => Some(StringFailure::BadPattern(pattern, e)),
        }
    }

    /// Go `regexp.MatchString` (unanchored), the pattern taken from the patterns compiled
    /// beforehand, else from the validator's own cache.
    fn pattern_matches(&self, pattern: &str, s: &str) -> Result<bool, RegexError> {
        if let Some(re) = self.compiled.as_ref().and_then(|c| c.get(pattern)) {
            return match re {
                Ok(re) => Ok(re.is_match(s)),
                Err(e) => Err(e.clone()),
            };
        }
        let mut cache = self.patterns.borrow_mut();
        let re = cache
            .entry(pattern.to_string())
            .or_insert_with(|| Regex::cached(pattern));
        match re {
            Ok(re) => Ok(re.is_match(s)),
            Err(e) => Err(e.clone()),
        }
    }

    /// `numberValidator`: the value's range for its format, then `multipleOf`, `minimum`,
    /// `maximum`, each checked (no short-circuit).
    fn check_number(
        &self,
        value: &Json,
        schema: &JsonSchemaProps,
        path: &str,
        out: &mut NodeResult,
    ) {
        let (int, data) = match value {
            Json::Int(i) => (Some(*i), *i as f64),
            Json::Double(d) => (None, *d),
            _ => return,
        };
        let bad = || BadValue::of_json(value);
        // From 1.36 the value and each bound are checked against the range of the schema's
        // type and format; a bound out of range is then applied to the value as a float.
        let range = numeric_formats::number_type_and_format(schema, self.version);
        let out_of_range = |value: Repr, prefix: &str| {
            range.and_then(|(t, f)| numeric_formats::range_error(&value, t, f, prefix, path))
        };
        let value_repr = match int {
            Some(i) => Repr::Int(i),
            None => Repr::Float(data),
        };
        if let Some(m) = out_of_range(value_repr, "Checked") {
            out.push(plain(path, m));
        }
        if let Some(factor) = schema.multiple_of {
            let bound_error = out_of_range(Repr::Float(factor), "MultipleOf");
            let native_int = int.filter(|_| bound_error.is_none());
            if let Some(m) = bound_error {
                out.push(plain(path, m));
            }
            let failed = match native_int {
                Some(i) => {
                    let f = go_f64_to_i64(factor);
                    if f <= 0 {
                        Some(format!(
                            "factor MultipleOf declared for {path} must be positive: {f}"
                        ))
                    } else if i % f != 0 {
                        Some(format!("{path} in body should be a multiple of {f}"))
                    } else {
                        None
                    }
                }
                None => {
                    if factor <= 0.0 {
                        Some(format!(
                            "factor MultipleOf declared for {path} must be positive: {}",
                            go_v(factor)
                        ))
                    } else {
                        let mult = if factor < 1.0 {
                            1.0 / factor * data
                        } else {
                            data / factor
                        };
                        (!is_float64_a_json_integer(mult)).then(|| {
                            format!("{path} in body should be a multiple of {}", go_v(factor))
                        })
                    }
                }
            };
            if let Some(m) = failed {
                out.push(invalid(path, bad(), m));
            }
        }
        if let Some(min) = schema.minimum {
            let excl = schema.exclusive_minimum;
            let bound_error = out_of_range(Repr::Float(min), "Minimum boundary");
            let native_int = int.filter(|_| bound_error.is_none());
            if let Some(m) = bound_error {
                out.push(plain(path, m));
            }
            // The bound as the message shows it: for an integer, the integer it truncates to.
            let (fails, int_bound) = match native_int {
                Some(i) => {
                    let m = go_f64_to_i64(min);
                    ((!excl && i < m) || (excl && i <= m), Some(m))
                }
                None => ((!excl && data < min) || (excl && data <= min), None),
            };
            if fails {
                let shown = int_bound.map_or_else(|| go_v(min), |m| m.to_string());
                let rel = if excl {
                    "greater than"
                } else {
                    "greater than or equal to"
                };
                out.push(invalid(
                    path,
                    bad(),
                    format!("{path} in body should be {rel} {shown}"),
                ));
            }
        }
        if let Some(max) = schema.maximum {
            let excl = schema.exclusive_maximum;
            let bound_error = out_of_range(Repr::Float(max), "Maximum boundary");
            let native_int = int.filter(|_| bound_error.is_none());
            if let Some(m) = bound_error {
                out.push(plain(path, m));
            }
            let (fails, int_bound) = match native_int {
                Some(i) => {
                    let m = go_f64_to_i64(max);
                    ((!excl && i > m) || (excl && i >= m), Some(m))
                }
                None => ((!excl && data > max) || (excl && data >= max), None),
            };
            if fails {
                let shown = int_bound.map_or_else(|| go_v(max), |m| m.to_string());
                let rel = if excl {
                    "less than"
                } else {
                    "less than or equal to"
                };
                out.push(invalid(
                    path,
                    bad(),
                    format!("{path} in body should be {rel} {shown}"),
                ));
            }
        }
    }

    /// `schemaSliceValidator`: the items first, then `minItems`, `maxItems`, `uniqueItems`
    /// (a nested list's errors come before its parent's).
    fn check_slice(
        &self,
        items: &[Json],
        schema: &JsonSchemaProps,
        path: &mut String,
        corr: Option<&Correlated<'_>>,
        depth: usize,
        out: &mut NodeResult,
    ) {
        match &schema.items {
            Some(SchemaOrArray::Schema(item_schema)) => {
                for (i, item) in items.iter().enumerate() {
                    let child_corr = corr.and_then(|c| c.index(i));
                    let r = self.child(
                        item,
                        item_schema,
                        path,
                        Step::Index(i),
                        child_corr.as_ref(),
                        depth,
                    );
                    out.merge(r);
                }
            }
            Some(SchemaOrArray::Array(tuple)) => {
                for (i, item) in items.iter().enumerate() {
                    if let Some(s) = tuple.get(i) {
                        let r = self.child(item, s, path, Step::Index(i), None, depth);
                        out.merge(r);
                    } else {
                        match &schema.additional_items {
                            Some(SchemaOrBool::Schema(s)) => {
                                let r = self.child(item, s, path, Step::Index(i), None, depth);
                                out.merge(r);
                            }
                            Some(SchemaOrBool::Bool(false)) => {
                                out.push(plain(
                                    path,
                                    "array doesn't allow for additional items".into(),
                                ));
                                break;
                            }
                            _ => {}
                        }
                    }
                }
            }
            None => {}
        }
        count_limits(
            items.len(),
            (schema.min_items, schema.max_items),
            path,
            "items",
            out,
        );
        if schema.unique_items {
            let dup = items
                .iter()
                .enumerate()
                .any(|(i, a)| items[..i].iter().any(|b| json_schema_equal(a, b)));
            if dup {
                out.push(invalid(
                    path,
                    BadValue::of_json_list(items),
                    format!("{path} in body shouldn't contain duplicates"),
                ));
            }
        }
    }

    fn check_enum(&self, value: &Json, schema: &JsonSchemaProps, path: &str, out: &mut NodeResult) {
        if enum_allows(schema, value) {
            return;
        }
        let values = schema
            .enum_
            .iter()
            .map(|e| match e {
                Value::String(s) => s.clone(),
                other => crate::field::go_json(other),
            })
            .collect();
        out.push(OpenApiError {
            kind: ErrorKind::Enum(values),
            name: path.to_string(),
            value: BadValue::of_json(value),
            message: format!(
                "{path} in body should be one of {}",
                go_v_list(&schema.enum_)
            ),
        });
    }

    /// `objectValidator`: `minProperties`, `maxProperties`, the fields `additionalProperties`
    /// governs, the declared properties, `required`, then `patternProperties` (each field
    /// matching a pattern is checked against it on both passes over the fields, as
    /// kube-openapi does; identical errors merge).
    #[allow(clippy::too_many_arguments)]
    fn check_object(
        &self,
        map: &JsonObject,
        schema: &JsonSchemaProps,
        path: &mut String,
        corr: Option<&Correlated<'_>>,
        resource_root: bool,
        depth: usize,
        out: &mut NodeResult,
    ) {
        count_limits(
            map.len(),
            (schema.min_properties, schema.max_properties),
            path,
            "properties",
            out,
        );
        let matching_patterns = |k: &str| -> Vec<&JsonSchemaProps> {
            schema
                .pattern_properties
                .iter()
                .filter(|(p, _)| self.pattern_matches(p, k).unwrap_or(false))
                .map(|(_, s)| s)
                .collect()
        };
        // Each field's position among the declared properties (one lookup per field, not per
        // declared property).
        let declared: SmallVec<[Option<usize>; SMALL_OBJECT]> = if schema.properties.is_empty() {
            SmallVec::new()
        } else {
            map.keys()
                .map(|k| schema.properties.lookup_index(k))
                .collect()
        };
        let is_declared = |field: usize| declared.get(field).copied().flatten().is_some();
        let by_pattern = |k: &str, v: &Json, path: &mut String, out: &mut NodeResult| -> bool {
            let matched = matching_patterns(k);
            for s in &matched {
                let r = self.child(v, s, path, Step::Key(k), None, depth);
                out.merge(r);
            }
            !matched.is_empty()
        };
        match &schema.additional_properties {
            Some(SchemaOrBool::Bool(false)) => {
                for (field, k) in map.keys().enumerate() {
                    if !is_declared(field) && matching_patterns(k).is_empty() {
                        out.push(OpenApiError {
                            kind: ErrorKind::Invalid,
                            name: path.to_string(),
                            value: BadValue::String(k.to_string()),
                            message: format!("{path}.{k} in body is a forbidden property"),
                        });
                    }
                }
            }
            additional => {
                for (field, (k, v)) in map.iter().enumerate() {
                    let matched = by_pattern(k, v, path, out);
                    if is_declared(field) || matched {
                        continue;
                    }
                    if let Some(SchemaOrBool::Schema(s)) = additional {
                        let c = corr.and_then(|c| child_correlation(c, k, resource_root));
                        let r = self.child(v, s, path, Step::Key(k), c.as_ref(), depth);
                        out.merge(r);
                    }
                }
            }
        }
        // The declared properties present, in the schema's order: the object's own order when
        // it already is the schema's (as in most documents), else sorted.
        let present = declared
            .iter()
            .zip(map.iter())
            .filter_map(|(d, (k, v))| d.map(|d| (d, &**k, v)));
        let in_schema_order = declared.iter().flatten().is_sorted();
        let mut validate_property = |(d, k, v): (usize, &str, &Json)| {
            if let Some((_, prop)) = schema.properties.get_index(d) {
                let c = corr.and_then(|c| child_correlation(c, k, resource_root));
                let r = self.child(v, prop, path, Step::Key(k), c.as_ref(), depth);
                out.merge(r);
            }
        };
        if in_schema_order {
            present.for_each(&mut validate_property);
        } else {
            let mut sorted: SmallVec<[(usize, &str, &Json); SMALL_OBJECT]> = present.collect();
            sorted.sort_unstable_by_key(|&(d, _, _)| d);
            sorted.into_iter().for_each(validate_property);
        }
        for req in &schema.required {
            if !map.contains_key(req) {
                let name = child_path(path, req);
                out.push(OpenApiError {
                    kind: ErrorKind::Required,
                    message: format!("{name} in body is required"),
                    name,
                    value: BadValue::Omit,
                });
            }
        }
        if !schema.pattern_properties.is_empty() {
            for (k, v) in map.iter() {
                let matched = by_pattern(k, v, path, out);
                if matched && !schema.properties.contains_key(&**k) {
                    by_pattern(k, v, path, out);
                }
            }
        }
    }
}

/// How many fields an object may have for its per-field bookkeeping to stay on the stack.
const SMALL_OBJECT: usize = 8;

/// `minItems`/`maxItems` and `minProperties`/`maxProperties` (`TooFewItems`,
/// `TooManyItems`, `TooFewProperties`, `TooManyProperties`), the minimum first.
fn count_limits(
    len: usize,
    (min, max): (Option<i64>, Option<i64>),
    path: &str,
    noun: &str,
    out: &mut NodeResult,
) {
    let n = i64::try_from(len).unwrap_or(i64::MAX);
    if let Some(min) = min
        && n < min
    {
        out.push(invalid(
            path,
            BadValue::Int(n),
            format!("{path} in body should have at least {min} {noun}"),
        ));
    }
    if let Some(max) = max
        && n > max
    {
        out.push(OpenApiError {
            kind: ErrorKind::TooMany { actual: n, max },
            name: path.to_string(),
            value: BadValue::Int(n),
            message: format!("{path} in body should have at most {max} {noun}"),
        });
    }
}

fn invalid(path: &str, value: BadValue, message: String) -> OpenApiError {
    OpenApiError {
        kind: ErrorKind::Invalid,
        name: path.to_string(),
        value,
        message,
    }
}

fn plain(path: &str, message: String) -> OpenApiError {
    OpenApiError {
        kind: ErrorKind::Plain,
        name: path.to_string(),
        value: BadValue::String(String::new()),
        message,
    }
}

/// Equality for `uniqueItems`: numbers by value (1 and 1.0 are equal), the rest structurally.
fn json_schema_equal(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Int(_) | Json::Double(_), Json::Int(_) | Json::Double(_)) => as_f64(a) == as_f64(b),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| json_schema_equal(p, q))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, p)| y.get(k).is_some_and(|q| json_schema_equal(p, q)))
        }
        _ => a == b,
    }
}

/// Whether `schema`'s `enum` (if any) allows `value`.
fn enum_allows(schema: &JsonSchemaProps, value: &Json) -> bool {
    schema.enum_.is_empty() || schema.enum_.iter().any(|e| enum_matches(value, e))
}

/// kube-openapi's enum test: the data is converted to the Go type of the enum element
/// (`reflect.Value.Convert`) and compared with `reflect.DeepEqual`. Integer enum elements are
/// `int64`, so `1.5` matches `1`; an `int64` converts to a `string` as a rune, so `65` matches
/// `"A"`. `null` never matches.
pub fn enum_matches(data: &Json, element: &Value) -> bool {
    match (element, data) {
        (Value::Null, _) | (_, Json::Null) => false,
        (Value::Bool(e), Json::Bool(d)) => e == d,
        (Value::String(e), Json::String(d)) => **e == **d,
        (Value::String(e), Json::Int(n)) => {
            let r = u32::try_from(*n)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or('\u{FFFD}');
            let mut buf = [0u8; 4];
            e.as_str() == r.encode_utf8(&mut buf)
        }
        (Value::Number(e), Json::Int(_) | Json::Double(_)) => {
            if e.is_f64() {
                as_f64(data) == e.as_f64()
            } else {
                let ei = e.as_i64();
                match data {
                    Json::Double(d) => ei == Some(go_f64_to_i64(*d)),
                    Json::Int(d) => ei == Some(*d),
                    _ => false,
                }
            }
        }
        // `reflect.DeepEqual` of the compound values (rare: the element is converted).
        (Value::Array(_), Json::Array(_)) | (Value::Object(_), Json::Object(_)) => {
            Json::from_serde(element).is_ok_and(|e| e == *data)
        }
        _ => false,
    }
}

/// `fmt`'s `%v` of a decoded JSON value (`[a b]`, `map[k:v]` with sorted keys, `<nil>`), as
/// kube-openapi's enum message prints the allowed values.
fn go_v_value(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) if n.is_f64() => out.push_str(&go_v(n.as_f64().unwrap_or(0.0))),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => out.push_str(s),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                go_v_value(x, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push_str("map[");
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                go_v_value(&m[k], out);
            }
            out.push(']');
        }
    }
}

fn go_v_list(values: &[Value]) -> String {
    let mut out = String::new();
    go_v_value(&Value::Array(values.to_vec()), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn props(v: Value) -> JsonSchemaProps {
        serde_json::from_value(v).expect("schema")
    }

    fn doc(v: Value) -> Json {
        Json::from_serde(&v).expect("json")
    }

    fn errors(schema: Value, data: Value) -> Vec<String> {
        let v = SchemaValidator::new(KubeVersion::NEWEST);
        let s = props(schema);
        v.validate(&doc(data), &s, "", None)
            .errors
            .iter()
            .map(|e| e.to_field_error(&Path::root()).to_string())
            .collect()
    }

    #[test]
    fn json_integers() {
        assert!(is_float64_a_json_integer(1.0));
        assert!(is_float64_a_json_integer(1.000_000_000_1));
        assert!(is_float64_a_json_integer(1_000_000.000_1));
        assert!(!is_float64_a_json_integer(1.5));
        assert!(!is_float64_a_json_integer(9_223_372_036_854_775_808.0));
        assert!(is_float64_a_json_integer(-3.0));
        assert!(!is_float64_a_json_integer(-3.5));
    }

    #[test]
    fn enum_conversion() {
        assert!(enum_matches(&doc(json!(1.5)), &json!(1)));
        assert!(enum_matches(&doc(json!(65)), &json!("A")));
        assert!(!enum_matches(&doc(json!("1")), &json!(1)));
        assert!(!enum_matches(&Json::Null, &Value::Null));
        assert!(enum_matches(&doc(json!({"a": [1]})), &json!({"a": [1]})));
        assert!(!enum_matches(&doc(json!({"a": [1.0]})), &json!({"a": [1]})));
    }

    #[test]
    fn keyword_texts() {
        let s = json!({"type": "object", "properties": {
            "a": {"type": "string", "maxLength": 1},
            "n": {"type": "integer", "maximum": 3}
        }, "required": ["r"]});
        let mut e = errors(s, json!({"a": "xy", "n": 4}));
        e.sort();
        assert_eq!(
            e,
            [
                "a: Too long: may not be more than 1 byte",
                "n: Invalid value: 4: n in body should be less than or equal to 3",
                "r: Required value",
            ]
        );
        assert_eq!(
            errors(
                json!({"type": "string", "anyOf": [{"maxLength": 1}]}),
                json!("ab")
            ),
            [
                "<nil>: Invalid value: \"\": \"\" must validate at least one schema (anyOf)",
                "<nil>: Too long: may not be more than 1 byte"
            ]
        );
    }

    /// Each group's inputs give exactly these errors, in this order; every expectation was
    /// checked against Kubernetes 1.35 (`shared/oracle-probe`).
    fn spec_errors(props: Value, data: Value) -> Vec<String> {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": props}}});
        errors(schema, json!({ "spec": data }))
    }

    /// `stringValidator.Validate` (validator.go): `maxLength`, `minLength`, `pattern`, and the
    /// first failure ends the string checks.
    #[test]
    fn order_strings_stop_at_the_first_failure() {
        let props = json!({"s": {"type": "string", "minLength": 1, "pattern": "^[a-z]+$"},
            "t": {"type": "string", "maxLength": 2, "minLength": 1, "pattern": "^[a-z]+$"}});
        assert_eq!(
            spec_errors(props.clone(), json!({"s": ""})),
            ["spec.s: Invalid value: \"\": spec.s in body should be at least 1 chars long"]
        );
        assert_eq!(
            spec_errors(props.clone(), json!({"t": "ABCDEF"})),
            ["spec.t: Too long: may not be more than 2 bytes"]
        );
        assert_eq!(
            spec_errors(props, json!({"t": "A1"})),
            ["spec.t: Invalid value: \"A1\": spec.t in body should match '^[a-z]+$'"]
        );
    }

    /// `numberValidator.Validate` (validator.go): every bound is checked, and the results
    /// merge as `multipleOf`, `minimum`, `maximum`.
    #[test]
    fn order_numbers_multiple_then_minimum_then_maximum() {
        let props = json!({"n": {"type": "integer", "minimum": 10, "maximum": 20, "multipleOf": 3},
            "x": {"type": "number", "exclusiveMaximum": true, "maximum": 1.5, "multipleOf": 0.5}});
        assert_eq!(
            spec_errors(props.clone(), json!({"n": 7})),
            [
                "spec.n: Invalid value: 7: spec.n in body should be a multiple of 3",
                "spec.n: Invalid value: 7: spec.n in body should be greater than or equal to 10"
            ]
        );
        assert_eq!(
            spec_errors(props.clone(), json!({"n": 22})),
            [
                "spec.n: Invalid value: 22: spec.n in body should be a multiple of 3",
                "spec.n: Invalid value: 22: spec.n in body should be less than or equal to 20"
            ]
        );
        assert_eq!(
            spec_errors(props, json!({"x": 1.5})),
            ["spec.x: Invalid value: 1.5: spec.x in body should be less than 1.5"]
        );
    }

    /// `schemaSliceValidator.Validate` (slice_validator.go): the items first, then
    /// `minItems`, `maxItems`, `uniqueItems`: a nested list's errors precede its parent's.
    #[test]
    fn order_slices_items_before_the_list() {
        let props = json!({"l": {"type": "array", "maxItems": 2, "items": {"type": "array",
            "maxItems": 1, "items": {"type": "string", "maxLength": 1}}},
            "u": {"type": "array", "maxItems": 2, "items": {"type": "integer", "maximum": 0}}});
        assert_eq!(
            spec_errors(props.clone(), json!({"l": [["a", "b"], ["cc"], ["d"]]})),
            [
                "spec.l[0]: Too many: 2: must have at most 1 item",
                "spec.l[1][0]: Too long: may not be more than 1 byte",
                "spec.l: Too many: 3: must have at most 2 items"
            ]
        );
        assert_eq!(
            spec_errors(props, json!({"u": [1, 2, 3]})),
            [
                "spec.u[0]: Invalid value: 1: spec.u[0] in body should be less than or equal to 0",
                "spec.u[1]: Invalid value: 2: spec.u[1] in body should be less than or equal to 0",
                "spec.u[2]: Invalid value: 3: spec.u[2] in body should be less than or equal to 0",
                "spec.u: Too many: 3: must have at most 2 items"
            ]
        );
    }

    /// `objectValidator.Validate` (object_validator.go): `minProperties`, `maxProperties`,
    /// the fields under `additionalProperties`, the declared properties, then `required`.
    #[test]
    fn order_objects_counts_then_fields_then_required() {
        let props = json!({"o": {"type": "object", "required": ["r"],
            "properties": {"a": {"type": "string", "minLength": 2}, "r": {"type": "string"}}},
            "m": {"type": "object", "minProperties": 3, "maxProperties": 0,
                "additionalProperties": {"type": "string", "maxLength": 1}}});
        assert_eq!(
            spec_errors(props.clone(), json!({"o": {"a": "x"}})),
            [
                "spec.o.a: Invalid value: \"x\": spec.o.a in body should be at least 2 chars long",
                "spec.o.r: Required value"
            ]
        );
        assert_eq!(
            spec_errors(props, json!({"m": {"a": "xy"}})),
            [
                "spec.m: Invalid value: 1: spec.m in body should have at least 3 properties",
                "spec.m: Too many: 1: must have at most 0 items",
                "spec.m.a: Too long: may not be more than 1 byte"
            ]
        );
    }

    /// `SchemaValidator` (schema.go) runs type, junctors, string, format, number, slice, enum
    /// and object validators in that order: a string's own errors precede its format's and
    /// its enum's; a number's bounds precede its enum.
    #[test]
    fn order_formats_and_enums_follow_the_value_checks() {
        let props = json!({"e": {"type": "string", "enum": ["aa", "bb"], "maxLength": 2},
            "f": {"type": "string", "format": "uuid", "maxLength": 3},
            "k": {"type": "integer", "enum": [1, 2], "maximum": 0}});
        assert_eq!(
            spec_errors(props.clone(), json!({"e": "CCC"})),
            [
                "spec.e: Too long: may not be more than 2 bytes",
                "spec.e: Unsupported value: \"CCC\": supported values: \"aa\", \"bb\""
            ]
        );
        assert_eq!(
            spec_errors(props.clone(), json!({"f": "abcd"})),
            [
                "spec.f: Too long: may not be more than 3 bytes",
                "spec.f: Invalid value: \"abcd\": spec.f in body must be of type uuid: \"abcd\""
            ]
        );
        assert_eq!(
            spec_errors(props, json!({"k": 3})),
            [
                "spec.k: Invalid value: 3: spec.k in body should be less than or equal to 0",
                "spec.k: Unsupported value: 3: supported values: \"1\", \"2\""
            ]
        );
    }

    /// `schemaPropsValidator.Validate` (schema_props.go): `anyOf` (its best branch) before
    /// `allOf`, all before the string checks; `Result.AddErrors` (result.go) keeps one error
    /// per text, so the node's own `maxLength` error merges into `allOf`'s.
    #[test]
    fn order_junctors_first_and_identical_errors_once() {
        let props = json!({"j": {"type": "string", "maxLength": 1, "allOf": [{"maxLength": 1}],
            "anyOf": [{"minLength": 5}, {"minLength": 6}]}});
        assert_eq!(
            spec_errors(props, json!({"j": "ab"})),
            [
                "<nil>: Invalid value: \"\": \"spec.j\" must validate at least one schema (anyOf)",
                "spec.j: Invalid value: \"ab\": spec.j in body should be at least 5 chars long",
                "spec.j: Too long: may not be more than 1 byte",
                "<nil>: Invalid value: \"\": \"spec.j\" must validate all the schemas (allOf). None validated"
            ]
        );
    }

    /// `schemaPropsValidator.Validate` (schema_props.go) reports the failed branch with the
    /// highest `MatchCount`, which counts validators that applied (a format adds the type and
    /// format validators) and items' own counts, not keywords.
    #[test]
    fn junctors_pick_the_branch_with_most_matches() {
        let props = json!({"a": {"type": "string", "anyOf": [{"maxLength": 1}, {"format": "uuid"}]},
            "d": {"type": "array", "items": {"type": "string"},
                "anyOf": [{"maxItems": 1}, {"items": {"maxLength": 1}, "maxItems": 2}]}});
        assert_eq!(
            spec_errors(props.clone(), json!({"a": "abc"})),
            [
                "<nil>: Invalid value: \"\": \"spec.a\" must validate at least one schema (anyOf)",
                "spec.a: Invalid value: \"abc\": spec.a in body must be of type uuid: \"abc\""
            ]
        );
        assert_eq!(
            spec_errors(props, json!({"d": ["aa", "bb", "cc"]})),
            [
                "<nil>: Invalid value: \"\": \"spec.d\" must validate at least one schema (anyOf)",
                "spec.d[0]: Too long: may not be more than 1 byte",
                "spec.d[1]: Too long: may not be more than 1 byte",
                "spec.d[2]: Too long: may not be more than 1 byte",
                "spec.d: Too many: 3: must have at most 2 items"
            ]
        );
    }
}
