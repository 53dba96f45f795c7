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
use std::io::Read;
use std::path::{Path as FsPath, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;
use kcel_kube::KubeVersion;
use kcel_kube::crd::{CRD_KIND, CustomResourceDefinition};
use kcel_kube::field::FieldError;
use kcel_kube::pipeline::status::Status;
use kcel_kube::pipeline::{FieldValidation, Operation, Options, Pipeline};
use kcel_kube::rules::CelRuleStep;
use serde_json::{Value, json};

use crate::{EXIT_FAILED, EXIT_USAGE};

/// The largest input file read.
const MAX_INPUT_BYTES: u64 = 64 << 20;

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
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// kubectl's messages.
    Text,
    /// One metav1.Status per document, one JSON object per line.
    Json,
}

/// One document of an input, and where it starts.
pub(crate) struct Document {
    pub source: String,
    pub line: usize,
    pub value: Value,
}

impl Document {
    pub fn location(&self) -> String {
        format!("{}:{}", self.source, self.line)
    }

    fn str_at(&self, pointer: &str) -> &str {
        self.value
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    pub fn kind(&self) -> &str {
        self.str_at("/kind")
    }

    pub fn is_crd(&self) -> bool {
        self.kind() == CRD_KIND
            && self
                .str_at("/apiVersion")
                .starts_with("apiextensions.k8s.io/")
    }
}

/// The files under `path` (itself if a file; `*.yaml`, `*.yml`, `*.json` of a directory,
/// recursively, sorted).
pub(crate) fn expand(path: &str) -> Result<Vec<String>, String> {
    if path == "-" {
        return Ok(vec![path.to_string()]);
    }
    let p = PathBuf::from(path);
    let meta = std::fs::metadata(&p).map_err(|e| format!("{path}: {e}"))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_string()]);
    }
    let mut out = Vec::new();
    let mut stack = vec![p];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
            let child = entry.path();
            if child.is_dir() {
                stack.push(child);
            } else if child
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "yaml" | "yml" | "json"))
            {
                out.push(child.display().to_string());
            }
        }
    }
    out.sort();
    Ok(out)
}

fn read_text(source: &str) -> Result<String, String> {
    if source == "-" {
        let mut s = String::new();
        std::io::stdin()
            .take(MAX_INPUT_BYTES + 1)
            .read_to_string(&mut s)
            .map_err(|e| format!("<stdin>: {e}"))?;
        if s.len() as u64 > MAX_INPUT_BYTES {
            return Err(format!(
                "<stdin>: input is larger than {MAX_INPUT_BYTES} bytes"
            ));
        }
        return Ok(s);
    }
    let path = FsPath::new(source);
    let len = std::fs::metadata(path)
        .map_err(|e| format!("{source}: {e}"))?
        .len();
    if len > MAX_INPUT_BYTES {
        return Err(format!(
            "{source}: file is larger than {MAX_INPUT_BYTES} bytes"
        ));
    }
    std::fs::read_to_string(path).map_err(|e| format!("{source}: {e}"))
}

/// Reads the documents of every file named (directories expanded). Files found in directories
/// that do not parse as YAML or JSON objects are skipped with a warning; named files must parse.
pub(crate) fn read_documents(paths: &[String]) -> Result<Vec<Document>, String> {
    let mut out = Vec::new();
    for p in paths {
        let from_dir = p != "-" && FsPath::new(p).is_dir();
        for file in expand(p)? {
            let text = read_text(&file)?;
            let name = if file == "-" {
                "<stdin>".to_string()
            } else {
                file
            };
            let mut docs = Vec::new();
            match parse_documents(&name, &text, &mut docs) {
                Ok(()) => out.extend(docs),
                Err(e) if from_dir => eprintln!("warning: skipped {e}"),
                Err(e) => return Err(e),
            }
        }
    }
    Ok(out)
}

