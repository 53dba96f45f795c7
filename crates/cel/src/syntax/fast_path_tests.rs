//! The parser's fast paths against its general path: every input parses to
//! the same tree, ids, offsets, macro records and errors with both.
//!
//! Inputs: the fuzz corpora of `fuzz/regressions/` (hostile and malformed
//! text), the expressions of cel-go's parser tests (from the shared data, when
//! present), hand-written edge cases (errors mid-expression, depth limits,
//! offsets after multi-byte characters) and generated token soups.

use std::path::{Path, PathBuf};

use super::ParserOptions;
use super::macros;
use super::parser::GENERAL_ONLY;

/// The parse of `text` rendered with everything a caller can observe.
fn render(text: &str, opts: &ParserOptions) -> String {
    match super::parse(text, opts, None) {
        Ok(ast) => {
            let mut calls: Vec<_> = ast.source_info.macro_calls.iter().collect();
            calls.sort_by_key(|(id, _)| **id);
            format!(
                "{:?}\n{:?}\n{}\n{calls:?}",
                ast.expr, ast.source_info.offsets, ast.next_id
            )
        }
        Err(issues) => format!("{:?}", issues.issues),
    }
}

fn option_sets() -> Vec<ParserOptions> {
    let mut all = macros::standard();
    all.extend(macros::optional());
    all.extend(macros::bindings());
    all.extend(macros::block());
    all.extend(macros::two_var_comprehensions());
    all.extend(macros::lists());
    vec![
        // cel-go's parser tests.
        ParserOptions {
            max_nesting_depth: 32,
            error_recovery_limit: 4,
            populate_macro_calls: true,
            macros: macros::standard(),
            ..ParserOptions::default()
        },
        // The conformance suite's.
        ParserOptions {
            enable_optional_syntax: true,
            enable_ident_escape_syntax: true,
            macros: all,
            ..ParserOptions::default()
        },
        // Few errors reported, no macros.
        ParserOptions {
            error_reporting_limit: 3,
            error_recovery_limit: 2,
            ..ParserOptions::default()
        },
        // Macros named as operators: declining, expanding, failing.
        ParserOptions {
            max_nesting_depth: 32,
            macros: operator_macros(),
            ..ParserOptions::default()
        },
    ]
}

/// Macros on `<=` (declines), `+` (expands to its first operand), `*`
/// (fails at its second operand) and `&&` (expands to its second operand).
fn operator_macros() -> Vec<macros::Macro> {
    let global = |name: &str, expander: macros::Expander| macros::Macro {
        name: name.to_string(),
        receiver_style: false,
        arg_count: Some(2),
        expander,
    };
    vec![
        global("_<=_", |_, _, _| Ok(None)),
        global("_+_", |_, _, args| Ok(Some(args.remove(0)))),
        global("_*_", |_, _, args| {
            Err(macros::MacroError {
                message: "no product".to_string(),
                expr_id: args[1].id,
            })
        }),
        global("_&&_", |_, _, args| Ok(Some(args.remove(1)))),
    ]
}

