//! What the server checks when a ValidatingAdmissionPolicy or its binding is created or updated
//! (`pkg/apis/admissionregistration/validation/validation.go`: `ValidateValidatingAdmissionPolicy`,
//! `ValidateValidatingAdmissionPolicyUpdate`, `ValidateValidatingAdmissionPolicyBinding`,
//! `ValidateValidatingAdmissionPolicyBindingUpdate`, `validateValidatingAdmissionPolicyStatus`),
//! and the parts MutatingAdmissionPolicy shares ([`super::mutating::api_validation`]): object
//! metadata, `paramKind`, `matchResources`, `paramRef`, matchConditions and variables.
//!
//! The server validates the object after decoding and defaulting, with every enum still a
//! string; so does this module, over the document's JSON (apply [`default_policy`] /
//! [`default_binding`] first, as the server's `SetDefaults_*` do). Every expression is compiled
//! in the new-expressions view, except, on update, an expression the old object already had
//! (the stored-expressions view). A policy without variables is compiled without `variables`
//! (`createCompiler(needsComposition: false)`); matchConditions always are (the stateless
//! compiler).
//!
//! Not checked: `status.conditions` (`ValidateConditions`) and the JSONPath syntax of a type
//! checking warning's `fieldRef` (client-go's `jsonpath` parser).

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::environment::{CompileError, Compiler, Optional, ReturnTypes};
use crate::escaping::is_reserved;
use crate::field::{BadValue, FieldError, Path};
use crate::name_validation::{
    is_dns1035_label, is_dns1123_subdomain, is_qualified_name, is_valid_label_value,
};
use crate::pipeline::objectmeta::{
    NameRule, NamespaceRule, path_segment_name, validate_labels, validate_object_meta,
    validate_object_meta_update,
};
use crate::rules::env::ExtraLibrary;
use crate::rules::{EnvKind, EnvSpec};
use crate::values::{Json, JsonObject};
use crate::version::KubeVersion;

/// `maxAuditAnnotations`.
pub const MAX_AUDIT_ANNOTATIONS: usize = 20;
/// `maxAuditAnnotationValueExpressionLength`.
pub const MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH: usize = 5 * 1024;
/// The most matchConditions of a policy (`validateMatchConditions`).
pub const MAX_MATCH_CONDITIONS: usize = 64;

/// `supportedFailurePolicies`, as `sets.List` sorts it.
pub(crate) const FAILURE_POLICIES: [&str; 2] = ["Fail", "Ignore"];
/// `supportedMatchPolicies`.
const MATCH_POLICIES: [&str; 2] = ["Equivalent", "Exact"];
/// `supportedOperations`.
const OPERATIONS: [&str; 5] = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
/// `validScopes`.
const SCOPES: [&str; 3] = ["*", "Cluster", "Namespaced"];
/// `supportedValidationPolicyReason`.
const REASONS: [&str; 3] = ["Forbidden", "Invalid", "RequestEntityTooLarge"];
/// `validValidationActions`.
const VALIDATION_ACTIONS: [&str; 3] = ["Audit", "Deny", "Warn"];
/// `validateParamRef`'s supported `parameterNotFoundAction`s, in its order.
const PARAMETER_NOT_FOUND_ACTIONS: [&str; 2] = ["Deny", "Allow"];

/// The first release whose validation says `must be a valid CEL identifier`, `must be
/// non-empty if specified` and `must not contain line breaks` (no `name is`/`message` prefix)
/// and names a binding's `matchResources` without the `matchResouces` typo: the Kubernetes
/// development copy after 1.35 has them (its `validation.go` calls `content.IsPathSegmentName`,
/// which apimachinery v0.35.0 lacks); the stored 1.34 copy has the older texts.
pub(crate) const RENAMED_TEXTS_MINOR: u32 = 36;

/// The CEL environments a policy's expressions are checked in: Kubernetes `version`'s, with
/// `extra` libraries on top (each expression's view chosen as the server chooses it).
#[derive(Clone)]
pub struct Environments {
    /// The Kubernetes release.
    pub version: KubeVersion,
    /// Libraries beyond Kubernetes' own (Kubernetes' tests add `test()` at 1.999).
    pub extra: Vec<ExtraLibrary>,
}

impl Environments {
    /// Kubernetes `version`'s environments, its own libraries only.
    pub fn new(version: KubeVersion) -> Environments {
        Environments {
            version,
            extra: Vec::new(),
        }
    }

    /// The environment of `kind`'s view.
    pub(crate) fn spec(&self, kind: EnvKind) -> EnvSpec {
        EnvSpec {
            version: self.version,
            kind,
            extra: self.extra.clone(),
        }
    }

    fn renamed_texts(&self) -> bool {
        self.version.minor() >= RENAMED_TEXTS_MINOR
    }
}

/// `preexistingExpressions`: the expressions of the object being updated, which compile in
/// the stored-expressions view.
#[derive(Default)]
pub(crate) struct Preexisting {
    pub(crate) match_conditions: HashSet<String>,
    pub(crate) validations: HashSet<String>,
    pub(crate) messages: HashSet<String>,
    pub(crate) audit_values: HashSet<String>,
    pub(crate) apply_configurations: HashSet<String>,
}

