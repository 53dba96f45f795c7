//! The `apiextensions.k8s.io/v1` `CustomResourceDefinition`, reduced to what validation needs.
//!
//! # Why an own model rather than `k8s-openapi`
//!
//! `k8s-openapi` generates every Kubernetes API type for one chosen Kubernetes version, selected
//! by a mandatory cargo feature. Depending on it would (a) add a large crate whose build takes
//! far longer than the rest of this crate, and (b) couple kcel's releases to one Kubernetes API
//! version, while CRD validation only needs a small, stable part of one API group. The model
//! here covers exactly that part, plus every `JSONSchemaProps` field, and decodes like the API
//! server does (unknown fields ignored, `null` = unset).
//!
//! A program that already holds a `k8s_openapi` CRD enables this crate's `k8s-openapi` feature
//! (k8s-openapi 0.29 with its `v1_35` API): `k8s_openapi_interop` converts it with `TryFrom`,
//! through serde JSON (both types use the wire format, so the round trip is lossless for every
//! field validation reads), with the loader's depth limit and field-path errors.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::schema_props::JsonSchemaProps;

/// The API group of CustomResourceDefinitions.
pub const CRD_GROUP: &str = "apiextensions.k8s.io";
/// The API version a CRD document must have.
pub const CRD_API_VERSION: &str = "apiextensions.k8s.io/v1";
/// The kind of a CRD document.
pub const CRD_KIND: &str = "CustomResourceDefinition";

/// A `CustomResourceDefinition`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct CustomResourceDefinition {
    /// `apiVersion` (`apiextensions.k8s.io/v1`).
    #[serde(rename = "apiVersion", deserialize_with = "nullable")]
    pub api_version: String,
    /// `kind` (`CustomResourceDefinition`).
    #[serde(deserialize_with = "nullable")]
    pub kind: String,
    /// `metadata`.
    #[serde(deserialize_with = "nullable")]
    pub metadata: ObjectMeta,
    /// `spec`.
    #[serde(deserialize_with = "nullable")]
    pub spec: CustomResourceDefinitionSpec,
}

/// The part of `ObjectMeta` a CRD's identity needs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct ObjectMeta {
    /// `metadata.name` (`<plural>.<group>`).
    #[serde(deserialize_with = "nullable")]
    pub name: String,
}

/// `spec` of a CRD.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct CustomResourceDefinitionSpec {
    /// `spec.group`: the API group of the custom resources.
    #[serde(deserialize_with = "nullable")]
    pub group: String,
    /// `spec.names`.
    #[serde(deserialize_with = "nullable")]
    pub names: CustomResourceDefinitionNames,
    /// `Namespaced` or `Cluster`.
    #[serde(deserialize_with = "nullable")]
    pub scope: String,
    /// `spec.versions`: the versions served, each with its schema.
    #[serde(deserialize_with = "nullable")]
    pub versions: Vec<CustomResourceDefinitionVersion>,
    /// Must be false for v1 CRDs; kept so the loader can report it.
    #[serde(rename = "preserveUnknownFields", deserialize_with = "nullable")]
    pub preserve_unknown_fields: bool,
    /// How versions convert (checked when the CRD is written; absent means `None`).
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub conversion: Option<CustomResourceConversion>,
}

/// `spec.conversion`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct CustomResourceConversion {
    /// `None` or `Webhook`.
    #[serde(deserialize_with = "nullable")]
    pub strategy: String,
    /// `webhook`: the webhook called for `strategy: Webhook`.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub webhook: Option<WebhookConversion>,
}

/// `spec.conversion.webhook`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct WebhookConversion {
    #[serde(
        rename = "clientConfig",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    /// `clientConfig`: how to reach the webhook.
    pub client_config: Option<WebhookClientConfig>,
    /// `conversionReviewVersions`: the `ConversionReview` versions the webhook accepts, preferred first.
    #[serde(rename = "conversionReviewVersions", deserialize_with = "nullable")]
    pub conversion_review_versions: Vec<String>,
}

/// `spec.conversion.webhook.clientConfig`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct WebhookClientConfig {
    /// `url`: the webhook's URL (exclusive with `service`).
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub url: Option<String>,
    /// `service`: the webhook's in-cluster service (exclusive with `url`).
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub service: Option<ServiceReference>,
    /// Base64 PEM; not checked on create (an invalid bundle is allowed until the CRD is
    /// established).
    #[serde(
        rename = "caBundle",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    pub ca_bundle: Option<String>,
}

/// `clientConfig.service`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct ServiceReference {
    /// `namespace` of the service.
    #[serde(deserialize_with = "nullable")]
    pub namespace: String,
    /// `name` of the service.
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    /// `path`: the URL path requests are sent to.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub path: Option<String>,
    /// Defaulted to 443 (`SetDefaults_ServiceReference`).
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub port: Option<i32>,
}

/// `spec.names`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct CustomResourceDefinitionNames {
    /// `plural`: the resource name in URLs (`widgets`).
    #[serde(deserialize_with = "nullable")]
    pub plural: String,
    /// `singular`: the singular name (`widget`).
    #[serde(deserialize_with = "nullable")]
    pub singular: String,
    /// `kind`: the kind of the objects (`Widget`).
    #[serde(deserialize_with = "nullable")]
    pub kind: String,
    /// `listKind`: the kind of lists (`WidgetList`).
    #[serde(rename = "listKind", deserialize_with = "nullable")]
    pub list_kind: String,
    /// `shortNames`: short names for clients.
    #[serde(rename = "shortNames", deserialize_with = "nullable")]
    pub short_names: Vec<String>,
    /// `categories`: the groupings the resource belongs to (`all`).
    #[serde(deserialize_with = "nullable")]
    pub categories: Vec<String>,
}

