//! The checks kube-apiserver makes on the CEL rules of a CRD when the CRD is created or updated
//! (`apis/apiextensions/validation/validation.go` and `cel_validation.go`, reference §2.4, §2.6).
//!
//! For every schema node with `x-kubernetes-validations` (children first, as Kubernetes walks):
//! the rule fields (`rule`, `message`, `messageExpression`, `reason`, `fieldPath`), then — when the
//! node and its descendants had no such errors — compilation of every rule with the node's CEL
//! type, the estimated cost of each rule × the node's cardinality against the per-expression
//! limit, transition rules below uncorrelatable ancestors and `optionalOldSelf` on rules without
//! `oldSelf`. Finally the estimated cost of all rules of the schema against the per-CRD limit, with
//! its top contributors.
//!
//! Error paths are those of the internal CRD: `spec.validation.openAPIV3Schema` when every
//! version has the same schema, else `spec.versions[i].schema.openAPIV3Schema`.

use std::collections::HashSet;
use std::sync::Arc;

use crate::crd::CustomResourceDefinition;
use crate::field::{BadValue, FieldError, Path, go_json};
use crate::rules::compile::{CompiledRule, EnvLoader, StoredExpressions, compile_node};
use crate::rules::env::{STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT};
use crate::rules::field_path::valid_field_path;
use crate::rules::unbounded::{Unbounded, missing_bound, unbounded_below};
use crate::schema_props::{JsonSchemaProps, SchemaOrArray, SchemaOrBool, ValidationRule};
use crate::structural::Structural;
use crate::version::KubeVersion;

/// The reasons a rule may name.
const SUPPORTED_REASONS: [&str; 4] = [
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
];

/// One compiled expression and what it is estimated to cost.
#[derive(Clone, Debug)]
pub struct ExpressionCost {
    /// The field path of the expression (`…x-kubernetes-validations[0].rule`).
    pub path: String,
    /// The expression text.
    pub expression: String,
    /// The estimated cost of one evaluation (`None`: no estimate, e.g. the rule did not compile).
    pub max_cost: Option<u64>,
    /// How many times it may run per object (`1` for messageExpressions, which are not
    /// multiplied).
    pub cardinality: u64,
    /// What Kubernetes compares with the per-expression limit: cost × cardinality, saturating.
    pub total: Option<u64>,
    /// The version whose schema holds it (`None` when every version has the same schema).
    pub version: Option<String>,
    /// For an expression whose `total` reaches 1% of the per-CRD limit (the share Kubernetes
    /// names among the top contributors, and above the per-expression limit when it exceeds it):
    /// the unbounded lists, maps and strings that drive its cost
    /// ([`crate::rules::unbounded`]), the node's unbounded ancestors first. Empty otherwise.
    pub unbounded: Vec<Unbounded>,
}

impl ExpressionCost {
    /// Whether `total` exceeds the per-expression limit ([`STATIC_ESTIMATED_COST_LIMIT`], which
    /// Kubernetes enforces on create and on a changed schema).
    pub fn over_limit(&self) -> bool {
        self.total.is_some_and(|t| t > STATIC_ESTIMATED_COST_LIMIT)
    }
}

/// The outcome of checking one CRD.
#[derive(Clone, Debug, Default)]
pub struct CrdReport {
    /// Every error, in Kubernetes' order.
    pub errors: Vec<FieldError>,
    /// Every rule and messageExpression with its estimated cost.
    pub costs: Vec<ExpressionCost>,
}

/// How the CRD is being written.
#[derive(Clone, Debug)]
pub struct CheckOptions<'a> {
    /// The Kubernetes release.
    pub version: KubeVersion,
    /// The CRD being replaced, on update.
    pub old: Option<&'a CustomResourceDefinition>,
}

/// `multiplyWithOverflowGuard`.
fn multiply(cost: u64, cardinality: u64) -> u64 {
    if cost == 0 {
        0
    } else {
        cost.saturating_mul(cardinality)
    }
}

