//! `kcel eval`: compile an expression in the full environment (with the
//! messages of `--proto` files), or with `--kube` in the environment of
//! Kubernetes' validation rules for a release, evaluate it against `--var`
//! bindings, print the result.
//!
//! Every evaluation is bounded: by a runtime cost limit (default: Kubernetes'
//! per-call limit with `--kube`, [`DEFAULT_COST_LIMIT`] otherwise) and by a
//! deadline ([`DEFAULT_TIMEOUT`]); past either it stops with an evaluation
//! error that says which bound was reached and how to raise it.

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cel::proto::ProtoTypes;
use cel::{Type, Value};
use clap::ValueEnum;

use crate::{EXIT_FAILED, EXIT_USAGE, decl, env};

/// Inputs larger than this are refused (`--var name=@file`).
const MAX_INPUT_BYTES: u64 = 256 << 20;

/// The runtime cost limit without `--kube` and without `--cost-limit`: ten times Kubernetes'
/// per-object budget (`RuntimeCELCostBudget`), a few seconds of evaluation.
pub const DEFAULT_COST_LIMIT: u64 = 100_000_000;

/// The deadline without `--timeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(clap::Args)]
pub struct Args {
    /// The CEL expression.
    expr: String,
    /// Binds a variable: `name=<json>`, or `name=@file.json` to read the JSON
    /// from a file. Variables without a `--decl` are declared `dyn`.
    #[arg(long = "var", value_name = "NAME=JSON")]
    vars: Vec<String>,
    /// Declares a variable's type: `name:type`, types as cel-go prints them
    /// (`int`, `list(string)`, `map(string, dyn)`, `optional_type(int)`).
    #[arg(long = "decl", value_name = "NAME:TYPE")]
    decls: Vec<String>,
    /// Output format of the result.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Cel)]
    output: Format,
    /// Also print the checked type of the expression (`value : type`, as
    /// cel-go's REPL shows it; on standard error with `-o json`).
    #[arg(short = 't', long = "type")]
    show_type: bool,
    /// Also print the estimated cost range (cel-go's static estimate, no size
    /// knowledge of the variables) and the actual runtime cost of this
    /// evaluation (on standard error with `-o json`).
    #[arg(long = "cost")]
    cost: bool,
    /// A `.proto` file whose messages and enums the expression may use
    /// (repeatable; compiled with its imports, no protoc needed). A
    /// `--var` declared with a message type reads its JSON as that message
    /// (protobuf JSON mapping).
    #[arg(long = "proto", value_name = "FILE.proto")]
    protos: Vec<String>,
    /// A folder imports are resolved in (repeatable; default: the folders of
    /// the `--proto` files).
    #[arg(short = 'I', long = "proto_path", value_name = "DIR")]
    includes: Vec<String>,
    /// The container (package) names are resolved in (`TestAllTypes` in
    /// `pkg` is `pkg.TestAllTypes`).
    #[arg(long = "container", default_value = "", conflicts_with = "kube")]
    container: String,
    /// Compile and evaluate in the environment of Kubernetes' validation
    /// rules (its libraries: quantity, url, regex, lists, sets, ip, cidr,
    /// format, semver, authz, …; its runtime costs; as stored rules run).
    #[arg(long = "kube", conflicts_with_all = ["protos", "includes"])]
    kube: bool,
    /// The Kubernetes release whose rule environment `--kube` uses (1.28 to
    /// 1.37; default the newest).
    #[arg(long = "kube-version", value_name = "1.NN", requires = "kube")]
    kube_version: Option<String>,
    /// Stop the evaluation past this runtime cost (`none`: no limit; default:
    /// Kubernetes' per-call limit, 1000000, with `--kube`, else 100000000).
    #[arg(long = "cost-limit", value_name = "N|none")]
    cost_limit: Option<String>,
    /// Stop the evaluation after this long (`500ms`, `10s`, `2m`; `none`: no
    /// deadline; default 10s).
    #[arg(long = "timeout", value_name = "DURATION|none")]
    timeout: Option<String>,
}

/// The bounds of one evaluation.
struct Bounds {
    cost_limit: Option<u64>,
    timeout: Option<Duration>,
}

