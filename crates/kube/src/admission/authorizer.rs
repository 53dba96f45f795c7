//! The offline authorizer behind admission policies' `authorizer` and
//! `authorizer.requestResource` variables: decisions from a list of rules ([`AuthzRules`],
//! `kcel validate --authz FILE`), the first matching rule deciding, none matching meaning "no
//! opinion" (which `allowed()` reports as not allowed, as a cluster whose RBAC grants nothing
//! does).
//!
//! The rules file is YAML (or JSON): one document holding a list of rules.
//!
//! ```yaml
//! - users: [alice]                  # who: any of users, groups, serviceAccounts
//!   groups: [system:masters]        #   (all three absent: everyone)
//!   serviceAccounts: [{namespace: ci, name: deployer}]
//!   verbs: [get, list]              # absent or "*": any verb
//!   apiGroups: [""]                 # resource checks: absent or "*": any;
//!   resources: [pods]               #   "" in subresources is the resource itself
//!   subresources: ["", status]
//!   namespaces: [prod]
//!   names: [web]
//!   decision: allow                 # allow | deny | noOpinion
//!   reason: granted by the CI role  # reason() (default empty)
//!   error: ""                       # set: errored() is true and error() says this
//! - nonResourceURLs: [/healthz, /api/*]   # path checks ("*" suffix: prefix)
//!   decision: allow
//! ```
//!
//! A rule naming resource fields applies only to resource checks
//! (`authorizer.group(..).resource(..).check(verb)`), one naming `nonResourceURLs` only to path
//! checks (`authorizer.path(..).check(verb)`), one naming neither to both. The decision values
//! are `authorizer.Decision`'s (`k8s.io/apiserver/pkg/authorization/authorizer`); what a check
//! returns to CEL is `authz.go`'s `decisionVal`.

use std::sync::Arc;

use serde::Deserialize;

use super::request::{Attributes, UserInfo};
use crate::library::authz::{
    self, Authorizer, Decision, RequestResource, Target, Verdict, authorizer_value,
    request_resource_value,
};
use crate::yaml::{self, YamlError};

/// Why an authorization rules file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum AuthzFileError {
    /// The file could not be read.
    #[error("{file}: {error}")]
    Read {
        /// The file.
        file: String,
        /// The I/O error.
        error: std::io::Error,
    },
    /// The file is not YAML.
    #[error("{file}: {error}")]
    Yaml {
        /// The file.
        file: String,
        /// The YAML error.
        error: YamlError,
    },
    /// The file does not hold exactly one document.
    #[error("{file}: expected one YAML document holding a list of rules, found {found}")]
    Documents {
        /// The file.
        file: String,
        /// How many documents it holds.
        found: usize,
    },
    /// A rule (or the list) is malformed.
    #[error("{file}:{line}: {path}: {message}")]
    Rule {
        /// The file.
        file: String,
        /// The line of the offending node.
        line: usize,
        /// Where in the list (`[0].decision`).
        path: String,
        /// What is wrong.
        message: String,
    },
}

/// A decision a rule gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RuleDecision {
    /// `DecisionAllow`.
    Allow,
    /// `DecisionDeny`.
    Deny,
    /// `DecisionNoOpinion`.
    NoOpinion,
}

/// A service account a rule names.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceAccountRef {
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
}

/// One rule: who, what, and the decision.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuthzRule {
    /// User names the rule applies to (`*`: any).
    #[serde(default)]
    pub users: Vec<String>,
    /// Groups the rule applies to (`*`: any).
    #[serde(default)]
    pub groups: Vec<String>,
    /// Service accounts the rule applies to (user `system:serviceaccount:<ns>:<name>`).
    #[serde(default)]
    pub service_accounts: Vec<ServiceAccountRef>,
    /// Verbs (absent: any).
    pub verbs: Option<Vec<String>>,
    /// API groups (absent: any).
    pub api_groups: Option<Vec<String>>,
    /// Resources (absent: any).
    pub resources: Option<Vec<String>>,
    /// Subresources, `""` for none (absent: any).
    pub subresources: Option<Vec<String>>,
    /// Namespaces, `""` for cluster scope (absent: any).
    pub namespaces: Option<Vec<String>>,
    /// Object names (absent: any).
    pub names: Option<Vec<String>>,
    /// Non-resource paths; a trailing `*` matches any suffix.
    #[serde(rename = "nonResourceURLs")]
    pub non_resource_urls: Option<Vec<String>>,
    /// The decision.
    pub decision: RuleDecision,
    /// The reason given with it.
    #[serde(default)]
    pub reason: String,
    /// An authorizer error to report with it.
    pub error: Option<String>,
}

/// `*` or the value itself in `list`; an absent list matches anything.
fn matches(list: Option<&Vec<String>>, value: &str) -> bool {
    list.is_none_or(|l| l.iter().any(|x| x == "*" || x == value))
}

impl AuthzRule {
    fn names_resources(&self) -> bool {
        self.api_groups.is_some()
            || self.resources.is_some()
            || self.subresources.is_some()
            || self.namespaces.is_some()
            || self.names.is_some()
    }

