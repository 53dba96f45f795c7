//! `+kubebuilder` comment markers: recognising marker lines and parsing them into [`Marker`]s.
//!
//! The syntax is controller-tools' marker syntax:
//! * `+name` (a flag), `+name=value` (one value), `+name:key=value,key=value` (named arguments);
//! * a value is a Go-quoted string `"…"` (escapes `\"`, `\\`, `\n`, `\t`, `\uXXXX`, …), a raw
//!   string `` `…` ``, or a bare word running to the next `,` (for named arguments) or to the end.
//!
//! Which markers exist, and what each means, is the table in [`MarkerKind`]. Markers for the items of
//! a list and the values of a map use a scope prefix, in controller-tools' and Istio's spellings:
//! `+kubebuilder:validation:items:Marker…`, `+protoc-gen-crd:list-value-validation:Marker…` and
//! `+protoc-gen-crd:map-value-validation:Marker…`.

use serde_json::{Map, Number, Value};

/// What a marker applies to, relative to the schema of the message or field carrying it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The field's (or message's) own schema: for lists and maps, the container.
    Own,
    /// The items of a list field.
    Items,
    /// The values of a map field.
    MapValues,
}

/// The opaque schemas `+kubebuilder:validation:Type=` can select.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpaqueType {
    /// `type: object` with `x-kubernetes-preserve-unknown-fields` (like `google.protobuf.Struct`).
    Object,
    /// Only `x-kubernetes-preserve-unknown-fields` (like `google.protobuf.Value`).
    Value,
}

/// One `x-kubernetes-validations` entry, from `+kubebuilder:validation:XValidation`.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidationRule {
    /// `rule`.
    pub rule: String,
    /// `message`.
    pub message: Option<String>,
    /// `messageExpression`.
    pub message_expression: Option<String>,
    /// `reason`.
    pub reason: Option<String>,
    /// `fieldPath`.
    pub field_path: Option<String>,
    /// `optionalOldSelf`.
    pub optional_old_self: Option<bool>,
}

impl ValidationRule {
    /// The rule as it appears in a schema's `x-kubernetes-validations` list.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("rule".into(), Value::String(self.rule.clone()));
        let optional = [
            ("message", &self.message),
            ("messageExpression", &self.message_expression),
            ("reason", &self.reason),
            ("fieldPath", &self.field_path),
        ];
        for (key, value) in optional {
            if let Some(v) = value {
                m.insert(key.into(), Value::String(v.clone()));
            }
        }
        if let Some(b) = self.optional_old_self {
            m.insert("optionalOldSelf".into(), Value::Bool(b));
        }
        Value::Object(m)
    }
}

