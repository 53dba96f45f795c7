//! What the fuzz targets of `fuzz/` run, shared with `tests/fuzz_regressions.rs`, which replays
//! their corpora:
//!
//! - `documents`: bytes read as a YAML or JSON stream by [`kcel_kube::documents::parse_documents`];
//!   every document validated (as a create, then as an update over itself) against a set of real
//!   CRDs (the bundled example and Gateway API's standard channel), the answers rendered as kubectl
//!   prints them and as Status JSON.
//! - `crd`: bytes read the same way; every document decoded as a CustomResourceDefinition, reviewed
//!   as kube-apiserver reviews a create and an update over itself, and, when accepted, its rules
//!   compiled by a validator holding it.
//!
//! Nothing may panic, overflow the stack, allocate without bound or hang.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use kcel_kube::crd::CustomResourceDefinition;
use kcel_kube::documents::{decode_crds, parse_documents};
use kcel_kube::{Request, Validator};

/// The source name inputs are read under.
const SOURCE: &str = "fuzz-input";

/// The bundled example CRD, which the `documents` target always validates against.
const EXAMPLE_CRD: &str = include_str!("../../../../examples/widget-crd.yaml");

/// The other CRD files the `documents` target validates against: the Gateway API standard
/// channel's, when `shared` (`../shared` or `KCEL_SHARED`) is present.
pub fn crd_files(shared: Option<&Path>) -> Vec<PathBuf> {
    let Some(shared) = shared else {
        return Vec::new();
    };
    let dir = shared.join("corpora/gateway-api/config/crd/standard");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("gateway.") && n.ends_with(".yaml"))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// `KCEL_SHARED`, or else the first `shared` folder beside an ancestor of this crate (the fuzz
/// projects sit one level deeper than the crates), if present.
pub fn shared_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("KCEL_SHARED") {
        let dir = PathBuf::from(d);
        return dir.is_dir().then_some(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|a| a.join("shared"))
        .find(|d| d.join("corpora").is_dir())
}

/// A validator holding the example CRD and the CRDs of `files` (ones that do not load are left
/// out: they are the fuzz targets' fixtures, not their input).
pub fn validator(files: &[PathBuf]) -> Validator {
    let mut builder = Validator::builder();
    if let Ok(docs) = parse_documents("examples/widget-crd.yaml", EXAMPLE_CRD)
        && let Ok(crds) = decode_crds(&docs)
    {
        for located in crds {
            builder = builder.located_crd(located);
        }
    }
    for file in files {
        let _ = builder.add_crd_file(file);
    }
    builder.build()
}

/// The `documents` target: read `bytes`, validate every document against `validator`.
pub fn documents(validator: &Validator, bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let docs = match parse_documents(SOURCE, text) {
        Ok(docs) => docs,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    for doc in docs {
        let _ = doc.location();
        let object = doc.value;
        for request in [
            Request::create(object.clone()),
            Request::update(object.clone(), object.clone()),
        ] {
            match validator.validate(request) {
                Ok(verdict) => {
                    let _ = verdict.kubectl_message();
                    let _ = verdict.status_json();
                }
                Err(e) => {
                    let _ = e.to_string();
                }
            }
        }
    }
}

/// The `crd` target: read `bytes`, review every CRD among the documents.
pub fn crds(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let Ok(docs) = parse_documents(SOURCE, text) else {
        return;
    };
    let crds = match decode_crds(&docs) {
        Ok(crds) => crds,
        Err(e) => {
            let _ = e.to_string();
            // Documents that are not valid CRDs may still decode one by one.
            docs.iter()
                .filter_map(|d| serde_json::from_value(d.value.clone()).ok())
                .map(|crd| kcel_kube::documents::LocatedCrd {
                    crd,
                    location: SOURCE.into(),
                })
                .collect()
        }
    };
    let reviewer = Validator::builder().build();
    for located in crds {
        review(&reviewer, &located.crd);
    }
}

/// Reviews `crd` as a create and as an update over itself; compiles its rules when accepted.
fn review(reviewer: &Validator, crd: &CustomResourceDefinition) {
    let created = reviewer.review_crd(crd, None);
    let _ = created.status(crd, reviewer.kube_version());
    let updated = reviewer.review_crd(crd, Some(crd));
    let _ = updated.status(crd, reviewer.kube_version());
    if created.accepted() {
        let holding = Validator::builder().crd(crd.clone()).build();
        let _ = holding.compile_all();
    }
}
