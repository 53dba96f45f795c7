//! The facade of admission: a [`PolicySet`] holds the validating and mutating policies, their
//! bindings, Namespaces and candidate params found among the input documents, and answers, for
//! one object written, what the mutating ([`PolicySet::mutate`]) and validating
//! ([`PolicySet::admit`]) admission plugins would answer, with the resources and kinds a
//! [`Validator`] knows (CRDs and built-in kinds).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

use super::api_validation::{
    Environments, default_binding, default_policy, validate_binding, validate_policy,
};
use super::authorizer::{AuthorizerValues, AuthzRules};
use super::defaults::{self, BuiltinDefaulter};
use super::matching::{Cluster, binding_matches, definition_matches};
use super::model::{
    BINDING_KIND, ModelError, POLICY_KIND, ValidatingAdmissionPolicyBinding, admission_kind,
    decode_binding, decode_policy,
};
use super::mutating::model::{FailurePolicy, is_kind};
use super::mutating::{self, Invocation, MutatingAdmissionPolicyBinding, StatusError};
use super::request::{
    Attributes, GroupVersionKind, GroupVersionResource, Operation, UserInfo, namespace_json,
    namespace_named, request_json, stored_namespace,
};
use super::validating::{
    Answer, CompiledPolicy, Params, collect_params, dispatch, is_exempt, param_kind_error,
};
use crate::documents::Document;
use crate::field::FieldError;
use crate::library::authz::Authorizer;
use crate::validator::{KindSchema, ServedResource, Validator};
use crate::version::KubeVersion;

/// Namespaces that exist in every cluster.
const SYSTEM_NAMESPACES: [&str; 4] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/// The namespace kubectl writes a namespaced object without one to.
const DEFAULT_NAMESPACE: &str = "default";

/// Who sends the requests, and how.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestOptions {
    /// The requester (`request.userInfo`).
    pub user: UserInfo,
    /// Whether requests are dry runs (`request.dryRun`).
    pub dry_run: bool,
    /// Labels of namespaces not among the inputs (`--namespace-labels`), by name.
    pub namespace_labels: BTreeMap<String, BTreeMap<String, String>>,
    /// What policies' `authorizer` checks answer (`--authz`; default: no opinion on anything).
    pub authorizer: AuthzRules,
}

/// Why a policy or binding document among the inputs could not be decoded; Display is the
/// decoder's text with its field path (no file and line: the record of the document says them).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A ValidatingAdmissionPolicy or its binding.
    #[error("{}", .0.message)]
    Validating(ModelError),
    /// A MutatingAdmissionPolicy or its binding.
    #[error("{}", mutating_detail(.0))]
    Mutating(mutating::model::ModelError),
}

fn mutating_detail(e: &mutating::model::ModelError) -> String {
    match e.field.as_str() {
        "" => e.message.clone(),
        field => format!("{field}: {}", e.message),
    }
}

/// The validating policies and what they read, for one Kubernetes version.
#[derive(Default)]
pub struct PolicySet {
    version: KubeVersion,
    options: RequestOptions,
    policies: Vec<CompiledPolicy>,
    bindings: Vec<ValidatingAdmissionPolicyBinding>,
    mutating: Vec<mutating::CompiledPolicy>,
    mutating_bindings: Vec<MutatingAdmissionPolicyBinding>,
    namespaces: HashMap<String, Value>,
    objects: Vec<Value>,
    /// Why a policy or binding document could not be decoded, by file and line.
    errors: HashMap<(String, usize), DecodeError>,
    /// `Validator::served_resource` by `(apiVersion, kind)`, looked up once per kind.
    served: Mutex<HashMap<(String, String), Option<ServedResource>>>,
    /// `options.authorizer`, shared by the values bound to `authorizer`.
    authorizer: Option<Arc<dyn Authorizer>>,
    /// Go defaulting of built-in kinds, run after each mutation.
    defaulter: BuiltinDefaulter,
}

impl PolicySet {
    /// An empty set for Kubernetes `version`.
    pub fn new(version: KubeVersion, options: RequestOptions) -> PolicySet {
        let authorizer: Arc<dyn Authorizer> = Arc::new(options.authorizer.clone());
        PolicySet {
            version,
            options,
            authorizer: Some(authorizer),
            defaulter: BuiltinDefaulter { version },
            ..Default::default()
        }
    }

