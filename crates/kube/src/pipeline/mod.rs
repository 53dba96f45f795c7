//! kube-apiserver's custom-resource write pipeline (reference §1): decoding, pruning,
//! defaulting, the create / update / status-update validation chain with ratcheting, and the
//! `metav1.Status` a client receives.
//!
//! Stages, in the apiserver's order:
//! 1. [`decode`]: numbers, root `metadata` through `ObjectMeta`;
//! 2. `prune`: unknown fields (reported), non-nullable nulls, embedded resources, defaults;
//! 3. `prepare`: the request's namespace, system fields, generated names, status stripping,
//!    `generation` (the handlers, `BeforeCreate`/`BeforeUpdate`, the strategies);
//! 4. validation: type meta → [`objectmeta`] → [`openapi`] (with ratcheting on update) →
//!    scale → embedded resources → `listtype` → CEL rules (a [`RuleValidator`], skipped after a
//!    blocking error);
//! 5. [`status`]: the 422 Invalid status, in the texts of the requested [`KubeVersion`].
//!
//! CEL rule evaluation plugs in through [`RuleValidator`]; without one, rules are not run and
//! [`Response::rules_skipped`] says whether any would have been.

mod body;
pub mod decode;
pub(crate) mod defaults;
pub(crate) mod formats;
pub(crate) mod json;
pub(crate) mod json_syntax;
pub(crate) mod listtype;
pub(crate) mod numeric_formats;
pub mod objectmeta;
pub mod openapi;
pub(crate) mod prepare;
pub(crate) mod prune;
pub mod status;
mod stored;
pub(crate) mod trail;

#[cfg(test)]
mod tests;

use std::sync::{Arc, LazyLock};

use serde_json::Value;

use crate::crd::{CustomResourceDefinition, CustomResourceDefinitionVersion};
use crate::field::{BadValue, ErrorType, FieldError, Path};
use crate::schema_props::JsonSchemaProps;
use crate::values::{Json, JsonObject, ValueError};
pub use crate::version::KubeVersion;
pub use body::Body;
pub use decode::DecodeError;
use defaults::DefaultsPlan;
use objectmeta::{NameRule, NamespaceRule};
use openapi::{NodePlan, Patterns, SchemaValidator};
use prepare::{meta_str, set_meta};
pub use status::Status;
pub use stored::StoredObject;
use trail::Trail;

/// The detail of the error appended when a blocking error skips the CEL rules.
pub const RULES_NOT_CHECKED: &str = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation";

/// `fieldValidation`: what happens to unknown fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FieldValidation {
    /// 400 BadRequest listing the unknown fields.
    #[default]
    Strict,
    /// One warning per unknown field.
    Warn,
    /// Silently pruned.
    Ignore,
}

/// The write being validated.
#[derive(Clone, Debug, PartialEq)]
pub enum Operation {
    /// A create.
    Create,
    /// An update of the main resource; the stored object.
    Update(Value),
    /// An update through the `status` subresource; the stored object.
    UpdateStatus(Value),
}

/// What the CEL step gets.
pub struct RuleRequest<'a> {
    /// The CRD version's `openAPIV3Schema`.
    pub schema: &'a JsonSchemaProps,
    /// The object after decoding, defaulting and `BeforeCreate`/`BeforeUpdate`.
    pub object: &'a Json,
    /// The stored object on updates.
    pub old_object: Option<&'a Json>,
    /// Whether ratcheting applies (updates).
    pub ratcheting: bool,
    /// The Kubernetes release whose rules and texts apply.
    pub kube_version: KubeVersion,
}

/// What the CEL step found: errors, and warnings for ratcheted failures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RuleOutcome {
    /// The rules' errors.
    pub errors: Vec<FieldError>,
    /// The rules' warnings.
    pub warnings: Vec<String>,
}

/// The `x-kubernetes-validations` step (apiextensions `schema/cel`), implemented by the rules
/// module. Correlation of old and new values for ratcheting is `crate::correlation`.
pub trait RuleValidator {
    /// Validates the object of `request` against the CEL rules of its schema.
    fn validate(&self, request: &RuleRequest<'_>) -> RuleOutcome;
}

/// Options of one request.
#[derive(Clone, Debug)]
pub struct Options {
    /// The Kubernetes release reproduced.
    pub kube_version: KubeVersion,
    /// What happens to unknown fields.
    pub field_validation: FieldValidation,
    /// The request's namespace (`kubectl -n`); unset or empty: the object's own, else
    /// `default`, as kubectl sends it. Requests for cluster-scoped kinds have none: such an
    /// object's namespace is cleared.
    pub namespace: Option<String>,
    /// The 5 characters appended to `generateName` (random when unset).
    pub name_suffix: Option<String>,
    /// Whether updates ratchet (feature gate `CRDValidationRatcheting`, locked on since 1.33).
    pub ratcheting: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            kube_version: KubeVersion::NEWEST,
            field_validation: FieldValidation::Strict,
            namespace: None,
            name_suffix: None,
            ratcheting: true,
        }
    }
}

