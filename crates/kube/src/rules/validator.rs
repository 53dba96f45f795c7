//! Validating objects with the rules of a schema (`schema/cel/validation.go` `Validator`,
//! reference §3).
//!
//! A [`SchemaRules`] mirrors the structural schema, keeping only the nodes with rules at or below
//! them, each with its compiled rules. [`SchemaRules::validate`] walks an object (and its old value
//! on update): a node's rules in declaration order, then its children — list elements in order,
//! map values, then declared properties present in the object — threading one cost budget through
//! the whole walk and stopping as soon as it is spent.

use std::sync::Arc;

use cel::{ErrorKind, EvalOptions, Value};

use super::compile::{
    CompiledRule, EnvLoader, NodeError, OLD_SCOPED_VAR_NAME, SCOPED_VAR_NAME,
    compile_node_with_type,
};
use super::env::{MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES, PER_CALL_LIMIT};
use super::ratchet::Ratchet;
use crate::correlation::MapList;
use crate::decl::{DeclKind, DeclType};
use crate::escaping;
use crate::field::{BadValue, FieldError, Path};
use crate::go::fmt::quote;
use crate::schema_props::{SchemaLookup, SchemaMap};
use crate::structural::Structural;
use crate::values::{self, Json};

/// The rules of one schema node and the validators of its children.
pub struct SchemaRules {
    schema: Arc<Structural>,
    is_resource_root: bool,
    rules: Vec<CompiledRule>,
    /// Why the node's rules could not be compiled at all.
    setup_error: Option<NodeError>,
    uses_old_self: bool,
    per_call_limit: u64,
    items: Option<Box<SchemaRules>>,
    properties: SchemaMap<SchemaRules>,
    additional_properties: Option<Box<SchemaRules>>,
    /// Rules inside `allOf` entries, validated against this same node.
    all_of: Vec<SchemaRules>,
}

/// What validating one object produced.
#[derive(Clone, Debug, Default)]
pub struct RuleFindings {
    /// The errors found.
    pub errors: Vec<FieldError>,
    /// Ratcheted rule failures, as the API server returns them in `Warning` headers.
    pub warnings: Vec<String>,
    /// What kube-apiserver only logs: messageExpression failures that fell back to the message.
    pub log: Vec<String>,
    /// The budget left; negative when validation stopped early.
    pub remaining_budget: i64,
}