    /// Takes in one input document: a policy or binding (decoded, a policy compiled), a
    /// Namespace, or any other object (a candidate param).
    pub fn add_document(&mut self, doc: &Document) {
        let at = (doc.source.clone(), doc.line);
        let mutating_error = DecodeError::Mutating;
        if is_kind(&doc.value, mutating::model::POLICY_KIND) {
            match mutating::MutatingAdmissionPolicy::from_document(doc, self.version) {
                Ok(p) => self
                    .mutating
                    .push(mutating::CompiledPolicy::compile(&p, self.version)),
                Err(e) => drop(self.errors.insert(at, mutating_error(e))),
            }
            return;
        }
        if is_kind(&doc.value, mutating::model::BINDING_KIND) {
            match MutatingAdmissionPolicyBinding::from_document(doc, self.version) {
                Ok(b) => self.mutating_bindings.push(b),
                Err(e) => drop(self.errors.insert(at, mutating_error(e))),
            }
            return;
        }
        let model_error = DecodeError::Validating;
        match admission_kind(&doc.value) {
            Some(POLICY_KIND) => match decode_policy(doc) {
                Ok(p) => self.policies.push(CompiledPolicy::new(p, self.version)),
                Err(e) => drop(self.errors.insert(at, model_error(e))),
            },
            Some(BINDING_KIND) => match decode_binding(doc) {
                Ok(b) => self.bindings.push(b),
                Err(e) => drop(self.errors.insert(at, model_error(e))),
            },
            _ => {
                let v = &doc.value;
                let s = |p: &str| v.pointer(p).and_then(Value::as_str).unwrap_or("");
                if s("/apiVersion") == "v1" && s("/kind") == "Namespace" {
                    self.namespaces
                        .insert(s("/metadata/name").to_string(), stored_namespace(v));
                }
                self.objects.push(v.clone());
            }
        }
    }

    /// Whether there is no policy at all.
    pub fn is_empty(&self) -> bool {
        self.policies.is_empty() && self.mutating.is_empty()
    }

    /// Why `doc` (a policy or binding) could not be decoded, if it could not.
    pub fn decode_error(&self, doc: &Document) -> Option<&DecodeError> {
        self.errors.get(&(doc.source.clone(), doc.line))
    }

    /// What the server's API validation finds wrong with `doc` when it is a policy or binding
    /// being created (its expressions compiled in the new-expressions view), after the server's
    /// defaults.
    pub fn review(&self, doc: &Document) -> Vec<FieldError> {
        review_document(doc, self.version)
    }

    /// What the validating policies answer when `object` (as it would be stored) is written
    /// with `operation` over `old`; `None` when no served resource is known for its kind.
    pub fn admit(
        &self,
        validator: &Validator,
        object: Option<&Value>,
        old: Option<&Value>,
        operation: Operation,
        request_namespace: Option<&str>,
    ) -> Option<(Attributes, Answer)> {
        let (attr, view) = self.request(validator, object, old, operation, request_namespace)?;
        let hooks: Vec<(&CompiledPolicy, Vec<&ValidatingAdmissionPolicyBinding>)> = self
            .policies
            .iter()
            .map(|p| {
                let bindings = self
                    .bindings
                    .iter()
                    .filter(|b| b.spec.policy_name == p.policy.metadata.name)
                    .collect();
                (p, bindings)
            })
            .collect();
        let answer = dispatch(&hooks, &attr, &view, &view);
        Some((attr, answer))
    }

