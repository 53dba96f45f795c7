//! [`PolicyEnvBuilder`]: the configuration of a policy environment, checked
//! as a whole by [`PolicyEnvBuilder::build`].

use std::collections::HashSet;
use std::fmt;
use std::time::Duration;

use indexmap::IndexMap;

use super::env::{Limits, PolicyEnv};
use super::naming::{self, NameProblem};
use super::{
    DEFAULT_MAX_COST, MAX_DEADLINE, MAX_LENGTH_LIMIT, MIN_LENGTH_LIMIT, MIN_NESTING_DEPTH,
    MIN_REPETITIONS, StandardVariable, ip_in_range,
};
use crate::env::{EnvBuilder, Library};
use crate::functions::Function;
use crate::library::Std;
use crate::syntax::{MAX_NESTING_DEPTH_CAP, macros};
use crate::types::Type;

/// Why a policy environment cannot be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// The maximum expression length is outside
    /// [`MIN_LENGTH_LIMIT`]..=[`MAX_LENGTH_LIMIT`].
    ExpressionLengthLimit(usize),
    /// The nesting limit is below [`MIN_NESTING_DEPTH`] or above the parser's
    /// cap ([`MAX_NESTING_DEPTH_CAP`]).
    NestingLimit(usize),
    /// The repetition limit is below [`MIN_REPETITIONS`].
    RepetitionLimit(usize),
    /// The cost limit is zero: nothing but literals would pass.
    CostLimit(u64),
    /// The deadline is zero or longer than [`MAX_DEADLINE`].
    Deadline(Duration),
    /// A variable or property name breaks the naming rules.
    VariableName {
        /// The name given.
        name: String,
        /// What is wrong with it.
        problem: NameProblem,
    },
    /// Two declarations map to the same CEL variable.
    DuplicateVariable(String),
    /// A size is given for a variable that is not declared.
    UnknownVariable(String),
    /// A host function's name is not lower camel case (or is reserved).
    FunctionName {
        /// The name given.
        name: String,
        /// What is wrong with it.
        problem: NameProblem,
    },
    /// A host function overload returns `dyn` (or a type containing it).
    DynamicResult {
        /// The function's name.
        function: String,
        /// The overload's id.
        overload_id: String,
    },
    /// A host function overload has no implementation.
    MissingImplementation {
        /// The function's name.
        function: String,
        /// The overload's id.
        overload_id: String,
    },
    /// A host function overload reuses the id of an overload the environment
    /// already has (it would replace standard behaviour).
    OverloadRedefined {
        /// The function's name.
        function: String,
        /// The overload's id.
        overload_id: String,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::ExpressionLengthLimit(n) => write!(
                f,
                "maximum expression length {n} is outside {MIN_LENGTH_LIMIT}..={MAX_LENGTH_LIMIT}"
            ),
            ConfigError::NestingLimit(n) => write!(
                f,
                "nesting limit {n} is outside {MIN_NESTING_DEPTH}..={MAX_NESTING_DEPTH_CAP}"
            ),
            ConfigError::RepetitionLimit(n) => {
                write!(f, "repetition limit {n} is below {MIN_REPETITIONS}")
            }
            ConfigError::CostLimit(n) => write!(f, "cost limit {n} must be positive"),
            ConfigError::Deadline(d) => write!(
                f,
                "evaluation deadline {d:?} is outside (0, {MAX_DEADLINE:?}]"
            ),
            ConfigError::VariableName { name, problem } => {
                write!(
                    f,
                    "variable '{name}': {}",
                    describe(problem, "lower snake case")
                )
            }
            ConfigError::DuplicateVariable(name) => {
                write!(f, "variable '{name}' is declared twice")
            }
            ConfigError::UnknownVariable(name) => {
                write!(f, "variable '{name}' is not declared")
            }
            ConfigError::FunctionName { name, problem } => {
                write!(
                    f,
                    "function '{name}': {}",
                    describe(problem, "lower camel case")
                )
            }
            ConfigError::DynamicResult {
                function,
                overload_id,
            } => write!(
                f,
                "function '{function}' overload '{overload_id}' has a dynamic result type"
            ),
            ConfigError::MissingImplementation {
                function,
                overload_id,
            } => write!(
                f,
                "function '{function}' overload '{overload_id}' has no implementation"
            ),
            ConfigError::OverloadRedefined {
                function,
                overload_id,
            } => write!(
                f,
                "function '{function}' overload '{overload_id}' is already defined"
            ),
        }
    }
}

