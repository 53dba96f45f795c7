//! A hand-written recursive-descent parser for CEL that builds the same AST,
//! assigns ids in the same order and reports the same errors as cel-go's
//! ANTLR-generated parser.
//!
//! The procedures follow the rules of cel-go's grammar (`CEL.g4`) one to one,
//! and the error handling emulates ANTLR's `DefaultErrorStrategy`: `sync`
//! before decisions (`extraneous input` / `mismatched input`), inline recovery
//! in `match` (single-token deletion and insertion), `no viable alternative`
//! at failed decisions, error-recovery mode (one report until a token is
//! matched again) and resynchronisation on the union of follow sets, passed
//! down as `rec`.
//!
//! Two depth limits are enforced, as in cel-go: the nesting of grammar rules
//! (`expression recursion limit exceeded: N`, cel-go's parse listener) and the
//! number of nested selections, indexes, member calls, binary operators and
//! conditionals (`max recursion depth exceeded`, cel-go's visitor). Long
//! left-associative chains are parsed by loops and `||`/`&&` chains are
//! balanced, so neither the parser nor later passes recurse more deeply than
//! these limits allow.

use std::collections::HashMap;
use std::sync::Arc;

use super::ast::{
    Ast, Call, CallArgs, Expr, ExprId, ExprKind, List, Literal, MapEntry, Name, Select, SourceInfo,
    Struct, StructField,
};
use super::lexer::{Tok, TokSet, Token, escape_error_text, lex_into};
use super::macros::{MacroContext, MacroHost};
use super::{ParserOptions, Source};
use crate::diagnostics::Issues;

/// Tokens that can start an expression (ANTLR's expected set at `unary`).
const EXPR_START: TokSet = MEMBER_START.with(Tok::Not);
/// Tokens that can start a `member` (and a `primary`).
const MEMBER_START: TokSet = LEAF.union(TokSet::of(&[
    Tok::LBracket,
    Tok::LBrace,
    Tok::LParen,
    Tok::Dot,
    Tok::Minus,
]));
const RELATION_OPS: TokSet = TokSet::of(&[
    Tok::Eq,
    Tok::Ne,
    Tok::In,
    Tok::Lt,
    Tok::Le,
    Tok::Ge,
    Tok::Gt,
]);
const CALC_OPS: TokSet = TokSet::of(&[Tok::Star, Tok::Slash, Tok::Percent, Tok::Plus, Tok::Minus]);
/// Tokens that may follow a complete primary in some context.
const AFTER_PRIMARY: TokSet = RELATION_OPS.union(CALC_OPS).union(TokSet::of(&[
    Tok::Dot,
    Tok::LBracket,
    Tok::And,
    Tok::Or,
    Tok::Question,
    Tok::Colon,
    Tok::Comma,
    Tok::RParen,
    Tok::RBracket,
    Tok::RBrace,
    Tok::Eof,
]));
/// Tokens that are a whole primary on their own (unless a call, selection,
/// index or operator follows).
const LEAF: TokSet = TokSet::of(&[
    Tok::True,
    Tok::False,
    Tok::Null,
    Tok::NumFloat,
    Tok::NumInt,
    Tok::NumUint,
    Tok::String,
    Tok::Bytes,
    Tok::Ident,
]);
/// Tokens that end an expression wherever one appears: after a [`LEAF`]
/// token, nothing of the expression's rules matches them.
const LEAF_END: TokSet = TokSet::of(&[
    Tok::Eof,
    Tok::RParen,
    Tok::Comma,
    Tok::RBracket,
    Tok::RBrace,
    Tok::Colon,
]);
const ESC_IDENT: TokSet = TokSet::of(&[Tok::Ident, Tok::EscIdent]);
const MSG_OPEN: TokSet = TokSet::of(&[
    Tok::RBrace,
    Tok::Comma,
    Tok::Question,
    Tok::Ident,
    Tok::EscIdent,
]);

/// The largest nesting depth callers may configure: deep enough for any real
/// expression, shallow enough that parsing (and every later pass, whose depth
/// the parser bounds) fits in the stack of a 2 MiB thread even in debug builds.
pub const MAX_NESTING_DEPTH_CAP: usize = 250;
/// The smallest nesting depth a parser accepts (cel-go's conformance minimum).
pub const MIN_NESTING_DEPTH: usize = 32;

/// Grammar rules whose nesting the recursion limit counts.
#[derive(Clone, Copy)]
enum Rule {
    Expr,
    Relation,
    Calc,
}

/// Node ids and their code-point offsets; also the macro expanders' view of
/// the parser.
struct Ids {
    next: ExprId,
    /// Set when macro expansion has created [`MAX_EXPANDED_NODES`] nodes:
    /// copies stop (chained `optMap` would otherwise double the tree per link)
    /// and the parse fails.
    exhausted: bool,
    offsets: Vec<i32>,
    /// Offset of the macro call being expanded.
    call_offset: i32,
}

impl Ids {
    fn alloc(&mut self, offset: i32) -> ExprId {
        if self.next >= MAX_EXPANDED_NODES {
            self.exhausted = true;
        }
        let id = self.next;
        self.next += 1;
        self.offsets.push(offset);
        id
    }

    fn offset(&self, id: ExprId) -> Option<i32> {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.offsets.get(i))
            .copied()
            .filter(|o| *o >= 0)
    }
}

/// The most nodes a parsed and macro-expanded expression may have.
pub(crate) const MAX_EXPANDED_NODES: ExprId = 250_000;

impl MacroHost for Ids {
    fn exhausted(&self) -> bool {
        self.exhausted
    }

    fn next_id(&mut self) -> ExprId {
        self.alloc(self.call_offset)
    }

    fn next_id_like(&mut self, like: ExprId) -> ExprId {
        let o = self.offset(like).unwrap_or(self.call_offset);
        self.alloc(o)
    }
}

/// Why parsing stopped early.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Abort {
    None,
    /// Recursion, recovery or error-count limit: stop without further reports.
    Stop,
}

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    opts: &'a ParserOptions,
    max_depth: usize,
    ids: Ids,
    /// Visitor depth (counted nodes on the deepest path) by node id; ids past
    /// its end (nodes created later, or never given a depth) have depth 0,
    /// so a tree of leaves allocates nothing here.
    vdepth: Vec<u32>,
    macro_calls: HashMap<ExprId, Expr>,
    /// (offset, message) in report order; `None` offset for internal errors.
    errors: Vec<(Option<usize>, ExprId, String)>,
    syntax_error_count: usize,
    /// ANTLR's error-recovery mode: reports are suppressed until a token is matched.
    error_mode: bool,
    last_error_index: Option<usize>,
    last_error_sites: Vec<u16>,
    recovery_attempts: usize,
    abort: Abort,
    /// While positive, semantic (non-syntax) errors are not reported: cel-go
    /// does not visit the parts of the parse tree these come from.
    quiet: u32,
    depth: [usize; 3],
    /// cel-go's visitor depth limit was exceeded (reported once, at the end).
    vdepth_exceeded: bool,
    /// The macros' names (from the environment, else built at the first call).
    macro_names: Option<MacroNames>,
    /// The last [`Parser::flat_scan`]: the token it started at and its result.
    flat_scanned: (usize, Option<usize>),
}

/// A one-bit-per-name filter of a set of macro names: a call whose name's bit
/// is clear is no macro, found without a scan of the macros (operators and
/// most functions). An environment builds it once.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MacroNames(u128);

impl MacroNames {
    /// The filter of `macros`' names.
    pub(crate) fn of(macros: &[super::Macro]) -> Self {
        MacroNames(macros.iter().fold(0, |b, m| b | Self::bit(&m.name)))
    }

    const fn bit(name: &str) -> u128 {
        let bytes = name.as_bytes();
        let mut h = 0u32;
        let mut i = 0;
        while i < bytes.len() {
            h = h.wrapping_mul(31).wrapping_add(bytes[i] as u32);
            i += 1;
        }
        1 << (h % 128)
    }

    /// False when no macro is named `name`.
    fn may_contain(self, name: &str) -> bool {
        self.0 & Self::bit(name) != 0
    }
}

/// An operator: its function name (built at compile time, copied into each
/// call) and the name's [`MacroNames`] bit (an operator is looked up among
/// the macros as any global call is, cel-go's `globalCallOrMacro`).
struct Op {
    name: Name,
    bit: u128,
}

