//! The entry point for embedders: a [`Validator`] built once from CRDs for one Kubernetes
//! version, answering create, update and status-update requests for custom resources, and
//! reviewing CRDs, as kube-apiserver does.
//!
//! Each request runs kube-apiserver's custom-resource pipeline ([`crate::pipeline`]) with the CEL
//! rules of the CRD version serving the object ([`crate::rules::CelRuleStep`]); the rules of a
//! CRD version are compiled the first time an object needs them and kept for later requests,
//! as is the rest of what the pipeline derives from the version's schema
//! ([`crate::pipeline::PreparedSchema`]).
//! CEL rules always run: there is no way to validate without them.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::builtins::{BuiltinError, Builtins};
use crate::crd::CustomResourceDefinition;
use crate::crd_review::{CrdReview, review_crd};
use crate::documents::LocatedCrd;
use crate::error::Error;
use crate::kubectl;
use crate::load::load_file;
use crate::pipeline::status::{Cause, Status};
use crate::pipeline::{
    Body, DecodeError, FieldValidation, Operation, Options, Pipeline, PreparedSchema, Response,
    StoredObject,
};
use crate::rules::{CelRuleStep, RuleStepError};
use crate::version::KubeVersion;

/// A CRD of a [`Validator`], in the order the CRDs were added (the first is `CrdId(0)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CrdId(pub usize);

impl std::fmt::Display for CrdId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// One CRD, the compiled rules of its versions and their prepared schemas.
struct CrdEntry {
    crd: CustomResourceDefinition,
    /// Where it was read (`file:line`), if it was read from a file.
    location: Option<String>,
    /// The compiled rules of `crd.spec.versions[i]`, compiled on first use.
    steps: Vec<OnceLock<Result<CelRuleStep, RuleStepError>>>,
    /// The prepared schema of `crd.spec.versions[i]`, prepared on first use.
    schemas: Vec<OnceLock<Arc<PreparedSchema>>>,
}

impl CrdEntry {
    fn new(crd: CustomResourceDefinition, location: Option<String>) -> CrdEntry {
        let steps = crd.spec.versions.iter().map(|_| OnceLock::new()).collect();
        let schemas = crd.spec.versions.iter().map(|_| OnceLock::new()).collect();
        CrdEntry {
            crd,
            location,
            steps,
            schemas,
        }
    }

    /// The pipeline of `version` with its compiled rules.
    fn pipeline(&self, version: &str, kube_version: KubeVersion) -> Result<Pipeline<'_>, Error> {
        let (index, step) = self.indexed_step(version, kube_version)?;
        let prepared = self.schemas[index]
            .get_or_init(|| Arc::new(PreparedSchema::new(&self.crd.spec.versions[index])));
        Ok(Pipeline::with_prepared(
            &self.crd,
            version,
            Arc::clone(prepared),
            Some(step),
        )?)
    }

    /// The compiled rules of `version`.
    fn step(&self, version: &str, kube_version: KubeVersion) -> Result<&CelRuleStep, Error> {
        self.indexed_step(version, kube_version).map(|(_, s)| s)
    }

    /// The index of `version` in `crd.spec.versions` and its compiled rules.
    fn indexed_step(
        &self,
        version: &str,
        kube_version: KubeVersion,
    ) -> Result<(usize, &CelRuleStep), Error> {
        let compile = || CelRuleStep::for_version(&self.crd, version, kube_version);
        let rules_error = |source: &RuleStepError| Error::Rules {
            crd: self.crd.metadata.name.clone(),
            version: version.to_string(),
            source: source.clone(),
        };
        let Some(index) = self
            .crd
            .spec
            .versions
            .iter()
            .position(|v| v.name == version)
        else {
            // No such version: compiling reports it.
            return Err(match compile() {
                Err(e) => rules_error(&e),
                Ok(_) => Error::NoSuchVersion {
                    crd: self.crd.metadata.name.clone(),
                    version: version.to_string(),
                },
            });
        };
        self.steps[index]
            .get_or_init(compile)
            .as_ref()
            .map(|s| (index, s))
            .map_err(rules_error)
    }
}

