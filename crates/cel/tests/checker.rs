//! Data-driven checker test over cel-go's own checker outputs
//! (`../shared/cel-spec/cel-go-extra/{checking,parsing,comprehension}.json`).
//!
//! For every record whose expression parses, the expression is checked in the
//! environment the record assumes (see [`record_env`]) and compared with
//! cel-go's output: the checked tree in cel-go's debug form (each node adorned
//! with `~type` and `^overload|ids` or `^name`), the result type, or the error
//! text. Records listed in `checker.skip` are skipped, each with its reason.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use cel::checker::format_type;
use cel::checker::{CheckedAst, TypeProvider};
use cel::internals::checker::names::well_known_type;
use cel::library::Std;
use cel::library::ext::{Encoders, Math, Optionals, Sets, Strings};
use cel::syntax::{Expr, ExprKind, Literal};
use cel::{Env, EnvBuilder, Function, Library, Overload, Type};
use serde_json::Value as Json;

// ----- locating the data -------------------------------------------------------

fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("KCEL_SHARED") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    dir.is_dir().then_some(dir)
}

fn load_skips() -> HashMap<String, String> {
    let text = include_str!("checker.skip");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (key, reason) = l.split_once(char::is_whitespace)?;
            Some((key.to_string(), reason.trim().to_string()))
        })
        .collect()
}

// ----- declarations from the records -----------------------------------------

/// A CEL type from the JSON form of `cel.expr.Type` (camelCase field names).
fn json_type(t: &Json) -> Type {
    let Some((kind, v)) = t.as_object().and_then(|o| o.iter().next()) else {
        return Type::Error;
    };
    match kind.as_str() {
        "primitive" => primitive(v.as_str().unwrap_or("")),
        "wrapper" => Type::wrapper(primitive(v.as_str().unwrap_or(""))),
        "wellKnown" => match v.as_str().unwrap_or("") {
            "ANY" => Type::Any,
            "TIMESTAMP" => Type::Timestamp,
            "DURATION" => Type::Duration,
            _ => Type::Error,
        },
        "listType" => Type::list(json_type(&v["elemType"])),
        "mapType" => Type::map(json_type(&v["keyType"]), json_type(&v["valueType"])),
        "messageType" => {
            let name = v.as_str().unwrap_or("");
            well_known_type(name).unwrap_or_else(|| Type::object(name))
        }
        "typeParam" => Type::param(v.as_str().unwrap_or("")),
        "abstractType" => {
            let params = v["parameterTypes"]
                .as_array()
                .map(|a| a.iter().map(json_type).collect());
            Type::opaque(v["name"].as_str().unwrap_or(""), params.unwrap_or_default())
        }
        "null" => Type::Null,
        "dyn" => Type::Dyn,
        "type" => Type::type_of(json_type(v)),
        _ => Type::Error,
    }
}

fn primitive(name: &str) -> Type {
    match name {
        "BOOL" => Type::Bool,
        "INT64" => Type::Int,
        "UINT64" => Type::Uint,
        "DOUBLE" => Type::Double,
        "STRING" => Type::String,
        "BYTES" => Type::Bytes,
        _ => Type::Error,
    }
}