    /// What the mutating policies make of `object` (as it would be stored) written with
    /// `operation` over `old`: `None` when no mutating policy applies (or no served resource
    /// is known for its kind), else the mutated object or the status the request fails with.
    /// Policies run in name order, each policy's bindings in name order
    /// (`generic/policy_source.go` sorts them), each binding once per param it selects
    /// (`generic/policy_dispatcher.go` `Dispatch`).
    pub fn mutate(
        &self,
        validator: &Validator,
        object: &Value,
        old: Option<&Value>,
        operation: Operation,
        request_namespace: Option<&str>,
    ) -> Option<Result<mutating::Mutated, StatusError>> {
        if self.mutating.is_empty() {
            return None;
        }
        let (attr, view) =
            self.request(validator, Some(object), old, operation, request_namespace)?;
        if is_exempt(&attr) {
            return None;
        }
        let mut policies: Vec<&mutating::CompiledPolicy> = self.mutating.iter().collect();
        policies.sort_by(|a, b| a.policy.metadata.name.cmp(&b.policy.metadata.name));
        let mut params: Vec<(&mutating::CompiledPolicy, &str, Option<Value>)> = Vec::new();
        let mut request = None;
        let mut failed = Vec::new();
        for policy in policies {
            let spec = &policy.policy.spec;
            let mut config_error = |binding: &str, message: String| {
                if spec.failure_policy == FailurePolicy::Fail {
                    failed.push(format!(
                        "policy '{}' with binding '{binding}' denied request: {message}",
                        policy.policy.metadata.name
                    ));
                }
            };
            let mut bindings: Vec<&MutatingAdmissionPolicyBinding> = self
                .mutating_bindings
                .iter()
                .filter(|b| b.spec.policy_name == policy.policy.metadata.name)
                .collect();
            if bindings.is_empty() {
                continue;
            }
            bindings.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
            let matched = match definition_matches(&attr, spec.match_constraints.as_ref(), &view) {
                Err(e) => {
                    config_error("", format!("failed to configure policy: {e}"));
                    continue;
                }
                Ok(None) => continue,
                Ok(Some(m)) => m,
            };
            if let Some(e) = param_kind_error(spec.param_kind.as_ref(), &view) {
                config_error("", format!("failed to configure policy: {e}"));
                continue;
            }
            request.get_or_insert_with(|| request_json(&attr, &matched.resource, &matched.kind));
            for binding in bindings {
                let name = binding.metadata.name.as_str();
                match binding_matches(&attr, binding.spec.match_resources.as_ref(), &view) {
                    Err(e) => config_error(name, format!("failed to configure binding: {e}")),
                    Ok(false) => {}
                    Ok(true) => match collect_params(
                        spec.param_kind.as_ref(),
                        binding.spec.param_ref.as_ref(),
                        &attr.namespace,
                        &view,
                    ) {
                        Err(e) => config_error(name, format!("failed to configure binding: {e}")),
                        Ok(found) => params.extend(found.into_iter().map(|p| (policy, name, p))),
                    },
                }
            }
        }
        if let Some(first) = failed.first() {
            return Some(Err(StatusError {
                code: 403,
                reason: "Invalid".into(),
                message: first.clone(),
                causes: failed,
            }));
        }
        let request = request?;
        let invocations: Vec<Invocation<'_>> = params
            .iter()
            .map(|(policy, binding, p)| Invocation {
                policy,
                binding,
                params: p.as_ref(),
            })
            .collect();
        let schema = self.served_schema(validator, &attr);
        let namespace_object = (!attr.namespace.is_empty())
            .then(|| view.namespace(&attr.namespace))
            .flatten()
            .map(|ns| namespace_json(&ns));
        let target = schema.as_ref().map_or(
            mutating::Target {
                schema: None,
                go_type: None,
            },
            KindSchema::target,
        );
        let mutation = mutating::Request {
            object: Some(object.clone()),
            old_object: old.cloned(),
            request,
            namespace_object,
            target,
            defaulter: validator
                .find_kind(&api_version_of(&attr), &attr.kind.kind)
                .is_none()
                .then_some(&self.defaulter as &dyn mutating::Defaulter),
            authorizer: self
                .authorizer
                .as_ref()
                .map(|a| AuthorizerValues::new(a, &attr)),
        };
        Some(mutating::mutate(&invocations, &mutation))
    }

    /// `object` with the Go defaults of its built-in kind applied, as the server decodes a
    /// request before admission ([`super::defaults`]); `None` when a CRD serves the
    /// kind or the kind has no defaults here.
    pub fn defaulted(&self, validator: &Validator, object: &Value) -> Option<Value> {
        let s = |p: &str| object.pointer(p).and_then(Value::as_str).unwrap_or("");
        if validator.find_kind(s("/apiVersion"), s("/kind")).is_some() {
            return None;
        }
        let mut defaulted = object.clone();
        defaults::apply(&mut defaulted, self.version).then_some(defaulted)
    }

    /// The schema of the kind `attr` writes.
    fn served_schema<'v>(
        &self,
        validator: &'v Validator,
        attr: &Attributes,
    ) -> Option<KindSchema<'v>> {
        validator.kind_schema(&api_version_of(attr), &attr.kind.kind)
    }

    /// The attributes of a request writing `object` over `old`, and the cluster it sees.
    fn request<'s>(
        &'s self,
        validator: &'s Validator,
        object: Option<&Value>,
        old: Option<&Value>,
        operation: Operation,
        request_namespace: Option<&str>,
    ) -> Option<(Attributes, View<'s>)> {
        let subject = object.or(old)?;
        let s = |p: &str| subject.pointer(p).and_then(Value::as_str).unwrap_or("");
        let (api_version, kind) = (s("/apiVersion"), s("/kind"));
        let served = self.served_resource(validator, api_version, kind)?;
        let gvk = GroupVersionKind::of(api_version, kind);
        let namespace = if served.namespaced {
            match (s("/metadata/namespace"), request_namespace) {
                ("", Some(ns)) => ns.to_string(),
                ("", None) => DEFAULT_NAMESPACE.to_string(),
                (ns, _) => ns.to_string(),
            }
        } else {
            String::new()
        };
        let attr = Attributes {
            resource: GroupVersionResource {
                group: gvk.group.clone(),
                version: gvk.version.clone(),
                resource: served.resource.clone(),
            },
            kind: gvk,
            subresource: String::new(),
            name: s("/metadata/name").to_string(),
            namespace,
            operation,
            object: object.cloned(),
            old_object: old.cloned(),
            user: self.options.user.clone(),
            dry_run: self.options.dry_run,
        };
        let equivalents = served
            .versions
            .iter()
            .map(|v| {
                (
                    GroupVersionResource {
                        group: attr.resource.group.clone(),
                        version: v.clone(),
                        resource: served.resource.clone(),
                    },
                    GroupVersionKind {
                        group: attr.kind.group.clone(),
                        version: v.clone(),
                        kind: kind.to_string(),
                    },
                )
            })
            .collect();
        let view = View {
            set: self,
            validator,
            equivalents,
        };
        Some((attr, view))
    }
}