/// `--cost-limit` and `--timeout` with their defaults.
fn bounds(args: &Args) -> Result<Bounds, String> {
    let cost_limit = match args.cost_limit.as_deref() {
        Some("none") => None,
        Some(n) => Some(
            n.parse::<u64>()
                .map_err(|e| format!("--cost-limit {n:?}: {e} (a number, or none)"))?,
        ),
        None if args.kube => Some(kcel_kube::rules::env::PER_CALL_LIMIT),
        None => Some(DEFAULT_COST_LIMIT),
    };
    let timeout = match args.timeout.as_deref() {
        Some("none") => None,
        Some(text) => {
            let d: jiff::SignedDuration = text.parse().map_err(|e| {
                format!("--timeout {text:?}: {e} (a duration such as 500ms, 10s or 2m, or none)")
            })?;
            let d = Duration::try_from(d)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| format!("--timeout {text:?}: must be positive"))?;
            Some(d)
        }
        None => Some(DEFAULT_TIMEOUT),
    };
    Ok(Bounds {
        cost_limit,
        timeout,
    })
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// CEL literal syntax.
    Cel,
    /// JSON (bytes in base64, timestamps and durations as strings, protobuf
    /// messages in the protobuf JSON mapping; NaN, infinities and type values
    /// have no JSON form and are errors).
    Json,
}