fn add_decls(b: &mut EnvBuilder, decls: &[Json]) {
    for d in decls {
        let name = d["name"].as_str().unwrap_or("");
        if let Some(ident) = d.get("ident") {
            b.add_variable(name, json_type(&ident["type"]));
        } else if let Some(f) = d.get("function") {
            let mut func = Function::new(name);
            for o in f["overloads"].as_array().into_iter().flatten() {
                let id = o["overloadId"].as_str().unwrap_or("");
                let params: Vec<Type> = o["params"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(json_type)
                    .collect();
                let result = json_type(&o["resultType"]);
                let member = o["isInstanceFunction"].as_bool().unwrap_or(false);
                func = func.overload(if member {
                    Overload::member(id, params, result, None)
                } else {
                    Overload::global(id, params, result, None)
                });
            }
            b.add_function(func);
        }
    }
}

/// cel-go's checker test "default" environment, which the records without a
/// `typeEnv` of checking.json assume.
fn add_default_decls(b: &mut EnvBuilder) {
    for (n, t) in [
        ("is", Type::String),
        ("ii", Type::Int),
        ("iu", Type::Uint),
        ("iz", Type::Bool),
        ("ib", Type::Bytes),
        ("id", Type::Double),
        ("ix", Type::Null),
    ] {
        b.add_variable(n, t);
    }
    b.add_function(Function::new("fg_s").overload(Overload::global(
        "fg_s_0",
        vec![],
        Type::String,
        None,
    )));
    b.add_function(Function::new("fi_s_s").overload(Overload::member(
        "fi_s_s_0",
        vec![Type::String],
        Type::String,
        None,
    )));
}

/// The standard library and the optional library (cel-go's generator had
/// both), plus, for comprehension.json, the strings, math, sets and encoders
/// extensions and `cel.bind` (not the lists extension: `sort` is undeclared there).
fn add_libraries(b: &mut EnvBuilder, file: &str) {
    for m in cel::syntax::macros::standard() {
        b.add_macro(m);
    }
    Std.install(b);
    Optionals::default().install(b);
    add_optional_operators(b);
    if file == "comprehension" {
        Strings::default().install(b);
        Math::default().install(b);
        Sets.install(b);
        Encoders.install(b);
        for m in cel::syntax::macros::bindings() {
            b.add_macro(m);
        }
    }
}

/// The optional library's operator overloads (`_[_]` on optionals, `_[?_]`),
/// as cel-go's `OptionalTypes` declares them.
fn add_optional_operators(b: &mut EnvBuilder) {
    let (k, v) = (Type::param("K"), Type::param("V"));
    let opt = Type::optional;
    b.add_function(
        Function::new("_[_]")
            .overload(Overload::global(
                "optional_list_index_int",
                vec![opt(Type::list(v.clone())), Type::Int],
                opt(v.clone()),
                None,
            ))
            .overload(Overload::global(
                "optional_map_index_value",
                vec![opt(Type::map(k.clone(), v.clone())), k.clone()],
                opt(v.clone()),
                None,
            )),
    );
    b.add_function(
        Function::new("_[?_]")
            .overload(Overload::global(
                "list_optindex_optional_int",
                vec![Type::list(v.clone()), Type::Int],
                opt(v.clone()),
                None,
            ))
            .overload(Overload::global(
                "optional_list_optindex_optional_int",
                vec![opt(Type::list(v.clone())), Type::Int],
                opt(v.clone()),
                None,
            ))
            .overload(Overload::global(
                "map_optindex_optional_value",
                vec![Type::map(k.clone(), v.clone()), k.clone()],
                opt(v.clone()),
                None,
            ))
            .overload(Overload::global(
                "optional_map_optindex_optional_value",
                vec![opt(Type::map(k.clone(), v.clone())), k],
                opt(v),
                None,
            )),
    );
}

// ----- test messages -----------------------------------------------------------

/// The fields of cel-go's test messages (`google.expr.proto{2,3}.test`) the
/// records use, derived from their field naming scheme.
struct TestMessages;

const PACKAGES: [&str; 2] = ["google.expr.proto2.test", "google.expr.proto3.test"];

fn split_message(name: &str) -> Option<(&str, &str)> {
    PACKAGES
        .iter()
        .find_map(|p| Some((*p, name.strip_prefix(p)?.strip_prefix('.')?)))
}

fn scalar(pkg: &str, s: &str) -> Option<Type> {
    Some(match s {
        "int32" | "int64" | "sint32" | "sint64" | "sfixed32" | "sfixed64" => Type::Int,
        "uint32" | "uint64" | "fixed32" | "fixed64" => Type::Uint,
        "float" | "double" => Type::Double,
        "bool" => Type::Bool,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "any" => Type::Any,
        "duration" => Type::Duration,
        "timestamp" => Type::Timestamp,
        "struct" => Type::map(Type::String, Type::Dyn),
        "value" => Type::Dyn,
        "list_value" => Type::list(Type::Dyn),
        "null_value" => Type::Null,
        "nested_message" => Type::object(&format!("{pkg}.TestAllTypes.NestedMessage")),
        "nested_enum" | "enum" => Type::Int,
        "nested_type" => Type::object(&format!("{pkg}.NestedTestAllTypes")),
        "message" => Type::object(&format!("{pkg}.TestAllTypes.NestedMessage")),
        _ => {
            let p = s.strip_suffix("_wrapper")?;
            let prim = scalar(pkg, p)?;
            if !matches!(
                prim,
                Type::Int | Type::Uint | Type::Double | Type::Bool | Type::String | Type::Bytes
            ) {
                return None;
            }
            Type::wrapper(prim)
        }
    })
}

impl TypeProvider for TestMessages {
    fn find_type(&self, name: &str) -> Option<Type> {
        let (_, msg) = split_message(name)?;
        matches!(
            msg,
            "TestAllTypes"
                | "NestedTestAllTypes"
                | "TestAllTypes.NestedMessage"
                | "TestAllTypes.NestedGroup"
        )
        .then(|| Type::object(name))
    }

    fn field_type(&self, type_name: &str, field: &str) -> Option<Type> {
        let (pkg, msg) = split_message(type_name)?;
        match msg {
            "TestAllTypes.NestedMessage" => (field == "bb").then_some(Type::Int),
            "TestAllTypes.NestedGroup" => match field {
                "nested_id" => Some(Type::Int),
                "nested_name" => Some(Type::String),
                _ => None,
            },
            "NestedTestAllTypes" => match field {
                "child" => Some(Type::object(&format!("{pkg}.NestedTestAllTypes"))),
                "payload" => Some(Type::object(&format!("{pkg}.TestAllTypes"))),
                _ => None,
            },
            "TestAllTypes" => {
                if field == "nestedgroup" && pkg.contains("proto2") {
                    return Some(Type::object(&format!("{pkg}.TestAllTypes.NestedGroup")));
                }
                if let Some(s) = field.strip_prefix("single_") {
                    return scalar(pkg, s);
                }
                if let Some(s) = field.strip_prefix("repeated_") {
                    return scalar(pkg, s).map(Type::list);
                }
                if let Some(s) = field.strip_prefix("map_") {
                    let (k, v) = s.split_once('_')?;
                    return Some(Type::map(scalar(pkg, k)?, scalar(pkg, v)?));
                }
                match field {
                    "standalone_message" => scalar(pkg, "nested_message"),
                    "standalone_enum" => Some(Type::Int),
                    "list_value" | "null_value" => scalar(pkg, field),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn enum_value(&self, name: &str) -> Option<i64> {
        let (_, rest) = split_message(name)?;
        match rest {
            "TestAllTypes.NestedEnum.FOO" | "GlobalEnum.GOO" => Some(0),
            "TestAllTypes.NestedEnum.BAR" | "GlobalEnum.GAR" => Some(1),
            "TestAllTypes.NestedEnum.BAZ" | "GlobalEnum.GAZ" => Some(2),
            _ => None,
        }
    }
}

/// The environment record `rec` of file `file` assumes.
fn record_env(file: &str, rec: &Json) -> Env {
    let original = &rec["original"];
    let mut b = Env::builder().type_provider(Arc::new(TestMessages));
    add_libraries(&mut b, file);
    match original.get("typeEnv").and_then(Json::as_array) {
        Some(decls) => add_decls(&mut b, decls),
        None if file == "checking" => add_default_decls(&mut b),
        None => {}
    }
    if let Some(c) = original.get("container").and_then(Json::as_str) {
        b.options_mut().container = c.to_string();
    }
    b.build()
}

// ----- cel-go's debug form of checked trees ------------------------------------

/// Writes a tree in cel-go's debug format, each node followed by its adornment.
struct Debug<'a> {
    out: String,
    indent: usize,
    checked: &'a CheckedAst,
}

impl Debug<'_> {
    fn line(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    fn adorn(&mut self, e: &Expr) {
        self.out.push('~');
        match self.checked.types.get(&e.id) {
            Some(t) => self.out.push_str(&format_type(t)),
            None => self.out.push('?'),
        }
        if let Some(r) = self.checked.references.get(&e.id) {
            self.out.push('^');
            if r.overload_ids.is_empty() {
                self.out.push_str(&r.name);
            } else {
                let mut ids = r.overload_ids.to_vec();
                ids.sort();
                self.out.push_str(&ids.join("|"));
            }
        }
    }

    fn items<T>(&mut self, items: &[T], mut f: impl FnMut(&mut Self, usize, &T)) {
        if items.is_empty() {
            return;
        }
        self.indent += 1;
        self.line();
        for (i, it) in items.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
                self.line();
            }
            f(self, i, it);
        }
        self.indent -= 1;
        self.line();
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Literal(l) => literal(&mut self.out, l),
            ExprKind::Ident(n) => self.out.push_str(n),
            ExprKind::Select(s) => {
                self.expr(&s.operand);
                self.out.push('.');
                self.out.push_str(&s.field);
                if s.test_only {
                    self.out.push_str("~test-only~");
                }
            }
            ExprKind::Call(c) => {
                if let Some(t) = &c.target {
                    self.expr(t);
                    self.out.push('.');
                }
                self.out.push_str(&c.function);
                self.out.push('(');
                self.items(&c.args, |w, _, a| w.expr(a));
                self.out.push(')');
            }
            ExprKind::List(l) => {
                self.out.push('[');
                self.items(&l.elements, |w, i, el| {
                    if l.optional_indices.contains(&i) {
                        w.out.push('?');
                    }
                    w.expr(el)
                });
                self.out.push(']');
            }
            ExprKind::Map(entries) => {
                self.out.push('{');
                self.items(entries, |w, _, en| {
                    if en.optional {
                        w.out.push('?');
                    }
                    w.expr(&en.key);
                    w.out.push(':');
                    w.expr(&en.value);
                });
                self.out.push('}');
            }
            ExprKind::Struct(s) => {
                self.out.push_str(&s.type_name);
                self.out.push('{');
                self.items(&s.fields, |w, _, f| {
                    if f.optional {
                        w.out.push('?');
                    }
                    w.out.push_str(&f.name);
                    w.out.push(':');
                    w.expr(&f.value);
                });
                self.out.push('}');
            }
            ExprKind::Comprehension(c) => {
                self.out.push_str("__comprehension__(");
                self.indent += 1;
                self.line();
                self.out.push_str("// Variable");
                self.line();
                self.out.push_str(&c.iter_var);
                self.out.push(',');
                self.line();
                if let Some(v2) = &c.iter_var2 {
                    self.out.push_str(v2);
                    self.out.push(',');
                    self.line();
                }
                self.out.push_str("// Target");
                self.line();
                self.expr(&c.iter_range);
                self.out.push(',');
                self.line();
                self.out.push_str("// Accumulator");
                self.line();
                self.out.push_str(&c.accu_var);
                self.out.push(',');
                self.line();
                self.out.push_str("// Init");
                self.line();
                self.expr(&c.accu_init);
                self.out.push(',');
                self.line();
                self.out.push_str("// LoopCondition");
                self.line();
                self.expr(&c.loop_condition);
                self.out.push(',');
                self.line();
                self.out.push_str("// LoopStep");
                self.line();
                self.expr(&c.loop_step);
                self.out.push(',');
                self.line();
                self.out.push_str("// Result");
                self.line();
                self.expr(&c.result);
                self.out.push(')');
                self.indent -= 1;
            }
        }
        self.adorn(e);
    }
}

fn literal(out: &mut String, l: &Literal) {
    match l {
        Literal::Null => out.push_str("null"),
        Literal::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Literal::Int(i) => out.push_str(&i.to_string()),
        Literal::Uint(u) => out.push_str(&format!("{u}u")),
        Literal::Double(d) => out.push_str(&format!("{d}")),
        Literal::String(s) => quote(out, s.chars()),
        Literal::Bytes(b) => {
            out.push('b');
            quote(out, String::from_utf8_lossy(b).chars());
        }
    }
}

/// Go's `strconv.Quote`, enough for the records.
fn quote(out: &mut String, chars: impl Iterator<Item = char>) {
    out.push('"');
    for c in chars {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn debug_checked(c: &CheckedAst) -> String {
    let mut d = Debug {
        out: String::new(),
        indent: 0,
        checked: c,
    };
    d.expr(&c.ast.expr);
    d.out
}

// ----- the runner ----------------------------------------------------------------

#[test]
fn cel_go_checker_records() {
    let Some(shared) = shared_dir() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "../shared is missing and CI=true"
        );
        println!("NOTICE: ../shared not found (set KCEL_SHARED); checker records not run");
        return;
    };
    let skips = load_skips();
    let (mut passed, mut failed, mut skipped) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    let mut expected = 0;
    for file in ["checking", "parsing", "comprehension"] {
        let path = shared.join(format!("cel-spec/cel-go-extra/{file}.json"));
        let text = std::fs::read_to_string(&path).expect("readable record file");
        let data: Json = serde_json::from_str(&text).expect("valid JSON");
        let records = data["tests"]
            .as_array()
            .unwrap_or_else(|| panic!("{file}.json has no `tests` array"));
        // The file's records, counted apart from the run.
        expected += records.len();
        for (i, rec) in records.iter().enumerate() {
            let key = format!("{file}#{i}");
            if rec.get("ast").is_none() || skips.contains_key(&key) {
                // No `ast`: the expression does not parse (the parser's test covers it).
                skipped += 1;
                continue;
            }
            let expr = rec["original"]["expr"].as_str().unwrap_or("");
            let env = record_env(file, rec);
            let outcome = match env.parse(expr) {
                Err(e) => Err(format!("parse error:\n{e}")),
                Ok(ast) => match (env.check(&ast), rec.get("checkedAst")) {
                    (Ok(c), Some(want)) => {
                        let got = debug_checked(&c);
                        let want_type = rec["type"].as_str().unwrap_or("");
                        let got_type = format_type(c.result_type());
                        if got == want.as_str().unwrap_or("") && got_type == want_type {
                            Ok(())
                        } else {
                            Err(format!(
                                "want:\n{}\ngot:\n{got}\ntype {got_type} (want {want_type})",
                                want.as_str().unwrap_or("")
                            ))
                        }
                    }
                    (Ok(c), None) => Err(format!(
                        "checked, but cel-go reports:\n{}\ngot:\n{}",
                        rec["error"].as_str().unwrap_or(""),
                        debug_checked(&c)
                    )),
                    (Err(e), _) => {
                        let got = e.to_string();
                        let want = rec["error"].as_str().unwrap_or("<no error expected>");
                        if got == want {
                            Ok(())
                        } else {
                            Err(format!("want:\n{want}\ngot:\n{got}"))
                        }
                    }
                },
            };
            match outcome {
                Ok(()) => passed += 1,
                Err(msg) => {
                    failed += 1;
                    failures.push(format!("--- {key}: {expr}\n{msg}"));
                }
            }
        }
    }
    for f in failures.iter().take(40) {
        println!("{f}\n");
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    assert_eq!(failed, 0, "checker records failed (see above)");
    assert!(expected > 0, "no checker records");
    assert_eq!(
        passed + failed + skipped,
        expected,
        "ran fewer records than the data holds"
    );
}

// ----- hand-built records (independent of the parser) --------------------------

/// Builds trees with dense ids, all at offset 0.
struct Tree {
    next: i64,
}

impl Tree {
    fn node(&mut self, kind: ExprKind) -> Expr {
        let id = self.next;
        self.next += 1;
        Expr::new(id, kind)
    }
    fn ident(&mut self, n: &str) -> Expr {
        self.node(ExprKind::Ident(n.into()))
    }
    fn call(&mut self, target: Option<Expr>, f: &str, args: Vec<Expr>) -> Expr {
        self.node(ExprKind::Call(Box::new(cel::syntax::Call {
            target,
            function: f.into(),
            args: args.into(),
        })))
    }
    fn list(&mut self, elements: Vec<Expr>) -> Expr {
        self.node(ExprKind::List(Box::new(cel::syntax::List {
            elements,
            optional_indices: vec![],
        })))
    }
    fn ast(self, text: &str, expr: Expr) -> cel::syntax::Ast {
        let mut source_info = cel::syntax::SourceInfo::default();
        for id in 1..self.next {
            source_info.set_offset(id, 0);
        }
        cel::syntax::Ast {
            expr,
            source_info,
            source: Arc::new(cel::syntax::Source::new(text)),
            next_id: self.next,
        }
    }
}

fn hand_env(vars: &[(&str, Type)]) -> Env {
    let a = || Type::param("A");
    let mut b = Env::builder();
    b.add_function(
        Function::new("size")
            .overload(Overload::global(
                "size_list",
                vec![Type::list(a())],
                Type::Int,
                None,
            ))
            .overload(Overload::member(
                "list_size",
                vec![Type::list(a())],
                Type::Int,
                None,
            )),
    );
    b.add_function(Function::new("_==_").overload(Overload::global(
        "equals",
        vec![a(), a()],
        Type::Bool,
        None,
    )));
    b.add_function(Function::new("_+_").overload(Overload::global(
        "add_list",
        vec![Type::list(a()), Type::list(a())],
        Type::list(a()),
        None,
    )));
    b.add_function(Function::new("type").overload(Overload::global(
        "type",
        vec![a()],
        Type::type_of(a()),
        None,
    )));
    for (n, t) in vars {
        b.add_variable(n, t.clone());
    }
    b.build()
}

fn record(file: &str, expr: &str) -> Option<Json> {
    let shared = shared_dir()?;
    let text =
        std::fs::read_to_string(shared.join(format!("cel-spec/cel-go-extra/{file}.json"))).ok()?;
    let data: Json = serde_json::from_str(&text).ok()?;
    data["tests"]
        .as_array()?
        .iter()
        .find(|r| r["original"]["expr"] == expr)
        .cloned()
}

#[test]
fn hand_built_size_record() {
    let text = "size(x) == x.size()";
    let Some(rec) = record("checking", text) else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "../shared is missing and CI=true"
        );
        return;
    };
    let mut t = Tree { next: 1 };
    let x1 = t.ident("x");
    let size1 = t.call(None, "size", vec![x1]);
    let x2 = t.ident("x");
    let size2 = t.call(Some(x2), "size", vec![]);
    let e = t.call(None, "_==_", vec![size1, size2]);
    let env = hand_env(&[("x", Type::list(Type::Int))]);
    let checked = env.check(&t.ast(text, e)).expect("checks");
    assert_eq!(
        debug_checked(&checked),
        rec["checkedAst"].as_str().unwrap_or("")
    );
}

