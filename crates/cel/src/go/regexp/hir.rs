//! Go's parse tree as a `regex-syntax` `Hir`, with Go's meaning made
//! explicit: classes are already Go's (ASCII `\w`, `\d`, `\s`; folding
//! applied by the parser), folded literals become their folding orbits,
//! `\b` is ASCII, `^`/`$` are text anchors unless `(?m)`, and capture groups
//! are dropped (only whole matches are reported).

use regex_syntax::hir::{Class, Hir, Look, Repetition};

use super::class::{fold_closure, to_unicode_class};
use super::parse::{FOLD_CASE, Id, NON_GREEDY, Op, Tree};

/// The `Hir` of `tree`. Recursion is bounded by Go's height limit (1000).
pub(super) fn to_hir(tree: &Tree) -> Hir {
    node(tree, tree.root)
}

fn class(runes: &[i32]) -> Hir {
    Hir::class(Class::Unicode(to_unicode_class(runes)))
}

fn node(tree: &Tree, id: Id) -> Hir {
    let n = &tree.nodes[id];
    let subs = || n.sub.iter().map(|&s| node(tree, s)).collect::<Vec<_>>();
    let rep = |min: u32, max: Option<u32>| {
        Hir::repetition(Repetition {
            min,
            max,
            greedy: n.flags & NON_GREEDY == 0,
            sub: Box::new(node(tree, n.sub[0])),
        })
    };
    match n.op {
        Op::NoMatch | Op::LeftParen | Op::VerticalBar => Hir::fail(),
        Op::EmptyMatch => Hir::empty(),
        Op::Literal if n.flags & FOLD_CASE != 0 => Hir::concat(
            n.rune
                .iter()
                .map(|&r| class(&fold_closure(&[r, r])))
                .collect(),
        ),
        Op::Literal => {
            let mut text = String::with_capacity(n.rune.len());
            for &r in &n.rune {
                match u32::try_from(r).ok().and_then(char::from_u32) {
                    Some(c) => text.push(c),
                    // A surrogate: no UTF-8 text holds it.
                    None => return Hir::fail(),
                }
            }
            Hir::literal(text.into_bytes())
        }
        Op::CharClass => class(&n.rune),
        Op::AnyCharNotNL => class(&[0, '\n' as i32 - 1, '\n' as i32 + 1, 0x10FFFF]),
        Op::AnyChar => class(&[0, 0x10FFFF]),
        Op::BeginLine => Hir::look(Look::StartLF),
        Op::EndLine => Hir::look(Look::EndLF),
        Op::BeginText => Hir::look(Look::Start),
        Op::EndText => Hir::look(Look::End),
        Op::WordBoundary => Hir::look(Look::WordAscii),
        Op::NoWordBoundary => Hir::look(Look::WordAsciiNegate),
        Op::Capture => node(tree, n.sub[0]),
        Op::Star => rep(0, None),
        Op::Plus => rep(1, None),
        Op::Quest => rep(0, Some(1)),
        Op::Repeat => {
            let min = u32::try_from(n.min).unwrap_or(0);
            rep(min, u32::try_from(n.max).ok())
        }
        Op::Concat => Hir::concat(subs()),
        Op::Alternate => Hir::alternation(subs()),
    }
}
