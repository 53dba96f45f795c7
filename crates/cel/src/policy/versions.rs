//! Stored expressions and API versions.
//!
//! Sources: *Validation*: "for expressions that are being stored for later
//! evaluation, stylistic choices made by the client (including leading
//! whitespace or embedded comments) MUST be preserved"; *Versioning*: "an API
//! version MUST accompany the CEL expression, which MUST be used when the
//! expression is evaluated [...] if these CEL expressions need to be stored
//! for subsequent evaluation, the client's API version MUST be stored
//! alongside the expression."
//!
//! A [`PolicyVersions`] holds one [`PolicyEnv`] per API version (each with
//! the variables of that version's resource schema). [`PolicyVersions::accept`]
//! checks an expression in the environment of the version the client wrote
//! it against and returns the [`StoredExpression`] to persist: the text
//! byte for byte, and the version. [`PolicyVersions::load`] compiles a stored
//! expression in its own version's environment, whatever versions were added
//! since.

use std::collections::BTreeMap;
use std::fmt;

use super::{ExpressionError, Policy, PolicyEnv};

/// An expression as persisted: the client's text, unmodified, and the API
/// version it was written against.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StoredExpression {
    /// The expression, verbatim.
    pub text: String,
    /// The API version it was written against.
    pub api_version: String,
}

/// Why a versioned expression cannot be accepted or loaded.
#[derive(Clone, Debug)]
pub enum VersionError {
    /// No environment is registered for this API version.
    UnknownVersion(String),
    /// The version's environment rejects the expression.
    Expression(ExpressionError),
}

impl fmt::Display for VersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionError::UnknownVersion(v) => write!(f, "unsupported API version '{v}'"),
            VersionError::Expression(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for VersionError {}

/// The policy environments of an API, by API version.
#[derive(Clone, Default)]
pub struct PolicyVersions {
    envs: BTreeMap<String, PolicyEnv>,
}

impl PolicyVersions {
    /// No versions registered yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers (or replaces) the environment of `api_version`.
    pub fn version(mut self, api_version: &str, env: PolicyEnv) -> Self {
        self.envs.insert(api_version.to_string(), env);
        self
    }

    /// The environment of `api_version`.
    pub fn env(&self, api_version: &str) -> Option<&PolicyEnv> {
        self.envs.get(api_version)
    }

    /// The registered versions, in lexical order.
    pub fn versions(&self) -> impl Iterator<Item = &str> {
        self.envs.keys().map(String::as_str)
    }

    /// Checks `text` in the environment of `api_version`; on success, the
    /// expression to store (text unmodified) and the compiled policy.
    pub fn accept(
        &self,
        api_version: &str,
        text: &str,
    ) -> Result<(StoredExpression, Policy), VersionError> {
        let policy = self.compile(api_version, text)?;
        let stored = StoredExpression {
            text: text.to_string(),
            api_version: api_version.to_string(),
        };
        Ok((stored, policy))
    }

    /// Compiles a stored expression in the environment of its own version.
    pub fn load(&self, stored: &StoredExpression) -> Result<Policy, VersionError> {
        self.compile(&stored.api_version, &stored.text)
    }

    fn compile(&self, api_version: &str, text: &str) -> Result<Policy, VersionError> {
        let env = self
            .envs
            .get(api_version)
            .ok_or_else(|| VersionError::UnknownVersion(api_version.to_string()))?;
        env.compile(text).map_err(VersionError::Expression)
    }
}
