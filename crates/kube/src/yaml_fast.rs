//! A fast reader for the YAML most Kubernetes manifests are written in, producing exactly the
//! events libyaml produces for it (`yaml_events.rs`), or giving up.
//!
//! libyaml (through `unsafe-libyaml-norway`, the C scanner and parser go-yaml v2 ports) reads a
//! character at a time through a decoding buffer and a token queue: about 190 instructions per
//! input byte, most of `kcel validate`'s reading. This reader covers the common subset line by
//! line, borrowing scalars from the input:
//!
//! * block mappings and sequences (indentless sequences under a key included), one entry per
//!   line, keys plain or quoted on one line (at most 1,024 bytes, libyaml's simple-key limit);
//! * plain scalars, as values and sequence entries over several lines too (folded as
//!   `yaml_parser_scan_plain_scalar` folds them), as keys and in flow collections on one line;
//!   single- and double-quoted scalars (every escape of libyaml's
//!   `yaml_parser_scan_flow_scalar`), as values and sequence entries over several lines too
//!   (folded as there; every continuation line indented past the enclosing block), as keys and
//!   in flow collections on one line; literal and folded block scalars without an
//!   indentation indicator (`yaml_parser_scan_block_scalar`, chomping and folding as there);
//! * flow sequences and mappings closed on the line they open, of scalars and flow collections;
//! * comments, blank lines, `---` document starts.
//!
//! Anything else — anchors, aliases, tags, directives, `...`, `?` keys, multi-line scalars
//! other than above or with a document marker or a `: ` on a continuation line, tabs, carriage returns, control characters, the line breaks libyaml knows
//! beyond `\n` (NEL, LS, PS), a byte-order mark, nesting deeper than [`MAX_FAST_DEPTH`], an
//! indentation that is not exactly an enclosing block's — makes it give up, and the caller reads
//! the whole stream again with libyaml, which then also produces every syntax error. So the
//! reader never decides what is an error; it only recognises text whose events it knows.
//!
//! Events are handed to a sink as they are read: one that gave up half-way may have emitted
//! events libyaml would not (a scalar before a more indented line that is for libyaml to
//! reject), so a caller
//! discards all it built from them when [`read`] returns [`GaveUp`].
//!
//! Marks are libyaml's: the start of a scalar (its quote or `|`), of a block mapping's first
//! key, of a sequence's first `-`, of a flow collection's bracket; an empty value is marked
//! just after its `:` or `-` (the `VALUE`/`BLOCK-ENTRY` token's end,
//! `yaml_parser_parse_block_mapping_value`); an empty document at the token after it.

use std::borrow::Cow;
use std::panic::Location;

use crate::yaml_events::{Event, Mark};

/// The deepest nesting of collections read here; deeper documents go to libyaml.
pub(crate) const MAX_FAST_DEPTH: usize = 64;

/// The longest implicit key libyaml accepts (`yaml_parser_stale_simple_keys`: a key more than
/// 1,024 characters before its `:` is no longer possible); longer keys (in bytes, at least
/// their characters) go to libyaml.
const MAX_SIMPLE_KEY: usize = 1024;

/// The text is outside the subset this reader knows (or the sink stopped it): the place in
/// this file that gave up, which names the construct (for the tests' statistics of what the
/// fast path leaves to libyaml; never shown to users).
#[derive(Debug)]
pub(crate) struct GaveUp(pub(crate) &'static Location<'static>);

/// Gives up here.
#[track_caller]
fn gave_up() -> GaveUp {
    GaveUp(Location::caller())
}

type Step<T = ()> = Result<T, GaveUp>;

/// Reads `text`, handing each event with its mark to `sink` (which returns `false` to stop);
/// `Err(gave_up())` when the text is outside the subset or the sink stopped.
pub(crate) fn read<'a>(
    text: &'a str,
    sink: impl FnMut(Event<'a>, Mark) -> bool,
) -> Result<(), GaveUp> {
    if !plain_characters(text.as_bytes()) {
        return Err(gave_up());
    }
    Reader {
        text,
        b: text.as_bytes(),
        pos: 0,
        line: 0,
        line_start: 0,
        depth: 0,
        sink,
    }
    .stream()
}

/// Whether `b` holds only characters every line of this reader treats as libyaml does: no
/// control character but `\n` (libyaml rejects most, and reads `\r` and tabs by rules not
/// ported here), no DEL or C1 control, no byte-order mark, no NEL/LS/PS (line breaks to
/// libyaml), no U+FFFE/U+FFFF (not printable to libyaml's reader).
fn plain_characters(b: &[u8]) -> bool {
    // Blocks of printable ASCII and line breaks, most of a manifest, are told apart without a
    // branch per byte (the fold vectorizes); the others are looked at byte by byte.
    const BLOCK: usize = 64;
    b.chunks(BLOCK).enumerate().all(|(n, block)| {
        let simple = block.iter().fold(true, |ok, &c| {
            ok & ((0x20..0x7f).contains(&c) | (c == b'\n'))
        });
        simple || plain_characters_at(b, n * BLOCK, n * BLOCK + block.len())
    })
}

