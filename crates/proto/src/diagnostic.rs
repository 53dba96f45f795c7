//! Errors and warnings of schema generation, each with the file and line it concerns.

use std::fmt;

/// How serious a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Generation fails.
    Error,
    /// Generation goes on; the user should look.
    Warning,
}

/// One problem found while reading `.proto` files or generating schemas.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The file as named by the include path (e.g. `test/msg.proto`), if the problem has one.
    pub file: Option<String>,
    /// 1-based line number, if known.
    pub line: Option<u32>,
    /// What is wrong.
    pub message: String,
}

impl Diagnostic {
    /// An error at `file:line`.
    pub fn error(file: Option<&str>, line: Option<u32>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            file: file.map(str::to_owned),
            line,
            message: message.into(),
        }
    }

    /// A warning at `file:line`.
    pub fn warning(file: Option<&str>, line: Option<u32>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(file, line, message)
        }
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Renders as `file:line: error: message` (the parts that are known).
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, "{file}:{line}: ")?,
            (Some(file), None) => write!(f, "{file}: ")?,
            _ => {}
        }
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{level}: {}", self.message)
    }
}

/// Generation failed: every diagnostic found (errors first in file order, then warnings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenerateError {
    /// The errors (and warnings) found.
    pub diagnostics: Vec<Diagnostic>,
}

impl fmt::Display for GenerateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for GenerateError {}