/// The result of one request.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// `duplicate field "<path>"` for each repeated key of a JSON body, in document order.
    pub duplicate_fields: Vec<String>,
    /// `unknown field "<path>"` for each pruned field, in Kubernetes' order.
    pub unknown_fields: Vec<String>,
    /// A decode error (the object never reached validation).
    pub decode_error: Option<DecodeError>,
    /// The object after decoding, defaulting and the strategy's preparation.
    pub object: Option<StoredObject>,
    /// The `metav1.Status` answered (success, or the failure with its causes).
    pub status: Status,
    /// The warnings returned with the answer.
    pub warnings: Vec<String>,
    /// Whether CEL rules would have run but no [`RuleValidator`] was given.
    pub rules_skipped: bool,
}

/// The 400 BadRequest of a body that cannot be decoded into `kind` of `version`
/// (`transformDecodeError`).
pub(crate) fn bad_request(kind: &str, version: &str, e: DecodeError) -> Response {
    Response {
        duplicate_fields: Vec::new(),
        unknown_fields: Vec::new(),
        status: Status::failure(
            400,
            "BadRequest",
            format!("{kind} in version {version:?} cannot be handled as a {kind}: {e}"),
        ),
        decode_error: Some(e),
        object: None,
        warnings: Vec::new(),
        rules_skipped: false,
    }
}

/// A configured pipeline for one CRD version.
pub struct Pipeline<'a> {
    crd: &'a CustomResourceDefinition,
    version: &'a CustomResourceDefinitionVersion,
    prepared: Arc<PreparedSchema>,
    rules: Option<&'a dyn RuleValidator>,
    /// How `metadata.name` is validated on create (custom resources: DNS subdomains).
    name_rule: NameRule,
    /// Whether writes get the custom-resource strategy's finalizer-name warnings
    /// (apiextensions-apiserver `customresource/validator.go`); built-in kinds' strategies give none.
    finalizer_warnings: bool,
}

/// What a [`Pipeline`] derives from its CRD version's schema, built once and shared by the
/// pipelines of that version ([`Pipeline::with_prepared`]).
pub struct PreparedSchema {
    /// The version's `openAPIV3Schema`, else an object preserving unknown fields.
    schema: JsonSchemaProps,
    /// Whether the schema has CEL rules.
    has_rules: bool,
    /// Whether the schema has embedded resources (`x-kubernetes-embedded-resource`): without
    /// them the walks that coerce and validate embedded resources are skipped.
    has_embedded: bool,
    /// What defaulting does, planned: `None` without a non-null `default` anywhere (the
    /// defaulting walk is skipped).
    defaults: Option<DefaultsPlan>,
    /// Where the schema's `set` and `map` lists are; without one the list-type walk is
    /// skipped (it would find nothing).
    list_types: Option<listtype::ListTypePlan>,
    /// Its patterns, compiled.
    patterns: Arc<Patterns>,
    /// Its OpenAPI validation, planned.
    plan: NodePlan,
}

impl PreparedSchema {
    /// The prepared schema of `version`.
    pub fn new(version: &CustomResourceDefinitionVersion) -> PreparedSchema {
        let schema = version
            .open_api_v3_schema()
            .cloned()
            .unwrap_or_else(|| JsonSchemaProps {
                type_: Some("object".into()),
                x_preserve_unknown_fields: Some(true),
                ..JsonSchemaProps::default()
            });
        PreparedSchema {
            has_rules: has_rules(&schema, 0),
            has_embedded: any_node(&schema, &|s| s.x_embedded_resource, 0),
            defaults: DefaultsPlan::new(&schema),
            list_types: listtype::ListTypePlan::new(&schema),
            patterns: Arc::new(openapi::compile_patterns(&schema)),
            plan: NodePlan::new(&schema),
            schema,
        }
    }
}

/// Why a pipeline cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PipelineError {
    /// The CRD serves no version of that name.
    #[error("CRD {crd} has no version {version:?}")]
    NoVersion {
        /// The CRD's `metadata.name`.
        crd: String,
        /// The version asked for.
        version: String,
    },
}