    fn applies_to(&self, user: &UserInfo) -> bool {
        if self.users.is_empty() && self.groups.is_empty() && self.service_accounts.is_empty() {
            return true;
        }
        self.users.iter().any(|u| u == "*" || *u == user.username)
            || self
                .groups
                .iter()
                .any(|g| g == "*" || user.groups.contains(g))
            || self.service_accounts.iter().any(|sa| {
                user.username == format!("system:serviceaccount:{}:{}", sa.namespace, sa.name)
            })
    }

    fn matches(&self, a: &authz::Attributes<'_>) -> bool {
        if !self.applies_to(a.user) || !matches(self.verbs.as_ref(), a.verb) {
            return false;
        }
        match a.target {
            Target::Path(path) => {
                !self.names_resources()
                    && self.non_resource_urls.as_ref().is_none_or(|urls| {
                        urls.iter().any(|u| match u.strip_suffix('*') {
                            Some(prefix) => path.starts_with(prefix),
                            None => u == path,
                        })
                    })
            }
            Target::Resource {
                group,
                resource,
                subresource,
                namespace,
                name,
                ..
            } => {
                self.non_resource_urls.is_none()
                    && matches(self.api_groups.as_ref(), group)
                    && matches(self.resources.as_ref(), resource)
                    && matches(self.subresources.as_ref(), subresource)
                    && matches(self.namespaces.as_ref(), namespace)
                    && matches(self.names.as_ref(), name)
            }
        }
    }
}

/// The rules, in order. The default (no rules) answers "no opinion" to every check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthzRules {
    /// The rules; the first that matches decides.
    pub rules: Vec<AuthzRule>,
}

impl AuthzRules {
    /// One rule allowing everything (`--authz-allow-all`).
    pub fn allow_all() -> AuthzRules {
        AuthzRules {
            rules: vec![AuthzRule {
                users: Vec::new(),
                groups: Vec::new(),
                service_accounts: Vec::new(),
                verbs: None,
                api_groups: None,
                resources: None,
                subresources: None,
                namespaces: None,
                names: None,
                non_resource_urls: None,
                decision: RuleDecision::Allow,
                reason: String::new(),
                error: None,
            }],
        }
    }

    /// Reads the rules file `file`.
    pub fn read(file: &str) -> Result<AuthzRules, AuthzFileError> {
        let text = std::fs::read_to_string(file).map_err(|error| AuthzFileError::Read {
            file: file.to_string(),
            error,
        })?;
        AuthzRules::parse(file, &text)
    }

    /// Parses the text of a rules file (`source` names it in errors).
    pub fn parse(source: &str, text: &str) -> Result<AuthzRules, AuthzFileError> {
        let docs = yaml::parse_stream(text).map_err(|error| AuthzFileError::Yaml {
            file: source.to_string(),
            error,
        })?;
        let docs: Vec<_> = docs.into_iter().filter(|d| !d.value.is_null()).collect();
        let [doc] = docs.as_slice() else {
            return Err(AuthzFileError::Documents {
                file: source.to_string(),
                found: docs.len(),
            });
        };
        serde_path_to_error::deserialize(&doc.value)
            .map(|rules| AuthzRules { rules })
            .map_err(|e| {
                let path = e.path().to_string();
                let pointer: String = e
                    .path()
                    .iter()
                    .map(|s| match s {
                        serde_path_to_error::Segment::Seq { index } => format!("/{index}"),
                        serde_path_to_error::Segment::Map { key } => format!("/{key}"),
                        _ => String::new(),
                    })
                    .collect();
                let line = doc
                    .positions
                    .locate(&pointer)
                    .map_or(doc.start.line, |p| p.line);
                AuthzFileError::Rule {
                    file: source.to_string(),
                    line,
                    path,
                    message: e.into_inner().to_string(),
                }
            })
    }
}

impl Authorizer for AuthzRules {
    fn authorize(&self, attributes: &authz::Attributes<'_>) -> Verdict {
        self.rules
            .iter()
            .find(|r| r.matches(attributes))
            .map_or_else(Verdict::default, |r| Verdict {
                decision: match r.decision {
                    RuleDecision::Allow => Decision::Allow,
                    RuleDecision::Deny => Decision::Deny,
                    RuleDecision::NoOpinion => Decision::NoOpinion,
                },
                reason: r.reason.clone(),
                error: r.error.clone(),
            })
    }
}

/// The values of `authorizer` and `authorizer.requestResource` for one request
/// (`plugin/cel/activation.go` `newActivation`): checks run as the request's user, the
/// request resource being the resource, subresource, namespace and name written.
#[derive(Clone, Debug)]
pub struct AuthorizerValues {
    /// `authorizer`.
    pub authorizer: cel::Value,
    /// `authorizer.requestResource`.
    pub request_resource: cel::Value,
}

impl AuthorizerValues {
    /// The values for a request with attributes `attr`, decided by `authorizer`.
    pub fn new(authorizer: &Arc<dyn Authorizer>, attr: &Attributes) -> AuthorizerValues {
        let request = RequestResource {
            group: &attr.resource.group,
            resource: &attr.resource.resource,
            subresource: &attr.subresource,
            namespace: &attr.namespace,
            name: &attr.name,
        };
        AuthorizerValues {
            authorizer: authorizer_value(&attr.user, authorizer.clone()),
            request_resource: request_resource_value(&attr.user, authorizer.clone(), &request),
        }
    }
}
