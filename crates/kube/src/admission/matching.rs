//! Which policies and bindings apply to a request, as the plugins decide
//! (`k8s.io/apiserver/pkg/admission/plugin/policy/matching/matching.go` `Matcher.Matches`,
//! `policy/generic/policy_matcher.go`, and the predicates of
//! `webhook/predicates/{rules,namespace,object}`).

use std::collections::BTreeMap;

use serde_json::Value;

use super::model::{MatchPolicy, MatchResources, NamedRuleWithOperations};
use super::request::{Attributes, GroupVersionKind, GroupVersionResource, Operation, labels};
use super::selector::Selector;
pub use super::selector::SelectorError;

/// What the matcher asks of the cluster: other versions of a resource and namespaces.
pub trait Cluster {
    /// The resources equivalent to `resource` for `subresource` (the same resource served in
    /// other versions or groups: `EquivalentResourcesFor`), each with its kind for the
    /// subresource (`KindFor`), `resource` itself included or not.
    fn equivalents(
        &self,
        resource: &GroupVersionResource,
        subresource: &str,
    ) -> Vec<(GroupVersionResource, GroupVersionKind)>;

    /// The stored Namespace named `name`, if it exists.
    fn namespace(&self, name: &str) -> Option<Value>;

    /// The authorizer bound to policies' `authorizer` variable (`None`: left unbound).
    fn authorizer(&self) -> Option<std::sync::Arc<dyn crate::library::authz::Authorizer>> {
        None
    }
}

/// Why matching failed; the dispatcher wraps its text (`failed to configure policy: …`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    /// A policy without `matchConstraints` (`DefinitionMatches`).
    #[error("policy contained no match constraints, a required field")]
    NoMatchConstraints,
    /// `matchResources` without a namespace or object selector (`errNilSelector`).
    #[error("a nil {0} selector was passed, please ensure selectors are initialized properly")]
    NilSelector(SelectorKind),
    /// A selector that does not parse (`LabelSelectorAsSelector`), as
    /// `apierrors.NewInternalError(err).Error()` prints it.
    #[error("Internal error occurred: {0}")]
    Selector(SelectorError),
    /// The request's namespace is not known (`namespace.Matcher.GetNamespace`'s NotFound).
    #[error("namespaces {0:?} not found")]
    NamespaceNotFound(String),
    /// An equivalent resource without a kind for the subresource (`matchesResourceRules`:
    /// `unable to convert to %v: unknown kind`).
    #[error("unable to convert to {}: unknown kind", .0.go_string())]
    UnknownKind(GroupVersionResource),
}

/// Which selector of `matchResources` (`errNilSelector`'s word).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectorKind {
    /// `namespaceSelector`.
    Namespace,
    /// `objectSelector`.
    Object,
}

impl std::fmt::Display for SelectorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SelectorKind::Namespace => "namespace",
            SelectorKind::Object => "object",
        })
    }
}

/// What a policy's constraints matched: the resource and kind as matched (an equivalent one
/// under `matchPolicy: Equivalent`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matched {
    /// The resource matched (`matchPolicy: Equivalent` may name another version or group).
    pub resource: GroupVersionResource,
    /// The kind matched, belonging to `resource`.
    pub kind: GroupVersionKind,
}

/// `DefinitionMatches`: a policy's `matchConstraints`.
pub fn definition_matches(
    attr: &Attributes,
    constraints: Option<&MatchResources>,
    cluster: &dyn Cluster,
) -> Result<Option<Matched>, MatchError> {
    let Some(c) = constraints else {
        return Err(MatchError::NoMatchConstraints);
    };
    check_selectors(c)?;
    matches(attr, c, cluster)
}

/// `BindingMatches`: a binding's `matchResources` (absent: matches).
pub fn binding_matches(
    attr: &Attributes,
    match_resources: Option<&MatchResources>,
    cluster: &dyn Cluster,
) -> Result<bool, MatchError> {
    match match_resources {
        None => Ok(true),
        Some(m) => {
            check_selectors(m)?;
            matches(attr, m, cluster).map(|m| m.is_some())
        }
    }
}

/// The nil-selector errors of `DefinitionMatches` and `BindingMatches`.
fn check_selectors(m: &MatchResources) -> Result<(), MatchError> {
    if m.namespace_selector.is_none() {
        return Err(MatchError::NilSelector(SelectorKind::Namespace));
    }
    if m.object_selector.is_none() {
        return Err(MatchError::NilSelector(SelectorKind::Object));
    }
    Ok(())
}

