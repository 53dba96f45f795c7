//! The naming rules of policy environments, and the mapping of resource
//! property names to CEL variable names.
//!
//! Sources (the API guideline on expressions):
//! * *Variables*: "Any context-specific data MUST be provided in variables
//!   which MUST be named in lower snake case." Dotted names (the standardized
//!   `destination.ip`, `request.time`, ...) are checked segment by segment.
//! * *Variables*, exception to the graph-fragment pattern: "If the property
//!   name is a CEL reserved identifier, it MUST be surrounded by
//!   double-underscores", e.g. `namespace` → `__namespace__`.
//! * *Additional functions*: "these functions MUST be named in lower camel
//!   case with any initialisms treated as words (e.g., `isAscii()`, not
//!   `isASCII()`)". Namespaced names (`net.ipInRange`) are checked segment by
//!   segment.

use std::borrow::Cow;

/// CEL's reserved identifiers (the language definition's `RESERVED`), and
/// the test for them: the parser's list.
pub use crate::syntax::{RESERVED_WORDS, is_reserved_word};

/// Is `name` one lower-snake-case word sequence: ASCII lower-case letters and
/// digits in words joined by single underscores, starting with a letter
/// (`source_ip`, `port2`; not `sourceIp`, `_x`, `a__b`, `x_`, `2x`)?
pub fn is_lower_snake_case(name: &str) -> bool {
    let mut words = name.split('_');
    let starts_with_letter = name.as_bytes().first().is_some_and(u8::is_ascii_lowercase);
    starts_with_letter
        && words.all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// Is `name` in lower camel case with initialisms treated as words: ASCII
/// letters and digits, starting with a lower-case letter, never two upper-case
/// letters in a row (`isAscii`, `getX`, `toV4`, `ipInRange`; not `isASCII`,
/// `IsAscii`, `is_ascii`).
pub fn is_lower_camel_case(name: &str) -> bool {
    let bytes = name.as_bytes();
    bytes.first().is_some_and(u8::is_ascii_lowercase)
        && bytes.iter().all(u8::is_ascii_alphanumeric)
        && !bytes
            .windows(2)
            .any(|w| w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase())
}

/// Why a variable or function name breaks the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameProblem {
    /// A segment is not lower snake case (variables) or lower camel case
    /// (functions).
    Case {
        /// The offending dot-separated part of the name.
        segment: String,
    },
    /// A segment is a reserved identifier: CEL would not parse the name.
    Reserved {
        /// The offending dot-separated part of the name.
        segment: String,
    },
}

/// Checks a variable name (possibly dotted): each segment lower snake case
/// and not reserved (reserved property names go through
/// [`property_variable_name`] instead).
pub fn check_variable_name(name: &str) -> Result<(), NameProblem> {
    for segment in name.split('.') {
        if is_reserved_word(segment) {
            return Err(NameProblem::Reserved {
                segment: segment.to_string(),
            });
        }
        if !is_lower_snake_case(segment) {
            return Err(NameProblem::Case {
                segment: segment.to_string(),
            });
        }
    }
    Ok(())
}

/// Checks an additional function's name (possibly namespaced): each segment
/// lower camel case and not reserved.
pub fn check_function_name(name: &str) -> Result<(), NameProblem> {
    for segment in name.split('.') {
        if is_reserved_word(segment) {
            return Err(NameProblem::Reserved {
                segment: segment.to_string(),
            });
        }
        if !is_lower_camel_case(segment) {
            return Err(NameProblem::Case {
                segment: segment.to_string(),
            });
        }
    }
    Ok(())
}

/// The CEL variable name of resource property `property`: the name itself,
/// or `__property__` when it is a reserved identifier (`namespace` →
/// `__namespace__`).
pub fn property_variable_name(property: &str) -> Cow<'_, str> {
    if is_reserved_word(property) {
        Cow::Owned(format!("__{property}__"))
    } else {
        Cow::Borrowed(property)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case() {
        for ok in ["a", "source_ip", "port2", "a1_b2_c3"] {
            assert!(is_lower_snake_case(ok), "{ok}");
        }
        for bad in ["", "sourceIp", "_x", "x_", "a__b", "2x", "A", "a-b", "é"] {
            assert!(!is_lower_snake_case(bad), "{bad}");
        }
    }

    #[test]
    fn camel_case() {
        for ok in ["isAscii", "getX", "toV4", "ipInRange", "f", "sha256"] {
            assert!(is_lower_camel_case(ok), "{ok}");
        }
        for bad in [
            "",
            "isASCII",
            "IsAscii",
            "is_ascii",
            "2x",
            "a.b",
            "ipV4XAddr",
        ] {
            assert!(!is_lower_camel_case(bad), "{bad}");
        }
    }

    #[test]
    fn reserved_properties() {
        assert_eq!(property_variable_name("namespace"), "__namespace__");
        assert_eq!(property_variable_name("in"), "__in__");
        assert_eq!(property_variable_name("name"), "name");
        assert_eq!(
            check_variable_name("request.namespace"),
            Err(NameProblem::Reserved {
                segment: "namespace".into()
            })
        );
        assert_eq!(check_variable_name("destination.ip"), Ok(()));
    }
}
