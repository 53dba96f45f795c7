//! The type checking kube-apiserver writes into a ValidatingAdmissionPolicy's
//! `status.typeChecking` (`TypeChecker.Check`,
//! `k8s.io/apiserver/pkg/admission/plugin/policy/validating/typechecking.go`).
//!
//! For each kind the policy's `matchConstraints.resourceRules` name exactly (no wildcard group or
//! version, no wildcard resource or subresource; at most [`MAX_TYPES_TO_CHECK`] kinds counted per
//! rule), every validation's `expression` and `messageExpression` is compiled with `object` and
//! `oldObject` typed by the kind's schema and `params` by the `paramKind`'s (`dyn` where a schema
//! has no CEL type). Each expression that fails for some kinds yields one [`ExpressionWarning`]:
//! the failing kinds' `<group>/<version>, Kind=<Kind>: <issues>` lines. Kinds whose schema is
//! unknown are not checked; nothing here changes what the policy does.
//!
//! Kubernetes 1.35 and older declare `params` only when its kind's schema has a CEL type, and
//! end in a nil dereference (a panic: no warnings written) when a resolved schema has none;
//! from 1.36 (`declType` returning no type, kubernetes/apiserver 83bcb0ae and 5a75d22a) such
//! kinds are `dyn` and `params` is declared whenever the policy has a `paramKind`.
//!
//! The server names a kind's object type `<Kind><nanosecond of the clock>`
//! (`generateUniqueTypeName`), which shows in messages naming object types; kcel names it
//! `<Kind>`, so such messages differ from the server's by those digits.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::Serialize;

use super::environment::{Compiler, Optional};
use super::model::{NamedRuleWithOperations, ValidatingAdmissionPolicy};
use crate::decl::DeclType;
use crate::rules::{EnvKind, EnvSpec};
use crate::schema_props::JsonSchemaProps;
use crate::structural::Structural;
use crate::validator::Validator;
use crate::version::KubeVersion;

/// `maxTypesToCheck`: a rule stops adding kinds once it has resolved this many.
pub const MAX_TYPES_TO_CHECK: usize = 10;

/// `admissionregistrationv1.ExpressionWarning`: one entry of `status.typeChecking`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExpressionWarning {
    /// `spec.validations[0].expression`, `spec.validations[0].messageExpression`.
    pub field_ref: String,
    /// One line per failing kind, each ending in a newline, joined by newlines.
    pub warning: String,
}

/// A group, version and kind (`schema.GroupVersionKind`), ordered by group, version, kind as
/// `sortGVKList` orders them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Gvk {
    /// The API group (`""` for the core group).
    pub group: String,
    /// The API version within the group.
    pub version: String,
    /// The kind.
    pub kind: String,
}

impl Gvk {
    /// `<group>/<version>`, or `<version>` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    fn is_empty(&self) -> bool {
        self.group.is_empty() && self.version.is_empty() && self.kind.is_empty()
    }
}

impl std::fmt::Display for Gvk {
    /// `GroupVersionKind.String`: `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}, Kind={}", self.group, self.version, self.kind)
    }
}

/// What the type checker asks of the cluster: the RESTMapper and the SchemaResolver.
pub trait KindResolver {
    /// The kinds served as `resource` in `group`/`version` (`RESTMapper.KindsFor`; empty when
    /// none is).
    fn kinds_for(&self, group: &str, version: &str, resource: &str) -> Vec<String>;
    /// The schema of `gvk` (`SchemaResolver.ResolveSchema`; `None` is `ErrSchemaNotFound`).
    fn schema(&self, gvk: &Gvk) -> Option<JsonSchemaProps>;
}

impl KindResolver for Validator {
    fn kinds_for(&self, group: &str, version: &str, resource: &str) -> Vec<String> {
        self.kinds_for_resource(group, version, resource)
    }

    fn schema(&self, gvk: &Gvk) -> Option<JsonSchemaProps> {
        self.kind_schema(&gvk.api_version(), &gvk.kind)?
            .props()
            .cloned()
    }
}

/// `TypeChecker.Check`: the warnings of `policy` for Kubernetes `version`, in the order of its
/// validations (each expression, then its messageExpression).
pub fn check(
    policy: &ValidatingAdmissionPolicy,
    resolver: &dyn KindResolver,
    version: KubeVersion,
) -> Vec<ExpressionWarning> {
    let Some(context) = Context::new(policy, resolver, version) else {
        return Vec::new();
    };
    let mut warnings = Vec::new();
    for (i, v) in policy.spec.validations.iter().enumerate() {
        let expressions = [
            ("expression", &v.expression),
            ("messageExpression", &v.message_expression),
        ];
        for (field, expression) in expressions {
            // The messageExpression is optional.
            if field == "messageExpression" && expression.is_empty() {
                continue;
            }
            let warning = context.check_expression(expression);
            if !warning.is_empty() {
                warnings.push(ExpressionWarning {
                    field_ref: format!("spec.validations[{i}].{field}"),
                    warning,
                });
            }
        }
    }
    warnings
}

