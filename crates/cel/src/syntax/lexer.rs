//! The lexer: turns source text into tokens exactly as cel-go's ANTLR lexer
//! (`CEL.g4`) does, including its longest-match-with-backtracking behaviour and
//! its `token recognition error at: '...'` reports.
//!
//! Tokens borrow nothing: they hold byte ranges into the source and the
//! code-point offset of their first character, so lexing allocates only the
//! token vector.

use std::fmt;

/// Token kinds, numbered as cel-go's ANTLR grammar numbers them (the number
/// orders the tokens in `expecting {...}` sets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Tok {
    Eof = 0,
    Eq = 1,
    Ne = 2,
    In = 3,
    Lt = 4,
    Le = 5,
    Ge = 6,
    Gt = 7,
    And = 8,
    Or = 9,
    LBracket = 10,
    RBracket = 11,
    LBrace = 12,
    RBrace = 13,
    LParen = 14,
    RParen = 15,
    Dot = 16,
    Comma = 17,
    Minus = 18,
    Not = 19,
    Question = 20,
    Colon = 21,
    Plus = 22,
    Star = 23,
    Slash = 24,
    Percent = 25,
    True = 26,
    False = 27,
    Null = 28,
    NumFloat = 31,
    NumInt = 32,
    NumUint = 33,
    String = 34,
    Bytes = 35,
    Ident = 36,
    EscIdent = 37,
}

impl Tok {
    /// The name ANTLR prints for the token in `expecting` sets.
    pub const fn display_name(self) -> &'static str {
        match self {
            Tok::Eof => "<EOF>",
            Tok::Eq => "'=='",
            Tok::Ne => "'!='",
            Tok::In => "'in'",
            Tok::Lt => "'<'",
            Tok::Le => "'<='",
            Tok::Ge => "'>='",
            Tok::Gt => "'>'",
            Tok::And => "'&&'",
            Tok::Or => "'||'",
            Tok::LBracket => "'['",
            Tok::RBracket => "']'",
            Tok::LBrace => "'{'",
            Tok::RBrace => "'}'",
            Tok::LParen => "'('",
            Tok::RParen => "')'",
            Tok::Dot => "'.'",
            Tok::Comma => "','",
            Tok::Minus => "'-'",
            Tok::Not => "'!'",
            Tok::Question => "'?'",
            Tok::Colon => "':'",
            Tok::Plus => "'+'",
            Tok::Star => "'*'",
            Tok::Slash => "'/'",
            Tok::Percent => "'%'",
            Tok::True => "'true'",
            Tok::False => "'false'",
            Tok::Null => "'null'",
            Tok::NumFloat => "NUM_FLOAT",
            Tok::NumInt => "NUM_INT",
            Tok::NumUint => "NUM_UINT",
            Tok::String => "STRING",
            Tok::Bytes => "BYTES",
            Tok::Ident => "IDENTIFIER",
            Tok::EscIdent => "ESC_IDENTIFIER",
        }
    }

    const ALL: [Tok; 36] = [
        Tok::Eof,
        Tok::Eq,
        Tok::Ne,
        Tok::In,
        Tok::Lt,
        Tok::Le,
        Tok::Ge,
        Tok::Gt,
        Tok::And,
        Tok::Or,
        Tok::LBracket,
        Tok::RBracket,
        Tok::LBrace,
        Tok::RBrace,
        Tok::LParen,
        Tok::RParen,
        Tok::Dot,
        Tok::Comma,
        Tok::Minus,
        Tok::Not,
        Tok::Question,
        Tok::Colon,
        Tok::Plus,
        Tok::Star,
        Tok::Slash,
        Tok::Percent,
        Tok::True,
        Tok::False,
        Tok::Null,
        Tok::NumFloat,
        Tok::NumInt,
        Tok::NumUint,
        Tok::String,
        Tok::Bytes,
        Tok::Ident,
        Tok::EscIdent,
    ];
}

/// A set of token kinds (a bit per kind).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TokSet(u64);

impl TokSet {
    pub const EMPTY: TokSet = TokSet(0);

    pub const fn of(toks: &[Tok]) -> TokSet {
        let mut bits = 0u64;
        let mut i = 0;
        while i < toks.len() {
            bits |= 1u64 << (toks[i] as u8);
            i += 1;
        }
        TokSet(bits)
    }

