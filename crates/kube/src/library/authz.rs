//! Declarations of Kubernetes' authorization library (`library/authz.go`) and its
//! selector additions (`AuthzSelectors`). In CRD validation rules there is no
//! `authorizer` variable, so these functions can be named (and type-checked)
//! but never evaluated; they are declared without implementations.

use cel::{EnvBuilder, Function, Library, Overload, Type};

/// `kubernetes.authorization.Authorizer`.
pub fn authorizer_type() -> Type {
    Type::opaque("kubernetes.authorization.Authorizer", vec![])
}
/// `kubernetes.authorization.PathCheck`.
pub fn path_check_type() -> Type {
    Type::opaque("kubernetes.authorization.PathCheck", vec![])
}
/// `kubernetes.authorization.GroupCheck`.
pub fn group_check_type() -> Type {
    Type::opaque("kubernetes.authorization.GroupCheck", vec![])
}
/// `kubernetes.authorization.ResourceCheck`.
pub fn resource_check_type() -> Type {
    Type::opaque("kubernetes.authorization.ResourceCheck", vec![])
}
/// `kubernetes.authorization.Decision`.
pub fn decision_type() -> Type {
    Type::opaque("kubernetes.authorization.Decision", vec![])
}

fn member(env: &mut EnvBuilder, name: &str, id: &str, params: Vec<Type>, result: Type) {
    env.add_function(Function::new(name).overload(Overload::member(id, params, result, None)));
}

/// The authorization library (declarations only).
#[derive(Clone, Copy, Debug, Default)]
pub struct Authz;

impl Library for Authz {
    fn install(&self, env: &mut EnvBuilder) {
        let s = || Type::String;
        member(
            env,
            "path",
            "authorizer_path",
            vec![authorizer_type(), s()],
            path_check_type(),
        );
        member(
            env,
            "group",
            "authorizer_group",
            vec![authorizer_type(), s()],
            group_check_type(),
        );
        member(
            env,
            "serviceAccount",
            "authorizer_serviceaccount",
            vec![authorizer_type(), s(), s()],
            resource_check_type(),
        );
        member(
            env,
            "resource",
            "groupcheck_resource",
            vec![group_check_type(), s()],
            resource_check_type(),
        );
        member(
            env,
            "subresource",
            "resourcecheck_subresource",
            vec![resource_check_type(), s()],
            resource_check_type(),
        );
        member(
            env,
            "namespace",
            "resourcecheck_namespace",
            vec![resource_check_type(), s()],
            resource_check_type(),
        );
        member(
            env,
            "name",
            "resourcecheck_name",
            vec![resource_check_type(), s()],
            resource_check_type(),
        );
        env.add_function(
            Function::new("check")
                .overload(Overload::member(
                    "pathcheck_check",
                    vec![path_check_type(), s()],
                    decision_type(),
                    None,
                ))
                .overload(Overload::member(
                    "resourcecheck_check",
                    vec![resource_check_type(), s()],
                    decision_type(),
                    None,
                )),
        );
        member(
            env,
            "errored",
            "decision_errored",
            vec![decision_type()],
            Type::Bool,
        );
        member(
            env,
            "error",
            "decision_error",
            vec![decision_type()],
            Type::String,
        );
        member(
            env,
            "allowed",
            "decision_allowed",
            vec![decision_type()],
            Type::Bool,
        );
        member(
            env,
            "reason",
            "decision_reason",
            vec![decision_type()],
            Type::String,
        );
    }
}

/// The selector additions (`fieldSelector`, `labelSelector`; declarations only).
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
        );
        member(
            env,
            "labelSelector",
            "authorizer_labelselector",
            vec![rc(), Type::String],
            rc(),
        );
    }
}