fn describe(problem: &NameProblem, case: &str) -> String {
    match problem {
        NameProblem::Case { segment } => format!("'{segment}' is not in {case}"),
        NameProblem::Reserved { segment } => format!("'{segment}' is a CEL reserved identifier"),
    }
}

impl std::error::Error for ConfigError {}

/// A declared variable: its type and the name the host binds it under.
#[derive(Clone, Debug)]
pub(crate) struct Declaration {
    pub(crate) ty: Type,
    /// The name [`crate::Activation::resolve`] is asked for: the CEL name for
    /// variables, the property name for properties (`namespace` for
    /// `__namespace__`).
    pub(crate) binding: String,
    /// The largest size of its values (code points, bytes, entries), if known.
    pub(crate) max_size: Option<u64>,
}

/// Configures a [`PolicyEnv`]. Setters never fail; [`PolicyEnvBuilder::build`]
/// reports every configuration error at once.
pub struct PolicyEnvBuilder {
    limits: Limits,
    variables: IndexMap<String, Declaration>,
    /// Maximum sizes by CEL variable name, applied at build.
    sizes: Vec<(String, u64)>,
    functions: Vec<Function>,
    libraries: Vec<Box<dyn Library>>,
    errors: Vec<ConfigError>,
}

impl Default for PolicyEnvBuilder {
    fn default() -> Self {
        PolicyEnvBuilder {
            limits: Limits {
                max_length: MAX_LENGTH_LIMIT,
                result_type: Type::Bool,
                max_cost: DEFAULT_MAX_COST,
                max_nesting_depth: MIN_NESTING_DEPTH,
                max_repetitions: MIN_REPETITIONS,
                deadline: MAX_DEADLINE,
            },
            variables: IndexMap::new(),
            sizes: Vec::new(),
            functions: Vec::new(),
            libraries: Vec::new(),
            errors: Vec::new(),
        }
    }
}

impl PolicyEnvBuilder {
    /// Defaults: length 1000, result type `bool`, cost [`DEFAULT_MAX_COST`],
    /// nesting and repetitions 32, deadline 500 ms, no variables.
    pub fn new() -> Self {
        Self::default()
    }

    /// The maximum length of an expression in code points, counted on the
    /// verbatim text (comments and whitespace included). *Validation*:
    /// "Maximum length (at least 100 characters, and at most 1000
    /// characters)": any value in 100..=1000.
    pub fn max_expression_length(mut self, n: usize) -> Self {
        if !(MIN_LENGTH_LIMIT..=MAX_LENGTH_LIMIT).contains(&n) {
            self.errors.push(ConfigError::ExpressionLengthLimit(n));
        }
        self.limits.max_length = n;
        self
    }

    /// The type every expression must have. *Validation*: expressions "MUST
    /// be statically checked [...] for: Expected result type". `dyn` accepts
    /// every type. Default `bool`.
    pub fn result_type(mut self, t: Type) -> Self {
        self.limits.result_type = t;
        self
    }

    /// The largest cost an expression may have, in CEL cost units (the units
    /// of cel-go's cost model). *Validation*: expressions must be checked for
    /// "Time and space complexity (which must be assessed in the context in
    /// which the expression will be evaluated)". Checked statically on the
    /// upper bound of the estimated cost ([`crate::cost::estimate`], with the
    /// sizes of [`Self::max_size`] as the context), which bounds time and the
    /// space of values built alike; enforced again at evaluation as a runtime
    /// cost limit (for host values larger than their declared size): an
    /// evaluation past it is aborted and counts as `false`.
    pub fn max_cost(mut self, n: u64) -> Self {
        if n == 0 {
            self.errors.push(ConfigError::CostLimit(n));
        }
        self.limits.max_cost = n;
        self
    }

