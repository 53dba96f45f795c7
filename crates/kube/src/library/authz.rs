//! Kubernetes' authorization library (`k8s.io/apiserver/pkg/cel/library/authz.go`) and its
//! selector additions (`AuthzSelectors`): declarations, implementations and the values they
//! pass along (`authorizerVal`, `pathCheckVal`, `groupCheckVal`, `resourceCheckVal`,
//! `decisionVal`).
//!
//! CRD validation rules have no `authorizer` variable, so there these functions can be named
//! (and type-checked) but never reached. Admission policies bind `authorizer` and
//! `authorizer.requestResource` ([`authorizer_value`], [`request_resource_value`]) to an
//! [`Authorizer`]: the server's is the cluster's chain of authorizers; offline it is whatever
//! the host supplies (`admission::authorizer` reads rules from a file).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use cel::value::Opaque;
use cel::{EnvBuilder, EvalError, EvalResult, FnImpl, Function, Library, Overload, Type, Value};

use super::common::{opaque_arg, string_arg};
use crate::admission::request::UserInfo;
use crate::name_validation::{is_dns1123_label, is_dns1123_subdomain};

/// `kubernetes.authorization.Authorizer`.
const AUTHORIZER: &str = "kubernetes.authorization.Authorizer";
/// `kubernetes.authorization.PathCheck`.
const PATH_CHECK: &str = "kubernetes.authorization.PathCheck";
/// `kubernetes.authorization.GroupCheck`.
const GROUP_CHECK: &str = "kubernetes.authorization.GroupCheck";
/// `kubernetes.authorization.ResourceCheck`.
const RESOURCE_CHECK: &str = "kubernetes.authorization.ResourceCheck";
/// `kubernetes.authorization.Decision`.
const DECISION: &str = "kubernetes.authorization.Decision";

/// `kubernetes.authorization.Authorizer`.
pub fn authorizer_type() -> Type {
    Type::opaque(AUTHORIZER, vec![])
}
/// `kubernetes.authorization.PathCheck`.
pub fn path_check_type() -> Type {
    Type::opaque(PATH_CHECK, vec![])
}
/// `kubernetes.authorization.GroupCheck`.
pub fn group_check_type() -> Type {
    Type::opaque(GROUP_CHECK, vec![])
}
/// `kubernetes.authorization.ResourceCheck`.
pub fn resource_check_type() -> Type {
    Type::opaque(RESOURCE_CHECK, vec![])
}
/// `kubernetes.authorization.Decision`.
pub fn decision_type() -> Type {
    Type::opaque(DECISION, vec![])
}

/// `authorizer.Decision`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Decision {
    /// `DecisionDeny`: the authorizer denies the action.
    Deny,
    /// `DecisionAllow`: the authorizer allows the action.
    Allow,
    /// `DecisionNoOpinion`: the authorizer has no opinion (which a request treats as denied).
    #[default]
    NoOpinion,
}

/// What `Authorizer.Authorize` returns: the decision, its reason and an error.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// The decision.
    pub decision: Decision,
    /// Why (`reason()`; may be empty).
    pub reason: String,
    /// The authorizer's error (`errored()`, `error()`), if any.
    pub error: Option<String>,
}

/// What is being authorized: a non-resource path or a resource
/// (`authorizer.AttributesRecord` as `authz.go` fills it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target<'a> {
    /// `PathCheck.check`: `Path`, with `ResourceRequest` false.
    Path(&'a str),
    /// `ResourceCheck.check`: `ResourceRequest` true, `APIVersion` `*`.
    Resource {
        /// `APIGroup`.
        group: &'a str,
        /// `Resource`.
        resource: &'a str,
        /// `Subresource`.
        subresource: &'a str,
        /// `Namespace`.
        namespace: &'a str,
        /// `Name`.
        name: &'a str,
        /// The field selector as written (`fieldSelector`), or empty.
        field_selector: &'a str,
        /// The label selector as written (`labelSelector`), or empty.
        label_selector: &'a str,
    },
}

/// `authorizer.Attributes` of one check.
#[derive(Clone, Copy, Debug)]
pub struct Attributes<'a> {
    /// `User`.
    pub user: &'a UserInfo,
    /// `Verb`.
    pub verb: &'a str,
    /// The path or resource.
    pub target: Target<'a>,
}

