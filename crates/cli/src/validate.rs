//! `kcel validate`: validate custom resources against their CRDs offline, as kube-apiserver
//! validates them on create (or update, with `--old`).
//!
//! ```text
//! kcel validate [--crd FILE|DIR]... [--old FILE] [-n NAMESPACE] [--kube-version 1.NN] [-o text|json] FILES|DIRS|-
//! ```
//!
//! Inputs are YAML or JSON streams (`kind: List` documents are expanded); CRDs found among them
//! count as if given with `--crd`. Each other document is validated against the CRD serving its
//! `apiVersion` and `kind`. Errors read as kubectl prints them (`The Widget "w1" is invalid: …`);
//! `-o json` prints one `metav1.Status` per document (one JSON object per line).
//!
//! What runs per document is kube-apiserver's custom-resource pipeline ([`kcel_kube::pipeline`]):
//! decoding, pruning (unknown fields are errors, as `kubectl --validate=strict` makes them),
//! defaulting, OpenAPI schema validation, metadata and list-type checks, then the CEL rules of
//! `x-kubernetes-validations` with the per-object cost budget, and ratcheting on update.
//!
//! Exit codes: 0 every document valid, 1 some document invalid, 2 bad usage or unreadable input
//! (the message names the file and line).

use std::collections::HashMap;
use std::process::ExitCode;

use clap::ValueEnum;
use kcel_kube::documents::{Document, Documents, LocatedCrd, ObjectKey, decode_crds};
use kcel_kube::{Error, KubeVersion, Request, Validator, Verdict};

use crate::{EXIT_FAILED, EXIT_USAGE};

#[derive(clap::Args)]
pub struct Args {
    /// Documents to validate: files, directories (`*.yaml`, `*.yml`, `*.json`, recursively) or
    /// `-` for standard input. CRDs among them are used too.
    #[arg(required = true, value_name = "FILES|DIRS|-")]
    inputs: Vec<String>,
    /// CRDs to validate against (files or directories).
    #[arg(long = "crd", value_name = "FILE|DIR")]
    crds: Vec<String>,
    /// The objects as they were before (validates as an update: transition rules run,
    /// unchanged parts ratchet). Matched by apiVersion, kind, namespace and name.
    #[arg(long = "old", value_name = "FILE")]
    old: Option<String>,
    /// The Kubernetes version to behave as (1.28 to 1.37; default the newest).
    #[arg(long = "kube-version", value_name = "1.NN")]
    kube_version: Option<String>,
    /// The namespace requests are sent to (`kubectl -n`): objects of namespaced kinds without
    /// one land there, objects naming another are refused (400 BadRequest); default: each
    /// object's own namespace, else `default`.
    #[arg(short = 'n', long = "namespace", value_name = "NAMESPACE")]
    namespace: Option<String>,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Text)]
    output: Format,
    /// OpenAPI v3 documents (`*.json`, as `kubectl get --raw /openapi/v3/apis/<group>/<version>`
    /// saves them) whose kinds add to or override the built-in kinds (files or directories).
    #[arg(long = "schemas", value_name = "FILE|DIR")]
    schemas: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// kubectl's messages.
    Text,
    /// One metav1.Status per document, one JSON object per line.
    Json,
}

/// The documents of `paths`, printing a warning for each file of a directory skipped.
pub(crate) fn read_documents(paths: &[String]) -> Result<Vec<Document>, Error> {
    let Documents { documents, skipped } = kcel_kube::documents::read_documents(paths)?;
    for e in skipped {
        eprintln!("warning: skipped {e}");
    }
    Ok(documents)
}

/// The CRDs among the documents of `paths`.
pub(crate) fn read_crds(paths: &[String]) -> Result<Vec<LocatedCrd>, Error> {
    Ok(decode_crds(&read_documents(paths)?)?)
}

/// Parses `--kube-version` (absent: the newest supported release).
pub(crate) fn kube_version(v: Option<&str>) -> Result<KubeVersion, String> {
    match v {
        None => Ok(KubeVersion::default()),
        Some(s) => s.parse().map_err(|e| format!("--kube-version: {e}")),
    }
}

pub fn run(args: Args) -> ExitCode {
    match run_inner(&args) {
        Ok(invalid) => ExitCode::from(if invalid { EXIT_FAILED } else { 0 }),
        Err(message) => {
            eprintln!("kcel validate: {message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn run_inner(args: &Args) -> Result<bool, String> {
    let version = kube_version(args.kube_version.as_deref())?;
    let crd_docs = read_documents(&args.crds).map_err(|e| e.to_string())?;
    let docs = read_documents(&args.inputs).map_err(|e| e.to_string())?;
    let mut crds = decode_crds(&crd_docs).map_err(|e| e.to_string())?;
    crds.extend(decode_crds(&docs).map_err(|e| e.to_string())?);
    let validator = crds
        .into_iter()
        .fold(Validator::builder().kube_version(version), |b, crd| {
            b.located_crd(crd)
        })
        .schemas_dirs(&args.schemas)
        .and_then(kcel_kube::ValidatorBuilder::try_build)
        .map_err(|e| e.to_string())?;
    let old: HashMap<ObjectKey, serde_json::Value> = match &args.old {
        Some(f) => read_documents(std::slice::from_ref(f))
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|d| (ObjectKey::of(&d.value), d.value))
            .collect(),
        None => HashMap::new(),
    };
    let mut any_invalid = false;
    let mut unmatched = false;
    for doc in docs.iter().filter(|d| !d.is_crd()) {
        let request = match old.get(&ObjectKey::of(&doc.value)) {
            Some(o) => Request::update(doc.value.clone(), o.clone()),
            None => Request::create(doc.value.clone()),
        }
        .in_namespace(args.namespace.clone());
        let verdict = match validator.validate(request) {
            Ok(v) => v,
            Err(e @ Error::NoMatchingCrd { .. }) => {
                eprintln!("kcel validate: {}: {e}", doc.location());
                unmatched = true;
                continue;
            }
            Err(e @ (Error::Rules { .. } | Error::NoSuchVersion { .. } | Error::Pipeline(_))) => {
                let at = served_by(&validator, doc).unwrap_or_default();
                return Err(format!("{at}: {e}"));
            }
            Err(e) => return Err(e.to_string()),
        };
        any_invalid |= !verdict.is_valid();
        report(doc, &verdict, args.output);
    }
    if let Some(notice) = validator.builtins_notice() {
        eprintln!("notice: {notice}");
    }
    if unmatched {
        return Err("some documents could not be validated".into());
    }
    Ok(any_invalid)
}

/// Where the CRD serving `doc` was read.
fn served_by(validator: &Validator, doc: &Document) -> Option<String> {
    let s = |p: &str| doc.value.pointer(p).and_then(serde_json::Value::as_str);
    let (id, _) = validator.find(s("/apiVersion").unwrap_or(""), s("/kind").unwrap_or(""))?;
    validator.crd_location(id).map(str::to_string)
}

fn report(doc: &Document, v: &Verdict, format: Format) {
    for w in &v.warnings {
        eprintln!("Warning: {w}");
    }
    match format {
        Format::Json => println!("{}", v.status_json()),
        Format::Text if v.is_valid() => {
            println!("{}: {} {:?} is valid", doc.location(), v.kind, v.name);
        }
        Format::Text => println!("{}: {}", doc.location(), v.kubectl_message()),
    }
}
