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

use cel::internals::syntax::debug::{KindAdorner, to_adorned_debug_string};
use cel::internals::syntax::{parse, parse_source};
use cel::syntax::macros::{self, Macro, MacroContext, MacroError};
use cel::syntax::{Expr, ParserOptions, Source};

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
    _: &mut cel::syntax::CallArgs,
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
    let mut expected = 0;
    for (file, opts) in [
        ("parsing", parsing_options()),
        ("comprehension", standard_options()),
        ("checking", standard_options()),
    ] {
        let data = load(&shared.join(format!("cel-spec/cel-go-extra/{file}.json")));
        let tests = data["tests"]
            .as_array()
            .cloned()
            .unwrap_or_else(|| panic!("{file}.json has no `tests` array"));
        // The cases of the file, counted apart from the run: records with an AST or an error.
        expected += tests
            .iter()
            .filter(|t| {
                t.get("ast").is_some_and(|a| a.is_string())
                    || t.get("error").is_some_and(|e| e.is_string())
            })
            .count();
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
    assert!(expected > 0, "no cel-go parser records");
    assert_eq!(
        passed + failed + skipped,
        expected,
        "ran fewer records than the data holds"
    );
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
    let mut expected = 0;
    for path in files {
        let data = load(&path);
        // A file without sections (`unknowns.json`) holds no tests.
        let sections = data["section"].as_array().map_or(&[][..], Vec::as_slice);
        // The file's tests, counted apart from the run.
        expected += sections
            .iter()
            .map(|s| s["test"].as_array().map_or(0, Vec::len))
            .sum::<usize>();
        for section in sections {
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
    assert!(expected > 0, "no conformance tests found");
    assert_eq!(
        passed + failed,
        expected,
        "parsed fewer expressions than the data holds"
    );
}

// ----- limits and hostile inputs -------------------------------------------

fn first_error(text: &str, opts: &ParserOptions) -> String {
    match parse(text, opts) {
        Ok(_) => "OK".to_string(),
        Err(e) => e
            .issues
            .first()
            .map(|i| i.message.clone())
            .unwrap_or_default(),
    }
}

fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let start = std::time::Instant::now();
    let out = f();
    let took = start.elapsed();
    assert!(
        took < std::time::Duration::from_secs(2),
        "{what} took {took:?}"
    );
    out
}

#[test]
fn huge_inputs_fail_fast() {
    let opts = standard_options();
    let ten_mb = "1+".repeat(5_000_000) + "1";
    let msg = timed("10 MB", || first_error(&ten_mb, &opts));
    assert_eq!(
        msg,
        "expression code point size exceeds limit: size: 10000001, limit 100000"
    );

    let deep = "(".repeat(100_000) + "a" + &")".repeat(100_000);
    let msg = timed("(( 100k", || first_error(&deep, &opts));
    assert!(
        msg.starts_with("expression code point size exceeds limit"),
        "{msg}"
    );

    let unlimited = ParserOptions {
        max_expression_length: usize::MAX,
        ..standard_options()
    };
    let msg = timed("(( 100k unlimited", || first_error(&deep, &unlimited));
    assert_eq!(msg, "expression recursion limit exceeded: 250");
    let lists = "[".repeat(100_000) + &"]".repeat(100_000);
    let msg = timed("[[ 100k", || first_error(&lists, &unlimited));
    assert_eq!(msg, "expression recursion limit exceeded: 250");
    let garbage = "$@#".repeat(3_000_000);
    let msg = timed("garbage", || first_error(&garbage, &unlimited));
    assert!(msg.contains("token recognition error"), "{msg}");
}

#[test]
fn long_chains_behave_like_cel_go() {
    let opts = ParserOptions {
        max_expression_length: usize::MAX,
        ..standard_options()
    };
    let sum = vec!["1"; 50_000].join(" + ");
    assert_eq!(
        timed("sum", || first_error(&sum, &opts)),
        "max recursion depth exceeded"
    );
    let sel = "a".to_string() + &".b".repeat(50_000);
    assert_eq!(
        timed("select", || first_error(&sel, &opts)),
        "max recursion depth exceeded"
    );
    let idx = "a".to_string() + &"[0]".repeat(50_000);
    assert_eq!(
        timed("index", || first_error(&idx, &opts)),
        "max recursion depth exceeded"
    );
    // `||` and `&&` chains are balanced: they never hit the depth limit.
    let ors = vec!["a"; 50_000].join(" || ");
    assert_eq!(timed("or", || first_error(&ors, &opts)), "OK");
    // Repeated unary operators collapse (even counts vanish).
    let nots = "!".repeat(50_001) + "true";
    let ast = parse(&nots, &opts).expect("nots");
    assert_eq!(
        cel::internals::syntax::debug::to_debug_string(&ast.expr),
        "!_(\n  true\n)"
    );
    let negs = "-".repeat(50_000) + "x";
    assert_eq!(
        cel::internals::syntax::debug::to_debug_string(&parse(&negs, &opts).expect("negs").expr),
        "x"
    );
    assert_eq!(
        cel::internals::syntax::debug::to_debug_string(&parse("-----1", &opts).expect("-1").expr),
        "-_(\n  1\n)"
    );
    assert_eq!(
        cel::internals::syntax::debug::to_debug_string(&parse("-1", &opts).expect("-1").expr),
        "-1"
    );
    // At the limit: 250 nested selections parse, 251 do not.
    let at = "a".to_string() + &".b".repeat(250);
    assert_eq!(first_error(&at, &opts), "OK");
    let over = "a".to_string() + &".b".repeat(251);
    assert_eq!(first_error(&over, &opts), "max recursion depth exceeded");
}

/// Deepest accepted nesting of every kind, parsed, printed and dropped in a
/// thread with a 2 MiB stack (the default for spawned threads), in whatever
/// profile the tests run.
#[test]
fn deepest_accepted_nesting_fits_a_small_stack() {
    let opts = ParserOptions {
        max_nesting_depth: usize::MAX,
        max_expression_length: usize::MAX,
        macros: {
            let mut m = macros::standard();
            m.extend(macros::two_var_comprehensions());
            m.extend(macros::bindings());
            m
        },
        ..ParserOptions::default()
    };
    // Every level nests one `expr`; every tenth is a macro (a counted member
    // call); the innermost expression adds a long selection chain (counted).
    let depth = cel::syntax::MAX_NESTING_DEPTH_CAP - 4;
    let openers = [
        "[",
        "f(",
        "(",
        "{1: ",
        "M{f: ",
        "g(1, ",
        "[0, ",
        "{'k': ",
        "h(",
        "x.all(i, ",
    ];
    let closers = ["]", ")", ")", "}", "}", ")", "]", "}", ")", ")"];
    let mut text = String::new();
    for i in 0..depth {
        text.push_str(openers[i % openers.len()]);
    }
    text.push_str("-a");
    text.push_str(&".b".repeat(200));
    for i in (0..depth).rev() {
        text.push_str(closers[i % closers.len()]);
    }
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let ast = parse(&text, &opts).map_err(|e| e.to_string())?;
            let printed = cel::internals::syntax::debug::to_debug_string(&ast.expr);
            let copy = ast.expr.clone();
            drop(ast);
            Ok::<usize, String>(printed.len() + usize::from(copy.id > 0))
        })
        .expect("spawn");
    let result = handle.join().expect("no stack overflow");
    assert!(result.is_ok(), "{result:?}");
}

