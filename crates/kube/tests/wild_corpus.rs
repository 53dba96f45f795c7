//! The wild corpus (`../shared/corpora/wild`: the CRDs and examples of 46 projects) against what
//! Kubernetes 1.35 answers for it (`wild/oracle/{crds,examples}/<project>.out.json`, and for the
//! examples also `data/wild_extra/<project>.out.json`: the answers recorded here for documents the
//! shared outputs lack; a case answered in both places fails).
//!
//! Cases are built from the corpus files as the oracle's generators built them
//! (`wild/oracle/crds_to_cases.py`, `examples_to_cases.py`), reading the YAML with kcel's reader:
//!
//! * one CRD case per CRD document, id `<file>#<index among the file's documents>`; its verdict
//!   is whether the CRD is rejected on create;
//! * one example case per object document whose `apiVersion`/`kind` a served version of one of
//!   the project's CRDs (first of each `metadata.name`; the last such CRD of a group, version and
//!   kind) serves, id `<file>#<index among the file's object documents>`, created with
//!   `fieldValidation: Strict` in namespace `default` unless the object names one. Its verdict is
//!   `Success`, `Failure` or "CRD rejected"; its causes (`reason|field|message`, as a multiset)
//!   must match too.
//!
//! Every verdict must match; causes for at least 99% of the examples run. Cases listed in
//! `wild_corpus.skip` (`crd:<project>/<id>` or `example:<project>/<id>`, then the reason) are
//! skipped; a case without a recorded answer fails. Three closing lines, `N passed, N failed,
//! N skipped` each: CRD verdicts, example verdicts, example causes.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use kcel_kube::crd::CustomResourceDefinition;
use kcel_kube::crd_review::validate_crd;
use kcel_kube::pipeline::{FieldValidation, KubeVersion, Operation, Options, Pipeline, Status};
use kcel_kube::rules::CelRuleStep;
use serde_json::Value;

mod common;
use common::{cause_strings, shared_or_skip, skip_list, sorted};

/// The least share of examples whose causes must match.
const MIN_CAUSES_SHARE: f64 = 0.99;

#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    skipped: usize,
}

impl Tally {
    fn total(&self) -> usize {
        self.passed + self.failed + self.skipped
    }

    fn line(&self, what: &str) -> String {
        format!(
            "{what}: {} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        )
    }
}

/// The sorted files of `dir` (none when it does not exist).
fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.retain(|p| p.is_file());
    out.sort();
    out
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The documents of a YAML file, as kcel reads them (`Err` with the reader's message).
fn documents(path: &Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let docs = kcel_kube::yaml::parse_stream(&text).map_err(|e| e.to_string())?;
    Ok(docs.into_iter().map(|d| d.value).collect())
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

fn is_crd(v: &Value) -> bool {
    v.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
}

/// What a recorded answer or a kcel run says about one example: verdict and causes.
#[derive(Debug, PartialEq)]
struct Answer {
    verdict: String,
    causes: Vec<String>,
}

const CRD_REJECTED: &str = "CRD rejected";

/// The recorded answer of an example case.
fn recorded(want: &Value) -> Answer {
    if let Some(st) = want.get("crdStatus") {
        return Answer {
            verdict: CRD_REJECTED.into(),
            causes: sorted(cause_strings(st)),
        };
    }
    match want.get("status") {
        Some(st) => Answer {
            verdict: str_at(st, "/status").to_string(),
            causes: sorted(cause_strings(st)),
        },
        None => Answer {
            verdict: format!("decode error: {}", str_at(want, "/decodeError")),
            causes: Vec::new(),
        },
    }
}

fn status_answer(verdict: &str, st: &Status) -> Answer {
    let v = serde_json::to_value(st).unwrap_or(Value::Null);
    Answer {
        verdict: verdict.to_string(),
        causes: sorted(cause_strings(&v)),
    }
}

/// The `.out.json` records of one project, by case name.
fn outputs(path: &Path) -> BTreeMap<String, Value> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return BTreeMap::new();
    };
    let all: Value = serde_json::from_str(&text).expect("oracle output is JSON");
    all.as_array()
        .into_iter()
        .flatten()
        .map(|r| (str_at(r, "/name").to_string(), r.clone()))
        .collect()
}

/// The answers recorded in this repository for example documents the shared outputs lack
/// (`data/wild_extra/<project>.out.json`, made as its `README.md` says).
fn extra_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/wild_extra")
}

