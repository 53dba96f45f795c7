//! The CEL rules of one CRD version as the pipeline's rule step
//! ([`crate::pipeline::RuleValidator`]): compiled once, then run on each
//! request after the OpenAPI stage, with old/new correlation for ratcheting.

use std::sync::Arc;

use crate::crd::CustomResourceDefinition;
use crate::field::Path;
use crate::pipeline::{RuleOutcome, RuleRequest, RuleValidator};
use crate::schema_props::JsonSchemaProps;
use crate::structural::{Structural, StructuralError};

use super::env::RUNTIME_CEL_COST_BUDGET;
use super::{EnvLoader, SchemaRules};
use crate::version::KubeVersion;

/// Why the rules of a schema cannot be compiled.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RuleStepError {
    /// The schema is not structural.
    #[error(transparent)]
    Structural(#[from] StructuralError),
    /// The CRD has no schema for the version.
    #[error("CRD {crd} has no schema for version {version:?}")]
    NoSchema {
        /// The CRD's name.
        crd: String,
        /// The version asked for.
        version: String,
    },
}

/// For callers whose own errors are texts.
impl From<RuleStepError> for String {
    fn from(e: RuleStepError) -> String {
        e.to_string()
    }
}

/// The compiled rules of one schema, ready to validate objects.
pub struct CelRuleStep {
    validator: Option<SchemaRules>,
}

impl CelRuleStep {
    /// Compiles the rules of `schema` (a CRD version's `openAPIV3Schema`) in
    /// the runtime environment of Kubernetes `kube_version`.
    pub fn new(
        schema: &JsonSchemaProps,
        kube_version: KubeVersion,
    ) -> Result<CelRuleStep, RuleStepError> {
        let schema = Arc::new(Structural::from_props(schema)?);
        let validator = SchemaRules::for_resource(&schema, &EnvLoader::runtime(kube_version));
        Ok(CelRuleStep { validator })
    }

    /// The rules of version `version` of `crd`.
    pub fn for_version(
        crd: &CustomResourceDefinition,
        version: &str,
        kube_version: KubeVersion,
    ) -> Result<CelRuleStep, RuleStepError> {
        let schema = crd
            .version(version)
            .and_then(|v| v.open_api_v3_schema())
            .ok_or_else(|| RuleStepError::NoSchema {
                crd: crd.metadata.name.clone(),
                version: version.to_string(),
            })?;
        CelRuleStep::new(schema, kube_version)
    }

    /// Whether the schema has any rule at all.
    pub fn has_rules(&self) -> bool {
        self.validator.is_some()
    }
}

impl RuleValidator for CelRuleStep {
    fn validate(&self, request: &RuleRequest<'_>) -> RuleOutcome {
        let Some(validator) = &self.validator else {
            return RuleOutcome::default();
        };
        let out = validator.validate(
            &Path::root(),
            request.object,
            request.old_object,
            request.ratcheting,
            RUNTIME_CEL_COST_BUDGET,
        );
        RuleOutcome {
            errors: out.errors,
            warnings: out.warnings,
        }
    }
}
