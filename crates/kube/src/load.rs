//! Loading CRDs from YAML and JSON files.
//!
//! A file may hold several documents (YAML `---` separated, or a stream of JSON objects), and a
//! document may be a `kind: List` (or any `...List` kind) whose `items` are documents. Documents
//! of other kinds are ignored, as kubectl-validate ignores them when loading CRDs. YAML goes
//! through [`crate::yaml`], which converts it to JSON exactly as Kubernetes tooling does; JSON is
//! decoded directly (so `1.0` stays a float, as the API server keeps it).
//!
//! Every error names the file and, where known, the line and column and the field path:
//! `crds/widget.yaml:12:7: spec.versions[0].schema.openAPIV3Schema.properties.spec.maxLength: invalid type: string "x", expected i64`.

use std::fmt;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::crd::{CRD_KIND, CustomResourceDefinition};
use crate::documents::MAX_INPUT_BYTES;
use crate::yaml::{self, Position, Positions};

/// A CRD and where it came from.
#[derive(Clone, Debug)]
pub struct LoadedCrd {
    /// The CRD.
    pub crd: CustomResourceDefinition,
    /// The file (or source name) it was read from.
    pub source: String,
    /// Where its document starts.
    pub position: Position,
}

/// Why a file could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// The file (or source name).
    pub source: String,
    /// Where in it, when known.
    pub position: Option<Position>,
    /// The field path inside the document (`spec.versions[0].name`), if the error is about a field.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)?;
        if let Some(p) = self.position {
            write!(f, ":{}:{}", p.line, p.column)?;
        }
        f.write_str(": ")?;
        if let Some(field) = &self.field {
            write!(f, "{field}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for LoadError {}

/// Reads the CRDs of one file. JSON is recognised by a leading `{` (or a `.json` extension).
pub fn load_file(path: &Path) -> Result<Vec<LoadedCrd>, LoadError> {
    let source = path.display().to_string();
    let io_err = |e: std::io::Error| LoadError {
        source: source.clone(),
        position: None,
        field: None,
        message: e.to_string(),
    };
    let len = std::fs::metadata(path).map_err(io_err)?.len();
    if len > MAX_INPUT_BYTES {
        return Err(LoadError {
            source,
            position: None,
            field: None,
            message: format!("file is larger than {MAX_INPUT_BYTES} bytes"),
        });
    }
    let text = std::fs::read_to_string(path).map_err(io_err)?;
    let json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if json {
        load_json(&source, &text)
    } else {
        load_str(&source, &text)
    }
}

/// Reads the CRDs of a text: JSON if it starts with `{`, YAML otherwise.
pub fn load_str(source: &str, text: &str) -> Result<Vec<LoadedCrd>, LoadError> {
    if text.trim_start().starts_with('{') {
        load_json(source, text)
    } else {
        load_yaml(source, text)
    }
}

/// Reads the CRDs of a YAML stream.
pub fn load_yaml(source: &str, text: &str) -> Result<Vec<LoadedCrd>, LoadError> {
    let docs = yaml::parse_stream(text).map_err(|e| LoadError {
        source: source.to_string(),
        position: Some(e.position),
        field: None,
        message: e.message,
    })?;
    let mut out = Vec::new();
    for doc in docs {
        let loc = Locator::Yaml(&doc.positions);
        collect(source, &doc.value, "", doc.start, &loc, &mut out)?;
    }
    Ok(out)
}

/// Reads the CRDs of a stream of JSON objects.
pub fn load_json(source: &str, text: &str) -> Result<Vec<LoadedCrd>, LoadError> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let mut out = Vec::new();
    let mut start = 0usize;
    loop {
        let value = match stream.next() {
            None => break,
            Some(Ok(v)) => v,
            Some(Err(e)) => {
                return Err(LoadError {
                    source: source.to_string(),
                    position: Some(Position {
                        line: e.line(),
                        column: e.column(),
                    }),
                    field: None,
                    message: strip_serde_position(&e.to_string()),
                });
            }
        };
        let end = stream.byte_offset();
        let raw = text.get(start..end).unwrap_or("");
        let doc_text = raw.trim_start();
        let base = line_col_at(text, start + (raw.len() - doc_text.len()));
        let loc = Locator::Json {
            text: doc_text,
            base,
        };
        collect(source, &value, "", base, &loc, &mut out)?;
        start = end;
    }
    Ok(out)
}

/// How to find the position of a field of a document.
enum Locator<'a> {
    Yaml(&'a Positions),
    /// The document's own text and where it starts in the file.
    Json {
        text: &'a str,
        base: Position,
    },
}

/// Adds the CRDs of `value` (a document, or a `List` of documents) to `out`.
fn collect(
    source: &str,
    value: &Value,
    pointer: &str,
    start: Position,
    loc: &Locator<'_>,
    out: &mut Vec<LoadedCrd>,
) -> Result<(), LoadError> {
    let Value::Object(obj) = value else {
        if value.is_null() {
            return Ok(()); // empty document
        }
        return Err(LoadError {
            source: source.to_string(),
            position: Some(start),
            field: None,
            message: "a document must be an object".into(),
        });
    };
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    if kind == CRD_KIND && api_version.starts_with("apiextensions.k8s.io/") {
        if api_version != crate::crd::CRD_API_VERSION {
            return Err(LoadError {
                source: source.to_string(),
                position: Some(start),
                field: Some("apiVersion".into()),
                message: format!(
                    "unsupported apiVersion {api_version:?}: only apiextensions.k8s.io/v1 CRDs exist since Kubernetes 1.22"
                ),
            });
        }
        let crd = decode_crd(source, value, pointer, loc)?;
        out.push(LoadedCrd {
            crd,
            source: source.to_string(),
            position: start,
        });
        return Ok(());
    }
    if kind.ends_with("List")
        && let Some(Value::Array(items)) = obj.get("items")
    {
        for (i, item) in items.iter().enumerate() {
            let p = format!("{pointer}/items/{i}");
            let item_start = match loc {
                Locator::Yaml(pos) => pos.locate(&p).unwrap_or(start),
                Locator::Json { .. } => start,
            };
            collect(source, item, &p, item_start, loc, out)?;
        }
    }
    Ok(())
}

/// The deepest JSON nesting a CRD document may have: decoding recurses once per level (see
/// [`crate::structural::MAX_SCHEMA_DEPTH`]).
pub const MAX_CRD_DEPTH: usize = crate::structural::MAX_SCHEMA_DEPTH;

/// The nesting depth of a JSON value, computed without recursion, stopping past `limit`.
pub(crate) fn depth_exceeds(value: &Value, limit: usize) -> bool {
    let mut stack = vec![(value, 1usize)];
    while let Some((v, d)) = stack.pop() {
        if d > limit {
            return true;
        }
        match v {
            Value::Array(a) => stack.extend(a.iter().map(|c| (c, d + 1))),
            Value::Object(m) => stack.extend(m.values().map(|c| (c, d + 1))),
            _ => {}
        }
    }
    false
}

fn decode_crd(
    source: &str,
    value: &Value,
    pointer: &str,
    loc: &Locator<'_>,
) -> Result<CustomResourceDefinition, LoadError> {
    if depth_exceeds(value, MAX_CRD_DEPTH) {
        return Err(LoadError {
            source: source.to_string(),
            position: None,
            field: None,
            message: format!("CRD document nests deeper than {MAX_CRD_DEPTH} levels"),
        });
    }
    let err = match serde_path_to_error::deserialize::<_, CustomResourceDefinition>(value) {
        Ok(crd) => return Ok(crd),
        Err(e) => e,
    };
    let field = err.path().to_string();
    let message = strip_serde_position(&err.inner().to_string());
    let mut position = None;
    match loc {
        Locator::Yaml(positions) => {
            let mut p = pointer.to_string();
            for seg in err.path().iter() {
                match seg {
                    serde_path_to_error::Segment::Seq { index } => p.push_str(&format!("/{index}")),
                    serde_path_to_error::Segment::Map { key } => {
                        p.push('/');
                        p.push_str(&yaml::pointer_segment(key));
                    }
                    serde_path_to_error::Segment::Enum { .. }
                    | serde_path_to_error::Segment::Unknown => {}
                }
            }
            position = positions.locate(&p);
        }
        Locator::Json { text, base } if pointer.is_empty() => {
            // Decode again from the text: serde_json then knows the line and column.
            let mut de = serde_json::Deserializer::from_str(text);
            if let Err(e) = CustomResourceDefinition::deserialize(&mut de) {
                position = Some(if e.line() <= 1 {
                    Position {
                        line: base.line,
                        column: base.column + e.column().saturating_sub(1),
                    }
                } else {
                    Position {
                        line: base.line + e.line() - 1,
                        column: e.column(),
                    }
                });
            }
        }
        Locator::Json { base, .. } => position = Some(*base),
    }
    Err(LoadError {
        source: source.to_string(),
        position,
        field: if field == "." || field.is_empty() {
            None
        } else {
            Some(field)
        },
        message,
    })
}

/// serde_json appends ` at line L column C`; the loader prints positions itself.
fn strip_serde_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) if msg[i..].contains(" column ") => msg[..i].to_string(),
        _ => msg.to_string(),
    }
}

