//! What the server checks when a policy or binding is created, as far as its expressions and
//! actions go (`pkg/apis/admissionregistration/validation/validation.go`:
//! `validateValidatingAdmissionPolicySpec`, `validateVariable`, `validateValidation`,
//! `validateMatchCondition`, `validateAuditAnnotation`, `validateValidationActions`). Every
//! expression of a new policy is compiled in the new-expressions view; a policy without
//! variables is compiled without `variables` (`createCompiler(needsComposition: false)`), and
//! matchConditions always are (the stateless compiler).
//!
//! Not checked here: metadata, label selectors, the rules' own syntax, `paramKind` syntax.

use super::environment::{Compiler, Optional, ReturnTypes};
use super::model::{ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidationAction};
use crate::escaping::is_reserved;
use crate::field::{BadValue, FieldError, Path};
use crate::name_validation::is_qualified_name;
use crate::rules::EnvKind;
use crate::version::KubeVersion;

/// `maxAuditAnnotations`.
pub const MAX_AUDIT_ANNOTATIONS: usize = 20;
/// `maxAuditAnnotationValueExpressionLength`.
pub const MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH: usize = 5 * 1024;
/// The most matchConditions of a policy.
pub const MAX_MATCH_CONDITIONS: usize = 64;
/// `supportedValidationPolicyReason`, sorted.
const SUPPORTED_REASONS: [&str; 4] = [
    "Forbidden",
    "Invalid",
    "RequestEntityTooLarge",
    "Unauthorized",
];

