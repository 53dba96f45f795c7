//! `kcel validate`: validate documents against their CRDs offline, as kube-apiserver
//! validates them on create (or update, with `--old`), as a CI gate.
//!
//! ```text
//! kcel validate [--crd FILE|DIR]... [--old FILE] [--delete FILE|DIR]... [-n NAMESPACE]
//!               [--kube-version 1.NN]
//!               [--skip-kinds K,..]... [--reject-kinds K,..]... [--ignore-missing-schemas]
//!               [--validate strict|warn|ignore] [-j N] [-o text|json|junit|tap|sarif|github]
//!               [--policy FILE|DIR]... [--user NAME] [--group GROUP]... [--dry-run]
//!               [--namespace-labels NS=KEY=VALUE[,KEY=VALUE]]... [--print-mutated]
//!               [--authz FILE | --authz-allow-all]
//!               FILES|DIRS|-
//! ```
//!
//! Inputs are YAML or JSON streams (`kind: List` documents are expanded); CRDs found among them
//! count as if given with `--crd`. Every CRD is reviewed as kube-apiserver reviews a CRD being
//! created, and each other document is validated against the CRD serving its `apiVersion` and
//! `kind` ([`kcel_kube::gate`]); the report is rendered in the chosen format
//! ([`kcel_kube::report`]). What runs per document is kube-apiserver's custom-resource pipeline
//! ([`kcel_kube::pipeline`]): decoding, pruning (unknown fields are errors under the default
//! `--validate strict`), defaulting, OpenAPI schema validation, metadata and list-type checks,
//! the CEL rules with the per-object cost budget, and ratcheting on update. Then, for an accepted
//! object, the MutatingAdmissionPolicies among the inputs and `--policy` files with their
//! bindings (a changed object runs through the pipeline again; `--print-mutated` prints it), and
//! the ValidatingAdmissionPolicies ([`kcel_kube::admission`]): a denial makes the object invalid
//! with the server's message, `Warn` actions add warnings, audit annotations are reported. Policy and binding
//! documents are themselves checked as the server checks them when they are created.
//!
//! Exit codes: 0 every document valid (or skipped), 1 some object invalid, 2 some input could
//! not be validated (unreadable, malformed, without kind, no or a rejected CRD; the report names
//! file and line) or bad usage.

use std::collections::BTreeMap;
use std::io::{BufWriter, IsTerminal, Write};
use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::ValueEnum;
use clap::builder::PossibleValuesParser;
use kcel_kube::admission::RequestOptions;
use kcel_kube::admission::authorizer::AuthzRules;
use kcel_kube::admission::request::UserInfo;
use kcel_kube::documents::{Document, Documents, LocatedCrd, decode_crds};
use kcel_kube::gate::{self, GateOptions, Inputs, KindPatterns, Progress};
use kcel_kube::report::{Format, Record, RecordWriter, RenderOptions};
use kcel_kube::{Error, FieldValidation, KubeVersion, Validator};
use serde_json::Value;

use crate::EXIT_USAGE;