/// A CRD of the corpus, decoded, with whether Kubernetes 1.35 (as kcel sees it) accepts it.
struct Crd {
    crd: CustomResourceDefinition,
    rejection: Option<Status>,
}

fn review(v: &Value, kv: KubeVersion) -> Result<Crd, String> {
    let crd: CustomResourceDefinition =
        serde_json::from_value(v.clone()).map_err(|e| format!("CRD decode: {e}"))?;
    let errs = validate_crd(&crd, None, kv);
    let rejection = (!errs.is_empty()).then(|| {
        Status::invalid(
            "apiextensions.k8s.io",
            "CustomResourceDefinition",
            &crd.metadata.name,
            &errs,
            kv,
        )
    });
    Ok(Crd { crd, rejection })
}

struct Run {
    crds: Tally,
    verdicts: Tally,
    causes: Tally,
    /// Records of the `.out.json` files: CRDs, examples.
    recorded: (usize, usize),
    /// Example cases answered both in the shared outputs and in `data/wild_extra`.
    answered_twice: Vec<String>,
    /// The projects whose example answers were read.
    example_projects: Vec<String>,
}

/// The CRD cases of one project (`crds_to_cases.py`).
fn crd_cases(project: &Path, name: &str, run: &mut Run, skips: &HashMap<String, String>) {
    let kv = KubeVersion::new(35).expect("supported");
    let mut want = outputs(
        &project
            .join("../oracle/crds")
            .join(format!("{name}.out.json")),
    );
    run.recorded.0 += want.len();
    for file in files(&project.join("crds")) {
        let docs = match documents(&file) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("FAIL crd:{name}/{}: unreadable: {e}", file_name(&file));
                continue;
            }
        };
        for (i, doc) in docs.iter().enumerate().filter(|(_, d)| is_crd(d)) {
            let id = format!("{}#{i}", file_name(&file));
            let Some(w) = want.remove(&id) else {
                run.crds.failed += 1;
                eprintln!("FAIL crd:{name}/{id}: no recorded answer");
                continue;
            };
            if skips.contains_key(&format!("crd:{name}/{id}")) {
                run.crds.skipped += 1;
                continue;
            }
            let want_rejected = w.get("crdStatus").is_some();
            match review(doc, kv) {
                Ok(c) if c.rejection.is_some() == want_rejected => run.crds.passed += 1,
                Ok(c) => {
                    run.crds.failed += 1;
                    let got = c.rejection.map(|s| s.message).unwrap_or_default();
                    eprintln!(
                        "FAIL crd:{name}/{id}: rejected {}, want {want_rejected}: {got}",
                        !want_rejected
                    );
                }
                Err(e) => {
                    run.crds.failed += 1;
                    eprintln!("FAIL crd:{name}/{id}: {e}");
                }
            }
        }
    }
    for id in want.keys() {
        run.crds.failed += 1;
        eprintln!("FAIL crd:{name}/{id}: recorded but not found in the corpus");
    }
}

/// The CRDs an example can use: by `metadata.name` (first wins), and which one serves each
/// group, version and kind (last wins), as `examples_to_cases.py` indexes them.
struct Served {
    crds: HashMap<String, Value>,
    index: HashMap<(String, String, String), String>,
}