/// `getCostErrorMessage`.
pub fn cost_error_message(cost_name: &str, cost: u64, limit: u64) -> String {
    let factor = cost as f64 / limit as f64;
    let f = if factor > 100.0 {
        "more than 100x".to_string()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    };
    format!(
        "{cost_name} exceeds budget by factor of {f} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )
}

/// Every rule and messageExpression string of a CRD (all versions).
fn expressions_of(crd: &CustomResourceDefinition) -> HashSet<String> {
    fn walk(p: &JsonSchemaProps, out: &mut HashSet<String>, depth: usize) {
        if depth > crate::structural::MAX_SCHEMA_DEPTH {
            return;
        }
        for r in &p.x_validations {
            out.insert(r.rule.clone());
            if !r.message_expression.is_empty() {
                out.insert(r.message_expression.clone());
            }
        }
        for c in children(p) {
            walk(c, out, depth + 1);
        }
    }
    let mut out = HashSet::new();
    for v in &crd.spec.versions {
        if let Some(s) = v.open_api_v3_schema() {
            walk(s, &mut out, 0);
        }
    }
    out
}

/// Every sub-schema of `p`.
fn children(p: &JsonSchemaProps) -> Vec<&JsonSchemaProps> {
    let mut out: Vec<&JsonSchemaProps> = p.properties.values().collect();
    match &p.items {
        Some(SchemaOrArray::Schema(s)) => out.push(s),
        Some(SchemaOrArray::Array(a)) => out.extend(a.iter()),
        None => {}
    }
    if let Some(SchemaOrBool::Schema(s)) = &p.additional_properties {
        out.push(s);
    }
    out.extend(p.all_of.iter().chain(&p.one_of).chain(&p.any_of));
    out.extend(p.not.as_deref());
    out
}

/// Checks the rules of every schema of `crd`.
pub fn check_crd(crd: &CustomResourceDefinition, options: &CheckOptions<'_>) -> CrdReport {
    let stored = match options.old {
        Some(old) => StoredExpressions::Preexisting(expressions_of(old)),
        None => StoredExpressions::None,
    };
    let loader = EnvLoader {
        version: options.version,
        stored,
        extra: Vec::new(),
    };
    let mut report = CrdReport::default();
    let versions = &crd.spec.versions;
    let schemas: Vec<Option<&JsonSchemaProps>> =
        versions.iter().map(|v| v.open_api_v3_schema()).collect();
    let all_same = schemas.windows(2).all(|w| w[0] == w[1]);
    let targets: Vec<(Path, &JsonSchemaProps, Option<&str>)> = if all_same {
        schemas
            .first()
            .copied()
            .flatten()
            .map(|s| {
                vec![(
                    Path::new("spec")
                        .child("validation")
                        .child("openAPIV3Schema"),
                    s,
                    None,
                )]
            })
            .unwrap_or_default()
    } else {
        versions
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let s = v.open_api_v3_schema()?;
                Some((
                    Path::new("spec")
                        .child("versions")
                        .index(i)
                        .child("schema")
                        .child("openAPIV3Schema"),
                    s,
                    Some(v.name.as_str()),
                ))
            })
            .collect()
    };
    for (path, schema, version_name) in targets {
        // On update, per-expression limits are not enforced for schemas that did not change.
        let suppress = options.old.is_some_and(|old| {
            let old_schemas: Vec<&JsonSchemaProps> = match version_name {
                Some(name) => old
                    .version(name)
                    .and_then(|v| v.open_api_v3_schema())
                    .into_iter()
                    .collect(),
                None => old
                    .spec
                    .versions
                    .iter()
                    .filter_map(|v| v.open_api_v3_schema())
                    .collect(),
            };
            old_schemas.contains(&schema)
        });
        let mut walker = Walker {
            loader: &loader,
            with_rules: nodes_with_rules(schema),
            version: version_name,
            suppress_per_expression_cost: suppress,
            total: 0,
            most_expensive: Vec::new(),
            errors: Vec::new(),
            costs: Vec::new(),
        };
        let ctx = NodeContext {
            cardinality: Some(1),
            forbid_old_self: None,
            is_root: true,
            unbounded_ancestors: Vec::new(),
        };
        walker.schema(schema, &path, &ctx, 0);
        let mut errors = walker.errors;
        if walker.total > STATIC_ESTIMATED_CRD_COST_LIMIT {
            for (p, _) in &walker.most_expensive {
                errors.push(FieldError::forbidden(
                    p.clone(),
                    "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
                ));
            }
            errors.push(FieldError::forbidden(
                path.clone(),
                cost_error_message(
                    "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                    walker.total,
                    STATIC_ESTIMATED_CRD_COST_LIMIT,
                ),
            ));
        }
        report.errors.extend(errors);
        report.costs.extend(walker.costs);
    }
    report
}

