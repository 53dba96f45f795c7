//! Compiling `.proto` files in pure Rust (protox), with source info for comments.

use std::path::{Path, PathBuf};

use miette::Diagnostic as _;
use prost_reflect::DescriptorPool;

use crate::diagnostic::Diagnostic;

/// Compiled files: the descriptor pool (inputs, their imports and the well-known types) and the
/// names of the input files, in the order given.
pub struct Loaded {
    pub pool: DescriptorPool,
    pub inputs: Vec<String>,
}

/// Compiles `files`, resolving them and their imports against `includes`. The well-known types
/// (`google/protobuf/*.proto`) resolve without files on disk. An input not under any include path is
/// resolved against its own directory.
pub fn load(files: &[PathBuf], includes: &[PathBuf]) -> Result<Loaded, Vec<Diagnostic>> {
    let mut includes: Vec<PathBuf> = includes.to_vec();
    if includes.is_empty() {
        for file in files {
            let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
            let dir = if dir.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                dir
            };
            if !includes.contains(&dir) {
                includes.push(dir);
            }
        }
    }
    let mut compiler = protox::Compiler::new(&includes).map_err(|e| to_diagnostics(&e))?;
    compiler.include_source_info(true).include_imports(true);
    compiler.open_files(files).map_err(|e| to_diagnostics(&e))?;
    let inputs = compiler
        .files()
        .filter(|f| !f.is_import())
        .map(|f| f.name().to_owned())
        .collect::<Vec<_>>();
    // `files()` is in dependency order; report inputs in the order they were given where possible.
    let mut ordered: Vec<String> = Vec::with_capacity(inputs.len());
    for file in files {
        if let Some(name) = inputs
            .iter()
            .find(|n| file.ends_with(n.as_str()) && !ordered.contains(n))
        {
            ordered.push(name.clone());
        }
    }
    for name in inputs {
        if !ordered.contains(&name) {
            ordered.push(name);
        }
    }
    Ok(Loaded {
        pool: compiler.descriptor_pool(),
        inputs: ordered,
    })
}

/// A protox error as diagnostics with file and line (its related errors too).
fn to_diagnostics(err: &protox::Error) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let file = err.file().map(str::to_owned);
    let related: Vec<&dyn miette::Diagnostic> =
        err.related().map(|r| r.collect()).unwrap_or_default();
    if related.is_empty() {
        out.push(one(err, file.as_deref()));
    } else {
        for r in related {
            out.push(one(r, file.as_deref()));
        }
    }
    out
}

/// One miette diagnostic, located by its first label.
fn one(d: &dyn miette::Diagnostic, file: Option<&str>) -> Diagnostic {
    let line = d
        .source_code()
        .zip(d.labels().and_then(|mut l| l.next()))
        .and_then(|(src, label)| {
            src.read_span(label.inner(), 0, 0)
                .ok()
                .and_then(|c| u32::try_from(c.line() + 1).ok())
        });
    let mut message = d.to_string();
    if let Some(help) = d.help() {
        message = format!("{message} ({help})");
    }
    Diagnostic::error(file, line, message)
}