impl Op {
    const fn new(name: &'static str) -> Op {
        Op {
            name: Name::const_new(name),
            bit: MacroNames::bit(name),
        }
    }
}

static OP_CONDITIONAL: Op = Op::new("_?_:_");
static OP_OR: Op = Op::new("_||_");
static OP_AND: Op = Op::new("_&&_");
static OP_EQ: Op = Op::new("_==_");
static OP_NE: Op = Op::new("_!=_");
static OP_IN: Op = Op::new("@in");
static OP_LT: Op = Op::new("_<_");
static OP_LE: Op = Op::new("_<=_");
static OP_GE: Op = Op::new("_>=_");
static OP_GT: Op = Op::new("_>_");
static OP_MUL: Op = Op::new("_*_");
static OP_DIV: Op = Op::new("_/_");
static OP_MOD: Op = Op::new("_%_");
static OP_ADD: Op = Op::new("_+_");
static OP_SUB: Op = Op::new("_-_");
static OP_NOT: Op = Op::new("!_");
static OP_NEG: Op = Op::new("-_");
static OP_INDEX: Op = Op::new("_[_]");
static OP_OPT_INDEX: Op = Op::new("_[?_]");

/// The operator of a relation operator token.
fn relation_op(t: Tok) -> &'static Op {
    match t {
        Tok::Eq => &OP_EQ,
        Tok::Ne => &OP_NE,
        Tok::In => &OP_IN,
        Tok::Lt => &OP_LT,
        Tok::Le => &OP_LE,
        Tok::Ge => &OP_GE,
        _ => &OP_GT,
    }
}

/// The precedence of an arithmetic operator token (2 multiplicative, 1
/// additive), 0 for any other token.
fn calc_prec(t: Tok) -> u8 {
    match t {
        Tok::Star | Tok::Slash | Tok::Percent => 2,
        Tok::Plus | Tok::Minus => 1,
        _ => 0,
    }
}

/// The operator of an arithmetic operator token.
fn calc_op(t: Tok) -> &'static Op {
    match t {
        Tok::Star => &OP_MUL,
        Tok::Slash => &OP_DIV,
        Tok::Percent => &OP_MOD,
        Tok::Plus => &OP_ADD,
        _ => &OP_SUB,
    }
}

/// The parser's working vectors, kept per thread between parses so that a
/// parse reuses the last one's allocations (the AST's own parts are not
/// among them: they leave with the tree).
#[derive(Default)]
struct Spare {
    tokens: Vec<Token>,
    vdepth: Vec<u32>,
}

thread_local! {
    static SPARE: std::cell::Cell<Spare> = const {
        std::cell::Cell::new(Spare {
            tokens: Vec::new(),
            vdepth: Vec::new(),
        })
    };
}