/// `LabelSelectorAsSelector`: an absent selector selects nothing (`labels.Nothing()`).
fn parse_selector(s: Option<&super::model::LabelSelector>) -> Result<Option<Selector>, MatchError> {
    s.map(Selector::parse)
        .transpose()
        .map_err(MatchError::Selector)
}

/// `Matcher.Matches`.
pub fn matches(
    attr: &Attributes,
    criteria: &MatchResources,
    cluster: &dyn Cluster,
) -> Result<Option<Matched>, MatchError> {
    let ns_match = match_namespace_selector(attr, criteria.namespace_selector.as_ref(), cluster);
    if let Ok(false) = ns_match {
        return Ok(None);
    }
    let obj_match = parse_selector(criteria.object_selector.as_ref()).map(|s| match s {
        None => false,
        Some(s) => {
            s.is_empty()
                || Attributes::labels_of(attr.object.as_ref()).is_some_and(|l| s.matches(&l))
                || Attributes::labels_of(attr.old_object.as_ref()).is_some_and(|l| s.matches(&l))
        }
    });
    if let Ok(false) = obj_match {
        return Ok(None);
    }
    let policy = criteria.match_policy;
    if matches_resource_rules(&criteria.exclude_resource_rules, policy, attr, cluster)?.is_some() {
        return Ok(None);
    }
    let matched = if criteria.resource_rules.is_empty() {
        Some(Matched {
            resource: attr.resource.clone(),
            kind: attr.kind.clone(),
        })
    } else {
        matches_resource_rules(&criteria.resource_rules, policy, attr, cluster)?
    };
    let Some(matched) = matched else {
        return Ok(None);
    };
    ns_match?;
    obj_match?;
    Ok(Some(matched))
}

/// `namespace.Matcher.MatchNamespaceSelector`.
fn match_namespace_selector(
    attr: &Attributes,
    selector: Option<&super::model::LabelSelector>,
    cluster: &dyn Cluster,
) -> Result<bool, MatchError> {
    let is_namespace = attr.resource.resource == "namespaces";
    if attr.namespace.is_empty() && !is_namespace {
        return Ok(true);
    }
    let selector = parse_selector(selector)?;
    if selector.as_ref().is_some_and(Selector::is_empty) {
        return Ok(true);
    }
    let ns_labels: BTreeMap<String, String> = if is_namespace
        && attr.subresource.is_empty()
        && matches!(attr.operation, Operation::Create | Operation::Update)
    {
        attr.object.as_ref().map(labels).unwrap_or_default()
    } else {
        match cluster.namespace(&attr.namespace) {
            Some(ns) => labels(&ns),
            None => {
                return Err(MatchError::NamespaceNotFound(attr.namespace.clone()));
            }
        }
    };
    Ok(selector.is_some_and(|s| s.matches(&ns_labels)))
}

/// `rules.Matcher.Matches` of one rule against `resource`.
fn rule_matches(
    rule: &NamedRuleWithOperations,
    attr: &Attributes,
    resource: &GroupVersionResource,
) -> bool {
    let exact_or_wildcard =
        |items: &[String], requested: &str| items.iter().any(|i| i == "*" || i == requested);
    let is_namespace_resource =
        resource.group.is_empty() && resource.version == "v1" && resource.resource == "namespaces";
    let scope = match rule.scope.as_deref() {
        None | Some("*") => true,
        Some("Namespaced") => !is_namespace_resource && !attr.namespace.is_empty(),
        Some("Cluster") => is_namespace_resource || attr.namespace.is_empty(),
        Some(_) => false,
    };
    let operation = rule
        .operations
        .iter()
        .any(|op| op == "*" || op == attr.operation.as_str());
    let resource_ok = rule.resources.iter().any(|r| {
        let (res, sub) = r.split_once('/').unwrap_or((r.as_str(), ""));
        (res == "*" || res == resource.resource) && (sub == "*" || sub == attr.subresource)
    });
    scope
        && operation
        && exact_or_wildcard(&rule.api_groups, &resource.group)
        && exact_or_wildcard(&rule.api_versions, &resource.version)
        && resource_ok
}

fn name_matches(rule: &NamedRuleWithOperations, attr: &Attributes) -> bool {
    rule.resource_names.is_empty() || rule.resource_names.contains(&attr.name)
}

