//! `kcel check`: the checks kube-apiserver makes on the CEL rules of CRDs when they are created:
//! every problem with the rules (kubectl's messages), and a table of every rule and
//! messageExpression with its estimated cost against the limits.
//!
//! ```text
//! kcel check [--kube-version 1.NN] [--old FILE] <CRD files or dirs>...
//! ```
//!
//! Exit codes: 0 every CRD would be accepted, 1 some CRD would be rejected, 2 bad usage or
//! unreadable input.

use std::process::ExitCode;

use kcel_kube::Validator;
use kcel_kube::crd::CustomResourceDefinition;
use kcel_kube::crd_review::CrdReview;
use kcel_kube::kubectl::invalid_message;
use kcel_kube::rules::env::{STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT};

use crate::validate::{kube_version, read_crds};
use crate::{EXIT_FAILED, EXIT_USAGE};

#[derive(clap::Args)]
pub struct Args {
    /// CRD files or directories (`*.yaml`, `*.yml`, `*.json`, recursively); `-` for stdin.
    #[arg(required = true, value_name = "FILES|DIRS")]
    inputs: Vec<String>,
    /// The CRDs as currently stored (checks as an update: rules already present may use the
    /// newest environment, unchanged schemas skip the per-expression cost limit).
    #[arg(long = "old", value_name = "FILE")]
    old: Option<String>,
    /// The Kubernetes version to behave as (1.28 to 1.37; default the newest).
    #[arg(long = "kube-version", value_name = "1.NN")]
    kube_version: Option<String>,
    /// Only print CRDs with problems (no cost table).
    #[arg(short = 'q', long = "quiet")]
    quiet: bool,
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
    let crds = read_crds(&args.inputs).map_err(|e| e.to_string())?;
    if crds.is_empty() {
        return Err(format!(
            "no CustomResourceDefinition found in {}",
            args.inputs.join(", ")
        ));
    }
    let old = match &args.old {
        Some(f) => read_crds(std::slice::from_ref(f)).map_err(|e| e.to_string())?,
        None => Vec::new(),
    };
    let validator = Validator::builder().kube_version(version).build();
    let mut rejected = 0usize;
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
        print_report(crd, &located.location, &review, args.quiet);
    }
    println!(
        "{} CustomResourceDefinition(s) checked with Kubernetes {version}: {} accepted, {rejected} rejected",
        crds.len(),
        crds.len() - rejected
    );
    Ok(rejected > 0)
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
            "  {:>14} {:>9} {:>14} {:>8}  EXPRESSION",
            "COST", "×CARD", "TOTAL", "LIMIT%"
        );
        let mut total = 0u64;
        for c in &report.costs {
            let (cost, t, pct) = match (c.max_cost, c.total) {
                (Some(m), Some(t)) => {
                    total = total.saturating_add(t);
                    (
                        thousands(m),
                        thousands(t),
                        format!(
                            "{:.1}%",
                            t as f64 * 100.0 / STATIC_ESTIMATED_COST_LIMIT as f64
                        ),
                    )
                }
                _ => ("-".into(), "-".into(), "-".into()),
            };
            let expr: String = c.expression.replace('\n', " ");
            let expr = if expr.chars().count() > 60 {
                format!("{}…", expr.chars().take(59).collect::<String>())
            } else {
                expr
            };
            println!(
                "  {cost:>14} {:>9} {t:>14} {pct:>8}  {expr}",
                thousands(c.cardinality)
            );
            println!("    at {}", c.path);
        }
        println!(
            "  total {} of {} ({:.1}%)",
            thousands(total),
            thousands(STATIC_ESTIMATED_CRD_COST_LIMIT),
            total as f64 * 100.0 / STATIC_ESTIMATED_CRD_COST_LIMIT as f64
        );
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
