//! `kcel check`: the checks kube-apiserver makes on the CEL rules of CRDs when they are created:
//! every problem with the rules (kubectl's messages), and a table of every rule and
//! messageExpression with its estimated cost against the limits, most expensive first.
//!
//! Kubernetes compares two numbers (apiextensions-apiserver
//! `pkg/apis/apiextensions/validation/validation.go`, limits from
//! `pkg/apiserver/schema/cel/compilation.go`): each expression's cost × the cardinality of its
//! node with the per-expression `StaticEstimatedCostLimit`, and the sum of those over a schema
//! with the per-CRD `StaticEstimatedCRDCostLimit`. The table has one column for each; rows over the
//! per-expression limit are marked `!`, and under each expression that costs at least 1% of the
//! per-CRD limit are the unbounded lists, maps and strings that drive its cost
//! ([`kcel_kube::rules::unbounded`]). `-o json` prints the same as one JSON document.
//!
//! Validating and mutating admission policies among the inputs get what the server says when
//! they are written ([`kcel_kube::admission::policy_review`]): the API validation errors, and,
//! for a ValidatingAdmissionPolicy, the type checking warnings of `status.typeChecking` against
//! the kinds of the CRDs among the inputs and the built-in kinds. Policies have no static cost limit: the server limits each expression's cost
//! as it runs.
//!
//! ```text
//! kcel check [--kube-version 1.NN] [--old FILE] [-q] [-o text|json] <CRD or policy files or dirs>...
//! ```
//!
//! Exit codes: 0 every CRD and policy would be accepted, 1 some would be rejected, 2 bad usage or
//! unreadable input.

use std::process::ExitCode;

use clap::ValueEnum;
use kcel_kube::Validator;
use kcel_kube::admission::policy_review::{PolicyReview, policy_kind, review_policy};
use kcel_kube::crd::CustomResourceDefinition;
use kcel_kube::crd_review::ExpressionCost;
use kcel_kube::crd_review::{
    CrdReview, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT,
};
use kcel_kube::documents::{decode_crds, read_documents};
use kcel_kube::field::FieldError;
use kcel_kube::kubectl::invalid_message;
use serde_json::{Value, json};

use crate::validate::{kube_version, read_crds};
use crate::{EXIT_FAILED, EXIT_USAGE};

#[derive(clap::Args)]
pub struct Args {
    /// CRD or admission policy files or directories (`*.yaml`, `*.yml`, `*.json`,
    /// recursively); `-` for stdin.
    #[arg(required = true, value_name = "FILES|DIRS")]
    inputs: Vec<String>,
    /// The CRDs as currently stored (checks as an update: rules already present may use the
    /// newest environment, unchanged schemas skip the per-expression cost limit).
    #[arg(long = "old", value_name = "FILE")]
    old: Option<String>,
    /// The Kubernetes version to behave as (1.28 to 1.37; default the newest).
    #[arg(long = "kube-version", value_name = "1.NN")]
    kube_version: Option<String>,
    /// Only print CRDs with problems (no cost table; with `-o json`, only rejected CRDs).
    #[arg(short = 'q', long = "quiet")]
    quiet: bool,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Text)]
    output: Format,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