#[cfg(test)]
thread_local! {
    /// Set by tests to parse through the general path only.
    pub(super) static GENERAL_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Parses `source` into a macro-expanded AST.
pub(crate) fn parse_source(
    source: Arc<Source>,
    opts: &ParserOptions,
    macro_names: Option<MacroNames>,
) -> Result<Ast, Issues> {
    let text = source.text();
    // A text of at most the limit in bytes is within it in code points: count
    // them only for longer texts.
    if text.len() > opts.max_expression_length
        && let size = text.chars().count()
        && size > opts.max_expression_length
    {
        let mut issues = Issues::new(source.clone());
        issues.push(
            None,
            0,
            format!(
                "expression code point size exceeds limit: size: {size}, limit {}",
                opts.max_expression_length
            ),
        );
        return Err(issues);
    }
    let spare = SPARE.take();
    let (toks, lex_errors) = lex_into(text, opts.error_reporting_limit + 1, spare.tokens);
    // Room for about one node per token plus a macro expansion or two (the
    // vectors grow past that if needed).
    let nodes = toks.len() + 16;
    let mut offsets = Vec::with_capacity(nodes);
    offsets.push(-1);
    let mut p = Parser {
        src: text,
        toks,
        pos: 0,
        opts,
        max_depth: opts
            .max_nesting_depth
            .clamp(MIN_NESTING_DEPTH, MAX_NESTING_DEPTH_CAP),
        ids: Ids {
            next: 1,
            exhausted: false,
            offsets,
            call_offset: 0,
        },
        vdepth: spare.vdepth,
        macro_calls: HashMap::new(),
        errors: Vec::new(),
        syntax_error_count: 0,
        error_mode: false,
        last_error_index: None,
        last_error_sites: Vec::new(),
        recovery_attempts: 0,
        abort: Abort::None,
        quiet: 0,
        depth: [0; 3],
        vdepth_exceeded: false,
        macro_names,
        flat_scanned: (usize::MAX, None),
    };
    for e in lex_errors.into_iter().take(opts.error_reporting_limit + 1) {
        p.errors.push((Some(e.offset as usize), 0, e.message));
        p.syntax_error_count += 1;
    }
    let expr = p.start();
    if p.abort == Abort::None && (p.vdepth_exceeded || p.vdepth_of(&expr) as usize > p.max_depth) {
        p.errors
            .push((None, 0, "max recursion depth exceeded".to_string()));
    }
    if p.ids.exhausted {
        p.errors.push((
            None,
            0,
            format!(
                "expression too large: more than {MAX_EXPANDED_NODES} nodes after macro expansion"
            ),
        ));
    }
    if p.syntax_error_count > opts.error_reporting_limit {
        // Keep the first reports by position, then cel-go's summary line.
        p.errors.sort_by_key(|e| e.0);
        let limit = opts.error_reporting_limit;
        let at = p
            .errors
            .iter()
            .filter(|e| e.2.starts_with("Syntax error: "))
            .nth(limit)
            .and_then(|e| e.0);
        let mut kept = 0;
        p.errors.retain(|e| {
            if e.2.starts_with("Syntax error: ") {
                kept += 1;
                kept <= limit
            } else {
                true
            }
        });
        p.errors.push((
            at,
            0,
            format!("Syntax error: More than {limit} syntax errors"),
        ));
    }
    let spare = Spare {
        tokens: crate::spare::emptied(p.toks),
        vdepth: crate::spare::emptied(p.vdepth),
    };
    SPARE.with(|s| s.set(spare));
    if !p.errors.is_empty() {
        let errors = p.errors;
        let mut issues = Issues::new(source);
        for (offset, id, msg) in errors {
            issues.push(offset, id, msg);
        }
        return Err(issues);
    }
    let next_id = p.ids.next;
    let mut source_info = SourceInfo {
        offsets: p.ids.offsets,
        macro_calls: p.macro_calls,
    };
    source_info
        .offsets
        .truncate(usize::try_from(next_id).unwrap_or(0));
    Ok(Ast {
        expr,
        source_info,
        source,
        next_id,
    })
}

impl<'a> Parser<'a> {
    // ----- tokens -------------------------------------------------------

    fn cur(&self) -> Tok {
        self.la(1)
    }

    /// ANTLR's `LA(i)`, 1-based; past the end it is `<EOF>`.
    fn la(&self, i: usize) -> Tok {
        self.toks.get(self.pos + i - 1).map_or(Tok::Eof, |t| t.kind)
    }

    fn tok(&self) -> Token {
        self.tok_at(self.pos)
    }

    fn tok_at(&self, i: usize) -> Token {
        let last = self.toks.len().saturating_sub(1);
        self.toks.get(i.min(last)).copied().unwrap_or(Token {
            kind: Tok::Eof,
            start: 0,
            end: 0,
            offset: 0,
        })
    }

    fn text(&self, t: Token) -> &'a str {
        self.src.get(t.start as usize..t.end as usize).unwrap_or("")
    }

    /// Token text as ANTLR shows it in messages.
    fn display(&self, t: Token) -> String {
        if t.kind == Tok::Eof {
            "<EOF>".to_string()
        } else {
            escape_error_text(self.text(t))
        }
    }

    /// Consumes the current token as a successful match (ends error-recovery mode).
    fn advance(&mut self) -> Token {
        let t = self.tok();
        if t.kind != Tok::Eof {
            self.pos += 1;
        }
        self.error_mode = false;
        self.last_error_index = None;
        self.last_error_sites.clear();
        t
    }

    fn stopped(&self) -> bool {
        self.abort != Abort::None
    }

    /// Whether the fast paths (`leaf`, `ident_chain`) may run; tests turn
    /// them off to compare them with the general path.
    #[inline(always)]
    fn fast_paths(&self) -> bool {
        #[cfg(test)]
        {
            !GENERAL_ONLY.get()
        }
        #[cfg(not(test))]
        true
    }

    // ----- ids and nodes -----------------------------------------------------

    fn new_id(&mut self, offset: u32) -> ExprId {
        self.ids.alloc(offset as i32)
    }

    fn vdepth_of(&self, e: &Expr) -> u32 {
        usize::try_from(e.id)
            .ok()
            .and_then(|i| self.vdepth.get(i))
            .copied()
            .unwrap_or(0)
    }

    fn set_vdepth(&mut self, id: ExprId, d: u32) {
        if let Ok(i) = usize::try_from(id) {
            if self.vdepth.len() <= i {
                if d == 0 {
                    return;
                }
                // Zeroed (depth 0, as past its end) for all the nodes the
                // parse expects, so that the next nodes find their slots
                // without a resize (the kept vector may have more room, from
                // a larger expression: not zeroed).
                let len = self.ids.offsets.capacity().max(i + 1);
                self.vdepth.resize(len, 0);
            }
            self.vdepth[i] = d;
        }
    }

    /// Checks cel-go's visitor depth limit. Past it, the tree stops growing
    /// (so nothing recursive ever walks a deeper tree), semantic errors are no
    /// longer reported (cel-go's visitor stops there) and parsing goes on only
    /// to report syntax errors.
    fn too_deep(&mut self, d: u32) -> bool {
        if d as usize <= self.max_depth {
            return false;
        }
        if !self.vdepth_exceeded {
            self.vdepth_exceeded = true;
            self.quiet += 1;
        }
        true
    }

    fn max_vdepth<'e>(&self, es: impl IntoIterator<Item = &'e Expr>) -> u32 {
        es.into_iter().map(|e| self.vdepth_of(e)).max().unwrap_or(0)
    }

    fn node(&mut self, offset: u32, kind: ExprKind) -> Expr {
        let id = self.new_id(offset);
        Expr::new(id, kind)
    }

    fn call_node(&mut self, id: ExprId, function: &str, args: CallArgs, counted: bool) -> Expr {
        let d = self.max_vdepth(&args) + u32::from(counted);
        self.set_vdepth(id, d);
        let call = Call {
            target: None,
            function: function.into(),
            args,
        };
        Expr::new(id, ExprKind::Call(Box::new(call)))
    }

    /// A placeholder for a node that could not be built (errors were reported).
    fn error_node(&mut self, offset: u32) -> Expr {
        self.node(offset, ExprKind::Literal(Literal::Null))
    }

    // ----- error reporting -----------------------------------------------------

    /// A syntax error from the parser (ANTLR's `reportError`): suppressed in
    /// error-recovery mode, which it starts.
    fn syntax_error(&mut self, offset: u32, msg: String) {
        if self.error_mode {
            return;
        }
        self.error_mode = true;
        self.push_syntax(Some(offset as usize), msg);
    }

    fn push_syntax(&mut self, offset: Option<usize>, msg: String) {
        self.syntax_error_count += 1;
        if self.syntax_error_count > self.opts.error_reporting_limit + 1 {
            self.abort = Abort::Stop;
            return;
        }
        self.errors
            .push((offset, 0, format!("Syntax error: {msg}")));
    }

    /// A semantic error from cel-go's visitor, at `offset`; returns the error node.
    fn semantic_error(&mut self, offset: u32, msg: impl Into<String>) -> Expr {
        let e = self.error_node(offset);
        if self.quiet == 0 {
            self.errors.push((Some(offset as usize), e.id, msg.into()));
        }
        e
    }

    fn mismatched(&mut self, expected: TokSet) {
        let t = self.tok();
        let msg = format!(
            "mismatched input '{}' expecting {}",
            self.display(t),
            expected
        );
        self.syntax_error(t.offset, msg);
    }

    /// `no viable alternative at input '<start..offending>'`, at the offending token.
    fn no_viable(&mut self, start: usize, offending: usize) {
        let off = self.tok_at(offending);
        let first = self.tok_at(start);
        let end = if off.kind == Tok::Eof {
            if offending > start {
                self.tok_at(offending - 1).end
            } else {
                first.start
            }
        } else {
            off.end
        };
        let text = self
            .src
            .get(first.start as usize..end as usize)
            .unwrap_or("");
        let msg = match text.strip_prefix('.') {
            // cel-go rewrites this case to its historical message.
            Some(kw @ ("true" | "false" | "null")) => {
                format!("mismatched input '{kw}' expecting IDENTIFIER")
            }
            _ => format!(
                "no viable alternative at input '{}'",
                escape_error_text(text)
            ),
        };
        self.syntax_error(off.offset, msg);
    }

    /// Counts a recovery; past cel-go's limit, reports and stops parsing.
    fn count_recovery(&mut self) -> bool {
        if self.stopped() {
            return false;
        }
        if self.recovery_attempts == self.opts.error_recovery_limit {
            let t = self.tok();
            let limit = self.opts.error_recovery_limit;
            self.push_syntax(
                Some(t.offset as usize),
                format!("error recovery attempt limit exceeded: {limit}"),
            );
            self.abort = Abort::Stop;
            return false;
        }
        self.recovery_attempts += 1;
        true
    }

    /// ANTLR's `recover`: skip tokens until one in the recovery set.
    fn recover(&mut self, rec: TokSet, site: u16) {
        if !self.count_recovery() {
            return;
        }
        if self.last_error_index == Some(self.pos)
            && self.last_error_sites.contains(&site)
            && self.cur() != Tok::Eof
        {
            self.pos += 1;
        }
        if self.last_error_index != Some(self.pos) {
            self.last_error_sites.clear();
        }
        self.last_error_index = Some(self.pos);
        self.last_error_sites.push(site);
        while self.cur() != Tok::Eof && !rec.contains(self.cur()) {
            self.pos += 1;
        }
    }

    /// ANTLR's `sync` before a decision whose alternatives start with `expected`
    /// (and that cannot be skipped). Returns false when the rule must give up
    /// (the error is reported and the input resynchronised).
    fn sync(&mut self, expected: TokSet, rec: TokSet, site: u16) -> bool {
        if self.stopped() {
            return false;
        }
        if expected.contains(self.cur()) {
            return true;
        }
        if !self.error_mode {
            if expected.contains(self.la(2)) {
                // Single-token deletion.
                let t = self.tok();
                let msg = format!(
                    "extraneous input '{}' expecting {}",
                    self.display(t),
                    expected
                );
                self.syntax_error(t.offset, msg);
                self.pos += 1;
                self.advance_match_only();
                return true;
            }
            self.mismatched(expected);
        }
        self.recover(rec, site);
        false
    }

    /// Ends error-recovery mode as ANTLR's `reportMatch` does, without consuming.
    fn advance_match_only(&mut self) {
        self.error_mode = false;
        self.last_error_index = None;
        self.last_error_sites.clear();
    }

    /// ANTLR's `match(t)` with inline recovery. `after` are the tokens that
    /// may follow `t` (for single-token insertion). Returns false when the
    /// enclosing rule must give up.
    fn expect(&mut self, t: Tok, after: TokSet, rec: TokSet, site: u16) -> bool {
        if self.stopped() {
            return false;
        }
        if self.cur() == t {
            self.advance();
            return true;
        }
        if !self.count_recovery() {
            return false;
        }
        let expected = TokSet::of(&[t]);
        if self.la(2) == t {
            let bad = self.tok();
            let msg = format!(
                "extraneous input '{}' expecting {}",
                self.display(bad),
                expected
            );
            self.syntax_error(bad.offset, msg);
            self.pos += 1;
            self.advance();
            return true;
        }
        if t != Tok::Eof && after.contains(self.cur()) {
            let bad = self.tok();
            let msg = format!("missing {} at '{}'", t.display_name(), self.display(bad));
            self.syntax_error(bad.offset, msg);
            return true;
        }
        self.mismatched(expected);
        // The exception unwinds to the enclosing rule, which recovers.
        self.recover(rec, site);
        false
    }

    /// Enters a counted grammar rule; past the limit stops parsing as cel-go's
    /// parse listener does.
    fn enter(&mut self, rule: Rule) -> bool {
        if self.stopped() {
            return false;
        }
        let d = &mut self.depth[rule as usize];
        *d += 1;
        if *d > self.max_depth {
            self.errors.push((
                None,
                0,
                format!("expression recursion limit exceeded: {}", self.max_depth),
            ));
            self.abort = Abort::Stop;
            return false;
        }
        true
    }

    fn leave(&mut self, rule: Rule) {
        self.depth[rule as usize] -= 1;
    }

    // ----- grammar ---------------------------------------------------------------

    /// `start : expr EOF`
    fn start(&mut self) -> Expr {
        let rec = TokSet::of(&[Tok::Eof]);
        let e = self.expr(rec);
        if !self.stopped() && self.cur() != Tok::Eof {
            self.expect(Tok::Eof, TokSet::EMPTY, rec, 1);
        }
        e
    }

    /// `expr : conditionalOr ('?' conditionalOr ':' expr)?`
    fn expr(&mut self, rec: TokSet) -> Expr {
        let here = self.tok().offset;
        if !self.enter(Rule::Expr) {
            return self.error_node(here);
        }
        let e = match self.leaf(rec) {
            Some(e) => e,
            None => match self.flat_end() {
                // Nothing of `expr`, `conditionalOr` or `conditionalAnd`
                // matches after the relation.
                Some(end) if LEAF_END.contains(end) => self.flat_relation(),
                // The conditional's test, with no `?` after it.
                Some(Tok::And | Tok::Or) if self.flat_logic() => {
                    self.logic(rec.with(Tok::Question), Tok::Or, true)
                }
                _ => self.expr_inner(rec),
            },
        };
        self.leave(Rule::Expr);
        e
    }

    /// Where a flat relation starting at the current token ends: the kind of
    /// the token after it, `None` when no flat relation starts here.
    ///
    /// A flat relation is a sequence of operands joined by relation and
    /// arithmetic operators (`a.b <= c`, `x % 2 == 0`), its operands
    /// identifiers with their field selections or lone literal tokens, none
    /// followed by a selection, index, call or message; and it must fit the
    /// recursion limits as parsed by the general path (a relation and its
    /// right operand, three levels of `calc`). For it, [`Parser::flat_relation`]
    /// builds what `relation` would, without the grammar's decisions.
    fn flat_end(&mut self) -> Option<Tok> {
        if !self.fast_paths()
            || self.stopped()
            || self.depth[Rule::Relation as usize] + 2 > self.max_depth
            || self.depth[Rule::Calc as usize] + 3 > self.max_depth
        {
            return None;
        }
        // `expr` and then `relation` ask at the same token.
        let end = match self.flat_scanned {
            (start, end) if start == self.pos => end,
            _ => {
                let end = self.flat_scan(self.pos);
                self.flat_scanned = (self.pos, end);
                end
            }
        };
        end.map(|k| self.toks.get(k).map_or(Tok::Eof, |t| t.kind))
    }

    /// Whether a chain of flat relations joined by `&&` and `||` starts at
    /// the current token (where [`Parser::flat_end`] has found the first,
    /// followed by one of them) and ends the expression, and the recursion
    /// limits allow what `relation` checks for each: then `logic` takes
    /// them as flat relations, without the descent through `expr` and
    /// `relation` for each.
    fn flat_logic(&mut self) -> bool {
        // `relation` enters its rule before its check.
        if self.depth[Rule::Relation as usize] + 3 > self.max_depth {
            return false;
        }
        let (start, Some(mut end)) = self.flat_scanned else {
            return false;
        };
        debug_assert_eq!(start, self.pos);
        loop {
            match self.toks.get(end).map_or(Tok::Eof, |t| t.kind) {
                Tok::And | Tok::Or => match self.flat_scan(end + 1) {
                    Some(next) => end = next,
                    None => return false,
                },
                t => return LEAF_END.contains(t),
            }
        }
    }

    /// The index of the token after the flat relation starting at token
    /// `k`, if one does.
    fn flat_scan(&self, mut k: usize) -> Option<usize> {
        let toks = &self.toks[..];
        let kind = |k: usize| toks.get(k).map_or(Tok::Eof, |t| t.kind);
        loop {
            match kind(k) {
                Tok::Ident => {
                    k += 1;
                    while kind(k) == Tok::Dot && kind(k + 1) == Tok::Ident {
                        k += 2;
                    }
                }
                t if LEAF.contains(t) => k += 1,
                _ => return None,
            }
            let after = kind(k);
            if matches!(after, Tok::Dot | Tok::LBracket | Tok::LParen | Tok::LBrace) {
                return None;
            }
            if !RELATION_OPS.union(CALC_OPS).contains(after) {
                return Some(k);
            }
            k += 1;
        }
    }

    /// `relation` over a flat relation ([`Parser::flat_end`] found one here):
    /// the same nodes, ids and depth checks, built in the same order. The
    /// visitor depths of the nodes inside are carried along, not recorded:
    /// only the relation's root is read later.
    fn flat_relation(&mut self) -> Expr {
        // What `advance` does once per token matched: every token up to the
        // relation's end is one (the scan has found their shape).
        self.error_mode = false;
        self.last_error_index = None;
        self.last_error_sites.clear();
        let (mut lhs, mut depth) = self.flat_calc(0);
        while RELATION_OPS.contains(self.cur()) {
            let t = self.toks[self.pos];
            self.pos += 1;
            let id = self.new_id(t.offset);
            let rhs = self.flat_calc(0);
            (lhs, depth) = self.flat_operator(id, relation_op(t.kind), (lhs, depth), rhs);
        }
        self.set_vdepth(lhs.id, depth);
        lhs
    }

    /// `calc` over a flat relation's operands: the operand and its visitor
    /// depth.
    fn flat_calc(&mut self, min_prec: u8) -> (Expr, u32) {
        let first = self.toks[self.pos];
        let (mut lhs, mut depth) = if first.kind == Tok::Ident {
            // `primary`'s identifier and `member`'s selections.
            self.pos += 1;
            let name_text = self.text(first);
            let mut e = if super::is_reserved_word(name_text) {
                // As `ident_call_or_message` reports it (the selections
                // that follow apply to the error node).
                let msg = format!("reserved identifier: {name_text}");
                self.semantic_error(first.offset, msg)
            } else {
                self.node(first.offset, ExprKind::Ident(Name::from(name_text)))
            };
            let mut depth = 0;
            // The scan has found an identifier after each dot.
            while self.toks[self.pos].kind == Tok::Dot {
                let dot = self.toks[self.pos];
                let name_tok = self.toks[self.pos + 1];
                self.pos += 2;
                (e, depth) = self.flat_select(e, depth, dot.offset, name_tok);
            }
            (e, depth)
        } else {
            (self.literal(TokSet::EMPTY), 0)
        };
        loop {
            let prec = calc_prec(self.cur());
            if prec == 0 || prec < min_prec {
                return (lhs, depth);
            }
            let t = self.toks[self.pos];
            self.pos += 1;
            let id = self.new_id(t.offset);
            let rhs = self.flat_calc(prec + 1);
            (lhs, depth) = self.flat_operator(id, calc_op(t.kind), (lhs, depth), rhs);
        }
    }

    /// [`Parser::select`] of an identifier's field in a flat relation, on an
    /// operand of visitor depth `depth`: the node and its depth.
    fn flat_select(
        &mut self,
        operand: Expr,
        depth: u32,
        dot_offset: u32,
        name_tok: Token,
    ) -> (Expr, u32) {
        let field = Name::from(self.text(name_tok));
        let d = depth + 1;
        if self.too_deep(d) {
            return (self.error_node(dot_offset), 0);
        }
        let id = self.new_id(dot_offset);
        (select_node(id, operand, field), d)
    }

    /// [`Parser::operator`] (counted) on operands given with their visitor
    /// depths: the node and its depth.
    fn flat_operator(
        &mut self,
        id: ExprId,
        op: &'static Op,
        (lhs, lhs_depth): (Expr, u32),
        (rhs, rhs_depth): (Expr, u32),
    ) -> (Expr, u32) {
        if self.macro_names().0 & op.bit != 0 {
            // The macro search reads the operands' depths from the table.
            self.set_vdepth(lhs.id, lhs_depth);
            self.set_vdepth(rhs.id, rhs_depth);
            let e = self.call_or_macro(id, &op.name, None, smallvec::smallvec![lhs, rhs], true);
            let d = self.vdepth_of(&e);
            return (e, d);
        }
        let depth = lhs_depth.max(rhs_depth) + 1;
        if self.too_deep(depth) {
            return (self.error_node(0), 0);
        }
        let call = call_node(id, None, op.name.clone(), CallArgs::from_buf([lhs, rhs]));
        (call, depth)
    }

    /// The fast path of `expr` for a lone literal or identifier that ends the
    /// expression (`true`, a call argument `'a'`, a macro variable `x`): the
    /// same node, ids and depth checks as the descent through every
    /// precedence level, which would match nothing after the primary.
    /// `None` when the expression is anything else.
    fn leaf(&mut self, rec: TokSet) -> Option<Expr> {
        if !self.fast_paths() || !LEAF.contains(self.cur()) || !LEAF_END.contains(self.la(2)) {
            return None;
        }
        let here = self.tok().offset;
        // `relation` and `calc` are entered on the way down.
        if !self.enter(Rule::Relation) {
            return Some(self.error_node(here));
        }
        let e = if self.enter(Rule::Calc) {
            let e = match self.ident_chain() {
                Some(e) => e,
                None => self.primary(rec),
            };
            self.leave(Rule::Calc);
            e
        } else {
            self.error_node(here)
        };
        self.leave(Rule::Relation);
        Some(e)
    }

    fn expr_inner(&mut self, rec: TokSet) -> Expr {
        let cond = self.cond_or(rec.with(Tok::Question));
        if self.stopped() || self.cur() != Tok::Question {
            return cond;
        }
        let q = self.advance();
        let id = self.new_id(q.offset);
        let if_true = self.cond_or(rec.with(Tok::Colon));
        if !self.expect(Tok::Colon, EXPR_START, rec, 2) {
            return self.error_node(q.offset);
        }
        let if_false = self.expr(rec);
        self.operator(
            id,
            &OP_CONDITIONAL,
            smallvec::smallvec![cond, if_true, if_false],
            true,
        )
    }

    /// `conditionalOr : conditionalAnd ('||' conditionalAnd)*`, balanced as cel-go does.
    fn cond_or(&mut self, rec: TokSet) -> Expr {
        self.logic(rec, Tok::Or, false)
    }

    /// `flat`: the operands are flat relations ([`Parser::flat_logic`]).
    fn logic(&mut self, rec: TokSet, op: Tok, flat: bool) -> Expr {
        let inner = rec.with(op);
        let first = self.logic_operand(inner, op, flat);
        if self.stopped() || self.cur() != op {
            return first;
        }
        let t = self.advance();
        let op_id = self.new_id(t.offset);
        let second = self.logic_operand(inner, op, flat);
        let function = if op == Tok::Or { &OP_OR } else { &OP_AND };
        if self.stopped() || self.cur() != op {
            // One operator (the common case): the balanced tree is the call itself.
            return self.operator(op_id, function, smallvec::smallvec![first, second], false);
        }
        let mut terms = vec![first, second];
        let mut ops = vec![op_id];
        while !self.stopped() && self.cur() == op {
            let t = self.advance();
            ops.push(self.new_id(t.offset));
            let next = self.logic_operand(inner, op, flat);
            terms.push(next);
        }
        self.balance(function, terms, &ops)
    }

    /// An operand of `op`: a conjunction under `||`, a relation under `&&`.
    fn logic_operand(&mut self, rec: TokSet, op: Tok, flat: bool) -> Expr {
        if op == Tok::Or {
            self.logic(rec, Tok::And, flat)
        } else if flat {
            self.flat_relation()
        } else {
            self.relation(rec)
        }
    }

    /// cel-go's balanced logic tree over `terms` (one more than `ops`).
    fn balance(&mut self, function: &'static Op, terms: Vec<Expr>, ops: &[ExprId]) -> Expr {
        let mut slots: Vec<Option<Expr>> = terms.into_iter().map(Some).collect();
        self.balanced(function, &mut slots, ops, 0, ops.len().saturating_sub(1))
    }

    fn balanced(
        &mut self,
        function: &'static Op,
        terms: &mut [Option<Expr>],
        ops: &[ExprId],
        lo: usize,
        hi: usize,
    ) -> Expr {
        let mid = (lo + hi).div_ceil(2);
        let left = if mid == lo {
            terms[mid].take()
        } else {
            Some(self.balanced(function, terms, ops, lo, mid - 1))
        };
        let right = if mid == hi {
            terms[mid + 1].take()
        } else {
            Some(self.balanced(function, terms, ops, mid + 1, hi))
        };
        let args: CallArgs = [left, right].into_iter().flatten().collect();
        self.operator(ops[mid], function, args, false)
    }

    /// `relation : calc | relation op relation` (left-associative, one precedence).
    fn relation(&mut self, rec: TokSet) -> Expr {
        let here = self.tok().offset;
        if !self.enter(Rule::Relation) {
            return self.error_node(here);
        }
        if self.flat_end().is_some() {
            let e = self.flat_relation();
            self.leave(Rule::Relation);
            return e;
        }
        let inner = rec.union(RELATION_OPS);
        let mut lhs = self.calc(0, inner);
        while !self.stopped() && RELATION_OPS.contains(self.cur()) {
            let t = self.advance();
            let id = self.new_id(t.offset);
            if !self.enter(Rule::Relation) {
                break;
            }
            let rhs = self.calc(0, inner);
            self.leave(Rule::Relation);
            lhs = self.operator(id, relation_op(t.kind), smallvec::smallvec![lhs, rhs], true);
        }
        self.leave(Rule::Relation);
        lhs
    }

    /// `calc : unary | calc ('*'|'/'|'%') calc | calc ('+'|'-') calc`, by
    /// precedence climbing as ANTLR's left-recursion rewrite does.
    fn calc(&mut self, min_prec: u8, rec: TokSet) -> Expr {
        let here = self.tok().offset;
        if !self.enter(Rule::Calc) {
            return self.error_node(here);
        }
        let mut lhs = self.unary(rec.union(CALC_OPS));
        while !self.stopped() {
            let prec = calc_prec(self.cur());
            if prec == 0 || prec < min_prec {
                break;
            }
            let t = self.advance();
            let id = self.new_id(t.offset);
            let rhs = self.calc(prec + 1, rec);
            lhs = self.operator(id, calc_op(t.kind), smallvec::smallvec![lhs, rhs], true);
        }
        self.leave(Rule::Calc);
        lhs
    }

    /// `unary : member | '!'+ member | '-'+ member`
    fn unary(&mut self, rec: TokSet) -> Expr {
        let here = self.tok().offset;
        if !self.sync(EXPR_START, rec, 10) {
            return self.error_node(here);
        }
        match self.cur() {
            Tok::Not => {
                let first = self.advance();
                let mut n = 1usize;
                while self.cur() == Tok::Not {
                    self.advance();
                    n += 1;
                }
                if !MEMBER_START.contains(self.cur()) && !self.error_mode {
                    // ANTLR's sync at the loop-back state.
                    let t = self.tok();
                    let msg = format!(
                        "extraneous input '{}' expecting {}",
                        self.display(t),
                        EXPR_START
                    );
                    self.syntax_error(t.offset, msg);
                    while self.cur() != Tok::Eof && !EXPR_START.union(rec).contains(self.cur()) {
                        self.pos += 1;
                    }
                }
                let id = (n % 2 == 1).then(|| self.new_id(first.offset));
                let target = self.member(rec);
                match id {
                    Some(id) => self.operator(id, &OP_NOT, smallvec::smallvec![target], false),
                    None => target,
                }
            }
            Tok::Minus if !matches!(self.la(2), Tok::NumInt | Tok::NumFloat) => {
                let first = self.advance();
                let mut n = 1usize;
                while self.cur() == Tok::Minus {
                    if !MEMBER_START
                        .union(TokSet::of(&[Tok::Minus]))
                        .contains(self.la(2))
                    {
                        // Neither another '-' nor a member can follow: ANTLR's loop
                        // decision fails, and parsing resumes after the '-'.
                        self.no_viable(self.pos, self.pos + 1);
                        self.advance();
                        return self.unary(rec);
                    }
                    self.advance();
                    n += 1;
                }
                let id = (n % 2 == 1).then(|| self.new_id(first.offset));
                let target = self.member(rec);
                match id {
                    Some(id) => self.operator(id, &OP_NEG, smallvec::smallvec![target], false),
                    None => target,
                }
            }
            _ => self.member(rec),
        }
    }

    /// `member : primary | member '.' '?'? escapeIdent | member '.' IDENTIFIER '(' exprList? ')'
    ///         | member '[' '?'? expr ']'`
    fn member(&mut self, rec: TokSet) -> Expr {
        let mut e = match self.ident_chain() {
            Some(e) => e,
            None => self.primary(rec.union(TokSet::of(&[Tok::Dot, Tok::LBracket]))),
        };
        while !self.stopped() {
            match self.cur() {
                Tok::Dot => {
                    let dot_index = self.pos;
                    match (self.la(2), self.la(3)) {
                        (Tok::Ident, Tok::LParen) => {
                            self.advance();
                            let name_tok = self.advance();
                            let open = self.advance();
                            let id = self.new_id(open.offset);
                            let Some(args) = self.call_args(rec) else {
                                return self.error_node(open.offset);
                            };
                            let name = self.text(name_tok);
                            e = self.call_or_macro(id, name, Some(e), args, true);
                        }
                        (Tok::Ident | Tok::EscIdent, _) => {
                            let dot = self.advance();
                            let name_tok = self.advance();
                            e = self.select(e, dot, name_tok, false);
                        }
                        (Tok::Question, Tok::Ident | Tok::EscIdent) => {
                            let dot = self.advance();
                            self.advance();
                            let name_tok = self.advance();
                            e = self.select(e, dot, name_tok, true);
                        }
                        (Tok::Question, _) => {
                            self.no_viable(dot_index, dot_index + 2);
                            self.recover(rec, 20);
                            return self.error_node(self.tok_at(dot_index).offset);
                        }
                        _ => {
                            self.no_viable(dot_index, dot_index + 1);
                            self.recover(rec, 21);
                            return self.error_node(self.tok_at(dot_index).offset);
                        }
                    }
                }
                Tok::LBracket => {
                    let open = self.advance();
                    let optional = self.cur() == Tok::Question;
                    if optional {
                        self.advance();
                    }
                    let id = self.new_id(open.offset);
                    let index = self.expr(rec.with(Tok::RBracket));
                    if !self.expect(Tok::RBracket, AFTER_PRIMARY, rec, 22) {
                        return self.error_node(open.offset);
                    }
                    if optional && !self.opts.enable_optional_syntax {
                        e = self.semantic_error(open.offset, "unsupported syntax '[?'");
                        continue;
                    }
                    let function = if optional { &OP_OPT_INDEX } else { &OP_INDEX };
                    e = self.operator(id, function, smallvec::smallvec![e, index], true);
                }
                _ => break,
            }
        }
        e
    }

    /// The fast path of `member` for an identifier and the field selections
    /// that follow it, `a.b.c` (not a call `a(`, a message `a.b{`, nor a
    /// member call's name `.c(`, which the general loop then parses): the
    /// nodes, ids, offsets and depth checks of `primary` and `select`, without
    /// their decisions. `None`, having consumed nothing, when the member does
    /// not start so.
    fn ident_chain(&mut self) -> Option<Expr> {
        if !self.fast_paths() || self.stopped() {
            return None;
        }
        let first = *self.toks.get(self.pos)?;
        if first.kind != Tok::Ident {
            return None;
        }
        // `primary`'s look-ahead for a message name, `IDENT ('.' IDENT)* '{'`,
        // and the selections this path takes (up to a member call's name).
        let mut k = self.pos + 1;
        let mut selects_end = k;
        loop {
            let kind = self.toks.get(k).map_or(Tok::Eof, |t| t.kind);
            if kind == Tok::Dot && self.toks.get(k + 1).is_some_and(|t| t.kind == Tok::Ident) {
                if selects_end == k && self.toks.get(k + 2).is_none_or(|t| t.kind != Tok::LParen) {
                    selects_end = k + 2;
                }
                k += 2;
                continue;
            }
            if kind == Tok::LBrace {
                return None;
            }
            break;
        }
        if selects_end == self.pos + 1
            && self
                .toks
                .get(self.pos + 1)
                .is_some_and(|t| t.kind == Tok::LParen)
        {
            return None;
        }
        let name_text = self.text(first);
        // `ident_call_or_message` reports reserved words.
        if super::is_reserved_word(name_text) {
            return None;
        }
        let name = Name::from(name_text);
        // What `advance` does once per token matched.
        self.error_mode = false;
        self.last_error_index = None;
        self.last_error_sites.clear();
        let mut e = self.node(first.offset, ExprKind::Ident(name));
        let mut i = self.pos + 1;
        while i < selects_end {
            let dot = self.toks[i];
            let name_tok = self.toks[i + 1];
            e = self.select(e, dot, name_tok, false);
            i += 2;
        }
        self.pos = selects_end;
        Some(e)
    }

    fn select(&mut self, operand: Expr, dot: Token, name_tok: Token, optional: bool) -> Expr {
        let field = if name_tok.kind == Tok::Ident {
            Name::from(self.text(name_tok))
        } else {
            let Some(field) = self.ident_text(name_tok) else {
                return self.error_node(name_tok.offset);
            };
            field
        };
        if optional {
            if !self.opts.enable_optional_syntax {
                return self.semantic_error(dot.offset, "unsupported syntax '.?'");
            }
            let id = self.new_id(dot.offset);
            let lit = self.node(
                name_tok.offset,
                ExprKind::Literal(Literal::String(Arc::from(field))),
            );
            return self.call_node(id, "_?._", smallvec::smallvec![operand, lit], true);
        }
        let d = self.vdepth_of(&operand) + 1;
        if self.too_deep(d) {
            return self.error_node(dot.offset);
        }
        let id = self.new_id(dot.offset);
        self.set_vdepth(id, d);
        select_node(id, operand, field)
    }

    /// The name of an `escapeIdent` token; reports backquoted names when they
    /// are not enabled.
    fn ident_text(&mut self, t: Token) -> Option<Name> {
        let text = self.text(t);
        if t.kind == Tok::EscIdent {
            if !self.opts.enable_ident_escape_syntax {
                self.semantic_error(t.offset, "unsupported syntax: '`'");
                return None;
            }
            return Some(
                text.get(1..text.len().saturating_sub(1))
                    .unwrap_or("")
                    .into(),
            );
        }
        Some(text.into())
    }

    /// `'(' exprList? ')'` after the open parenthesis; `None` when the rule gave up.
    fn call_args(&mut self, rec: TokSet) -> Option<CallArgs> {
        let close_set = EXPR_START.with(Tok::RParen);
        if !self.sync(close_set, rec, 30) {
            return None;
        }
        let mut args = CallArgs::new();
        if self.cur() != Tok::RParen {
            let inner = rec.union(TokSet::of(&[Tok::Comma, Tok::RParen]));
            loop {
                args.push(self.expr(inner));
                if self.stopped() || self.cur() != Tok::Comma {
                    break;
                }
                self.advance();
            }
        }
        if !self.expect(Tok::RParen, AFTER_PRIMARY, rec, 31) {
            return None;
        }
        Some(args)
    }

    /// `primary`: identifiers, calls, nesting, list, map and message literals, literals.
    fn primary(&mut self, rec: TokSet) -> Expr {
        let here = self.tok().offset;
        if !self.sync(MEMBER_START, rec, 40) {
            return self.error_node(here);
        }
        match self.cur() {
            Tok::Dot | Tok::Ident => self.ident_call_or_message(rec),
            Tok::LParen => {
                let open = self.advance();
                let e = self.expr(rec.with(Tok::RParen));
                if !self.expect(Tok::RParen, AFTER_PRIMARY, rec, 41) {
                    return self.error_node(open.offset);
                }
                e
            }
            Tok::LBracket => self.list(rec),
            Tok::LBrace => self.map(rec),
            _ => self.literal(rec),
        }
    }

    fn ident_call_or_message(&mut self, rec: TokSet) -> Expr {
        let start = self.tok();
        let leading_dot = start.kind == Tok::Dot;
        let first = if leading_dot { 1 } else { 0 };
        if self.la(1 + first) != Tok::Ident {
            // A leading dot not followed by an identifier.
            self.no_viable(self.pos, self.pos + first);
            self.recover(rec, 42);
            return self.error_node(start.offset);
        }
        // Look ahead for `IDENT ('.' IDENT)* '{'` (message construction).
        let mut k = self.pos + first + 1;
        while self.tok_at(k).kind == Tok::Dot && self.tok_at(k + 1).kind == Tok::Ident {
            k += 2;
        }
        if self.tok_at(k).kind == Tok::LBrace {
            let mut name = Name::default();
            if leading_dot {
                name.push('.');
                self.advance();
            }
            loop {
                let t = self.advance();
                name.push_str(self.text(t));
                if self.pos >= k {
                    break;
                }
                self.advance();
                name.push('.');
            }
            return self.message(name, rec);
        }
        if leading_dot {
            self.advance();
        }
        let id_tok = self.advance();
        let name_text = self.text(id_tok);
        // `true`, `false`, `null` and `in` are tokens of their own; the other
        // reserved words reach here and are rejected as identifiers.
        if super::is_reserved_word(name_text) {
            let msg = format!("reserved identifier: {name_text}");
            return self.semantic_error(start.offset, msg);
        }
        let name = if leading_dot {
            compact_str::format_compact!(".{name_text}")
        } else {
            Name::from(name_text)
        };
        if self.cur() == Tok::LParen {
            let open = self.advance();
            let id = self.new_id(open.offset);
            let Some(args) = self.call_args(rec) else {
                return self.error_node(open.offset);
            };
            return self.call_or_macro(id, &name, None, args, false);
        }
        self.node(id_tok.offset, ExprKind::Ident(name))
    }

    /// `'{' fieldInitializerList? ','? '}'` after the message name.
    fn message(&mut self, type_name: Name, rec: TokSet) -> Expr {
        let open = self.advance();
        let id = self.new_id(open.offset);
        let mut fields = Vec::new();
        if !self.sync(MSG_OPEN, rec, 50) {
            return self.error_node(open.offset);
        }
        if matches!(self.cur(), Tok::Question | Tok::Ident | Tok::EscIdent) {
            let inner = rec.union(TokSet::of(&[Tok::Comma, Tok::RBrace]));
            self.field_inits(&mut fields, inner);
        }
        self.closing(Tok::RBrace, rec, 51);
        if self.stopped() {
            return self.error_node(open.offset);
        }
        let d = fields
            .iter()
            .map(|f| self.vdepth_of(&f.value))
            .max()
            .unwrap_or(0);
        self.set_vdepth(id, d);
        Expr::new(id, ExprKind::Struct(Box::new(Struct { type_name, fields })))
    }

    /// `fieldInitializerList : optField ':' expr (',' optField ':' expr)*`
    fn field_inits(&mut self, fields: &mut Vec<StructField>, rec: TokSet) {
        loop {
            // optField : '?'? escapeIdent
            let opt_tok = self.tok();
            let optional = opt_tok.kind == Tok::Question;
            if optional {
                self.advance();
                if !self.sync(ESC_IDENT, rec, 52) {
                    return;
                }
            }
            if !ESC_IDENT.contains(self.cur()) {
                self.recover(rec, 53);
                return;
            }
            let name_tok = self.advance();
            if !self.expect(Tok::Colon, EXPR_START, rec, 54) {
                return;
            }
            let colon = self.tok_at(self.pos - 1);
            let skip = optional && !self.opts.enable_optional_syntax;
            if skip {
                self.semantic_error(opt_tok.offset, "unsupported syntax '?'");
                self.quiet += 1;
                self.expr(rec);
                self.quiet -= 1;
            } else {
                let fid = self.new_id(colon.offset);
                let name = self.ident_text(name_tok);
                let value = self.expr(rec);
                if let Some(name) = name {
                    fields.push(StructField {
                        id: fid,
                        name,
                        value,
                        optional,
                    });
                }
            }
            if self.stopped()
                || !self.list_continues(
                    TokSet::of(&[Tok::Question, Tok::Ident, Tok::EscIdent]),
                    Tok::RBrace,
                    rec,
                )
            {
                return;
            }
        }
    }

    /// Decides a `(',' item)*` loop at a comma: true (comma consumed) to go
    /// on, false to leave it to the optional trailing comma and `close`.
    ///
    /// When the token after the comma starts no item, neither alternative is
    /// viable; ANTLR's prediction then takes the alternative whose
    /// configurations had left the decision's rule before the failing token
    /// (`getSynValidOrSemInvalidAltThatFinishedDecisionEntryRule`): the loop
    /// exit, whose `','?` takes the comma, so the error is `close`'s
    /// (`[1, 2, ` is `missing ']' at '<EOF>'`, as cel-go reports it).
    fn list_continues(&mut self, item_start: TokSet, _close: Tok, _rec: TokSet) -> bool {
        if self.cur() != Tok::Comma {
            return false;
        }
        if item_start.contains(self.la(2)) {
            self.advance();
            return true;
        }
        false
    }

    /// `','? close` after list, map and message entries.
    fn closing(&mut self, close: Tok, rec: TokSet, site: u16) -> bool {
        if self.stopped() {
            return false;
        }
        let set = TokSet::of(&[Tok::Comma, close]);
        if self.sync(set, rec, site) && self.cur() == Tok::Comma {
            self.advance();
        }
        self.expect(close, AFTER_PRIMARY, rec, site + 100)
    }

    /// `'[' listInit? ','? ']'`
    fn list(&mut self, rec: TokSet) -> Expr {
        let open = self.advance();
        let id = self.new_id(open.offset);
        let open_set = EXPR_START.union(TokSet::of(&[Tok::RBracket, Tok::Comma, Tok::Question]));
        if !self.sync(open_set, rec, 70) {
            return self.error_node(open.offset);
        }
        let mut elements = Vec::new();
        let mut optional_indices = Vec::new();
        if EXPR_START.with(Tok::Question).contains(self.cur()) {
            let inner = rec.union(TokSet::of(&[Tok::Comma, Tok::RBracket]));
            loop {
                let q = self.tok();
                let optional = q.kind == Tok::Question;
                if optional {
                    self.advance();
                }
                let e = self.expr(inner);
                if optional {
                    if self.opts.enable_optional_syntax {
                        optional_indices.push(elements.len());
                    } else {
                        self.semantic_error(q.offset, "unsupported syntax '?'");
                    }
                }
                elements.push(e);
                if self.stopped()
                    || !self.list_continues(EXPR_START.with(Tok::Question), Tok::RBracket, inner)
                {
                    break;
                }
            }
        }
        if !self.closing(Tok::RBracket, rec, 71) {
            return self.error_node(open.offset);
        }
        let d = self.max_vdepth(&elements);
        self.set_vdepth(id, d);
        Expr::new(
            id,
            ExprKind::List(Box::new(List {
                elements,
                optional_indices,
            })),
        )
    }

    /// `'{' mapInitializerList? ','? '}'`
    fn map(&mut self, rec: TokSet) -> Expr {
        let open = self.advance();
        let id = self.new_id(open.offset);
        let open_set = EXPR_START.union(TokSet::of(&[Tok::RBrace, Tok::Comma, Tok::Question]));
        if !self.sync(open_set, rec, 80) {
            return self.error_node(open.offset);
        }
        let mut entries: Vec<MapEntry> = Vec::new();
        if EXPR_START.with(Tok::Question).contains(self.cur()) {
            let inner = rec.union(TokSet::of(&[Tok::Comma, Tok::RBrace]));
            self.map_inits(&mut entries, inner);
        }
        if !self.closing(Tok::RBrace, rec, 81) {
            return self.error_node(open.offset);
        }
        let d = entries
            .iter()
            .map(|e| self.vdepth_of(&e.key).max(self.vdepth_of(&e.value)))
            .max()
            .unwrap_or(0);
        self.set_vdepth(id, d);
        Expr::new(id, ExprKind::Map(entries))
    }

    /// `mapInitializerList : optExpr ':' expr (',' optExpr ':' expr)*`
    fn map_inits(&mut self, entries: &mut Vec<MapEntry>, rec: TokSet) {
        loop {
            let q = self.tok();
            let optional = q.kind == Tok::Question;
            let skip = optional && !self.opts.enable_optional_syntax;
            // cel-go allocates the entry id (at the colon) before visiting the key.
            let entry_id = if skip { 0 } else { self.new_id(q.offset) };
            if optional {
                self.advance();
            }
            if skip {
                self.quiet += 1;
            }
            let key = self.expr(rec.with(Tok::Colon));
            if skip {
                self.quiet -= 1;
            }
            if !self.expect(Tok::Colon, EXPR_START, rec, 90) {
                return;
            }
            let colon = self.tok_at(self.pos - 1);
            if skip {
                self.semantic_error(q.offset, "unsupported syntax '?'");
                self.quiet += 1;
                self.expr(rec);
                self.quiet -= 1;
            } else {
                if let Some(o) = usize::try_from(entry_id)
                    .ok()
                    .and_then(|i| self.ids.offsets.get_mut(i))
                {
                    *o = colon.offset as i32;
                }
                let value = self.expr(rec);
                entries.push(MapEntry {
                    id: entry_id,
                    key,
                    value,
                    optional,
                });
            }
            if self.stopped()
                || !self.list_continues(EXPR_START.with(Tok::Question), Tok::RBrace, rec)
            {
                return;
            }
        }
    }

    /// `literal`: numbers (with an optional sign), strings, bytes, booleans, null.
    fn literal(&mut self, rec: TokSet) -> Expr {
        let first = self.tok();
        let negative = first.kind == Tok::Minus;
        if negative {
            self.advance();
        }
        let t = self.tok();
        let Some(value) = literal_value(t.kind, self.text(t), negative, self.opts.cel_go) else {
            // Only reachable in error-recovery mode: ANTLR's decision fails silently.
            if negative {
                self.no_viable(self.pos - 1, self.pos);
            }
            self.recover(rec, 99);
            return self.error_node(first.offset);
        };
        self.advance();
        // A number's node is at its sign; a string's or keyword's at the token.
        let at = if negative { first.offset } else { t.offset };
        match value {
            Ok(lit) => self.node(at, ExprKind::Literal(lit)),
            Err(msg) => self.semantic_error(at, msg),
        }
    }

    // ----- calls and macros -------------------------------------------------

    /// Builds a call, or its macro expansion when a macro matches.
    /// `counted`: whether cel-go's visitor counts this node's depth.
    fn call_or_macro(
        &mut self,
        id: ExprId,
        function: &str,
        mut target: Option<Expr>,
        mut args: CallArgs,
        counted: bool,
    ) -> Expr {
        let receiver = target.is_some();
        // The first macro of this name and style taking exactly this many
        // arguments, else the first taking any number (one pass; the name is
        // compared last, after the cheap tests).
        let mut vararg = None;
        let mut exact = None;
        let opts = self.opts;
        let macros = if self.macro_names().may_contain(function) {
            &opts.macros[..]
        } else {
            &[][..]
        };
        for m in macros {
            if m.receiver_style != receiver
                || m.arg_count.is_some_and(|n| n != args.len())
                || m.name != function
            {
                continue;
            }
            if m.arg_count.is_some() {
                exact = Some(m);
                break;
            }
            vararg = vararg.or(Some(m));
        }
        let found = exact.or(vararg);
        let below = self.max_vdepth(target.iter().chain(args.iter()));
        let depth = below + u32::from(counted);
        if self.too_deep(depth) {
            return self.error_node(0);
        }
        if let Some(m) = found {
            let expander = m.expander;
            let recorded = self
                .opts
                .populate_macro_calls
                .then(|| (target.clone(), args.clone()));
            let call_offset = self.ids.offset(id).unwrap_or(0);
            self.ids.call_offset = call_offset;
            let result = {
                let mut ctx = MacroContext {
                    inner: &mut self.ids,
                };
                expander(&mut ctx, &mut target, &mut args)
            };
            match result {
                Ok(Some(expansion)) => {
                    self.set_vdepth(expansion.id, depth);
                    if let Some((t, a)) = recorded {
                        let call = Call {
                            target: t,
                            function: function.into(),
                            args: a,
                        };
                        self.macro_calls
                            .insert(expansion.id, Expr::new(0, ExprKind::Call(Box::new(call))));
                    }
                    self.delete_id(id);
                    return expansion;
                }
                Ok(None) => {}
                Err(err) => {
                    let offset = self.ids.offset(err.expr_id).unwrap_or(call_offset);
                    self.delete_id(id);
                    return self.semantic_error(offset.max(0) as u32, err.message);
                }
            }
        }
        self.set_vdepth(id, depth);
        call_node(id, target, function.into(), args)
    }

    /// [`Parser::call_or_macro`] of an operator: the macros are searched
    /// only when one may have the operator's name.
    fn operator(&mut self, id: ExprId, op: &'static Op, args: CallArgs, counted: bool) -> Expr {
        if self.macro_names().0 & op.bit != 0 {
            return self.call_or_macro(id, &op.name, None, args, counted);
        }
        let depth = self.max_vdepth(&args) + u32::from(counted);
        if self.too_deep(depth) {
            return self.error_node(0);
        }
        self.set_vdepth(id, depth);
        call_node(id, None, op.name.clone(), args)
    }

    /// The filter of the macros' names (built at the first call when the
    /// environment gave none).
    fn macro_names(&mut self) -> MacroNames {
        let opts = self.opts;
        *self
            .macro_names
            .get_or_insert_with(|| MacroNames::of(&opts.macros))
    }

    fn delete_id(&mut self, id: ExprId) {
        if let Some(o) = usize::try_from(id)
            .ok()
            .and_then(|i| self.ids.offsets.get_mut(i))
        {
            *o = -1;
        }
    }
}

