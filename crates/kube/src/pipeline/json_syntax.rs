//! The syntax check Go's `encoding/json` runs over a whole body before decoding it
//! (`encoding/json/scanner.go`: `checkValid` and the scanner's states), for its error texts:
//! `invalid character 'ï' looking for beginning of value` (a UTF-8 byte-order mark),
//! `unexpected end of JSON input`, `invalid character '}' after array element`, ...
//!
//! The scanner reads bytes, not characters: the character named is the offending byte read as a
//! Latin-1 code point (`quoteChar`). Nesting beyond Go's limit (10000) is an error, as in Go; the
//! state stack is the only allocation and that limit bounds it.

use crate::go::fmt::quote;

/// Go's `maxNestingDepth` (`encoding/json` `scanner.go`).
use super::decode::MAX_REQUEST_BODY_DEPTH as MAX_NESTING_DEPTH;

/// What the enclosing container expects next (Go's `parseObjectKey` & co.).
#[derive(Clone, Copy)]
enum Parse {
    ObjectKey,
    ObjectValue,
    ArrayValue,
}

/// The scanner's state: the step function Go would call for the next byte.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    BeginValue,
    BeginValueOrEmpty,
    BeginStringOrEmpty,
    BeginString,
    EndValue,
    EndTop,
    InString,
    InStringEsc,
    /// Inside `\u`, with this many hex digits read.
    InStringEscU(u8),
    Neg,
    One,
    Zero,
    Dot,
    Dot0,
    E,
    ESign,
    E0,
    /// Inside a literal: the rest still expected (`rue`, `ull`, ...) and the literal's name.
    Literal(&'static [u8], &'static str),
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

/// Go's `quoteChar`: the byte as a Latin-1 character in single quotes.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => r"'\''".to_string(),
        b'"' => "'\"'".to_string(),
        _ => {
            let q = quote(&char::from(c).to_string());
            let inner = q.get(1..q.len().saturating_sub(1)).unwrap_or("");
            format!("'{inner}'")
        }
    }
}

struct Scanner {
    state: State,
    stack: Vec<Parse>,
}

impl Scanner {
    fn error(c: u8, context: &str) -> String {
        format!("invalid character {} {context}", quote_char(c))
    }

    fn push(&mut self, c: u8, p: Parse, next: State) -> Result<(), String> {
        self.stack.push(p);
        if self.stack.len() > MAX_NESTING_DEPTH {
            return Err(Self::error(c, "exceeded max depth"));
        }
        self.state = next;
        Ok(())
    }

    fn pop(&mut self) {
        self.stack.pop();
        self.state = if self.stack.is_empty() {
            State::EndTop
        } else {
            State::EndValue
        };
    }

    fn begin_value(&mut self, c: u8) -> Result<(), String> {
        self.state = match c {
            _ if is_space(c) => return Ok(()),
            b'{' => return self.push(c, Parse::ObjectKey, State::BeginStringOrEmpty),
            b'[' => return self.push(c, Parse::ArrayValue, State::BeginValueOrEmpty),
            b'"' => State::InString,
            b'-' => State::Neg,
            b'0' => State::Zero,
            b'1'..=b'9' => State::One,
            b't' => State::Literal(b"rue", "true"),
            b'f' => State::Literal(b"alse", "false"),
            b'n' => State::Literal(b"ull", "null"),
            _ => return Err(Self::error(c, "looking for beginning of value")),
        };
        Ok(())
    }

