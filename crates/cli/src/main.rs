//! The `kcel` command line: a thin dispatcher, one module per subcommand.
//!
//! Exit codes (all subcommands): 0 success, 1 the expression failed to compile
//! or to evaluate, 2 usage error (bad arguments, unreadable input).

mod check;
mod completion;
mod decl;
mod env;
mod eval;
mod r#gen;
mod test_cmd;
mod validate;
mod version;

use std::process::ExitCode;

/// mimalloc instead of the system allocator: `kcel validate` allocates and frees a tree per
/// document, per-thread heaps keep `-j` threads from contending for glibc's arenas.
#[global_allocator]
static ALLOCATOR: kcel_alloc::MiMalloc = kcel_alloc::MiMalloc;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// CEL and Kubernetes validation rules, offline.
#[derive(Parser)]
#[command(name = "kcel", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compile and evaluate a CEL expression.
    Eval(eval::Args),
    /// Generate OpenAPI schemas or a CRD from .proto files with +kubebuilder markers.
    Gen(r#gen::Args),
    /// Check the CEL rules of CRDs as kube-apiserver does when they are created.
    Check(check::Args),
    /// Validate custom resources against their CRDs as kube-apiserver does.
    Validate(validate::Args),
    /// Run custom-resource test files: oracle-style case files, or declarative CRD test
    /// suites (`*.testsuite.yaml`) against `--crd` files.
    Test(test_cmd::Args),
    /// Print a shell completion script.
    Completion(completion::Args),
    /// Print kcel's version and the Kubernetes versions it reproduces.
    Version,
}

/// Exit code of a usage error (as clap's own).
pub const EXIT_USAGE: u8 = 2;
/// Exit code of a compile or evaluation error.
pub const EXIT_FAILED: u8 = 1;

fn main() -> ExitCode {
    // `--version` prints what `kcel version` prints (the text is built at run time).
    let version: &'static str = version::text().leak();
    let matches = Cli::command().version(version).get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    match cli.command {
        Command::Eval(args) => eval::run(args),
        Command::Gen(args) => r#gen::run(args),
        Command::Check(args) => check::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Test(args) => test_cmd::run(args),
        Command::Completion(args) => completion::run(args),
        Command::Version => version::run(),
    }
}
