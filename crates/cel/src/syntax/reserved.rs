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

/// Whether `word` is a CEL reserved word.
pub fn is_reserved_word(word: &str) -> bool {
    RESERVED_WORDS.binary_search(&word).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_is_sorted_and_complete() {
        assert!(RESERVED_WORDS.windows(2).all(|w| w[0] < w[1]));
        for w in ["true", "in", "namespace", "while", "as"] {
            assert!(is_reserved_word(w), "{w}");
        }
        for w in ["", "int", "has", "size", "True", "nul", "whilex"] {
            assert!(!is_reserved_word(w), "{w}");
        }
    }
}