    fn end_value(&mut self, c: u8) -> Result<(), String> {
        let Some(&top) = self.stack.last() else {
            self.state = State::EndTop;
            return self.step(c);
        };
        if is_space(c) {
            self.state = State::EndValue;
            return Ok(());
        }
        match (top, c) {
            (Parse::ObjectKey, b':') => {
                self.stack.pop();
                self.stack.push(Parse::ObjectValue);
                self.state = State::BeginValue;
            }
            (Parse::ObjectKey, _) => return Err(Self::error(c, "after object key")),
            (Parse::ObjectValue, b',') => {
                self.stack.pop();
                self.stack.push(Parse::ObjectKey);
                self.state = State::BeginString;
            }
            (Parse::ObjectValue, b'}') => self.pop(),
            (Parse::ObjectValue, _) => {
                return Err(Self::error(c, "after object key:value pair"));
            }
            (Parse::ArrayValue, b',') => self.state = State::BeginValue,
            (Parse::ArrayValue, b']') => self.pop(),
            (Parse::ArrayValue, _) => return Err(Self::error(c, "after array element")),
        }
        Ok(())
    }

    fn step(&mut self, c: u8) -> Result<(), String> {
        match self.state {
            State::BeginValue => self.begin_value(c),
            State::BeginValueOrEmpty => {
                if is_space(c) {
                    Ok(())
                } else if c == b']' {
                    self.end_value(c)
                } else {
                    self.begin_value(c)
                }
            }
            State::BeginStringOrEmpty => {
                if is_space(c) {
                    Ok(())
                } else if c == b'}' {
                    if let Some(top) = self.stack.last_mut() {
                        *top = Parse::ObjectValue;
                    }
                    self.end_value(c)
                } else {
                    self.state = State::BeginString;
                    self.step(c)
                }
            }
            State::BeginString => match c {
                _ if is_space(c) => Ok(()),
                b'"' => {
                    self.state = State::InString;
                    Ok(())
                }
                _ => Err(Self::error(c, "looking for beginning of object key string")),
            },
            State::EndValue => self.end_value(c),
            State::EndTop => {
                if is_space(c) {
                    Ok(())
                } else {
                    Err(Self::error(c, "after top-level value"))
                }
            }
            State::InString => {
                match c {
                    b'"' => self.state = State::EndValue,
                    b'\\' => self.state = State::InStringEsc,
                    0..0x20 => return Err(Self::error(c, "in string literal")),
                    _ => {}
                }
                Ok(())
            }
            State::InStringEsc => {
                self.state = match c {
                    b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => State::InString,
                    b'u' => State::InStringEscU(0),
                    _ => return Err(Self::error(c, "in string escape code")),
                };
                Ok(())
            }
            State::InStringEscU(n) => {
                if !c.is_ascii_hexdigit() {
                    return Err(Self::error(c, "in \\u hexadecimal character escape"));
                }
                self.state = if n == 3 {
                    State::InString
                } else {
                    State::InStringEscU(n + 1)
                };
                Ok(())
            }
            State::Neg => {
                self.state = match c {
                    b'0' => State::Zero,
                    b'1'..=b'9' => State::One,
                    _ => return Err(Self::error(c, "in numeric literal")),
                };
                Ok(())
            }
            State::One if c.is_ascii_digit() => Ok(()),
            State::One | State::Zero => match c {
                b'.' => {
                    self.state = State::Dot;
                    Ok(())
                }
                b'e' | b'E' => {
                    self.state = State::E;
                    Ok(())
                }
                _ => self.end_value(c),
            },
            State::Dot => {
                if !c.is_ascii_digit() {
                    return Err(Self::error(c, "after decimal point in numeric literal"));
                }
                self.state = State::Dot0;
                Ok(())
            }
            State::Dot0 => match c {
                _ if c.is_ascii_digit() => Ok(()),
                b'e' | b'E' => {
                    self.state = State::E;
                    Ok(())
                }
                _ => self.end_value(c),
            },
            State::E if matches!(c, b'+' | b'-') => {
                self.state = State::ESign;
                Ok(())
            }
            State::E | State::ESign => {
                if !c.is_ascii_digit() {
                    return Err(Self::error(c, "in exponent of numeric literal"));
                }
                self.state = State::E0;
                Ok(())
            }
            State::E0 if c.is_ascii_digit() => Ok(()),
            State::E0 => self.end_value(c),
            State::Literal(rest, name) => {
                let Some((&want, more)) = rest.split_first() else {
                    return self.end_value(c);
                };
                if c != want {
                    let context = format!("in literal {name} (expecting {})", quote_char(want));
                    return Err(Self::error(c, &context));
                }
                self.state = if more.is_empty() {
                    State::EndValue
                } else {
                    State::Literal(more, name)
                };
                Ok(())
            }
        }
    }
}