/// [`plain_characters`] for the bytes of `b` from `start` to `end` (a multi-byte character
/// starting there is read on past `end`).
fn plain_characters_at(b: &[u8], start: usize, end: usize) -> bool {
    let mut i = start;
    while i < end {
        let c = b[i];
        if c < 0x20 && c != b'\n' || c == 0x7f {
            return false;
        }
        if c >= 0x80 {
            let next = b.get(i + 1).copied().unwrap_or(0);
            let third = b.get(i + 2).copied().unwrap_or(0);
            match c {
                0xc2 if next < 0xa0 => return false,
                0xe2 if next == 0x80 && matches!(third, 0xa8 | 0xa9) => return false,
                0xef if next == 0xbb && third == 0xbf => return false,
                0xef if next == 0xbf && matches!(third, 0xbe | 0xbf) => return false,
                _ => {}
            }
        }
        i += 1;
    }
    true
}

/// What the next line that is not blank or a comment starts with.
enum Line {
    /// The end of the text.
    End,
    /// A `---` document start at this offset.
    DocumentStart(usize),
    /// Content at this column (the reader stands on its first character).
    Content(usize),
}

/// A key scanned on a line: its text, whether plain, where it starts and where its `:` is.
struct Key<'a> {
    text: Cow<'a, str>,
    plain: bool,
    start: usize,
    colon: usize,
}

/// A scalar scanned on a line, and the offset just past it.
struct Scalar<'a> {
    text: Cow<'a, str>,
    plain: bool,
    start: usize,
    end: usize,
}

struct Reader<'a, S> {
    text: &'a str,
    b: &'a [u8],
    /// The byte offset read up to.
    pos: usize,
    /// The 0-based line of `pos`, and the offset that line starts at.
    line: usize,
    line_start: usize,
    depth: usize,
    sink: S,
}

fn is_blank_or_end(c: Option<u8>) -> bool {
    matches!(c, None | Some(b' ' | b'\n'))
}

fn is_flow_indicator(c: u8) -> bool {
    matches!(c, b',' | b'[' | b']' | b'{' | b'}')
}