/// `authorizer.Authorizer`: decides checks. The server passes field and label selectors parsed
/// (`AuthorizeWithSelectors`); here they come as written, for authorizers that read them.
pub trait Authorizer: fmt::Debug + Send + Sync {
    /// `Authorize`.
    fn authorize(&self, attributes: &Attributes<'_>) -> Verdict;
}

/// The value of `authorizer` (`NewAuthorizerVal`): checks run as `user`.
pub fn authorizer_value(user: &UserInfo, authorizer: Arc<dyn Authorizer>) -> Value {
    Value::Opaque(Arc::new(AuthorizerValue {
        user: Arc::new(user.clone()),
        authorizer,
    }))
}

/// The resource a request writes, for `authorizer.requestResource`.
#[derive(Clone, Copy, Debug)]
pub struct RequestResource<'a> {
    /// The resource's API group.
    pub group: &'a str,
    /// The resource (plural).
    pub resource: &'a str,
    /// The subresource written, or empty.
    pub subresource: &'a str,
    /// The request's namespace, or empty.
    pub namespace: &'a str,
    /// The object's name.
    pub name: &'a str,
}

/// The value of `authorizer.requestResource` (`NewResourceAuthorizerVal`): a resource check
/// of the request's own resource, subresource, namespace and name.
pub fn request_resource_value(
    user: &UserInfo,
    authorizer: Arc<dyn Authorizer>,
    request: &RequestResource<'_>,
) -> Value {
    let check = ResourceCheckValue {
        group: GroupCheckValue {
            authorizer: AuthorizerValue {
                user: Arc::new(user.clone()),
                authorizer,
            },
            group: request.group.to_string(),
        },
        resource: request.resource.to_string(),
        subresource: request.subresource.to_string(),
        namespace: request.namespace.to_string(),
        name: request.name.to_string(),
        field_selector: String::new(),
        label_selector: String::new(),
    };
    Value::Opaque(Arc::new(check))
}

/// `authorizerVal`.
#[derive(Clone, Debug)]
struct AuthorizerValue {
    user: Arc<UserInfo>,
    authorizer: Arc<dyn Authorizer>,
}

/// `pathCheckVal`.
#[derive(Clone, Debug)]
struct PathCheckValue {
    authorizer: AuthorizerValue,
    path: String,
}

/// `groupCheckVal`.
#[derive(Clone, Debug)]
struct GroupCheckValue {
    authorizer: AuthorizerValue,
    group: String,
}

/// `resourceCheckVal`.
#[derive(Clone, Debug)]
struct ResourceCheckValue {
    group: GroupCheckValue,
    resource: String,
    subresource: String,
    namespace: String,
    name: String,
    field_selector: String,
    label_selector: String,
}

/// `decisionVal`.
#[derive(Clone, Debug)]
struct DecisionValue(Verdict);

/// The opaque side shared by the five types (`receiverOnlyObjectVal`). Equality is false:
/// cel-go answers `no such overload` for `==` between these values, which an opaque value's
/// equality cannot express.
macro_rules! receiver_only {
    ($t:ty, $name:expr) => {
        impl Opaque for $t {
            fn type_name(&self) -> &str {
                $name
            }
            fn equals(&self, _other: &dyn Opaque) -> bool {
                false
            }
            fn as_any(&self) -> &dyn Any {
                self
            }
            fn display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str($name)
            }
        }
    };
}
receiver_only!(AuthorizerValue, AUTHORIZER);
receiver_only!(PathCheckValue, PATH_CHECK);
receiver_only!(GroupCheckValue, GROUP_CHECK);
receiver_only!(ResourceCheckValue, RESOURCE_CHECK);
receiver_only!(DecisionValue, DECISION);

fn opaque(v: impl Opaque) -> EvalResult {
    Ok(Value::Opaque(Arc::new(v)))
}

/// `authorizerPath`.
fn authorizer_path(a: &Value, path: &Value) -> EvalResult {
    let a = opaque_arg::<AuthorizerValue>(a)?;
    let path = string_arg(path)?;
    if path.trim().is_empty() {
        return Err(EvalError::msg("path must not be empty"));
    }
    opaque(PathCheckValue {
        authorizer: a.clone(),
        path: path.to_string(),
    })
}

