//! `kcel eval`: compile an expression in the full environment (with the
//! messages of `--proto` files), evaluate it against `--var` bindings, print
//! the result.

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;

use cel::proto::ProtoTypes;
use cel::{Type, Value};
use clap::ValueEnum;

use crate::{EXIT_FAILED, EXIT_USAGE, decl, env};

/// Inputs larger than this are refused (`--var name=@file`).
const MAX_INPUT_BYTES: u64 = 256 << 20;

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
    #[arg(long = "container", default_value = "")]
    container: String,
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
    let mut builder = env::full();
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
    let estimate = args.cost.then(|| {
        cel::cost::estimate(
            &checked,
            &env,
            &cel::cost::EstimateOptions::default(),
            cel::cost::Hooks::none(),
        )
    });
    let options = cel::EvalOptions {
        track_cost: args.cost,
        ..cel::EvalOptions::default()
    };
    let evaluation = program.eval_with(&bindings, &options);
    let mut notes = Vec::new();
    if args.show_type {
        notes.push(format!(
            "type: {}",
            cel::checker::format::format_type(checked.result_type())
        ));
    }
    if let Some(estimate) = estimate {
        notes.push(match estimate {
            Ok(e) => format!("estimated cost: {{{}, {}}}", e.min, e.max),
            Err(e) => format!("estimated cost: {e}"),
        });
    }
    if let Some(actual) = evaluation.cost {
        notes.push(format!("actual cost: {actual}"));
    }
    let value = match evaluation.value {
        Ok(v) => v,
        Err(e) => {
            for n in &notes {
                eprintln!("{n}");
            }
            eprintln!("evaluation error: {e}");
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
