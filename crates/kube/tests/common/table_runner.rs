//! The frame of the runners of Kubernetes' admission test tables (`admission_tables.rs`,
//! `admission_cel.rs`): skip files of `<name><TAB><reason>` lines, and a `main` that prints
//! `N passed, N failed, N skipped` and fails when fewer trials ran than the data holds.

use std::process::ExitCode;

use libtest_mimic::{Arguments, Trial};

/// Skip patterns and their reasons of a skip file: `<name><TAB><reason>` lines, `#` lines are
/// comments; a pattern ending in `*` matches any name it starts.
pub fn skip_patterns(text: &'static str) -> Vec<(&'static str, &'static str)> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .collect()
}

/// Whether one of `skips` matches `name`.
pub fn is_skipped(skips: &[(&str, &str)], name: &str) -> bool {
    skips.iter().any(|(p, _)| match p.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => *p == name,
    })
}

/// Runs `trials` (with the number of records of the data they were built from); a run that is
/// not filtered fails when fewer trials ran than there are records.
pub fn run_tables(runner: &str, trials: Result<(Vec<Trial>, usize), String>) -> ExitCode {
    let args = Arguments::from_args();
    let (trials, records) = match trials {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{runner}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let filtered = args.filter.is_some() || !args.skip.is_empty() || args.exact;
    let conclusion = libtest_mimic::run(&args, trials);
    println!(
        "{} passed, {} failed, {} skipped",
        conclusion.num_passed, conclusion.num_failed, conclusion.num_ignored
    );
    let ran = conclusion.num_passed + conclusion.num_failed + conclusion.num_ignored;
    if !filtered && ran < records as u64 {
        eprintln!("{runner}: {ran} trials for {records} records");
        return ExitCode::FAILURE;
    }
    conclusion.exit_code()
}
