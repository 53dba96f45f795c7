//! `kcel completion bash|zsh|fish`: the shell completion script, generated from the command
//! line's definition by `clap_complete`.
//!
//! ```text
//! source <(kcel completion bash)
//! kcel completion zsh > "${fpath[1]}/_kcel"
//! kcel completion fish > ~/.config/fish/completions/kcel.fish
//! ```

use std::process::ExitCode;

use clap::{CommandFactory, ValueEnum};
use clap_complete::Shell;

#[derive(clap::Args)]
pub struct Args {
    /// The shell.
    #[arg(value_enum)]
    shell: CompletionShell,
}

#[derive(Clone, Copy, ValueEnum)]
enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

pub fn run(args: Args) -> ExitCode {
    let shell = match args.shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
    };
    let mut command = crate::Cli::command();
    clap_complete::generate(shell, &mut command, "kcel", &mut std::io::stdout());
    ExitCode::SUCCESS
}
