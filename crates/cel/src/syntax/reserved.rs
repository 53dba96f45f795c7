//! CEL's reserved words (the language definition's `RESERVED`): the literals
//! `true`, `false`, `null` and the operator `in`, which the lexer reads as
//! their own tokens, and the words reserved for embedding CEL in host
//! languages, which the parser rejects as identifiers
//! (`reserved identifier: <word>`).
//!
//! Hosts use the same list to name things CEL can reach: Kubernetes escapes a
//! schema property named like a reserved word as `__<word>__`, and policy
//! environments check variable names against it.

/// Every CEL reserved word, sorted.
pub const RESERVED_WORDS: [&str; 21] = [
    "as",
    "break",
    "const",
    "continue",
    "else",
    "false",
    "for",
    "function",
    "if",
    "import",
    "in",
    "let",
    "loop",
    "namespace",
    "null",
    "package",
    "return",
    "true",
    "var",
    "void",
    "while",
];

/// The first letters of the reserved words, a bit per letter from `a`.
const RESERVED_FIRST: u32 = {
    let mut bits = 0;
    let mut i = 0;
    while i < RESERVED_WORDS.len() {
        bits |= 1 << (RESERVED_WORDS[i].as_bytes()[0] - b'a');
        i += 1;
    }
    bits
};

/// Whether `word` is a CEL reserved word. A `match` (compiled to a switch on
/// length, then one comparison) rather than a search of [`RESERVED_WORDS`]:
/// the parser asks for every identifier; the test below keeps both equal.
#[inline]
pub fn is_reserved_word(word: &str) -> bool {
    // Most identifiers start with a letter no reserved word starts with:
    // told inline, without the call.
    match word.as_bytes().first() {
        Some(&b @ b'a'..=b'z') if RESERVED_FIRST >> (b - b'a') & 1 != 0 => is_listed(word),
        _ => false,
    }
}

/// Whether `word` is one of [`RESERVED_WORDS`].
fn is_listed(word: &str) -> bool {
    matches!(
        word,
        "as" | "break"
            | "const"
            | "continue"
            | "else"
            | "false"
            | "for"
            | "function"
            | "if"
            | "import"
            | "in"
            | "let"
            | "loop"
            | "namespace"
            | "null"
            | "package"
            | "return"
            | "true"
            | "var"
            | "void"
            | "while"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_is_sorted_and_complete() {
        assert!(RESERVED_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(RESERVED_WORDS.iter().all(|w| is_reserved_word(w)));
        let matched = RESERVED_WORDS
            .iter()
            .flat_map(|w| [w.to_string(), format!("{w}x"), w[1..].to_string()])
            .filter(|w| is_reserved_word(w))
            .count();
        assert_eq!(matched, RESERVED_WORDS.len());
        for w in ["true", "in", "namespace", "while", "as"] {
            assert!(is_reserved_word(w), "{w}");
        }
        for w in ["", "int", "has", "size", "True", "nul", "whilex"] {
            assert!(!is_reserved_word(w), "{w}");
        }
    }
}
