//! The debug printer: an AST as cel-go's `debug.ToDebugString` and
//! `debug.ToAdornedDebugString` print it (used by cel-go's own parser and
//! checker tests, and by ours to compare with them).
//!
//! An [`Adorner`] appends metadata after each node: nothing for the plain
//! form, `^#*expr.Expr_CallExpr#`-style kinds ([`KindAdorner`]) for parser
//! tests, `~type^overload` for checker tests (supplied by the checker).

use std::fmt::Write as _;

use super::ast::{Expr, ExprId, ExprKind, Literal};

/// Metadata printed after each node.
pub trait Adorner {
    /// Appends the metadata of expression `e`.
    fn expr(&self, e: &Expr, out: &mut String);
    /// Appends the metadata of the map entry or message field `id`.
    fn entry(&self, _id: ExprId, _out: &mut String) {}
}

/// No metadata: cel-go's `ToDebugString`.
pub struct NoAdorner;

impl Adorner for NoAdorner {
    fn expr(&self, _e: &Expr, _out: &mut String) {}
}

/// The node kinds cel-go's parser tests print: `^#*expr.Constant_Int64Value#`.
pub struct KindAdorner;

impl Adorner for KindAdorner {
    fn expr(&self, e: &Expr, out: &mut String) {
        let kind = match &e.kind {
            ExprKind::Literal(l) => match l {
                Literal::Null => "*expr.Constant_NullValue",
                Literal::Bool(_) => "*expr.Constant_BoolValue",
                Literal::Int(_) => "*expr.Constant_Int64Value",
                Literal::Uint(_) => "*expr.Constant_Uint64Value",
                Literal::Double(_) => "*expr.Constant_DoubleValue",
                Literal::String(_) => "*expr.Constant_StringValue",
                Literal::Bytes(_) => "*expr.Constant_BytesValue",
            },
            ExprKind::Ident(_) => "*expr.Expr_IdentExpr",
            ExprKind::Select(_) => "*expr.Expr_SelectExpr",
            ExprKind::Call(_) => "*expr.Expr_CallExpr",
            ExprKind::List(_) => "*expr.Expr_ListExpr",
            ExprKind::Map(_) | ExprKind::Struct(_) => "*expr.Expr_StructExpr",
            ExprKind::Comprehension(_) => "*expr.Expr_ComprehensionExpr",
        };
        out.push_str("^#");
        out.push_str(kind);
        out.push('#');
    }

    fn entry(&self, _id: ExprId, out: &mut String) {
        out.push_str("^#*expr.Expr_CreateStruct_Entry#");
    }
}

/// `e` printed as cel-go's `debug.ToDebugString`.
pub fn to_debug_string(e: &Expr) -> String {
    to_adorned_debug_string(e, &NoAdorner)
}

/// `e` printed as cel-go's `debug.ToAdornedDebugString`.
pub fn to_adorned_debug_string(e: &Expr, adorner: &dyn Adorner) -> String {
    let mut w = Writer {
        out: String::new(),
        indent: 0,
        line_start: true,
        adorner,
    };
    w.expr(e);
    w.out
}

struct Writer<'a> {
    out: String,
    indent: usize,
    line_start: bool,
    adorner: &'a dyn Adorner,
}

impl Writer<'_> {
    fn append(&mut self, s: &str) {
        self.do_indent();
        self.out.push_str(s);
    }

    fn do_indent(&mut self) {
        if self.line_start {
            self.line_start = false;
            for _ in 0..self.indent {
                self.out.push_str("  ");
            }
        }
    }

    fn newline(&mut self) {
        self.out.push('\n');
        self.line_start = true;
    }

    fn adorn(&mut self, e: &Expr) {
        self.do_indent();
        self.adorner.expr(e, &mut self.out);
    }

    fn adorn_entry(&mut self, id: ExprId) {
        self.do_indent();
        self.adorner.entry(id, &mut self.out);
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Literal(l) => {
                let s = format_literal(l);
                self.append(&s);
            }
            ExprKind::Ident(n) => self.append(n),
            ExprKind::Select(s) => {
                self.expr(&s.operand);
                self.append(".");
                self.append(&s.field);
                if s.test_only {
                    self.append("~test-only~");
                }
            }
            ExprKind::Call(c) => {
                if let Some(t) = &c.target {
                    self.expr(t);
                    self.append(".");
                }
                self.append(&c.function);
                self.append("(");
                if !c.args.is_empty() {
                    self.indent += 1;
                    self.newline();
                    for (i, a) in c.args.iter().enumerate() {
                        if i > 0 {
                            self.append(",");
                            self.newline();
                        }
                        self.expr(a);
                    }
                    self.indent -= 1;
                    self.newline();
                }
                self.append(")");
            }
            ExprKind::List(l) => {
                self.append("[");
                if !l.elements.is_empty() {
                    self.newline();
                    self.indent += 1;
                    for (i, el) in l.elements.iter().enumerate() {
                        if i > 0 {
                            self.append(",");
                            self.newline();
                        }
                        self.expr(el);
                    }
                    self.indent -= 1;
                    self.newline();
                }
                self.append("]");
            }
            ExprKind::Map(entries) => {
                self.append("{");
                if !entries.is_empty() {
                    self.newline();
                    self.indent += 1;
                    for (i, en) in entries.iter().enumerate() {
                        if i > 0 {
                            self.append(",");
                            self.newline();
                        }
                        if en.optional {
                            self.append("?");
                        }
                        self.expr(&en.key);
                        self.append(":");
                        self.expr(&en.value);
                        self.adorn_entry(en.id);
                    }
                    self.indent -= 1;
                    self.newline();
                }
                self.append("}");
            }
            ExprKind::Struct(s) => {
                self.append(&s.type_name);
                self.append("{");
                if !s.fields.is_empty() {
                    self.newline();
                    self.indent += 1;
                    for (i, f) in s.fields.iter().enumerate() {
                        if i > 0 {
                            self.append(",");
                            self.newline();
                        }
                        if f.optional {
                            self.append("?");
                        }
                        self.append(&f.name);
                        self.append(":");
                        self.expr(&f.value);
                        self.adorn_entry(f.id);
                    }
                    self.indent -= 1;
                    self.newline();
                }
                self.append("}");
            }
            ExprKind::Comprehension(c) => {
                self.append("__comprehension__(");
                self.indent += 1;
                self.newline();
                self.append("// Variable");
                self.newline();
                self.append(&c.iter_var);
                self.append(",");
                self.newline();
                if let Some(v2) = &c.iter_var2 {
                    self.append(v2);
                    self.append(",");
                    self.newline();
                }
                self.append("// Target");
                self.newline();
                self.expr(&c.iter_range);
                self.append(",");
                self.newline();
                self.append("// Accumulator");
                self.newline();
                self.append(&c.accu_var);
                self.append(",");
                self.newline();
                self.append("// Init");
                self.newline();
                self.expr(&c.accu_init);
                self.append(",");
                self.newline();
                self.append("// LoopCondition");
                self.newline();
                self.expr(&c.loop_condition);
                self.append(",");
                self.newline();
                self.append("// LoopStep");
                self.newline();
                self.expr(&c.loop_step);
                self.append(",");
                self.newline();
                self.append("// Result");
                self.newline();
                self.expr(&c.result);
                self.append(")");
                self.indent -= 1;
            }
        }
        self.adorn(e);
    }
}