/// `validationOptions`, as far as policies use them.
#[derive(Default)]
pub(crate) struct Options {
    pub(crate) ignore_match_conditions: bool,
    pub(crate) params_in_match_conditions: bool,
    pub(crate) preexisting: Preexisting,
}

/// A present, non-null field of an object.
pub(crate) fn field<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.get(key).filter(|x| !x.is_null())
}

/// A string field, empty when absent (or not a string: the decoder rejects those).
pub(crate) fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// A list field, empty when absent.
pub(crate) fn items<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn strings<'a>(v: &'a Value, key: &str) -> Vec<&'a str> {
    items(v, key)
        .iter()
        .map(|s| s.as_str().unwrap_or(""))
        .collect()
}

fn string(s: &str) -> BadValue {
    BadValue::String(s.to_string())
}

fn list(values: &[&str]) -> BadValue {
    BadValue::Json(Value::Array(
        values
            .iter()
            .map(|s| Value::String(s.to_string()))
            .collect(),
    ))
}

/// `field.NotSupported` with a fixed list of values.
pub(crate) fn not_supported(path: Path, value: &str, supported: &[&str]) -> FieldError {
    let supported: Vec<String> = supported.iter().map(|s| s.to_string()).collect();
    FieldError::not_supported(path, string(value), &supported)
}

/// The object's `metadata` as the metadata walks read it (an empty object when absent, not an
/// object, or nested too deep to convert).
fn metadata(object: &Value) -> Arc<JsonObject> {
    match object.get("metadata").map(Json::from_serde) {
        Some(Ok(Json::Object(meta))) => meta,
        _ => Arc::default(),
    }
}

/// `ValidateObjectMeta(meta, false, NameIsDNSSubdomain, "metadata")` (these kinds are
/// cluster-scoped).
fn object_meta(object: &Value) -> Vec<FieldError> {
    validate_object_meta(
        &metadata(object),
        NamespaceRule::Forbidden,
        NameRule::DnsSubdomain,
        true,
        &Path::new("metadata"),
    )
}

/// `ValidateObjectMetaUpdate(new, old, "metadata")`.
fn object_meta_update(object: &Value, old: &Value) -> Vec<FieldError> {
    validate_object_meta_update(&metadata(object), &metadata(old), &Path::new("metadata"))
}

/// What the server validates of an object: its metadata (`ValidateObjectMeta` on creation,
/// `ValidateObjectMetaUpdate` when `old` is given), then its spec's `errors`.
pub(crate) fn with_metadata(
    object: &Value,
    old: Option<&Value>,
    errors: Vec<FieldError>,
) -> Vec<FieldError> {
    let mut errs = match old {
        None => object_meta(object),
        Some(old) => object_meta_update(object, old),
    };
    errs.extend(errors);
    errs
}

/// The failurePolicy check of a policy spec: required (defaulted to `Fail` before validation)
/// and one of `Fail`, `Ignore`.
pub(crate) fn failure_policy(spec: &Value, path: &Path) -> Option<FieldError> {
    match field(spec, "failurePolicy") {
        None => Some(FieldError::required(path.child("failurePolicy"), "")),
        Some(v) => {
            let p = v.as_str().unwrap_or("");
            (!FAILURE_POLICIES.contains(&p))
                .then(|| not_supported(path.child("failurePolicy"), p, &FAILURE_POLICIES))
        }
    }
}

/// `isCELIdentifier`.
fn is_cel_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && !is_reserved(name)
}

/// `ValidateQualifiedName`.
fn qualified_name(name: &str, path: &Path) -> Vec<FieldError> {
    is_qualified_name(name)
        .into_iter()
        .map(|m| FieldError::invalid(path.clone(), string(name), m))
        .collect()
}

/// `parseGroupVersion`: `(group, version)`.
fn parse_group_version(gv: &str) -> Result<(&str, &str), String> {
    if gv.is_empty() || gv == "/" {
        return Ok(("", ""));
    }
    match gv.matches('/').count() {
        0 => Ok(("", gv)),
        1 => Ok(gv.split_once('/').unwrap_or(("", gv))),
        _ => Err(format!("unexpected GroupVersion string: {gv}")),
    }
}

/// `validateParamKind`.
pub(crate) fn param_kind(kind: &Value, path: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let api_version = text(kind, "apiVersion");
    let at = path.child("apiVersion");
    if api_version.is_empty() {
        errs.push(FieldError::required(at, ""));
    } else {
        match parse_group_version(api_version) {
            Err(e) => errs.push(FieldError::invalid(at, string(api_version), e)),
            Ok((group, version)) => {
                if !group.is_empty() {
                    let msgs = is_dns1123_subdomain(group);
                    if !msgs.is_empty() {
                        errs.push(FieldError::invalid(
                            at.clone(),
                            string(group),
                            msgs.join(","),
                        ));
                    }
                }
                if version.is_empty() {
                    errs.push(FieldError::invalid(
                        at,
                        string(api_version),
                        "version must be specified",
                    ));
                } else {
                    let msgs = is_dns1035_label(version);
                    if !msgs.is_empty() {
                        errs.push(FieldError::invalid(at, string(version), msgs.join(",")));
                    }
                }
            }
        }
    }
    let kind_name = text(kind, "kind");
    if kind_name.is_empty() {
        errs.push(FieldError::required(path.child("kind"), ""));
    } else {
        let msgs = is_dns1035_label(&kind_name.to_lowercase());
        if !msgs.is_empty() {
            errs.push(FieldError::invalid(
                path.child("kind"),
                string(kind_name),
                format!(
                    "may have mixed case, but should otherwise match: {}",
                    msgs.join(",")
                ),
            ));
        }
    }
    errs
}

