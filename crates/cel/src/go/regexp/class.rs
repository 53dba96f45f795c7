//! Character classes as Go's `regexp/syntax` builds them (`parse.go`:
//! `appendRange`, `cleanClass`, `negateClass`, `appendFoldedRange`, ...,
//! and the groups of `perl_groups.go`): a class is a flat list of rune pairs
//! `lo, hi`. Unicode tables and simple case folding come from `regex-syntax`.

use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange, HirKind};

use super::unicode_names::{CATEGORIES, CATEGORY_ALIASES, SCRIPTS};

/// Go's `unicode.MaxRune`.
pub(super) const MAX_RUNE: i32 = 0x10FFFF;

/// Appends `lo-hi`, widening the last or next-to-last range when it overlaps
/// or abuts (`appendRange`).
pub(super) fn append_range(r: &mut Vec<i32>, lo: i32, hi: i32) {
    let n = r.len();
    for i in [2, 4] {
        if n >= i {
            let (rlo, rhi) = (r[n - i], r[n - i + 1]);
            if lo <= rhi + 1 && rlo <= hi + 1 {
                r[n - i] = rlo.min(lo);
                r[n - i + 1] = rhi.max(hi);
                return;
            }
        }
    }
    r.push(lo);
    r.push(hi);
}

/// Sorts the ranges (lo ascending, hi descending) and merges overlapping or
/// abutting ones (`cleanClass`).
pub(super) fn clean_class(r: &mut Vec<i32>) {
    let mut pairs: Vec<(i32, i32)> = r.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    pairs.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    r.clear();
    for (lo, hi) in pairs {
        match r.last_mut() {
            Some(last) if lo <= *last + 1 => *last = (*last).max(hi),
            _ => {
                r.push(lo);
                r.push(hi);
            }
        }
    }
}

/// The complement of a clean class (`negateClass`).
pub(super) fn negate_class(r: &[i32]) -> Vec<i32> {
    let mut out = Vec::with_capacity(r.len() + 2);
    append_negated_class(&mut out, r);
    out
}

/// Appends every range of the clean class `x` (`appendClass`).
pub(super) fn append_class(r: &mut Vec<i32>, x: &[i32]) {
    for p in x.chunks_exact(2) {
        append_range(r, p[0], p[1]);
    }
}

/// Appends the complement of the clean class `x` (`appendNegatedClass`).
pub(super) fn append_negated_class(r: &mut Vec<i32>, x: &[i32]) {
    let mut next_lo = 0;
    for p in x.chunks_exact(2) {
        if next_lo < p[0] {
            append_range(r, next_lo, p[0] - 1);
        }
        next_lo = p[1] + 1;
    }
    if next_lo <= MAX_RUNE {
        append_range(r, next_lo, MAX_RUNE);
    }
}

/// Appends `lo-hi` and every rune in the simple-folding orbit of each of its
/// runes (`appendFoldedRange`, `unicode.SimpleFold`).
pub(super) fn append_folded_range(r: &mut Vec<i32>, lo: i32, hi: i32) {
    for p in fold_closure(&[lo, hi]).chunks_exact(2) {
        append_range(r, p[0], p[1]);
    }
}

/// Appends the case folding of the clean class `x` (`appendFoldedClass`).
pub(super) fn append_folded_class(r: &mut Vec<i32>, x: &[i32]) {
    for p in fold_closure(x).chunks_exact(2) {
        append_range(r, p[0], p[1]);
    }
}

/// The clean class of `x` closed under simple case folding.
pub(super) fn fold_closure(x: &[i32]) -> Vec<i32> {
    let mut class = to_unicode_class(x);
    // The tables are compiled in (regex-syntax's `unicode-case`); without
    // them the class stays as it is.
    let _ = class.try_case_fold_simple();
    let mut out = from_unicode_class(&class);
    // Surrogates are runes in Go but not `char`s: kept as given.
    for p in x.chunks_exact(2) {
        let (lo, hi) = (p[0].max(0xD800), p[1].min(0xDFFF));
        if lo <= hi {
            out.push(lo);
            out.push(hi);
        }
    }
    clean_class(&mut out);
    out
}

/// The `char` ranges of a rune class (surrogates, which no string holds,
/// dropped).
pub(super) fn to_unicode_class(x: &[i32]) -> ClassUnicode {
    let mut ranges = Vec::with_capacity(x.len() / 2 + 1);
    let ch = |r: i32| u32::try_from(r).ok().and_then(char::from_u32);
    for p in x.chunks_exact(2) {
        let (lo, hi) = (p[0], p[1]);
        for (a, b) in [(lo, hi.min(0xD7FF)), (lo.max(0xE000), hi)] {
            if let (true, Some(a), Some(b)) = (a <= b, ch(a), ch(b)) {
                ranges.push(ClassUnicodeRange::new(a, b));
            }
        }
    }
    ClassUnicode::new(ranges)
}

fn from_unicode_class(c: &ClassUnicode) -> Vec<i32> {
    let mut out = Vec::with_capacity(c.ranges().len() * 2);
    for r in c.iter() {
        append_range(&mut out, r.start() as i32, r.end() as i32);
    }
    out
}

