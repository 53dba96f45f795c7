//! The `main` of a libtest-mimic runner: runs the trials (or one failing trial named
//! `<runner>/setup` when they could not be built) and prints `N passed, N failed, N skipped`.

use std::process::ExitCode;

use libtest_mimic::{Arguments, Trial};

pub fn run_trials(runner: &str, trials: Result<Vec<Trial>, String>) -> ExitCode {
    let args = Arguments::from_args();
    let trials = match trials {
        Ok(t) => t,
        Err(e) => vec![Trial::test(
            format!("{runner}/setup"),
            move || Err(e.into()),
        )],
    };
    let conclusion = libtest_mimic::run(&args, trials);
    println!(
        "{} passed, {} failed, {} skipped",
        conclusion.num_passed, conclusion.num_failed, conclusion.num_ignored
    );
    conclusion.exit_code()
}

/// `trials`, once every skip-file entry named a record (`unused`: the entries left) and a
/// trial was built for each of the `total` records the data holds.
pub fn complete(
    trials: Vec<Trial>,
    total: usize,
    unused: &std::collections::HashMap<String, String>,
) -> Result<Vec<Trial>, String> {
    if !unused.is_empty() {
        return Err(format!("skips naming no record: {:?}", unused.keys()));
    }
    if trials.len() != total {
        return Err(format!("ran {} of {total} records", trials.len()));
    }
    Ok(trials)
}

/// [`run_trials`] for a runner of `records` data records, one trial each: also fails when an
/// unfiltered run ran fewer trials than the data holds.
pub fn run_record_trials(
    runner: &str,
    trials: Result<Vec<Trial>, String>,
    records: usize,
) -> ExitCode {
    let filtered = {
        let args = Arguments::from_args();
        args.filter.is_some() || !args.skip.is_empty() || args.exact
    };
    let count = trials.as_ref().map_or(0, Vec::len);
    let code = run_trials(runner, trials);
    if !filtered && count < records {
        eprintln!("{runner}: {count} trials for {records} records");
        return ExitCode::FAILURE;
    }
    code
}