    pub const fn with(self, t: Tok) -> TokSet {
        TokSet(self.0 | (1u64 << (t as u8)))
    }

    pub const fn union(self, other: TokSet) -> TokSet {
        TokSet(self.0 | other.0)
    }

    pub const fn contains(self, t: Tok) -> bool {
        self.0 & (1u64 << (t as u8)) != 0
    }
}

impl fmt::Display for TokSet {
    /// Prints the set as ANTLR does: one token bare, several in braces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut members = Tok::ALL.iter().filter(|t| self.contains(**t));
        let count = self.0.count_ones();
        if count == 1
            && let Some(t) = members.next()
        {
            return f.write_str(t.display_name());
        }
        f.write_str("{")?;
        for (i, t) in members.enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(t.display_name())?;
        }
        f.write_str("}")
    }
}

/// One token: its kind, its byte range and the code-point offset of its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Tok,
    pub start: u32,
    pub end: u32,
    pub offset: u32,
}

/// A lexer error: ANTLR's `token recognition error at: '<text>'`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    /// Code-point offset of the start of the failed token.
    pub offset: u32,
    /// The message (already formatted as cel-go prints it).
    pub message: String,
}

/// Lexes `src`. The last token is always [`Tok::Eof`]. Lexing stops early
/// (as if at the end of the input) after `max_errors` recognition errors.
#[cfg(test)]
pub fn lex(src: &str, max_errors: usize) -> (Vec<Token>, Vec<LexError>) {
    lex_into(src, max_errors, Vec::new())
}

/// [`lex`] into `tokens` (cleared first), whose allocation is reused.
pub fn lex_into(src: &str, max_errors: usize, tokens: Vec<Token>) -> (Vec<Token>, Vec<LexError>) {
    lex_with(src, max_errors, tokens, true)
}

/// [`lex_into`], with [`lex_ascii_run`] taking what it can of an ASCII
/// text when `runs` (tests turn it off to compare).
#[inline(always)]
fn lex_with(
    src: &str,
    max_errors: usize,
    mut tokens: Vec<Token>,
    runs: bool,
) -> (Vec<Token>, Vec<LexError>) {
    let ascii = src.is_ascii();
    let runs = runs && ascii;
    let mut lx = Lexer {
        src: src.as_bytes(),
        pos: 0,
        ascii,
        cp_byte: 0,
        cp_count: 0,
    };
    // Expressions have about one token per two bytes (`a.b`, `x == 1`):
    // sized so that the vector rarely grows.
    tokens.clear();
    tokens.reserve(src.len() / 2 + 2);
    let mut errors = Vec::new();
    loop {
        if runs {
            lx.pos = lex_ascii_run(lx.src, lx.pos, &mut tokens);
        }
        lx.skip_trivia();
        let start = lx.pos;
        if start >= lx.src.len() {
            let offset = lx.offset_of(start);
            tokens.push(Token {
                kind: Tok::Eof,
                start: start as u32,
                end: start as u32,
                offset,
            });
            break;
        }
        match lx.next_kind() {
            Ok(kind) => {
                let offset = lx.offset_of(start);
                tokens.push(Token {
                    kind,
                    start: start as u32,
                    end: lx.pos as u32,
                    offset,
                });
            }
            Err(_) if errors.len() >= max_errors => {
                let offset = lx.offset_of(start);
                tokens.push(Token {
                    kind: Tok::Eof,
                    start: start as u32,
                    end: start as u32,
                    offset,
                });
                break;
            }
            Err(fail) => {
                // ANTLR reports the text from the token start through the
                // character that could not be matched, then drops that character.
                let text_end = if fail < lx.src.len() {
                    lx.char_end(fail)
                } else {
                    fail
                };
                let text = String::from_utf8_lossy(&lx.src[start..text_end]);
                let offset = lx.offset_of(start);
                errors.push(LexError {
                    offset,
                    message: format!(
                        "Syntax error: token recognition error at: '{}'",
                        escape_error_text(&text)
                    ),
                });
                lx.pos = text_end.max(start + 1).min(lx.src.len());
                // Never stop in the middle of a code point.
                while lx.pos < lx.src.len() && is_continuation(lx.src[lx.pos]) {
                    lx.pos += 1;
                }
            }
        }
    }
    (tokens, errors)
}