/// Go's `checkValid`: `None` when `data` is one well-formed JSON value (with surrounding
/// white space), else the error `json.Unmarshal` would return.
pub fn check(data: &[u8]) -> Option<String> {
    let mut s = Scanner {
        state: State::BeginValue,
        stack: Vec::new(),
    };
    for &c in data {
        if let Err(e) = s.step(c) {
            return Some(e);
        }
    }
    // Go's `eof`: a final space ends a number or a literal that has no closing byte.
    if s.state == State::EndTop {
        return None;
    }
    match s.step(b' ') {
        Err(e) => Some(e),
        Ok(()) if s.state == State::EndTop => None,
        Ok(()) => Some("unexpected end of JSON input".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn valid_values() {
        for ok in [
            "{}",
            " [ ] ",
            r#"{"a":[1,-0.5e+3,true,false,null,"x\u00e9\n"]}"#,
            "0",
            "12",
            "-1.5E7 \n",
            "null",
        ] {
            assert_eq!(check(ok.as_bytes()), None, "{ok}");
        }
    }

    #[test]
    fn go_error_texts() {
        for (bad, want) in [
            (
                "\u{feff}{}",
                "invalid character 'ï' looking for beginning of value",
            ),
            ("", "unexpected end of JSON input"),
            ("{\"a\":1", "unexpected end of JSON input"),
            (
                "tru",
                "invalid character ' ' in literal true (expecting 'e')",
            ),
            ("[1}", "invalid character '}' after array element"),
            ("{\"a\" 1}", "invalid character '1' after object key"),
            (
                "{\"a\":1 \"b\"}",
                "invalid character '\"' after object key:value pair",
            ),
            (
                "{1:2}",
                "invalid character '1' looking for beginning of object key string",
            ),
            ("{} x", "invalid character 'x' after top-level value"),
            ("\"a\u{1}\"", "invalid character '\\x01' in string literal"),
            ("\"\\q\"", "invalid character 'q' in string escape code"),
            (
                "\"\\u12g4\"",
                "invalid character 'g' in \\u hexadecimal character escape",
            ),
            ("-a", "invalid character 'a' in numeric literal"),
            (
                "1.e3",
                "invalid character 'e' after decimal point in numeric literal",
            ),
            (
                "1e+",
                "invalid character ' ' in exponent of numeric literal",
            ),
            (
                "1ex",
                "invalid character 'x' in exponent of numeric literal",
            ),
            (
                "nul1",
                "invalid character '1' in literal null (expecting 'l')",
            ),
            (
                "fals",
                "invalid character ' ' in literal false (expecting 'e')",
            ),
            (
                "'a'",
                r"invalid character '\'' looking for beginning of value",
            ),
            ("01", "invalid character '1' after top-level value"),
        ] {
            assert_eq!(check(bad.as_bytes()).as_deref(), Some(want), "{bad:?}");
        }
        // A byte that is not a character: Go names its Latin-1 code point.
        assert_eq!(
            check(b"[\x85]").as_deref(),
            Some("invalid character '\\u0085' looking for beginning of value")
        );
    }

    #[test]
    fn nesting_is_bounded_as_in_go() {
        let deep = "[".repeat(10_001);
        assert_eq!(
            check(deep.as_bytes()).as_deref(),
            Some("invalid character '[' exceeded max depth")
        );
        let ok = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(check(ok.as_bytes()), None);
    }
}