/// `authorizerGroup`.
fn authorizer_group(a: &Value, group: &Value) -> EvalResult {
    let a = opaque_arg::<AuthorizerValue>(a)?;
    opaque(GroupCheckValue {
        authorizer: a.clone(),
        group: string_arg(group)?.to_string(),
    })
}

/// `authorizerServiceAccount`: the same authorizer, checks run as the service account
/// (`serviceaccount.ServiceAccountInfo.UserInfo`: `system:serviceaccount:<ns>:<name>`, groups
/// `system:serviceaccounts` and `system:serviceaccounts:<ns>`).
fn authorizer_service_account(args: &[Value]) -> EvalResult {
    let [a, namespace, name] = args else {
        return Err(EvalError::no_such_overload());
    };
    let a = opaque_arg::<AuthorizerValue>(a)?;
    let namespace = string_arg(namespace)?;
    let name = string_arg(name)?;
    // apimachinery `ValidateServiceAccountName` (a DNS subdomain), `ValidateNamespaceName`
    // (a DNS label), in that order.
    if !is_dns1123_subdomain(name).is_empty() {
        return Err(EvalError::msg("Invalid service account name"));
    }
    if !is_dns1123_label(namespace).is_empty() {
        return Err(EvalError::msg("Invalid service account namespace"));
    }
    let user = UserInfo {
        username: format!("system:serviceaccount:{namespace}:{name}"),
        groups: vec![
            "system:serviceaccounts".to_string(),
            format!("system:serviceaccounts:{namespace}"),
        ],
        ..Default::default()
    };
    opaque(AuthorizerValue {
        user: Arc::new(user),
        authorizer: a.authorizer.clone(),
    })
}

/// `groupCheckResource`.
fn group_check_resource(g: &Value, resource: &Value) -> EvalResult {
    let g = opaque_arg::<GroupCheckValue>(g)?;
    let resource = string_arg(resource)?;
    if resource.trim().is_empty() {
        return Err(EvalError::msg("resource must not be empty"));
    }
    opaque(ResourceCheckValue {
        group: g.clone(),
        resource: resource.to_string(),
        subresource: String::new(),
        namespace: String::new(),
        name: String::new(),
        field_selector: String::new(),
        label_selector: String::new(),
    })
}

/// `resourceCheckSubresource`, `…Namespace`, `…Name`, `…FieldSelector`, `…LabelSelector`:
/// a copy of the check with one attribute set.
fn with_attribute(
    r: &Value,
    value: &Value,
    set: fn(&mut ResourceCheckValue, String),
) -> EvalResult {
    let mut r = opaque_arg::<ResourceCheckValue>(r)?.clone();
    set(&mut r, string_arg(value)?.to_string());
    opaque(r)
}

/// `pathCheckCheck`.
fn path_check_check(p: &Value, verb: &Value) -> EvalResult {
    let p = opaque_arg::<PathCheckValue>(p)?;
    let attributes = Attributes {
        user: &p.authorizer.user,
        verb: string_arg(verb)?,
        target: Target::Path(&p.path),
    };
    opaque(DecisionValue(
        p.authorizer.authorizer.authorize(&attributes),
    ))
}

/// `resourceCheckCheck`.
fn resource_check_check(r: &Value, verb: &Value) -> EvalResult {
    let r = opaque_arg::<ResourceCheckValue>(r)?;
    let attributes = Attributes {
        user: &r.group.authorizer.user,
        verb: string_arg(verb)?,
        target: Target::Resource {
            group: &r.group.group,
            resource: &r.resource,
            subresource: &r.subresource,
            namespace: &r.namespace,
            name: &r.name,
            field_selector: &r.field_selector,
            label_selector: &r.label_selector,
        },
    };
    opaque(DecisionValue(
        r.group.authorizer.authorizer.authorize(&attributes),
    ))
}

fn decision(v: &Value) -> EvalResult<&Verdict> {
    opaque_arg::<DecisionValue>(v).map(|d| &d.0)
}

/// `decisionErrored`.
fn decision_errored(d: &Value) -> EvalResult {
    Ok(Value::Bool(decision(d)?.error.is_some()))
}