/// A literal as cel-go's debug printer shows it.
pub fn format_literal(l: &Literal) -> String {
    match l {
        Literal::Null => "null".to_string(),
        Literal::Bool(b) => b.to_string(),
        Literal::Int(i) => i.to_string(),
        Literal::Uint(u) => format!("{u}u"),
        Literal::Double(d) => format_double(*d),
        Literal::String(s) => go_quote(s.as_bytes()),
        Literal::Bytes(b) => format!("b{}", go_quote(b)),
    }
}

/// Go's `strconv.FormatFloat(d, 'f', -1, 64)`.
fn format_double(d: f64) -> String {
    if d.is_nan() {
        "NaN".to_string()
    } else if d.is_infinite() {
        if d > 0.0 {
            "+Inf".to_string()
        } else {
            "-Inf".to_string()
        }
    } else {
        d.to_string()
    }
}

/// Go's `strconv.Quote` of the bytes (invalid UTF-8 shown as `\x..`).
pub fn go_quote(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    let mut rest = bytes;
    while !rest.is_empty() {
        let (c, len) = match std::str::from_utf8(&rest[..rest.len().min(4)]) {
            Ok(s) => first_char(s),
            Err(e) if e.valid_up_to() > 0 => {
                first_char(std::str::from_utf8(&rest[..e.valid_up_to()]).unwrap_or(""))
            }
            Err(_) => (None, 1),
        };
        match c {
            None => {
                let _ = write!(out, "\\x{:02x}", rest[0]);
            }
            Some(c) => push_quoted_char(&mut out, c),
        }
        rest = &rest[len.max(1)..];
    }
    out.push('"');
    out
}

fn first_char(s: &str) -> (Option<char>, usize) {
    match s.chars().next() {
        Some(c) => (Some(c), c.len_utf8()),
        None => (None, 1),
    }
}

fn push_quoted_char(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        c if is_go_printable(c) => out.push(c),
        '\u{07}' => out.push_str("\\a"),
        '\u{08}' => out.push_str("\\b"),
        '\u{0C}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{0B}' => out.push_str("\\v"),
        c if (c as u32) < 0x20 || c as u32 == 0x7f => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c if (c as u32) < 0x10000 => {
            let _ = write!(out, "\\u{:04x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\U{:08x}", c as u32);
        }
    }
}

/// An approximation of Go's `unicode.IsPrint` without Unicode tables:
/// control, format, separator (other than ASCII space) and private-use
/// characters are not printable.
fn is_go_printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let u = c as u32;
    let format = matches!(
        u,
        0xAD | 0x600..=0x605
            | 0x61C
            | 0x6DD
            | 0x70F
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    );
    let private = matches!(u, 0xE000..=0xF8FF | 0xF0000..=0x10FFFF);
    let nonchar = matches!(u, 0xFDD0..=0xFDEF) || (u & 0xFFFE) == 0xFFFE;
    !(format || private || nonchar)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_like_go() {
        assert_eq!(go_quote(b"a\"b\\"), r#""a\"b\\""#);
        assert_eq!(go_quote("\u{7}\n❤".as_bytes()), r#""\a\n❤""#);
        assert_eq!(go_quote(&[0xff, b'a']), r#""\xffa""#);
        assert_eq!(go_quote("\u{0}\u{200b}".as_bytes()), r#""\x00\u200b""#);
    }

    #[test]
    fn doubles_like_go() {
        assert_eq!(format_double(2.0), "2");
        assert_eq!(format_double(-4.1), "-4.1");
        assert_eq!(format_double(1e21), "1000000000000000000000");
    }
}