    /// The maximum nesting depth (the parser's `max_nesting_depth`: nested
    /// parentheses, calls, lists and maps, and the depth of operator and
    /// member chains). *Validation* requires "32 nested expressions": at least
    /// [`MIN_NESTING_DEPTH`], at most the parser's cap. Default 32.
    pub fn max_nesting_depth(mut self, n: usize) -> Self {
        if !(MIN_NESTING_DEPTH..=MAX_NESTING_DEPTH_CAP).contains(&n) {
            self.errors.push(ConfigError::NestingLimit(n));
        }
        self.limits.max_nesting_depth = n;
        self
    }

    /// The maximum repetitions of one grammar rule in a row (see
    /// [`super::repetition`] for what counts). *Validation* requires "32
    /// repetitions of self-recursive or repetitive rules": at least
    /// [`MIN_REPETITIONS`]. Default 32.
    pub fn max_repetitions(mut self, n: usize) -> Self {
        if n < MIN_REPETITIONS {
            self.errors.push(ConfigError::RepetitionLimit(n));
        }
        self.limits.max_repetitions = n;
        self
    }

    /// How long an evaluation may run before it is aborted and counts as
    /// `false`. *Validation*: "any CEL expression that takes longer than 500
    /// milliseconds to execute MUST be aborted, and treated as if it evaluated
    /// to false [...] evaluation MAY be aborted earlier": any positive
    /// duration up to [`MAX_DEADLINE`], the default.
    pub fn deadline(mut self, d: Duration) -> Self {
        if d.is_zero() || d > MAX_DEADLINE {
            self.errors.push(ConfigError::Deadline(d));
        }
        self.limits.deadline = d;
        self
    }

    /// Declares a context variable (dotted names allowed, e.g.
    /// `request.user_agent`), bound under the same name. *Variables*: "Any
    /// context-specific data MUST be provided in variables which MUST be
    /// named in lower snake case": every segment must be lower snake case and
    /// not a reserved identifier (declare reserved property names with
    /// [`Self::property`]).
    pub fn variable(mut self, name: &str, t: Type) -> Self {
        match naming::check_variable_name(name) {
            Ok(()) => self.declare(name.to_string(), name.to_string(), t),
            Err(problem) => self.errors.push(ConfigError::VariableName {
                name: name.to_string(),
                problem,
            }),
        }
        self
    }

    /// Declares a resource property as a variable (the graph fragment
    /// pattern of *Variables*: "a collection expression that allows a
    /// resource to be filtered by its `type` property values MUST provide a
    /// CEL variable named `type`"). The property must be in lower snake case;
    /// a property named by a CEL reserved identifier is exposed as
    /// `__name__` ("it MUST be surrounded by double-underscores", e.g.
    /// `namespace` → `__namespace__`) and is still bound under its property
    /// name.
    pub fn property(mut self, property: &str, t: Type) -> Self {
        if !naming::is_lower_snake_case(property) {
            self.errors.push(ConfigError::VariableName {
                name: property.to_string(),
                problem: NameProblem::Case {
                    segment: property.to_string(),
                },
            });
            return self;
        }
        let name = naming::property_variable_name(property).into_owned();
        self.declare(name, property.to_string(), t);
        self
    }

    /// Declares standardized variables (*Variables*: "The following
    /// additional variables are standardized and MUST be used when
    /// applicable"), e.g. [`StandardVariable::ALL`].
    ///
    /// The IP address variables get a maximum size of
    /// [`StandardVariable::max_size`] (45 code points, the longest textual
    /// IPv6 address), so that string functions on them have a bounded cost;
    /// the bodies have none until the host sets one with [`Self::max_size`].
    pub fn standard_variables(mut self, vars: impl IntoIterator<Item = StandardVariable>) -> Self {
        for v in vars {
            self.declare(v.name().to_string(), v.name().to_string(), v.cel_type());
            if let Some(n) = v.max_size() {
                self.sizes.push((v.name().to_string(), n));
            }
        }
        self
    }

    /// The largest size the values of variable `name` (its CEL name) can have:
    /// code points of a string, bytes, entries of a list or map. The cost
    /// estimate uses it; without it, a string, bytes, list or map variable
    /// has an unknown size and any work proportional to its size has an
    /// unbounded estimated cost, which [`Self::max_cost`] rejects. The host's
    /// values must respect it (the runtime cost limit still catches values
    /// that do not).
    pub fn max_size(mut self, name: &str, n: u64) -> Self {
        self.sizes.push((name.to_string(), n));
        self
    }