/// A Perl or POSIX group: sign (`-1` negated) and its clean class.
pub(super) type Group = (i32, &'static [i32]);

const DIGIT: &[i32] = &[0x30, 0x39];
const SPACE: &[i32] = &[0x9, 0xa, 0xc, 0xd, 0x20, 0x20];
const WORD: &[i32] = &[0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];

/// `\d`, `\D`, `\s`, `\S`, `\w`, `\W` (ASCII only, `perlGroup`).
pub(super) fn perl_group(escape: &[u8]) -> Option<Group> {
    Some(match escape {
        b"\\d" => (1, DIGIT),
        b"\\D" => (-1, DIGIT),
        b"\\s" => (1, SPACE),
        b"\\S" => (-1, SPACE),
        b"\\w" => (1, WORD),
        b"\\W" => (-1, WORD),
        _ => return None,
    })
}

/// `[:alpha:]`, `[:^alpha:]`, ... (`posixGroup`).
pub(super) fn posix_group(name: &str) -> Option<Group> {
    let (sign, base) = match name.strip_prefix("[:^") {
        Some(rest) => (-1, rest),
        None => (1, name.strip_prefix("[:")?),
    };
    let class: &'static [i32] = match base.strip_suffix(":]")? {
        "alnum" => &[0x30, 0x39, 0x41, 0x5a, 0x61, 0x7a],
        "alpha" => &[0x41, 0x5a, 0x61, 0x7a],
        "ascii" => &[0x0, 0x7f],
        "blank" => &[0x9, 0x9, 0x20, 0x20],
        "cntrl" => &[0x0, 0x1f, 0x7f, 0x7f],
        "digit" => DIGIT,
        "graph" => &[0x21, 0x7e],
        "lower" => &[0x61, 0x7a],
        "print" => &[0x20, 0x7e],
        "punct" => &[0x21, 0x2f, 0x3a, 0x40, 0x5b, 0x60, 0x7b, 0x7e],
        "space" => &[0x9, 0xd, 0x20, 0x20],
        "upper" => &[0x41, 0x5a],
        "word" => WORD,
        "xdigit" => &[0x30, 0x39, 0x41, 0x46, 0x61, 0x66],
        _ => return None,
    };
    Some((sign, class))
}

/// Go's lookup key for a property name (`canonicalName`): first letter upper
/// case, the rest lower case, `_`, `-` and spaces dropped.
fn canonical_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut first = true;
    for c in name.bytes() {
        match c {
            b'_' | b'-' | b' ' => {}
            _ if first => {
                first = false;
                out.push(c.to_ascii_uppercase() as char);
            }
            _ => out.push(c.to_ascii_lowercase() as char),
        }
    }
    // Bytes of multi-byte characters were pushed one by one as Latin-1;
    // such a name matches no table anyway.
    out
}

/// The clean class a `\p{name}` denotes and its sign (`unicodeTable`), or
/// `None` when Go knows no such name. Folding is applied by the caller.
/// Names match as Go's `canonicalName` makes them match: case, `_`, `-`
/// and spaces aside.
pub(super) fn unicode_table(name: &str) -> Option<(Vec<i32>, i32)> {
    let name = canonical_name(name);
    let table = |prop: &str| property_class(prop);
    match name.as_str() {
        "Any" => return Some((vec![0, MAX_RUNE], 1)),
        "Assigned" => return Some((table("Cn")?, -1)),
        "Ascii" => return Some((vec![0, 0x7f], 1)),
        "Lc" => return Some((table("LC")?, 1)),
        _ => {}
    }
    if let Some(cat) = CATEGORIES.iter().find(|c| **c == name) {
        return Some((table(cat)?, 1));
    }
    if let Some(script) = SCRIPTS.iter().find(|s| **s == name) {
        return Some((table(script)?, 1));
    }
    if let Some((_, actual)) = CATEGORY_ALIASES
        .iter()
        .find(|(alias, _)| canonical_name(alias) == name)
    {
        return Some((table(actual)?, 1));
    }
    // Script names match loosely too (`Old_Italic` as `olditalic`).
    let script = SCRIPTS.iter().find(|s| canonical_name(s) == name)?;
    Some((table(script)?, 1))
}

/// A general category or script as a clean class, from `regex-syntax`'s
/// tables (which leave out the surrogates, `char`s being none).
fn property_class(prop: &str) -> Option<Vec<i32>> {
    if prop == "Cs" {
        // Go's table of surrogates, which regex-syntax does not have.
        return Some(vec![0xD800, 0xDFFF]);
    }
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(&format!("\\p{{{prop}}}"))
        .ok()?;
    match hir.kind() {
        HirKind::Class(regex_syntax::hir::Class::Unicode(c)) => Some(from_unicode_class(c)),
        // A one-character class (`Zl`) comes back as a literal.
        HirKind::Literal(lit) => {
            let mut out = Vec::new();
            for c in std::str::from_utf8(&lit.0).ok()?.chars() {
                append_range(&mut out, c as i32, c as i32);
            }
            Some(out)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_and_negate() {
        let mut r = vec![b'c' as i32, b'd' as i32, b'a' as i32, b'b' as i32, 5, 5];
        clean_class(&mut r);
        assert_eq!(r, [5, 5, 0x61, 0x64]);
        assert_eq!(negate_class(&r), [0, 4, 6, 0x60, 0x65, MAX_RUNE]);
    }

    #[test]
    fn folding_follows_simple_fold_orbits() {
        // k, K and the Kelvin sign; s, S and the long s.
        assert_eq!(
            fold_closure(&[0x6b, 0x6b]),
            [0x4b, 0x4b, 0x6b, 0x6b, 0x212a, 0x212a]
        );
        assert_eq!(
            fold_closure(&[0x73, 0x73]),
            [0x53, 0x53, 0x73, 0x73, 0x17f, 0x17f]
        );
    }

    #[test]
    fn property_names_as_go_resolves_them() {
        assert!(unicode_table("Greek").is_some());
        assert!(unicode_table("greek").is_some());
        assert!(unicode_table("Letter").is_some());
        assert!(unicode_table("Klingon").is_none());
        assert_eq!(unicode_table("Zl"), Some((vec![0x2028, 0x2028], 1)));
    }
}