/// The one token of `src` when it has exactly one, which may be a literal
/// (trivia around it allowed), and lexes without error: its kind and byte
/// range. `None` for anything else (no token, several, one that starts
/// as no literal does, a recognition error).
pub fn single_token(src: &str) -> Option<(Tok, std::ops::Range<usize>)> {
    let mut lx = Lexer {
        src: src.as_bytes(),
        pos: 0,
        // Only `offset_of` reads it, and no offset is asked for.
        ascii: true,
        cp_byte: 0,
        cp_count: 0,
    };
    lx.skip_trivia();
    if !starts_literal(lx.peek(0)?) {
        return None;
    }
    let start = lx.pos;
    let kind = lx.next_kind().ok()?;
    let end = lx.pos;
    lx.skip_trivia();
    (lx.pos >= lx.src.len()).then_some((kind, start..end))
}

/// Whether a literal token may start with byte `b`: a digit or `.`
/// (numbers), a quote or a string prefix, the first letter of `true`,
/// `false`, `null`.
pub fn starts_literal(b: u8) -> bool {
    matches!(
        b,
        b'0'..=b'9' | b'.' | b'"' | b'\'' | b'r' | b'R' | b'b' | b'B' | b't' | b'f' | b'n'
    )
}

/// ANTLR's `getErrorDisplay`: newlines, carriage returns and tabs shown escaped.
pub fn escape_error_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

/// The bytes an identifier continues with: `[A-Za-z0-9_]`.
static IDENT_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    t
};

/// The tokens a byte is on its own whatever follows it (but `/`, which may
/// start a comment): brackets, braces, parentheses, `,` `-` `?` `:` `+`
/// `*` `%`.
static LONE_BYTE: [Option<Tok>; 256] = {
    let mut t = [None; 256];
    // Each one's token is the kind ANTLR displays as the byte quoted.
    let lone = b"[]{}(),-?:+*%";
    let mut k = 0;
    while k < Tok::ALL.len() {
        let name = Tok::ALL[k].display_name().as_bytes();
        let mut i = 0;
        while i < lone.len() {
            if name.len() == 3 && name[1] == lone[i] {
                t[lone[i] as usize] = Some(Tok::ALL[k]);
            }
            i += 1;
        }
        k += 1;
    }
    t
};

/// The bytes a one-line quoted body stops at: quotes, backslashes, line ends.
static QUOTED_STOP: [bool; 256] = {
    let mut t = [false; 256];
    t[b'\'' as usize] = true;
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t[b'\n' as usize] = true;
    t[b'\r' as usize] = true;
    t
};

/// The kind of an identifier-shaped `word`: a keyword's, else
/// [`Tok::Ident`]. By length first: most identifiers are no keyword's
/// length, and those that are compare as one integer.
#[inline(always)]
fn word_kind(word: &[u8]) -> Tok {
    match word.len() {
        2 if word == b"in" => Tok::In,
        4 if word == b"true" => Tok::True,
        4 if word == b"null" => Tok::Null,
        5 if word == b"false" => Tok::False,
        _ => Tok::Ident,
    }
}

/// Lexes the tokens of the ASCII text `src` from `p` that always lex
/// alone and without error — identifiers and keywords not followed by a
/// quote, punctuation and operators but `/`, whole decimal integers —
/// and the trivia between them but comments, pushing them to `tokens`
/// (code-point offsets are byte positions); stops at the first byte that
/// starts anything else (the general step takes it) and returns its
/// position. The tokens are [`Lexer::next_kind`]'s.
fn lex_ascii_run(src: &[u8], mut p: usize, tokens: &mut Vec<Token>) -> usize {
    while let Some(&b) = src.get(p) {
        let start = p;
        let next = src.get(p + 1).copied();
        let (kind, len) = match b {
            b' ' | b'\t' | b'\r' | b'\n' | 0x0C => {
                p += 1;
                continue;
            }
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => {
                let end = ident_end(src, p + 1);
                if let Some(b'"' | b'\'') = src.get(end) {
                    // Perhaps a string prefix.
                    return start;
                }
                (word_kind(&src[start..end]), end - start)
            }
            b'0'..=b'9' => {
                let mut end = p + 1;
                while src.get(end).is_some_and(u8::is_ascii_digit) {
                    end += 1;
                }
                if let Some(b'.' | b'e' | b'E' | b'u' | b'U' | b'x' | b'X') = src.get(end) {
                    // Perhaps a float, an unsigned or a hexadecimal number.
                    return start;
                }
                (Tok::NumInt, end - start)
            }
            b'.' if next.is_some_and(|c| c.is_ascii_digit()) => return start,
            b'.' => (Tok::Dot, 1),
            b'=' if next == Some(b'=') => (Tok::Eq, 2),
            b'!' if next == Some(b'=') => (Tok::Ne, 2),
            b'!' => (Tok::Not, 1),
            b'<' if next == Some(b'=') => (Tok::Le, 2),
            b'<' => (Tok::Lt, 1),
            b'>' if next == Some(b'=') => (Tok::Ge, 2),
            b'>' => (Tok::Gt, 1),
            b'&' if next == Some(b'&') => (Tok::And, 2),
            b'|' if next == Some(b'|') => (Tok::Or, 2),
            _ => match LONE_BYTE[usize::from(b)] {
                Some(kind) => (kind, 1),
                None => return start,
            },
        };
        p += len;
        // The parser caps an expression's length far below `u32::MAX`.
        tokens.push(Token {
            kind,
            start: start as u32,
            end: p as u32,
            offset: start as u32,
        });
    }
    p
}

