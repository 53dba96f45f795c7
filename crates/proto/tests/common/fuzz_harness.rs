//! What the `proto_gen` fuzz target of `fuzz/` runs, shared with `tests/fuzz_regressions.rs`,
//! which replays its corpus: the bytes as the text of one `.proto` file, through what `kcel gen`
//! runs — [`kcel_proto::generate`] (every top-level message), for the first few generated
//! messages [`kcel_proto::generate_crd`] with that message as the spec, the rule check of
//! `kcel gen` ([`kcel_kube::rule_review::check_rules`]) and the YAML writer. Nothing may panic,
//! overflow the stack, allocate without bound or hang.

#![allow(dead_code)]

use std::path::PathBuf;

use kcel_proto::{CrdSpec, Request, Scope, generate, generate_crd, yaml};
use serde_json::Value;

/// How many generated messages also become the spec of a CRD.
const CRD_MESSAGES: usize = 3;

/// A folder of one's own holding the input file, removed on drop.
pub struct Workspace {
    dir: PathBuf,
    file: PathBuf,
}

impl Workspace {
    /// A fresh folder named after the process and `tag`.
    pub fn new(tag: &str) -> Workspace {
        let dir =
            std::env::temp_dir().join(format!("kcel-proto-fuzz-{}-{tag}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let file = dir.join("fuzz.proto");
        Workspace { dir, file }
    }

    /// Runs the `proto_gen` target on `bytes`.
    pub fn run(&self, bytes: &[u8]) {
        if std::fs::write(&self.file, bytes).is_err() {
            return;
        }
        let req = Request::new(vec![self.file.clone()], vec![self.dir.clone()]);
        let generated = match generate(&req) {
            Ok(g) => g,
            Err(e) => {
                let _ = e.to_string();
                return;
            }
        };
        for w in &generated.warnings {
            let _ = w.to_string();
        }
        emit(generated.document());
        for (name, _) in generated.schemas.iter().take(CRD_MESSAGES) {
            let mut req = req.clone();
            req.message = Some(name.clone());
            let spec = CrdSpec {
                group: "fuzz.example.com".into(),
                kind: "Fuzz".into(),
                version: "v1".into(),
                plural: None,
                scope: Scope::Namespaced,
            };
            match generate_crd(&req, &spec, Some(name)) {
                Ok(g) => emit(g.crd),
                Err(e) => {
                    let _ = e.to_string();
                }
            }
        }
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What `kcel gen` does with a generated document: check its rules, write it as YAML.
fn emit(doc: Value) {
    for problem in kcel_kube::rule_review::check_rules(&doc) {
        let _ = problem.to_string();
    }
    let _ = yaml::into_yaml(doc);
}