    fn declare(&mut self, name: String, binding: String, ty: Type) {
        if self.variables.contains_key(&name) {
            self.errors.push(ConfigError::DuplicateVariable(name));
            return;
        }
        self.variables.insert(
            name,
            Declaration {
                ty,
                binding,
                max_size: None,
            },
        );
    }

    /// Adds a host function. *Additional functions*: "these functions MUST
    /// be named in lower camel case with any initialisms treated as words
    /// (e.g., `isAscii()`, not `isASCII()`). Additionally, these functions
    /// MUST NOT use dynamic return types." So: every segment of the name is
    /// lower camel case ([`naming::is_lower_camel_case`]); no overload returns
    /// `dyn` or `google.protobuf.Any`, nor a list, map, wrapper or type with
    /// one inside; every overload has an implementation; no overload reuses
    /// an id the environment already defines.
    pub fn function(mut self, f: Function) -> Self {
        if let Err(problem) = naming::check_function_name(&f.name) {
            self.errors.push(ConfigError::FunctionName {
                name: f.name.clone(),
                problem,
            });
        }
        for o in &f.overloads {
            let ids = || (f.name.clone(), o.id.to_string());
            if contains_dyn(&o.result) {
                let (function, overload_id) = ids();
                self.errors.push(ConfigError::DynamicResult {
                    function,
                    overload_id,
                });
            }
            if o.imp.is_none() {
                let (function, overload_id) = ids();
                self.errors.push(ConfigError::MissingImplementation {
                    function,
                    overload_id,
                });
            }
        }
        self.functions.push(f);
        self
    }

    /// Adds a CEL library (for example one of [`crate::library::ext`]). Its
    /// functions are the host's responsibility: they are not checked against
    /// the additional-function rules, which the CEL libraries already follow
    /// in their naming.
    pub fn library(mut self, lib: impl Library + 'static) -> Self {
        self.libraries.push(Box::new(lib));
        self
    }

    /// Checks the configuration and builds the environment: the standard
    /// library and macros (the *Minimum support* subset and more), `ipInRange`,
    /// the libraries, the host functions and the variables.
    pub fn build(self) -> Result<PolicyEnv, Vec<ConfigError>> {
        let mut errors = self.errors;
        let mut variables = self.variables;
        for (name, n) in self.sizes {
            match variables.get_mut(&name) {
                Some(d) => d.max_size = Some(n),
                None => errors.push(ConfigError::UnknownVariable(name)),
            }
        }
        let mut env = EnvBuilder::new().library(Std);
        env.options_mut().parser.macros = macros::standard();
        env.options_mut().parser.max_nesting_depth = self.limits.max_nesting_depth;
        env.options_mut().parser.max_expression_length = self.limits.max_length;
        // *Minimum support*: an `int` literal must be usable where a double
        // is compared (`d > 8`).
        env.options_mut().cross_type_numeric_comparisons = true;
        env.add_function(ip_in_range::function());
        for lib in &self.libraries {
            lib.install(&mut env);
        }
        let existing: HashSet<std::sync::Arc<str>> = env
            .functions
            .values()
            .flat_map(|f| f.overloads.iter().map(|o| o.id.clone()))
            .collect();
        let mut added = HashSet::new();
        for f in self.functions {
            for o in &f.overloads {
                if existing.contains(&o.id) || !added.insert(o.id.clone()) {
                    errors.push(ConfigError::OverloadRedefined {
                        function: f.name.clone(),
                        overload_id: o.id.to_string(),
                    });
                }
            }
            env.add_function(f);
        }
        for (name, d) in &variables {
            env.add_variable(name, d.ty.clone());
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(PolicyEnv::new(
            env.build(),
            self.limits,
            variables.into_iter().collect(),
        ))
    }
}

/// Does `t` involve `dyn` (or `Any`) anywhere?
fn contains_dyn(t: &Type) -> bool {
    match t {
        Type::Dyn | Type::Any => true,
        Type::List(e) | Type::Wrapper(e) => contains_dyn(e),
        Type::Map(k, v) => contains_dyn(k) || contains_dyn(v),
        Type::Type(Some(e)) => contains_dyn(e),
        Type::Opaque(_, ps) => ps.iter().any(contains_dyn),
        _ => false,
    }
}