#[derive(clap::Args)]
pub struct Args {
    /// Documents to validate: files, directories (`*.yaml`, `*.yml`, `*.json`, recursively) or
    /// `-` for standard input. CRDs among them are used too. Optional with `--delete`.
    #[arg(required_unless_present = "delete", value_name = "FILES|DIRS|-")]
    inputs: Vec<String>,
    /// CRDs to validate against (files or directories).
    #[arg(long = "crd", value_name = "FILE|DIR")]
    crds: Vec<String>,
    /// The objects as they were before (validates as an update: transition rules run,
    /// unchanged parts ratchet). Matched by apiVersion, kind, namespace and name.
    #[arg(long = "old", value_name = "FILE")]
    old: Option<String>,
    /// Objects to delete (files or directories; repeatable): each is the stored object of a
    /// DELETE request (`object` null, `oldObject` the document, `request.operation` DELETE),
    /// answered by the admission policies alone, as the server validates no schema on delete.
    /// Reported like the inputs (`may be deleted`, or the denial).
    #[arg(long = "delete", value_name = "FILE|DIR")]
    delete: Vec<String>,
    /// The Kubernetes version to behave as (1.28 to 1.37; default the newest).
    #[arg(long = "kube-version", value_name = "1.NN")]
    kube_version: Option<String>,
    /// The namespace requests are sent to (`kubectl -n`): objects of namespaced kinds without
    /// one land there, objects naming another are refused (400 BadRequest); default: each
    /// object's own namespace, else `default`.
    #[arg(short = 'n', long = "namespace", value_name = "NAMESPACE")]
    namespace: Option<String>,
    /// OpenAPI v3 documents (`*.json`, as `kubectl get --raw /openapi/v3/apis/<group>/<version>`
    /// saves them) whose kinds add to or override the built-in kinds (files or directories).
    #[arg(long = "schemas", value_name = "FILE|DIR")]
    schemas: Vec<String>,
    /// Kinds not to validate (reported as skipped): comma-separated `Kind` or
    /// `apiVersion/Kind` (`apps/v1/Deployment`), as kubeconform's `-skip`; repeatable.
    #[arg(long = "skip-kinds", value_name = "KINDS")]
    skip_kinds: Vec<String>,
    /// Kinds to refuse (reported as errors): comma-separated `Kind` or `apiVersion/Kind`, as
    /// kubeconform's `-reject`; repeatable.
    #[arg(long = "reject-kinds", value_name = "KINDS")]
    reject_kinds: Vec<String>,
    /// Skip objects no CRD serves instead of reporting them as errors.
    #[arg(long = "ignore-missing-schemas")]
    ignore_missing_schemas: bool,
    /// What unknown fields are (kubectl's `--validate`): strict errors, warnings, or ignored.
    #[arg(long = "validate", value_enum, default_value_t = Validation::Strict)]
    validate: Validation,
    /// Threads validating documents (default: all cores); the output does not depend on it.
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<NonZeroUsize>,
    /// Admission policies, their bindings, params and Namespaces (files or directories); their
    /// documents are used, not validated. Policies among the inputs count too.
    #[arg(long = "policy", value_name = "FILE|DIR")]
    policies: Vec<String>,
    /// The user sending the requests (`request.userInfo.username` of admission policies).
    #[arg(long = "user", value_name = "NAME")]
    user: Option<String>,
    /// A group of the user (`request.userInfo.groups`); repeatable.
    #[arg(long = "group", value_name = "GROUP")]
    groups: Vec<String>,
    /// Requests are dry runs (`request.dryRun`).
    #[arg(long = "dry-run")]
    dry_run: bool,
    /// Labels of a namespace not among the inputs, for policies' namespace selectors:
    /// `NAMESPACE=KEY=VALUE[,KEY=VALUE]`; repeatable.
    #[arg(long = "namespace-labels", value_name = "NS=KEY=VALUE,..")]
    namespace_labels: Vec<String>,
    /// What admission policies' `authorizer` checks answer: a YAML list of rules, the first
    /// matching rule deciding; no matching rule is "no opinion" (`allowed()` false, as RBAC
    /// granting nothing). Without it every check is "no opinion". A rule's fields: who
    /// (`users`, `groups`, `serviceAccounts: [{namespace, name}]`; none of them: everyone),
    /// `verbs`, what a resource check names (`apiGroups`, `resources`, `subresources`,
    /// `namespaces`, `names`) or a path check's `nonResourceURLs` (a trailing `*` matches a
    /// prefix), and `decision: allow|deny|noOpinion` with optional `reason` and `error` (the
    /// decision errored with this text). Absent lists and `*` match anything. See the README's
    /// "Authorizer".
    #[arg(
        long = "authz",
        value_name = "FILE",
        conflicts_with = "authz_allow_all"
    )]
    authz: Option<String>,
    /// Every `authorizer` check of admission policies is allowed.
    #[arg(long = "authz-allow-all")]
    authz_allow_all: bool,
    /// Output format: kubectl's messages and a summary line (text), one JSON document of
    /// records, JUnit XML, TAP 14, SARIF 2.1.0 or GitHub Actions annotations.
    #[arg(short = 'o', long = "output", default_value = "text",
          value_parser = PossibleValuesParser::new(Format::NAMES))]
    output: String,
    /// After the text report, print each object MutatingAdmissionPolicies changed, as the
    /// server would store it (JSON, as `kubectl create --dry-run=server -o json` shows it).
    /// The json report carries it as `mutatedObject`.
    #[arg(long = "print-mutated")]
    print_mutated: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Validation {
    /// Unknown fields make the object invalid.
    #[value(alias = "true")]
    Strict,
    /// Unknown fields are warnings.
    Warn,
    /// Unknown fields are dropped silently.
    #[value(alias = "false")]
    Ignore,
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

/// Whether colour goes to standard output: a terminal, and `NO_COLOR` unset or empty
/// (<https://no-color.org>).
pub(crate) fn stdout_colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

pub fn run(args: Args) -> ExitCode {
    let parsed = kube_version(args.kube_version.as_deref())
        .and_then(|v| Ok((v, args.output.parse::<Format>().map_err(|e| e.to_string())?)));
    let (version, format) = match parsed {
        Ok(v) => v,
        Err(message) => {
            eprintln!("kcel validate: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    if args.print_mutated && format != Format::Text {
        eprintln!(
            "kcel validate: --print-mutated needs -o text (the json report has each record's mutatedObject)"
        );
        return ExitCode::from(EXIT_USAGE);
    }
    let field_validation = match args.validate {
        Validation::Strict => FieldValidation::Strict,
        Validation::Warn => FieldValidation::Warn,
        Validation::Ignore => FieldValidation::Ignore,
    };
    let validator = Validator::builder()
        .kube_version(version)
        .field_validation(field_validation)
        .schemas_dirs(&args.schemas)
        .and_then(|b| b.check_documents().map(|()| b));
    let validator = match validator {
        Ok(v) => v,
        Err(e) => {
            eprintln!("kcel validate: --schemas: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let namespace_labels = match parse_namespace_labels(&args.namespace_labels) {
        Ok(l) => l,
        Err(message) => {
            eprintln!("kcel validate: --namespace-labels: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let authorizer = match (&args.authz, args.authz_allow_all) {
        (Some(file), _) => match AuthzRules::read(file) {
            Ok(rules) => rules,
            Err(e) => {
                eprintln!("kcel validate: --authz: {e}");
                return ExitCode::from(EXIT_USAGE);
            }
        },
        (None, true) => AuthzRules::allow_all(),
        (None, false) => AuthzRules::default(),
    };
    let admission = RequestOptions {
        user: UserInfo {
            username: args.user.clone().unwrap_or_default(),
            groups: args.groups.clone(),
            ..Default::default()
        },
        dry_run: args.dry_run,
        namespace_labels,
        authorizer,
    };
    let options = GateOptions {
        skip_kinds: KindPatterns::parse(&args.skip_kinds),
        reject_kinds: KindPatterns::parse(&args.reject_kinds),
        ignore_missing_schemas: args.ignore_missing_schemas,
        namespace: args.namespace.clone(),
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN)),
        admission,
    };
    let inputs = Inputs {
        crds: args.crds.clone(),
        documents: args.inputs.clone(),
        old: args.old.clone(),
        policies: args.policies.clone(),
        delete: args.delete.clone(),
    };
    let progress = Progress::default();
    let render = RenderOptions {
        colour: format == Format::Text && stdout_colour(),
        tool_version: Some(env!("CARGO_PKG_VERSION").to_string()),
        jobs: Some(options.jobs),
    };
    // Records are written as they come; the objects admission mutated are printed after the
    // report.
    let mut writer = RecordWriter::new(format, render, BufWriter::new(std::io::stdout()));
    let mut mutated = Vec::new();
    let mut failed = None;
    let mut emit = |mut record: Record| {
        if args.print_mutated
            && let Some(object) = record.mutated.take()
        {
            mutated.push((record.file.clone(), record.line, object));
        }
        match writer.record(record) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                failed = Some(e);
                ControlFlow::Break(())
            }
        }
    };
    let notices = std::thread::scope(|scope| {
        let (finished, stop) = mpsc::channel::<()>();
        if std::io::stderr().is_terminal() {
            let progress = &progress;
            scope.spawn(move || show_progress(progress, &stop));
        }
        let notices = gate::stream(validator, &options, &inputs, Some(&progress), &mut emit);
        drop(finished);
        notices
    });
    let summary = writer.summary();
    let written = match failed {
        Some(e) => Err(e),
        None => writer
            .finish()
            .and_then(|mut out| print_mutated(&mutated, &mut out).and_then(|()| out.flush())),
    };
    if let Err(e) = written {
        eprintln!("kcel validate: writing the report: {e}");
        return ExitCode::from(EXIT_USAGE);
    }
    for notice in &notices {
        eprintln!("notice: {notice}");
    }
    ExitCode::from(summary.exit_code())
}

/// Each object admission mutated (with `--print-mutated`), under a `# file:line` line naming
/// its document.
fn print_mutated(
    mutated: &[(String, Option<usize>, Value)],
    out: &mut impl Write,
) -> std::io::Result<()> {
    for (file, line, object) in mutated {
        let json = kcel_kube::go::fmt::to_json_pretty(object).map_err(std::io::Error::other)?;
        match line {
            Some(line) => writeln!(out, "# {file}:{line}")?,
            None => writeln!(out, "# {file}")?,
        }
        writeln!(out, "{json}")?;
    }
    Ok(())
}

/// Namespace labels by namespace, from `NAMESPACE=KEY=VALUE[,KEY=VALUE]` arguments.
fn parse_namespace_labels(args: &[String]) -> Result<NamespaceLabels, String> {
    let mut out = NamespaceLabels::new();
    for arg in args {
        let (ns, pairs) = arg
            .split_once('=')
            .filter(|(ns, _)| !ns.is_empty())
            .ok_or_else(|| format!("{arg:?}: expected NAMESPACE=KEY=VALUE[,KEY=VALUE]"))?;
        let labels = out.entry(ns.to_string()).or_default();
        for pair in pairs.split(',') {
            let (k, v) = pair
                .split_once('=')
                .filter(|(k, _)| !k.is_empty())
                .ok_or_else(|| format!("{arg:?}: {pair:?} is not KEY=VALUE"))?;
            labels.insert(k.to_string(), v.to_string());
        }
    }
    Ok(out)
}

/// Labels by namespace name.
type NamespaceLabels = BTreeMap<String, BTreeMap<String, String>>;

/// How long a run goes before it shows progress, and how often the line is redrawn.
const PROGRESS_AFTER: Duration = Duration::from_secs(1);
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// Redraws `validated N/M documents` on standard error (a terminal) once the run has taken
/// [`PROGRESS_AFTER`], until `stop` disconnects; then erases it.
fn show_progress(progress: &Progress, stop: &mpsc::Receiver<()>) {
    let start = Instant::now();
    let mut shown = false;
    while let Err(mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(PROGRESS_EVERY) {
        if start.elapsed() < PROGRESS_AFTER {
            continue;
        }
        let done = progress.done.load(std::sync::atomic::Ordering::Relaxed);
        let total = progress.total.load(std::sync::atomic::Ordering::Relaxed);
        eprint!("\rvalidated {done}/{total} documents");
        shown = true;
    }
    if shown {
        eprint!("\r\x1b[K");
    }
}