impl<'a, S: FnMut(Event<'a>, Mark) -> bool> Reader<'a, S> {
    fn at(&self, i: usize) -> Option<u8> {
        self.b.get(i).copied()
    }

    /// libyaml's mark of `offset` on the current line (columns count characters).
    fn mark(&self, offset: usize) -> Mark {
        let chars = self.b[self.line_start..offset]
            .iter()
            .filter(|&&c| c & 0xc0 != 0x80)
            .count();
        Mark {
            line: self.line + 1,
            column: chars + 1,
        }
    }

    fn emit(&mut self, event: Event<'a>, mark: Mark) -> Step {
        if (self.sink)(event, mark) {
            Ok(())
        } else {
            Err(gave_up())
        }
    }

    fn scalar(&mut self, text: Cow<'a, str>, plain: bool, mark: Mark) -> Step {
        let event = Event::Scalar {
            value: text,
            plain,
            tag: None,
            anchor: None,
        };
        self.emit(event, mark)
    }

    /// An empty (null) scalar, as `yaml_parser_process_empty_scalar` makes it.
    fn empty(&mut self, mark: Mark) -> Step {
        self.scalar(Cow::Borrowed(""), true, mark)
    }

    fn skip_spaces(&mut self) {
        while self.at(self.pos) == Some(b' ') {
            self.pos += 1;
        }
    }

    /// Past the line break at `pos` (or at the end).
    fn next_line(&mut self) {
        if self.at(self.pos) == Some(b'\n') {
            self.pos += 1;
            self.line += 1;
            self.line_start = self.pos;
        }
    }

    /// Forward to `end`, counting the line breaks on the way (a quoted scalar's).
    fn move_to(&mut self, end: usize) {
        let moved = &self.b[self.pos..end];
        if let Some(last) = moved.iter().rposition(|&c| c == b'\n') {
            self.line += moved.iter().filter(|&&c| c == b'\n').count();
            self.line_start = self.pos + last + 1;
        }
        self.pos = end;
    }

    /// After a token: spaces, an optional comment, then the end of the line; anything else is
    /// more on the line than this reader knows.
    fn end_line(&mut self) -> Step {
        self.skip_spaces();
        if self.at(self.pos) == Some(b'#') {
            self.pos = memchr_newline(self.b, self.pos);
        }
        match self.at(self.pos) {
            None => Ok(()),
            Some(b'\n') => {
                self.next_line();
                Ok(())
            }
            Some(_) => Err(gave_up()),
        }
    }

    /// Skips blank and comment lines up to the next line with content (idempotent when
    /// standing on content).
    fn peek_line(&mut self) -> Step<Line> {
        loop {
            if self.pos == self.line_start {
                let rest = &self.b[self.pos..];
                if rest.starts_with(b"---") || rest.starts_with(b"...") || rest.starts_with(b"%") {
                    if rest.starts_with(b"---") && is_blank_or_end(rest.get(3).copied()) {
                        return Ok(Line::DocumentStart(self.pos));
                    }
                    return Err(gave_up());
                }
            }
            self.skip_spaces();
            match self.at(self.pos) {
                None => return Ok(Line::End),
                Some(b'\n') => self.next_line(),
                Some(b'#') => {
                    self.pos = memchr_newline(self.b, self.pos);
                    self.next_line();
                }
                Some(_) => return Ok(Line::Content(self.pos - self.line_start)),
            }
        }
    }

    /// The mark of the stream end (`yaml_parser_fetch_stream_end`: on a fresh line).
    fn end_mark(&self) -> Mark {
        let column = self.pos - self.line_start;
        Mark {
            line: self.line + 1 + usize::from(column != 0),
            column: 1,
        }
    }

    fn stream(mut self) -> Step {
        self.emit(Event::StreamStart, Mark { line: 1, column: 1 })?;
        // An explicit document whose content is still to come.
        let mut open = false;
        loop {
            match self.peek_line()? {
                Line::End => {
                    if open {
                        let at = self.end_mark();
                        self.empty(at)?;
                        self.emit(Event::DocumentEnd, at)?;
                    }
                    let at = self.end_mark();
                    return self.emit(Event::StreamEnd, at);
                }
                Line::DocumentStart(at) => {
                    let mark = self.mark(at);
                    if open {
                        self.empty(mark)?;
                        self.emit(Event::DocumentEnd, mark)?;
                    }
                    self.emit(Event::DocumentStart, mark)?;
                    self.pos = at + 3;
                    self.end_line()?;
                    open = true;
                }
                Line::Content(_) => {
                    if !open {
                        let mark = self.mark(self.pos);
                        self.emit(Event::DocumentStart, mark)?;
                    }
                    // The root: a block mapping or sequence, or a flow collection; a root
                    // scalar (continued on any later line) goes to libyaml.
                    match self.b[self.pos] {
                        b'-' | b'[' | b'{' => self.node(-1, true, true)?,
                        _ => match self.key_at(self.pos)? {
                            Some(key) => self.mapping(self.pos - self.line_start, key)?,
                            None => return Err(gave_up()),
                        },
                    }
                    match self.peek_line()? {
                        Line::Content(_) => return Err(gave_up()),
                        Line::End | Line::DocumentStart(_) => {}
                    }
                    let mark = self.mark(self.pos);
                    self.emit(Event::DocumentEnd, mark)?;
                    open = false;
                }
            }
        }
    }

    fn enter(&mut self) -> Step {
        self.depth += 1;
        if self.depth > MAX_FAST_DEPTH {
            return Err(gave_up());
        }
        Ok(())
    }

    /// A block node starting at `pos`, inside a block collection at column `indent` (-1 at the
    /// root): on a line of its own (`line_start`), or after `- ` (`key_allowed`: a compact
    /// mapping may start there) or after `key: ` (neither).
    fn node(&mut self, indent: isize, line_start: bool, key_allowed: bool) -> Step {
        let start = self.pos;
        let column = start - self.line_start;
        match self.b[start] {
            b'-' if is_blank_or_end(self.at(start + 1)) => {
                if !line_start {
                    return Err(gave_up());
                }
                self.sequence(column, false)
            }
            b'[' | b'{' => {
                self.flow(start)?;
                self.end_line()
            }
            b'|' | b'>' => self.block_scalar(indent),
            _ => {
                if key_allowed && let Some(key) = self.key_at(start)? {
                    return self.mapping(column, key);
                }
                let mut s = self.inline_scalar(start, indent)?;
                if s.plain {
                    s = self.plain_lines(s, indent)?;
                }
                let mark = self.mark(s.start);
                self.scalar(s.text, s.plain, mark)?;
                self.move_to(s.end);
                self.end_line()
            }
        }
    }

    /// A block mapping at `column` whose first key has been scanned.
    fn mapping(&mut self, column: usize, first: Key<'a>) -> Step {
        self.enter()?;
        let start = self.mark(first.start);
        self.emit(Event::MappingStart { anchor: None }, start)?;
        let mut key = first;
        loop {
            let mark = self.mark(key.start);
            self.scalar(key.text, key.plain, mark)?;
            self.pos = key.colon + 1;
            self.skip_spaces();
            if matches!(self.at(self.pos), None | Some(b'\n' | b'#')) {
                let after_colon = self.mark(key.colon + 1);
                self.end_line()?;
                match self.peek_line()? {
                    Line::Content(c) if c > column => self.node(column as isize, true, true)?,
                    Line::Content(c) if c == column && self.at_entry() => {
                        self.sequence(column, true)?
                    }
                    _ => self.empty(after_colon)?,
                }
            } else {
                self.node(column as isize, false, false)?;
            }
            match self.peek_line()? {
                Line::Content(c) if c == column => match self.key_at(self.pos)? {
                    Some(k) => key = k,
                    None => return Err(gave_up()),
                },
                Line::Content(c) if c > column => return Err(gave_up()),
                _ => break,
            }
        }
        let end = self.mark(self.pos);
        self.depth -= 1;
        self.emit(Event::MappingEnd, end)
    }

    /// Whether a sequence entry (`-` then a blank or the end) starts at `pos`.
    fn at_entry(&self) -> bool {
        self.at(self.pos) == Some(b'-') && is_blank_or_end(self.at(self.pos + 1))
    }

    /// A block sequence whose first `-` is at `pos`, at `column`; indentless under a mapping
    /// key at the same column.
    fn sequence(&mut self, column: usize, indentless: bool) -> Step {
        self.enter()?;
        let start = self.mark(self.pos);
        self.emit(Event::SequenceStart { anchor: None }, start)?;
        loop {
            let dash = self.pos;
            self.pos += 1;
            self.skip_spaces();
            if matches!(self.at(self.pos), None | Some(b'\n' | b'#')) {
                let after_dash = self.mark(dash + 1);
                self.end_line()?;
                match self.peek_line()? {
                    Line::Content(c) if c > column => self.node(column as isize, true, true)?,
                    _ => self.empty(after_dash)?,
                }
            } else {
                self.node(column as isize, false, true)?;
            }
            match self.peek_line()? {
                Line::Content(c) if c == column && self.at_entry() => {}
                Line::Content(c) if c == column && indentless => break,
                Line::Content(c) if c >= column => return Err(gave_up()),
                _ => break,
            }
        }
        let end = self.mark(self.pos);
        self.depth -= 1;
        self.emit(Event::SequenceEnd, end)
    }

    /// The key starting at `start` when the line holds `key:` there (a plain or quoted scalar,
    /// then `:` and a blank or the end of the line); `None` when it holds a scalar value (a
    /// quoted one may go on over lines; as a key it goes to libyaml, for which a simple key
    /// is on one line).
    fn key_at(&self, start: usize) -> Step<Option<Key<'a>>> {
        let (text, plain, end) = match self.b[start] {
            b'\'' | b'"' => {
                let s = self.quoted(start, Some(-1))?;
                (s.text, false, s.end)
            }
            _ => {
                if !plain_start(self.b, start, false) {
                    return Err(gave_up());
                }
                let (end, colon) = self.plain_end(start, false);
                if !colon {
                    return Ok(None);
                }
                (Cow::Borrowed(&self.text[start..end]), true, end)
            }
        };
        let mut colon = end;
        while self.at(colon) == Some(b' ') {
            colon += 1;
        }
        if self.at(colon) != Some(b':') || !is_blank_or_end(self.at(colon + 1)) {
            if plain {
                return Err(gave_up());
            }
            return Ok(None);
        }
        if colon - start > MAX_SIMPLE_KEY || self.b[start..end].contains(&b'\n') {
            return Err(gave_up());
        }
        Ok(Some(Key {
            text,
            plain,
            start,
            colon,
        }))
    }

    /// The plain scalar `start..end`, borrowed.
    fn plain(&self, start: usize, end: usize) -> Scalar<'a> {
        Scalar {
            text: Cow::Borrowed(&self.text[start..end]),
            plain: true,
            start,
            end,
        }
    }

    /// A scalar value on the rest of a line: plain (which must not hold `: `, a key after a
    /// key), or quoted (which may go on over lines indented past column `indent`).
    fn inline_scalar(&self, start: usize, indent: isize) -> Step<Scalar<'a>> {
        match self.b[start] {
            b'\'' | b'"' => self.quoted(start, Some(indent)),
            _ => {
                if !plain_start(self.b, start, false) {
                    return Err(gave_up());
                }
                let (end, colon) = self.plain_end(start, false);
                if colon {
                    return Err(gave_up());
                }
                Ok(self.plain(start, end))
            }
        }
    }

    /// The plain scalar `first` (a value or sequence entry inside a block collection at column
    /// `indent`) with the lines that continue it: after its line, empty lines and then a line
    /// whose content starts past column `indent` and is not a comment or document marker,
    /// folded as `yaml_parser_scan_plain_scalar` folds them (a break between non-empty lines
    /// is a space, each empty line `\n`, the blanks around breaks dropped). A continuation
    /// holding a `:` indicator gives up.
    fn plain_lines(&self, first: Scalar<'a>, indent: isize) -> Step<Scalar<'a>> {
        let mut text = first.text;
        let mut end = first.end;
        loop {
            let mut i = end;
            while self.at(i) == Some(b' ') {
                i += 1;
            }
            if self.at(i) != Some(b'\n') {
                break;
            }
            let mut breaks = 0usize;
            let content = loop {
                i += 1;
                let line = i;
                // A document marker ends the scalar (at column 0, never past `indent`).
                if self.b[line..].starts_with(b"---") || self.b[line..].starts_with(b"...") {
                    break None;
                }
                while self.at(i) == Some(b' ') {
                    i += 1;
                }
                match self.at(i) {
                    Some(b'\n') => breaks += 1,
                    None | Some(b'#') => break None,
                    Some(_) => break Some(i - line),
                }
            };
            if content.is_none_or(|column| column as isize <= indent) {
                break;
            }
            let (words, colon) = self.plain_end(i, false);
            if colon {
                return Err(gave_up());
            }
            let value = text.to_mut();
            if breaks == 0 {
                value.push(' ');
            }
            for _ in 0..breaks {
                value.push('\n');
            }
            value.push_str(&self.text[i..words]);
            end = words;
        }
        Ok(Scalar { text, end, ..first })
    }

    /// Where the one-line plain scalar starting at `start` ends (trailing spaces excluded), and
    /// whether a `:` indicator (`:` then a blank, the end, or in flow a flow indicator) ends it
    /// (`yaml_parser_scan_plain_scalar`'s loop, on one line).
    fn plain_end(&self, start: usize, flow: bool) -> (usize, bool) {
        // A `:` ends the scalar before a blank or the end, and in flow before an indicator
        // (where libyaml reports "found unexpected ':'", which the callers leave to it).
        let colon_ends = |i: usize| {
            is_blank_or_end(self.at(i + 1))
                || flow
                    && self
                        .at(i + 1)
                        .is_some_and(|c| c == b'?' || is_flow_indicator(c))
        };
        let mut i = start;
        let mut end = start;
        loop {
            match self.at(i) {
                None | Some(b'\n') => return (end, false),
                Some(b' ') => i += 1,
                Some(b'#') if i > end => return (end, false),
                Some(b':') if colon_ends(i) => return (end, true),
                Some(c) if flow && is_flow_indicator(c) => return (end, false),
                Some(_) => {
                    // A word, up to a blank, a `:` indicator or (in flow) a flow indicator;
                    // the spaces before it belong to the scalar.
                    i += 1;
                    while let Some(c) = self.at(i) {
                        if c == b' ' || c == b'\n' || c == b':' && colon_ends(i) {
                            break;
                        }
                        if flow && is_flow_indicator(c) {
                            break;
                        }
                        i += 1;
                    }
                    end = i;
                }
            }
        }
    }

    /// A single- or double-quoted scalar starting at `start` (`yaml_parser_scan_flow_scalar`).
    /// With `indent` `None` it must close on its line; with `Some(indent)` it may go on over
    /// lines whose content starts at a column greater than `indent` (else this gives up, and
    /// libyaml reads it), folded as libyaml folds: a line break between non-empty lines becomes
    /// a space, each empty line `\n`, the blanks around a break are dropped, and in a
    /// double-quoted scalar `\` before a break joins the lines without a space.
    fn quoted(&self, start: usize, indent: Option<isize>) -> Step<Scalar<'a>> {
        let quote = self.b[start];
        let mut i = start + 1;
        let mut owned: Option<String> = None;
        let mut from = i;
        loop {
            let c = self.at(i).ok_or_else(|| gave_up())?;
            match c {
                b'\n' => {
                    let Some(indent) = indent else {
                        return Err(gave_up());
                    };
                    let s = owned.get_or_insert_with(String::new);
                    s.push_str(self.text[from..i].trim_end_matches(' '));
                    i = self.fold_breaks(i, indent, false, s)?;
                    from = i;
                }
                b'\'' if quote == b'\'' => {
                    if self.at(i + 1) == Some(b'\'') {
                        let s = owned.get_or_insert_with(String::new);
                        s.push_str(&self.text[from..=i]);
                        i += 2;
                        from = i;
                        continue;
                    }
                    break;
                }
                b'"' if quote == b'"' => break,
                b'\\' if quote == b'"' => {
                    let s = owned.get_or_insert_with(String::new);
                    s.push_str(&self.text[from..i]);
                    if self.at(i + 1) == Some(b'\n') {
                        let Some(indent) = indent else {
                            return Err(gave_up());
                        };
                        i = self.fold_breaks(i + 1, indent, true, s)?;
                    } else {
                        i = escape(self.b, i + 1, s)?;
                    }
                    from = i;
                }
                _ => i += 1,
            }
        }
        let text = match owned {
            None => Cow::Borrowed(&self.text[start + 1..i]),
            Some(mut s) => {
                s.push_str(&self.text[from..i]);
                Cow::Owned(s)
            }
        };
        Ok(Scalar {
            text,
            plain: false,
            start,
            end: i + 1,
        })
    }

    /// The line break at `i` inside a multi-line quoted scalar and the blank and empty lines
    /// after it, folded into `out` (the loop over blanks and breaks of
    /// `yaml_parser_scan_flow_scalar`): after an escaped break (`joined`) each further break is
    /// `\n`; else the first break is a space when no empty line follows and dropped when one
    /// does, each empty line `\n`. The offset of the next content, on a line whose content
    /// starts past column `indent` (a less indented line, or a document marker, gives up).
    fn fold_breaks(
        &self,
        mut i: usize,
        indent: isize,
        joined: bool,
        out: &mut String,
    ) -> Step<usize> {
        let mut breaks = 0usize;
        loop {
            // Standing on a line break: the next line's leading spaces, then its content or
            // another break.
            i += 1;
            let line = i;
            if self.b[line..].starts_with(b"---") || self.b[line..].starts_with(b"...") {
                return Err(gave_up());
            }
            while self.at(i) == Some(b' ') {
                i += 1;
            }
            match self.at(i) {
                Some(b'\n') => breaks += 1,
                None => return Err(gave_up()),
                Some(_) if (i - line) as isize <= indent => return Err(gave_up()),
                Some(_) => break,
            }
        }
        if !joined && breaks == 0 {
            out.push(' ');
        }
        for _ in 0..breaks {
            out.push('\n');
        }
        Ok(i)
    }

    /// A flow collection starting at `start` (`[` or `{`) and closed on its line; `pos` ends
    /// past it.
    fn flow(&mut self, start: usize) -> Step {
        self.enter()?;
        let open = self.b[start];
        let close = if open == b'[' { b']' } else { b'}' };
        let mark = self.mark(start);
        if open == b'[' {
            self.emit(Event::SequenceStart { anchor: None }, mark)?;
        } else {
            self.emit(Event::MappingStart { anchor: None }, mark)?;
        }
        self.pos = start + 1;
        loop {
            self.skip_spaces();
            let c = self.at(self.pos).ok_or_else(|| gave_up())?;
            if c == close {
                break;
            }
            if open == b'{' {
                let key = self.flow_scalar()?;
                let mark = self.mark(key.start);
                self.pos = key.end;
                self.skip_spaces();
                // A quoted key may be followed by `:` directly (JSON style); a plain one ends
                // at `: ` only.
                // (libyaml's "found unexpected ':'" after a plain key is for it to report).
                let colon = self.pos;
                if self.at(colon) != Some(b':') || key.plain && !is_blank_or_end(self.at(colon + 1))
                {
                    return Err(gave_up());
                }
                self.scalar(key.text, key.plain, mark)?;
                self.pos += 1;
                self.skip_spaces();
                if matches!(self.at(self.pos), Some(b',' | b'}')) {
                    return Err(gave_up());
                }
            }
            match self.at(self.pos) {
                Some(b'[' | b'{') => self.flow(self.pos)?,
                _ => {
                    let s = self.flow_scalar()?;
                    let mark = self.mark(s.start);
                    self.pos = s.end;
                    self.scalar(s.text, s.plain, mark)?;
                }
            }
            self.skip_spaces();
            match self.at(self.pos) {
                Some(b',') => self.pos += 1,
                Some(c) if c == close => break,
                _ => return Err(gave_up()),
            }
        }
        let end = self.mark(self.pos);
        self.pos += 1;
        self.depth -= 1;
        if open == b'[' {
            self.emit(Event::SequenceEnd, end)
        } else {
            self.emit(Event::MappingEnd, end)
        }
    }

    /// A scalar inside a flow collection: quoted, or plain up to a flow indicator or a `:`
    /// indicator (a comment after it, which continues the collection on another line, is for
    /// libyaml).
    fn flow_scalar(&self) -> Step<Scalar<'a>> {
        let start = self.pos;
        match self.at(start) {
            Some(b'\'' | b'"') => self.quoted(start, None),
            Some(_) if plain_start(self.b, start, true) => {
                let (end, _) = self.plain_end(start, true);
                let mut after = end;
                while self.at(after) == Some(b' ') {
                    after += 1;
                }
                if end == start || self.at(after) == Some(b'#') {
                    return Err(gave_up());
                }
                Ok(self.plain(start, end))
            }
            _ => Err(gave_up()),
        }
    }

    /// A literal (`|`) or folded (`>`) block scalar whose indicator is at `pos`, inside a block
    /// collection at column `indent` (`yaml_parser_scan_block_scalar`).
    fn block_scalar(&mut self, indent: isize) -> Step {
        let start = self.pos;
        let literal = self.b[start] == b'|';
        let mark = self.mark(start);
        let mut i = start + 1;
        // Chomping: -1 strip, 0 clip, 1 keep. An indentation indicator goes to libyaml.
        let chomping: i8 = match self.at(i) {
            Some(b'+') => 1,
            Some(b'-') => -1,
            _ => 0,
        };
        if chomping != 0 {
            i += 1;
        }
        if self.at(i).is_some_and(|c| c.is_ascii_digit()) {
            return Err(gave_up());
        }
        // The header ends with blanks, an optional comment (after a blank) and the line break.
        if !is_blank_or_end(self.at(i)) {
            return Err(gave_up());
        }
        self.pos = i;
        self.end_line()?;
        // Leading empty lines, then the first content line fixes the indentation.
        let mut breaks = 0usize;
        let mut max_spaces = 0usize;
        let content = loop {
            let mut j = self.pos;
            while self.at(j) == Some(b' ') {
                j += 1;
            }
            max_spaces = max_spaces.max(j - self.pos);
            match self.at(j) {
                Some(b'\n') => {
                    breaks += 1;
                    self.pos = j;
                    self.next_line();
                }
                None => break None,
                Some(_) => break Some(j - self.pos),
            }
        };
        let min = usize::try_from(indent + 1).unwrap_or(0).max(1);
        let width = max_spaces.max(min);
        // No content line at that indentation (an empty scalar, or a more-indented leading
        // blank line) goes to libyaml.
        if content != Some(width) {
            return Err(gave_up());
        }
        let mut value = String::new();
        let mut leading_break = false;
        let mut leading_blank = false;
        let mut trailing = breaks;
        loop {
            // Standing at the start of a line whose indentation is `width` or more.
            let line = self.pos + width;
            let trailing_blank = self.at(line) == Some(b' ');
            if !literal && leading_break && !leading_blank && !trailing_blank {
                if trailing == 0 {
                    value.push(' ');
                }
            } else if leading_break {
                value.push('\n');
            }
            for _ in 0..trailing {
                value.push('\n');
            }
            trailing = 0;
            leading_blank = trailing_blank;
            let end = memchr_newline(self.b, line);
            value.push_str(&self.text[line..end]);
            self.pos = end;
            if self.at(end).is_none() {
                leading_break = false;
                break;
            }
            leading_break = true;
            self.next_line();
            // Empty lines (spaces up to the indentation are not content), then a line at the
            // indentation continues the scalar; a less indented one ends it.
            let more = loop {
                let mut j = self.pos;
                while j - self.pos < width && self.at(j) == Some(b' ') {
                    j += 1;
                }
                match self.at(j) {
                    Some(b'\n') => {
                        trailing += 1;
                        self.pos = j;
                        self.next_line();
                    }
                    None => break false,
                    Some(_) => break j - self.pos == width,
                }
            };
            if !more {
                break;
            }
        }
        if chomping != -1 && leading_break {
            value.push('\n');
        }
        if chomping == 1 {
            for _ in 0..trailing {
                value.push('\n');
            }
        }
        // The reader stands at the start of the line after the scalar (or at the end).
        self.scalar(Cow::Owned(value), false, mark)
    }
}