fn hand_written() -> Vec<String> {
    let mut v: Vec<String> = [
        "a",
        "a.b",
        "a.b.c",
        "a.b.c <= d.e && f",
        "self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas",
        "self.l.exists(x, x == 99999)",
        "self.items.map(i, i.value).filter(v, v % 2 == 0).size() > 10",
        "a.b(c)",
        "a(b).c",
        "a.b{c: 1}",
        "a{b: 1}",
        "a.b.c{d: 1}.e",
        "a.b[0].c",
        "a.`b-c`.d",
        "a.?b.c",
        "a.b.?c",
        "a.",
        "a.b.",
        "a.b.1",
        "a..b",
        "a.b c.d",
        "a.b)",
        "(a.b",
        "!a.b",
        "!!a.b",
        "-a.b",
        "--a.b",
        "!",
        "a.b +",
        "a.b ? c.d : e.f",
        "a.b ? c.d",
        "if.b",
        "a.if",
        "a.in",
        "a.true",
        "in.a",
        "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h",
        "x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d(1)",
        "ä.b <= é.f",
        "'ü' + a.b.c",
        "has(a.b.c)",
        "has(a.b.c())",
        "a.b.exists(x, x.y > 0)",
        "a.b.all(x.y, true)",
        "[a.b, c.d]",
        "{a.b: c.d}",
        "f(a.b, c.d.e)",
        "a.b[c.d]",
        "a.b in c.d",
        "a.b * c.d + e.f / g.h % i.j - k.l",
        "a.b == b.c != c.d < d.e > e.f >= f.g",
        "a.b || b.c || c.d || d.e && e.f",
        "\ta .\n b\r\n. c // comment\n <= d",
        "a . b . c",
        "$ a.b",
        "a.b $",
        "a.b | c.d",
        ".a.b",
        "a.b.(c)",
        "a.b?.c",
        "a.b <= c.d + e.f * g.h && i.j + k.l <= m",
        "a + b * c <= d * e + f",
        "a.b + c.d.e + f && g.h * i.j <= k || l.m * n.o",
        "a.b <= c.d || e.f <= g.h && i.j <= k.l || m.n <= o.p",
        "self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas || self.x",
        "a.b && c.d && e.f && g.h && i.j",
        "a.b && c.d ? e.f : g.h && i.j",
        "a.b && (c.d || e.f) && g.h",
        "a.b && c.d.e() && f",
        "a.b && c.d[0] || e",
        "a.b && c.d == 'x' || !e.f",
        "a.b && if.c || d",
        "a.b &&",
        "a.b && || c.d",
        "a.b || c.d && ",
        "a.b <= c.d && e.f <= g.h)",
        "a.b <= c.d && e.f <= g.h,",
        "a.b <= c.d && 99999999999999999999 <= g.h",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // Relation operands nested in parentheses: the relation rule's depth
    // grows twice as fast as the others'.
    for n in (13..=18).chain(122..=127) {
        v.push(format!(
            "{}a.b <= c && d{}",
            "a < (".repeat(n),
            ")".repeat(n)
        ));
        v.push(format!(
            "({}a.b <= c && d{})",
            "a < (".repeat(n),
            ")".repeat(n)
        ));
        v.push(format!("{}a.b <= c{}", "a < (".repeat(n), ")".repeat(n)));
        v.push(format!("{}a.b || c{}", "a < (".repeat(n), ")".repeat(n)));
    }
    // Chains and nestings around the depth limits.
    for n in [30, 31, 32, 33, 34, 249, 250, 251] {
        v.push(format!("a{}", ".b".repeat(n)));
        v.push(format!("{}a.b{}", "(".repeat(n), ")".repeat(n)));
        v.push(format!("{}a.b", "!".repeat(n)));
        v.push(format!("{}a.b", "-".repeat(n)));
        v.push(format!("a.b{}", " + a.b".repeat(n)));
        v.push(format!("a.b{}", " && a.b".repeat(n)));
        v.push(format!("a.b{}", " <= a.b || a.b".repeat(n)));
        v.push(format!("a <= b{}", ".c".repeat(n)));
        v.push(format!("a + b{} <= c", ".c".repeat(n)));
        v.push(format!("a.b{}", " + a.b && a.b".repeat(n)));
        v.push(format!("{}a.b <= c{}", "f(".repeat(n), ")".repeat(n)));
        v.push(format!("{}a.b <= c && d{}", "(".repeat(n), ")".repeat(n)));
        v.push(format!("{}a.b{}", "f(".repeat(n), ")".repeat(n)));
        v.push(format!("{}a.b{}", "[".repeat(n), "]".repeat(n)));
    }
    v
}

/// Token soups: random sequences of a vocabulary that reaches the fast
/// paths and every way out of them, from a fixed seed.
fn soups(count: usize) -> Vec<String> {
    const WORDS: &[&str] = &[
        "a", "b", "x", ".", ".", ".", "(", ")", "[", "]", "{", "}", ",", "<=", "==", "&&", "||",
        "+", "*", "!", "-", "?", ":", "1", "'s'", "exists", "has", "map", "in", "if", "true",
        "`e`", ".?", "$", "\u{e9}", " ",
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|_| {
            let len = 1 + (next() % 14) as usize;
            let mut s = String::new();
            for _ in 0..len {
                s.push_str(WORDS[(next() % WORDS.len() as u64) as usize]);
                if next() % 3 == 0 {
                    s.push(' ');
                }
            }
            s
        })
        .collect()
}

fn corpus_files() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut out = Vec::new();
    for dir in ["corpus-parse", "corpus-eval", "corpus-diff"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in entries.filter_map(Result::ok) {
            if let Ok(text) = std::fs::read_to_string(e.path()) {
                out.push(text);
            }
        }
    }
    out
}

fn cel_go_expressions() -> Vec<String> {
    let dir = match std::env::var("KCEL_SHARED") {
        Ok(d) => PathBuf::from(d),
        Err(_) => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    let mut out = Vec::new();
    for file in ["parsing", "comprehension", "checking"] {
        let path = dir.join(format!("cel-spec/cel-go-extra/{file}.json"));
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let Ok(data) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        for t in data["tests"].as_array().into_iter().flatten() {
            if let Some(e) = t["original"]["expr"].as_str() {
                out.push(e.to_string());
            }
        }
    }
    out
}

#[test]
fn fast_paths_parse_as_the_general_path() {
    // Deeply nested corpus inputs recurse as far as the depth limits allow.
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(|| {
            let mut inputs = hand_written();
            inputs.extend(soups(20_000));
            inputs.extend(corpus_files());
            inputs.extend(cel_go_expressions());
            let sets = option_sets();
            let mut differ = Vec::new();
            for text in &inputs {
                for (i, opts) in sets.iter().enumerate() {
                    GENERAL_ONLY.set(false);
                    let fast = render(text, opts);
                    GENERAL_ONLY.set(true);
                    let general = render(text, opts);
                    GENERAL_ONLY.set(false);
                    if fast != general {
                        differ.push(format!(
                            "options {i}: {text:?}\n--- fast\n{fast}\n--- general\n{general}"
                        ));
                    }
                }
            }
            assert!(inputs.len() > 20_000);
            assert!(
                differ.is_empty(),
                "{} parses differ; first:\n{}",
                differ.len(),
                differ[0]
            );
        })
        .expect("spawn")
        .join()
        .expect("the comparison panicked");
}