/// Builds a [`Validator`].
pub struct ValidatorBuilder {
    kube_version: KubeVersion,
    field_validation: FieldValidation,
    ratcheting: bool,
    crds: Vec<CrdEntry>,
    builtins: bool,
    schema_documents: Vec<(String, Value)>,
}

impl Default for ValidatorBuilder {
    fn default() -> Self {
        let options = Options::default();
        ValidatorBuilder {
            kube_version: options.kube_version,
            field_validation: options.field_validation,
            ratcheting: options.ratcheting,
            crds: Vec::new(),
            builtins: true,
            schema_documents: Vec::new(),
        }
    }
}

impl ValidatorBuilder {
    /// The Kubernetes release to behave as (default: the newest supported).
    pub fn kube_version(mut self, version: KubeVersion) -> Self {
        self.kube_version = version;
        self
    }

    /// The Kubernetes release the validator will behave as.
    pub fn selected_kube_version(&self) -> KubeVersion {
        self.kube_version
    }

    /// What happens to unknown fields (default: [`FieldValidation::Strict`], as
    /// `kubectl --validate=strict`).
    pub fn field_validation(mut self, field_validation: FieldValidation) -> Self {
        self.field_validation = field_validation;
        self
    }

    /// Adds a CRD.
    pub fn crd(mut self, crd: CustomResourceDefinition) -> Self {
        self.add_crd(crd, None);
        self
    }

    /// Adds a CRD read from a document.
    pub fn located_crd(mut self, crd: LocatedCrd) -> Self {
        self.add_crd(crd.crd, Some(crd.location));
        self
    }

    /// Whether updates ratchet (feature gate `CRDValidationRatcheting`; default on, as it is
    /// locked on since Kubernetes 1.33).
    pub fn ratcheting(mut self, ratcheting: bool) -> Self {
        self.ratcheting = ratcheting;
        self
    }

    /// Adds every CRD of a file (YAML or JSON streams, `kind: List` expanded; other kinds are
    /// ignored).
    pub fn crd_file(mut self, path: impl AsRef<Path>) -> Result<Self, Error> {
        self.add_crd_file(path)?;
        Ok(self)
    }

    /// Adds every CRD of a file and returns their ids; adds none if the file does not load.
    pub fn add_crd_file(&mut self, path: impl AsRef<Path>) -> Result<Vec<CrdId>, Error> {
        let loaded = load_file(path.as_ref())?;
        Ok(loaded
            .into_iter()
            .map(|l| {
                let location = format!("{}:{}", l.source, l.position.line);
                self.add_crd(l.crd, Some(location))
            })
            .collect())
    }

    /// Adds a CRD (`location`: where it was read, for error messages) and returns its id.
    pub fn add_crd(&mut self, crd: CustomResourceDefinition, location: Option<String>) -> CrdId {
        self.crds.push(CrdEntry::new(crd, location));
        CrdId(self.crds.len() - 1)
    }

    /// Whether the built-in kinds of the selected release (shipped with kcel) serve objects no
    /// CRD serves (default on; see [`crate::builtins`]).
    pub fn builtins(mut self, on: bool) -> Self {
        self.builtins = on;
        self
    }

    /// Adds an OpenAPI v3 document (as `kubectl get --raw /openapi/v3/apis/apps/v1` saves it):
    /// its kinds serve objects no CRD serves, before the shipped built-in kinds (`source` names
    /// it in errors).
    pub fn openapi_document(mut self, document: Value, source: impl Into<String>) -> Self {
        self.schema_documents.push((source.into(), document));
        self
    }

    /// [`ValidatorBuilder::schemas_dir`] for each of `dirs`, in order.
    pub fn schemas_dirs(
        self,
        dirs: impl IntoIterator<Item = impl AsRef<Path>>,
    ) -> Result<Self, Error> {
        dirs.into_iter().try_fold(self, |b, d| b.schemas_dir(d))
    }