/// `TypeCheckingContext`: the kinds checked with their object types, and the params type.
struct Context<'p> {
    policy: &'p ValidatingAdmissionPolicy,
    version: KubeVersion,
    kinds: Vec<(Gvk, Option<Arc<DeclType>>)>,
    has_params: bool,
    params: Option<Arc<DeclType>>,
}

impl<'p> Context<'p> {
    /// `CreateContext`: kinds without a schema are dropped; `params` is typed when its kind's
    /// schema is known. `None` where the server's check panics (before 1.36, a resolved schema
    /// without a CEL type).
    fn new(
        policy: &'p ValidatingAdmissionPolicy,
        resolver: &dyn KindResolver,
        version: KubeVersion,
    ) -> Option<Self> {
        let untyped_is_dyn = version.at_least(36);
        let mut kinds: Vec<(Gvk, Option<Arc<DeclType>>)> = Vec::new();
        for gvk in types_to_check(policy, resolver) {
            let Some(schema) = resolver.schema(&gvk) else {
                continue;
            };
            let t = decl_type(&schema, &gvk.kind);
            if t.is_none() && !untyped_is_dyn {
                return None;
            }
            kinds.push((gvk, t));
        }
        let params_gvk = params_gvk(policy);
        let params = if params_gvk.is_empty() {
            None
        } else {
            // The server's names are unique per type; keep the params type apart from a kind
            // of the same name.
            let name = if kinds.iter().any(|(g, _)| g.kind == params_gvk.kind) {
                format!("{}Params", params_gvk.kind)
            } else {
                params_gvk.kind.clone()
            };
            match resolver.schema(&params_gvk) {
                None => None,
                Some(s) => match decl_type(&s, &name) {
                    None if !untyped_is_dyn => return None,
                    t => t,
                },
            }
        };
        let has_params = if untyped_is_dyn {
            !params_gvk.is_empty()
        } else {
            params.is_some()
        };
        Some(Context {
            policy,
            version,
            kinds,
            has_params,
            params,
        })
    }

    /// `CheckExpression`: the `TypeCheckingResults` text of `expression` over every kind (empty
    /// when it compiles for all).
    fn check_expression(&self, expression: &str) -> String {
        let optional = Optional {
            params: self.has_params,
            authorizer: true,
            patch_types: false,
        };
        let mut messages = Vec::new();
        for (gvk, object) in &self.kinds {
            let spec = EnvSpec::new(self.version, EnvKind::StoredExpressions);
            let mut compiler = Compiler::typed(spec, object.as_ref(), self.params.as_ref());
            for v in &self.policy.spec.variables {
                compiler.type_check_variable(&v.name, &v.expression, optional);
            }
            if let Err(e) = compiler.type_check(expression, optional) {
                // `TypeCheckingResult.String`.
                messages.push(format!("{gvk}: {e}\n"));
            }
        }
        messages.join("\n")
    }
}

/// `declType`: `SchemaDeclType(schema, isResourceRoot = true)` named after the kind; `None`
/// (`dyn`) when the schema has no CEL type or is not structural.
fn decl_type(schema: &JsonSchemaProps, name: &str) -> Option<Arc<DeclType>> {
    let structural = Arc::new(Structural::from_props(schema).ok()?);
    DeclType::from_schema(&structural, true, name)
}

/// `paramsGVK`: the paramKind's group, version and kind; empty without a paramKind or when its
/// apiVersion does not parse (`schema.ParseGroupVersion`: at most one `/`).
fn params_gvk(policy: &ValidatingAdmissionPolicy) -> Gvk {
    let empty = Gvk {
        group: String::new(),
        version: String::new(),
        kind: String::new(),
    };
    let Some(p) = &policy.spec.param_kind else {
        return empty;
    };
    let (group, version) = match p.api_version.as_str() {
        "" | "/" => ("", ""),
        av => match av.split_once('/') {
            None => ("", av),
            Some((_, rest)) if rest.contains('/') => return empty,
            Some((g, v)) => (g, v),
        },
    };
    Gvk {
        group: group.into(),
        version: version.into(),
        kind: p.kind.clone(),
    }
}

