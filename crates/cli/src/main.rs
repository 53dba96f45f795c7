//! The `kcel` command line: a thin dispatcher, one module per subcommand.

mod r#gen;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// CEL and Kubernetes validation rules, offline.
#[derive(Parser)]
#[command(name = "kcel", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate OpenAPI schemas or a CRD from .proto files with +kubebuilder markers.
    Gen(r#gen::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Gen(args) => r#gen::run(args),
    }
}