/// The nodes of `root` that have rules at or below them, among those [`Walker::schema`] visits
/// (properties, `items` and `additionalProperties` schemas, at most
/// [`crate::structural::MAX_SCHEMA_DEPTH`] levels down), by address.
fn nodes_with_rules(root: &JsonSchemaProps) -> HashSet<*const JsonSchemaProps> {
    fn walk(p: &JsonSchemaProps, out: &mut HashSet<*const JsonSchemaProps>, depth: usize) -> bool {
        if depth > crate::structural::MAX_SCHEMA_DEPTH {
            return false;
        }
        let mut below = false;
        if let Some(SchemaOrBool::Schema(ap)) = &p.additional_properties {
            below |= walk(ap, out, depth + 1);
        }
        for prop in p.properties.values() {
            below |= walk(prop, out, depth + 1);
        }
        if let Some(SchemaOrArray::Schema(items)) = &p.items {
            below |= walk(items, out, depth + 1);
        }
        let with_rules = below || !p.x_validations.is_empty();
        if with_rules {
            out.insert(p);
        }
        with_rules
    }
    let mut out = HashSet::new();
    walk(root, &mut out, 0);
    out
}

/// What a node inherits from its ancestors.
#[derive(Clone)]
struct NodeContext {
    /// The product of the ancestors' maxItems/maxProperties (`None`: some ancestor unbounded).
    cardinality: Option<u64>,
    /// The highest uncorrelatable ancestor, below which `oldSelf` is forbidden.
    forbid_old_self: Option<Path>,
    is_root: bool,
    /// The unbounded lists and maps above the node (they make its cardinality unbounded).
    unbounded_ancestors: Vec<Unbounded>,
}

impl NodeContext {
    /// The context of a child of `p` (at `path`).
    fn child(&self, p: &JsonSchemaProps, path: &Path) -> NodeContext {
        let factor = match p.type_.as_deref() {
            Some("object") if p.additional_properties.is_some() => {
                p.max_properties.map(|m| m.max(0) as u64)
            }
            Some("array") => p.max_items.map(|m| m.max(0) as u64),
            _ => Some(1),
        };
        NodeContext {
            cardinality: match (self.cardinality, factor) {
                (Some(c), Some(f)) => Some(multiply(c, f)),
                _ => None,
            },
            forbid_old_self: self.forbid_old_self.clone(),
            is_root: false,
            unbounded_ancestors: match factor {
                Some(_) => self.unbounded_ancestors.clone(),
                None => {
                    let mut above = self.unbounded_ancestors.clone();
                    above.extend(missing_bound(p).map(|missing| Unbounded {
                        path: path.to_string(),
                        missing,
                    }));
                    above
                }
            },
        }
    }

    fn forbidding_old_self(mut self, at: &Path) -> NodeContext {
        if self.forbid_old_self.is_none() {
            self.forbid_old_self = Some(at.clone());
        }
        self
    }
}

struct Walker<'a> {
    loader: &'a EnvLoader,
    /// The nodes the walk reaches that have rules at or below them ([`nodes_with_rules`]); the
    /// walk skips the others, where it has nothing to check.
    with_rules: HashSet<*const JsonSchemaProps>,
    /// The version whose schema is walked (`None`: every version's).
    version: Option<&'a str>,
    suppress_per_expression_cost: bool,
    total: u64,
    /// The top 4 contributors of at least 1% of the CRD limit, most expensive first.
    most_expensive: Vec<(Path, u64)>,
    errors: Vec<FieldError>,
    costs: Vec<ExpressionCost>,
}