impl PolicySet {
    /// [`Validator::served_resource`], cached (a built-in kind's versions are found by
    /// converting the kind in every version of its group).
    fn served_resource(
        &self,
        validator: &Validator,
        api_version: &str,
        kind: &str,
    ) -> Option<ServedResource> {
        let key = (api_version.to_string(), kind.to_string());
        let cached = self
            .served
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .cloned();
        if let Some(s) = cached {
            return s;
        }
        let s = validator.served_resource(api_version, kind);
        self.served
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, s.clone());
        s
    }
}

/// The `apiVersion` of the kind `attr` writes.
fn api_version_of(attr: &Attributes) -> String {
    match attr.kind.group.as_str() {
        "" => attr.kind.version.clone(),
        g => format!("{g}/{}", attr.kind.version),
    }
}

/// The cluster as one request sees it.
struct View<'a> {
    set: &'a PolicySet,
    validator: &'a Validator,
    equivalents: Vec<(GroupVersionResource, GroupVersionKind)>,
}

impl Cluster for View<'_> {
    fn equivalents(
        &self,
        resource: &GroupVersionResource,
        _subresource: &str,
    ) -> Vec<(GroupVersionResource, GroupVersionKind)> {
        if self
            .equivalents
            .iter()
            .any(|(r, _)| r.group == resource.group && r.resource == resource.resource)
        {
            self.equivalents.clone()
        } else {
            Vec::new()
        }
    }

    fn authorizer(&self) -> Option<Arc<dyn Authorizer>> {
        self.set.authorizer.clone()
    }

    fn namespace(&self, name: &str) -> Option<Value> {
        if let Some(ns) = self.set.namespaces.get(name) {
            return Some(ns.clone());
        }
        if let Some(labels) = self.set.options.namespace_labels.get(name) {
            let mut ns = namespace_named(name);
            if let Some(l) = ns
                .pointer_mut("/metadata/labels")
                .and_then(Value::as_object_mut)
            {
                for (k, v) in labels {
                    l.insert(k.clone(), Value::String(v.clone()));
                }
            }
            return Some(ns);
        }
        SYSTEM_NAMESPACES
            .contains(&name)
            .then(|| namespace_named(name))
    }
}

impl Params for View<'_> {
    fn param_scope(&self, api_version: &str, kind: &str) -> Option<bool> {
        self.set
            .served_resource(self.validator, api_version, kind)
            .map(|r| r.namespaced)
    }

    fn param_objects(&self, api_version: &str, kind: &str, namespace: Option<&str>) -> Vec<Value> {
        self.set
            .objects
            .iter()
            .filter(|o| {
                let s = |p: &str| o.pointer(p).and_then(Value::as_str).unwrap_or("");
                let in_namespace = match namespace {
                    None => true,
                    Some(ns) => match s("/metadata/namespace") {
                        "" => ns == DEFAULT_NAMESPACE,
                        own => own == ns,
                    },
                };
                s("/apiVersion") == api_version && s("/kind") == kind && in_namespace
            })
            .cloned()
            .collect()
    }
}

/// The API validation errors of `doc` when it is a validating or mutating policy or binding
/// being created, after the server's defaults; nothing for any other document.
pub fn review_document(doc: &Document, version: KubeVersion) -> Vec<FieldError> {
    let mut value = doc.value.clone();
    let envs = Environments::new(version);
    if is_kind(&value, mutating::model::POLICY_KIND) {
        mutating::api_validation::default_policy(&mut value);
        return mutating::api_validation::validate_policy(&value, &envs);
    }
    if is_kind(&value, mutating::model::BINDING_KIND) {
        default_binding(&mut value);
        return mutating::api_validation::validate_binding(&value, version);
    }
    match admission_kind(&value) {
        Some(POLICY_KIND) => {
            default_policy(&mut value);
            validate_policy(&value, &envs)
        }
        Some(BINDING_KIND) => {
            default_binding(&mut value);
            validate_binding(&value, version)
        }
        _ => Vec::new(),
    }
}