#[test]
fn hand_built_map_type_record() {
    // {}.map(c, [c, type(c)]), expanded as cel-go's map macro expands it.
    let text = "{}.map(c,[c,type(c)])";
    let Some(rec) = record("checking", text) else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "../shared is missing and CI=true"
        );
        return;
    };
    let mut t = Tree { next: 1 };
    let range = t.node(ExprKind::Map(vec![]));
    let init = t.list(vec![]);
    let cond = t.node(ExprKind::Literal(Literal::Bool(true)));
    let acc = t.ident("@result");
    let c1 = t.ident("c");
    let c2 = t.ident("c");
    let ty = t.call(None, "type", vec![c2]);
    let pair = t.list(vec![c1, ty]);
    let wrapped = t.list(vec![pair]);
    let step = t.call(None, "_+_", vec![acc, wrapped]);
    let result = t.ident("@result");
    let e = t.node(ExprKind::Comprehension(Box::new(
        cel::syntax::Comprehension {
            iter_var: "c".into(),
            iter_var2: None,
            iter_range: range,
            accu_var: "@result".into(),
            accu_init: init,
            loop_condition: cond,
            loop_step: step,
            result,
        },
    )));
    let env = hand_env(&[]);
    let checked = env.check(&t.ast(text, e)).expect("checks");
    assert_eq!(
        debug_checked(&checked),
        rec["checkedAst"].as_str().unwrap_or("")
    );
    assert_eq!(
        format_type(checked.result_type()),
        rec["type"].as_str().unwrap_or("")
    );
}