/// The call `function(args)` (on `target`, if any) with id `id`, written
/// into its box (not built on the stack and copied).
#[inline(always)]
fn call_node(id: ExprId, target: Option<Expr>, function: Name, args: CallArgs) -> Expr {
    let call = Box::write(
        Box::new_uninit(),
        Call {
            target,
            function,
            args,
        },
    );
    Expr::new(id, ExprKind::Call(call))
}

/// The selection `operand.field` (no presence test, not optional) with id
/// `id`, written into its box (not built on the stack and copied).
#[inline(always)]
fn select_node(id: ExprId, operand: Expr, field: Name) -> Expr {
    let sel = Box::write(
        Box::new_uninit(),
        Select {
            operand,
            field,
            test_only: false,
            optional: false,
        },
    );
    Expr::new(id, ExprKind::Select(sel))
}

/// The literal token `kind` spelled `text`, negated when a `-` precedes it
/// (numbers only): its value, or cel-go's message for an invalid one; `None`
/// when the token is no literal (or cannot be negated).
fn literal_value(
    kind: Tok,
    text: &str,
    negative: bool,
    cel_go: crate::CelGoVersion,
) -> Option<Result<Literal, String>> {
    let invalid = |what: &str| Err(format!("invalid {what} literal"));
    Some(match kind {
        Tok::NumInt => {
            let (digits, radix) = match text.strip_prefix("0x") {
                Some(h) => (h, 16),
                None => (text, 10),
            };
            let parsed = if negative {
                i64::from_str_radix(&format!("-{digits}"), radix)
            } else {
                i64::from_str_radix(digits, radix)
            };
            parsed.map(Literal::Int).or_else(|_| invalid("int"))
        }
        Tok::NumFloat => match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Literal::Double(if negative { -v } else { v })),
            _ => invalid("double"),
        },
        _ if negative => return None,
        Tok::NumUint => {
            let text = &text[..text.len() - 1];
            let (digits, radix) = match text.strip_prefix("0x") {
                Some(h) => (h, 16),
                None => (text, 10),
            };
            u64::from_str_radix(digits, radix)
                .map(Literal::Uint)
                .or_else(|_| invalid("uint"))
        }
        Tok::String => match super::unescape::verbatim(text) {
            Some(body) => Ok(Literal::String(Arc::from(body))),
            None => super::unescape::unescape(text, false, cel_go)
                .map(|bytes| {
                    Literal::String(Arc::from(String::from_utf8(bytes).unwrap_or_default()))
                })
                .map_err(String::from),
        },
        Tok::Bytes => {
            let text = text.get(1..).unwrap_or("");
            match super::unescape::verbatim(text) {
                Some(body) => Ok(Literal::Bytes(Arc::from(body.as_bytes()))),
                None => super::unescape::unescape(text, true, cel_go)
                    .map(|bytes| Literal::Bytes(Arc::from(bytes)))
                    .map_err(String::from),
            }
        }
        Tok::True => Ok(Literal::Bool(true)),
        Tok::False => Ok(Literal::Bool(false)),
        Tok::Null => Ok(Literal::Null),
        _ => return None,
    })
}

/// The literal `text` is when it is one literal token and nothing else
/// (trivia aside), within `opts`' length limit: what parsing it would give
/// the root node, without the tree. `None` for anything else, including an
/// invalid literal (parsing reports it).
#[inline]
pub(crate) fn lone_literal(text: &str, opts: &ParserOptions) -> Option<Literal> {
    // Most expressions start with an identifier that begins no literal.
    let first = *text.as_bytes().first()?;
    // Bytes bound code points: a text this short is within the limit.
    if first.is_ascii_alphabetic() && !super::lexer::starts_literal(first)
        || text.len() > opts.max_expression_length
    {
        return None;
    }
    let (kind, range) = super::lexer::single_token(text)?;
    literal_value(kind, text.get(range)?, false, opts.cel_go)?.ok()
}
