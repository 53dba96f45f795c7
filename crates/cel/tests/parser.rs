//! Data-driven parser tests against cel-go's own outputs.
//!
//! * `cel-go-extra/{parsing,comprehension,checking}.json` (`../shared/cel-spec`):
//!   for each record with a parsed AST, the AST printed with cel-go's adorned
//!   debug format (`^#*expr.Constant_Int64Value#` kinds) must match; for each
//!   record without an AST, the parse error text must match exactly.
//! * `json/*.json` (the conformance suite): every expression must parse.
//!
//! Records known not to match are listed in `parser.skip` with the reason.
//! Without the shared data the tests print a notice and pass, except when
//! `CI=true`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use cel::syntax::debug::{KindAdorner, to_adorned_debug_string};
use cel::syntax::macros::{self, Macro, MacroContext, MacroError};
use cel::syntax::{Expr, ParserOptions, Source, parse, parse_source};

fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var("KCEL_SHARED") {
        Ok(d) => PathBuf::from(d),
        Err(_) => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "shared reference data not found at {}",
        dir.display()
    );
    eprintln!(
        "NOTICE: shared reference data not found at {}; skipping",
        dir.display()
    );
    None
}

fn load(path: &PathBuf) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn skips() -> HashMap<String, String> {
    let text = include_str!("parser.skip");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (key, reason) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            (key.to_string(), reason.trim().to_string())
        })
        .collect()
}

/// A macro that declines to expand (cel-go's parser test `noop_macro`).
fn noop(
    _: &mut MacroContext<'_>,
    _: &mut Option<Expr>,
    _: &mut Vec<Expr>,
) -> Result<Option<Expr>, MacroError> {
    Ok(None)
}

/// The options cel-go's parser tests use for `parsing.json`.
fn parsing_options() -> ParserOptions {
    let mut macros = macros::standard();
    macros.push(Macro {
        name: "noop_macro".into(),
        receiver_style: false,
        arg_count: None,
        expander: noop,
    });
    ParserOptions {
        max_nesting_depth: 32,
        error_recovery_limit: 4,
        populate_macro_calls: true,
        macros,
        ..ParserOptions::default()
    }
}

fn standard_options() -> ParserOptions {
    ParserOptions {
        macros: macros::standard(),
        ..ParserOptions::default()
    }
}

#[test]
fn cel_go_parser_outputs() {
    let Some(shared) = shared_dir() else { return };
    let skip = skips();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for (file, opts) in [
        ("parsing", parsing_options()),
        ("comprehension", standard_options()),
        ("checking", standard_options()),
    ] {
        let data = load(&shared.join(format!("cel-spec/cel-go-extra/{file}.json")));
        let tests = data["tests"].as_array().cloned().unwrap_or_default();
        for (i, t) in tests.iter().enumerate() {
            let key = format!("{file}:{i}");
            let expr = t["original"]["expr"].as_str().unwrap_or_default();
            let want_ast = t.get("ast").and_then(|a| a.as_str());
            let want_err = t.get("error").and_then(|a| a.as_str());
            if want_ast.is_none() && want_err.is_none() {
                continue;
            }
            if skip.contains_key(&key) {
                skipped += 1;
                continue;
            }
            let got = parse_source(Arc::new(Source::with_description(expr, "")), &opts);
            let (ok, got_text, want_text) = match (want_ast, got) {
                (Some(want), Ok(ast)) => {
                    let g = to_adorned_debug_string(&ast.expr, &KindAdorner);
                    (g == want, g, want.to_string())
                }
                (Some(want), Err(issues)) => (false, issues.to_string(), want.to_string()),
                (None, Ok(ast)) => (
                    false,
                    to_adorned_debug_string(&ast.expr, &KindAdorner),
                    want_err.unwrap_or_default().to_string(),
                ),
                (None, Err(issues)) => {
                    let g = issues.to_string();
                    let w = want_err.unwrap_or_default();
                    (g == w, g, w.to_string())
                }
            };
            if ok {
                passed += 1;
            } else {
                failed += 1;
                eprintln!("FAIL {key}: {expr:?}\n--- want\n{want_text}\n--- got\n{got_text}\n");
            }
        }
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    assert_eq!(failed, 0, "{failed} cel-go parser records differ");
}

/// Options with every macro and syntax extension the conformance suite uses.
fn conformance_options(disable_macros: bool) -> ParserOptions {
    let mut macros = Vec::new();
    if !disable_macros {
        macros.extend(macros::standard());
        macros.extend(macros::optional());
        macros.extend(macros::bindings());
        macros.extend(macros::block());
        macros.extend(macros::two_var_comprehensions());
        macros.extend(macros::lists());
    }
    ParserOptions {
        enable_optional_syntax: true,
        enable_ident_escape_syntax: true,
        macros,
        ..ParserOptions::default()
    }
}

#[test]
fn conformance_expressions_parse() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("cel-spec/json");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('_'))
        })
        .collect();
    files.sort();
    let (mut passed, mut failed) = (0, 0);
    for path in files {
        let data = load(&path);
        for section in data["section"].as_array().into_iter().flatten() {
            for t in section["test"].as_array().into_iter().flatten() {
                let expr = t["expr"].as_str().unwrap_or_default();
                let disable = t["disable_macros"].as_bool().unwrap_or(false);
                match parse(expr, &conformance_options(disable)) {
                    Ok(_) => passed += 1,
                    Err(e) => {
                        failed += 1;
                        eprintln!("FAIL {}/{}: {expr:?}\n{e}\n", path.display(), t["name"]);
                    }
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed, 0 skipped");
    assert_eq!(failed, 0);
}
