//! Runs the generated 3 MiB worst case of `benches/validation.rs` once through the whole create
//! pipeline ([`Validator::validate_create`]) and, separately, through the rule step alone: a
//! fixed amount of work to profile (`valgrind --tool=callgrind`, whose instruction counts do not
//! depend on the machine's load) where the criterion bench repeats it.
//!
//! ```text
//! cargo build --release -p kcel-kube --example worst_case_once
//! valgrind --tool=callgrind --toggle-collect='kcel_kube::validator::Validator::validate_create' \
//!     target/release/examples/worst_case_once [iterating-rule|per-item-rule] [pipeline|rules]
//! ```
//!
//! Memory comes from the system allocator (the bench uses the `kcel` binary's, mimalloc), so
//! that a profile shows what allocation costs.

use std::process::ExitCode;

use kcel_kube::Validator;
use kcel_kube::pipeline::{KubeVersion, RuleRequest, RuleValidator};
use kcel_kube::rules::CelRuleStep;
use kcel_kube::values::Json;

#[path = "../benches/worst_case/mod.rs"]
mod worst_case;
use worst_case::{
    ITEM_RULE, ITERATING_RULE, MAX_ITEMS, MAX_NAME_LENGTH, MAX_VALUE_LENGTH, big_crd, big_object,
};

fn run(variant: &str, stage: &str) -> Result<(), String> {
    let kube_version = KubeVersion::new(35).ok_or("Kubernetes 1.35 is not supported")?;
    let (spec_rule, item_rule) = match variant {
        "iterating-rule" => (Some(ITERATING_RULE), None),
        "per-item-rule" => (None, Some(ITEM_RULE)),
        other => return Err(format!("unknown variant {other:?}")),
    };
    let (object, size) = big_object()?;
    println!(
        "3mib-{variant}: {size} bytes of JSON; maxItems {MAX_ITEMS}, maxLength {MAX_NAME_LENGTH}/{MAX_VALUE_LENGTH}"
    );
    let crd = big_crd(spec_rule, item_rule)?;
    let validator = Validator::builder()
        .kube_version(kube_version)
        .crd(crd.clone())
        .build();
    match stage {
        "pipeline" => {
            validator
                .compile(kcel_kube::CrdId(0), "v1")
                .map_err(|e| e.to_string())?;
            let verdict = validator
                .validate_create(object)
                .map_err(|e| e.to_string())?;
            println!("pipeline: valid {}", verdict.is_valid());
        }
        "rules" => {
            let step = CelRuleStep::for_version(&crd, "v1", kube_version)?;
            let schema = crd
                .version("v1")
                .and_then(|v| v.open_api_v3_schema())
                .ok_or("the generated CRD has no schema")?;
            let object = Json::from_serde(&object).map_err(|e| e.to_string())?;
            let out = step.validate(&RuleRequest {
                schema,
                object: &object,
                old_object: None,
                ratcheting: false,
                kube_version,
            });
            println!("rules: {} errors", out.errors.len());
        }
        other => return Err(format!("unknown stage {other:?}")),
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let variant = args.first().map_or("iterating-rule", String::as_str);
    let stage = args.get(1).map_or("pipeline", String::as_str);
    match run(variant, stage) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