/// The `allOf` entries of `s` as structural schemas (entries that have none are ignored).
fn all_of(s: &Structural) -> Vec<Structural> {
    s.value_validation
        .as_deref()
        .map(|v| {
            v.all_of
                .iter()
                .filter_map(|p| Structural::from_props(p).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether any node of `s` (including `allOf` entries) has rules.
fn has_rules(s: &Structural) -> bool {
    !s.extensions.validations.is_empty()
        || s.items.as_deref().is_some_and(has_rules)
        || s.properties.values().any(|p| has_rules(p))
        || s.additional_properties_schema()
            .is_some_and(|a| has_rules(a))
        || all_of(s).iter().any(has_rules)
}

impl SchemaRules {
    /// The validator of a schema, compiled with `loader`'s environments (`None` when the schema
    /// has no rules). `is_resource_root` is true for the custom resource itself.
    pub fn new(
        schema: &Arc<Structural>,
        is_resource_root: bool,
        loader: &EnvLoader,
        per_call_limit: u64,
    ) -> Option<SchemaRules> {
        if !has_rules(schema) {
            return None;
        }
        let decl = DeclType::from_schema(schema, is_resource_root, "object");
        let b = Builder {
            loader,
            per_call_limit,
        };
        b.build(schema, schema, is_resource_root, decl.as_ref(), true, 0)
    }

    /// A validator as kube-apiserver builds it for a custom resource: stored expressions, the
    /// default per-call limit.
    pub fn for_resource(schema: &Arc<Structural>, loader: &EnvLoader) -> Option<SchemaRules> {
        SchemaRules::new(schema, true, loader, PER_CALL_LIMIT)
    }

    /// Every compiled rule of the tree with the schema path of its node (for listings).
    pub fn rules(&self) -> Vec<(&CompiledRule, String)> {
        let mut out = Vec::new();
        self.collect_rules("", &mut out);
        out
    }

    fn collect_rules<'a>(&'a self, at: &str, out: &mut Vec<(&'a CompiledRule, String)>) {
        out.extend(self.rules.iter().map(|r| (r, at.to_string())));
        for a in &self.all_of {
            a.collect_rules(at, out);
        }
        if let Some(i) = &self.items {
            i.collect_rules(&format!("{at}[*]"), out);
        }
        if let Some(a) = &self.additional_properties {
            a.collect_rules(&format!("{at}[*]"), out);
        }
        for (k, v) in &self.properties {
            let p = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            v.collect_rules(&p, out);
        }
    }

    /// Validates `obj` (and, on update, its old value `old`) starting at `path` with `budget`.
    /// With `ratcheting` (KEP-4008) on an update, failures of rules not using `oldSelf` on
    /// unchanged nodes become warnings.
    pub fn validate(
        &self,
        path: &Path,
        obj: &Json,
        old: Option<&Json>,
        ratcheting: bool,
        budget: i64,
    ) -> RuleFindings {
        let ratchet = match old {
            Some(o) if ratcheting => Ratchet::root(obj, o, &self.schema),
            _ => Ratchet::none(),
        };
        let mut out = RuleFindings::default();
        out.remaining_budget =
            self.walk(&mut out, &Trail::Root(path), obj, old, &ratchet, budget, 0);
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn walk(
        &self,
        out: &mut RuleFindings,
        path: &Trail<'_>,
        obj: &Json,
        old: Option<&Json>,
        ratchet: &Ratchet<'_>,
        budget: i64,
        depth: usize,
    ) -> i64 {
        if matches!(obj, Json::Null) || depth > values::MAX_CEL_DOCUMENT_DEPTH {
            return budget;
        }
        let old = old.filter(|o| !matches!(o, Json::Null));
        let mut budget = self.validate_rules(out, path, obj, old, ratchet, budget);
        if budget < 0 {
            return budget;
        }
        for a in &self.all_of {
            budget = a.walk(
                out,
                path,
                obj,
                old,
                &ratchet.for_all_of(),
                budget,
                depth + 1,
            );
            if budget < 0 {
                return budget;
            }
        }
        match obj {
            Json::Array(items) => {
                let Some(v) = &self.items else {
                    return budget;
                };
                let old_items = match old {
                    Some(Json::Array(o)) if self.schema.list_type() == "map" => {
                        Some(MapList::new(&*self.schema, o))
                    }
                    _ => None,
                };
                for (i, item) in items.iter().enumerate() {
                    let old_item = old_items
                        .as_ref()
                        .and_then(|ix| ix.get(&*self.schema, item));
                    budget = v.walk(
                        out,
                        &Trail::Index(path, i),
                        item,
                        old_item,
                        &ratchet.index(i),
                        budget,
                        depth + 1,
                    );
                    if budget < 0 {
                        return budget;
                    }
                }
            }
            Json::Object(map) => {
                let correlatable = matches!(
                    self.schema.extensions.map_type.as_deref(),
                    None | Some("granular") | Some("atomic")
                );
                let old_map = match old {
                    Some(Json::Object(o)) if correlatable => Some(o),
                    _ => None,
                };
                if let Some(v) = &self.additional_properties {
                    for (k, value) in map.iter() {
                        let old_v = old_map.and_then(|o| o.get(k));
                        budget = v.walk(
                            out,
                            &Trail::Key(path, k),
                            value,
                            old_v,
                            &ratchet.key(k),
                            budget,
                            depth + 1,
                        );
                        if budget < 0 {
                            return budget;
                        }
                    }
                }
                if !self.properties.is_empty() {
                    for (k, value) in map.iter() {
                        let Some(v) = self.properties.lookup(k) else {
                            continue;
                        };
                        let old_v = old_map.and_then(|o| o.get(k));
                        budget = v.walk(
                            out,
                            &Trail::Child(path, k),
                            value,
                            old_v,
                            &ratchet.key(k),
                            budget,
                            depth + 1,
                        );
                        if budget < 0 {
                            return budget;
                        }
                    }
                }
            }
            _ => {}
        }
        budget
    }

    fn schema_type(&self) -> BadValue {
        BadValue::schema_type(self.schema.type_())
    }

    /// The CEL value of a node of this schema.
    fn cel_value(&self, v: &Json) -> Result<Value, values::ValueError> {
        if self.is_resource_root {
            values::root_value(v, &self.schema)
        } else {
            values::to_value(v, &self.schema)
        }
    }

    fn validate_rules(
        &self,
        out: &mut RuleFindings,
        trail: &Trail<'_>,
        obj: &Json,
        old: Option<&Json>,
        ratchet: &Ratchet<'_>,
        budget: i64,
    ) -> i64 {
        let mut remaining = budget;
        if self.setup_error.is_none() && self.rules.is_empty() {
            return remaining;
        }
        // The node's field path, built once an error is reported.
        let mut path_cell = None;
        let mut path = || -> Path { path_cell.get_or_insert_with(|| trail.path()).clone() };
        if let Some(e) = &self.setup_error {
            out.errors.push(FieldError::invalid(
                path(),
                self.schema_type(),
                format!("rule compiler initialization error: {e}"),
            ));
            return remaining;
        }
        if self.rules.is_empty() {
            return remaining;
        }
        if remaining <= 0 {
            out.errors.push(FieldError::invalid(
                path(),
                self.schema_type(),
                "validation failed due to running out of cost budget, no further validation rules will be run",
            ));
            return -1;
        }
        let (self_value, self_error) = split(self.cel_value(obj));
        let (old_self, old_error) = match (self.uses_old_self, old) {
            (true, Some(o)) => split(self.cel_value(o)),
            _ => (None, None),
        };
        let conversion_error = self_error.or(old_error);
        let activation = RuleActivation {
            self_value,
            old_self,
        };
        // `oldSelf` as an optional, for the rules with `optionalOldSelf`: built on first use.
        let mut optional_activation: Option<RuleActivation> = None;
        let options = EvalOptions {
            track_cost: true,
            cost_limit: Some(self.per_call_limit),
            ..EvalOptions::default()
        };
        for compiled in &self.rules {
            let rule = &compiled.rule;
            if let Some(e) = &compiled.error {
                out.errors.push(FieldError::invalid(
                    path(),
                    self.schema_type(),
                    format!("rule compile error: {e}"),
                ));
                continue;
            }
            let Some(program) = &compiled.program else {
                continue;
            };
            let optional_old_self = rule.optional_old_self == Some(true);
            if compiled.uses_old_self && old.is_none() && !optional_old_self {
                continue;
            }
            if let Some(e) = &conversion_error {
                out.errors.push(FieldError::invalid(
                    path(),
                    self.schema_type(),
                    format!("{e} evaluating rule: {}", rule_error_string(rule)),
                ));
                continue;
            }
            let act = if optional_old_self {
                optional_activation.get_or_insert_with(|| activation.with_optional_old_self())
            } else {
                &activation
            };
            let ev = program.eval_with(act, &options);
            let cost = ev.cost.unwrap_or(0);
            if cost > i64::MAX as u64 || cost as i64 > remaining {
                out.errors.push(FieldError::invalid(
                    path(),
                    self.schema_type(),
                    "validation failed due to running out of cost budget, no further validation rules will be run",
                ));
                return -1;
            }
            remaining -= cost as i64;
            let value = match ev.value {
                Ok(v) => v,
                Err(e) => {
                    let rs = rule_error_string(rule);
                    let (detail, stop) = match e.kind() {
                        ErrorKind::NoSuchOverload => (
                            format!(
                                "'{e}': call arguments did not match a supported operator, function or macro signature for rule: {rs}"
                            ),
                            false,
                        ),
                        ErrorKind::CostLimitExceeded => (
                            format!(
                                "'{e}': no further validation rules will be run due to call cost exceeds limit for rule: {rs}"
                            ),
                            true,
                        ),
                        _ => (format!("{e} evaluating rule: {rs}"), false),
                    };
                    out.errors
                        .push(FieldError::invalid(path(), self.schema_type(), detail));
                    if stop {
                        return -1;
                    }
                    continue;
                }
            };
            if matches!(value, Value::Bool(true)) {
                continue;
            }
            let current_path = if compiled.normalized_field_path.is_empty() {
                path()
            } else {
                path().child(&compiled.normalized_field_path)
            };
            let ratchets = !compiled.uses_old_self && ratchet.should_ratchet();
            let add = |out: &mut RuleFindings, e: FieldError| {
                if ratchets {
                    out.warnings.push(e.to_string());
                } else {
                    out.errors.push(e);
                }
            };
            let mut detail = None;
            if let Some(msg_program) = &compiled.message_expression {
                let ev = msg_program.eval_with(&activation, &options);
                let cost = ev.cost.unwrap_or(0);
                let src = &rule.message_expression;
                if cost > i64::MAX as u64 || cost as i64 > remaining {
                    add(
                        out,
                        FieldError::invalid(
                            current_path,
                            self.schema_type(),
                            "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run",
                        ),
                    );
                    return -1;
                }
                match message_text(ev.value, src) {
                    MessageOutcome::Text(t) => detail = Some(t),
                    MessageOutcome::CostLimit => {
                        add(
                            out,
                            FieldError::invalid(
                                current_path,
                                self.schema_type(),
                                format!(
                                    "no further validation rules will be run due to call cost exceeds limit for messageExpression: {}",
                                    quote(src)
                                ),
                            ),
                        );
                        return -1;
                    }
                    MessageOutcome::Fallback(log) => out.log.push(log),
                }
                remaining -= cost as i64;
            }
            let detail = detail.unwrap_or_else(|| rule_message_or_default(rule));
            let value = BadValue::of_rule_subject(obj);
            let e = match rule.reason.as_deref() {
                Some("FieldValueForbidden") => FieldError::forbidden(current_path, detail),
                Some("FieldValueRequired") => FieldError::required(current_path, detail),
                Some("FieldValueDuplicate") => FieldError::duplicate(current_path, value),
                _ => FieldError::invalid(current_path, value, detail),
            };
            add(out, e);
        }
        remaining
    }
}

/// The result of a messageExpression.
enum MessageOutcome {
    Text(String),
    /// Stop validation: the per-call limit was hit.
    CostLimit,
    /// Fall back to the message; the text is what kube-apiserver logs.
    Fallback(String),
}

fn message_text(v: cel::EvalResult, _src: &str) -> MessageOutcome {
    let v = match v {
        Ok(v) => v,
        Err(e) if e.kind() == ErrorKind::CostLimitExceeded => return MessageOutcome::CostLimit,
        Err(e) => {
            return MessageOutcome::Fallback(format!(
                "messageExpression evaluation failed due to: {e}"
            ));
        }
    };
    let Value::String(s) = v else {
        return MessageOutcome::Fallback("messageExpression failed to convert to string".into());
    };
    let t = s.trim();
    if t.len() > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES {
        MessageOutcome::Fallback(format!(
            "messageExpression beyond allowable length of {MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES}"
        ))
    } else if t.contains('\n') {
        MessageOutcome::Fallback("messageExpression should not contain line breaks".into())
    } else if t.is_empty() {
        MessageOutcome::Fallback("messageExpression should evaluate to a non-empty string".into())
    } else {
        MessageOutcome::Text(t.to_string())
    }
}

/// The trimmed message if set, else the trimmed rule.
fn rule_error_string(rule: &crate::schema_props::ValidationRule) -> &str {
    if !rule.message.is_empty() {
        rule.message.trim()
    } else {
        rule.rule.trim()
    }
}

/// The detail of a failed rule without messageExpression.
fn rule_message_or_default(rule: &crate::schema_props::ValidationRule) -> String {
    if rule.message.is_empty() {
        format!("failed rule: {}", rule_error_string(rule))
    } else {
        rule.message.trim().to_string()
    }
}

/// A value, or why there is none.
fn split<E>(r: Result<Value, E>) -> (Option<Value>, Option<E>) {
    match r {
        Ok(v) => (Some(v), None),
        Err(e) => (None, Some(e)),
    }
}

/// `self` and `oldSelf` of one node.
struct RuleActivation {
    self_value: Option<Value>,
    old_self: Option<Value>,
}

impl RuleActivation {
    /// The same bindings with `oldSelf` as an optional (`optionalOldSelf` rules).
    fn with_optional_old_self(&self) -> RuleActivation {
        RuleActivation {
            self_value: self.self_value.clone(),
            old_self: Some(match &self.old_self {
                Some(v) => Value::optional_of(v.clone()),
                None => Value::optional_none(),
            }),
        }
    }
}

impl cel::Activation for RuleActivation {
    fn resolve(&self, name: &str) -> Option<Value> {
        self.resolve_ref(name).cloned()
    }

    fn resolve_ref(&self, name: &str) -> Option<&Value> {
        match name {
            SCOPED_VAR_NAME => self.self_value.as_ref(),
            OLD_SCOPED_VAR_NAME => self.old_self.as_ref(),
            _ => None,
        }
    }
}

/// Where the walk is: the field path of a node, built only when a rule reports there.
enum Trail<'a> {
    /// Where validation started.
    Root(&'a Path),
    /// A property of the parent.
    Child(&'a Trail<'a>, &'a str),
    /// A list element of the parent.
    Index(&'a Trail<'a>, usize),
    /// A map value of the parent.
    Key(&'a Trail<'a>, &'a str),
}

impl Trail<'_> {
    /// The field path.
    fn path(&self) -> Path {
        let mut steps = Vec::new();
        let mut at = self;
        let root = loop {
            match at {
                Trail::Root(p) => break *p,
                Trail::Child(parent, _) | Trail::Index(parent, _) | Trail::Key(parent, _) => {
                    steps.push(at);
                    at = parent;
                }
            }
        };
        steps.iter().rev().fold(root.clone(), |p, step| match step {
            Trail::Root(_) => p,
            Trail::Child(_, name) => p.child(name),
            Trail::Index(_, i) => p.index(*i),
            Trail::Key(_, k) => p.key(k),
        })
    }
}

/// Builds validator trees with one environment loader and per-call limit.
struct Builder<'a> {
    loader: &'a EnvLoader,
    per_call_limit: u64,
}

impl Builder<'_> {
    /// The validator of the rules of `validation` (the node's schema, or one of its `allOf`
    /// entries) applied to the node `node`. `decl` decides which properties CEL sees; when
    /// `decl_is_node_type` it is the node's own CEL type, which its rules are compiled against.
    fn build(
        &self,
        validation: &Structural,
        node: &Arc<Structural>,
        is_resource_root: bool,
        decl: Option<&Arc<DeclType>>,
        decl_is_node_type: bool,
        depth: usize,
    ) -> Option<SchemaRules> {
        if depth > crate::structural::MAX_SCHEMA_DEPTH || !has_rules(validation) {
            return None;
        }
        let (rules, setup_error) = match compile_node_with_type(
            node,
            &validation.extensions.validations,
            is_resource_root,
            decl.filter(|_| decl_is_node_type),
            self.loader,
        ) {
            Ok(r) => (r, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        let elem = decl.and_then(|d| match &d.kind {
            DeclKind::List(e) | DeclKind::Map(e) => Some(e),
            _ => None,
        });
        // The element type is the items' own type under a list, the values' under a map.
        let is_list = decl.is_some_and(|d| matches!(d.kind, DeclKind::List(_)));
        let is_map = decl.is_some_and(|d| matches!(d.kind, DeclKind::Map(_)));
        let items = match (&validation.items, &node.items) {
            (Some(v), Some(n)) => self.build(
                v,
                n,
                n.extensions.embedded_resource,
                elem,
                decl_is_node_type && is_list,
                depth + 1,
            ),
            _ => None,
        };
        let additional_properties = match (
            validation.additional_properties_schema(),
            node.additional_properties_schema(),
        ) {
            (Some(v), Some(n)) => self.build(
                v,
                n,
                n.extensions.embedded_resource,
                elem,
                decl_is_node_type && is_map,
                depth + 1,
            ),
            _ => None,
        };
        let mut properties = SchemaMap::default();
        for (name, vprop) in &validation.properties {
            // Only properties on the node's structural spine are validated.
            let Some(nprop) = node.properties.get(name) else {
                continue;
            };
            let (field_type, field_is_node_type) = match escaping::escape(name) {
                Some(escaped) => {
                    let Some(field) = decl
                        .and_then(|d| d.as_object())
                        .and_then(|o| o.fields.get(escaped.as_ref()))
                    else {
                        // Fields CEL cannot see are left out entirely.
                        continue;
                    };
                    (field.ty.clone(), decl_is_node_type)
                }
                None => {
                    let Some(t) =
                        DeclType::from_schema(nprop, nprop.extensions.embedded_resource, "object")
                    else {
                        continue;
                    };
                    (t, true)
                }
            };
            if let Some(v) = self.build(
                vprop,
                nprop,
                nprop.extensions.embedded_resource,
                Some(&field_type),
                field_is_node_type,
                depth + 1,
            ) {
                properties.insert(name.clone(), v);
            }
        }
        let all_of = all_of(validation)
            .iter()
            .filter_map(|a| {
                self.build(
                    a,
                    node,
                    is_resource_root,
                    decl,
                    decl_is_node_type,
                    depth + 1,
                )
            })
            .collect();
        let uses_old_self = rules.iter().any(|r| r.uses_old_self);
        Some(SchemaRules {
            schema: node.clone(),
            is_resource_root,
            rules,
            setup_error,
            uses_old_self,
            per_call_limit: self.per_call_limit,
            items: items.map(Box::new),
            properties,
            additional_properties: additional_properties.map(Box::new),
            all_of,
        })
    }
}