/// The 1-based line and column of byte `offset` of `text`.
fn line_col_at(text: &str, offset: usize) -> Position {
    let before = text.get(..offset.min(text.len())).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Position { line, column }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
";

    #[test]
    fn yaml_multi_document_and_list() {
        let text = format!(
            "---\napiVersion: v1\nkind: ConfigMap\n---\n{CRD}---\napiVersion: v1\nkind: List\nitems:\n- {}\n",
            serde_json::to_string(
                &serde_json::to_value(&load_yaml("x", CRD).expect("one")[0].crd).expect("json")
            )
            .expect("s")
        );
        let crds = load_yaml("f.yaml", &text).expect("loads");
        assert_eq!(crds.len(), 2);
        assert_eq!(crds[0].position.line, 5);
        assert_eq!(crds[1].crd.spec.names.kind, "Widget");
    }

    #[test]
    fn yaml_field_errors_have_lines() {
        let bad = CRD.replace("type: object", "type: object\n        maxLength: many");
        let err = load_yaml("w.yaml", &bad).expect_err("bad");
        assert_eq!(err.position.map(|p| p.line), Some(16));
        assert_eq!(
            err.field.as_deref(),
            Some("spec.versions[0].schema.openAPIV3Schema.maxLength")
        );
        assert!(err.to_string().starts_with("w.yaml:16:"), "{err}");
    }

    #[test]
    fn json_stream_and_errors() {
        let one = serde_json::to_string_pretty(
            &serde_json::to_value(&load_yaml("x", CRD).expect("one")[0].crd).expect("json"),
        )
        .expect("s");
        let crds = load_json("c.json", &format!("{one}\n{one}")).expect("loads");
        assert_eq!(crds.len(), 2);
        let bad = one.replace("\"storage\": true", "\"storage\": \"yes\"");
        let err = load_json("c.json", &format!("{one}\n{bad}")).expect_err("bad");
        assert_eq!(err.field.as_deref(), Some("spec.versions[0].storage"));
        let line = err.position.map(|p| p.line).unwrap_or(0);
        let expected = format!("{one}\n{bad}")
            .lines()
            .position(|l| l.contains("\"yes\""))
            .unwrap_or(0)
            + 1;
        assert_eq!(line, expected, "{err}");
        let err = load_json("c.json", "{\"a\": }").expect_err("syntax");
        assert_eq!(err.position.map(|p| p.line), Some(1));
    }

    #[test]
    fn deep_documents_are_rejected_without_overflow() {
        let mut text = CRD.to_string();
        let mut indent = String::from("        ");
        for _ in 0..150 {
            text.push_str(&format!("{indent}items:\n"));
            indent.push_str("  ");
            text.push_str(&format!("{indent}type: array\n"));
        }
        let err = load_yaml("d.yaml", &text).expect_err("too deep");
        assert!(err.message.contains("deeper"), "{err}");
    }

    #[test]
    fn v1beta1_is_rejected() {
        let err = load_yaml("o.yaml", &CRD.replace("/v1\n", "/v1beta1\n")).expect_err("old");
        assert!(err.message.contains("v1beta1"));
    }
}
