//! `--decl name:type`: variable declarations with types written as cel-go
//! prints them (`int`, `list(string)`, `map(string, dyn)`, `optional_type(int)`).

use cel::Type;

/// Types nest; a declaration deeper than this is refused.
const MAX_DEPTH: usize = 32;

/// Parses `name:type`.
pub fn parse_decl(text: &str) -> Result<(String, Type), String> {
    let (name, t) = text.split_once(':').ok_or_else(|| {
        format!("--decl {text:?}: expected name:type (e.g. self:map(string, dyn))")
    })?;
    let name = name.trim();
    if !is_name(name) {
        return Err(format!("--decl {text:?}: {name:?} is not a variable name"));
    }
    let t = parse_type(t).map_err(|e| format!("--decl {text:?}: {e}"))?;
    Ok((name.to_string(), t))
}

/// A (possibly dotted) identifier.
fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// Parses a type.
pub fn parse_type(text: &str) -> Result<Type, String> {
    let mut p = TypeParser { text, pos: 0 };
    let t = p.parse(0)?;
    p.skip_space();
    if p.pos != text.len() {
        return Err(format!("unexpected {:?} in type {text:?}", &text[p.pos..]));
    }
    Ok(t)
}

struct TypeParser<'a> {
    text: &'a str,
    /// Byte offset; always on a char boundary (only ASCII is consumed).
    pos: usize,
}

impl TypeParser<'_> {
    fn skip_space(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        if self.text[self.pos..].starts_with(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn name(&mut self) -> &str {
        self.skip_space();
        let rest = &self.text[self.pos..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(rest.len());
        self.pos += len;
        &rest[..len]
    }

    fn parse(&mut self, depth: usize) -> Result<Type, String> {
        if depth > MAX_DEPTH {
            return Err(format!("type nested deeper than {MAX_DEPTH}"));
        }
        let name = self.name().to_string();
        if name.is_empty() {
            return Err(format!("expected a type name in {:?}", self.text));
        }
        let mut params = Vec::new();
        if self.eat('(') {
            loop {
                params.push(self.parse(depth + 1)?);
                if self.eat(')') {
                    break;
                }
                if !self.eat(',') {
                    return Err(format!("expected ',' or ')' in type {:?}", self.text));
                }
            }
        }
        build(&name, params)
    }
}

fn build(name: &str, params: Vec<Type>) -> Result<Type, String> {
    let scalar = match name {
        "int" => Some(Type::Int),
        "uint" => Some(Type::Uint),
        "double" => Some(Type::Double),
        "bool" => Some(Type::Bool),
        "string" => Some(Type::String),
        "bytes" => Some(Type::Bytes),
        "null_type" => Some(Type::Null),
        "dyn" => Some(Type::Dyn),
        "any" | "google.protobuf.Any" => Some(Type::Any),
        "timestamp" | "google.protobuf.Timestamp" => Some(Type::Timestamp),
        "duration" | "google.protobuf.Duration" => Some(Type::Duration),
        "type" if params.is_empty() => Some(Type::Type(None)),
        _ => None,
    };
    let arity = match name {
        _ if scalar.is_some() => 0,
        "list" | "optional_type" | "type" => 1,
        "map" => 2,
        other => return Err(format!("unknown type {other:?}")),
    };
    if params.len() != arity {
        return Err(format!(
            "{name} takes {arity} type parameter(s), got {}",
            params.len()
        ));
    }
    if let Some(t) = scalar {
        return Ok(t);
    }
    let mut ps = params.into_iter();
    let mut next = || ps.next().unwrap_or(Type::Dyn);
    Ok(match name {
        "list" => Type::list(next()),
        "optional_type" => Type::optional(next()),
        "type" => Type::type_of(next()),
        _ => {
            let key = next();
            Type::map(key, next())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nested_types() {
        let (name, t) = parse_decl("self: map(string, list(optional_type(int)))").unwrap();
        assert_eq!(name, "self");
        assert_eq!(
            t,
            Type::map(Type::String, Type::list(Type::optional(Type::Int)))
        );
        assert_eq!(
            parse_type("google.protobuf.Timestamp").unwrap(),
            Type::Timestamp
        );
        assert_eq!(parse_type("type").unwrap(), Type::Type(None));
    }

    #[test]
    fn rejects_bad_declarations() {
        for bad in [
            "self",
            ":int",
            "1x:int",
            "x:list",
            "x:map(int)",
            "x:int(",
            "x:foo",
            "x:int)",
        ] {
            assert!(parse_decl(bad).is_err(), "{bad} accepted");
        }
        let deep = format!("x:{}int{}", "list(".repeat(100), ")".repeat(100));
        assert!(parse_decl(&deep).is_err());
    }
}