    /// Adds every OpenAPI v3 document (`*.json`) under `dir`, or the file `dir` (`kcel validate
    /// --schemas`), as [`ValidatorBuilder::openapi_document`] does.
    pub fn schemas_dir(mut self, dir: impl AsRef<Path>) -> Result<Self, Error> {
        let mut files = Vec::new();
        crate::builtins::collect_json(dir.as_ref(), &mut files, 0).map_err(|e| {
            BuiltinError::Schemas {
                path: dir.as_ref().display().to_string(),
                message: e.to_string(),
            }
        })?;
        files.sort();
        for f in files {
            let path = f.display().to_string();
            let schemas_error = |message: String| BuiltinError::Schemas {
                path: path.clone(),
                message,
            };
            let text = std::fs::read_to_string(&f).map_err(|e| schemas_error(e.to_string()))?;
            let doc: Value =
                serde_json::from_str(&text).map_err(|e| schemas_error(e.to_string()))?;
            self.schema_documents.push((path, doc));
        }
        Ok(self)
    }

    /// Checks the OpenAPI documents added so far as [`ValidatorBuilder::try_build`] would,
    /// without building: for callers that hand the builder on (e.g. to [`crate::gate::run`]).
    pub fn check_documents(&self) -> Result<(), Error> {
        let mut builtins = Builtins::new(self.kube_version, false);
        for (source, doc) in &self.schema_documents {
            builtins.add_document(doc, source)?;
        }
        Ok(())
    }

    /// The validator; fails only on an OpenAPI document that has no `components.schemas`.
    pub fn try_build(self) -> Result<Validator, Error> {
        let mut builtins = Builtins::new(self.kube_version, self.builtins);
        for (source, doc) in &self.schema_documents {
            builtins.add_document(doc, source)?;
        }
        Ok(Validator {
            kube_version: self.kube_version,
            field_validation: self.field_validation,
            ratcheting: self.ratcheting,
            crds: self.crds,
            builtins,
        })
    }

    /// The validator. OpenAPI documents that cannot be read are left out (see
    /// [`ValidatorBuilder::try_build`]).
    pub fn build(self) -> Validator {
        let mut builtins = Builtins::new(self.kube_version, self.builtins);
        for (source, doc) in &self.schema_documents {
            let _ = builtins.add_document(doc, source);
        }
        Validator {
            kube_version: self.kube_version,
            field_validation: self.field_validation,
            ratcheting: self.ratcheting,
            crds: self.crds,
            builtins,
        }
    }
}

/// The write being validated, and which CRD version serves it.
#[derive(Clone, Debug)]
pub struct Request {
    object: Body,
    operation: Operation,
    duplicates: Vec<String>,
    target: Option<(CrdId, Option<String>)>,
    namespace: Option<String>,
    name_suffix: Option<String>,
    field_validation: Option<FieldValidation>,
}

impl Request {
    /// Creating `object` (a `serde_json` value, or a [`crate::values::JsonBody`] read straight
    /// into the pipeline's tree).
    pub fn create(object: impl Into<Body>) -> Request {
        Request::new(object, Operation::Create)
    }

    /// Updating the stored object `old` to `object`.
    pub fn update(object: impl Into<Body>, old: Value) -> Request {
        Request::new(object, Operation::Update(old))
    }

    /// Writing `object` through the `status` subresource over the stored object `old`.
    pub fn status_update(object: impl Into<Body>, old: Value) -> Request {
        Request::new(object, Operation::UpdateStatus(old))
    }

    /// A request of any operation.
    pub fn new(object: impl Into<Body>, operation: Operation) -> Request {
        Request {
            object: object.into(),
            operation,
            duplicates: Vec::new(),
            target: None,
            namespace: None,
            name_suffix: None,
            field_validation: None,
        }
    }

    /// The keys the JSON body repeated (each the path of a repeated key in the order Go's
    /// decoder meets them: `spec.foo`, `spec.ports[0].name`): strict decoding reports them.
    pub fn with_duplicates(mut self, duplicates: Vec<String>) -> Request {
        self.duplicates = duplicates;
        self
    }