/// A parsed marker.
#[derive(Clone, Debug, PartialEq)]
pub enum MarkerKind {
    /// `+kubebuilder:validation:XValidation`.
    XValidation(ValidationRule),
    /// `+kubebuilder:validation:Type`.
    Type(OpaqueType),
    /// `Maximum`, `Minimum` and `MultipleOf`: the schema keyword and the number.
    Number(&'static str, Number),
    /// `ExclusiveMaximum`, `ExclusiveMinimum`, `UniqueItems`: the schema keyword and the flag.
    Bool(&'static str, bool),
    /// The length, item and property bounds: the schema keyword and the count.
    Count(&'static str, u64),
    /// `+kubebuilder:validation:Pattern`.
    Pattern(String),
    /// `+kubebuilder:validation:Format`.
    Format(String),
    /// `+kubebuilder:validation:Enum`.
    Enum(Vec<Value>),
    /// `+kubebuilder:default`.
    Default(Value),
    /// `+kubebuilder:example`.
    Example(Value),
    /// `+kubebuilder:validation:Required`.
    Required,
    /// `+kubebuilder:validation:Optional`.
    Optional,
    /// `+nullable`.
    Nullable,
    /// `EmbeddedResource` and `XEmbeddedResource`.
    EmbeddedResource,
    /// `+kubebuilder:validation:Schemaless`.
    Schemaless,
    /// `+kubebuilder:validation:XIntOrString`.
    XIntOrString,
    /// `+kubebuilder:pruning:PreserveUnknownFields` and `XPreserveUnknownFields`.
    PreserveUnknownFields,
    /// `+listType=atomic|set|map`.
    ListType(String),
    /// `+listMapKey=name` (repeatable).
    ListMapKey(String),
    /// `+mapType=atomic|granular`.
    MapType(String),
}

impl MarkerKind {
    /// Whether the marker is meaningful only on a field (not on a message).
    pub fn field_only(&self) -> bool {
        matches!(
            self,
            MarkerKind::Type(_)
                | MarkerKind::Required
                | MarkerKind::Optional
                | MarkerKind::Nullable
                | MarkerKind::Schemaless
                | MarkerKind::Default(_)
                | MarkerKind::Example(_)
                | MarkerKind::EmbeddedResource
        )
    }
}

/// A marker with its scope.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    /// Where the marker applies.
    pub scope: Scope,
    /// What it says.
    pub kind: MarkerKind,
}

/// The outcome of parsing a marker line.
#[derive(Clone, Debug, PartialEq)]
pub enum Parsed {
    /// A marker.
    Marker(Marker),
    /// A marker of a known namespace that kcel does not know: the caller warns and skips it.
    Unknown(String),
}

/// Whether a comment line (already trimmed) is a marker line: such lines never reach descriptions.
pub fn is_marker_line(line: &str) -> bool {
    let Some(rest) = line.strip_prefix('+') else {
        return false;
    };
    rest.starts_with("kubebuilder:")
        || rest.starts_with("protoc-gen-crd:")
        || ["listType", "listMapKey", "mapType"].iter().any(|name| {
            rest.strip_prefix(name)
                .is_some_and(|r| r.is_empty() || r.starts_with('='))
        })
}

/// The shape of a marker's argument.
#[derive(Clone, Copy)]
enum Arg {
    /// No argument (a flag).
    Flag,
    /// Named arguments (`XValidation`).
    Named,
    /// `=number`.
    Number(&'static str),
    /// `=true|false`, or nothing for true.
    Bool(&'static str),
    /// `=non-negative integer`.
    Count(&'static str),
    /// `=string`.
    Str,
    /// `=a;b;c`.
    List,
    /// `=any value` (JSON, number, bool or string).
    Any,
}

/// The marker names kcel knows, after the scope prefix is rewritten to `kubebuilder:validation:`.
const KNOWN: &[(&str, Arg)] = &[
    ("kubebuilder:validation:XValidation", Arg::Named),
    ("kubebuilder:validation:Type", Arg::Str),
    ("kubebuilder:validation:Maximum", Arg::Number("maximum")),
    ("kubebuilder:validation:Minimum", Arg::Number("minimum")),
    (
        "kubebuilder:validation:MultipleOf",
        Arg::Number("multipleOf"),
    ),
    (
        "kubebuilder:validation:ExclusiveMaximum",
        Arg::Bool("exclusiveMaximum"),
    ),
    (
        "kubebuilder:validation:ExclusiveMinimum",
        Arg::Bool("exclusiveMinimum"),
    ),
    (
        "kubebuilder:validation:UniqueItems",
        Arg::Bool("uniqueItems"),
    ),
    ("kubebuilder:validation:MaxLength", Arg::Count("maxLength")),
    ("kubebuilder:validation:MinLength", Arg::Count("minLength")),
    ("kubebuilder:validation:MaxItems", Arg::Count("maxItems")),
    ("kubebuilder:validation:MinItems", Arg::Count("minItems")),
    (
        "kubebuilder:validation:MaxProperties",
        Arg::Count("maxProperties"),
    ),
    (
        "kubebuilder:validation:MinProperties",
        Arg::Count("minProperties"),
    ),
    ("kubebuilder:validation:Pattern", Arg::Str),
    ("kubebuilder:validation:Format", Arg::Str),
    ("kubebuilder:validation:Enum", Arg::List),
    ("kubebuilder:validation:Required", Arg::Flag),
    ("kubebuilder:validation:Optional", Arg::Flag),
    ("kubebuilder:validation:Nullable", Arg::Flag),
    ("kubebuilder:validation:EmbeddedResource", Arg::Flag),
    ("kubebuilder:validation:XEmbeddedResource", Arg::Flag),
    ("kubebuilder:validation:Schemaless", Arg::Flag),
    ("kubebuilder:validation:XIntOrString", Arg::Flag),
    ("kubebuilder:validation:XPreserveUnknownFields", Arg::Flag),
    ("kubebuilder:pruning:PreserveUnknownFields", Arg::Flag),
    ("kubebuilder:default", Arg::Any),
    ("kubebuilder:example", Arg::Any),
    ("listType", Arg::Str),
    ("listMapKey", Arg::Str),
    ("mapType", Arg::Str),
];

/// Scope prefixes, and the `kubebuilder:validation:` prefix each is rewritten to.
const SCOPES: &[(&str, Scope)] = &[
    ("kubebuilder:validation:items:", Scope::Items),
    ("protoc-gen-crd:list-value-validation:", Scope::Items),
    ("protoc-gen-crd:map-value-validation:", Scope::MapValues),
];

/// Parses one marker line (trimmed, starting with `+`). `Err` is a malformed marker, with the reason.
pub(crate) fn parse_marker(line: &str) -> Result<Parsed, String> {
    let body = line.strip_prefix('+').unwrap_or(line).trim_end();
    let (scope, rewritten);
    match SCOPES.iter().find(|(prefix, _)| body.starts_with(prefix)) {
        Some((prefix, s)) => {
            scope = *s;
            rewritten = format!("kubebuilder:validation:{}", &body[prefix.len()..]);
        }
        None => {
            scope = Scope::Own;
            rewritten = body.to_owned();
        }
    }
    let body = rewritten.as_str();
    // The longest known name that the body starts with, followed by nothing, `=` or `:`.
    let mut found: Option<(&str, Arg, &str)> = None;
    for (name, arg) in KNOWN {
        if let Some(rest) = body.strip_prefix(name)
            && (rest.is_empty() || rest.starts_with('=') || rest.starts_with(':'))
            && found.is_none_or(|(n, _, _)| n.len() < name.len())
        {
            found = Some((name, *arg, rest));
        }
    }
    let Some((name, arg, rest)) = found else {
        let name = body.split(['=', ',']).next().unwrap_or(body);
        return Ok(Parsed::Unknown(format!("+{name}")));
    };
    let kind = parse_args(name, arg, rest)?;
    if scope != Scope::Own && kind.field_only() {
        return Err(format!("+{name} cannot apply to list items or map values"));
    }
    Ok(Parsed::Marker(Marker { scope, kind }))
}

/// Parses what follows a known marker name.
fn parse_args(name: &str, arg: Arg, rest: &str) -> Result<MarkerKind, String> {
    let short = name.rsplit(':').next().unwrap_or(name);
    let value = || -> Result<&str, String> {
        match rest.strip_prefix('=') {
            Some(v) if !v.trim().is_empty() => Ok(v.trim()),
            _ => Err(format!("+{name} needs a value: +{name}=…")),
        }
    };
    match arg {
        Arg::Flag => {
            if !rest.is_empty() {
                return Err(format!("+{name} takes no value"));
            }
            Ok(match short {
                "Required" => MarkerKind::Required,
                "Optional" => MarkerKind::Optional,
                "Nullable" => MarkerKind::Nullable,
                "EmbeddedResource" | "XEmbeddedResource" => MarkerKind::EmbeddedResource,
                "Schemaless" => MarkerKind::Schemaless,
                "XIntOrString" => MarkerKind::XIntOrString,
                _ => MarkerKind::PreserveUnknownFields,
            })
        }
        Arg::Named => {
            let args = rest
                .strip_prefix(':')
                .ok_or_else(|| format!("+{name} needs arguments: +{name}:rule=\"…\""))?;
            parse_validation_rule(args).map(MarkerKind::XValidation)
        }
        Arg::Number(keyword) => {
            let text = unquote(value()?)?;
            parse_number(&text)
                .map(|n| MarkerKind::Number(keyword, n))
                .ok_or_else(|| format!("+{name}: {text:?} is not a number"))
        }
        Arg::Bool(keyword) => {
            if rest.is_empty() {
                return Ok(MarkerKind::Bool(keyword, true));
            }
            match value()? {
                "true" => Ok(MarkerKind::Bool(keyword, true)),
                "false" => Ok(MarkerKind::Bool(keyword, false)),
                other => Err(format!("+{name}: {other:?} is not true or false")),
            }
        }
        Arg::Count(keyword) => {
            let text = value()?;
            text.parse::<u64>()
                .map(|n| MarkerKind::Count(keyword, n))
                .map_err(|_| format!("+{name}: {text:?} is not a non-negative integer"))
        }
        Arg::Str => {
            let text = unquote(value()?)?;
            match short {
                "Type" => match text.as_str() {
                    "object" => Ok(MarkerKind::Type(OpaqueType::Object)),
                    "value" => Ok(MarkerKind::Type(OpaqueType::Value)),
                    other => Err(format!(
                        "+{name}: {other:?} is not supported (object or value)"
                    )),
                },
                "Pattern" => Ok(MarkerKind::Pattern(text)),
                "Format" => Ok(MarkerKind::Format(text)),
                "listType" => match text.as_str() {
                    "atomic" | "set" | "map" => Ok(MarkerKind::ListType(text)),
                    other => Err(format!("+{name}: {other:?} is not atomic, set or map")),
                },
                "mapType" => match text.as_str() {
                    "atomic" | "granular" => Ok(MarkerKind::MapType(text)),
                    other => Err(format!("+{name}: {other:?} is not atomic or granular")),
                },
                _ => Ok(MarkerKind::ListMapKey(text)),
            }
        }
        Arg::List => {
            let text = value()?;
            let mut items = Vec::new();
            for part in split_unquoted(text, ';')? {
                items.push(parse_any(part.trim())?);
            }
            Ok(MarkerKind::Enum(items))
        }
        Arg::Any => {
            let v = parse_any(value()?)?;
            Ok(if short == "default" {
                MarkerKind::Default(v)
            } else {
                MarkerKind::Example(v)
            })
        }
    }
}

/// Parses the named arguments of `XValidation`.
fn parse_validation_rule(args: &str) -> Result<ValidationRule, String> {
    let mut rule = ValidationRule {
        rule: String::new(),
        message: None,
        message_expression: None,
        reason: None,
        field_path: None,
        optional_old_self: None,
    };
    let mut has_rule = false;
    for part in split_unquoted(args, ',')? {
        let (key, raw) = part
            .split_once('=')
            .ok_or_else(|| format!("XValidation: argument {part:?} is not key=value"))?;
        let key = key.trim();
        let text = unquote(raw.trim())?;
        let slot = match key {
            "rule" => {
                has_rule = true;
                rule.rule = text;
                continue;
            }
            "message" => &mut rule.message,
            "messageExpression" => &mut rule.message_expression,
            "reason" => {
                const REASONS: [&str; 4] = [
                    "FieldValueInvalid",
                    "FieldValueForbidden",
                    "FieldValueRequired",
                    "FieldValueDuplicate",
                ];
                if !REASONS.contains(&text.as_str()) {
                    return Err(format!(
                        "XValidation: reason {text:?} is not one of {}",
                        REASONS.join(", ")
                    ));
                }
                &mut rule.reason
            }
            "fieldPath" => &mut rule.field_path,
            "optionalOldSelf" => {
                rule.optional_old_self = Some(match text.as_str() {
                    "true" => true,
                    "false" => false,
                    other => {
                        return Err(format!(
                            "XValidation: optionalOldSelf {other:?} is not true or false"
                        ));
                    }
                });
                continue;
            }
            other => {
                return Err(format!(
                    "XValidation: unknown argument {other:?} (rule, message, messageExpression, reason, fieldPath, optionalOldSelf)"
                ));
            }
        };
        *slot = Some(text);
    }
    if !has_rule || rule.rule.trim().is_empty() {
        return Err("XValidation: the rule argument is required: rule=\"…\"".into());
    }
    Ok(rule)
}

/// Splits `text` at `sep` outside double-quoted and backquoted strings.
fn split_unquoted(text: &str, sep: char) -> Result<Vec<&str>, String> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match quote {
            Some('"') if escaped => escaped = false,
            Some('"') if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '`' => quote = Some(c),
            None if c == sep => {
                parts.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            None => {}
        }
    }
    if quote.is_some() {
        return Err(format!("unterminated string in {text:?}"));
    }
    parts.push(&text[start..]);
    Ok(parts)
}

/// A marker value as a string: Go-quoted `"…"` and raw `` `…` `` strings are unquoted, bare words
/// are taken as they are.
fn unquote(text: &str) -> Result<String, String> {
    if let Some(raw) = text.strip_prefix('`') {
        return raw
            .strip_suffix('`')
            .map(str::to_owned)
            .ok_or_else(|| format!("unterminated raw string {text:?}"));
    }
    let Some(inner) = text.strip_prefix('"') else {
        return Ok(text.to_owned());
    };
    let inner = inner
        .strip_suffix('"')
        .filter(|_| text.len() >= 2)
        .ok_or_else(|| format!("unterminated string {text:?}"))?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            if c == '"' {
                return Err(format!("unescaped '\"' inside the string {text:?}"));
            }
            out.push(c);
            continue;
        }
        let e = chars
            .next()
            .ok_or_else(|| format!("dangling '\\' in {text:?}"))?;
        match e {
            '"' | '\\' | '\'' => out.push(e),
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            'u' | 'U' => {
                let len = if e == 'u' { 4 } else { 8 };
                let hex: String = chars.by_ref().take(len).collect();
                let ch = u32::from_str_radix(&hex, 16)
                    .ok()
                    .filter(|_| hex.len() == len)
                    .and_then(char::from_u32)
                    .ok_or_else(|| format!("bad \\{e} escape in {text:?}"))?;
                out.push(ch);
            }
            other => return Err(format!("unknown escape '\\{other}' in {text:?}")),
        }
    }
    Ok(out)
}

/// Parses a number as controller-tools does (integers stay integers).
fn parse_number(text: &str) -> Option<Number> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Number::from(i));
    }
    if let Ok(u) = text.parse::<u64>() {
        return Some(Number::from(u));
    }
    let f = text.parse::<f64>().ok()?;
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        // Written like "100.0": the schema value is the integer, as Go's encoding prints it.
        #[allow(clippy::cast_possible_truncation)]
        return Some(Number::from(f as i64));
    }
    Number::from_f64(f)
}