/// Whether a plain scalar may start at `i` (`yaml_parser_fetch_next_token`'s last test): not
/// an indicator, `-` only before a non-blank, and `?`/`:` only before a non-blank in block
/// context (never in flow, where they are indicators).
fn plain_start(b: &[u8], i: usize, flow: bool) -> bool {
    let next = b.get(i + 1).copied();
    match b[i] {
        b'-' => !(is_blank_or_end(next) || flow && next.is_some_and(is_flow_indicator)),
        b'?' | b':' => !flow && !is_blank_or_end(next),
        b' ' | b'\n' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
        | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' => false,
        _ => true,
    }
}

/// The offset of the next `\n` at or after `from`, or the end.
fn memchr_newline(b: &[u8], from: usize) -> usize {
    b[from..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |i| from + i)
}

/// Reads the escape after a backslash at `i` into `out`; the offset after it. Escapes libyaml
/// rejects (unknown letters, bad hex, surrogates, code points past U+10FFFF) and a backslash at
/// the end of a line go to libyaml.
fn escape(b: &[u8], i: usize, out: &mut String) -> Step<usize> {
    let c = *b.get(i).ok_or_else(|| gave_up())?;
    let simple = match c {
        b'0' => '\0',
        b'a' => '\x07',
        b'b' => '\x08',
        b't' => '\t',
        b'n' => '\n',
        b'v' => '\x0b',
        b'f' => '\x0c',
        b'r' => '\r',
        b'e' => '\x1b',
        b' ' => ' ',
        b'"' => '"',
        b'/' => '/',
        b'\\' => '\\',
        b'N' => '\u{85}',
        b'_' => '\u{a0}',
        b'L' => '\u{2028}',
        b'P' => '\u{2029}',
        b'x' | b'u' | b'U' => {
            let len = match c {
                b'x' => 2,
                b'u' => 4,
                _ => 8,
            };
            let digits = b.get(i + 1..i + 1 + len).ok_or_else(|| gave_up())?;
            let mut code = 0u32;
            for &d in digits {
                let v = char::from(d).to_digit(16).ok_or_else(|| gave_up())?;
                code = code * 16 + v;
            }
            out.push(char::from_u32(code).ok_or_else(|| gave_up())?);
            return Ok(i + 1 + len);
        }
        _ => return Err(gave_up()),
    };
    out.push(simple);
    Ok(i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml_events::Parser;

    /// libyaml's events and marks for `text`, up to the stream end or its first error.
    fn libyaml_events(text: &str) -> Result<Vec<(Event<'static>, Mark)>, String> {
        let mut parser = Parser::new(text);
        let mut events = Vec::new();
        loop {
            let (event, mark) = parser.next().map_err(|e| e.message)?;
            let end = event == Event::StreamEnd;
            events.push((event, mark));
            if end {
                return Ok(events);
            }
        }
    }

    /// The fast path's events and marks for `text`, or `None` when it gives up.
    fn fast_events(text: &str) -> Option<Vec<(Event<'_>, Mark)>> {
        let mut events = Vec::new();
        read(text, |event, mark| {
            events.push((event, mark));
            true
        })
        .ok()
        .map(|()| events)
    }

    /// Multi-line quoted scalars the fast path reads: each gives libyaml's events exactly
    /// (values folded, marks of the nodes after them).
    const MULTI_LINE_READ: &[&str] = &[
        // A break between non-empty lines is a space; continuation indentation dropped.
        "a: 'multi\n  line'\nb: 1\n",
        "a: \"multi\n    line\"\nb: 1\n",
        // Each empty line is a line feed (spaces on it are not content).
        "a: 'one\n\n  two\n\n   \n  three'\nb: 1\n",
        "a: \"one\n\n\n  two\"\n",
        // Spaces before a break are dropped, escaped ones kept; spaces before `\` kept.
        "a: 'trail   \n   lead  x'\n",
        "a: \"a\\ \n  b\"\n",
        "a: \"x  \\\n  y\"\n",
        // `\` before a break joins without a space; empty lines after it are line feeds.
        "a: \"x\\\n  y\"\n",
        "a: \"x\\\n\n  y\\\n    z\"\n",
        // Escapes and `''` on either side of a break.
        "a: 'it''s\n  ''q'''\n",
        "a: \"\\t\n  \\u00e9\\n\n  end\"\n",
        // A break right after the opening or before the closing quote.
        "a: '\n  x\n  '\nb: 2\n",
        // Sequence entries, compact mappings, a value on its own line, marks after.
        "- 'item\n  two'\n- \"d\n  e\"\n- x\n",
        "a:\n- 'x\n  y'\nb: 1\n",
        "- k: 'x\n   y'\n  l: 1\n",
        "a:\n  'x\n  y'\nb: 1\n",
        "a:\n  b: 'x\n    y' # c\n  c: ü\nd: [1]\n",
        "a: 'ünï\n  cödé' \nb: 'x'\n",
    ];

    /// Multi-line plain scalars the fast path reads.
    const PLAIN_MULTI_LINE_READ: &[&str] = &[
        "a: multi\n  line\nb: 1\n",
        "a: one\n\n  two\n   \n\n    three  four  \nb: 1\n",
        "- item\n  - two\n- 'x'\n",
        "a:\n  own\n  line # c\nb: 1\n",
        "a:\n- x\n  y\n  z\nb: 1\n",
        "- k: a#b\n   'c' [d]\n  l: 1\n",
        "a: x\n  # ends it\nb: 1\n",
        "a: x\n\n\n",
        "a:\n  b: x\n   y\n  c: ü\n    ü\nd: 1\n",
        "- x\n---\n- y\n  z\n",
    ];

    /// Near them, what the fast path leaves to libyaml.
    const PLAIN_MULTI_LINE_LEFT: &[&str] = &[
        "a: x\n  b: c\n",
        "a: x\n  : c\n",
        "- x\n  y: 1\n",
        "a: x # c\n  y\n",
        "a: x\n  # c\n  y\n",
        "a: x\n\ty\n",
    ];

    /// Near the multi-line quoted scalars read, what the fast path leaves to libyaml.
    const MULTI_LINE_LEFT: &[&str] = &[
        // A continuation line no further indented than its block.
        "a:\n  b: 'x\n  y'\n",
        "a: 'x\ny'\n",
        "- 'x\n'\n",
        // Document markers inside.
        "a: 'x\n---\n  y'\n",
        "a: 'x\n...\n  y'\n",
        "a: \"x\\\n--- y\"\n",
        // Tabs.
        "a: 'x\n\ty'\n",
        "a: 'x\t\n  y'\n",
        // As a key, or followed by more than a comment.
        "a: 'x\n  y': 1\n",
        "- 'x\n  y': 1\n",
        "'k\n  ey': 1\n",
        "a: 'x\n  y' z\n",
        // Not closed.
        "a: 'x\n  y\n",
        "a: \"x\\\n",
        // In a flow collection.
        "a: ['x\n  y']\n",
    ];

    #[test]
    fn multi_line_scalars_give_libyaml_events() {
        for text in MULTI_LINE_READ.iter().chain(PLAIN_MULTI_LINE_READ) {
            let fast = fast_events(text).unwrap_or_else(|| panic!("gave up on {text:?}"));
            let reference = libyaml_events(text).expect("libyaml reads it");
            assert_eq!(fast, reference, "{text:?}");
        }
    }

    #[test]
    fn multi_line_scalars_left_to_libyaml() {
        for text in MULTI_LINE_LEFT.iter().chain(PLAIN_MULTI_LINE_LEFT) {
            assert!(fast_events(text).is_none(), "read {text:?}");
        }
    }
}