/// `typesToCheck`: the kinds the resource rules name, sorted by group, version, kind.
pub fn types_to_check(policy: &ValidatingAdmissionPolicy, resolver: &dyn KindResolver) -> Vec<Gvk> {
    let Some(constraints) = &policy.spec.match_constraints else {
        return Vec::new();
    };
    let mut gvks = BTreeSet::new();
    for rule in &constraints.resource_rules {
        if collect_rule(rule, resolver, &mut gvks) {
            break;
        }
    }
    gvks.into_iter().collect()
}

/// Adds the kinds of one rule; true when the rule reached [`MAX_TYPES_TO_CHECK`], which ends
/// the collection.
fn collect_rule(
    rule: &NamedRuleWithOperations,
    resolver: &dyn KindResolver,
    gvks: &mut BTreeSet<Gvk>,
) -> bool {
    // extractGroups, extractVersions: a wildcard anywhere gives the rule up.
    let sorted_exact = |values: &[String]| -> Vec<String> {
        if values.iter().any(|v| v.contains('*')) {
            return Vec::new();
        }
        let mut v = values.to_vec();
        v.sort();
        v
    };
    let groups = sorted_exact(&rule.api_groups);
    let versions = sorted_exact(&rule.api_versions);
    // extractResources: wildcards and subresources are skipped.
    let mut resources: Vec<&String> = rule
        .resources
        .iter()
        .filter(|r| !r.contains(['*', '/']))
        .collect();
    resources.sort();
    let mut count = 0;
    for group in &groups {
        for version in &versions {
            for resource in &resources {
                let kinds = resolver.kinds_for(group, version, resource);
                for kind in kinds.into_iter().filter(|k| !k.is_empty()) {
                    gvks.insert(Gvk {
                        group: group.clone(),
                        version: version.clone(),
                        kind,
                    });
                    count += 1;
                    if count == MAX_TYPES_TO_CHECK {
                        return true;
                    }
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::model::{MatchResources, ParamKind};

    /// Every resource `r<N>` of group `g`, version `v1` is kind `K<N>`; no schemas.
    struct Numbered;

    impl KindResolver for Numbered {
        fn kinds_for(&self, _group: &str, _version: &str, resource: &str) -> Vec<String> {
            resource
                .strip_prefix('r')
                .map(|n| vec![format!("K{n}")])
                .unwrap_or_default()
        }

        fn schema(&self, _gvk: &Gvk) -> Option<JsonSchemaProps> {
            None
        }
    }

    fn policy(rules: Vec<Vec<String>>) -> ValidatingAdmissionPolicy {
        let mut p = ValidatingAdmissionPolicy {
            metadata: Default::default(),
            spec: Default::default(),
        };
        p.spec.match_constraints = Some(MatchResources {
            resource_rules: rules
                .into_iter()
                .map(|resources| NamedRuleWithOperations {
                    api_groups: vec!["g".into()],
                    api_versions: vec!["v1".into()],
                    resources,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        });
        p
    }

    fn resources(range: std::ops::Range<usize>) -> Vec<String> {
        range.map(|i| format!("r{i:02}")).collect()
    }

    #[test]
    fn a_rule_reaching_the_limit_ends_the_collection() {
        let p = policy(vec![resources(0..12), resources(20..22)]);
        let kinds: Vec<String> = types_to_check(&p, &Numbered)
            .into_iter()
            .map(|g| g.kind)
            .collect();
        assert_eq!(
            kinds,
            resources(0..10)
                .iter()
                .map(|r| r.replace('r', "K"))
                .collect::<Vec<_>>()
        );
        // Under the limit, every rule adds its kinds.
        let p = policy(vec![resources(0..9), resources(20..22)]);
        assert_eq!(types_to_check(&p, &Numbered).len(), 11);
    }

    #[test]
    fn param_kind_api_versions_parse_as_group_versions() {
        let gvk = |api_version: &str| {
            let mut p = policy(Vec::new());
            p.spec.param_kind = Some(ParamKind {
                api_version: api_version.into(),
                kind: "K".into(),
            });
            let g = params_gvk(&p);
            (g.group, g.version, g.kind)
        };
        let s = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
        assert_eq!(gvk("v1"), s("", "v1", "K"));
        assert_eq!(gvk("example.com/v1"), s("example.com", "v1", "K"));
        assert_eq!(gvk(""), s("", "", "K"));
        assert_eq!(gvk("a/b/c"), s("", "", ""));
    }

    #[test]
    fn kinds_print_as_group_version_kind() {
        let g = |group: &str| Gvk {
            group: group.into(),
            version: "v1".into(),
            kind: "K".into(),
        };
        assert_eq!(g("apps").to_string(), "apps/v1, Kind=K");
        assert_eq!(g("").to_string(), "/v1, Kind=K");
    }
}