/// `matchesResourceRules`.
fn matches_resource_rules(
    rules: &[NamedRuleWithOperations],
    policy: Option<MatchPolicy>,
    attr: &Attributes,
    cluster: &dyn Cluster,
) -> Result<Option<Matched>, MatchError> {
    for rule in rules {
        if rule_matches(rule, attr, &attr.resource) && name_matches(rule, attr) {
            return Ok(Some(Matched {
                resource: attr.resource.clone(),
                kind: attr.kind.clone(),
            }));
        }
    }
    if policy != Some(MatchPolicy::Equivalent) {
        return Ok(None);
    }
    let equivalents = cluster.equivalents(&attr.resource, &attr.subresource);
    for rule in rules {
        for (equivalent, kind) in &equivalents {
            if *equivalent == attr.resource || !rule_matches(rule, attr, equivalent) {
                continue;
            }
            if kind.kind.is_empty() {
                return Err(MatchError::UnknownKind(equivalent.clone()));
            }
            if name_matches(rule, attr) {
                return Ok(Some(Matched {
                    resource: equivalent.clone(),
                    kind: kind.clone(),
                }));
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::model::LabelSelector;
    use crate::admission::request::{UserInfo, namespace_named};
    use serde_json::json;

    struct Fixture;

    impl Cluster for Fixture {
        fn equivalents(
            &self,
            r: &GroupVersionResource,
            _subresource: &str,
        ) -> Vec<(GroupVersionResource, GroupVersionKind)> {
            if r.group == "example.com" && r.resource == "widgets" {
                ["v1", "v2"]
                    .iter()
                    .map(|v| {
                        (
                            GroupVersionResource {
                                group: r.group.clone(),
                                version: v.to_string(),
                                resource: r.resource.clone(),
                            },
                            GroupVersionKind::of(&format!("example.com/{v}"), "Widget"),
                        )
                    })
                    .collect()
            } else {
                Vec::new()
            }
        }

        fn namespace(&self, name: &str) -> Option<Value> {
            let mut ns = namespace_named(name);
            if name == "prod" {
                ns["metadata"]["labels"]["env"] = json!("prod");
            }
            (name != "missing").then_some(ns)
        }
    }

    fn attr(version: &str, namespace: &str) -> Attributes {
        Attributes {
            kind: GroupVersionKind::of(&format!("example.com/{version}"), "Widget"),
            resource: GroupVersionResource {
                group: "example.com".into(),
                version: version.into(),
                resource: "widgets".into(),
            },
            subresource: String::new(),
            name: "w".into(),
            namespace: namespace.into(),
            operation: Operation::Create,
            object: Some(json!({"metadata": {"name": "w", "labels": {"app": "x"}}})),
            old_object: None,
            user: UserInfo::default(),
            dry_run: false,
        }
    }

    fn criteria(
        rule: serde_json::Value,
        policy: MatchPolicy,
        ns: Option<serde_json::Value>,
    ) -> MatchResources {
        let mut m = MatchResources {
            resource_rules: vec![serde_json::from_value(rule).expect("rule")],
            match_policy: Some(policy),
            namespace_selector: Some(LabelSelector::default()),
            object_selector: Some(LabelSelector::default()),
            ..Default::default()
        };
        if let Some(ns) = ns {
            m.namespace_selector = Some(serde_json::from_value(ns).expect("selector"));
        }
        m
    }

    #[test]
    fn equivalent_versions_match_under_equivalent() {
        let rule = json!({"apiGroups": ["example.com"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["widgets"], "scope": "*"});
        let c = criteria(rule.clone(), MatchPolicy::Equivalent, None);
        let m = matches(&attr("v2", "default"), &c, &Fixture)
            .expect("no error")
            .expect("matches");
        assert_eq!(m.kind.version, "v1");
        let exact = criteria(rule, MatchPolicy::Exact, None);
        assert_eq!(matches(&attr("v2", "default"), &exact, &Fixture), Ok(None));
    }

    #[test]
    fn namespace_selectors_read_the_namespace() {
        let rule = json!({"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"]});
        let c = criteria(
            rule,
            MatchPolicy::Equivalent,
            Some(json!({"matchLabels": {"env": "prod"}})),
        );
        assert!(
            matches(&attr("v1", "prod"), &c, &Fixture)
                .expect("ok")
                .is_some()
        );
        assert_eq!(matches(&attr("v1", "dev"), &c, &Fixture), Ok(None));
        assert_eq!(
            matches(&attr("v1", "missing"), &c, &Fixture),
            Err(MatchError::NamespaceNotFound("missing".into()))
        );
    }
}
