//! Golden tests: each folder under `tests/golden/` holds `.proto` inputs (the folder is the include
//! path) and the expected output beside them:
//! * `expected.yaml`: the YAML `kcel gen schema` (or, with `crd.txt`, `kcel gen crd`) prints;
//! * `expected.err`: the diagnostics of a failed generation, one per line;
//! * `expected.warn` (optional): the warnings of a successful one.
//!
//! `crd.txt` holds `key=value` lines: group, kind, version, plural, scope, message, status.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use kcel_proto::{CrdSpec, Diagnostic, Request, Scope, generate, generate_crd, yaml};

/// Runs one golden folder; `Err` says how the output differs.
fn run_case(dir: &Path) -> Result<(), String> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "proto"))
        .collect();
    files.sort();
    let mut req = Request::new(files, vec![dir.to_path_buf()]);
    let crd_args = fs::read_to_string(dir.join("crd.txt")).ok().map(|text| {
        text.lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
            .collect::<HashMap<_, _>>()
    });
    let lines = |ds: &[Diagnostic]| ds.iter().map(|d| format!("{d}\n")).collect::<String>();
    let result = match &crd_args {
        None => generate(&req).map(|g| (g.document(), g.warnings)),
        Some(args) => {
            let get = |k: &str| args.get(k).cloned().unwrap_or_default();
            req.message = args.get("message").cloned();
            let spec = CrdSpec {
                group: get("group"),
                kind: get("kind"),
                version: get("version"),
                plural: args.get("plural").cloned(),
                scope: if get("scope") == "Cluster" {
                    Scope::Cluster
                } else {
                    Scope::Namespaced
                },
            };
            generate_crd(&req, &spec, args.get("status").map(String::as_str))
                .map(|g| (g.crd, g.warnings))
        }
    };
    let expected_err = fs::read_to_string(dir.join("expected.err")).ok();
    if std::env::var_os("KCEL_BLESS").is_some() {
        // Writes the current output as the expectation, for review before committing.
        let write =
            |name: &str, text: String| fs::write(dir.join(name), text).map_err(|e| e.to_string());
        match &result {
            Ok((doc, warnings)) => {
                write(
                    "expected.yaml",
                    yaml::to_yaml(doc).map_err(|e| e.to_string())?,
                )?;
                if !warnings.is_empty() {
                    write("expected.warn", lines(warnings))?;
                }
            }
            Err(e) => write("expected.err", lines(&e.diagnostics))?,
        }
        return Ok(());
    }
    match (result, expected_err) {
        (Ok((doc, warnings)), None) => {
            let got = yaml::to_yaml(&doc).map_err(|e| e.to_string())?;
            let want = fs::read_to_string(dir.join("expected.yaml"))
                .map_err(|e| format!("expected.yaml: {e}"))?;
            if got != want {
                return Err(format!("output differs\n--- want\n{want}--- got\n{got}"));
            }
            let want_warn = fs::read_to_string(dir.join("expected.warn")).unwrap_or_default();
            let got_warn = lines(&warnings);
            if got_warn != want_warn {
                return Err(format!(
                    "warnings differ\n--- want\n{want_warn}--- got\n{got_warn}"
                ));
            }
            Ok(())
        }
        (Ok((doc, _)), Some(_)) => Err(format!(
            "expected an error, got\n{}",
            yaml::to_yaml(&doc).map_err(|e| e.to_string())?
        )),
        (Err(e), None) => Err(format!("unexpected error:\n{e}")),
        (Err(e), Some(want)) => {
            let got = lines(&e.diagnostics);
            if got != want {
                return Err(format!("errors differ\n--- want\n{want}--- got\n{got}"));
            }
            Ok(())
        }
    }
}

#[test]
fn golden_cases() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .expect("tests/golden exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let (mut passed, mut failed) = (0, 0);
    for dir in &dirs {
        match run_case(dir) {
            Ok(()) => passed += 1,
            Err(why) => {
                failed += 1;
                eprintln!("FAIL {}: {why}", dir.display());
            }
        }
    }
    println!("{passed} passed, {failed} failed, 0 skipped");
    assert!(passed > 0, "no golden cases found");
    assert_eq!(failed, 0, "{failed} golden cases failed");
    assert_eq!(
        passed + failed,
        dirs.len(),
        "ran fewer cases than the folders hold"
    );
}