    /// Validates against version `version` of CRD `crd`, whatever the object's `apiVersion`
    /// and `kind` say (by default the CRD serving them is found).
    pub fn against(mut self, crd: CrdId, version: impl Into<String>) -> Request {
        self.target = Some((crd, Some(version.into())));
        self
    }

    /// The request's namespace (kubectl's `-n`): without it, the object's own namespace, else
    /// `default` (see [`crate::pipeline::Options::namespace`]).
    pub fn in_namespace(mut self, namespace: Option<String>) -> Request {
        self.namespace = namespace;
        self
    }

    /// The characters that replace the random suffix of a generated name (`generateName`).
    pub fn with_name_suffix(mut self, suffix: Option<String>) -> Request {
        self.name_suffix = suffix;
        self
    }

    /// This request's field validation (the `fieldValidation` query parameter), instead of the
    /// validator's.
    pub fn with_field_validation(mut self, field_validation: FieldValidation) -> Request {
        self.field_validation = Some(field_validation);
        self
    }

    /// Validates against CRD `crd`, in the version the object's `apiVersion` names.
    pub fn against_crd(mut self, crd: CrdId) -> Request {
        self.target = Some((crd, None));
        self
    }
}

/// What kube-apiserver answers a request with.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// The object's `kind`.
    pub kind: String,
    /// The object's `metadata.name`.
    pub name: String,
    /// The `metav1.Status`: `Success`, or a failure with its causes.
    pub status: Status,
    /// Warnings (ratcheted rule failures, unknown fields under `Warn`).
    pub warnings: Vec<String>,
    /// The object as it would be stored (decoded, pruned, defaulted, prepared), unless
    /// decoding failed.
    pub object: Option<StoredObject>,
    /// `unknown field "<path>"` for each pruned field, in Kubernetes' order.
    pub unknown_fields: Vec<String>,
    /// `duplicate field "<path>"` for each repeated key of a JSON body, in document order.
    pub duplicate_fields: Vec<String>,
    /// Why the object could not be decoded (it never reached validation).
    pub decode_error: Option<DecodeError>,
    /// Whether CEL rules would have run but were skipped (an earlier step failed).
    pub rules_skipped: bool,
}

impl Verdict {
    fn new(kind: String, name: String, response: Response) -> Verdict {
        Verdict {
            kind,
            name,
            status: response.status,
            warnings: response.warnings,
            object: response.object,
            unknown_fields: response.unknown_fields,
            duplicate_fields: response.duplicate_fields,
            decode_error: response.decode_error,
            rules_skipped: response.rules_skipped,
        }
    }

    /// Whether the write is accepted.
    pub fn is_valid(&self) -> bool {
        kubectl::is_success(&self.status)
    }

    /// Why it is rejected: each cause with its field, reason (the error type) and message.
    pub fn causes(&self) -> &[Cause] {
        self.status
            .details
            .as_ref()
            .map_or(&[], |d| d.causes.as_slice())
    }

    /// kubectl's message for a rejected write (`The Widget "w1" is invalid: ...`).
    pub fn kubectl_message(&self) -> String {
        kubectl::status_message(&self.kind, &self.name, &self.status)
    }

    /// The `metav1.Status` as on the wire.
    pub fn status_json(&self) -> Value {
        kubectl::status_json(&self.status)
    }
}

/// A kind's schema as mutating admission needs it ([`Validator::kind_schema`]).
#[derive(Clone)]
pub enum KindSchema<'v> {
    /// A custom resource: its CRD version's schema.
    Custom(&'v crate::schema_props::JsonSchemaProps),
    /// A built-in kind: its synthesized CRD's schema and its Go types.
    Builtin(Arc<crate::builtins::BuiltinKind>),
}