/// `decisionError`: the error's text, empty without one.
fn decision_error(d: &Value) -> EvalResult {
    Ok(Value::from(
        decision(d)?.error.clone().unwrap_or_default().as_str(),
    ))
}

/// `decisionAllowed`: only `DecisionAllow` is allowed.
fn decision_allowed(d: &Value) -> EvalResult {
    Ok(Value::Bool(decision(d)?.decision == Decision::Allow))
}

/// `decisionReason`.
fn decision_reason(d: &Value) -> EvalResult {
    Ok(Value::from(decision(d)?.reason.as_str()))
}

fn member(env: &mut EnvBuilder, name: &str, id: &str, params: Vec<Type>, result: Type, f: FnImpl) {
    env.add_function(Function::new(name).overload(Overload::member(id, params, result, Some(f))));
}

/// The authorization library.
#[derive(Clone, Copy, Debug, Default)]
pub struct Authz;

impl Library for Authz {
    fn install(&self, env: &mut EnvBuilder) {
        let s = || Type::String;
        let rc = resource_check_type;
        member(
            env,
            "path",
            "authorizer_path",
            vec![authorizer_type(), s()],
            path_check_type(),
            FnImpl::Binary(authorizer_path),
        );
        member(
            env,
            "group",
            "authorizer_group",
            vec![authorizer_type(), s()],
            group_check_type(),
            FnImpl::Binary(authorizer_group),
        );
        member(
            env,
            "serviceAccount",
            "authorizer_serviceaccount",
            vec![authorizer_type(), s(), s()],
            authorizer_type(),
            FnImpl::Nary(authorizer_service_account),
        );
        member(
            env,
            "resource",
            "groupcheck_resource",
            vec![group_check_type(), s()],
            rc(),
            FnImpl::Binary(group_check_resource),
        );
        member(
            env,
            "subresource",
            "resourcecheck_subresource",
            vec![rc(), s()],
            rc(),
            FnImpl::Binary(|r, v| with_attribute(r, v, |r, v| r.subresource = v)),
        );
        member(
            env,
            "namespace",
            "resourcecheck_namespace",
            vec![rc(), s()],
            rc(),
            FnImpl::Binary(|r, v| with_attribute(r, v, |r, v| r.namespace = v)),
        );
        member(
            env,
            "name",
            "resourcecheck_name",
            vec![rc(), s()],
            rc(),
            FnImpl::Binary(|r, v| with_attribute(r, v, |r, v| r.name = v)),
        );
        env.add_function(
            Function::new("check")
                .overload(Overload::member(
                    "pathcheck_check",
                    vec![path_check_type(), s()],
                    decision_type(),
                    Some(FnImpl::Binary(path_check_check)),
                ))
                .overload(Overload::member(
                    "resourcecheck_check",
                    vec![rc(), s()],
                    decision_type(),
                    Some(FnImpl::Binary(resource_check_check)),
                )),
        );
        for (name, id, result, f) in [
            (
                "errored",
                "decision_errored",
                Type::Bool,
                decision_errored as fn(&Value) -> EvalResult,
            ),
            ("error", "decision_error", Type::String, decision_error),
            ("allowed", "decision_allowed", Type::Bool, decision_allowed),
            ("reason", "decision_reason", Type::String, decision_reason),
        ] {
            member(
                env,
                name,
                id,
                vec![decision_type()],
                result,
                FnImpl::Unary(f),
            );
        }
    }
}

/// The selector additions (`fieldSelector`, `labelSelector`).
#[derive(Clone, Copy, Debug, Default)]
pub struct AuthzSelectors;

impl Library for AuthzSelectors {
    fn install(&self, env: &mut EnvBuilder) {
        let rc = resource_check_type;
        member(
            env,
            "fieldSelector",
            "authorizer_fieldselector",
            vec![rc(), Type::String],
            rc(),
            FnImpl::Binary(|r, v| with_attribute(r, v, |r, v| r.field_selector = v)),
        );
        member(
            env,
            "labelSelector",
            "authorizer_labelselector",
            vec![rc(), Type::String],
            rc(),
            FnImpl::Binary(|r, v| with_attribute(r, v, |r, v| r.label_selector = v)),
        );
    }
}