/// The rule as the internal Go struct prints (`{"Rule":…}`, fields in declaration order).
fn rule_struct(r: &ValidationRule) -> BadValue {
    let s = |v: &str| go_json(&serde_json::Value::String(v.to_string()));
    let reason = r.reason.as_deref().map_or("null".to_string(), s);
    let optional = r
        .optional_old_self
        .map_or("null".to_string(), |b| b.to_string());
    BadValue::Raw(format!(
        "{{\"Rule\":{},\"Message\":{},\"MessageExpression\":{},\"Reason\":{reason},\"FieldPath\":{},\"OptionalOldSelf\":{optional}}}",
        s(&r.rule),
        s(&r.message),
        s(&r.message_expression),
        s(&r.field_path)
    ))
}

fn has_line_breaks(s: &str) -> bool {
    s.contains(['\n', '\r'])
}

impl Walker<'_> {
    fn observe(&mut self, path: &Path, cost: u64) {
        self.total = self.total.saturating_add(cost);
        if cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100 {
            return;
        }
        self.most_expensive.push((path.clone(), cost));
        self.most_expensive.sort_by_key(|e| std::cmp::Reverse(e.1));
        self.most_expensive.truncate(4);
    }

    /// Whether `p` has rules at or below it, among the nodes the walk visits.
    fn has_rules(&self, p: &JsonSchemaProps) -> bool {
        self.with_rules.contains(&std::ptr::from_ref(p))
    }

    /// Checks `p` at `path`; returns the number of schema (non-CEL) errors at or below it.
    fn schema(
        &mut self,
        p: &JsonSchemaProps,
        path: &Path,
        ctx: &NodeContext,
        depth: usize,
    ) -> usize {
        if depth > crate::structural::MAX_SCHEMA_DEPTH || !self.has_rules(p) {
            return 0;
        }
        let mut schema_errors = 0;
        if let Some(SchemaOrBool::Schema(ap)) = &p.additional_properties
            && self.has_rules(ap)
        {
            schema_errors += self.schema(
                ap,
                &path.child("additionalProperties"),
                &ctx.child(p, path),
                depth + 1,
            );
        }
        let correlatable = matches!(
            p.x_map_type.as_deref(),
            None | Some("granular") | Some("atomic")
        );
        for (name, prop) in &p.properties {
            if !self.has_rules(prop) {
                continue;
            }
            let mut c = ctx.child(p, path);
            if !correlatable {
                c = c.forbidding_old_self(path);
            }
            schema_errors += self.schema(prop, &path.child("properties").key(name), &c, depth + 1);
        }
        if let Some(SchemaOrArray::Schema(items)) = &p.items
            && self.has_rules(items)
        {
            let mut c = ctx.child(p, path);
            if p.x_list_type.as_deref() != Some("map") {
                c = c.forbidding_old_self(path);
            }
            schema_errors += self.schema(items, &path.child("items"), &c, depth + 1);
        }
        schema_errors += self.rules(p, path, ctx, schema_errors);
        schema_errors
    }

    /// The checks of the node's own rules; returns the number of rule-field errors.
    fn rules(
        &mut self,
        p: &JsonSchemaProps,
        path: &Path,
        ctx: &NodeContext,
        errors_below: usize,
    ) -> usize {
        if p.x_validations.is_empty() {
            return 0;
        }
        let base = path.child("x-kubernetes-validations");
        let mut schema_errors = 0;
        for (i, r) in p.x_validations.iter().enumerate() {
            let at = |f: &str| base.index(i).child(f);
            let trimmed_rule = r.rule.trim();
            let trimmed_msg = r.message.trim();
            let mut push = |e: FieldError, n: &mut usize| {
                self.errors.push(e);
                *n += 1;
            };
            if trimmed_rule.is_empty() {
                push(
                    FieldError::required(at("rule"), "rule is not specified"),
                    &mut schema_errors,
                );
            } else if !r.message.is_empty() && trimmed_msg.is_empty() {
                push(
                    FieldError::invalid(
                        at("message"),
                        BadValue::String(r.message.clone()),
                        "message must be non-empty if specified",
                    ),
                    &mut schema_errors,
                );
            } else if has_line_breaks(trimmed_msg) {
                push(
                    FieldError::invalid(
                        at("message"),
                        BadValue::String(r.message.clone()),
                        "message must not contain line breaks",
                    ),
                    &mut schema_errors,
                );
            } else if has_line_breaks(trimmed_rule) && trimmed_msg.is_empty() {
                push(
                    FieldError::required(
                        at("message"),
                        "message must be specified if rule contains line breaks",
                    ),
                    &mut schema_errors,
                );
            }
            if !r.message_expression.is_empty() && r.message_expression.trim().is_empty() {
                push(
                    FieldError::required(
                        at("messageExpression"),
                        "messageExpression must be non-empty if specified",
                    ),
                    &mut schema_errors,
                );
            }
            if let Some(reason) = &r.reason
                && !SUPPORTED_REASONS.contains(&reason.as_str())
            {
                let supported: Vec<String> =
                    SUPPORTED_REASONS.iter().map(|s| s.to_string()).collect();
                push(
                    FieldError::not_supported(
                        at("reason"),
                        BadValue::String(reason.clone()),
                        &supported,
                    ),
                    &mut schema_errors,
                );
            }
            if !r.field_path.is_empty() && r.field_path.trim().is_empty() {
                push(
                    FieldError::invalid(
                        at("fieldPath"),
                        BadValue::String(r.field_path.clone()),
                        "fieldPath must be non-empty if specified",
                    ),
                    &mut schema_errors,
                );
            }
            if has_line_breaks(&r.field_path) {
                push(
                    FieldError::invalid(
                        at("fieldPath"),
                        BadValue::String(r.field_path.clone()),
                        "fieldPath must not contain line breaks",
                    ),
                    &mut schema_errors,
                );
            }
            if !r.field_path.is_empty() {
                let valid = match Structural::from_props(p) {
                    Ok(s) => valid_field_path(&r.field_path, &Arc::new(s)).is_ok(),
                    Err(_) => true,
                };
                if !valid {
                    push(
                        FieldError::invalid(
                            at("fieldPath"),
                            BadValue::String(r.field_path.clone()),
                            "must be a valid path",
                        ),
                        &mut schema_errors,
                    );
                }
            }
        }
        if schema_errors > 0 || errors_below > 0 {
            return schema_errors;
        }
        self.compile_and_check(p, path, &base, ctx);
        0
    }

    fn compile_and_check(
        &mut self,
        p: &JsonSchemaProps,
        path: &Path,
        base: &Path,
        ctx: &NodeContext,
    ) {
        let internal = |detail: String| FieldError::internal(base.clone(), detail);
        let schema = match Structural::from_props(p) {
            Ok(s) => Arc::new(s),
            Err(e) => {
                self.errors.push(internal(format!(
                    "internal error: failed to construct type information for x-kubernetes-validations rules: {e}"
                )));
                return;
            }
        };
        let is_root = ctx.is_root || p.x_embedded_resource;
        let results = match compile_node(&schema, &p.x_validations, is_root, self.loader) {
            Ok(r) => r,
            Err(e) => {
                self.errors.push(internal(format!(
                    "internal error: failed to construct type information for x-kubernetes-validations rules: {e}"
                )));
                return;
            }
        };
        for (i, (cr, r)) in results.iter().zip(&p.x_validations).enumerate() {
            self.check_result(cr, r, &base.index(i), ctx, p, path);
        }
    }

    fn check_result(
        &mut self,
        cr: &CompiledRule,
        r: &ValidationRule,
        at: &Path,
        ctx: &NodeContext,
        node: &JsonSchemaProps,
        node_path: &Path,
    ) {
        let rule_path = at.child("rule");
        let hints = |total: Option<u64>, expression: &str, ancestors: &[Unbounded]| {
            if total.unwrap_or(0) < STATIC_ESTIMATED_CRD_COST_LIMIT / 100 {
                return Vec::new();
            }
            let mut found = ancestors.to_vec();
            found.extend(unbounded_below(node, node_path, expression));
            found
        };
        let cardinality = ctx.cardinality.unwrap_or(cr.max_cardinality);
        let expression_cost = cr.max_cost.map(|c| multiply(c, cardinality));
        let cost = expression_cost.unwrap_or(0);
        if !self.suppress_per_expression_cost && cost > STATIC_ESTIMATED_COST_LIMIT {
            self.errors.push(FieldError::forbidden(
                rule_path.clone(),
                cost_error_message("estimated rule cost", cost, STATIC_ESTIMATED_COST_LIMIT),
            ));
        }
        self.observe(&rule_path, cost);
        if !r.rule.trim().is_empty() {
            self.costs.push(ExpressionCost {
                path: rule_path.to_string(),
                expression: r.rule.clone(),
                max_cost: cr.max_cost,
                cardinality,
                total: expression_cost,
                version: self.version.map(str::to_string),
                unbounded: hints(expression_cost, &r.rule, &ctx.unbounded_ancestors),
            });
        }
        if let Some(e) = &cr.error {
            self.errors.push(FieldError::invalid(
                rule_path.clone(),
                rule_struct(r),
                e.to_string(),
            ));
        }
        let msg_path = at.child("messageExpression");
        if let Some(e) = &cr.message_expression_error {
            self.errors
                .push(FieldError::invalid(msg_path, rule_struct(r), e.to_string()));
        } else if cr.message_expression.is_some() {
            let c = cr.message_expression_max_cost.unwrap_or(0);
            if !self.suppress_per_expression_cost && c > STATIC_ESTIMATED_COST_LIMIT {
                self.errors.push(FieldError::forbidden(
                    msg_path.clone(),
                    cost_error_message(
                        "estimated messageExpression cost",
                        c,
                        STATIC_ESTIMATED_COST_LIMIT,
                    ),
                ));
            }
            self.observe(&msg_path, c);
            self.costs.push(ExpressionCost {
                path: msg_path.to_string(),
                expression: r.message_expression.clone(),
                max_cost: cr.message_expression_max_cost,
                cardinality: 1,
                total: cr.message_expression_max_cost,
                version: self.version.map(str::to_string),
                unbounded: hints(cr.message_expression_max_cost, &r.message_expression, &[]),
            });
        }
        if cr.uses_old_self {
            if let Some(forbidden_at) = &ctx.forbid_old_self {
                self.errors.push(FieldError::invalid(
                    rule_path,
                    BadValue::String(r.rule.clone()),
                    format!(
                        "oldSelf cannot be used on the uncorrelatable portion of the schema within {forbidden_at}"
                    ),
                ));
            }
        } else if let Some(b) = r.optional_old_self {
            self.errors.push(FieldError::invalid(
                at.child("optionalOldSelf"),
                BadValue::Bool(b),
                "may not be set if oldSelf is not used in rule",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(schema: serde_json::Value) -> CustomResourceDefinition {
        serde_json::from_value(json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "names": {"plural": "widgets", "kind": "Widget"}, "scope": "Namespaced",
                "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema}}]}
        }))
        .expect("crd")
    }

    fn errors(schema: serde_json::Value) -> Vec<String> {
        let report = check_crd(
            &crd(schema),
            &CheckOptions {
                version: KubeVersion::NEWEST,
                old: None,
            },
        );
        report.errors.iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn cost_messages_format_like_go() {
        assert!(cost_error_message("x", 10_000_001, 10_000_000).contains("factor of 1.000000x"));
        assert!(cost_error_message("x", 25_000_000, 10_000_000).contains("factor of 2.5x"));
        assert!(cost_error_message("x", u64::MAX, 10_000_000).contains("factor of more than 100x"));
    }

    #[test]
    fn reports_rule_field_compile_and_transition_errors() {
        let e = errors(json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "list": {"type": "array", "items": {"type": "string", "maxLength": 10,
                    "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}, "maxItems": 5},
                "n": {"type": "integer", "x-kubernetes-validations": [
                    {"rule": "self > ", "message": "bad"},
                    {"rule": "self > 0", "optionalOldSelf": true},
                    {"rule": "self > 0", "reason": "Nope"},
                    {"rule": "self > 0", "message": " "}
                ]}
            }}
        }}));
        let base = "spec.validation.openAPIV3Schema.properties[spec]";
        assert_eq!(
            e,
            vec![
                format!(
                    "{base}.properties[list].items.x-kubernetes-validations[0].rule: Invalid value: \"self == oldSelf\": oldSelf cannot be used on the uncorrelatable portion of the schema within {base}.properties[list]"
                ),
                format!(
                    "{base}.properties[n].x-kubernetes-validations[2].reason: Unsupported value: \"Nope\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\""
                ),
                format!(
                    "{base}.properties[n].x-kubernetes-validations[3].message: Invalid value: \" \": message must be non-empty if specified"
                ),
            ]
        );
        // Without the rule-field errors the rules compile, and their errors show.
        let e = errors(json!({"type": "object", "properties": {
            "n": {"type": "integer", "x-kubernetes-validations": [
                {"rule": "self > ", "message": "bad"},
                {"rule": "self > 0", "optionalOldSelf": true}
            ]}
        }}));
        assert_eq!(e.len(), 2, "{e:#?}");
        assert!(e[0].starts_with("spec.validation.openAPIV3Schema.properties[n].x-kubernetes-validations[0].rule: Invalid value: {\"Rule\":\"self \\u003e \",\"Message\":\"bad\",\"MessageExpression\":\"\",\"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}: compilation failed: ERROR: <input>:1:8:"), "{}", e[0]);
        assert_eq!(
            e[1],
            "spec.validation.openAPIV3Schema.properties[n].x-kubernetes-validations[1].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule"
        );
    }

    #[test]
    fn unbounded_rules_exceed_the_budgets() {
        let e = errors(json!({"type": "object", "properties": {
            "tags": {"type": "array", "items": {"type": "string"},
                "x-kubernetes-validations": [{"rule": "self.all(x, x.contains('gpu'))"}]}
        }}));
        let rule =
            "spec.validation.openAPIV3Schema.properties[tags].x-kubernetes-validations[0].rule";
        assert_eq!(
            e,
            vec![
                format!("{rule}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"),
                format!("{rule}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"),
                "spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)".to_string(),
            ]
        );
    }

    #[test]
    fn expensive_rules_name_their_unbounded_declarations() {
        let c = crd(json!({"type": "object", "properties": {
            "groups": {"type": "array", "items": {"type": "object", "properties": {
                "tags": {"type": "array", "items": {"type": "string"},
                    "x-kubernetes-validations": [{"rule": "self.all(x, x.contains('gpu'))"}]},
                "note": {"type": "string"}
            }}},
            "bounded": {"type": "array", "maxItems": 2, "items": {"type": "string", "maxLength": 4},
                "x-kubernetes-validations": [{"rule": "self.all(x, x.contains('gpu'))"}]}
        }}));
        let report = check_crd(
            &c,
            &CheckOptions {
                version: KubeVersion::default(),
                old: None,
            },
        );
        let base = "spec.validation.openAPIV3Schema.properties";
        let hints: Vec<Vec<String>> = report
            .costs
            .iter()
            .map(|c| {
                c.unbounded
                    .iter()
                    .map(|u| format!("{} {}", u.path, u.missing.keyword()))
                    .collect()
            })
            .collect();
        assert_eq!(
            hints,
            vec![
                vec![
                    format!("{base}[groups] maxItems"),
                    format!("{base}[groups].items.properties[tags] maxItems"),
                    format!("{base}[groups].items.properties[tags].items maxLength"),
                ],
                vec![],
            ]
        );
        assert!(report.costs[0].over_limit());
        assert!(!report.costs[1].over_limit());
    }
}