impl KindSchema<'_> {
    /// The kind's `openAPIV3Schema` (a built-in kind's converted schema).
    pub fn props(&self) -> Option<&crate::schema_props::JsonSchemaProps> {
        match self {
            KindSchema::Custom(schema) => Some(schema),
            KindSchema::Builtin(kind) => kind
                .crd
                .spec
                .versions
                .first()
                .and_then(|v| v.open_api_v3_schema()),
        }
    }

    /// What the patchers need of the kind.
    pub fn target(&self) -> crate::admission::mutating::Target<'_> {
        match self {
            KindSchema::Custom(schema) => crate::admission::mutating::Target {
                schema: Some(schema),
                go_type: None,
            },
            KindSchema::Builtin(kind) => crate::admission::mutating::Target {
                schema: self.props(),
                go_type: Some(&kind.go_type),
            },
        }
    }
}

/// A resource as admission sees it ([`Validator::served_resource`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServedResource {
    /// The plural resource name (`deployments`).
    pub resource: String,
    /// Whether its objects live in namespaces.
    pub namespaced: bool,
    /// The versions of its group serving the same kind.
    pub versions: Vec<String>,
}

/// The resource of a built-in kind (`meta.UnsafeGuessKindToResource`,
/// `apimachinery/pkg/api/meta/restmapper.go`): lower case, `s` → `ses`, `y` → `ies`, else `s`;
/// `endpoints` stays as it is. Every built-in kind's resource is named this way.
pub fn guess_kind_to_resource(kind: &str) -> String {
    let singular = kind.to_lowercase();
    if singular == "endpoints" {
        return singular;
    }
    if let Some(stem) = singular.strip_suffix('s') {
        return format!("{stem}ses");
    }
    if let Some(stem) = singular.strip_suffix('y') {
        return format!("{stem}ies");
    }
    format!("{singular}s")
}

/// Custom-resource validation for a set of CRDs in one Kubernetes version (the crate's
/// documentation shows it in use). It is `Send` and `Sync`: threads can share one.
pub struct Validator {
    kube_version: KubeVersion,
    field_validation: FieldValidation,
    ratcheting: bool,
    crds: Vec<CrdEntry>,
    builtins: Builtins,
}

impl Validator {
    /// A builder: newest Kubernetes version, strict field validation, no CRD.
    pub fn builder() -> ValidatorBuilder {
        ValidatorBuilder::default()
    }

    /// The Kubernetes release reproduced.
    pub fn kube_version(&self) -> KubeVersion {
        self.kube_version
    }

    /// A notice to show once, after a built-in kind has served an object, when built-in kinds
    /// are validated with an older release's schemas (Kubernetes 1.36 and 1.37 use 1.35's).
    pub fn builtins_notice(&self) -> Option<String> {
        self.builtins.notice()
    }

    /// Whether it has no CRD.
    pub fn is_empty(&self) -> bool {
        self.crds.is_empty()
    }

    /// The ids of its CRDs, in the order they were added.
    pub fn crd_ids(&self) -> impl Iterator<Item = CrdId> + use<> {
        (0..self.crds.len()).map(CrdId)
    }

    /// The CRD `id`.
    pub fn crd(&self, id: CrdId) -> Option<&CustomResourceDefinition> {
        self.crds.get(id.0).map(|e| &e.crd)
    }

    /// Where CRD `id` was read (`file:line`), if it was read from a file.
    pub fn crd_location(&self, id: CrdId) -> Option<&str> {
        self.crds.get(id.0).and_then(|e| e.location.as_deref())
    }

    /// The CRD and version serving `apiVersion` and `kind` (the first added that does).
    pub fn find(&self, api_version: &str, kind: &str) -> Option<(CrdId, &str)> {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        self.crds_of_kind(group, kind).find_map(|id| {
            let v = self.crds[id.0].crd.version(version)?;
            Some((id, v.name.as_str()))
        })
    }

