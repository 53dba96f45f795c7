//! Criterion benchmarks of custom-resource validation with CEL rules, as kube-apiserver runs it,
//! in the environment of Kubernetes 1.35:
//!
//! * `compile/gateway-api`: compiling every CEL rule of the Gateway API CRDs
//!   (`../shared/corpora/gateway-api/config/crd/{standard,experimental}`, every version with a
//!   schema) in a [`Validator`] ([`Validator::compile`]: structural schema, CEL types,
//!   parse, check, cost estimate and plan of each rule and messageExpression).
//! * `rules/gateway-api`: the CEL rule step alone ([`RuleValidator::validate`]) on every valid
//!   Gateway API example (`examples/{standard,experimental}`), the objects decoded, defaulted
//!   and prepared by the pipeline beforehand; one iteration validates all examples.
//! * `pipeline/gateway-api`: the whole create request ([`Validator::validate`]: decoding,
//!   pruning, defaulting, OpenAPI validation and the rule step) on the same examples, each body a
//!   [`Json`] tree as `kcel validate`'s readers build it; `pipeline/gateway-api-serde` the same
//!   with `serde_json` bodies, which the pipeline converts on entry.
//! * `rules/3mib-*` and `pipeline/3mib-*`: a generated worst-case object of about 3 MiB (the
//!   API server's request size limit) under a generated CRD whose `spec.items` is a list of
//!   `{name, value}` maps: `iterating-rule` has one rule on `spec` iterating every item
//!   (`self.items.all(i, i.name.startsWith('a') && i.value.size() < 64)`), `per-item-rule` the
//!   same check as a rule on each item. `maxItems`/`maxLength` bound the schema so that both
//!   rules fit the static cost limits; the object's runtime cost fits the per-call limit and the
//!   per-object budget, so every item is visited.
//!
//! Counts (rules, objects, bytes) are printed before the measurements; criterion reports
//! objects/s and bytes/s through its throughput settings.
//!
//! Memory comes from mimalloc, the allocator of the `kcel` binary (the library leaves the choice
//! to its embedder; with glibc's allocator the 3 MiB cases spend about a fifth of their
//! instructions in `malloc` and `free`).
//!
//! `cargo bench -p kcel-kube --bench validation [-- <filter>]`. Without `../shared` (or
//! `KCEL_SHARED`) the Gateway API groups print a notice and are skipped; the generated 3 MiB
//! object is always measured.

use std::collections::HashMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput};
use kcel_kube::crd::CustomResourceDefinition;
use kcel_kube::pipeline::{Body, KubeVersion, RuleRequest, RuleValidator};
use kcel_kube::rules::CelRuleStep;
use kcel_kube::schema_props::{JsonSchemaProps, SchemaOrArray, SchemaOrBool};
use kcel_kube::values::Json;
use kcel_kube::{CrdId, Request, Validator};
use serde_json::Value;

#[path = "../tests/common/mod.rs"]
mod common;
mod worst_case;

use common::yaml_files;

/// The `kcel` binary's allocator (crates/cli/src/main.rs).
#[global_allocator]
static ALLOCATOR: kcel_alloc::MiMalloc = kcel_alloc::MiMalloc;
use worst_case::{
    ITEM_RULE, ITERATING_RULE, MAX_ITEMS, MAX_NAME_LENGTH, MAX_VALUE_LENGTH, big_crd, big_object,
};

/// The Kubernetes version measured (the reference numbers are Kubernetes 1.35's).
fn kube_version() -> KubeVersion {
    KubeVersion::new(35).expect("a supported version")
}

/// `../shared` (or `KCEL_SHARED`), if present; fails under `CI=true` when absent.
fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("KCEL_SHARED") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "shared/ is missing under CI"
    );
    eprintln!(
        "NOTICE: {} not found; the Gateway API benchmarks are skipped",
        dir.display()
    );
    None
}

fn load_crds(dir: &Path) -> Result<Vec<CustomResourceDefinition>, String> {
    let mut files = Vec::new();
    yaml_files(dir, &mut files);
    let mut crds = Vec::new();
    for f in files {
        let loaded = kcel_kube::load::load_file(&f).map_err(|e| e.to_string())?;
        crds.extend(loaded.into_iter().map(|l| l.crd));
    }
    Ok(crds)
}

/// The number of `x-kubernetes-validations` rules in `s` and below.
fn count_rules(s: &JsonSchemaProps) -> usize {
    let mut n = s.x_validations.len();
    n += s.properties.values().map(count_rules).sum::<usize>();
    n += s
        .pattern_properties
        .values()
        .map(count_rules)
        .sum::<usize>();
    n += s.definitions.values().map(count_rules).sum::<usize>();
    n += s.all_of.iter().map(count_rules).sum::<usize>();
    n += s.any_of.iter().map(count_rules).sum::<usize>();
    n += s.one_of.iter().map(count_rules).sum::<usize>();
    n += s.not.as_deref().map_or(0, count_rules);
    n += match &s.items {
        Some(SchemaOrArray::Schema(i)) => count_rules(i),
        Some(SchemaOrArray::Array(a)) => a.iter().map(count_rules).sum(),
        None => 0,
    };
    n += match &s.additional_properties {
        Some(SchemaOrBool::Schema(a)) => count_rules(a),
        _ => 0,
    };
    n
}