/// `metav1validation.ValidateLabelSelector` with default options (invalid label values in
/// `matchExpressions` rejected, unknown operators rejected).
pub(crate) fn label_selector(selector: &Value, path: &Path) -> Vec<FieldError> {
    let labels: Vec<(String, String)> = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default();
    let mut errs = validate_labels(
        labels.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        &path.child("matchLabels"),
    );
    for (i, req) in items(selector, "matchExpressions").iter().enumerate() {
        let at = path.child("matchExpressions").index(i);
        let values = strings(req, "values");
        let operator = text(req, "operator");
        match operator {
            "In" | "NotIn" if values.is_empty() => errs.push(FieldError::required(
                at.child("values"),
                "must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if !values.is_empty() => errs.push(FieldError::forbidden(
                at.child("values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            _ => errs.push(FieldError::invalid(
                at.child("operator"),
                string(operator),
                "not a valid selector operator",
            )),
        }
        errs.extend(qualified_name(text(req, "key"), &at.child("key")));
        for (j, value) in values.iter().enumerate() {
            for msg in is_valid_label_value(value) {
                errs.push(FieldError::invalid(
                    at.child("values").index(j),
                    string(value),
                    msg,
                ));
            }
        }
    }
    errs
}

/// `validateResources` (subresources allowed).
fn resources(resources: &[&str], path: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if resources.is_empty() {
        errs.push(FieldError::required(path.clone(), ""));
    }
    let mut with_wildcard_subresource: HashSet<&str> = HashSet::new();
    let mut subresource_with_wildcard_resource: HashSet<&str> = HashSet::new();
    let mut double_wildcard = false;
    let mut single_wildcard = false;
    let mut without_subresource = false;
    for (i, res_sub) in resources.iter().enumerate() {
        if res_sub.is_empty() {
            errs.push(FieldError::required(path.index(i), ""));
            continue;
        }
        double_wildcard |= *res_sub == "*/*";
        single_wildcard |= *res_sub == "*";
        let Some((res, sub)) = res_sub.split_once('/') else {
            without_subresource = *res_sub != "*";
            continue;
        };
        if with_wildcard_subresource.contains(res) {
            errs.push(FieldError::invalid(
                path.index(i),
                string(res_sub),
                format!("if '{res}/*' is present, must not specify {res_sub}"),
            ));
        }
        if subresource_with_wildcard_resource.contains(sub) {
            errs.push(FieldError::invalid(
                path.index(i),
                string(res_sub),
                format!("if '*/{sub}' is present, must not specify {res_sub}"),
            ));
        }
        if sub == "*" {
            with_wildcard_subresource.insert(res);
        }
        if res == "*" {
            subresource_with_wildcard_resource.insert(sub);
        }
    }
    if resources.len() > 1 && double_wildcard {
        errs.push(FieldError::invalid(
            path.clone(),
            list(resources),
            "if '*/*' is present, must not specify other resources",
        ));
    }
    if single_wildcard && without_subresource {
        errs.push(FieldError::invalid(
            path.clone(),
            list(resources),
            "if '*' is present, must not specify other resources without subresources",
        ));
    }
    errs
}

/// A list that must not be empty and in which `*` stands alone (`if '*' is present, must not
/// specify other <what>`), as `validateRuleWithOperations` and `validateRule` check operations,
/// API groups and API versions.
fn wildcard_list(values: &[&str], path: &Path, what: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if values.is_empty() {
        errs.push(FieldError::required(path.clone(), ""));
    }
    if values.len() > 1 && values.contains(&"*") {
        errs.push(FieldError::invalid(
            path.clone(),
            list(values),
            format!("if '*' is present, must not specify other {what}"),
        ));
    }
    errs
}

/// `validateRuleWithOperations` and `validateRule` (subresources allowed).
fn rule_with_operations(rule: &Value, path: &Path) -> Vec<FieldError> {
    let operations = strings(rule, "operations");
    let mut errs = wildcard_list(&operations, &path.child("operations"), "operations");
    for (i, op) in operations.iter().enumerate() {
        if !OPERATIONS.contains(op) {
            errs.push(not_supported(
                path.child("operations").index(i),
                op,
                &OPERATIONS,
            ));
        }
    }
    errs.extend(wildcard_list(
        &strings(rule, "apiGroups"),
        &path.child("apiGroups"),
        "API groups",
    ));
    let versions = strings(rule, "apiVersions");
    errs.extend(wildcard_list(
        &versions,
        &path.child("apiVersions"),
        "API versions",
    ));
    for (i, v) in versions.iter().enumerate() {
        if v.is_empty() {
            errs.push(FieldError::required(path.child("apiVersions").index(i), ""));
        }
    }
    errs.extend(resources(
        &strings(rule, "resources"),
        &path.child("resources"),
    ));
    if let Some(scope) = field(rule, "scope") {
        let scope = scope.as_str().unwrap_or("");
        if !SCOPES.contains(&scope) {
            errs.push(not_supported(path.child("scope"), scope, &SCOPES));
        }
    }
    errs
}

/// `validateNamedRuleWithOperations`.
fn named_rule_with_operations(rule: &Value, path: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for (i, name) in strings(rule, "resourceNames").into_iter().enumerate() {
        let at = path.child("resourceNames").index(i);
        for msg in path_segment_name(name, false) {
            errs.push(FieldError::invalid(at.clone(), string(name), msg));
        }
        if !seen.insert(name) {
            errs.push(FieldError::duplicate(at, string(name)));
        }
    }
    errs.extend(rule_with_operations(rule, path));
    errs
}

/// `validateMatchResources` (nothing when absent).
pub(crate) fn match_resources(resources: Option<&Value>, path: &Path) -> Vec<FieldError> {
    let Some(mc) = resources else {
        return Vec::new();
    };
    let mut errs = Vec::new();
    match field(mc, "matchPolicy") {
        None => errs.push(FieldError::required(path.child("matchPolicy"), "")),
        Some(p) => {
            let p = p.as_str().unwrap_or("");
            if !MATCH_POLICIES.contains(&p) {
                errs.push(not_supported(path.child("matchPolicy"), p, &MATCH_POLICIES));
            }
        }
    }
    for selector in ["namespaceSelector", "objectSelector"] {
        match field(mc, selector) {
            None => errs.push(FieldError::required(path.child(selector), "")),
            Some(s) => errs.extend(label_selector(s, &path.child(selector))),
        }
    }
    for rules in ["resourceRules", "excludeResourceRules"] {
        for (i, rule) in items(mc, rules).iter().enumerate() {
            errs.extend(named_rule_with_operations(
                rule,
                &path.child(rules).index(i),
            ));
        }
    }
    errs
}

/// `validateParamRef` (nothing when absent).
pub(crate) fn param_ref(reference: Option<&Value>, path: &Path) -> Vec<FieldError> {
    let Some(pr) = reference else {
        return Vec::new();
    };
    let mut errs = Vec::new();
    let name = text(pr, "name");
    let selector = field(pr, "selector");
    let exclusive = "name and selector are mutually exclusive";
    if !name.is_empty() {
        for msg in path_segment_name(name, false) {
            errs.push(FieldError::invalid(path.child("name"), string(name), msg));
        }
        if selector.is_some() {
            errs.push(FieldError::forbidden(path.child("name"), exclusive));
        }
    }
    if let Some(s) = selector {
        errs.extend(label_selector(s, &path.child("selector")));
        if !name.is_empty() {
            errs.push(FieldError::forbidden(path.child("selector"), exclusive));
        }
    }
    if name.is_empty() && selector.is_none() {
        errs.push(FieldError::required(
            path.clone(),
            "one of name or selector must be specified",
        ));
    }
    let action = text(pr, "parameterNotFoundAction");
    if action.is_empty() {
        errs.push(FieldError::required(
            path.child("parameterNotFoundAction"),
            "",
        ));
    } else if !PARAMETER_NOT_FOUND_ACTIONS.contains(&action) {
        errs.push(not_supported(
            path.child("parameterNotFoundAction"),
            action,
            &PARAMETER_NOT_FOUND_ACTIONS,
        ));
    }
    errs
}

/// `convertCELErrorToValidationError`: `shown` is the expression the error shows.
pub(crate) fn compile_error(path: Path, shown: &str, e: CompileError) -> FieldError {
    match e {
        CompileError::Instantiation(_) => FieldError::internal(path, e.to_string()),
        _ => FieldError::invalid(path, string(shown), e.to_string()),
    }
}

/// A compiler per view, sharing the policy's variables (the server's composited compiler
/// holds both views).
pub(crate) struct Compilers {
    new: Compiler,
    stored: Compiler,
}

impl Compilers {
    /// `createCompiler(composition)`.
    pub(crate) fn new(envs: &Environments, composition: bool) -> Compilers {
        let make = |kind: EnvKind| {
            let c = Compiler::with_spec(envs.spec(kind));
            if composition {
                c
            } else {
                c.without_variables()
            }
        };
        Compilers {
            new: make(EnvKind::NewExpressions),
            stored: make(EnvKind::StoredExpressions),
        }
    }

    /// The compiler of the view an expression compiles in.
    pub(crate) fn view(&self, stored: bool) -> &Compiler {
        if stored { &self.stored } else { &self.new }
    }

    /// `CompileAndStoreVariable` in the view `stored` selects; the other view gets the same
    /// field type.
    pub(crate) fn variable(
        &mut self,
        name: &str,
        expression: &str,
        optional: Optional,
        stored: bool,
    ) -> Result<(), CompileError> {
        let (this, other) = if stored {
            (&mut self.stored, &mut self.new)
        } else {
            (&mut self.new, &mut self.stored)
        };
        let result = this.compile_variable(name, expression, optional).map(drop);
        if let Some(t) = this.variable_type(name) {
            other.declare_variable(name, t.clone());
        }
        result
    }
}

/// `validateMatchConditions` (and the per-condition `validateMatchCondition`).
pub(crate) fn match_conditions(
    conditions: &[Value],
    envs: &Environments,
    options: &Options,
    path: &Path,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if conditions.len() > MAX_MATCH_CONDITIONS {
        errs.push(FieldError::too_many(
            path.clone(),
            conditions.len() as i64,
            MAX_MATCH_CONDITIONS as i64,
        ));
    }
    let stateless = Compilers::new(envs, false);
    let optional = Optional {
        params: options.params_in_match_conditions,
        authorizer: true,
        patch_types: false,
    };
    let mut names: HashSet<&str> = HashSet::new();
    for (i, m) in conditions.iter().enumerate() {
        let at = path.index(i);
        let trimmed = text(m, "expression").trim();
        if trimmed.is_empty() {
            errs.push(FieldError::required(at.child("expression"), ""));
        } else {
            let stored = options.preexisting.match_conditions.contains(trimmed);
            if let Err(e) = stateless
                .view(stored)
                .compile(trimmed, ReturnTypes::Bool, optional)
            {
                errs.push(compile_error(at.child("expression"), trimmed, e));
            }
        }
        let name = text(m, "name");
        if name.is_empty() {
            errs.push(FieldError::required(at.child("name"), ""));
        } else {
            errs.extend(qualified_name(name, &at.child("name")));
        }
        if !name.is_empty() && !names.insert(name) {
            errs.push(FieldError::duplicate(at.child("name"), string(name)));
        }
    }
    errs
}

/// `validateVariable`.
pub(crate) fn variable(
    compilers: &mut Compilers,
    v: &Value,
    has_params: bool,
    envs: &Environments,
    options: &Options,
    path: &Path,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let name = text(v, "name");
    if name.trim().is_empty() {
        errs.push(FieldError::required(
            path.child("name"),
            "name is not specified",
        ));
    } else if !is_cel_identifier(name) {
        let why = if envs.renamed_texts() {
            "must be a valid CEL identifier"
        } else {
            "name is not a valid CEL identifier"
        };
        errs.push(FieldError::invalid(path.child("name"), string(name), why));
    }
    let expression = text(v, "expression");
    if expression.trim().is_empty() {
        errs.push(FieldError::required(
            path.child("expression"),
            "expression is not specified",
        ));
    } else {
        let optional = Optional {
            params: has_params,
            authorizer: true,
            patch_types: false,
        };
        let stored = options.preexisting.validations.contains(expression);
        if let Err(e) = compilers.variable(name, expression, optional, stored) {
            errs.push(compile_error(path.child("expression"), expression, e));
        }
    }
    errs
}

/// `ValidateValidatingAdmissionPolicy`: a policy being created.
pub fn validate_policy(policy: &Value, envs: &Environments) -> Vec<FieldError> {
    with_metadata(policy, None, policy_spec(policy, envs, Options::default()))
}

/// `ValidateValidatingAdmissionPolicyUpdate`: `policy` replacing `old`.
pub fn validate_policy_update(policy: &Value, old: &Value, envs: &Environments) -> Vec<FieldError> {
    let options = update_options(policy, old, preexisting_validating);
    with_metadata(policy, Some(old), policy_spec(policy, envs, options))
}

/// The options of a policy update: match conditions not checked again when neither
/// `paramKind` nor the match conditions changed (`ignore*AdmissionPolicyMatchConditions`), and
/// the old spec's expressions (`preexisting`) compiled in the stored view.
pub(crate) fn update_options(
    policy: &Value,
    old: &Value,
    preexisting: fn(&Value) -> Preexisting,
) -> Options {
    let spec = |v: &Value| v.get("spec").cloned().unwrap_or(Value::Null);
    let (new_spec, old_spec) = (spec(policy), spec(old));
    let unchanged = |k: &str| semantic_eq(field(&new_spec, k), field(&old_spec, k));
    Options {
        ignore_match_conditions: unchanged("paramKind") && unchanged("matchConditions"),
        params_in_match_conditions: false,
        preexisting: preexisting(&old_spec),
    }
}

/// `equality.Semantic.DeepEqual` of two optional fields: absent, `null` and empty lists and
/// objects are equal.
fn semantic_eq(a: Option<&Value>, b: Option<&Value>) -> bool {
    fn normal(v: Option<&Value>) -> Option<&Value> {
        v.filter(|v| match v {
            Value::Array(a) => !a.is_empty(),
            Value::Object(o) => !o.is_empty(),
            Value::Null => false,
            _ => true,
        })
    }
    normal(a) == normal(b)
}

/// `findValidatingPolicyPreexistingExpressions`.
fn preexisting_validating(spec: &Value) -> Preexisting {
    let mut p = Preexisting::default();
    for m in items(spec, "matchConditions") {
        p.match_conditions.insert(text(m, "expression").to_string());
    }
    for v in items(spec, "validations") {
        p.validations.insert(text(v, "expression").to_string());
        let message = text(v, "messageExpression");
        if !message.is_empty() {
            p.messages.insert(message.to_string());
        }
    }
    for a in items(spec, "auditAnnotations") {
        p.audit_values
            .insert(text(a, "valueExpression").to_string());
    }
    p
}

/// `validateValidatingAdmissionPolicySpec`.
fn policy_spec(policy: &Value, envs: &Environments, mut options: Options) -> Vec<FieldError> {
    let path = Path::new("spec");
    let spec = policy.get("spec").unwrap_or(&Value::Null);
    let mut errs: Vec<FieldError> = failure_policy(spec, &path).into_iter().collect();
    let kind = field(spec, "paramKind");
    if let Some(k) = kind {
        options.params_in_match_conditions = true;
        errs.extend(param_kind(k, &path.child("paramKind")));
    }
    let has_params = kind.is_some();
    match field(spec, "matchConstraints") {
        None => errs.push(FieldError::required(path.child("matchConstraints"), "")),
        Some(mc) => {
            errs.extend(match_resources(Some(mc), &path.child("matchConstraints")));
            if items(mc, "resourceRules").is_empty() {
                errs.push(FieldError::required(
                    path.child("matchConstraints").child("resourceRules"),
                    "",
                ));
            }
        }
    }
    if !options.ignore_match_conditions {
        errs.extend(match_conditions(
            items(spec, "matchConditions"),
            envs,
            &options,
            &path.child("matchConditions"),
        ));
    }
    let variables = items(spec, "variables");
    let mut compilers = Compilers::new(envs, !variables.is_empty());
    for (i, v) in variables.iter().enumerate() {
        errs.extend(variable(
            &mut compilers,
            v,
            has_params,
            envs,
            &options,
            &path.child("variables").index(i),
        ));
    }
    let validations = items(spec, "validations");
    let annotations = items(spec, "auditAnnotations");
    if validations.is_empty() && annotations.is_empty() {
        let why = "validations or auditAnnotations must contain at least one item";
        errs.push(FieldError::required(path.child("validations"), why));
        errs.push(FieldError::required(path.child("auditAnnotations"), why));
        return errs;
    }
    for (i, v) in validations.iter().enumerate() {
        errs.extend(validation(
            &compilers,
            v,
            has_params,
            envs,
            &options,
            &path.child("validations").index(i),
        ));
    }
    if annotations.len() > MAX_AUDIT_ANNOTATIONS {
        errs.push(FieldError::invalid(
            path.child("auditAnnotations"),
            BadValue::Json(Value::Array(annotations.to_vec())),
            format!("must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations"),
        ));
    }
    let name = text(policy.get("metadata").unwrap_or(&Value::Null), "name");
    let mut keys: HashSet<&str> = HashSet::new();
    for (i, a) in annotations.iter().enumerate() {
        let at = path.child("auditAnnotations").index(i);
        errs.extend(audit_annotation(
            &compilers, name, a, has_params, &options, &at,
        ));
        let key = text(a, "key");
        if !keys.insert(key) {
            errs.push(FieldError::duplicate(at.child("key"), string(key)));
        }
    }
    errs
}

/// `validateValidation`.
fn validation(
    compilers: &Compilers,
    v: &Value,
    has_params: bool,
    envs: &Environments,
    options: &Options,
    path: &Path,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let expression = text(v, "expression");
    if expression.trim().is_empty() {
        errs.push(FieldError::required(
            path.child("expression"),
            "expression is not specified",
        ));
    } else {
        let stored = options.preexisting.validations.contains(expression);
        let optional = Optional {
            params: has_params,
            authorizer: true,
            patch_types: false,
        };
        if let Err(e) = compilers
            .view(stored)
            .compile(expression, ReturnTypes::Bool, optional)
        {
            errs.push(compile_error(path.child("expression"), expression, e));
        }
    }
    let message_expression = text(v, "messageExpression");
    if !message_expression.is_empty() && message_expression.trim().is_empty() {
        errs.push(FieldError::invalid(
            path.child("messageExpression"),
            string(message_expression),
            "must be non-empty if specified",
        ));
    } else if !message_expression.trim().is_empty() {
        let stored = options.preexisting.messages.contains(message_expression);
        let optional = Optional {
            params: options.params_in_match_conditions,
            authorizer: false,
            patch_types: false,
        };
        if let Err(e) =
            compilers
                .view(stored)
                .compile(message_expression, ReturnTypes::String, optional)
        {
            errs.push(compile_error(
                path.child("messageExpression"),
                message_expression,
                e,
            ));
        }
    }
    let message = text(v, "message");
    let trimmed = message.trim();
    let renamed = envs.renamed_texts();
    if !message.is_empty() && trimmed.is_empty() {
        let why = if renamed {
            "must be non-empty if specified"
        } else {
            "message must be non-empty if specified"
        };
        errs.push(FieldError::invalid(
            path.child("message"),
            string(message),
            why,
        ));
    } else if trimmed.contains(['\n', '\r']) {
        let why = if renamed {
            "must not contain line breaks"
        } else {
            "message must not contain line breaks"
        };
        errs.push(FieldError::invalid(
            path.child("message"),
            string(message),
            why,
        ));
    }
    if let Some(reason) = field(v, "reason") {
        let reason = reason.as_str().unwrap_or("");
        if !REASONS.contains(&reason) {
            errs.push(not_supported(path.child("reason"), reason, &REASONS));
        }
    }
    errs
}

/// `validateAuditAnnotation`.
fn audit_annotation(
    compilers: &Compilers,
    policy_name: &str,
    a: &Value,
    has_params: bool,
    options: &Options,
    path: &Path,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let key = text(a, "key");
    if policy_name.is_empty() {
        errs.push(FieldError::invalid(
            path.child("key"),
            string(key),
            "requires metadata.name be non-empty",
        ));
    } else {
        errs.extend(qualified_name(
            &format!("{policy_name}/{key}"),
            &path.child("key"),
        ));
    }
    let value_expression = text(a, "valueExpression");
    let trimmed = value_expression.trim();
    if trimmed.is_empty() {
        errs.push(FieldError::required(
            path.child("valueExpression"),
            "valueExpression is not specified",
        ));
    } else if trimmed.len() > MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH {
        errs.push(FieldError::required(
            path.child("valueExpression"),
            format!(
                "must not exceed {MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH} bytes in length"
            ),
        ));
    } else {
        let stored = options.preexisting.audit_values.contains(value_expression);
        let optional = Optional {
            params: has_params,
            authorizer: true,
            patch_types: false,
        };
        if let Err(e) = compilers
            .view(stored)
            .compile(trimmed, ReturnTypes::StringOrNull, optional)
        {
            errs.push(compile_error(
                path.child("valueExpression"),
                value_expression,
                e,
            ));
        }
    }
    errs
}

/// A binding's `matchResources` path: `matchResouces` (sic) before
/// [`RENAMED_TEXTS_MINOR`].
pub(crate) fn match_resources_path(envs_version: KubeVersion) -> Path {
    let name = if envs_version.minor() >= RENAMED_TEXTS_MINOR {
        "matchResources"
    } else {
        "matchResouces"
    };
    Path::new("spec").child(name)
}

/// The policyName check of a binding: required, a DNS subdomain.
pub(crate) fn policy_name(spec: &Value, path: &Path) -> Vec<FieldError> {
    let name = text(spec, "policyName");
    if name.is_empty() {
        return vec![FieldError::required(path.child("policyName"), "")];
    }
    is_dns1123_subdomain(name)
        .into_iter()
        .map(|m| FieldError::invalid(path.child("policyName"), string(name), m))
        .collect()
}

/// `ValidateValidatingAdmissionPolicyBinding`: a binding being created.
pub fn validate_binding(binding: &Value, version: KubeVersion) -> Vec<FieldError> {
    with_metadata(binding, None, binding_spec(binding, version))
}

/// `ValidateValidatingAdmissionPolicyBindingUpdate`: `binding` replacing `old`.
pub fn validate_binding_update(
    binding: &Value,
    old: &Value,
    version: KubeVersion,
) -> Vec<FieldError> {
    with_metadata(binding, Some(old), binding_spec(binding, version))
}

/// What the validating and mutating binding specs check alike: `policyName`, `paramRef` and
/// `matchResources` (at [`match_resources_path`]).
pub(crate) fn binding_spec_common(spec: &Value, version: KubeVersion) -> Vec<FieldError> {
    let path = Path::new("spec");
    let mut errs = policy_name(spec, &path);
    errs.extend(param_ref(field(spec, "paramRef"), &path.child("paramRef")));
    errs.extend(match_resources(
        field(spec, "matchResources"),
        &match_resources_path(version),
    ));
    errs
}

/// `validateValidatingAdmissionPolicyBindingSpec`.
fn binding_spec(binding: &Value, version: KubeVersion) -> Vec<FieldError> {
    let path = Path::new("spec");
    let spec = binding.get("spec").unwrap_or(&Value::Null);
    let mut errs = binding_spec_common(spec, version);
    errs.extend(validation_actions(
        &strings(spec, "validationActions"),
        &path.child("validationActions"),
    ));
    errs
}

/// `validateValidationActions`.
fn validation_actions(actions: &[&str], path: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for (i, a) in actions.iter().enumerate() {
        if !VALIDATION_ACTIONS.contains(a) {
            errs.push(not_supported(path.index(i), a, &VALIDATION_ACTIONS));
        }
        if !seen.insert(a) {
            errs.push(FieldError::duplicate(path.index(i), string(a)));
        }
    }
    if seen.contains("Deny") && seen.contains("Warn") {
        errs.push(FieldError::invalid(
            path.clone(),
            list(actions),
            "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
        ));
    }
    if seen.is_empty() {
        errs.push(FieldError::required(
            path.clone(),
            "at least one validation action is required",
        ));
    }
    errs
}

/// `validateValidatingAdmissionPolicyStatus` without `ValidateConditions`, and
/// `validateFieldRef` without its JSONPath parse (see the module documentation).
pub fn validate_policy_status(status: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(checking) = field(status, "typeChecking") else {
        return errs;
    };
    let path = Path::new("status")
        .child("typeChecking")
        .child("expressionWarnings");
    for (i, w) in items(checking, "expressionWarnings").iter().enumerate() {
        let at = path.index(i);
        if text(w, "warning").is_empty() {
            errs.push(FieldError::required(at.child("warning"), ""));
        }
        if text(w, "fieldRef").trim().is_empty() {
            errs.push(FieldError::required(at.child("fieldRef"), ""));
        }
    }
    errs
}

/// `SetDefaults_MatchResources` and `SetDefaults_Rule` of the named rules
/// (`pkg/apis/admissionregistration/v1/defaults.go`).
pub(crate) fn default_match_resources(mc: &mut Value) {
    let Some(m) = mc.as_object_mut() else {
        return;
    };
    let mut set = |k: &str, v: Value| {
        if m.get(k).is_none_or(Value::is_null) {
            m.insert(k.to_string(), v);
        }
    };
    set("matchPolicy", Value::String("Equivalent".into()));
    set("namespaceSelector", Value::Object(Map::new()));
    set("objectSelector", Value::Object(Map::new()));
    for rules in ["resourceRules", "excludeResourceRules"] {
        for rule in m
            .get_mut(rules)
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(r) = rule.as_object_mut()
                && r.get("scope").is_none_or(Value::is_null)
            {
                r.insert("scope".into(), Value::String("*".into()));
            }
        }
    }
}

