//! A port of Go's `regexp/syntax` parser (`parse.go`, Go 1.25) with the
//! flags `regexp.Compile` uses (`syntax.Perl`): the same parse tree (literal
//! strings merged, alternations factored), the same errors, and the same
//! limits, checked at the same moments on the same tree shapes — repeat
//! counts (1000), nesting height (1000), program size (`maxSize`) and class
//! runes (`maxRunes`).
//!
//! Nodes live in an arena; freed nodes go to a free list reused last-in
//! first-out, as Go reuses its `*Regexp`s, so the size and height caches
//! (keyed by node, as Go keys them by pointer) behave as Go's do.

use std::collections::HashMap;

use super::class::{
    MAX_RUNE, append_class, append_folded_class, append_folded_range, append_negated_class,
    append_range, clean_class, fold_closure, negate_class, perl_group, posix_group, unicode_table,
};
use super::{ErrorCode, RegexError};

/// A node's operator; the order is Go's (`syntax.Op`), which the parser
/// compares.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(super) enum Op {
    NoMatch = 1,
    EmptyMatch,
    Literal,
    CharClass,
    AnyCharNotNL,
    AnyChar,
    BeginLine,
    EndLine,
    BeginText,
    EndText,
    WordBoundary,
    NoWordBoundary,
    Capture,
    Star,
    Plus,
    Quest,
    Repeat,
    Concat,
    Alternate,
    /// Pseudo-operators of the parse stack (`opPseudo` and up).
    LeftParen = 128,
    VerticalBar,
}

pub(super) const FOLD_CASE: u16 = 1;
const CLASS_NL: u16 = 1 << 2;
const DOT_NL: u16 = 1 << 3;
const ONE_LINE: u16 = 1 << 4;
pub(super) const NON_GREEDY: u16 = 1 << 5;
const PERL_X: u16 = 1 << 6;
const UNICODE_GROUPS: u16 = 1 << 7;
const WAS_DOLLAR: u16 = 1 << 8;
/// `syntax.Perl`, the flags of `regexp.Compile`.
const PERL: u16 = CLASS_NL | ONE_LINE | PERL_X | UNICODE_GROUPS;

/// Go's `maxHeight`: the deepest parse tree accepted.
pub const MAX_HEIGHT: i32 = 1000;
/// Go's `maxSize`: the largest program, in instructions (128 MiB / 40 bytes).
pub const MAX_SIZE: i64 = (128 << 20) / 40;
/// Go's `maxRunes`: the most runes all classes may hold (128 MiB / 4 bytes).
pub const MAX_RUNES: usize = (128 << 20) / 4;
/// The largest repeat count, and the largest product of nested counts.
pub const MAX_REPEAT: i32 = 1000;

pub(super) type Id = usize;

/// A parse-tree node (`syntax.Regexp`).
#[derive(Clone, Debug)]
pub(super) struct Node {
    pub op: Op,
    pub flags: u16,
    pub sub: Vec<Id>,
    pub rune: Vec<i32>,
    pub min: i32,
    pub max: i32,
    cap: usize,
}

impl Node {
    fn new(op: Op) -> Node {
        Node {
            op,
            flags: 0,
            sub: Vec::new(),
            rune: Vec::new(),
            min: 0,
            max: 0,
            cap: 0,
        }
    }
}

/// A parsed pattern: the arena and its root.
pub(super) struct Tree {
    pub nodes: Vec<Node>,
    pub root: Id,
}

type PResult<T> = Result<T, RegexError>;

struct Parser<'a> {
    s: &'a str,
    flags: u16,
    stack: Vec<Id>,
    nodes: Vec<Node>,
    free: Vec<Id>,
    num_cap: usize,
    num_runes: usize,
    repeats: i64,
    height: Option<HashMap<Id, i32>>,
    size: Option<HashMap<Id, i64>>,
}

fn err<T>(code: ErrorCode, expr: &str) -> PResult<T> {
    Err(RegexError::new(code, expr))
}

/// The rune at byte `at` and the offset after it; at the end, Go's
/// `utf8.RuneError` and `at` itself.
fn next_rune(s: &str, at: usize) -> (i32, usize) {
    match s.get(at..).and_then(|t| t.chars().next()) {
        Some(c) => (c as i32, at + c.len_utf8()),
        None => (0xFFFD, at),
    }
}

fn is_alnum(c: i32) -> bool {
    u8::try_from(c).is_ok_and(|b| b.is_ascii_alphanumeric())
}

fn unhex(c: i32) -> i32 {
    match u8::try_from(c).ok().and_then(|b| (b as char).to_digit(16)) {
        Some(v) => v as i32,
        None => -1,
    }
}

/// Go's `unicode.SimpleFold`: the next rune of `r`'s folding orbit.
fn simple_fold(r: i32) -> i32 {
    if !(0..=MAX_RUNE).contains(&r) {
        return r;
    }
    let orbit = fold_closure(&[r, r]);
    let mut smallest = None;
    for p in orbit.chunks_exact(2) {
        for c in p[0]..=p[1] {
            if c > r {
                return c;
            }
            smallest.get_or_insert(c);
        }
    }
    smallest.unwrap_or(r)
}

/// The smallest rune of `r`'s folding orbit (`minFoldRune`).
fn min_fold_rune(r: i32) -> i32 {
    if !(0x41..=0x1e943).contains(&r) {
        return r;
    }
    fold_closure(&[r, r]).first().copied().unwrap_or(r).min(r)
}

/// Parses `s` as `regexp.Compile` does.
pub(super) fn parse(s: &str) -> PResult<Tree> {
    let mut p = Parser {
        s,
        flags: PERL,
        stack: Vec::new(),
        nodes: Vec::new(),
        free: Vec::new(),
        num_cap: 0,
        num_runes: 0,
        repeats: 0,
        height: None,
        size: None,
    };
    p.run()?;
    let root = p.stack[0];
    Ok(Tree {
        nodes: p.nodes,
        root,
    })
}