pub fn run(args: Args) -> ExitCode {
    match run_inner(&args) {
        Ok(rejected) => ExitCode::from(if rejected { EXIT_FAILED } else { 0 }),
        Err(message) => {
            eprintln!("kcel check: {message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn run_inner(args: &Args) -> Result<bool, String> {
    let version = kube_version(args.kube_version.as_deref())?;
    let docs = read_documents(&args.inputs).map_err(|e| e.to_string())?;
    let crds = decode_crds(&docs.documents).map_err(|e| e.to_string())?;
    let policies: Vec<_> = docs
        .documents
        .iter()
        .filter(|d| policy_kind(d).is_some())
        .collect();
    if crds.is_empty() && policies.is_empty() {
        return Err(format!(
            "no CustomResourceDefinition or admission policy found in {}",
            args.inputs.join(", ")
        ));
    }
    let old = match &args.old {
        Some(f) => read_crds(std::slice::from_ref(f)).map_err(|e| e.to_string())?,
        None => Vec::new(),
    };
    let validator = crds
        .iter()
        .cloned()
        .fold(Validator::builder().kube_version(version), |b, c| {
            b.located_crd(c)
        })
        .build();
    let mut rejected = 0usize;
    let mut records = Vec::new();
    for located in &crds {
        let crd = &located.crd;
        let old_crd = old
            .iter()
            .map(|o| &o.crd)
            .find(|c| c.metadata.name == crd.metadata.name);
        let review = validator.review_crd(crd, old_crd);
        if !review.accepted() {
            rejected += 1;
        }
        if args.quiet && review.accepted() {
            continue;
        }
        match args.output {
            Format::Text => print_report(crd, &located.location, &review, args.quiet),
            Format::Json => records.push(crd_record(crd, &located.location, &review)),
        }
    }
    let mut policy_records = Vec::new();
    // Checked and rejected counts of each policy kind, in the order first met.
    let mut counts: Vec<(&'static str, usize, usize)> = Vec::new();
    for doc in &policies {
        let Some(review) = review_policy(doc, &validator) else {
            continue;
        };
        let review = review.map_err(|e| e.to_string())?;
        let at = doc.location();
        match counts.iter_mut().find(|(k, _, _)| *k == review.kind) {
            Some((_, checked, rejected)) => {
                *checked += 1;
                *rejected += usize::from(!review.accepted());
            }
            None => counts.push((review.kind, 1, usize::from(!review.accepted()))),
        }
        if args.quiet && review.accepted() && review.warnings.is_empty() {
            continue;
        }
        match args.output {
            Format::Text => print_policy(&at, &review),
            Format::Json => policy_records.push(policy_record(&at, &review)),
        }
    }
    let policies_rejected: usize = counts.iter().map(|(_, _, r)| r).sum();
    match args.output {
        Format::Text => {
            if !crds.is_empty() {
                println!(
                    "{} CustomResourceDefinition(s) checked with Kubernetes {version}: {} accepted, {rejected} rejected",
                    crds.len(),
                    crds.len() - rejected
                );
            }
            for (kind, checked, rejected) in &counts {
                println!(
                    "{checked} {kind}(s) checked with Kubernetes {version}: {} accepted, {rejected} rejected",
                    checked - rejected
                );
            }
        }
        Format::Json => {
            let doc = json!({
                "kubeVersion": version.to_string(),
                "limits": {
                    "StaticEstimatedCostLimit": STATIC_ESTIMATED_COST_LIMIT,
                    "StaticEstimatedCRDCostLimit": STATIC_ESTIMATED_CRD_COST_LIMIT,
                },
                "checked": crds.len(),
                "accepted": crds.len() - rejected,
                "rejected": rejected,
                "crds": records,
            });
            let mut doc = doc;
            if !policies.is_empty() {
                doc["policies"] = json!({
                    "checked": policies.len(),
                    "accepted": policies.len() - policies_rejected,
                    "rejected": policies_rejected,
                    "policies": policy_records,
                });
            }
            let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
            println!("{text}");
        }
    }
    Ok(rejected + policies_rejected > 0)
}

/// A policy's review as text: its verdict, each type checking warning under its field, and
/// kubectl's message when it is rejected.
fn print_policy(at: &str, review: &PolicyReview) {
    let verdict = if review.accepted() {
        "accepted"
    } else {
        "rejected"
    };
    let (kind, name) = (review.kind, &review.name);
    println!("{at}: {kind} {name:?} {verdict}");
    for w in &review.warnings {
        println!("  typeChecking warning at {}:", w.field_ref);
        for line in w.warning.lines() {
            if line.is_empty() {
                println!();
            } else {
                println!("    {line}");
            }
        }
    }
    if !review.accepted() {
        println!("{}", invalid_message(kind, name, &review.errors));
    }
}

/// One policy of `-o json`.
fn policy_record(at: &str, review: &PolicyReview) -> Value {
    json!({
        "file": at,
        "kind": review.kind,
        "name": review.name,
        "accepted": review.accepted(),
        "errors": review.errors.iter().map(error_record).collect::<Vec<_>>(),
        "typeChecking": {"expressionWarnings": review.warnings},
        "message": (!review.accepted()).then(|| invalid_message(review.kind, &review.name, &review.errors)),
    })
}

/// The expressions of a review, most expensive (cost × cardinality) first; expressions without
/// an estimate last, in schema order.
fn by_cost(review: &CrdReview) -> Vec<&ExpressionCost> {
    let mut costs: Vec<&ExpressionCost> = review.costs.iter().collect();
    costs.sort_by_key(|c| std::cmp::Reverse(c.total));
    costs
}

/// A field error as JSON: its path, type, and text without the path.
fn error_record(e: &FieldError) -> Value {
    json!({
        "field": e.path.to_string(),
        "type": e.type_.reason(),
        "message": e.body(),
    })
}

/// One CRD of `-o json`.
fn crd_record(crd: &CustomResourceDefinition, at: &str, review: &CrdReview) -> Value {
    let expressions: Vec<Value> = by_cost(review)
        .into_iter()
        .map(|c| {
            json!({
                "version": c.version,
                "path": c.path,
                "expression": c.expression,
                "cost": c.max_cost,
                "cardinality": c.cardinality,
                "total": c.total,
                "limit": STATIC_ESTIMATED_COST_LIMIT,
                "limitName": "StaticEstimatedCostLimit",
                "overLimit": c.over_limit(),
                "errors": review.errors_at(&c.path).map(error_record).collect::<Vec<_>>(),
                "unbounded": c.unbounded.iter().map(|u| json!({
                    "path": u.path,
                    "missing": u.missing.keyword(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let totals: Vec<Value> = review
        .schema_totals()
        .into_iter()
        .map(|(version, total)| {
            json!({
                "version": version,
                "total": total,
                "limit": STATIC_ESTIMATED_CRD_COST_LIMIT,
                "limitName": "StaticEstimatedCRDCostLimit",
                "overLimit": total > STATIC_ESTIMATED_CRD_COST_LIMIT,
            })
        })
        .collect();
    json!({
        "file": at,
        "name": crd.metadata.name,
        "accepted": review.accepted(),
        "expressions": expressions,
        "schemaTotals": totals,
        "errors": review.crd_errors().map(error_record).collect::<Vec<_>>(),
        "message": (!review.accepted()).then(|| invalid_message(
            "CustomResourceDefinition",
            &crd.metadata.name,
            &review.errors,
        )),
    })
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `part` as a percentage of `limit`, one decimal; `>999%` beyond ten times the limit.
fn percent(part: u64, limit: u64) -> String {
    let p = part as f64 * 100.0 / limit as f64;
    if p > 999.0 {
        ">999%".into()
    } else {
        format!("{p:.1}%")
    }
}

fn print_report(crd: &CustomResourceDefinition, at: &str, report: &CrdReview, quiet: bool) {
    let verdict = if report.errors.is_empty() {
        "accepted"
    } else {
        "rejected"
    };
    println!(
        "{at}: CustomResourceDefinition {:?} {verdict}",
        crd.metadata.name
    );
    if !quiet && !report.costs.is_empty() {
        println!(
            "  COST×CARD is compared with the per-expression StaticEstimatedCostLimit ({}), the sum of a schema's with the per-CRD StaticEstimatedCRDCostLimit ({}); ! marks a row over its limit",
            thousands(STATIC_ESTIMATED_COST_LIMIT),
            thousands(STATIC_ESTIMATED_CRD_COST_LIMIT)
        );
        println!(
            "    {:>14} {:>9} {:>14} {:>11} {:>10}  EXPRESSION",
            "COST", "×CARD", "COST×CARD", "%EXPR-LIMIT", "%CRD-LIMIT"
        );
        for c in by_cost(report) {
            let (cost, total, expr_pct, crd_pct) = match (c.max_cost, c.total) {
                (Some(m), Some(t)) => (
                    thousands(m),
                    thousands(t),
                    percent(t, STATIC_ESTIMATED_COST_LIMIT),
                    percent(t, STATIC_ESTIMATED_CRD_COST_LIMIT),
                ),
                _ => ("-".into(), "-".into(), "-".into(), "-".into()),
            };
            let expr: String = c.expression.replace('\n', " ");
            let expr = if expr.chars().count() > 60 {
                format!("{}…", expr.chars().take(59).collect::<String>())
            } else {
                expr
            };
            let mark = if c.over_limit() { '!' } else { ' ' };
            println!(
                "  {mark} {cost:>14} {:>9} {total:>14} {expr_pct:>11} {crd_pct:>10}  {expr}",
                thousands(c.cardinality)
            );
            println!("      at {}", c.path);
            for u in &c.unbounded {
                println!("      unbounded: {} (no {})", u.path, u.missing.keyword());
            }
        }
        for (version, total) in report.schema_totals() {
            let mark = if total > STATIC_ESTIMATED_CRD_COST_LIMIT {
                '!'
            } else {
                ' '
            };
            let of = version.map_or(String::new(), |v| format!(" (version {v})"));
            println!(
                "  {mark} total{of} {} of StaticEstimatedCRDCostLimit {} ({})",
                thousands(total),
                thousands(STATIC_ESTIMATED_CRD_COST_LIMIT),
                percent(total, STATIC_ESTIMATED_CRD_COST_LIMIT)
            );
        }
    }
    if !report.errors.is_empty() {
        println!(
            "{}",
            invalid_message(
                "CustomResourceDefinition",
                &crd.metadata.name,
                &report.errors
            )
        );
    }
}
