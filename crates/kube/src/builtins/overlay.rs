//! Hand-written validation of built-in kinds that their OpenAPI schemas lack, added to the
//! definitions before conversion. Each entry cites the Kubernetes function that decides; the
//! list is deliberately small (see the module documentation of [`super`] for what is not
//! checked).
//!
//! | Definition | Field | Check | Kubernetes |
//! |---|---|---|---|
//! | `io.k8s.api.core.v1.Container` | `image` | required | `pkg/apis/core/validation/validation.go` `validateContainerCommon` (`Required value` when `ctr.Image` is empty; kubectl-validate's patch `pkg/openapiclient/patches/1.23/api/v1.json` does the same) |
//! | `io.k8s.api.core.v1.ContainerPort` | `protocol` | one of `SCTP`, `TCP`, `UDP` | `pkg/apis/core/validation/validation.go` `validateContainerPorts` (`field.NotSupported` with `supportedPortProtocols`) |
//!
//! Names ([`name_rule`]; every other kind's names are DNS subdomains, `NameIsDNSSubdomain`):
//!
//! | Kinds | Rule | Kubernetes |
//! |---|---|---|
//! | `Namespace` | RFC 1123 label | `pkg/apis/core/validation/validation.go` `ValidateNamespaceName` (`NameIsDNSLabel`) |
//! | `Service` | RFC 1035 label | `pkg/apis/core/validation/validation.go` `ValidateServiceName` (`NameIsDNS1035Label`) |
//! | `Role`, `ClusterRole`, `RoleBinding`, `ClusterRoleBinding` | path segment | `pkg/apis/rbac/validation/validation.go` `ValidateRBACName` (`path.IsValidPathSegmentName`) |

use std::collections::BTreeMap;

use serde_json::Value;

use crate::pipeline::objectmeta::NameRule;

/// How names of `kind` in `group` are validated on create.
pub fn name_rule(group: &str, kind: &str) -> NameRule {
    match (group, kind) {
        ("", "Namespace") => NameRule::DnsLabel,
        ("", "Service") => NameRule::Dns1035Label,
        (
            "rbac.authorization.k8s.io",
            "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding",
        ) => NameRule::PathSegment,
        _ => NameRule::DnsSubdomain,
    }
}

/// Fields made required: (definition, field).
const REQUIRED: &[(&str, &str)] = &[("io.k8s.api.core.v1.Container", "image")];

/// Fields limited to a set of values: (definition, field, values), the values sorted as
/// `sets.List` sorts them for the message.
const ENUMS: &[(&str, &str, &[&str])] = &[(
    "io.k8s.api.core.v1.ContainerPort",
    "protocol",
    &["SCTP", "TCP", "UDP"],
)];

/// Adds the overlay's checks to `definitions`.
pub fn patch(definitions: &mut BTreeMap<String, Value>) {
    for (definition, field, values) in ENUMS {
        let Some(Value::Object(property)) = definitions
            .get_mut(*definition)
            .and_then(|d| d.pointer_mut(&format!("/properties/{field}")))
        else {
            continue;
        };
        property.entry("enum").or_insert_with(|| {
            values
                .iter()
                .map(|v| Value::String((*v).to_string()))
                .collect()
        });
    }
    for (definition, field) in REQUIRED {
        let Some(Value::Object(def)) = definitions.get_mut(*definition) else {
            continue;
        };
        let required = def
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = required
            && !list.iter().any(|f| f == field)
        {
            list.push(Value::String((*field).to_string()));
        }
    }
}