fn served(project: &Path) -> Served {
    let mut s = Served {
        crds: HashMap::new(),
        index: HashMap::new(),
    };
    for file in files(&project.join("crds")) {
        for d in documents(&file).unwrap_or_default() {
            if !d.is_object() || !is_crd(&d) {
                continue;
            }
            let id = str_at(&d, "/metadata/name").to_string();
            if s.crds.contains_key(&id) {
                continue;
            }
            let group = str_at(&d, "/spec/group").to_string();
            let kind = str_at(&d, "/spec/names/kind").to_string();
            for v in d
                .pointer("/spec/versions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if v.get("served").and_then(Value::as_bool) == Some(true) {
                    let key = (group.clone(), str_at(v, "/name").to_string(), kind.clone());
                    s.index.insert(key, id.clone());
                }
            }
            s.crds.insert(id, d);
        }
    }
    s
}

/// Runs one example through kcel: its answer.
fn run_example(
    object: &Value,
    crd: &Crd,
    version: &str,
    rules: &mut HashMap<String, CelRuleStep>,
    crd_id: &str,
) -> Result<Answer, String> {
    let kv = KubeVersion::new(35).expect("supported");
    if let Some(st) = &crd.rejection {
        return Ok(status_answer(CRD_REJECTED, st));
    }
    let key = format!("{crd_id}/{version}");
    if !rules.contains_key(&key) {
        let r = CelRuleStep::for_version(&crd.crd, version, kv)?;
        rules.insert(key.clone(), r);
    }
    let step = rules.get(&key).ok_or("rules not compiled")?;
    let pipeline = Pipeline::new(&crd.crd, version, Some(step)).map_err(|e| e.to_string())?;
    let options = Options {
        kube_version: kv,
        field_validation: FieldValidation::Strict,
        ..Options::default()
    };
    let resp = pipeline.run(object.clone(), &Operation::Create, &options);
    if let Some(e) = &resp.decode_error {
        return Ok(Answer {
            verdict: format!("decode error: {e}"),
            causes: Vec::new(),
        });
    }
    Ok(status_answer(&resp.status.status, &resp.status))
}

/// The example cases of one project (`examples_to_cases.py`).
fn example_cases(project: &Path, name: &str, run: &mut Run, skips: &HashMap<String, String>) {
    let kv = KubeVersion::new(35).expect("supported");
    let mut want = outputs(
        &project
            .join("../oracle/examples")
            .join(format!("{name}.out.json")),
    );
    for (id, w) in outputs(&extra_dir().join(format!("{name}.out.json"))) {
        if want.insert(id.clone(), w).is_some() {
            eprintln!("FAIL example:{name}/{id}: answered in the shared outputs and in wild_extra");
            run.answered_twice.push(format!("{name}/{id}"));
        }
    }
    run.example_projects.push(name.to_string());
    run.recorded.1 += want.len();
    let served = served(project);
    let mut reviewed: HashMap<String, Result<Crd, String>> = HashMap::new();
    let mut rules = HashMap::new();
    for file in files(&project.join("examples")) {
        let docs = match documents(&file) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("FAIL example:{name}/{}: unreadable: {e}", file_name(&file));
                continue;
            }
        };
        for (i, doc) in docs.iter().filter(|d| d.is_object()).enumerate() {
            let api_version = match doc.get("apiVersion") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            let (group, version) = api_version.rsplit_once('/').unwrap_or(("", &api_version));
            let kind = str_at(doc, "/kind");
            let key = (group.to_string(), version.to_string(), kind.to_string());
            let Some(crd_id) = served.index.get(&key) else {
                continue;
            };
            let id = format!("{}#{i}", file_name(&file));
            let Some(w) = want.remove(&id) else {
                run.verdicts.failed += 1;
                eprintln!("FAIL example:{name}/{id}: no recorded answer");
                continue;
            };
            if skips.contains_key(&format!("example:{name}/{id}")) {
                run.verdicts.skipped += 1;
                run.causes.skipped += 1;
                continue;
            }
            let crd = reviewed
                .entry(crd_id.clone())
                .or_insert_with(|| review(&served.crds[crd_id], kv));
            let got = match crd {
                Ok(c) => run_example(doc, c, version, &mut rules, crd_id),
                Err(e) => Err(e.clone()),
            };
            let want = recorded(&w);
            match got {
                Ok(g) => {
                    let verdict_ok = g.verdict == want.verdict;
                    let causes_ok = verdict_ok && g.causes == want.causes;
                    if verdict_ok {
                        run.verdicts.passed += 1;
                    } else {
                        run.verdicts.failed += 1;
                    }
                    if causes_ok {
                        run.causes.passed += 1;
                    } else {
                        run.causes.failed += 1;
                        eprintln!(
                            "FAIL example:{name}/{id}: {}\n  got:  {} {:?}\n  want: {} {:?}",
                            if verdict_ok { "causes" } else { "verdict" },
                            g.verdict,
                            g.causes,
                            want.verdict,
                            want.causes
                        );
                    }
                }
                Err(e) => {
                    run.verdicts.failed += 1;
                    run.causes.failed += 1;
                    eprintln!("FAIL example:{name}/{id}: {e}");
                }
            }
        }
    }
    for id in want.keys() {
        run.verdicts.failed += 1;
        run.causes.failed += 1;
        eprintln!("FAIL example:{name}/{id}: recorded but not found in the corpus");
    }
}

