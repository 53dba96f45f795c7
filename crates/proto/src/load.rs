//! Compiling `.proto` files in pure Rust (protox), with source info for comments.

use std::cell::RefCell;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use miette::Diagnostic as _;
use prost_reflect::DescriptorPool;
use protox::file::{File, FileResolver, GoogleFileResolver, IncludeFileResolver};

use crate::diagnostic::Diagnostic;

/// protox's parser recurses once per nesting level of `{`, `[`, `(` and `<` (in option values),
/// so deeper nesting than this is refused before parsing. Real files nest a few levels.
pub const MAX_NESTING: usize = 128;

/// The largest `.proto` file read.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Compiled files: the descriptor pool (inputs, their imports and the well-known types) and the
/// names of the input files, in the order given.
pub struct Loaded {
    /// The compiled files and their imports.
    pub pool: DescriptorPool,
    /// The input files' names, as the pool knows them.
    pub inputs: Vec<String>,
}

/// The stack of the thread that parses: protox's parser recurses per nesting level (up to
/// [`MAX_NESTING`]) and needs more than the 2 MiB of a default thread in debug builds. Only the
/// pages used are committed.
const PARSER_STACK_BYTES: usize = 64 << 20;

/// Compiles `files`, resolving them and their imports against `includes`. The well-known types
/// (`google/protobuf/*.proto`) resolve without files on disk. An input not under any include path is
/// resolved against its own directory. Parsing runs on a thread with a stack large enough for the
/// deepest nesting accepted.
pub fn load(files: &[PathBuf], includes: &[PathBuf]) -> Result<Loaded, Vec<Diagnostic>> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("kcel-proto-parse".into())
            .stack_size(PARSER_STACK_BYTES)
            .spawn_scoped(scope, || load_here(files, includes))
            .map_err(|e| {
                vec![Diagnostic::error(
                    None,
                    None,
                    format!("cannot start the parser thread: {e}"),
                )]
            })?
            .join()
            .unwrap_or_else(|_| {
                Err(vec![Diagnostic::error(
                    None,
                    None,
                    "the protobuf parser failed unexpectedly",
                )])
            })
    })
}

/// [`load`] on the current thread.
fn load_here(files: &[PathBuf], includes: &[PathBuf]) -> Result<Loaded, Vec<Diagnostic>> {
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
    let refused = Rc::new(RefCell::new(Vec::new()));
    let resolver = GuardedResolver {
        includes: includes
            .iter()
            .map(|i| (i.clone(), IncludeFileResolver::new(i.clone())))
            .collect(),
        google: GoogleFileResolver::new(),
        refused: Rc::clone(&refused),
    };
    let mut compiler = protox::Compiler::with_file_resolver(resolver);
    compiler.include_source_info(true).include_imports(true);
    if let Err(e) = compiler.open_files(files) {
        let mine = refused.borrow();
        return Err(if mine.is_empty() {
            to_diagnostics(&e)
        } else {
            mine.clone()
        });
    }
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

/// Resolves files like protox's default resolver (the include paths in order, then the bundled
/// well-known types), but reads the sources itself so that hostile nesting is refused before
/// protox's recursive parser sees it.
struct GuardedResolver {
    includes: Vec<(PathBuf, IncludeFileResolver)>,
    google: GoogleFileResolver,
    /// Files refused here, with why (protox's error cannot carry a file and line of ours).
    refused: Rc<RefCell<Vec<Diagnostic>>>,
}

impl FileResolver for GuardedResolver {
    fn resolve_path(&self, path: &Path) -> Option<String> {
        self.includes.iter().find_map(|(_, r)| r.resolve_path(path))
    }

    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        for (dir, _) in &self.includes {
            let path = dir.join(name);
            let file = match std::fs::File::open(&path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => {
                    return Err(protox::Error::new(format!(
                        "cannot open {}: {e}",
                        path.display()
                    )));
                }
            };
            let mut text = String::new();
            file.take(MAX_FILE_BYTES + 1)
                .read_to_string(&mut text)
                .map_err(|e| protox::Error::new(format!("cannot read {}: {e}", path.display())))?;
            let refusal = if text.len() as u64 > MAX_FILE_BYTES {
                Some(Diagnostic::error(
                    Some(name),
                    None,
                    format!("file is larger than {MAX_FILE_BYTES} bytes"),
                ))
            } else {
                nesting_too_deep(&text).map(|line| {
                    Diagnostic::error(
                        Some(name),
                        Some(line),
                        format!("brackets nest more than {MAX_NESTING} levels deep"),
                    )
                })
            };
            if let Some(d) = refusal {
                let message = d.to_string();
                self.refused.borrow_mut().push(d);
                return Err(protox::Error::new(message));
            }
            return File::from_source(name, &text);
        }
        self.google.open_file(name)
    }
}

/// The 1-based line where `{`, `[`, `(` or `<` first nest deeper than [`MAX_NESTING`], outside
/// comments and string literals.
fn nesting_too_deep(text: &str) -> Option<u32> {
    let mut depth = 0usize;
    let mut line = 1u32;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => line = line.saturating_add(1),
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        line = line.saturating_add(1);
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut star = false;
                for c in chars.by_ref() {
                    if c == '\n' {
                        line = line.saturating_add(1);
                    }
                    if star && c == '/' {
                        break;
                    }
                    star = c == '*';
                }
            }
            '"' | '\'' => {
                let mut escaped = false;
                for s in chars.by_ref() {
                    if s == '\n' {
                        line = line.saturating_add(1);
                        break;
                    }
                    if escaped {
                        escaped = false;
                    } else if s == '\\' {
                        escaped = true;
                    } else if s == c {
                        break;
                    }
                }
            }
            '{' | '[' | '(' | '<' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(line);
                }
            }
            '}' | ']' | ')' | '>' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_is_measured_outside_comments_and_strings() {
        let deep = format!("message A {{\n{}", "{".repeat(MAX_NESTING));
        assert_eq!(nesting_too_deep(&deep), Some(2));
        let hidden = format!(
            "// {}\n/* {} */ \"{}\" message A {{ map<string, int32> m = 1; }}",
            "{".repeat(500),
            "(".repeat(500),
            "[".repeat(500)
        );
        assert_eq!(nesting_too_deep(&hidden), None);
    }
}