#[test]
fn error_texts_and_positions() {
    let opts = standard_options();
    let err = |t: &str| {
        parse(t, &opts)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert_eq!(
        err("a.b(\n  c,, d)"),
        "ERROR: <input>:2:5: Syntax error: extraneous input ',' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n |   c,, d)\n | ....^"
    );
    assert_eq!(
        err("'😁' + 1 +"),
        "ERROR: <input>:1:10: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | '😁' + 1 +\n | .．.......^"
    );
    assert_eq!(
        err("x.all(y.z, true)"),
        "ERROR: <input>:1:8: argument must be a simple name\n | x.all(y.z, true)\n | .......^"
    );
    assert_eq!(
        err("b'\\u00ff'"),
        "ERROR: <input>:1:1: unable to unescape string\n | b'\\u00ff'\n | ^"
    );
    assert_eq!(
        err("9223372036854775808"),
        "ERROR: <input>:1:1: invalid int literal\n | 9223372036854775808\n | ^"
    );
    assert!(parse("-9223372036854775808", &opts).is_ok());
}

#[test]
fn extension_macros_expand_like_cel_go() {
    let opts = conformance_options(false);
    let show =
        |t: &str| cel::internals::syntax::debug::to_debug_string(&parse(t, &opts).expect(t).expr);
    assert_eq!(
        show("cel.bind(x, 1, x + x)"),
        "__comprehension__(\n  // Variable\n  #unused,\n  // Target\n  [],\n  // Accumulator\n  x,\n  // Init\n  1,\n  // LoopCondition\n  false,\n  // LoopStep\n  x,\n  // Result\n  _+_(\n    x,\n    x\n  ))"
    );
    assert_eq!(
        show("m.transformMap(k, v, v > 0, v)"),
        "__comprehension__(\n  // Variable\n  k,\n  v,\n  // Target\n  m,\n  // Accumulator\n  @result,\n  // Init\n  {},\n  // LoopCondition\n  true,\n  // LoopStep\n  _?_:_(\n    _>_(\n      v,\n      0\n    ),\n    cel.@mapInsert(\n      @result,\n      k,\n      v\n    ),\n    @result\n  ),\n  // Result\n  @result)"
    );
    assert_eq!(
        show("cel.index(2) + cel.iterVar(0, 1)"),
        "_+_(\n  @index2,\n  @it:0:1\n)"
    );
    assert!(show("o.optMap(v, v + 1)").starts_with("_?_:_(\n  o.hasValue(),\n  optional.of(\n"));
    assert!(show("[3, 1].sortBy(e, -e)").contains("@__sortBy_input__.@sortByAssociatedKeys("));
    assert_eq!(show("a.?b"), "_?._(\n  a,\n  \"b\"\n)");
    let err = |t: &str| {
        parse(t, &opts)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert_eq!(
        err("[].all(i, i, true)"),
        "ERROR: <input>:1:11: duplicate variable name: i\n | [].all(i, i, true)\n | ..........^"
    );
    assert_eq!(
        err("cel.bind(a.b, 1, 2)"),
        "ERROR: <input>:1:11: cel.bind() variable names must be simple identifiers\n | cel.bind(a.b, 1, 2)\n | ..........^"
    );
    // `bind` on another receiver is an ordinary call.
    assert_eq!(show("x.bind(a, 1, 2)"), "x.bind(\n  a,\n  1,\n  2\n)");
}

#[test]
fn populate_macro_calls_records_the_call() {
    let opts = ParserOptions {
        populate_macro_calls: true,
        ..standard_options()
    };
    let ast = parse("has(a.b) && [1].exists(x, x > 0)", &opts).expect("parse");
    assert_eq!(ast.source_info.macro_calls.len(), 2);
    let calls: Vec<String> = ast
        .source_info
        .macro_calls
        .values()
        .map(cel::internals::syntax::debug::to_debug_string)
        .collect();
    assert!(calls.contains(&"has(\n  a.b\n)".to_string()), "{calls:?}");
    // Every node has a position.
    fn walk(e: &Expr, info: &cel::syntax::SourceInfo) {
        assert!(info.offset(e.id).is_some(), "no offset for {e:?}");
        if let cel::syntax::ExprKind::Call(c) = &e.kind {
            c.target
                .iter()
                .chain(c.args.iter())
                .for_each(|x| walk(x, info));
        }
    }
    walk(&ast.expr, &ast.source_info);
}

#[test]
fn parse_is_fast() {
    let Some(shared) = shared_dir() else { return };
    let protocol = load(&shared.join("bench/protocol.json"));
    let opts = standard_options();
    for e in protocol["expressions"].as_array().into_iter().flatten() {
        let text = e["expr"].as_str().unwrap_or_default();
        parse(text, &opts).unwrap_or_else(|err| panic!("{text}: {err}"));
        let n = 2000;
        let start = std::time::Instant::now();
        for _ in 0..n {
            std::hint::black_box(parse(std::hint::black_box(text), &opts).is_ok());
        }
        let per = start.elapsed() / n;
        println!("parse {}: {per:?}", e["id"]);
    }
}