#[test]
fn wild_corpus() {
    let Some(shared) = shared_or_skip("wild corpus") else {
        return;
    };
    let wild = shared.join("corpora/wild");
    let skips = skip_list(include_str!("wild_corpus.skip"));
    let mut run = Run {
        crds: Tally::default(),
        verdicts: Tally::default(),
        causes: Tally::default(),
        recorded: (0, 0),
        answered_twice: Vec::new(),
        example_projects: Vec::new(),
    };
    let mut projects: Vec<_> = std::fs::read_dir(&wild)
        .expect("wild corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("crds").is_dir())
        .collect();
    projects.sort();
    for project in &projects {
        let name = file_name(project);
        crd_cases(project, &name, &mut run, &skips);
        if project.join("examples").is_dir() {
            example_cases(project, &name, &mut run, &skips);
        }
    }
    println!("{}", run.crds.line("CRD verdicts"));
    println!("{}", run.verdicts.line("example verdicts"));
    println!("{}", run.causes.line("example causes"));
    let extra_files: Vec<String> = files(&extra_dir())
        .iter()
        .map(|p| file_name(p))
        .filter_map(|n| n.strip_suffix(".out.json").map(str::to_string))
        .collect();
    let unused: Vec<&String> = extra_files
        .iter()
        .filter(|p| !run.example_projects.contains(p))
        .collect();
    let ran = run.causes.passed + run.causes.failed;
    let share = if ran == 0 {
        0.0
    } else {
        run.causes.passed as f64 / ran as f64
    };
    println!("example causes: {:.2}% of {ran} run", share * 100.0);
    assert_eq!(
        run.crds.total(),
        run.recorded.0,
        "CRD cases run and recorded differ in number"
    );
    assert_eq!(
        run.verdicts.total(),
        run.recorded.1,
        "example cases run and recorded differ in number"
    );
    assert!(
        run.recorded.0 > 0 && run.recorded.1 > 0,
        "no recorded answers"
    );
    assert!(
        !extra_files.is_empty(),
        "no answers in {}",
        extra_dir().display()
    );
    assert!(
        unused.is_empty(),
        "wild_extra answers for projects without examples in the corpus: {unused:?}"
    );
    assert!(
        run.answered_twice.is_empty(),
        "example cases answered in the shared outputs and in wild_extra: {:?}",
        run.answered_twice
    );
    assert_eq!(run.crds.failed, 0, "CRD verdicts differ");
    assert_eq!(run.verdicts.failed, 0, "example verdicts differ");
    assert!(
        share >= MIN_CAUSES_SHARE,
        "example causes match for {:.2}% < {:.0}%",
        share * 100.0,
        MIN_CAUSES_SHARE * 100.0
    );
}