/// The end of the identifier bytes (`[A-Za-z0-9_]`) of `src` from `p`:
/// eight bytes at a time while eight remain (a byte-parallel range test),
/// then byte by byte.
#[inline(always)]
fn ident_end(src: &[u8], mut p: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    // Per byte of `x` (each below 0x80), its high bit set when the byte is
    // in `lo..=hi`: no addition carries into the next byte.
    let in_range = |x: u64, lo: u8, hi: u8| {
        let at_least_lo = x + ONES * u64::from(0x80 - lo);
        let above_hi = x + ONES * u64::from(0x7F - hi);
        at_least_lo & !above_hi & HIGH
    };
    while let Some(chunk) = src.get(p..p + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        let low = x & !HIGH;
        let ident = (in_range(low | (ONES * 0x20), b'a', b'z')
            | in_range(low, b'0', b'9')
            | in_range(low, b'_', b'_'))
            & !x;
        let stop = !ident & HIGH;
        if stop != 0 {
            return p + (stop.trailing_zeros() / 8) as usize;
        }
        p += 8;
    }
    while p < src.len() && IDENT_BYTE[usize::from(src[p])] {
        p += 1;
    }
    p
}

fn is_continuation(b: u8) -> bool {
    (0x80..0xC0).contains(&b)
}

struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    /// The source is ASCII: code-point offsets are byte positions.
    ascii: bool,
    /// Checkpoint for incremental byte → code-point conversion.
    cp_byte: usize,
    cp_count: u32,
}

/// Result of a token attempt: the kind, or the byte position of the character
/// that failed (the whole attempt had no accepting prefix).
type Attempt = Result<Tok, usize>;

