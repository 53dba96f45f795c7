#![deny(missing_docs)]
//! CRD schemas from `.proto` files with `+kubebuilder` markers, in pure Rust.
//!
//! * [`load`] compiles `.proto` files with include paths (protox: no protoc), keeping comments.
//! * [`comments`] splits each leading comment into description and marker lines.
//! * [`markers`] parses controller-tools markers (the full CRD validation set, list/map topology,
//!   item and map-value markers).
//! * [`schema`] maps proto types to OpenAPI v3 as skv2's protoc-gen-openapi does, applies markers,
//!   and detects recursion.
//! * [`crd`] wraps a schema in a CustomResourceDefinition; [`yaml`] writes it as the Go tools do.
//!
//! ```no_run
//! use kcel_proto::{Request, generate};
//! let req = Request::new(vec!["api/widget.proto".into()], vec!["api".into()]);
//! let out = generate(&req).expect("generated");
//! println!("{}", kcel_proto::yaml::to_yaml(&out.document()).expect("yaml"));
//! ```

pub mod comments;
pub mod crd;
pub mod diagnostic;
pub mod load;
pub mod markers;
pub mod schema;
pub mod yaml;

use std::path::PathBuf;

use serde_json::{Map, Value};

pub use comments::DescriptionMode;
pub use crd::{CrdSpec, Scope};
pub use diagnostic::{Diagnostic, GenerateError, Severity};
pub use schema::{Options, Schema};

/// What to generate from.
#[derive(Clone, Debug)]
pub struct Request {
    /// The `.proto` files whose messages are generated.
    pub files: Vec<PathBuf>,
    /// Include paths for the files and their imports.
    pub includes: Vec<PathBuf>,
    /// Only this message (full name, e.g. `test.Msg`), instead of every top-level message and enum.
    pub message: Option<String>,
    /// How schemas are generated.
    pub options: Options,
}

impl Request {
    /// A request for every top-level message of `files`, with skv2's options.
    pub fn new(files: Vec<PathBuf>, includes: Vec<PathBuf>) -> Self {
        Request {
            files,
            includes,
            message: None,
            options: Options::default(),
        }
    }
}

/// Generated schemas, sorted by key, and the warnings found.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The schemas by key.
    pub schemas: Vec<(String, Schema)>,
    /// The warnings.
    pub warnings: Vec<Diagnostic>,
}

impl Generated {
    /// The schema with key `name`.
    pub fn get(&self, name: &str) -> Option<&Schema> {
        self.schemas.iter().find(|(k, _)| k == name).map(|(_, s)| s)
    }

    /// The output document: `{schemas: {key: schema, …}}`.
    pub fn document(&self) -> Value {
        let mut schemas = Map::new();
        for (k, s) in &self.schemas {
            schemas.insert(k.clone(), Value::Object(s.clone()));
        }
        let mut doc = Map::new();
        doc.insert("schemas".into(), Value::Object(schemas));
        Value::Object(doc)
    }
}

/// Generates the schemas `req` asks for. Fails with every error found (and the warnings).
pub fn generate(req: &Request) -> Result<Generated, GenerateError> {
    let loaded = load::load(&req.files, &req.includes)
        .map_err(|diagnostics| GenerateError { diagnostics })?;
    let mut generator = schema::Generator::new(&loaded.pool, &req.options);
    let mut schemas = Vec::new();
    match &req.message {
        Some(name) => match loaded.pool.get_message_by_name(name) {
            Some(msg) => schemas.push((name.clone(), generator.message_schema(&msg))),
            None => {
                return Err(GenerateError {
                    diagnostics: vec![Diagnostic::error(
                        None,
                        None,
                        format!("no message named {name} in the given files or their imports"),
                    )],
                });
            }
        },
        None => {
            for file in &loaded.inputs {
                generator.file_schemas(file, &mut schemas);
            }
        }
    }
    schemas.sort_by(|a, b| a.0.cmp(&b.0));
    finish(generator.into_diagnostics(), schemas)
}

/// Splits diagnostics into a failure (any error) or the warnings of a success.
fn finish(
    mut diagnostics: Vec<Diagnostic>,
    schemas: Vec<(String, Schema)>,
) -> Result<Generated, GenerateError> {
    if diagnostics.iter().any(Diagnostic::is_error) {
        diagnostics.sort_by_key(|d| !d.is_error());
        return Err(GenerateError { diagnostics });
    }
    Ok(Generated {
        schemas,
        warnings: diagnostics,
    })
}

/// A generated CRD and the warnings found.
#[derive(Clone, Debug)]
pub struct GeneratedCrd {
    /// The CRD document.
    pub crd: Value,
    /// The warnings.
    pub warnings: Vec<Diagnostic>,
}

/// Generates a CRD for `spec`. Its `spec` schema is `req.message`, or else the top-level message of
/// the input files named `<Kind>Spec` or `<Kind>`; `status_message` adds a status schema and the
/// status subresource.
pub fn generate_crd(
    req: &Request,
    spec: &CrdSpec,
    status_message: Option<&str>,
) -> Result<GeneratedCrd, GenerateError> {
    let fail = |m: String| GenerateError {
        diagnostics: vec![Diagnostic::error(None, None, m)],
    };
    crd::validate(spec).map_err(|e| fail(e.to_string()))?;
    let loaded = load::load(&req.files, &req.includes)
        .map_err(|diagnostics| GenerateError { diagnostics })?;
    let spec_message = match &req.message {
        Some(m) => m.clone(),
        None => {
            let wanted = [format!("{}Spec", spec.kind), spec.kind.clone()];
            let mut found = None;
            'search: for w in &wanted {
                for file in &loaded.inputs {
                    if let Some(fd) = loaded.pool.get_file_by_name(file)
                        && let Some(m) = fd.messages().find(|m| m.name() == w)
                    {
                        found = Some(m.full_name().to_owned());
                        break 'search;
                    }
                }
            }
            found.ok_or_else(|| {
                fail(format!(
                    "no top-level message {} or {} in the input files: name one with --message",
                    wanted[0], wanted[1]
                ))
            })?
        }
    };
    let find = |name: &str| {
        loaded.pool.get_message_by_name(name).ok_or_else(|| {
            fail(format!(
                "no message named {name} in the given files or their imports"
            ))
        })
    };
    let spec_msg = find(&spec_message)?;
    let status_msg = status_message.map(find).transpose()?;
    let mut generator = schema::Generator::new(&loaded.pool, &req.options);
    let spec_schema = generator.message_schema(&spec_msg);
    let status_schema = status_msg.map(|m| generator.message_schema(&m));
    let generated = finish(generator.into_diagnostics(), Vec::new())?;
    Ok(GeneratedCrd {
        crd: crd::crd(spec, spec_schema, status_schema),
        warnings: generated.warnings,
    })
}