/// One CRD version whose rules are compiled.
struct CrdVersion<'a> {
    /// The index of the channel (standard, experimental).
    channel: usize,
    crd: &'a CustomResourceDefinition,
    /// The CRD in the validators of [`validator`].
    id: CrdId,
    version: String,
    /// The number of rules in its schema.
    rules: usize,
}

/// The rule steps of `versions`, in order (for measuring the rule step alone).
fn rule_steps(versions: &[CrdVersion<'_>]) -> Result<Vec<CelRuleStep>, String> {
    versions
        .iter()
        .map(|v| CelRuleStep::for_version(v.crd, &v.version, kube_version()).map_err(String::from))
        .collect()
}

/// A validator of `crds` (nothing compiled yet), each CRD's id its position in `crds`.
fn validator(crds: &[&CustomResourceDefinition]) -> Validator {
    crds.iter()
        .fold(Validator::builder().kube_version(kube_version()), |b, c| {
            b.crd((*c).clone())
        })
        .build()
}

/// Compiles the rules of `versions` in `validator`.
fn compile(validator: &Validator, versions: &[&CrdVersion<'_>]) -> Result<(), String> {
    versions
        .iter()
        .try_for_each(|v| validator.compile(v.id, &v.version))
        .map_err(|e| e.to_string())
}

/// One valid example: the CRD version it belongs to, the document, and the object as the rule
/// step receives it (after decoding, defaulting and preparation).
struct Example {
    step: usize,
    document: Value,
    prepared: Json,
}

fn bench_gateway_api(c: &mut Criterion, shared: &Path) -> Result<(), String> {
    let root = shared.join("corpora/gateway-api");
    let channels = ["standard", "experimental"];
    let crds: Vec<Vec<CustomResourceDefinition>> = channels
        .iter()
        .map(|ch| load_crds(&root.join("config/crd").join(ch)))
        .collect::<Result<_, _>>()?;

    // Every CRD version with a schema, compiled once for the examples.
    let all_crds: Vec<&CustomResourceDefinition> = crds.iter().flatten().collect();
    let mut versions = Vec::new();
    for (channel, channel_crds) in crds.iter().enumerate() {
        for crd in channel_crds {
            let id = CrdId(
                all_crds
                    .iter()
                    .position(|c| std::ptr::eq(*c, crd))
                    .ok_or("a CRD is not in the validator")?,
            );
            for v in &crd.spec.versions {
                if let Some(schema) = v.open_api_v3_schema() {
                    versions.push(CrdVersion {
                        channel,
                        crd,
                        id,
                        version: v.name.clone(),
                        rules: count_rules(schema),
                    });
                }
            }
        }
    }
    let compiled = validator(&all_crds);
    compile(&compiled, &versions.iter().collect::<Vec<_>>())?;
    let steps = rule_steps(&versions)?;

    // The valid examples, each with the rule step of its CRD version.
    let step_index: HashMap<(usize, &str, &str, &str), usize> = versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            (
                (
                    v.channel,
                    v.crd.spec.group.as_str(),
                    v.crd.spec.names.kind.as_str(),
                    v.version.as_str(),
                ),
                i,
            )
        })
        .collect();
    let mut examples = Vec::new();
    let mut not_run = 0;
    for (channel, name) in channels.iter().enumerate() {
        let mut files = Vec::new();
        yaml_files(&root.join("examples").join(name), &mut files);
        for f in files {
            let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
            let docs = kcel_kube::yaml::parse_stream(&text)
                .map_err(|e| format!("{}: {e}", f.display()))?;
            for d in docs {
                let doc = d.value;
                let kind = doc.get("kind").and_then(Value::as_str).unwrap_or("");
                let api_version = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
                let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
                let Some(&step) = step_index.get(&(channel, group, kind, version)) else {
                    // Namespaces and other kinds no Gateway API CRD defines.
                    not_run += 1;
                    continue;
                };
                let v = &versions[step];
                let r = compiled
                    .validate(Request::create(doc.clone()).against(v.id, &v.version))
                    .map_err(|e| e.to_string())?;
                if !r.is_valid() {
                    return Err(format!(
                        "{}: example rejected: {}",
                        f.display(),
                        r.status.message
                    ));
                }
                let prepared = r
                    .object
                    .ok_or("a successful response has no object")?
                    .to_json()
                    .map_err(|e| e.to_string())?;
                examples.push(Example {
                    step,
                    document: doc,
                    prepared,
                });
            }
        }
    }
    println!(
        "gateway-api: {} valid examples measured ({not_run} documents of kinds no CRD defines left out)",
        examples.len()
    );

    // (a) Compilation: the CRD versions the examples use, then every CRD version.
    let mut used: Vec<usize> = examples.iter().map(|e| e.step).collect();
    used.sort_unstable();
    used.dedup();
    let used: Vec<&CrdVersion<'_>> = used.iter().map(|&i| &versions[i]).collect();
    let all: Vec<&CrdVersion<'_>> = versions.iter().collect();
    let mut g = c.benchmark_group("compile");
    for (name, set) in [("gateway-api", &used), ("gateway-api-all-versions", &all)] {
        let rules: usize = set.iter().map(|v| v.rules).sum();
        println!(
            "compile/{name}: {rules} CEL rules in {} CRD versions",
            set.len()
        );
        g.throughput(Throughput::Elements(rules as u64));
        g.bench_function(name, |b| {
            b.iter_batched(
                || validator(&all_crds),
                |v| black_box(compile(&v, set)),
                BatchSize::SmallInput,
            );
        });
    }
    g.finish();

    // (b) The rule step alone.
    let schemas: Vec<&JsonSchemaProps> = versions
        .iter()
        .map(|v| {
            v.crd
                .version(&v.version)
                .and_then(|cv| cv.open_api_v3_schema())
                .ok_or("a compiled version has no schema")
        })
        .collect::<Result<_, _>>()?;
    let kube_version = kube_version();
    let mut g = c.benchmark_group("rules");
    g.throughput(Throughput::Elements(examples.len() as u64));
    g.bench_function("gateway-api", |b| {
        b.iter(|| {
            for e in &examples {
                let out = steps[e.step].validate(&RuleRequest {
                    schema: schemas[e.step],
                    object: &e.prepared,
                    old_object: None,
                    ratcheting: false,
                    kube_version,
                });
                black_box(out);
            }
        });
    });
    g.finish();

    // (c) The whole pipeline.
    let mut g = c.benchmark_group("pipeline");
    g.throughput(Throughput::Elements(examples.len() as u64));
    // Each request validated as `kcel validate` runs it.
    let validate_all = |docs: Vec<Body>| {
        for (e, doc) in examples.iter().zip(docs) {
            let v = &versions[e.step];
            black_box(compiled.validate(Request::create(doc).against(v.id, &v.version))).ok();
        }
    };
    g.bench_function("gateway-api", |b| {
        b.iter_batched(
            || {
                // Uniquely owned trees, as a reader hands them over: the pipeline edits them
                // in place.
                examples
                    .iter()
                    .map(|e| Json::from_serde(&e.document).map(Body::from))
                    .collect::<Result<Vec<_>, _>>()
                    .expect("the examples convert")
            },
            validate_all,
            BatchSize::SmallInput,
        );
    });
    g.bench_function("gateway-api-serde", |b| {
        b.iter_batched(
            || {
                examples
                    .iter()
                    .map(|e| Body::from(e.document.clone()))
                    .collect()
            },
            validate_all,
            BatchSize::SmallInput,
        );
    });
    g.finish();
    Ok(())
}