/// Times parse + check of the benchmark protocol's E1–E6 with `self: dyn`.
/// Run with `cargo test --release -p kcel-cel --test checker -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench_protocol_parse_and_check() {
    let exprs = [
        "self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas",
        "self.items.all(i, i.name.startsWith('a') && i.value < 100)",
        "self.items.map(i, i.value).filter(v, v % 2 == 0).size() > 10",
        "self.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
        "self.l.exists(x, x == 99999)",
        "self.items.map(i, i.name + '-' + string(i.value)).join(',').size() > 0",
    ];
    let mut b = Env::builder();
    add_libraries(&mut b, "comprehension");
    b.add_variable("self", Type::Dyn);
    b.options_mut().cross_type_numeric_comparisons = true;
    let env = b.build();
    for (i, e) in exprs.iter().enumerate() {
        let n = 20_000u32;
        let start = std::time::Instant::now();
        for _ in 0..n {
            let ast = env.parse(e).expect("parses");
            let c = env.check_owned(ast).expect("checks");
            std::hint::black_box(c);
        }
        let total = start.elapsed() / n;
        let start = std::time::Instant::now();
        for _ in 0..n {
            std::hint::black_box(env.parse(e).expect("parses"));
        }
        println!(
            "E{}: parse+check {total:?} (parse {:?})",
            i + 1,
            start.elapsed() / n
        );
    }
}