fn has_rules(s: &JsonSchemaProps, depth: usize) -> bool {
    use crate::schema_props::{SchemaOrArray, SchemaOrBool};
    if depth > 200 {
        return false;
    }
    !s.x_validations.is_empty()
        || s.properties.values().any(|p| has_rules(p, depth + 1))
        || matches!(&s.items, Some(SchemaOrArray::Schema(i)) if has_rules(i, depth + 1))
        || matches!(&s.additional_properties, Some(SchemaOrBool::Schema(a)) if has_rules(a, depth + 1))
        || s.all_of.iter().any(|p| has_rules(p, depth + 1))
}

/// Whether `pred` holds for `s` or a schema below it.
fn any_node(s: &JsonSchemaProps, pred: &dyn Fn(&JsonSchemaProps) -> bool, depth: usize) -> bool {
    // Deeper than any walk descends (their limit is 1000): assume it holds.
    depth > 1000 || pred(s) || s.subschemas().any(|c| any_node(c, pred, depth + 1))
}

/// The object's `metadata` (an empty object when absent or not an object).
fn meta_of(v: &Json) -> &JsonObject {
    static EMPTY: LazyLock<JsonObject> = LazyLock::new(JsonObject::default);
    match field_of(v, "metadata") {
        Some(Json::Object(m)) => m,
        _ => &EMPTY,
    }
}

/// Field `k` of an object.
fn field_of<'v>(v: &'v Json, k: &str) -> Option<&'v Json> {
    match v {
        Json::Object(o) => o.get(k),
        _ => None,
    }
}

/// Whether an error blocks the CEL rules (`hasBlockingErr`).
fn is_blocking(e: &FieldError) -> bool {
    matches!(
        e.type_,
        ErrorType::NotSupported
            | ErrorType::Required
            | ErrorType::TooLong
            | ErrorType::TooMany
            | ErrorType::TypeInvalid
    )
}

/// `NestedInt64` at a scale JSONPath (`.spec.replicas`): `Ok(None)` when absent.
fn nested<'v>(obj: &'v Json, json_path: &str) -> Option<&'v Json> {
    let mut cur = obj;
    for seg in json_path.trim_start_matches('.').split('.') {
        cur = field_of(cur, seg)?;
    }
    Some(cur)
}

/// `%v` of a value in the scale accessor errors.
fn go_v(v: &Json) -> String {
    match v {
        Json::String(s) => s.to_string(),
        other => BadValue::of_json(other).to_string(),
    }
}

fn scale_replicas(obj: &Json, json_path: &str, errs: &mut Vec<FieldError>) {
    let Some(v) = nested(obj, json_path) else {
        return;
    };
    let path = Path::new(json_path);
    match v {
        Json::Int(r) => {
            let r = *r;
            if r < 0 {
                errs.push(FieldError::invalid(
                    path,
                    BadValue::Int(r),
                    "should be a non-negative integer",
                ));
            } else if r > i64::from(i32::MAX) {
                errs.push(FieldError::invalid(
                    path,
                    BadValue::Int(r),
                    format!("should be less than or equal to {}", i32::MAX),
                ));
            }
        }
        other => {
            let fields = json_path.trim_start_matches('.');
            errs.push(FieldError::invalid(
                path,
                BadValue::Int(0),
                format!(
                    ".{fields} accessor error: {} is of the type {}, expected int64",
                    go_v(other),
                    other.go_type_name()
                ),
            ));
        }
    }
}

fn scale_selector(obj: &Json, json_path: &str, errs: &mut Vec<FieldError>) {
    let Some(v) = nested(obj, json_path) else {
        return;
    };
    if !matches!(v, Json::String(_)) {
        let fields = json_path.trim_start_matches('.');
        errs.push(FieldError::invalid(
            Path::new(json_path),
            BadValue::String(String::new()),
            format!(
                ".{fields} accessor error: {} is of the type {}, expected string",
                go_v(v),
                v.go_type_name()
            ),
        ));
    }
}