/// Parses an untyped marker value: JSON objects, arrays and strings, numbers, booleans, or a bare
/// string.
fn parse_any(text: &str) -> Result<Value, String> {
    if text.starts_with(['{', '[']) {
        return serde_json::from_str(text).map_err(|e| format!("{text:?} is not valid JSON: {e}"));
    }
    if text.starts_with(['"', '`']) {
        return unquote(text).map(Value::String);
    }
    match text {
        "true" => return Ok(Value::Bool(true)),
        "false" => return Ok(Value::Bool(false)),
        _ => {}
    }
    if let Some(n) = text
        .starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.')
        .then(|| parse_number(text))
        .flatten()
    {
        return Ok(Value::Number(n));
    }
    Ok(Value::String(text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marker(line: &str) -> MarkerKind {
        match parse_marker(line) {
            Ok(Parsed::Marker(m)) => m.kind,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn recognises_marker_lines() {
        assert!(is_marker_line("+kubebuilder:validation:Required"));
        assert!(is_marker_line("+listType=map"));
        assert!(is_marker_line(
            "+protoc-gen-crd:map-value-validation:MaxLength=3"
        ));
        assert!(!is_marker_line("+listTypes are fun"));
        assert!(!is_marker_line("+optional"));
        assert!(!is_marker_line("kubebuilder:validation:Required"));
    }

    #[test]
    fn parses_xvalidation_with_all_arguments() {
        let kind = marker(
            r#"+kubebuilder:validation:XValidation:rule="self.x > 0",message="x, \"positive\"",messageExpression="'got ' + string(self.x)",reason="FieldValueForbidden",fieldPath=".x",optionalOldSelf=true"#,
        );
        let MarkerKind::XValidation(rule) = kind else {
            panic!("not a rule: {kind:?}")
        };
        assert_eq!(rule.rule, "self.x > 0");
        assert_eq!(rule.message.as_deref(), Some("x, \"positive\""));
        assert_eq!(
            rule.message_expression.as_deref(),
            Some("'got ' + string(self.x)")
        );
        assert_eq!(rule.reason.as_deref(), Some("FieldValueForbidden"));
        assert_eq!(rule.field_path.as_deref(), Some(".x"));
        assert_eq!(rule.optional_old_self, Some(true));
    }

    #[test]
    fn malformed_markers_are_errors() {
        for line in [
            r#"+kubebuilder:validation:XValidation:message="no rule""#,
            r#"+kubebuilder:validation:XValidation:rule="unterminated"#,
            r#"+kubebuilder:validation:XValidation:rule="x",reason="Nope""#,
            r#"+kubebuilder:validation:XValidation:rule="x",colour="red""#,
            "+kubebuilder:validation:Maximum=ten",
            "+kubebuilder:validation:MaxLength=-1",
            "+kubebuilder:validation:Type=string",
            "+kubebuilder:validation:Required=yes",
            "+kubebuilder:validation:Pattern",
            "+listType=list",
            "+kubebuilder:validation:items:Required",
            "+kubebuilder:default={not json",
        ] {
            assert!(parse_marker(line).is_err(), "{line} should be malformed");
        }
    }

    #[test]
    fn unknown_markers_are_reported_by_name() {
        assert_eq!(
            parse_marker("+kubebuilder:validation:ExactlyOneOf=a;b"),
            Ok(Parsed::Unknown(
                "+kubebuilder:validation:ExactlyOneOf".into()
            ))
        );
        assert_eq!(
            parse_marker("+kubebuilder:printcolumn:name=x"),
            Ok(Parsed::Unknown("+kubebuilder:printcolumn:name".into()))
        );
    }

    #[test]
    fn longest_name_wins() {
        assert_eq!(
            marker("+kubebuilder:validation:XEmbeddedResource"),
            MarkerKind::EmbeddedResource
        );
        assert_eq!(
            marker("+kubebuilder:validation:MaxItems=3"),
            MarkerKind::Count("maxItems", 3)
        );
    }

    #[test]
    fn values_are_typed() {
        assert_eq!(
            marker("+kubebuilder:validation:Enum=Allow;\"a;b\";3;true"),
            MarkerKind::Enum(vec![
                Value::from("Allow"),
                Value::from("a;b"),
                Value::from(3),
                Value::from(true)
            ])
        );
        assert_eq!(
            marker("+kubebuilder:default=forty-two"),
            MarkerKind::Default(Value::from("forty-two"))
        );
        assert_eq!(
            marker(r#"+kubebuilder:default={"a": [1]}"#),
            MarkerKind::Default(serde_json::json!({"a": [1]}))
        );
        assert_eq!(
            marker("+kubebuilder:validation:Maximum=1.5"),
            MarkerKind::Number("maximum", Number::from_f64(1.5).expect("finite"))
        );
        assert_eq!(
            marker("+kubebuilder:validation:ExclusiveMaximum"),
            MarkerKind::Bool("exclusiveMaximum", true)
        );
        assert_eq!(
            marker(r#"+kubebuilder:validation:Pattern="^a\\d$""#),
            MarkerKind::Pattern("^a\\d$".into())
        );
    }

    #[test]
    fn scopes_are_recognised() {
        let Ok(Parsed::Marker(m)) =
            parse_marker("+protoc-gen-crd:map-value-validation:MaxLength=63")
        else {
            panic!("not parsed")
        };
        assert_eq!(m.scope, Scope::MapValues);
        let Ok(Parsed::Marker(m)) = parse_marker("+kubebuilder:validation:items:Pattern=`^a$`")
        else {
            panic!("not parsed")
        };
        assert_eq!(
            (m.scope, m.kind),
            (Scope::Items, MarkerKind::Pattern("^a$".into()))
        );
    }
}