    /// The resource serving `apiVersion` and `kind` (a CRD's, else a built-in kind's), for
    /// admission: its plural name, scope, and the versions of its group serving the kind.
    pub fn served_resource(&self, api_version: &str, kind: &str) -> Option<ServedResource> {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        if let Some(id) = self.find_kind(api_version, kind) {
            let crd = &self.crds[id.0].crd;
            crd.version(version)?;
            return Some(ServedResource {
                resource: crd.spec.names.plural.clone(),
                namespaced: crd.spec.scope == "Namespaced",
                versions: crd
                    .spec
                    .versions
                    .iter()
                    .filter(|v| v.served)
                    .map(|v| v.name.clone())
                    .collect(),
            });
        }
        let builtin = self.builtins.kind(api_version, kind).ok()??;
        let release = crate::builtins::release_for(self.kube_version);
        let versions = crate::builtins::shipped::api_versions(release)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|av| {
                let (g, v) = av.rsplit_once('/').unwrap_or(("", av));
                (g == group && self.builtins.kind(av, kind).ok().flatten().is_some())
                    .then(|| v.to_string())
            })
            .collect();
        Some(ServedResource {
            resource: guess_kind_to_resource(kind),
            namespaced: builtin.crd.spec.scope == "Namespaced",
            versions,
        })
    }

    /// The kinds served as `resource` in `group`/`version` (`RESTMapper.KindsFor` for a fully
    /// specified resource): the CRDs whose plural it is and which serve the version, else the
    /// built-in kinds whose resource ([`guess_kind_to_resource`]) it is.
    pub fn kinds_for_resource(&self, group: &str, version: &str, resource: &str) -> Vec<String> {
        let crds: Vec<String> = self
            .crds
            .iter()
            .map(|e| &e.crd)
            .filter(|c| {
                c.spec.group == group
                    && c.spec.names.plural == resource
                    && c.version(version).is_some_and(|v| v.served)
            })
            .map(|c| c.spec.names.kind.clone())
            .collect();
        if !crds.is_empty() {
            return crds;
        }
        let api_version = if group.is_empty() {
            version.to_string()
        } else {
            format!("{group}/{version}")
        };
        self.builtins
            .kind_names(&api_version)
            .into_iter()
            .filter(|k| guess_kind_to_resource(k) == resource)
            .collect()
    }

    /// The schema of `api_version`/`kind` (and a built-in kind's Go types), what mutating
    /// admission patches an object of the kind with; `None` when no CRD or built-in kind serves it.
    pub fn kind_schema(&self, api_version: &str, kind: &str) -> Option<KindSchema<'_>> {
        if let Some((id, version)) = self.find(api_version, kind) {
            let schema = self.crds[id.0].crd.version(version)?.open_api_v3_schema()?;
            return Some(KindSchema::Custom(schema));
        }
        let builtin = self.builtins.kind(api_version, kind).ok()??;
        Some(KindSchema::Builtin(builtin))
    }

    /// The first CRD defining the group of `apiVersion` and `kind`, whichever versions it has.
    pub fn find_kind(&self, api_version: &str, kind: &str) -> Option<CrdId> {
        let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
        self.crds_of_kind(group, kind).next()
    }

    /// The CRDs defining `kind` in `group`, in the order they were added.
    fn crds_of_kind<'s>(
        &'s self,
        group: &'s str,
        kind: &'s str,
    ) -> impl Iterator<Item = CrdId> + 's {
        self.crds.iter().enumerate().filter_map(move |(i, e)| {
            let names = &e.crd.spec;
            (names.group == group && names.names.kind == kind).then_some(CrdId(i))
        })
    }

    /// Validates creating `object`.
    pub fn validate_create(&self, object: Value) -> Result<Verdict, Error> {
        self.validate(Request::create(object))
    }

    /// Validates updating the stored object `old` to `object` (transition rules run, unchanged
    /// parts ratchet).
    pub fn validate_update(&self, object: Value, old: Value) -> Result<Verdict, Error> {
        self.validate(Request::update(object, old))
    }

    /// Validates writing `object` through the `status` subresource over `old`.
    pub fn validate_status_update(&self, object: Value, old: Value) -> Result<Verdict, Error> {
        self.validate(Request::status_update(object, old))
    }

    /// Validates a request. Errors are requests that cannot be answered: neither a CRD nor a
    /// built-in kind serves the object, or the CRD's rules cannot be compiled.
    ///
    /// A CRD serving the object's group and kind is used first, then the built-in kind.
    pub fn validate(&self, request: Request) -> Result<Verdict, Error> {
        let s = |p: &str| request.object.str_at(p);
        let api_version = s("/apiVersion").unwrap_or("");
        if request.target.is_none() {
            let kind = s("/kind").unwrap_or("");
            if self.find_kind(api_version, kind).is_none()
                && let Some(builtin) = self.builtins.kind(api_version, kind)?
            {
                return Ok(
                    self.answer(request, |object, duplicates, operation, options| {
                        // The typed decoding of built-in kinds reads `serde_json`.
                        let object = object.into_serde();
                        crate::builtins::run(&builtin, object, duplicates, operation, options)
                    }),
                );
            }
        }
        let (id, version) = match request.target {
            Some((id, Some(ref version))) => (id, version.clone()),
            Some((id, None)) => {
                let version = api_version.rsplit_once('/').map_or(api_version, |(_, v)| v);
                (id, version.to_string())
            }
            None => {
                let kind = s("/kind").unwrap_or("");
                let (id, version) =
                    self.find(api_version, kind)
                        .ok_or_else(|| Error::NoMatchingCrd {
                            api_version: api_version.to_string(),
                            kind: kind.to_string(),
                        })?;
                (id, version.to_string())
            }
        };
        let entry = self.crds.get(id.0).ok_or(Error::UnknownCrd(id))?;
        let pipeline = entry.pipeline(&version, self.kube_version)?;
        Ok(
            self.answer(request, |object, duplicates, operation, options| {
                pipeline.run_body(object, duplicates, operation, options)
            }),
        )
    }

    /// Runs `request` through `run` with this validator's options, and names the answer.
    fn answer(
        &self,
        request: Request,
        run: impl FnOnce(Body, &[String], &Operation, &Options) -> Response,
    ) -> Verdict {
        let Request {
            object,
            operation,
            duplicates,
            namespace,
            name_suffix,
            field_validation,
            ..
        } = request;
        let options = Options {
            kube_version: self.kube_version,
            field_validation: field_validation.unwrap_or(self.field_validation),
            ratcheting: self.ratcheting,
            namespace,
            name_suffix,
        };
        let s = |p: &str| object.str_at(p).unwrap_or("").to_string();
        let (kind, name) = (s("/kind"), s("/metadata/name"));
        let response = run(object, &duplicates, &operation, &options);
        Verdict::new(kind, name, response)
    }

    /// Compiles the rules of version `version` of CRD `crd` now rather than on first use.
    pub fn compile(&self, crd: CrdId, version: &str) -> Result<(), Error> {
        let entry = self.crds.get(crd.0).ok_or(Error::UnknownCrd(crd))?;
        entry.step(version, self.kube_version).map(|_| ())
    }

    /// Compiles the rules of every version of every CRD now rather than on first use; returns
    /// how many CRD versions compiled, or the first that did not (after trying them all).
    pub fn compile_all(&self) -> Result<usize, Error> {
        let mut compiled = 0;
        let mut first_error = None;
        for e in &self.crds {
            for v in &e.crd.spec.versions {
                match e.step(&v.name, self.kube_version) {
                    Ok(_) => compiled += 1,
                    Err(err) => {
                        first_error.get_or_insert(err);
                    }
                }
            }
        }
        first_error.map_or(Ok(compiled), Err)
    }

    /// Everything kube-apiserver checks when `crd` is written (created, or replacing `old`).
    pub fn review_crd(
        &self,
        crd: &CustomResourceDefinition,
        old: Option<&CustomResourceDefinition>,
    ) -> CrdReview {
        review_crd(crd, old, self.kube_version)
    }
}

#[cfg(test)]
mod tests {
    /// Threads can share a validator.
    #[test]
    fn validator_is_send_and_sync() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<super::Validator>();
    }
}