impl<'a> Pipeline<'a> {
    /// The pipeline for version `version` of `crd`.
    pub fn new(
        crd: &'a CustomResourceDefinition,
        version: &str,
        rules: Option<&'a dyn RuleValidator>,
    ) -> Result<Pipeline<'a>, PipelineError> {
        let v = Self::crd_version(crd, version)?;
        Ok(Pipeline {
            crd,
            version: v,
            prepared: Arc::new(PreparedSchema::new(v)),
            rules,
            name_rule: NameRule::DnsSubdomain,
            finalizer_warnings: true,
        })
    }

    /// The pipeline for version `version` of `crd` with `prepared`, which must be
    /// [`PreparedSchema::new`] of that version.
    pub fn with_prepared(
        crd: &'a CustomResourceDefinition,
        version: &str,
        prepared: Arc<PreparedSchema>,
        rules: Option<&'a dyn RuleValidator>,
    ) -> Result<Pipeline<'a>, PipelineError> {
        Ok(Pipeline {
            crd,
            version: Self::crd_version(crd, version)?,
            prepared,
            rules,
            name_rule: NameRule::DnsSubdomain,
            finalizer_warnings: true,
        })
    }

    fn crd_version(
        crd: &'a CustomResourceDefinition,
        version: &str,
    ) -> Result<&'a CustomResourceDefinitionVersion, PipelineError> {
        crd.version(version)
            .ok_or_else(|| PipelineError::NoVersion {
                crd: crd.metadata.name.clone(),
                version: version.to_string(),
            })
    }

    fn schema(&self) -> &JsonSchemaProps {
        &self.prepared.schema
    }

    fn schema_validator(&self, kv: KubeVersion) -> SchemaValidator {
        SchemaValidator::with_patterns(kv, Arc::clone(&self.prepared.patterns))
    }

    /// The pipeline as a built-in kind's registry strategy runs it: names validated by `rule` on
    /// create, and no finalizer-name warnings.
    pub fn as_builtin_kind(mut self, rule: NameRule) -> Self {
        self.name_rule = rule;
        self.finalizer_warnings = false;
        self
    }

    fn kind(&self) -> &str {
        &self.crd.spec.names.kind
    }

    fn namespaced(&self) -> bool {
        self.crd.spec.scope != "Cluster"
    }

    fn status_schema(&self) -> Option<&JsonSchemaProps> {
        self.schema().properties.get("status")
    }

    /// Decoding (§1.1): `metadata` through `ObjectMeta`, pruning, null pruning, embedded
    /// coercion, defaults. Returns the object and the unknown-field paths. The body's numbers
    /// are already Go's (integers beyond `int64` read as floats); `has_null`: whether it holds
    /// a `null` anywhere.
    pub(crate) fn decode(
        &self,
        mut obj: Json,
        has_null: bool,
    ) -> Result<(Json, Vec<String>), DecodeError> {
        let Some(root) = obj.as_object_mut() else {
            return Err(DecodeError::KindMissing(crate::field::go_json(
                &obj.to_serde(),
            )));
        };
        let mut unknown = Vec::new();
        if let Some(meta) = root.get("metadata") {
            let d = decode::decode_object_meta(meta, "")?;
            unknown.extend(d.unknown);
            root.insert("metadata".into(), Json::Object(Arc::new(d.meta)));
        }
        if !self.crd.spec.preserve_unknown_fields {
            unknown.extend(prune::prune(&mut obj, self.schema(), true));
            // Metadata decoding and pruning only copy or remove values: without a null in the
            // body there is none to prune.
            if has_null {
                prune::prune_nulls(&mut obj, self.schema(), 0);
            }
        }
        if self.prepared.has_embedded {
            let mut embedded_unknown = Vec::new();
            let root = Path::root();
            prune::coerce_embedded(
                &mut obj,
                self.schema(),
                &Trail::Base(&root),
                &mut embedded_unknown,
                0,
            )
            .map_err(DecodeError::Embedded)?;
            unknown.extend(embedded_unknown);
        }
        if let Some(defaults) = &self.prepared.defaults {
            defaults.apply(&mut obj, self.schema(), 0);
        }
        Ok((obj, unknown))
    }

    /// Runs one request through decoding, preparation and validation.
    pub fn run(&self, object: Value, operation: &Operation, options: &Options) -> Response {
        self.run_with_duplicates(object, &[], operation, options)
    }

    /// Runs a request whose body is JSON text: repeated keys are strict-decoding errors
    /// (`duplicate field "spec.a"`), reported before the unknown fields (reference §1.1). A body
    /// that is not JSON gets a 400 BadRequest.
    pub fn run_json(&self, body: &str, operation: &Operation, options: &Options) -> Response {
        match json::parse(body) {
            Ok(p) => self.run_with_duplicates(p.value, &p.duplicates, operation, options),
            Err(e) => self.bad_request(e),
        }
    }

    fn bad_request(&self, e: DecodeError) -> Response {
        bad_request(self.kind(), &self.version.name, e)
    }

    /// [`Pipeline::run`] for an object whose JSON body repeated the keys at `duplicates`
    /// (each the path of a repeated key in the order Go's decoder meets them: `spec.foo`,
    /// `spec.ports[0].name`, `[1].a` under a root array).
    pub fn run_with_duplicates(
        &self,
        object: Value,
        duplicates: &[String],
        operation: &Operation,
        options: &Options,
    ) -> Response {
        self.run_body(object.into(), duplicates, operation, options)
    }

    /// [`Pipeline::run_with_duplicates`] for a body of either form: a [`Json`] body is taken
    /// as it is, a `serde_json` one converted once.
    pub fn run_body(
        &self,
        object: Body,
        duplicates: &[String],
        operation: &Operation,
        options: &Options,
    ) -> Response {
        let kv = options.kube_version;
        let decoded = object
            .decode()
            .map_err(DecodeError::from)
            .and_then(|(o, has_null)| self.decode(o, has_null));
        let (mut obj, unknown) = match decoded {
            Ok(x) => x,
            Err(e) => return self.bad_request(e),
        };
        let duplicate_fields: Vec<String> = duplicates
            .iter()
            .map(|p| json::duplicate_field_message(p))
            .collect();
        let unknown_fields: Vec<String> = unknown
            .iter()
            .map(|p| format!("unknown field {}", crate::go::fmt::quote(p)))
            .collect();
        let mut warnings = Vec::new();
        let strict_errors = || duplicate_fields.iter().chain(&unknown_fields);
        match options.field_validation {
            FieldValidation::Strict if strict_errors().next().is_some() => {
                let items: Vec<&str> = strict_errors().map(String::as_str).collect();
                let message = format!(
                    "{kind} in version {v:?} cannot be handled as a {kind}: strict decoding error: {}",
                    items.join(", "),
                    kind = self.kind(),
                    v = self.version.name
                );
                return Response {
                    duplicate_fields,
                    unknown_fields,
                    decode_error: None,
                    object: Some(obj.into()),
                    status: Status::failure(400, "BadRequest", message),
                    warnings,
                    rules_skipped: false,
                };
            }
            FieldValidation::Warn => warnings.extend(strict_errors().cloned()),
            _ => {}
        }
        let expected_ns = if self.namespaced() {
            prepare::request_namespace(options.namespace.as_deref(), &obj)
        } else {
            String::new()
        };
        let old = match operation {
            Operation::Create => None,
            Operation::Update(o) | Operation::UpdateStatus(o) => {
                let decoded = decode::from_serde(o)
                    .map_err(DecodeError::from)
                    .and_then(|(o, has_null)| self.decode(o, has_null));
                let mut o = match decoded {
                    Ok((o, _)) => o,
                    Err(e) => {
                        return Response {
                            duplicate_fields,
                            unknown_fields,
                            status: Status::failure(500, "InternalError", e.to_string()),
                            decode_error: Some(DecodeError::Stored(Box::new(e))),
                            object: None,
                            warnings,
                            rules_skipped: false,
                        };
                    }
                };
                // A stored namespaced object is in the namespace it is written to.
                if !expected_ns.is_empty() && meta_str(&o, "namespace").is_empty() {
                    set_meta(
                        &mut o,
                        "namespace",
                        Json::String(expected_ns.as_str().into()),
                    );
                }
                if meta_str(&o, "resourceVersion").is_empty() {
                    set_meta(&mut o, "resourceVersion", Json::String("1".into()));
                }
                Some(o)
            }
        };
        let mismatch = |obj: Json, warnings: Vec<String>| Response {
            duplicate_fields: duplicate_fields.clone(),
            unknown_fields: unknown_fields.clone(),
            decode_error: None,
            object: Some(obj.into()),
            status: Status::failure(400, "BadRequest", prepare::NAMESPACE_MISMATCH.into()),
            warnings,
            rules_skipped: false,
        };
        let has_status = self.version.has_status_subresource();
        let mut errs = Vec::new();
        let (obj, rules_skipped) = match (operation, &old) {
            (Operation::Create, _) | (_, None) => {
                // The create handler, then `Store.create`, then `BeforeCreate`.
                prepare::wipe_system_fields(&mut obj);
                if !prepare::ensure_namespace(&mut obj, &expected_ns) {
                    return mismatch(obj, warnings);
                }
                prepare::generate_name(&mut obj, options.name_suffix.as_deref());
                prepare::prepare_for_create(&mut obj, has_status);
                self.validate_create(obj, kv, &mut errs, &mut warnings)
            }
            (operation, Some(old)) => {
                if meta_str(&obj, "resourceVersion").is_empty() {
                    set_meta(&mut obj, "resourceVersion", Json::String("1".into()));
                }
                if !prepare::ensure_namespace(&mut obj, &expected_ns) {
                    return mismatch(obj, warnings);
                }
                let ratcheting = options.ratcheting;
                if let Operation::UpdateStatus(_) = operation {
                    let obj = prepare::prepare_for_status_update(&obj, old);
                    self.validate_status_update(obj, old, ratcheting, kv, &mut errs, &mut warnings)
                } else {
                    prepare::prepare_for_update(&mut obj, old, has_status);
                    self.validate_update(obj, old, ratcheting, kv, &mut errs, &mut warnings)
                }
            }
        };
        let status = if errs.is_empty() {
            Status::success()
        } else {
            // The status names the object's own group and kind (`ObjectKinds(obj)`).
            let api_version = obj.str_field("apiVersion");
            let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
            Status::invalid(
                group,
                obj.str_field("kind"),
                obj.meta_str("name"),
                &errs,
                kv,
            )
        };
        Response {
            duplicate_fields,
            unknown_fields,
            decode_error: None,
            object: Some(obj),
            status,
            warnings,
            rules_skipped,
        }
    }

    /// `ValidateTypeMeta`.
    fn type_meta(&self, obj: &Json) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let kind = obj.str_field("kind").unwrap_or("");
        if kind != self.kind() {
            errs.push(FieldError::invalid(
                Path::new("kind"),
                BadValue::String(kind.to_string()),
                format!("must be {}", self.kind()),
            ));
        }
        let api_version = obj.str_field("apiVersion").unwrap_or("");
        let (group, version) = (self.crd.spec.group.as_str(), self.version.name.as_str());
        let is_expected = if group.is_empty() {
            api_version == version
        } else {
            api_version
                .strip_prefix(group)
                .and_then(|rest| rest.strip_prefix('/'))
                == Some(version)
        };
        if !is_expected {
            errs.push(FieldError::invalid(
                Path::new("apiVersion"),
                BadValue::String(api_version.to_string()),
                format!("must be {}", self.crd.api_version_of(version)),
            ));
        }
        errs
    }

    fn namespace_rule(&self) -> NamespaceRule {
        if self.namespaced() {
            NamespaceRule::Required
        } else {
            NamespaceRule::Forbidden
        }
    }

    fn openapi(&self, obj: &Json, old: Option<&Json>, kv: KubeVersion) -> Vec<FieldError> {
        let v = self.schema_validator(kv);
        if v.quick_result(obj, self.schema(), &self.prepared.plan)
            .is_some()
        {
            return Vec::new();
        }
        v.validate(obj, self.schema(), "", old)
            .errors
            .iter()
            .map(|e| e.to_field_error(&Path::root()))
            .collect()
    }

    fn scale_spec(&self, obj: &Json, errs: &mut Vec<FieldError>) {
        if let Some(scale) = self
            .version
            .subresources
            .as_ref()
            .and_then(|s| s.scale.as_ref())
        {
            scale_replicas(obj, &scale.spec_replicas_path, errs);
        }
    }

    fn scale_status(&self, obj: &Json, errs: &mut Vec<FieldError>) {
        if let Some(scale) = self
            .version
            .subresources
            .as_ref()
            .and_then(|s| s.scale.as_ref())
        {
            scale_replicas(obj, &scale.status_replicas_path, errs);
            if let Some(sel) = scale
                .label_selector_path
                .as_deref()
                .filter(|s| !s.is_empty())
            {
                scale_selector(obj, sel, errs);
            }
        }
    }

    /// The `set` and `map` lists' uniqueness errors of `obj` (`listtype`).
    fn list_types(&self, obj: &Json) -> Vec<FieldError> {
        let Some(plan) = &self.prepared.list_types else {
            return Vec::new();
        };
        listtype::validate(&Path::root(), self.schema(), plan, obj)
    }

    fn embedded(&self, obj: &Json) -> Vec<FieldError> {
        let mut errs = Vec::new();
        if self.prepared.has_embedded {
            let root = Path::root();
            walk_embedded(obj, self.schema(), &Trail::Base(&root), &mut errs, 0);
        }
        errs
    }

    /// The CEL step (§1.5): skipped with one extra error after a blocking error, and an
    /// internal error for a document nested deeper than the rules read
    /// ([`crate::values::MAX_CEL_DOCUMENT_DEPTH`]); returns the object and whether rules were
    /// skipped for want of a [`RuleValidator`].
    fn rules_step(
        &self,
        obj: &Json,
        old: Option<&Json>,
        ratcheting: bool,
        kv: KubeVersion,
        errs: &mut Vec<FieldError>,
        warnings: &mut Vec<String>,
    ) -> bool {
        if !self.prepared.has_rules {
            return false;
        }
        if errs.iter().any(is_blocking) {
            let value = if kv.at_least(34) {
                BadValue::Null
            } else {
                BadValue::String("null".into())
            };
            errs.push(FieldError::invalid(Path::root(), value, RULES_NOT_CHECKED));
            return false;
        }
        let Some(rules) = self.rules else {
            return true;
        };
        if obj.nests_deeper_than_cel_reads() || old.is_some_and(Json::nests_deeper_than_cel_reads) {
            errs.push(FieldError::internal(
                Path::root(),
                ValueError::TooDeep.to_string(),
            ));
            return false;
        }
        let out = rules.validate(&RuleRequest {
            schema: self.schema(),
            object: obj,
            old_object: old,
            ratcheting: ratcheting && old.is_some(),
            kube_version: kv,
        });
        errs.extend(out.errors);
        warnings.extend(out.warnings);
        false
    }

    fn validate_create(
        &self,
        obj: Json,
        kv: KubeVersion,
        errs: &mut Vec<FieldError>,
        warnings: &mut Vec<String>,
    ) -> (StoredObject, bool) {
        let tm = self.type_meta(&obj);
        if !tm.is_empty() {
            errs.extend(tm);
            return (obj.into(), false);
        }
        let mpath = Path::new("metadata");
        errs.extend(objectmeta::validate_object_meta(
            meta_of(&obj),
            self.namespace_rule(),
            self.name_rule,
            true,
            &mpath,
        ));
        errs.extend(self.openapi(&obj, None, kv));
        self.scale_spec(&obj, errs);
        self.scale_status(&obj, errs);
        errs.extend(self.embedded(&obj));
        errs.extend(self.list_types(&obj));
        let skipped = self.rules_step(&obj, None, false, kv, errs, warnings);
        // `rest.BeforeCreate` validates the metadata again once the strategy's validation
        // passed, with names as path segments (`path.ValidatePathSegmentName`). Nothing has
        // changed the metadata since the first pass, which found it valid, and every name rule
        // accepts only path segments as names
        // (`objectmeta::tests::every_rule_accepts_only_path_segments`): without a
        // `generateName` (checked masked the first time) the second pass cannot report
        // anything, and is not run.
        if errs.is_empty() && !meta_str(&obj, "generateName").is_empty() {
            errs.extend(objectmeta::validate_object_meta(
                meta_of(&obj),
                self.namespace_rule(),
                NameRule::PathSegment,
                true,
                &mpath,
            ));
        }
        if errs.is_empty() && self.finalizer_warnings {
            warnings.extend(finalizer_warnings(meta_of(&obj), None));
        }
        (obj.into(), skipped)
    }

    fn common_update(&self, obj: &Json, old: &Json, errs: &mut Vec<FieldError>) {
        let meta = meta_of(obj);
        let mpath = Path::new("metadata");
        errs.extend(objectmeta::validate_object_meta(
            meta,
            self.namespace_rule(),
            NameRule::PathSegment,
            true,
            &mpath,
        ));
        errs.extend(objectmeta::validate_object_meta_update(
            meta,
            meta_of(old),
            &mpath,
        ));
    }

    /// What every update validates first (the update and status-update
    /// strategies alike): the common checks, type metadata (its errors end
    /// validation: `false`) and object metadata against the stored object.
    fn update_metadata(&self, obj: &Json, old: &Json, errs: &mut Vec<FieldError>) -> bool {
        self.common_update(obj, old, errs);
        let tm = self.type_meta(obj);
        if !tm.is_empty() {
            errs.extend(tm);
            return false;
        }
        errs.extend(objectmeta::validate_object_meta_update(
            meta_of(obj),
            meta_of(old),
            &Path::new("metadata"),
        ));
        true
    }

    fn validate_update(
        &self,
        obj: Json,
        old: &Json,
        ratcheting: bool,
        kv: KubeVersion,
        errs: &mut Vec<FieldError>,
        warnings: &mut Vec<String>,
    ) -> (StoredObject, bool) {
        if !self.update_metadata(&obj, old, errs) {
            return (obj.into(), false);
        }
        errs.extend(self.openapi(&obj, Some(old).filter(|_| ratcheting), kv));
        self.scale_spec(&obj, errs);
        self.scale_status(&obj, errs);
        errs.extend(self.embedded(&obj));
        if self.list_types(old).is_empty() {
            errs.extend(self.list_types(&obj));
        }
        let skipped = self.rules_step(&obj, Some(old), ratcheting, kv, errs, warnings);
        if self.finalizer_warnings && errs.is_empty() {
            warnings.extend(finalizer_warnings(meta_of(&obj), Some(meta_of(old))));
        }
        (obj.into(), skipped)
    }

    fn validate_status_update(
        &self,
        obj: Json,
        old: &Json,
        ratcheting: bool,
        kv: KubeVersion,
        errs: &mut Vec<FieldError>,
        warnings: &mut Vec<String>,
    ) -> (StoredObject, bool) {
        if !self.update_metadata(&obj, old, errs) {
            return (obj.into(), false);
        }
        if let (Some(status_schema), Some(status)) =
            (self.status_schema(), field_of(&obj, "status"))
        {
            let v = self.schema_validator(kv);
            let base = Path::new("status");
            let old_status = field_of(old, "status");
            let quick = self
                .prepared
                .plan
                .property(self.schema(), "status")
                .and_then(|plan| v.quick_result(status, status_schema, plan));
            let out = match (quick, old_status.filter(|_| ratcheting)) {
                (Some(valid), _) => valid,
                (None, Some(os)) => v.validate_correlated(status, status_schema, "", os),
                (None, None) => v.validate(status, status_schema, "", None),
            };
            errs.extend(out.errors.iter().map(|e| e.to_field_error(&base)));
        }
        self.scale_status(&obj, errs);
        let new_lt = self.list_types(&obj);
        if !new_lt.is_empty() && self.list_types(old).is_empty() {
            errs.extend(new_lt);
        }
        let skipped = self.rules_step(&obj, Some(old), ratcheting, kv, errs, warnings);
        (obj.into(), skipped)
    }
}

