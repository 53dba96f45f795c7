//! The options of an environment.

use crate::cel_go::CelGoVersion;
use crate::syntax::ParserOptions;

/// Options that change what compiles and how.
#[derive(Clone, Debug)]
pub struct EnvOptions {
    /// Parser settings: limits, syntax extensions, macros.
    pub parser: ParserOptions,
    /// Type-check before planning (cel-go's `Compile`). Off: parse only.
    pub check: bool,
    /// Require list and map literals to have one element type (cel-go's
    /// `HomogeneousAggregateLiterals`, a validator run after the check).
    pub homogeneous_aggregate_literals: bool,
    /// Functions whose arguments' list and map literals are exempt from the
    /// homogeneous literal check (cel-go's
    /// `HomogeneousAggregateLiteralExemptFunctions`; the strings extension
    /// adds `format`).
    pub homogeneous_literal_exempt_functions: Vec<String>,
    /// Allow `<`, `<=`, `>`, `>=` across int, uint and double (checker side;
    /// the runtime always supports them).
    pub cross_type_numeric_comparisons: bool,
    /// cel-go's `OptOptimize`: constant list and map literals built once,
    /// conversions of constants folded at plan time.
    pub optimize: bool,
    /// The container (namespace) names are resolved in.
    pub container: String,
    /// Runtime cost of a presence test `has(a.f)` beyond its operand: 1 in
    /// cel-go by default, 0 with Kubernetes' `PresenceTestHasCost(false)`.
    pub presence_test_cost: u64,
    /// Largest list, map (entries) or string/bytes (bytes) evaluation may
    /// build; `None`: unbounded. Exceeding it stops evaluation with an error of
    /// kind `LimitExceeded`.
    pub max_value_size: Option<usize>,
    /// The cel-go release reproduced where releases differ (declarations,
    /// results, error texts; see [`CelGoVersion`]). Applied when the
    /// environment is built.
    pub cel_go: CelGoVersion,
}

impl Default for EnvOptions {
    fn default() -> Self {
        EnvOptions {
            parser: ParserOptions::default(),
            check: true,
            homogeneous_aggregate_literals: false,
            homogeneous_literal_exempt_functions: Vec::new(),
            cross_type_numeric_comparisons: false,
            optimize: false,
            container: String::new(),
            presence_test_cost: 1,
            max_value_size: None,
            cel_go: CelGoVersion::default(),
        }
    }
}