/// One entry of `spec.versions`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct CustomResourceDefinitionVersion {
    /// `name`: the version (`v1`, `v1beta1`).
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    /// `served`: whether the version is served.
    #[serde(deserialize_with = "nullable")]
    pub served: bool,
    /// `storage`: whether objects are stored in this version (exactly one version).
    #[serde(deserialize_with = "nullable")]
    pub storage: bool,
    /// `deprecated`: whether clients are warned when using the version.
    #[serde(deserialize_with = "nullable")]
    pub deprecated: bool,
    #[serde(
        rename = "deprecationWarning",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    /// `deprecationWarning`: the warning returned instead of the default one.
    pub deprecation_warning: Option<String>,
    /// `schema`: the version's validation schema.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub schema: Option<CustomResourceValidation>,
    /// `subresources`: the `status` and `scale` subresources.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub subresources: Option<CustomResourceSubresources>,
}

impl CustomResourceDefinitionVersion {
    /// The version's `openAPIV3Schema`, if it has one.
    pub fn open_api_v3_schema(&self) -> Option<&JsonSchemaProps> {
        self.schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.as_ref())
    }

    /// Whether the status subresource is enabled.
    pub fn has_status_subresource(&self) -> bool {
        self.subresources
            .as_ref()
            .is_some_and(|s| s.status.is_some())
    }
}

/// `spec.versions[].schema`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct CustomResourceValidation {
    #[serde(
        rename = "openAPIV3Schema",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    /// `openAPIV3Schema`: the structural schema of the custom resources.
    pub open_api_v3_schema: Option<JsonSchemaProps>,
}

/// `spec.versions[].subresources`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct CustomResourceSubresources {
    /// `status: {}` enables the status subresource (its content is not used).
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub status: Option<Value>,
    /// `scale`: the `scale` subresource, when enabled.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub scale: Option<CustomResourceSubresourceScale>,
}

/// `subresources.scale`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct CustomResourceSubresourceScale {
    /// `specReplicasPath`: the JSON path of the desired replicas (`.spec.replicas`).
    #[serde(rename = "specReplicasPath", deserialize_with = "nullable")]
    pub spec_replicas_path: String,
    /// `statusReplicasPath`: the JSON path of the observed replicas (`.status.replicas`).
    #[serde(rename = "statusReplicasPath", deserialize_with = "nullable")]
    pub status_replicas_path: String,
    #[serde(
        rename = "labelSelectorPath",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    /// `labelSelectorPath`: the JSON path of the serialized label selector.
    pub label_selector_path: Option<String>,
}

impl CustomResourceDefinition {
    /// The version named `name`.
    pub fn version(&self, name: &str) -> Option<&CustomResourceDefinitionVersion> {
        self.spec.versions.iter().find(|v| v.name == name)
    }

    /// The storage version, if exactly one is marked.
    pub fn storage_version(&self) -> Option<&CustomResourceDefinitionVersion> {
        let mut it = self.spec.versions.iter().filter(|v| v.storage);
        match (it.next(), it.next()) {
            (Some(v), None) => Some(v),
            _ => None,
        }
    }

    /// `group/version` for a version name (`apiVersion` of its custom resources).
    pub fn api_version_of(&self, version: &str) -> String {
        if self.spec.group.is_empty() {
            version.to_string()
        } else {
            format!("{}/{}", self.spec.group, version)
        }
    }
}

/// `null` means the zero value, as in Go.
fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// Presence matters: a `status` key with a null value does not enable the subresource (Go's
/// pointer stays nil), any object does.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    let v = Value::deserialize(d)?;
    Ok(if v.is_null() { None } else { Some(v) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decodes_a_crd() {
        let crd: CustomResourceDefinition = serde_json::from_value(json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com", "labels": {"a": "b"}},
            "spec": {
                "group": "example.com",
                "names": {"plural": "widgets", "kind": "Widget"},
                "scope": "Namespaced",
                "conversion": {"strategy": "None"},
                "versions": [
                    {"name": "v1", "served": true, "storage": true,
                     "subresources": {"status": {}},
                     "schema": {"openAPIV3Schema": {"type": "object"}}},
                    {"name": "v2", "served": true, "storage": false, "subresources": {"status": null}}
                ]
            }
        }))
        .expect("decodes");
        assert_eq!(crd.metadata.name, "widgets.example.com");
        assert_eq!(crd.storage_version().map(|v| v.name.as_str()), Some("v1"));
        assert!(
            crd.version("v1")
                .is_some_and(|v| v.has_status_subresource())
        );
        assert!(
            crd.version("v2")
                .is_some_and(|v| !v.has_status_subresource())
        );
        assert_eq!(crd.api_version_of("v1"), "example.com/v1");
        assert_eq!(
            crd.version("v1")
                .and_then(|v| v.open_api_v3_schema())
                .and_then(|s| s.type_.as_deref()),
            Some("object")
        );
    }
}