/// Finalizer-name warnings (apiextensions `customresource` `generateWarningsFromObj` and
/// `validateKubeFinalizerName`): for each finalizer the write adds (all of them on create),
/// sorted and once each, the qualified-name problems, and a nudge towards a domain-qualified
/// name with a path. `rest.BeforeCreate`/`BeforeUpdate` ask for them only once validation
/// passed.
fn finalizer_warnings(meta: &JsonObject, old: Option<&JsonObject>) -> Vec<String> {
    const STANDARD: &[&str] = &["orphan", "foregroundDeletion", "kubernetes"];
    let names = |m: &JsonObject| -> std::collections::BTreeSet<String> {
        match m.get("finalizers") {
            Some(Json::Array(f)) => f
                .iter()
                .filter_map(|x| match x {
                    Json::String(s) => Some(s.to_string()),
                    _ => None,
                })
                .collect(),
            _ => std::collections::BTreeSet::new(),
        }
    };
    let mut added = names(meta);
    if let Some(old) = old {
        let before = names(old);
        added.retain(|f| !before.contains(f));
    }
    let mut out = Vec::new();
    for f in &added {
        let quoted = crate::go::fmt::quote(f);
        for msg in crate::name_validation::is_qualified_name(f) {
            out.push(format!("metadata.finalizers: {quoted}: {msg}"));
        }
        if !f.contains('/') && !STANDARD.contains(&f.as_str()) {
            let path = if f.contains('.') {
                " including a path (/)"
            } else {
                ""
            };
            out.push(format!(
                "metadata.finalizers: {quoted}: prefer a domain-qualified finalizer name{path} to avoid accidental conflicts with other finalizer writers"
            ));
        }
    }
    out
}

fn walk_embedded(
    v: &Json,
    s: &JsonSchemaProps,
    path: &Trail<'_>,
    errs: &mut Vec<FieldError>,
    depth: usize,
) {
    use crate::schema_props::{SchemaOrArray, SchemaOrBool};
    if depth > 1000 {
        return;
    }
    match v {
        Json::Object(m) => {
            if s.x_embedded_resource {
                errs.extend(objectmeta::validate_embedded(m, &path.to_path()));
            }
            for (k, child) in m.iter() {
                if s.x_embedded_resource && &**k == "metadata" {
                    continue;
                }
                if let Some(p) = s.properties.get(&**k) {
                    walk_embedded(child, p, &path.child(k), errs, depth + 1);
                } else if let Some(SchemaOrBool::Schema(ap)) = &s.additional_properties {
                    walk_embedded(child, ap, &path.key(k), errs, depth + 1);
                }
            }
        }
        Json::Array(a) => {
            if let Some(SchemaOrArray::Schema(is)) = &s.items {
                for (i, x) in a.iter().enumerate() {
                    walk_embedded(x, is, &path.index(i), errs, depth + 1);
                }
            }
        }
        _ => {}
    }
}