impl Lexer<'_> {
    fn peek(&self, i: usize) -> Option<u8> {
        self.src.get(self.pos + i).copied()
    }

    fn at(&self, p: usize) -> Option<u8> {
        self.src.get(p).copied()
    }

    /// Code-point offset of byte position `byte` (positions only grow).
    fn offset_of(&mut self, byte: usize) -> u32 {
        let end = byte.min(self.src.len());
        if self.ascii {
            // The parser caps an expression's length far below `u32::MAX`.
            return end as u32;
        }
        if end < self.cp_byte {
            // Not expected (positions grow), but stay correct.
            self.cp_byte = 0;
            self.cp_count = 0;
        }
        for &b in &self.src[self.cp_byte..end] {
            if !is_continuation(b) {
                self.cp_count += 1;
            }
        }
        self.cp_byte = end;
        self.cp_count
    }

    /// The byte just past the code point starting at `p`.
    fn char_end(&self, p: usize) -> usize {
        let mut e = p + 1;
        while e < self.src.len() && is_continuation(self.src[e]) {
            e += 1;
        }
        e
    }

    fn skip_trivia(&mut self) {
        loop {
            match self.peek(0) {
                Some(b'\t' | b' ' | b'\r' | b'\n' | 0x0C) => self.pos += 1,
                Some(b'/') if self.peek(1) == Some(b'/') => {
                    while let Some(b) = self.peek(0) {
                        if b == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    /// Lexes one token starting at `self.pos`, advancing past it (inlined
    /// into [`lex`]'s loop, its hot path).
    #[inline(always)]
    fn next_kind(&mut self) -> Attempt {
        let start = self.pos;
        let b = self.src[start];
        let two = |lx: &mut Self, second: u8, yes: Tok, no: Option<Tok>| -> Attempt {
            if lx.peek(1) == Some(second) {
                lx.pos += 2;
                Ok(yes)
            } else if let Some(no) = no {
                lx.pos += 1;
                Ok(no)
            } else {
                Err(start + 1)
            }
        };
        match b {
            b'=' => two(self, b'=', Tok::Eq, None),
            b'!' => two(self, b'=', Tok::Ne, Some(Tok::Not)),
            b'<' => two(self, b'=', Tok::Le, Some(Tok::Lt)),
            b'>' => two(self, b'=', Tok::Ge, Some(Tok::Gt)),
            b'&' => two(self, b'&', Tok::And, None),
            b'|' => two(self, b'|', Tok::Or, None),
            b'/' => self.single(Tok::Slash),
            b'.' => {
                if self.peek(1).is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                    self.digits();
                    self.exponent();
                    Ok(Tok::NumFloat)
                } else {
                    self.single(Tok::Dot)
                }
            }
            b'0'..=b'9' => Ok(self.number()),
            b'"' | b'\'' => self.string(start, Tok::String),
            b'`' => self.escaped_ident(start),
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => Ok(self.ident_or_literal(start)),
            _ => match LONE_BYTE[usize::from(b)] {
                Some(kind) => self.single(kind),
                None => Err(start),
            },
        }
    }

    fn single(&mut self, t: Tok) -> Attempt {
        self.pos += 1;
        Ok(t)
    }

    fn digits(&mut self) -> usize {
        let s = self.pos;
        while self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - s
    }

    /// An optional exponent; consumed only when complete.
    fn exponent(&mut self) -> bool {
        if matches!(self.peek(0), Some(b'e' | b'E')) {
            let mut p = self.pos + 1;
            if matches!(self.at(p), Some(b'+' | b'-')) {
                p += 1;
            }
            if self.at(p).is_some_and(|c| c.is_ascii_digit()) {
                self.pos = p;
                self.digits();
                return true;
            }
        }
        false
    }

    fn number(&mut self) -> Tok {
        let start = self.pos;
        if self.src[start] == b'0'
            && matches!(self.peek(1), Some(b'x'))
            && self.peek(2).is_some_and(|c| c.is_ascii_hexdigit())
        {
            self.pos += 2;
            while self.peek(0).is_some_and(|c| c.is_ascii_hexdigit()) {
                self.pos += 1;
            }
            if matches!(self.peek(0), Some(b'u' | b'U')) {
                self.pos += 1;
                return Tok::NumUint;
            }
            return Tok::NumInt;
        }
        self.digits();
        if self.peek(0) == Some(b'.') && self.peek(1).is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
            self.digits();
            self.exponent();
            return Tok::NumFloat;
        }
        if self.exponent() {
            return Tok::NumFloat;
        }
        if matches!(self.peek(0), Some(b'u' | b'U')) {
            self.pos += 1;
            return Tok::NumUint;
        }
        Tok::NumInt
    }

    #[inline(always)]
    fn ident_or_literal(&mut self, start: usize) -> Tok {
        self.pos = ident_end(self.src, self.pos + 1);
        let word = &self.src[start..self.pos];
        // String prefixes: r/R (raw), b/B (bytes), b/B followed by r/R.
        if let Some(b'"' | b'\'') = self.peek(0) {
            let kind = match word {
                b"r" | b"R" => Some(Tok::String),
                b"b" | b"B" | b"br" | b"bR" | b"Br" | b"BR" => Some(Tok::Bytes),
                _ => None,
            };
            if let Some(kind) = kind {
                let ident_end = self.pos;
                let raw = matches!(word.last(), Some(b'r' | b'R'));
                match self.quoted(self.pos, raw) {
                    Ok(()) => return kind,
                    // No accepting prefix longer than the identifier: ANTLR
                    // falls back to the identifier.
                    Err(_) => {
                        let q = self.src[ident_end];
                        if self.at(ident_end + 1) == Some(q) && self.at(ident_end + 2) == Some(q) {
                            // The empty string is the longest accepting prefix.
                            self.pos = ident_end + 2;
                            return kind;
                        }
                        self.pos = ident_end;
                        return Tok::Ident;
                    }
                }
            }
        }
        word_kind(word)
    }

    fn string(&mut self, start: usize, kind: Tok) -> Attempt {
        match self.quoted(start, false) {
            Ok(()) => Ok(kind),
            Err(fail) => {
                // `""` is a complete (empty) string: the accepting prefix of
                // an unterminated `"""...`.
                let q = self.src[start];
                if self.at(start + 1) == Some(q) && self.at(start + 2) == Some(q) {
                    self.pos = start + 2;
                    return Ok(kind);
                }
                Err(fail)
            }
        }
    }

    /// Lexes a quoted body starting at the opening quote at `q_pos`; on
    /// failure returns the byte position of the failing character.
    fn quoted(&mut self, q_pos: usize, raw: bool) -> Result<(), usize> {
        let q = self.src[q_pos];
        let triple = self.at(q_pos + 1) == Some(q) && self.at(q_pos + 2) == Some(q);
        if triple {
            let mut p = q_pos + 3;
            loop {
                match self.at(p) {
                    None => {
                        // `""` + `"` ... : the two-quote empty string is the accepting prefix.
                        return Err(p);
                    }
                    Some(c) if c == q && self.at(p + 1) == Some(q) && self.at(p + 2) == Some(q) => {
                        self.pos = p + 3;
                        return Ok(());
                    }
                    Some(b'\\') if !raw => p = self.escape(p)?,
                    Some(_) => p += 1,
                }
            }
        }
        let mut p = q_pos + 1;
        loop {
            // Characters with no role in a one-line body, skipped in bulk.
            while p < self.src.len() && !QUOTED_STOP[usize::from(self.src[p])] {
                p += 1;
            }
            match self.at(p) {
                None => return Err(p),
                Some(b'\n' | b'\r') => return Err(p),
                Some(c) if c == q => {
                    self.pos = p + 1;
                    return Ok(());
                }
                Some(b'\\') if !raw => p = self.escape(p)?,
                Some(_) => p += 1,
            }
        }
    }

    /// Checks an escape sequence at `p` (the backslash) against the grammar's
    /// `ESC_SEQ`; returns the position after it or the failing position.
    fn escape(&self, p: usize) -> Result<usize, usize> {
        let c = self.at(p + 1).ok_or(p + 1)?;
        let hex = |from: usize, n: usize| -> Result<usize, usize> {
            for i in 0..n {
                match self.at(from + i) {
                    Some(h) if h.is_ascii_hexdigit() => {}
                    _ => return Err(from + i),
                }
            }
            Ok(from + n)
        };
        match c {
            b'a' | b'b' | b'f' | b'n' | b'r' | b't' | b'v' | b'"' | b'\'' | b'\\' | b'?' | b'`' => {
                Ok(p + 2)
            }
            b'x' | b'X' => hex(p + 2, 2),
            b'u' => hex(p + 2, 4),
            b'U' => hex(p + 2, 8),
            b'0'..=b'3' => {
                for i in 0..2 {
                    match self.at(p + 2 + i) {
                        Some(b'0'..=b'7') => {}
                        _ => return Err(p + 2 + i),
                    }
                }
                Ok(p + 4)
            }
            _ => Err(p + 1),
        }
    }

    fn escaped_ident(&mut self, start: usize) -> Attempt {
        let mut p = start + 1;
        loop {
            match self.at(p) {
                Some(c)
                    if c.is_ascii_alphanumeric()
                        || matches!(c, b'_' | b'.' | b'-' | b'/' | b' ') =>
                {
                    p += 1
                }
                Some(b'`') if p > start + 1 => {
                    self.pos = p + 1;
                    return Ok(Tok::EscIdent);
                }
                _ => return Err(p),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        lex(s, 100).0.into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn ident_end_matches_the_byte_table() {
        let by_table = |src: &[u8], p: usize| {
            p + src[p..]
                .iter()
                .take_while(|&&c| IDENT_BYTE[usize::from(c)])
                .count()
        };
        // Every byte value at every position of a chunk and of the tail.
        for stop in 0..=255u8 {
            for at in 0..20 {
                let mut src = vec![b'a'; 20];
                src[at] = stop;
                for p in 0..src.len() {
                    assert_eq!(
                        ident_end(&src, p),
                        by_table(&src, p),
                        "{stop:#x} at {at} from {p}"
                    );
                }
            }
        }
        let mixed = "aZ_09é\u{7f}z_Q9`@[{/:".as_bytes();
        for p in 0..mixed.len() {
            assert_eq!(ident_end(mixed, p), by_table(mixed, p));
        }
    }

    #[test]
    fn ascii_runs_lex_as_the_general_step() {
        // Texts of pieces that start, end and break runs, in every order a
        // small generator gives (deterministic).
        const PIECES: [&str; 44] = [
            " ", "\t", "\n", "a", "self", "in", "inx", "true", "null", "false", "r", "b", "br",
            "_x9", "'s'", "\"", "'", "0", "12", "1.5", "1e3", "3u", "0x1F", ".", ".5", "==", "=",
            "!", "!=", "<", "<=", ">", ">=", "&&", "&", "||", "|", "[", "]", "(", ")", "/", "//c",
            "%",
        ];
        const MORE: [&str; 10] = [",", "-", "?", ":", "+", "*", "{", "}", "#", "`a`"];
        let all: Vec<&str> = PIECES.iter().chain(MORE.iter()).copied().collect();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..40_000 {
            let mut text = String::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut r = seed;
            for _ in 0..(r % 9) {
                r /= 9;
                text.push_str(all[(r % all.len() as u64) as usize]);
                r /= all.len() as u64;
                if r == 0 {
                    r = seed.rotate_left(29);
                }
            }
            for limit in [0, 100] {
                assert_eq!(
                    lex_with(&text, limit, Vec::new(), true),
                    lex_with(&text, limit, Vec::new(), false),
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn lone_bytes() {
        let lone = "[]{}(),-?:+*%";
        assert_eq!(LONE_BYTE.iter().filter(|t| t.is_some()).count(), lone.len());
        let names: Vec<String> = kinds(lone)
            .iter()
            .map(|t| t.display_name().to_string())
            .collect();
        let quoted: Vec<String> = lone
            .chars()
            .map(|c| format!("'{c}'"))
            .chain(["<EOF>".into()])
            .collect();
        assert_eq!(names, quoted);
    }

    #[test]
    fn numbers_backtrack_like_antlr() {
        assert_eq!(kinds("1.5e"), vec![Tok::NumFloat, Tok::Ident, Tok::Eof]);
        assert_eq!(kinds("0x"), vec![Tok::NumInt, Tok::Ident, Tok::Eof]);
        assert_eq!(
            kinds("1u .5 0xFu 1e3"),
            vec![
                Tok::NumUint,
                Tok::NumFloat,
                Tok::NumUint,
                Tok::NumFloat,
                Tok::Eof
            ]
        );
        assert_eq!(
            kinds("1.e"),
            vec![Tok::NumInt, Tok::Dot, Tok::Ident, Tok::Eof]
        );
    }

    #[test]
    fn strings_and_prefixes() {
        assert_eq!(
            kinds("r'a' b\"x\" br'y' rb'z'"),
            vec![
                Tok::String,
                Tok::Bytes,
                Tok::Bytes,
                Tok::Ident,
                Tok::String,
                Tok::Eof
            ]
        );
        assert_eq!(
            kinds("'''a'b''' \"\""),
            vec![Tok::String, Tok::String, Tok::Eof]
        );
        let (_, errs) = lex("\"\\xFh\"", 100);
        assert_eq!(errs.len(), 2);
        assert!(
            errs[0].message.ends_with("'\"\\xFh'"),
            "{}",
            errs[0].message
        );
    }

    #[test]
    fn recognition_errors() {
        let (toks, errs) = lex("a | b", 100);
        assert_eq!(
            toks.iter().map(|t| t.kind).collect::<Vec<_>>(),
            vec![Tok::Ident, Tok::Ident, Tok::Eof]
        );
        assert_eq!(
            errs[0].message,
            "Syntax error: token recognition error at: '| '"
        );
        assert_eq!(errs[0].offset, 2);
    }

    #[test]
    fn token_set_display() {
        assert_eq!(TokSet::of(&[Tok::Colon]).to_string(), "':'");
        assert_eq!(
            TokSet::of(&[Tok::Ident, Tok::EscIdent]).to_string(),
            "{IDENTIFIER, ESC_IDENTIFIER}"
        );
    }
}
