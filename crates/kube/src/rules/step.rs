//! The CEL rules of one CRD version as the pipeline's rule step
//! ([`crate::pipeline::RuleValidator`]): compiled once, then run on each
//! request after the OpenAPI stage, with old/new correlation for ratcheting.

use std::sync::Arc;

use crate::crd::CustomResourceDefinition;
use crate::field::{FieldError, Path};
use crate::pipeline::{RuleOutcome, RuleRequest, RuleValidator};
use crate::schema_props::JsonSchemaProps;
use crate::structural::Structural;
use crate::values::Json;

use super::env::RUNTIME_CEL_COST_BUDGET;
use super::{Correlation, EnvLoader, Ratchet, Validator};
use crate::version::KubeVersion;

/// The compiled rules of one schema, ready to validate objects.
pub struct CelRuleStep {
    schema: Arc<Structural>,
    validator: Option<Validator>,
}

impl CelRuleStep {
    /// Compiles the rules of `schema` (a CRD version's `openAPIV3Schema`) in
    /// the runtime environment of Kubernetes `kube_version`.
    pub fn new(schema: &JsonSchemaProps, kube_version: KubeVersion) -> Result<CelRuleStep, String> {
        let schema = Arc::new(Structural::from_props(schema).map_err(|e| e.to_string())?);
        let validator = Validator::for_resource(&schema, &EnvLoader::runtime(kube_version));
        Ok(CelRuleStep { schema, validator })
    }

    /// The rules of version `version` of `crd`.
    pub fn for_version(
        crd: &CustomResourceDefinition,
        version: &str,
        kube_version: KubeVersion,
    ) -> Result<CelRuleStep, String> {
        let schema = crd
            .version(version)
            .and_then(|v| v.open_api_v3_schema())
            .ok_or_else(|| {
                format!(
                    "CRD {} has no schema for version {version:?}",
                    crd.metadata.name
                )
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
        let internal = |e: String| RuleOutcome {
            errors: vec![FieldError::internal(Path::root(), e)],
            warnings: Vec::new(),
        };
        let obj = match Json::from_serde(request.object) {
            Ok(o) => o,
            Err(e) => return internal(e.to_string()),
        };
        let old = match request.old_object.map(Json::from_serde).transpose() {
            Ok(o) => o,
            Err(e) => return internal(e.to_string()),
        };
        let ratchet = match (&old, request.ratcheting) {
            (Some(o), true) => Ratchet::root(Correlation::new(
                obj.clone(),
                o.clone(),
                self.schema.clone(),
            )),
            _ => Ratchet::none(),
        };
        let out = validator.validate(
            &Path::root(),
            &obj,
            old.as_ref(),
            &ratchet,
            RUNTIME_CEL_COST_BUDGET,
        );
        RuleOutcome {
            errors: out.errors,
            warnings: out.warnings,
        }
    }
}