/// Splits a YAML or JSON stream into documents, expanding `*List` kinds.
fn parse_documents(source: &str, text: &str, out: &mut Vec<Document>) -> Result<(), String> {
    let trimmed = text.trim_start();
    let mut raw = Vec::new();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
        loop {
            let start = text.len() - text[stream.byte_offset()..].trim_start().len();
            match stream.next() {
                None => break,
                Some(Ok(v)) => {
                    let line = text[..start].matches('\n').count() + 1;
                    raw.push((line, v));
                }
                Some(Err(e)) => {
                    return Err(format!("{source}:{}:{}: {e}", e.line(), e.column()));
                }
            }
        }
    } else {
        let docs = kcel_kube::yaml::parse_stream(text).map_err(|e| {
            format!(
                "{source}:{}:{}: {}",
                e.position.line, e.position.column, e.message
            )
        })?;
        for d in docs {
            raw.push((d.start.line, d.value));
        }
    }
    for (line, v) in raw {
        match v {
            Value::Null => {}
            Value::Object(ref o)
                if o.get("kind")
                    .and_then(Value::as_str)
                    .is_some_and(|k| k.ends_with("List"))
                    && o.get("items").is_some_and(Value::is_array) =>
            {
                if let Some(Value::Array(items)) = o.get("items") {
                    for item in items {
                        out.push(Document {
                            source: source.to_string(),
                            line,
                            value: item.clone(),
                        });
                    }
                }
            }
            Value::Object(_) => out.push(Document {
                source: source.to_string(),
                line,
                value: v,
            }),
            _ => {
                return Err(format!("{source}:{line}: a document must be an object"));
            }
        }
    }
    Ok(())
}

/// Decodes the CRDs among `docs`.
pub(crate) fn decode_crds(
    docs: &[Document],
) -> Result<Vec<(CustomResourceDefinition, String)>, String> {
    docs.iter()
        .filter(|d| d.is_crd())
        .map(|d| {
            serde_json::from_value::<CustomResourceDefinition>(d.value.clone())
                .map(|c| (c, d.location()))
                .map_err(|e| format!("{}: {e}", d.location()))
        })
        .collect()
}

/// Parses `--kube-version` (absent: the newest supported release).
pub(crate) fn kube_version(v: Option<&str>) -> Result<KubeVersion, String> {
    match v {
        None => Ok(KubeVersion::default()),
        Some(s) => s.parse().map_err(|e| format!("--kube-version: {e}")),
    }
}