fn bench_big_object(c: &mut Criterion) -> Result<(), String> {
    let (object, size) = big_object()?;
    let items = object["spec"]["items"].as_array().map_or(0, Vec::len);
    println!(
        "3mib: {size} bytes of JSON, {items} items; maxItems {MAX_ITEMS}, maxLength {MAX_NAME_LENGTH}/{MAX_VALUE_LENGTH}"
    );
    let variants = [
        ("iterating-rule", Some(ITERATING_RULE), None),
        ("per-item-rule", None, Some(ITEM_RULE)),
    ];
    for (name, spec_rule, item_rule) in variants {
        let crd = big_crd(spec_rule, item_rule)?;
        let step = CelRuleStep::for_version(&crd, "v1", kube_version())?;
        let validator = validator(&[&crd]);
        let r = validator
            .validate_create(object.clone())
            .map_err(|e| e.to_string())?;
        if !r.is_valid() {
            return Err(format!(
                "the 3 MiB object is rejected ({name}): {}",
                r.status.message
            ));
        }
        let prepared = r
            .object
            .ok_or("a successful response has no object")?
            .to_json()
            .map_err(|e| e.to_string())?;
        let schema = crd
            .version("v1")
            .and_then(|v| v.open_api_v3_schema())
            .ok_or("the generated CRD has no schema")?;
        let mut g = c.benchmark_group("rules");
        g.throughput(Throughput::Bytes(size as u64));
        g.bench_function(format!("3mib-{name}"), |b| {
            b.iter(|| {
                black_box(step.validate(&RuleRequest {
                    schema,
                    object: &prepared,
                    old_object: None,
                    ratcheting: false,
                    kube_version: kube_version(),
                }))
            });
        });
        g.finish();
        let mut g = c.benchmark_group("pipeline");
        g.throughput(Throughput::Bytes(size as u64));
        g.bench_function(format!("3mib-{name}"), |b| {
            b.iter_batched(
                || object.clone(),
                |o| black_box(validator.validate_create(o)).ok(),
                BatchSize::LargeInput,
            );
        });
        g.finish();
    }
    Ok(())
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
        .configure_from_args();
    let mut result = Ok(());
    if let Some(shared) = shared_dir() {
        result = bench_gateway_api(&mut c, &shared);
    }
    if let Err(e) = result.and_then(|()| bench_big_object(&mut c)) {
        eprintln!("{e}");
        std::process::exit(1);
    }
    c.final_summary();
}