impl Parser<'_> {
    fn n(&self, id: Id) -> &Node {
        &self.nodes[id]
    }

    fn m(&mut self, id: Id) -> &mut Node {
        &mut self.nodes[id]
    }

    fn new_regexp(&mut self, op: Op) -> Id {
        match self.free.pop() {
            Some(id) => {
                self.nodes[id] = Node::new(op);
                id
            }
            None => {
                self.nodes.push(Node::new(op));
                self.nodes.len() - 1
            }
        }
    }

    fn reuse(&mut self, id: Id) {
        if let Some(h) = &mut self.height {
            h.remove(&id);
        }
        self.free.push(id);
    }

    fn check_limits(&mut self, id: Id) -> PResult<()> {
        if self.num_runes > MAX_RUNES {
            return err(ErrorCode::Large, self.s);
        }
        self.check_size(id)?;
        self.check_height(id)
    }

    fn check_size(&mut self, id: Id) -> PResult<()> {
        if self.size.is_none() {
            // Go starts tracking sizes only once the node count times the
            // product of the repeats seen could exceed the budget.
            if self.repeats == 0 {
                self.repeats = 1;
            }
            let node = self.n(id);
            if node.op == Op::Repeat {
                let mut n = if node.max == -1 { node.min } else { node.max };
                if n <= 0 {
                    n = 1;
                }
                if i64::from(n) > MAX_SIZE / self.repeats {
                    self.repeats = MAX_SIZE;
                } else {
                    self.repeats *= i64::from(n);
                }
            }
            if (self.nodes.len() as i64) < MAX_SIZE / self.repeats {
                return Ok(());
            }
            self.size = Some(HashMap::new());
            for re in self.stack.clone() {
                self.check_size(re)?;
            }
        }
        if self.calc_size(id, true) > MAX_SIZE {
            return err(ErrorCode::Large, self.s);
        }
        Ok(())
    }

    fn calc_size(&mut self, id: Id, force: bool) -> i64 {
        if !force && let Some(size) = self.size.as_ref().and_then(|m| m.get(&id)) {
            return *size;
        }
        let node = self.n(id);
        let (op, min, max) = (node.op, i64::from(node.min), i64::from(node.max));
        let subs = node.sub.clone();
        let rune_len = node.rune.len() as i64;
        let mut size = match op {
            Op::Literal => rune_len,
            Op::Capture | Op::Star => 2 + self.calc_size(subs[0], false),
            Op::Plus | Op::Quest => 1 + self.calc_size(subs[0], false),
            Op::Concat | Op::Alternate => {
                let mut total = 0i64;
                for sub in &subs {
                    total = total.saturating_add(self.calc_size(*sub, false));
                }
                if op == Op::Alternate && subs.len() > 1 {
                    total += subs.len() as i64 - 1;
                }
                total
            }
            Op::Repeat => {
                let sub = self.calc_size(subs[0], false);
                if max == -1 {
                    if min == 0 {
                        2 + sub
                    } else {
                        1i64.saturating_add(min.saturating_mul(sub))
                    }
                } else {
                    max.saturating_mul(sub).saturating_add(max - min)
                }
            }
            _ => 0,
        };
        size = size.max(1);
        if let Some(m) = &mut self.size {
            m.insert(id, size);
        }
        size
    }

    fn check_height(&mut self, id: Id) -> PResult<()> {
        if (self.nodes.len() as i32) < MAX_HEIGHT {
            return Ok(());
        }
        if self.height.is_none() {
            self.height = Some(HashMap::new());
            for re in self.stack.clone() {
                self.check_height(re)?;
            }
        }
        if self.calc_height(id, true) > MAX_HEIGHT {
            return err(ErrorCode::NestingDepth, self.s);
        }
        Ok(())
    }

    fn calc_height(&mut self, id: Id, force: bool) -> i32 {
        if !force && let Some(h) = self.height.as_ref().and_then(|m| m.get(&id)) {
            return *h;
        }
        let mut h = 1;
        for sub in self.n(id).sub.clone() {
            h = h.max(1 + self.calc_height(sub, false));
        }
        if let Some(m) = &mut self.height {
            m.insert(id, h);
        }
        h
    }

    /// Pushes `id` on the stack, or merges it into the literal string below
    /// (`push`); `None` when merged.
    fn push(&mut self, id: Id) -> PResult<Option<Id>> {
        self.num_runes += self.n(id).rune.len();
        let node = self.n(id);
        let r = &node.rune;
        let is_class = node.op == Op::CharClass;
        if is_class && r.len() == 2 && r[0] == r[1] {
            let r0 = r[0];
            if self.maybe_concat(r0, self.flags & !FOLD_CASE) {
                return Ok(None);
            }
            let flags = self.flags & !FOLD_CASE;
            let node = self.m(id);
            node.op = Op::Literal;
            node.rune.truncate(1);
            node.flags = flags;
        } else if is_class
            && ((r.len() == 4
                && r[0] == r[1]
                && r[2] == r[3]
                && simple_fold(r[0]) == r[2]
                && simple_fold(r[2]) == r[0])
                || (r.len() == 2
                    && r[0] + 1 == r[1]
                    && simple_fold(r[0]) == r[1]
                    && simple_fold(r[1]) == r[0]))
        {
            // A case-insensitive rune like [Aa] or [Δδ].
            let r0 = r[0];
            if self.maybe_concat(r0, self.flags | FOLD_CASE) {
                return Ok(None);
            }
            let flags = self.flags | FOLD_CASE;
            let node = self.m(id);
            node.op = Op::Literal;
            node.rune.truncate(1);
            node.flags = flags;
        } else {
            self.maybe_concat(-1, 0);
        }
        self.stack.push(id);
        self.check_limits(id)?;
        Ok(Some(id))
    }

    /// Merges the two literals on top of the stack (`maybeConcat`); with
    /// `r >= 0`, reuses the freed top node for `r` and reports `true`.
    fn maybe_concat(&mut self, r: i32, flags: u16) -> bool {
        let n = self.stack.len();
        if n < 2 {
            return false;
        }
        let (re1, re2) = (self.stack[n - 1], self.stack[n - 2]);
        let (a, b) = (self.n(re1), self.n(re2));
        if a.op != Op::Literal || b.op != Op::Literal || a.flags & FOLD_CASE != b.flags & FOLD_CASE
        {
            return false;
        }
        let runes = std::mem::take(&mut self.m(re1).rune);
        self.m(re2).rune.extend_from_slice(&runes);
        if r >= 0 {
            let node = self.m(re1);
            node.rune = vec![r];
            node.flags = flags;
            return true;
        }
        self.stack.pop();
        self.reuse(re1);
        false
    }

    fn literal(&mut self, mut r: i32) -> PResult<()> {
        let id = self.new_regexp(Op::Literal);
        self.m(id).flags = self.flags;
        if self.flags & FOLD_CASE != 0 {
            r = min_fold_rune(r);
        }
        self.m(id).rune = vec![r];
        self.push(id).map(drop)
    }

    fn op(&mut self, op: Op) -> PResult<Option<Id>> {
        let id = self.new_regexp(op);
        self.m(id).flags = self.flags;
        self.push(id)
    }

    /// Applies a repetition operator to the top of the stack (`repeat`);
    /// `before`..`after` is the operator, `last_repeat` where the previous
    /// one began if it ended right here. Returns the offset after it.
    fn repeat(
        &mut self,
        op: Op,
        (min, max): (i32, i32),
        before: usize,
        mut after: usize,
        last_repeat: Option<usize>,
    ) -> PResult<usize> {
        let mut flags = self.flags;
        if self.s.as_bytes().get(after) == Some(&b'?') {
            after += 1;
            flags ^= NON_GREEDY;
        }
        if let Some(last) = last_repeat {
            // Go rejects stacked repetition operators (`a**`, `a++`).
            return err(ErrorCode::InvalidRepeatOp, &self.s[last..after]);
        }
        let Some(&sub) = self.stack.last() else {
            return err(ErrorCode::MissingRepeatArgument, &self.s[before..after]);
        };
        if self.n(sub).op >= Op::LeftParen {
            return err(ErrorCode::MissingRepeatArgument, &self.s[before..after]);
        }
        let id = self.new_regexp(op);
        let node = self.m(id);
        node.min = min;
        node.max = max;
        node.flags = flags;
        node.sub = vec![sub];
        if let Some(top) = self.stack.last_mut() {
            *top = id;
        }
        self.check_limits(id)?;
        if op == Op::Repeat && (min >= 2 || max >= 2) && !self.repeat_is_valid(id, MAX_REPEAT) {
            return err(ErrorCode::InvalidRepeatSize, &self.s[before..after]);
        }
        Ok(after)
    }

    /// Whether the nested repeat counts under `id` multiply to at most `n`
    /// (`repeatIsValid`).
    fn repeat_is_valid(&self, id: Id, mut n: i32) -> bool {
        let node = self.n(id);
        if node.op == Op::Repeat {
            let mut m = node.max;
            if m == 0 {
                return true;
            }
            if m < 0 {
                m = node.min;
            }
            if m > n {
                return false;
            }
            if m > 0 {
                n /= m;
            }
        }
        node.sub.iter().all(|&sub| self.repeat_is_valid(sub, n))
    }

    /// Index of the first stack entry above the topmost pseudo-operator.
    fn above_pseudo(&self) -> usize {
        let mut i = self.stack.len();
        while i > 0 && self.n(self.stack[i - 1]).op < Op::LeftParen {
            i -= 1;
        }
        i
    }

    fn concat(&mut self) -> PResult<()> {
        self.maybe_concat(-1, 0);
        let subs = self.stack.split_off(self.above_pseudo());
        let id = if subs.is_empty() {
            self.new_regexp(Op::EmptyMatch)
        } else {
            self.collapse(subs, Op::Concat)?
        };
        self.push(id).map(drop)
    }

    fn alternate(&mut self) -> PResult<()> {
        let subs = self.stack.split_off(self.above_pseudo());
        if let Some(&last) = subs.last() {
            self.clean_alt(last);
        }
        let id = if subs.is_empty() {
            self.new_regexp(Op::NoMatch)
        } else {
            self.collapse(subs, Op::Alternate)?
        };
        self.push(id).map(drop)
    }

    /// Cleans a class for inclusion in an alternation (`cleanAlt`).
    fn clean_alt(&mut self, id: Id) {
        let node = self.m(id);
        if node.op != Op::CharClass {
            return;
        }
        clean_class(&mut node.rune);
        if node.rune == [0, MAX_RUNE] {
            node.rune.clear();
            node.op = Op::AnyChar;
        } else if node.rune == [0, '\n' as i32 - 1, '\n' as i32 + 1, MAX_RUNE] {
            node.rune.clear();
            node.op = Op::AnyCharNotNL;
        }
    }

    /// `op` applied to `subs`, hoisting nested nodes of the same op
    /// (`collapse`).
    fn collapse(&mut self, subs: Vec<Id>, op: Op) -> PResult<Id> {
        if subs.len() == 1 {
            return Ok(subs[0]);
        }
        let mut re = self.new_regexp(op);
        let mut list = Vec::with_capacity(subs.len());
        for sub in subs {
            if self.n(sub).op == op {
                list.extend_from_slice(&self.n(sub).sub.clone());
                self.reuse(sub);
            } else {
                list.push(sub);
            }
        }
        if op == Op::Alternate {
            list = self.factor(list)?;
            if list.len() == 1 {
                let old = re;
                re = list[0];
                self.m(old).sub = list;
                self.reuse(old);
                return Ok(re);
            }
        }
        self.m(re).sub = list;
        Ok(re)
    }

    /// Factors common prefixes out of an alternation (`factor`).
    fn factor(&mut self, mut sub: Vec<Id>) -> PResult<Vec<Id>> {
        if sub.len() < 2 {
            return Ok(sub);
        }
        // Round 1: common literal prefixes.
        let mut out = Vec::with_capacity(sub.len());
        let (mut str, mut strflags): (Vec<i32>, u16) = (Vec::new(), 0);
        let mut start = 0;
        for i in 0..=sub.len() {
            let (mut istr, mut iflags) = (Vec::new(), 0);
            if i < sub.len() {
                (istr, iflags) = self.leading_string(sub[i]);
                if iflags == strflags {
                    let same = str.iter().zip(&istr).take_while(|(a, b)| a == b).count();
                    if same > 0 {
                        str.truncate(same);
                        continue;
                    }
                }
            }
            if i == start + 1 {
                out.push(sub[start]);
            } else if i > start + 1 {
                let prefix = self.new_regexp(Op::Literal);
                self.m(prefix).flags = strflags;
                self.m(prefix).rune = str.clone();
                for item in &mut sub[start..i] {
                    *item = self.remove_leading_string(*item, str.len());
                    self.check_limits(*item)?;
                }
                let suffix = self.collapse(sub[start..i].to_vec(), Op::Alternate)?;
                let re = self.new_regexp(Op::Concat);
                self.m(re).sub = vec![prefix, suffix];
                out.push(re);
            }
            start = i;
            str = istr;
            strflags = iflags;
        }
        sub = std::mem::take(&mut out);

        // Round 2: common leading classes (or fixed repeats of one).
        let mut start = 0;
        let mut first: Option<Id> = None;
        for i in 0..=sub.len() {
            let mut ifirst = None;
            if i < sub.len() {
                ifirst = self.leading_regexp(sub[i]);
                if let (Some(f), Some(fi)) = (first, ifirst)
                    && self.equal(f, fi)
                    && (self.is_char_class(f)
                        || (self.n(f).op == Op::Repeat
                            && self.n(f).min == self.n(f).max
                            && self.is_char_class(self.n(f).sub[0])))
                {
                    continue;
                }
            }
            if i == start + 1 {
                out.push(sub[start]);
            } else if i > start + 1
                && let Some(prefix) = first
            {
                for (j, item) in sub.iter_mut().enumerate().take(i).skip(start) {
                    // The prefix is `sub[start]`'s leading node: kept.
                    *item = self.remove_leading_regexp(*item, j != start);
                    self.check_limits(*item)?;
                }
                let suffix = self.collapse(sub[start..i].to_vec(), Op::Alternate)?;
                let re = self.new_regexp(Op::Concat);
                self.m(re).sub = vec![prefix, suffix];
                out.push(re);
            }
            start = i;
            first = ifirst;
        }
        sub = std::mem::take(&mut out);

        // Round 3: runs of single runes and classes become one class.
        let mut start = 0;
        for i in 0..=sub.len() {
            if i < sub.len() && self.is_char_class(sub[i]) {
                continue;
            }
            if i == start + 1 {
                out.push(sub[start]);
            } else if i > start + 1 {
                let mut max = start;
                for j in start + 1..i {
                    let (a, b) = (self.n(sub[max]), self.n(sub[j]));
                    if a.op < b.op || (a.op == b.op && a.rune.len() < b.rune.len()) {
                        max = j;
                    }
                }
                sub.swap(start, max);
                for j in start + 1..i {
                    self.merge_char_class(sub[start], sub[j]);
                    self.reuse(sub[j]);
                }
                self.clean_alt(sub[start]);
                out.push(sub[start]);
            }
            if i < sub.len() {
                out.push(sub[i]);
            }
            start = i + 1;
        }
        sub = std::mem::take(&mut out);

        // Round 4: runs of empty matches become one.
        for i in 0..sub.len() {
            if i + 1 < sub.len()
                && self.n(sub[i]).op == Op::EmptyMatch
                && self.n(sub[i + 1]).op == Op::EmptyMatch
            {
                continue;
            }
            out.push(sub[i]);
        }
        Ok(out)
    }

    fn leading_string(&self, mut id: Id) -> (Vec<i32>, u16) {
        let node = self.n(id);
        if node.op == Op::Concat && !node.sub.is_empty() {
            id = node.sub[0];
        }
        let node = self.n(id);
        if node.op != Op::Literal {
            return (Vec::new(), 0);
        }
        (node.rune.clone(), node.flags & FOLD_CASE)
    }

    fn remove_leading_string(&mut self, mut id: Id, n: usize) -> Id {
        if self.n(id).op == Op::Concat && !self.n(id).sub.is_empty() {
            let sub = self.remove_leading_string(self.n(id).sub[0], n);
            self.m(id).sub[0] = sub;
            if self.n(sub).op == Op::EmptyMatch {
                self.reuse(sub);
                match self.n(id).sub.len() {
                    0 | 1 => {
                        let node = self.m(id);
                        node.op = Op::EmptyMatch;
                        node.sub.clear();
                    }
                    2 => {
                        let old = id;
                        id = self.n(id).sub[1];
                        self.reuse(old);
                    }
                    _ => {
                        self.m(id).sub.remove(0);
                    }
                }
            }
            return id;
        }
        let node = self.m(id);
        if node.op == Op::Literal {
            node.rune.drain(..n.min(node.rune.len()));
            if node.rune.is_empty() {
                node.op = Op::EmptyMatch;
            }
        }
        id
    }

    fn leading_regexp(&self, id: Id) -> Option<Id> {
        let node = self.n(id);
        if node.op == Op::EmptyMatch {
            return None;
        }
        if node.op == Op::Concat && !node.sub.is_empty() {
            let sub = node.sub[0];
            return (self.n(sub).op != Op::EmptyMatch).then_some(sub);
        }
        Some(id)
    }

    fn remove_leading_regexp(&mut self, mut id: Id, reuse: bool) -> Id {
        if self.n(id).op == Op::Concat && !self.n(id).sub.is_empty() {
            if reuse {
                self.reuse(self.n(id).sub[0]);
            }
            self.m(id).sub.remove(0);
            match self.n(id).sub.len() {
                0 => {
                    self.m(id).op = Op::EmptyMatch;
                }
                1 => {
                    let old = id;
                    id = self.n(id).sub[0];
                    self.reuse(old);
                }
                _ => {}
            }
            return id;
        }
        if reuse {
            self.reuse(id);
        }
        self.new_regexp(Op::EmptyMatch)
    }

    /// Go's `(*Regexp).Equal`.
    fn equal(&self, x: Id, y: Id) -> bool {
        let (a, b) = (self.n(x), self.n(y));
        if a.op != b.op {
            return false;
        }
        let same_sub0 = || self.equal(a.sub[0], b.sub[0]);
        match a.op {
            Op::EndText => a.flags & WAS_DOLLAR == b.flags & WAS_DOLLAR,
            Op::Literal | Op::CharClass => {
                a.flags & FOLD_CASE == b.flags & FOLD_CASE && a.rune == b.rune
            }
            Op::Alternate | Op::Concat => {
                a.sub.len() == b.sub.len()
                    && a.sub.iter().zip(&b.sub).all(|(p, q)| self.equal(*p, *q))
            }
            Op::Star | Op::Plus | Op::Quest => {
                a.flags & NON_GREEDY == b.flags & NON_GREEDY && same_sub0()
            }
            Op::Repeat => {
                a.flags & NON_GREEDY == b.flags & NON_GREEDY
                    && a.min == b.min
                    && a.max == b.max
                    && same_sub0()
            }
            Op::Capture => a.cap == b.cap && same_sub0(),
            _ => true,
        }
    }

    fn is_char_class(&self, id: Id) -> bool {
        let node = self.n(id);
        (node.op == Op::Literal && node.rune.len() == 1)
            || matches!(node.op, Op::CharClass | Op::AnyCharNotNL | Op::AnyChar)
    }

    fn match_rune(&self, id: Id, r: i32) -> bool {
        let node = self.n(id);
        match node.op {
            Op::Literal => node.rune.len() == 1 && node.rune[0] == r,
            Op::CharClass => node.rune.chunks_exact(2).any(|p| p[0] <= r && r <= p[1]),
            Op::AnyCharNotNL => r != '\n' as i32,
            Op::AnyChar => true,
            _ => false,
        }
    }

    /// `dst = dst|src` for single runes and classes (`mergeCharClass`).
    fn merge_char_class(&mut self, dst: Id, src: Id) {
        let src_node = self.n(src);
        let (src_op, src_flags, src_rune) = (src_node.op, src_node.flags, src_node.rune.clone());
        match self.n(dst).op {
            Op::AnyChar => {}
            Op::AnyCharNotNL if self.match_rune(src, '\n' as i32) => {
                self.m(dst).op = Op::AnyChar;
            }
            Op::CharClass => {
                let rune = &mut self.m(dst).rune;
                if src_op == Op::Literal {
                    append_literal(rune, src_rune[0], src_flags);
                } else {
                    append_class(rune, &src_rune);
                }
            }
            Op::Literal => {
                let node = self.m(dst);
                if src_rune[0] == node.rune[0] && src_flags == node.flags {
                    return;
                }
                node.op = Op::CharClass;
                let d0 = node.rune[0];
                node.rune.clear();
                append_literal(&mut node.rune, d0, node.flags);
                append_literal(&mut node.rune, src_rune[0], src_flags);
            }
            _ => {}
        }
    }

    /// Swaps the top of the stack below a `|` (merging classes across it);
    /// reports whether it did (`swapVerticalBar`).
    fn swap_vertical_bar(&mut self) -> bool {
        let n = self.stack.len();
        if n >= 3
            && self.n(self.stack[n - 2]).op == Op::VerticalBar
            && self.is_char_class(self.stack[n - 1])
            && self.is_char_class(self.stack[n - 3])
        {
            let (mut re1, mut re3) = (self.stack[n - 1], self.stack[n - 3]);
            if self.n(re1).op > self.n(re3).op {
                std::mem::swap(&mut re1, &mut re3);
                self.stack[n - 3] = re3;
            }
            self.merge_char_class(re3, re1);
            self.reuse(re1);
            self.stack.pop();
            return true;
        }
        if n >= 2 {
            let (re1, re2) = (self.stack[n - 1], self.stack[n - 2]);
            if self.n(re2).op == Op::VerticalBar {
                if n >= 3 {
                    self.clean_alt(self.stack[n - 3]);
                }
                self.stack[n - 2] = re1;
                self.stack[n - 1] = re2;
                return true;
            }
        }
        false
    }

    fn parse_vertical_bar(&mut self) -> PResult<()> {
        self.concat()?;
        if !self.swap_vertical_bar() {
            self.op(Op::VerticalBar)?;
        }
        Ok(())
    }

    fn parse_right_paren(&mut self) -> PResult<()> {
        self.concat()?;
        if self.swap_vertical_bar() {
            self.stack.pop();
        }
        self.alternate()?;
        let n = self.stack.len();
        if n < 2 {
            return err(ErrorCode::UnexpectedParen, self.s);
        }
        let (re1, re2) = (self.stack[n - 1], self.stack[n - 2]);
        self.stack.truncate(n - 2);
        if self.n(re2).op != Op::LeftParen {
            return err(ErrorCode::UnexpectedParen, self.s);
        }
        self.flags = self.n(re2).flags;
        if self.n(re2).cap == 0 {
            self.push(re1)?;
        } else {
            let node = self.m(re2);
            node.op = Op::Capture;
            node.sub = vec![re1];
            self.push(re2)?;
        }
        Ok(())
    }

    /// The main loop of Go's `parse`.
    fn run(&mut self) -> PResult<()> {
        let s = self.s;
        let b = s.as_bytes();
        let mut t = 0;
        let mut last_repeat: Option<usize> = None;
        while t < b.len() {
            let mut repeat = None;
            match b[t] {
                b'(' => {
                    if b.get(t + 1) == Some(&b'?') {
                        t = self.parse_perl_flags(t)?;
                    } else {
                        self.num_cap += 1;
                        if let Some(id) = self.op(Op::LeftParen)? {
                            self.m(id).cap = self.num_cap;
                        }
                        t += 1;
                    }
                }
                b'|' => {
                    self.parse_vertical_bar()?;
                    t += 1;
                }
                b')' => {
                    self.parse_right_paren()?;
                    t += 1;
                }
                b'^' => {
                    let one_line = self.flags & ONE_LINE != 0;
                    self.op(if one_line {
                        Op::BeginText
                    } else {
                        Op::BeginLine
                    })?;
                    t += 1;
                }
                b'$' => {
                    if self.flags & ONE_LINE != 0 {
                        if let Some(id) = self.op(Op::EndText)? {
                            self.m(id).flags |= WAS_DOLLAR;
                        }
                    } else {
                        self.op(Op::EndLine)?;
                    }
                    t += 1;
                }
                b'.' => {
                    let dot_nl = self.flags & DOT_NL != 0;
                    self.op(if dot_nl {
                        Op::AnyChar
                    } else {
                        Op::AnyCharNotNL
                    })?;
                    t += 1;
                }
                b'[' => t = self.parse_class(t)?,
                c @ (b'*' | b'+' | b'?') => {
                    let op = match c {
                        b'*' => Op::Star,
                        b'+' => Op::Plus,
                        _ => Op::Quest,
                    };
                    let after = self.repeat(op, (0, 0), t, t + 1, last_repeat)?;
                    repeat = Some(t);
                    t = after;
                }
                b'{' => match self.parse_repeat(t) {
                    None => {
                        // Not a repeat: `{` is a literal.
                        self.literal('{' as i32)?;
                        t += 1;
                    }
                    Some((min, max, after)) => {
                        if !(0..=MAX_REPEAT).contains(&min)
                            || max > MAX_REPEAT
                            || (max >= 0 && min > max)
                        {
                            return err(ErrorCode::InvalidRepeatSize, &s[t..after]);
                        }
                        let after = self.repeat(Op::Repeat, (min, max), t, after, last_repeat)?;
                        repeat = Some(t);
                        t = after;
                    }
                },
                b'\\' => t = self.parse_backslash(t)?,
                _ => {
                    let (c, next) = next_rune(s, t);
                    self.literal(c)?;
                    t = next;
                }
            }
            last_repeat = repeat;
        }
        self.concat()?;
        if self.swap_vertical_bar() {
            self.stack.pop();
        }
        self.alternate()?;
        if self.stack.len() != 1 {
            return err(ErrorCode::MissingParen, s);
        }
        Ok(())
    }

    /// A `\` outside a class: an assertion, `\Q...\E`, a class escape or a
    /// single-rune escape.
    fn parse_backslash(&mut self, t: usize) -> PResult<usize> {
        let s = self.s;
        let b = s.as_bytes();
        match b.get(t + 1) {
            Some(b'A') => return self.op(Op::BeginText).map(|_| t + 2),
            Some(b'b') => return self.op(Op::WordBoundary).map(|_| t + 2),
            Some(b'B') => return self.op(Op::NoWordBoundary).map(|_| t + 2),
            Some(b'C') => return err(ErrorCode::InvalidEscape, &s[t..t + 2]),
            Some(b'Q') => {
                let rest = &s[t + 2..];
                let (lit, after) = match rest.find("\\E") {
                    Some(i) => (&rest[..i], t + 2 + i + 2),
                    None => (rest, s.len()),
                };
                for c in lit.chars() {
                    self.literal(c as i32)?;
                }
                return Ok(after);
            }
            Some(b'z') => return self.op(Op::EndText).map(|_| t + 2),
            _ => {}
        }
        // Go allocates the class node before knowing it is one.
        let id = self.new_regexp(Op::CharClass);
        self.m(id).flags = self.flags;
        let mut class = Vec::new();
        if matches!(b.get(t + 1), Some(b'p' | b'P'))
            && let Some(rest) = self.parse_unicode_class(t, &mut class)?
        {
            self.m(id).rune = class;
            self.push(id)?;
            return Ok(rest);
        }
        if let Some(rest) = self.parse_perl_class_escape(t, &mut class) {
            self.m(id).rune = class;
            self.push(id)?;
            return Ok(rest);
        }
        self.reuse(id);
        let (c, rest) = self.parse_escape(t)?;
        self.literal(c)?;
        Ok(rest)
    }

    /// `{min}`, `{min,}` (max -1) or `{min,max}` at `t` (`parseRepeat`):
    /// `(min, max, offset after)`, min -1 when a count is too large, `None`
    /// when the text is not a repeat.
    fn parse_repeat(&self, t: usize) -> Option<(i32, i32, usize)> {
        let b = self.s.as_bytes();
        if b.get(t) != Some(&b'{') {
            return None;
        }
        let (mut min, mut at) = parse_int(b, t + 1)?;
        let max;
        match b.get(at)? {
            b',' => {
                at += 1;
                match b.get(at)? {
                    b'}' => max = -1,
                    _ => {
                        let (m, next) = parse_int(b, at)?;
                        at = next;
                        max = m;
                        if max < 0 {
                            min = -1;
                        }
                    }
                }
            }
            _ => max = min,
        }
        (b.get(at) == Some(&b'}')).then_some((min, max, at + 1))
    }

    /// `(?flags)`, `(?flags:`, `(?P<name>` or `(?<name>` at `t`
    /// (`parsePerlFlags`).
    fn parse_perl_flags(&mut self, t: usize) -> PResult<usize> {
        let s = self.s;
        let rest = &s[t..];
        let rb = rest.as_bytes();
        let starts_with_p = rb.len() > 4 && rb[2] == b'P' && rb[3] == b'<';
        let starts_with_name = rb.len() > 3 && rb[2] == b'<';
        if starts_with_p || starts_with_name {
            let expr_start = if starts_with_p { 4 } else { 3 };
            let Some(end) = rest.find('>') else {
                return err(ErrorCode::InvalidNamedCapture, rest);
            };
            let capture = &rest[..end + 1];
            let name = &rest[expr_start..end];
            if name.is_empty() || !name.bytes().all(|c| c == b'_' || c.is_ascii_alphanumeric()) {
                return err(ErrorCode::InvalidNamedCapture, capture);
            }
            self.num_cap += 1;
            if let Some(id) = self.op(Op::LeftParen)? {
                self.m(id).cap = self.num_cap;
            }
            return Ok(t + end + 1);
        }
        let mut q = t + 2;
        let mut flags = self.flags;
        let mut sign = 1;
        let mut saw_flag = false;
        while q < s.len() {
            let (c, next) = next_rune(s, q);
            q = next;
            match u8::try_from(c).unwrap_or(0) {
                b'i' => {
                    flags |= FOLD_CASE;
                    saw_flag = true;
                }
                b'm' => {
                    flags &= !ONE_LINE;
                    saw_flag = true;
                }
                b's' => {
                    flags |= DOT_NL;
                    saw_flag = true;
                }
                b'U' => {
                    flags |= NON_GREEDY;
                    saw_flag = true;
                }
                b'-' => {
                    if sign < 0 {
                        break;
                    }
                    sign = -1;
                    // Inverted, so that setting a flag clears it.
                    flags = !flags;
                    saw_flag = false;
                }
                c @ (b':' | b')') => {
                    if sign < 0 {
                        if !saw_flag {
                            break;
                        }
                        flags = !flags;
                    }
                    if c == b':' {
                        self.op(Op::LeftParen)?;
                    }
                    self.flags = flags;
                    return Ok(q);
                }
                _ => break,
            }
        }
        err(ErrorCode::InvalidPerlOp, &s[t..q])
    }

    /// A single-rune escape at `t` (`parseEscape`).
    fn parse_escape(&self, t: usize) -> PResult<(i32, usize)> {
        let s = self.s;
        let b = s.as_bytes();
        if t + 1 >= s.len() {
            return err(ErrorCode::TrailingBackslash, "");
        }
        let (c, mut q) = next_rune(s, t + 1);
        let octal = |q: usize| b.get(q).is_some_and(|d| (b'0'..=b'7').contains(d));
        let invalid = |q: usize| err(ErrorCode::InvalidEscape, &s[t..q]);
        let simple = match u8::try_from(c).unwrap_or(0xff) {
            d @ b'1'..=b'7' if !octal(q) => {
                // A backreference: not supported.
                let _ = d;
                return invalid(q);
            }
            d @ b'0'..=b'7' => {
                let mut r = i32::from(d - b'0');
                for _ in 1..3 {
                    if !octal(q) {
                        break;
                    }
                    r = r * 8 + i32::from(b[q] - b'0');
                    q += 1;
                }
                return Ok((r, q));
            }
            b'x' => {
                if q >= s.len() {
                    return invalid(q);
                }
                let (c, next) = next_rune(s, q);
                q = next;
                if c == '{' as i32 {
                    let mut nhex = 0;
                    let mut r = 0;
                    loop {
                        if q >= s.len() {
                            return invalid(q);
                        }
                        let (c, next) = next_rune(s, q);
                        q = next;
                        if c == '}' as i32 {
                            break;
                        }
                        let v = unhex(c);
                        if v < 0 {
                            return invalid(q);
                        }
                        r = r * 16 + v;
                        if r > MAX_RUNE {
                            return invalid(q);
                        }
                        nhex += 1;
                    }
                    if nhex == 0 {
                        return invalid(q);
                    }
                    return Ok((r, q));
                }
                let x = unhex(c);
                let (c, next) = next_rune(s, q);
                q = next;
                let y = unhex(c);
                if x < 0 || y < 0 {
                    return invalid(q);
                }
                return Ok((x * 16 + y, q));
            }
            b'a' => 7,
            b'f' => 12,
            b'n' => 10,
            b'r' => 13,
            b't' => 9,
            b'v' => 11,
            _ if c < 0x80 && !is_alnum(c) => c,
            _ => return invalid(q),
        };
        Ok((simple, q))
    }

    /// A class character at `t` of the class opened at `class_start`
    /// (`parseClassChar`).
    fn parse_class_char(&self, t: usize, class_start: usize) -> PResult<(i32, usize)> {
        let s = self.s;
        match s.as_bytes().get(t) {
            None => err(ErrorCode::MissingBracket, &s[class_start..]),
            Some(b'\\') => self.parse_escape(t),
            Some(_) => Ok(next_rune(s, t)),
        }
    }

    /// `\d` and friends at `t`, appended to `r` (`parsePerlClassEscape`).
    fn parse_perl_class_escape(&self, t: usize, r: &mut Vec<i32>) -> Option<usize> {
        let g = perl_group(self.s.as_bytes().get(t..t + 2)?)?;
        self.append_group(r, g);
        Some(t + 2)
    }

    /// `[:alpha:]` at `t`, appended to `r` (`parseNamedClass`).
    fn parse_named_class(&self, t: usize, r: &mut Vec<i32>) -> PResult<Option<usize>> {
        let s = self.s;
        let rest = &s[t..];
        if !rest.starts_with("[:") {
            return Ok(None);
        }
        let Some(i) = rest[2..].find(":]") else {
            return Ok(None);
        };
        let name = &rest[..i + 4];
        let Some(g) = posix_group(name) else {
            return err(ErrorCode::InvalidCharRange, name);
        };
        self.append_group(r, g);
        Ok(Some(t + i + 4))
    }

    fn append_group(&self, r: &mut Vec<i32>, (sign, class): (i32, &[i32])) {
        let folded;
        let class = if self.flags & FOLD_CASE != 0 {
            folded = {
                let mut tmp = Vec::new();
                append_folded_class(&mut tmp, class);
                clean_class(&mut tmp);
                tmp
            };
            &folded[..]
        } else {
            class
        };
        if sign < 0 {
            append_negated_class(r, class);
        } else {
            append_class(r, class);
        }
    }

    /// `\pN`, `\p{Name}`, `\PN`, `\P{^Name}` at `t`, appended to `r`
    /// (`parseUnicodeClass`).
    fn parse_unicode_class(&self, t: usize, r: &mut Vec<i32>) -> PResult<Option<usize>> {
        let s = self.s;
        let b = s.as_bytes();
        if b.get(t) != Some(&b'\\') || !matches!(b.get(t + 1), Some(b'p' | b'P')) {
            return Ok(None);
        }
        let mut sign = if b[t + 1] == b'P' { -1 } else { 1 };
        let (c, next) = next_rune(s, t + 2);
        let (seq_end, mut name) = if c != '{' as i32 {
            (next, &s[t + 2..next])
        } else {
            let Some(end) = s[t..].find('}') else {
                return err(ErrorCode::InvalidCharRange, &s[t..]);
            };
            (t + end + 1, &s[t + 3..t + end])
        };
        if let Some(rest) = name.strip_prefix('^') {
            sign = -sign;
            name = rest;
        }
        let Some((table, table_sign)) = unicode_table(name) else {
            return err(ErrorCode::InvalidCharRange, &s[t..seq_end]);
        };
        if table_sign < 0 {
            sign = -sign;
        }
        let folded;
        let class = if self.flags & FOLD_CASE != 0 {
            folded = fold_closure(&table);
            &folded[..]
        } else {
            &table[..]
        };
        if sign > 0 {
            append_class(r, class);
        } else {
            append_negated_class(r, class);
        }
        Ok(Some(seq_end))
    }

    /// A bracketed class at `t` (`parseClass`); pushes it.
    fn parse_class(&mut self, start: usize) -> PResult<usize> {
        let s = self.s;
        let b = s.as_bytes();
        let mut t = start + 1;
        let id = self.new_regexp(Op::CharClass);
        self.m(id).flags = self.flags;
        let mut class = Vec::new();
        let mut sign = 1;
        if b.get(t) == Some(&b'^') {
            sign = -1;
            t += 1;
            if self.flags & CLASS_NL == 0 {
                class.extend(['\n' as i32, '\n' as i32]);
            }
        }
        let mut first = true;
        while t >= b.len() || b[t] != b']' || first {
            first = false;
            if b.len() - t.min(b.len()) > 2
                && b[t] == b'['
                && b[t + 1] == b':'
                && let Some(next) = self.parse_named_class(t, &mut class)?
            {
                t = next;
                continue;
            }
            if let Some(next) = self.parse_unicode_class(t, &mut class)? {
                t = next;
                continue;
            }
            if let Some(next) = self.parse_perl_class_escape(t, &mut class) {
                t = next;
                continue;
            }
            let range_start = t;
            let (lo, next) = self.parse_class_char(t, start)?;
            t = next;
            let mut hi = lo;
            if b.len() - t.min(b.len()) >= 2 && b[t] == b'-' && b[t + 1] != b']' {
                let (h, next) = self.parse_class_char(t + 1, start)?;
                t = next;
                hi = h;
                if hi < lo {
                    return err(ErrorCode::InvalidCharRange, &s[range_start..t]);
                }
            }
            if self.flags & FOLD_CASE == 0 {
                append_range(&mut class, lo, hi);
            } else {
                append_folded_range(&mut class, lo, hi);
            }
        }
        t += 1;
        clean_class(&mut class);
        if sign < 0 {
            class = negate_class(&class);
        }
        self.m(id).rune = class;
        self.push(id)?;
        Ok(t)
    }
}

/// A decimal count at `at` without leading zeros (`parseInt`): the value
/// (-1 when 1e8 or more) and the offset after the digits.
fn parse_int(b: &[u8], at: usize) -> Option<(i32, usize)> {
    let digits = b
        .get(at..)?
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if digits == 0 || (digits >= 2 && b[at] == b'0') {
        return None;
    }
    let mut n: i32 = 0;
    for &d in &b[at..at + digits] {
        if n >= 100_000_000 {
            n = -1;
            break;
        }
        n = n * 10 + i32::from(d - b'0');
    }
    Some((n, at + digits))
}

/// Appends `x`, folded when `flags` says so (`appendLiteral`).
fn append_literal(r: &mut Vec<i32>, x: i32, flags: u16) {
    if flags & FOLD_CASE != 0 {
        append_folded_range(r, x, x);
    } else {
        append_range(r, x, x);
    }
}