fn string(s: &str) -> BadValue {
    BadValue::String(s.to_string())
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

fn compiled(
    compiler: &Compiler,
    expression: &str,
    shown: &str,
    returns: ReturnTypes,
    optional: Optional,
    path: Path,
) -> Option<FieldError> {
    compiler
        .compile(expression, returns, optional)
        .err()
        .map(|e| FieldError::invalid(path, string(shown), e.to_string()))
}

/// `ValidateValidatingAdmissionPolicy` (the expression and spec checks listed above).
pub fn validate_policy(p: &ValidatingAdmissionPolicy, version: KubeVersion) -> Vec<FieldError> {
    let spec_path = Path::new("spec");
    let mut errs = Vec::new();
    let spec = &p.spec;
    let has_params = spec.param_kind.is_some();
    let optional = Optional {
        params: has_params,
        authorizer: true,
        patch_types: false,
    };
    let kind = EnvKind::NewExpressions;
    let mut compiler = if spec.variables.is_empty() {
        Compiler::stateless(version, kind)
    } else {
        Compiler::new(version, kind)
    };
    match &spec.match_constraints {
        None => errs.push(FieldError::required(
            spec_path.child("matchConstraints"),
            "",
        )),
        Some(m) if m.resource_rules.is_empty() => errs.push(FieldError::required(
            spec_path.child("matchConstraints").child("resourceRules"),
            "",
        )),
        Some(_) => {}
    }
    let conditions = spec_path.child("matchConditions");
    if spec.match_conditions.len() > MAX_MATCH_CONDITIONS {
        errs.push(FieldError::too_many(
            conditions.clone(),
            spec.match_conditions.len() as i64,
            MAX_MATCH_CONDITIONS as i64,
        ));
    }
    let stateless = Compiler::stateless(version, kind);
    let mut names: Vec<&str> = Vec::new();
    for (i, m) in spec.match_conditions.iter().enumerate() {
        let at = conditions.index(i);
        let trimmed = m.expression.trim();
        if trimmed.is_empty() {
            errs.push(FieldError::required(at.child("expression"), ""));
        } else {
            errs.extend(compiled(
                &stateless,
                trimmed,
                trimmed,
                ReturnTypes::Bool,
                optional,
                at.child("expression"),
            ));
        }
        if m.name.is_empty() {
            errs.push(FieldError::required(at.child("name"), ""));
        } else {
            errs.extend(qualified_name(&m.name, &at.child("name")));
            if names.contains(&m.name.as_str()) {
                errs.push(FieldError::duplicate(at.child("name"), string(&m.name)));
            }
            names.push(&m.name);
        }
    }
    for (i, v) in spec.variables.iter().enumerate() {
        let at = spec_path.child("variables").index(i);
        if v.name.trim().is_empty() {
            errs.push(FieldError::required(
                at.child("name"),
                "name is not specified",
            ));
        } else if !is_cel_identifier(&v.name) {
            errs.push(FieldError::invalid(
                at.child("name"),
                string(&v.name),
                "name is not a valid CEL identifier",
            ));
        }
        if v.expression.trim().is_empty() {
            errs.push(FieldError::required(
                at.child("expression"),
                "expression is not specified",
            ));
        } else if let Err(e) = compiler.compile_variable(&v.name, &v.expression, optional) {
            errs.push(FieldError::invalid(
                at.child("expression"),
                string(&v.expression),
                e.to_string(),
            ));
        }
    }
    if spec.validations.is_empty() && spec.audit_annotations.is_empty() {
        let why = "validations or auditAnnotations must contain at least one item";
        errs.push(FieldError::required(spec_path.child("validations"), why));
        errs.push(FieldError::required(
            spec_path.child("auditAnnotations"),
            why,
        ));
        return errs;
    }
    for (i, v) in spec.validations.iter().enumerate() {
        let at = spec_path.child("validations").index(i);
        if v.expression.trim().is_empty() {
            errs.push(FieldError::required(
                at.child("expression"),
                "expression is not specified",
            ));
        } else {
            errs.extend(compiled(
                &compiler,
                &v.expression,
                &v.expression,
                ReturnTypes::Bool,
                optional,
                at.child("expression"),
            ));
        }
        if !v.message_expression.is_empty() && v.message_expression.trim().is_empty() {
            errs.push(FieldError::invalid(
                at.child("messageExpression"),
                string(&v.message_expression),
                "must be non-empty if specified",
            ));
        } else if !v.message_expression.trim().is_empty() {
            let message_optional = Optional {
                params: has_params,
                authorizer: false,
                patch_types: false,
            };
            errs.extend(compiled(
                &compiler,
                &v.message_expression,
                &v.message_expression,
                ReturnTypes::String,
                message_optional,
                at.child("messageExpression"),
            ));
        }
        let trimmed = v.message.trim();
        if !v.message.is_empty() && trimmed.is_empty() {
            errs.push(FieldError::invalid(
                at.child("message"),
                string(&v.message),
                "message must be non-empty if specified",
            ));
        } else if trimmed.contains(['\n', '\r']) {
            errs.push(FieldError::invalid(
                at.child("message"),
                string(&v.message),
                "message must not contain line breaks",
            ));
        }
        if let Some(r) = &v.reason
            && !SUPPORTED_REASONS.contains(&r.as_str())
        {
            let supported: Vec<String> = SUPPORTED_REASONS.iter().map(|s| s.to_string()).collect();
            errs.push(FieldError::not_supported(
                at.child("reason"),
                string(r),
                &supported,
            ));
        }
    }
    let mut keys: Vec<&str> = Vec::new();
    for (i, a) in spec.audit_annotations.iter().enumerate() {
        let at = spec_path.child("auditAnnotations").index(i);
        if p.metadata.name.is_empty() {
            errs.push(FieldError::invalid(
                at.child("key"),
                string(&a.key),
                "requires metadata.name be non-empty",
            ));
        } else {
            errs.extend(qualified_name(
                &format!("{}/{}", p.metadata.name, a.key),
                &at.child("key"),
            ));
        }
        let trimmed = a.value_expression.trim();
        if trimmed.is_empty() {
            errs.push(FieldError::required(
                at.child("valueExpression"),
                "valueExpression is not specified",
            ));
        } else if trimmed.len() > MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH {
            errs.push(FieldError::required(
                at.child("valueExpression"),
                format!(
                    "must not exceed {MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH} bytes in length"
                ),
            ));
        } else {
            errs.extend(compiled(
                &compiler,
                trimmed,
                &a.value_expression,
                ReturnTypes::StringOrNull,
                optional,
                at.child("valueExpression"),
            ));
        }
        if keys.contains(&a.key.as_str()) {
            errs.push(FieldError::duplicate(at.child("key"), string(&a.key)));
        }
        keys.push(&a.key);
    }
    errs
}

/// `validateValidatingAdmissionPolicyBindingSpec` (policy name and validation actions).
pub fn validate_binding(b: &ValidatingAdmissionPolicyBinding) -> Vec<FieldError> {
    let spec_path = Path::new("spec");
    let mut errs = Vec::new();
    if b.spec.policy_name.is_empty() {
        errs.push(FieldError::required(spec_path.child("policyName"), ""));
    }
    let at = spec_path.child("validationActions");
    let actions = &b.spec.validation_actions;
    let name = |a: &ValidationAction| format!("{a:?}");
    for (i, a) in actions.iter().enumerate() {
        if actions[..i].contains(a) {
            errs.push(FieldError::duplicate(at.index(i), string(&name(a))));
        }
    }
    if actions.contains(&ValidationAction::Deny) && actions.contains(&ValidationAction::Warn) {
        let listed: Vec<String> = actions.iter().map(|a| format!("{:?}", name(a))).collect();
        errs.push(FieldError::invalid(
            at.clone(),
            BadValue::Raw(format!("[]admissionregistration.ValidationAction{{{}}}", listed.join(", "))),
            "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
        ));
    }
    if actions.is_empty() {
        errs.push(FieldError::required(
            at,
            "at least one validation action is required",
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn policy(spec: serde_json::Value) -> ValidatingAdmissionPolicy {
        serde_json::from_value(json!({"metadata": {"name": "p"}, "spec": spec})).expect("policy")
    }

    #[test]
    fn expressions_are_compiled_with_the_servers_texts() {
        let p = policy(json!({
            "matchConstraints": {"resourceRules": [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}]},
            "validations": [{"expression": "object.x"}, {"expression": "variables.a"}],
        }));
        let errs = validate_policy(&p, KubeVersion::NEWEST);
        let texts: Vec<String> = errs
            .iter()
            .map(|e| format!("{}: {}", e.path, e.body()))
            .collect();
        assert_eq!(
            texts[0],
            "spec.validations[0].expression: Invalid value: \"object.x\": must evaluate to bool but got dyn"
        );
        assert!(
            texts[1].starts_with("spec.validations[1].expression: Invalid value: \"variables.a\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables'"),
            "{}",
            texts[1]
        );
        assert_eq!(texts.len(), 2);
    }

    #[test]
    fn bindings_need_one_action() {
        let b: ValidatingAdmissionPolicyBinding =
            serde_json::from_value(json!({"spec": {"policyName": "p"}})).expect("binding");
        let errs = validate_binding(&b);
        assert_eq!(
            errs[0].body(),
            "Required value: at least one validation action is required"
        );
    }
}