/// `SetDefaults_ParamRef`.
pub(crate) fn default_param_ref(reference: &mut Value) {
    if let Some(r) = reference.as_object_mut()
        && r.get("parameterNotFoundAction").is_none_or(Value::is_null)
    {
        r.insert(
            "parameterNotFoundAction".into(),
            Value::String("Deny".into()),
        );
    }
}

/// `SetDefaults_*Spec`'s `failurePolicy: Fail` and the spec's `matchConstraints` defaults.
pub(crate) fn default_policy_spec(policy: &mut Value) {
    let Some(spec) = policy.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    if spec.get("failurePolicy").is_none_or(Value::is_null) {
        spec.insert("failurePolicy".into(), Value::String("Fail".into()));
    }
    if let Some(mc) = spec.get_mut("matchConstraints") {
        default_match_resources(mc);
    }
}

/// The server's defaults of a ValidatingAdmissionPolicy (`SetDefaults_ValidatingAdmissionPolicySpec`,
/// `SetDefaults_MatchResources`, `SetDefaults_Rule`).
pub fn default_policy(policy: &mut Value) {
    default_policy_spec(policy);
}

/// The server's defaults of a policy binding (`SetDefaults_MatchResources`, `SetDefaults_Rule`,
/// `SetDefaults_ParamRef`); MutatingAdmissionPolicyBindings get the same.
pub fn default_binding(binding: &mut Value) {
    let Some(spec) = binding.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(mc) = spec.get_mut("matchResources") {
        default_match_resources(mc);
    }
    if let Some(pr) = spec.get_mut("paramRef") {
        default_param_ref(pr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn envs() -> Environments {
        Environments::new(KubeVersion::NEWEST)
    }

    fn texts(errs: &[FieldError]) -> Vec<String> {
        errs.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn expressions_are_compiled_with_the_servers_texts() {
        let mut p = json!({"metadata": {"name": "p"}, "spec": {
            "matchConstraints": {"resourceRules": [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}]},
            "validations": [{"expression": "object.x"}, {"expression": "variables.a"}],
        }});
        default_policy(&mut p);
        let errs = texts(&validate_policy(&p, &envs()));
        assert_eq!(
            errs[0],
            "spec.validations[0].expression: Invalid value: \"object.x\": must evaluate to bool but got dyn"
        );
        assert!(
            errs[1].starts_with("spec.validations[1].expression: Invalid value: \"variables.a\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables'"),
            "{}",
            errs[1]
        );
        assert_eq!(errs.len(), 2);
    }

    #[test]
    fn undefaulted_policies_miss_what_defaults_set() {
        let p = json!({"metadata": {"name": "p"}, "spec": {
            "matchConstraints": {"resourceRules": [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}]},
            "validations": [{"expression": "true"}],
        }});
        assert_eq!(
            texts(&validate_policy(&p, &envs())),
            [
                "spec.failurePolicy: Required value",
                "spec.matchConstraints.matchPolicy: Required value",
                "spec.matchConstraints.namespaceSelector: Required value",
                "spec.matchConstraints.objectSelector: Required value",
            ]
        );
        let mut p = p;
        default_policy(&mut p);
        assert_eq!(validate_policy(&p, &envs()), []);
    }

    #[test]
    fn bindings_need_one_action_and_name_actions_as_json() {
        let b = json!({"metadata": {"name": "b"}, "spec": {"policyName": "p"}});
        assert_eq!(
            texts(&validate_binding(&b, KubeVersion::NEWEST)),
            ["spec.validationActions: Required value: at least one validation action is required"]
        );
        let b = json!({"metadata": {"name": "b"}, "spec": {"policyName": "p", "validationActions": ["Deny", "Warn"]}});
        assert!(
            texts(&validate_binding(&b, KubeVersion::NEWEST))[0].starts_with(
                "spec.validationActions: Invalid value: [\"Deny\",\"Warn\"]: must not contain both"
            )
        );
    }

    #[test]
    fn selectors_are_validated_strictly() {
        let s = json!({"matchExpressions": [{"key": "a", "operator": "In"}, {"key": "b", "operator": "Near", "values": ["x y"]}]});
        assert_eq!(
            texts(&label_selector(&s, &Path::new("s"))),
            [
                "s.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
                "s.matchExpressions[1].operator: Invalid value: \"Near\": not a valid selector operator",
                "s.matchExpressions[1].values[0]: Invalid value: \"x y\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            ]
        );
    }
}