/// What validating one document found.
struct Verdict {
    kind: String,
    name: String,
    status: Status,
    warnings: Vec<String>,
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

fn identity(v: &Value) -> (String, String, String, String) {
    let s = |p: &str| {
        v.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    (
        s("/apiVersion"),
        s("/kind"),
        s("/metadata/namespace"),
        s("/metadata/name"),
    )
}

fn run_inner(args: &Args) -> Result<bool, String> {
    let version = kube_version(args.kube_version.as_deref())?;
    let crd_docs = read_documents(&args.crds)?;
    let docs = read_documents(&args.inputs)?;
    let mut crds = decode_crds(&crd_docs)?;
    crds.extend(decode_crds(&docs)?);
    let old: HashMap<_, Value> = match &args.old {
        Some(f) => read_documents(std::slice::from_ref(f))?
            .into_iter()
            .map(|d| (identity(&d.value), d.value))
            .collect(),
        None => HashMap::new(),
    };
    let mut compiled: HashMap<(usize, String), CelRuleStep> = HashMap::new();
    let mut any_invalid = false;
    let mut unmatched = false;
    for doc in docs.iter().filter(|d| !d.is_crd()) {
        let (api_version, kind, _, name) = identity(&doc.value);
        let (group, ver) = api_version.rsplit_once('/').unwrap_or(("", &api_version));
        let found = crds.iter().enumerate().find(|(_, (c, _))| {
            c.spec.group == group && c.spec.names.kind == kind && c.version(ver).is_some()
        });
        let Some((index, (crd, crd_at))) = found else {
            eprintln!(
                "kcel validate: {}: no matches for kind {kind:?} in version {api_version:?} (no CustomResourceDefinition given serves it)",
                doc.location()
            );
            unmatched = true;
            continue;
        };
        let key = (index, ver.to_string());
        if !compiled.contains_key(&key) {
            let rules = CelRuleStep::for_version(crd, ver, version)
                .map_err(|e| format!("{crd_at}: {e}"))?;
            compiled.insert(key.clone(), rules);
        }
        let rules = &compiled[&key];
        let pipeline =
            Pipeline::new(crd, ver, Some(rules)).map_err(|e| format!("{crd_at}: {e}"))?;
        let operation = match old.get(&identity(&doc.value)) {
            Some(o) => Operation::Update(o.clone()),
            None => Operation::Create,
        };
        let options = Options {
            kube_version: version,
            field_validation: FieldValidation::Strict,
            namespace: args.namespace.clone(),
            ..Options::default()
        };
        let response = pipeline.run(doc.value.clone(), &operation, &options);
        let verdict = Verdict {
            kind: kind.clone(),
            name: name.clone(),
            status: response.status,
            warnings: response.warnings,
        };
        any_invalid |= verdict.status.status != "Success";
        report(doc, &verdict, args.output);
    }
    if unmatched {
        return Err("some documents could not be validated".into());
    }
    Ok(any_invalid)
}

/// kubectl's message for an `Invalid` status: one cause inline, several as a bullet list.
pub(crate) fn kubectl_invalid(kind: &str, name: &str, errors: &[FieldError]) -> String {
    match errors {
        [one] => format!(
            "The {kind} {name:?} is invalid: {}: {}",
            one.path,
            one.body()
        ),
        _ => {
            let mut s = format!("The {kind} {name:?} is invalid: ");
            for e in errors {
                s.push_str(&format!("\n* {}: {}", e.path, e.body()));
            }
            s
        }
    }
}

/// The `metav1.Status` kube-apiserver answers with (`kind` and `apiVersion` as on the wire).
fn status_json(v: &Verdict) -> Value {
    let mut s = serde_json::to_value(&v.status).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut s {
        m.insert("kind".into(), json!("Status"));
        m.insert("apiVersion".into(), json!("v1"));
        if v.status.status == "Success" {
            m.insert("code".into(), json!(200));
        }
    }
    s
}

/// kubectl's rendering of a failed request: the causes of an `Invalid` status inline (one)
/// or as a bullet list (several); otherwise `Error from server (Reason): message`.
fn kubectl_message(v: &Verdict) -> String {
    let causes = v
        .status
        .details
        .as_ref()
        .map(|d| d.causes.as_slice())
        .unwrap_or(&[]);
    if v.status.reason != "Invalid" || causes.is_empty() {
        return format!(
            "Error from server ({}): {}",
            v.status.reason, v.status.message
        );
    }
    let line = |c: &kcel_kube::pipeline::status::Cause| match c.field.as_str() {
        "" => c.message.clone(),
        f => format!("{f}: {}", c.message),
    };
    match causes {
        [one] => format!("The {} {:?} is invalid: {}", v.kind, v.name, line(one)),
        _ => {
            let mut s = format!("The {} {:?} is invalid: ", v.kind, v.name);
            for c in causes {
                s.push_str(&format!(
                    "
* {}",
                    line(c)
                ));
            }
            s
        }
    }
}

fn report(doc: &Document, v: &Verdict, format: Format) {
    for w in &v.warnings {
        eprintln!("Warning: {w}");
    }
    match format {
        Format::Json => println!("{}", status_json(v)),
        Format::Text if v.status.status == "Success" => {
            println!("{}: {} {:?} is valid", doc.location(), v.kind, v.name);
        }
        Format::Text => println!("{}: {}", doc.location(), kubectl_message(v)),
    }
}