pub fn run(args: Args) -> ExitCode {
    let types = match proto_types(&args) {
        Ok(t) => t,
        Err(message) => {
            eprintln!("kcel eval: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let Inputs { bindings, decls } = match inputs(&args, types.as_deref()) {
        Ok(x) => x,
        Err(message) => {
            eprintln!("kcel eval: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let limits = match bounds(&args) {
        Ok(b) => b,
        Err(message) => {
            eprintln!("kcel eval: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let kube = match args
        .kube
        .then(|| crate::validate::kube_version(args.kube_version.as_deref()))
        .transpose()
    {
        Ok(k) => k,
        Err(message) => {
            eprintln!("kcel eval: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let mut builder = match kube {
        Some(version) => env::kube(version),
        None => env::full(),
    };
    builder.options_mut().container = args.container.clone();
    if let Some(types) = types {
        builder = builder.type_provider(types);
    }
    for (name, t) in decls {
        builder.add_variable(&name, t);
    }
    let env = builder.build();
    let checked = match env.parse(&args.expr).and_then(|ast| env.check(&ast)) {
        Ok(c) => c,
        Err(issues) => {
            eprintln!("{issues}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let program = match env.program_checked(&checked) {
        Ok(p) => p,
        Err(issues) => {
            eprintln!("{issues}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let estimate = args.cost.then(|| match kube {
        Some(version) => kcel_kube::rules::estimate::estimate_unsized(&env, &checked, version),
        None => cel::cost::estimate(
            &checked,
            &env,
            &cel::cost::EstimateOptions::default(),
            cel::cost::Hooks::none(),
        ),
    });
    let options = cel::EvalOptions {
        track_cost: args.cost,
        cost_limit: limits.cost_limit,
        cancel: None,
        deadline: limits.timeout.map(|t| Instant::now() + t),
    };
    let evaluation = program.eval_with(&bindings, &options);
    let mut notes = Vec::new();
    if args.show_type {
        notes.push(format!(
            "type: {}",
            cel::checker::format_type(checked.result_type())
        ));
    }
    if let Some(estimate) = estimate {
        notes.push(match estimate {
            Ok(e) => format!("estimated cost: {{{}, {}}}", e.min, e.max),
            Err(e) => format!("estimated cost: {e}"),
        });
    }
    // A cost limit tracks the cost too; it is shown when asked for.
    if let Some(actual) = evaluation.cost.filter(|_| args.cost) {
        notes.push(format!("actual cost: {actual}"));
    }
    let value = match evaluation.value {
        Ok(v) => v,
        Err(e) => {
            for n in &notes {
                eprintln!("{n}");
            }
            eprintln!("evaluation error: {e}");
            if let Some(bound) = bound_reached(&e, &limits) {
                eprintln!("kcel eval: {bound}");
            }
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let shown = match args.output {
        Format::Cel => Ok(value.to_string()),
        Format::Json => value
            .to_json()
            .map_err(|e| e.to_string())
            .and_then(|j| serde_json::to_string_pretty(&j).map_err(|e| e.to_string())),
    };
    match shown {
        Ok(text) => {
            println!("{text}");
            for n in &notes {
                match args.output {
                    Format::Cel => println!("{n}"),
                    Format::Json => eprintln!("{n}"),
                }
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("kcel eval: cannot print the result: {message}");
            ExitCode::from(EXIT_FAILED)
        }
    }
}

/// What the command line binds and declares.
struct Inputs {
    bindings: HashMap<String, Value>,
    /// Every bound variable is declared, `dyn` unless `--decl` says otherwise.
    decls: Vec<(String, Type)>,
}

/// The message types of `--proto` files, if any.
fn proto_types(args: &Args) -> Result<Option<Arc<ProtoTypes>>, String> {
    if args.protos.is_empty() {
        return Ok(None);
    }
    ProtoTypes::compile(&args.protos, &args.includes)
        .map(|t| Some(Arc::new(t)))
        .map_err(|e| e.to_string())
}

/// `name:type`, where the type may name a message of `types`.
fn parse_decl(
    text: &str,
    types: Option<&ProtoTypes>,
    container: &str,
) -> Result<(String, Type), String> {
    if let (Some(types), Some((name, t))) = (types, text.split_once(':'))
        && let Some((_, message)) = types.resolve(container, t.trim())
    {
        return Ok((name.trim().to_string(), message));
    }
    decl::parse_decl(text)
}

fn inputs(args: &Args, types: Option<&ProtoTypes>) -> Result<Inputs, String> {
    let mut decls: Vec<(String, Type)> = Vec::new();
    for d in &args.decls {
        let (name, t) = parse_decl(d, types, &args.container)?;
        if decls.iter().any(|(n, _)| *n == name) {
            return Err(format!("--decl {name}: declared twice"));
        }
        decls.push((name, t));
    }
    let mut bindings = HashMap::new();
    for v in &args.vars {
        let (name, text) = v
            .split_once('=')
            .ok_or_else(|| format!("--var {v:?}: expected name=<json> or name=@file.json"))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(format!("--var {v:?}: the variable name is empty"));
        }
        let text = match text.strip_prefix('@') {
            Some(path) => read_file(path)?,
            None => text.to_string(),
        };
        let parsed: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("--var {name}: invalid JSON: {e}"))?;
        let declared = decls.iter().find(|(n, _)| n == name).map(|(_, t)| t);
        let value =
            match (declared, types) {
                (Some(Type::Object(message)), Some(types)) => types
                    .value_from_json(message, &parsed)
                    .map_err(|e| format!("--var {name}: {e}"))?,
                _ => Value::from_json(&parsed),
            };
        if bindings.insert(name.to_string(), value).is_some() {
            return Err(format!("--var {name}: bound twice"));
        }
        if !decls.iter().any(|(n, _)| n == name) {
            decls.push((name.to_string(), Type::Dyn));
        }
    }
    Ok(Inputs { bindings, decls })
}

fn read_file(path: &str) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    if meta.len() > MAX_INPUT_BYTES {
        return Err(format!("{path}: larger than {MAX_INPUT_BYTES} bytes"));
    }
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

/// Which bound stopped an evaluation, and how to raise it; `None` for other errors.
fn bound_reached(error: &cel::EvalError, limits: &Bounds) -> Option<String> {
    match error.kind() {
        cel::ErrorKind::CostLimitExceeded => {
            let limit = limits.cost_limit.map_or("none".into(), |l| l.to_string());
            Some(format!(
                "the runtime cost limit ({limit}) was reached; raise it with --cost-limit N or lift it with --cost-limit none"
            ))
        }
        cel::ErrorKind::Cancelled => {
            let timeout = limits.timeout.map_or("none".into(), |t| format!("{t:?}"));
            Some(format!(
                "the evaluation ran past the timeout ({timeout}); raise it with --timeout DURATION or lift it with --timeout none"
            ))
        }
        _ => None,
    }
}
