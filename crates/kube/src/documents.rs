//! Input documents of any kind: files, directories and standard input holding YAML or JSON
//! streams, `kind: List` documents expanded, each document with the file and line it starts at.
//!
//! Unlike [`crate::load`], which keeps only CRDs and decodes them with field positions, this
//! reader keeps every document (objects to validate as well as CRDs); [`decode_crds`] then
//! decodes the CRDs among them.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::crd::{CRD_KIND, CustomResourceDefinition};
use crate::values::{Json, JsonBody};
use crate::yaml::{Track, Tree, YamlDocument};

/// The largest input file (or standard input) read.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// The name `-` (standard input) has in locations.
const STDIN_NAME: &str = "<stdin>";

/// One document of an input, and where it starts: as `serde_json` (the default), or as a
/// [`JsonBody`] read straight into the pipeline's tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Document<V = Value> {
    /// The file it was read from (`<stdin>` for standard input).
    pub source: String,
    /// The line its text starts at (1-based); for an item of a `kind: List` document, the
    /// line the item starts at.
    pub line: usize,
    /// Its position in the file's stream (0-based, empty documents counted).
    pub index: usize,
    /// Its position in the `items` of the `kind: List` document it came from, if it did.
    pub item: Option<usize>,
    /// The document.
    pub value: V,
}

/// What a document is held as: a `serde_json` value, or a [`JsonBody`].
pub trait DocumentValue: DeserializeOwned + Sized {
    /// What the YAML reader builds it of.
    type Tree: Tree;
    /// A document the YAML reader read.
    fn from_yaml(doc: YamlDocument<Self::Tree>) -> Self;
    /// The string at `pointer` (`/metadata/name`), when there is one.
    fn str_at(&self, pointer: &str) -> Option<&str>;
    /// Whether it is `null` (an empty document).
    fn is_null(&self) -> bool;
    /// Whether it is an object.
    fn is_object(&self) -> bool;
    /// The number of elements of the array under `key` of an object (0 when there is none).
    fn array_len(&self, key: &str) -> usize;
    /// Whether `key` of an object holds an array.
    fn has_array(&self, key: &str) -> bool;
    /// The elements of the array under `key` of an object, each a document of its own.
    fn take_items(self, key: &str) -> Vec<Self>;
    /// Whether it needs its exact `serde_json` form attached ([`JsonBody`] holds integers
    /// beyond int64 as floats).
    fn needs_exact(&self) -> bool;
    /// It with its exact `serde_json` form attached.
    fn with_exact(self, exact: Option<Value>) -> Self;
    /// It as `serde_json`, exactly.
    fn serde_value(&self) -> Value;
}

impl DocumentValue for Value {
    type Tree = Value;

    fn from_yaml(doc: YamlDocument<Value>) -> Value {
        doc.value
    }

    fn str_at(&self, pointer: &str) -> Option<&str> {
        pointer_str(self, pointer)
    }

    fn is_null(&self) -> bool {
        Value::is_null(self)
    }

    fn is_object(&self) -> bool {
        Value::is_object(self)
    }

    fn array_len(&self, key: &str) -> usize {
        self.get(key).and_then(Value::as_array).map_or(0, Vec::len)
    }

    fn has_array(&self, key: &str) -> bool {
        self.get(key).is_some_and(Value::is_array)
    }

    fn take_items(self, key: &str) -> Vec<Value> {
        match self {
            Value::Object(mut o) => match o.remove(key) {
                Some(Value::Array(items)) => items,
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    fn needs_exact(&self) -> bool {
        false
    }

    fn with_exact(self, _: Option<Value>) -> Value {
        self
    }

    fn serde_value(&self) -> Value {
        self.clone()
    }
}

impl DocumentValue for JsonBody {
    type Tree = Json;

    fn from_yaml(doc: YamlDocument<Json>) -> JsonBody {
        JsonBody::read(doc.value, doc.has_null, doc.wide_integers)
    }

    fn str_at(&self, pointer: &str) -> Option<&str> {
        json_pointer_str(self.json(), pointer)
    }

    fn is_null(&self) -> bool {
        self.json().is_null()
    }

    fn is_object(&self) -> bool {
        self.json().as_object().is_some()
    }

    fn array_len(&self, key: &str) -> usize {
        self.json()
            .get(key)
            .and_then(Json::as_array)
            .map_or(0, <[Json]>::len)
    }

    fn has_array(&self, key: &str) -> bool {
        self.json().get(key).and_then(Json::as_array).is_some()
    }

    fn take_items(self, key: &str) -> Vec<JsonBody> {
        // The items are shared with the list until it is dropped: each is then held alone.
        let items: Vec<Json> = self
            .json()
            .get(key)
            .and_then(Json::as_array)
            .map(<[Json]>::to_vec)
            .unwrap_or_default();
        let bodies = items
            .into_iter()
            .enumerate()
            .map(|(i, item)| self.item(key, i, item))
            .collect();
        drop(self);
        bodies
    }

    fn needs_exact(&self) -> bool {
        JsonBody::needs_exact(self)
    }

    fn with_exact(self, exact: Option<Value>) -> JsonBody {
        JsonBody::with_exact(self, exact)
    }

    fn serde_value(&self) -> Value {
        self.to_serde()
    }
}

/// The identity of an object: `apiVersion`, `kind`, `metadata.namespace`, `metadata.name`
/// (absent fields empty). An update's stored object is found by it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ObjectKey {
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `metadata.namespace`.
    pub namespace: String,
    /// `metadata.name`.
    pub name: String,
}

impl ObjectKey {
    /// The identity of `object`.
    pub fn of<V: DocumentValue>(object: &V) -> ObjectKey {
        let s = |p: &str| str_at(object, p).to_string();
        ObjectKey {
            api_version: s("/apiVersion"),
            kind: s("/kind"),
            namespace: s("/metadata/namespace"),
            name: s("/metadata/name"),
        }
    }
}

/// The string at `pointer` in `value` (empty when absent or not a string).
pub(crate) fn str_at<'v, V: DocumentValue>(value: &'v V, pointer: &str) -> &'v str {
    value.str_at(pointer).unwrap_or("")
}

/// `value.pointer(pointer)` as a string: what serde_json's `Value::pointer` finds, without
/// its allocations (it unescapes every segment) for the pointers through objects free of
/// `~` escapes that name identity fields (`/metadata/name`); any other pointer goes to it.
pub fn pointer_str<'v>(value: &'v Value, pointer: &str) -> Option<&'v str> {
    let plain = pointer.strip_prefix('/').filter(|p| !p.contains('~'));
    let Some(path) = plain else {
        return value.pointer(pointer).and_then(Value::as_str);
    };
    let mut at = value;
    for key in path.split('/') {
        at = match at {
            Value::Object(map) => map.get(key)?,
            _ => return value.pointer(pointer).and_then(Value::as_str),
        };
    }
    at.as_str()
}

/// [`pointer_str`] in a [`Json`] tree: the string a `serde_json` value of the same document
/// has at `pointer` (RFC 6901, as `serde_json::Value::pointer` reads it).
pub fn json_pointer_str<'v>(value: &'v Json, pointer: &str) -> Option<&'v str> {
    if pointer.is_empty() {
        return value.as_str();
    }
    let path = pointer.strip_prefix('/')?;
    let mut at = value;
    for segment in path.split('/') {
        let key = if segment.contains('~') {
            std::borrow::Cow::Owned(segment.replace("~1", "/").replace("~0", "~"))
        } else {
            std::borrow::Cow::Borrowed(segment)
        };
        at = match at {
            Json::Object(o) => o.get(&key)?,
            Json::Array(items) => items.get(array_index(&key)?)?,
            _ => return None,
        };
    }
    at.as_str()
}

/// An array index of a JSON pointer segment as `serde_json` reads one: decimal digits without
/// a sign or a leading zero.
fn array_index(s: &str) -> Option<usize> {
    if s.starts_with('+') || (s.starts_with('0') && s.len() != 1) {
        return None;
    }
    s.parse().ok()
}

impl<V> Document<V> {
    /// `file:line`.
    pub fn location(&self) -> String {
        format!("{}:{}", self.source, self.line)
    }
}

impl Document<JsonBody> {
    /// The document as `serde_json` (its exact form: [`JsonBody::to_serde`]).
    pub fn to_serde(&self) -> Document {
        Document {
            source: self.source.clone(),
            line: self.line,
            index: self.index,
            item: self.item,
            value: self.value.to_serde(),
        }
    }
}

impl<V: DocumentValue> Document<V> {
    /// Its `kind` (empty when absent).
    pub fn kind(&self) -> &str {
        str_at(&self.value, "/kind")
    }

    /// Whether it is an `apiextensions.k8s.io` CustomResourceDefinition.
    pub fn is_crd(&self) -> bool {
        self.kind() == CRD_KIND
            && str_at(&self.value, "/apiVersion").starts_with("apiextensions.k8s.io/")
    }
}

/// Why documents could not be read.
#[derive(Debug)]
pub enum DocumentError {
    /// A file or directory could not be read.
    Io {
        /// The path (or `<stdin>`).
        source: String,
        /// The operating system's error.
        error: std::io::Error,
    },
    /// A file is larger than [`MAX_INPUT_BYTES`].
    TooLarge {
        /// The path (or `<stdin>`).
        source: String,
    },
    /// A file is not UTF-8 text (a binary file, or another encoding).
    NotUtf8 {
        /// The path (or `<stdin>`).
        source: String,
        /// The line of the first byte that is not UTF-8 (1-based).
        line: usize,
    },
    /// A YAML or JSON syntax error.
    Syntax {
        /// The path (or `<stdin>`).
        source: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// A document is not an object (nor empty).
    NotAnObject {
        /// The path (or `<stdin>`).
        source: String,
        /// The line the document starts at.
        line: usize,
    },
    /// A CRD document does not decode as a CustomResourceDefinition.
    Crd {
        /// The path (or `<stdin>`).
        source: String,
        /// The line the document starts at.
        line: usize,
        /// The decoder's message.
        message: String,
    },
}

impl DocumentError {
    /// The file (or path, or `<stdin>`) concerned, and the line when one is known.
    pub fn location(&self) -> (&str, Option<usize>) {
        match self {
            DocumentError::Io { source, .. } | DocumentError::TooLarge { source } => (source, None),
            DocumentError::NotUtf8 { source, line }
            | DocumentError::Syntax { source, line, .. }
            | DocumentError::NotAnObject { source, line }
            | DocumentError::Crd { source, line, .. } => (source, Some(*line)),
        }
    }

    /// What is wrong, without the location.
    pub fn message(&self) -> String {
        match self {
            DocumentError::Io { error, .. } => error.to_string(),
            DocumentError::TooLarge { source } if source == STDIN_NAME => {
                format!("input is larger than {MAX_INPUT_BYTES} bytes")
            }
            DocumentError::TooLarge { .. } => {
                format!("file is larger than {MAX_INPUT_BYTES} bytes")
            }
            DocumentError::NotUtf8 { .. } => "not UTF-8 text (a binary file?)".into(),
            DocumentError::Syntax {
                column, message, ..
            } => format!("syntax error at column {column}: {message}"),
            DocumentError::NotAnObject { .. } => "a document must be an object".into(),
            DocumentError::Crd { message, .. } => message.clone(),
        }
    }
}

impl fmt::Display for DocumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DocumentError::Syntax {
                source,
                line,
                column,
                message,
            } => write!(f, "{source}:{line}:{column}: {message}"),
            _ => match self.location() {
                (source, Some(line)) => write!(f, "{source}:{line}: {}", self.message()),
                (source, None) => write!(f, "{source}: {}", self.message()),
            },
        }
    }
}

impl std::error::Error for DocumentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DocumentError::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// The documents read from some paths, and the files of directories that were skipped because
/// they did not parse.
#[derive(Debug, Default)]
pub struct Documents {
    /// Every document, in path order.
    pub documents: Vec<Document>,
    /// Files found in directories that are not YAML or JSON object streams.
    pub skipped: Vec<DocumentError>,
}

/// The files under `path` (itself if a file; `*.yaml`, `*.yml`, `*.json` of a directory,
/// recursively, sorted). `-` stands for standard input.
pub fn expand(path: &str) -> Result<Vec<String>, DocumentError> {
    if path == "-" {
        return Ok(vec![path.to_string()]);
    }
    let p = PathBuf::from(path);
    let io = |source: &Path| {
        let source = source.display().to_string();
        move |error| DocumentError::Io { source, error }
    };
    let meta = std::fs::metadata(&p).map_err(io(&p))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_string()]);
    }
    let mut out = Vec::new();
    let mut stack = vec![p];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).map_err(io(&dir))? {
            let child = entry.map_err(io(&dir))?.path();
            if child.is_dir() {
                stack.push(child);
            } else if child
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "yaml" | "yml" | "json"))
            {
                out.push(child.display().to_string());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The text of a file, or of standard input for `-`, at most [`MAX_INPUT_BYTES`], UTF-8.
pub fn read_text(source: &str) -> Result<String, DocumentError> {
    let name = if source == "-" { STDIN_NAME } else { source };
    let io = |error| DocumentError::Io {
        source: name.to_string(),
        error,
    };
    let too_large = || DocumentError::TooLarge {
        source: name.to_string(),
    };
    let mut bytes = Vec::new();
    if source == "-" {
        std::io::stdin()
            .take(MAX_INPUT_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(io)?;
    } else {
        let file = std::fs::File::open(source).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        if len > MAX_INPUT_BYTES {
            return Err(too_large());
        }
        // Room for the whole file (and the read that finds its end), so that the text is not
        // copied as it grows.
        bytes.reserve_exact(usize::try_from(len).unwrap_or(0).saturating_add(1));
        file.take(MAX_INPUT_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(io)?;
    }
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        DocumentError::NotUtf8 {
            source: name.to_string(),
            line: valid.iter().filter(|&&b| b == b'\n').count() + 1,
        }
    })
}

/// One input of a run: a document (read into the pipeline's tree), or why a path, a file or a
/// document could not be read.
pub type Input = Result<Document<JsonBody>, DocumentError>;

/// Reads every path (directories expanded, `-` for standard input) without stopping at the
/// first problem: each file that cannot be read or parsed (named directly or found in a
/// directory) is an `Err` in its place, and the other files are read on. This is how a gate
/// fails closed: nothing unreadable goes unreported.
pub fn read_inputs(paths: &[String]) -> Vec<Input> {
    input_files(paths)
        .into_iter()
        .flat_map(|file| match file {
            Ok(file) => read_file(&file),
            Err(e) => vec![Err(e)],
        })
        .collect()
}

/// The files `paths` name, directories expanded as [`read_inputs`] expands them; a path that
/// cannot be listed is an `Err` in its place.
pub fn input_files(paths: &[String]) -> Vec<Result<String, DocumentError>> {
    let mut out = Vec::new();
    for p in paths {
        match expand(p) {
            Ok(files) => out.extend(files.into_iter().map(Ok)),
            Err(e) => out.push(Err(e)),
        }
    }
    out
}

/// The documents of one file (`-`: standard input) as [`read_inputs`] reads them: its
/// documents, or one `Err` when it cannot be read or parsed.
pub fn read_file(file: &str) -> Vec<Input> {
    parse_file(file, read_text(file))
}

/// The documents of `file` (`-`: standard input) as [`read_file`] reads them, from its text as
/// [`read_text`] read it.
pub fn parse_file(file: &str, text: Result<String, DocumentError>) -> Vec<Input> {
    let name = if file == "-" { STDIN_NAME } else { file };
    match text.and_then(|text| parse_documents_as(name, &text)) {
        Ok(docs) => docs.into_iter().map(Ok).collect(),
        Err(e) => vec![Err(e)],
    }
}

/// Reads the documents of every path (directories expanded, `-` for standard input). Files
/// found in directories that do not parse as YAML or JSON objects are skipped (and listed in
/// [`Documents::skipped`]); files named directly must parse.
pub fn read_documents(paths: &[String]) -> Result<Documents, DocumentError> {
    let mut out = Documents::default();
    for p in paths {
        let from_dir = p != "-" && Path::new(p).is_dir();
        for file in expand(p)? {
            let name = if file == "-" { STDIN_NAME } else { &file };
            match read_text(&file).and_then(|text| parse_documents(name, &text)) {
                Ok(docs) => out.documents.extend(docs),
                Err(e) if from_dir => out.skipped.push(e),
                Err(e) => return Err(e),
            }
        }
    }
    Ok(out)
}

/// Splits a YAML or JSON stream into documents, expanding `*List` kinds (each item located at
/// its own line); `source` names it in locations.
pub fn parse_documents(source: &str, text: &str) -> Result<Vec<Document>, DocumentError> {
    parse_documents_as(source, text)
}

/// [`parse_documents`] into documents of `V`: `serde_json` values, or [`JsonBody`]s read
/// straight into the pipeline's tree (a document holding an integer beyond int64 also gets its
/// exact `serde_json` form, read again from the text).
pub fn parse_documents_as<V: DocumentValue>(
    source: &str,
    text: &str,
) -> Result<Vec<Document<V>>, DocumentError> {
    let trimmed = text.trim_start();
    let is_json = trimmed.starts_with('{') || trimmed.starts_with('[');
    // Each document: its line, its value, and the lines of its `items` when it is a list.
    let mut raw: Vec<(usize, V, Vec<usize>)> = Vec::new();
    if is_json {
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<V>();
        // Lines are counted from the previous document's start on, not from the top.
        let mut counted = (0, 1);
        let mut line_at = |offset: usize| {
            let (from, line) = counted;
            let line = line + text[from..offset].matches('\n').count();
            counted = (offset, line);
            line
        };
        loop {
            let start = text.len() - text[stream.byte_offset()..].trim_start().len();
            match stream.next() {
                None => break,
                Some(Ok(v)) => {
                    let line = line_at(start);
                    // Only a list's items are located, which takes a second reading of its text.
                    let items = if is_list(&v) {
                        json_item_offsets(&text[start..stream.byte_offset()])
                            .into_iter()
                            .map(|o| line_at(start + o))
                            .collect()
                    } else {
                        Vec::new()
                    };
                    raw.push((line, v, items));
                }
                Some(Err(e)) => {
                    return Err(DocumentError::Syntax {
                        source: source.to_string(),
                        line: e.line(),
                        column: e.column(),
                        message: e.to_string(),
                    });
                }
            }
        }
    } else {
        let docs = crate::yaml::parse_stream_as::<V::Tree>(
            text,
            Track::ListItems,
            crate::yaml::Reader::Auto,
        )
        .map_err(|e| DocumentError::Syntax {
            source: source.to_string(),
            line: e.position.line,
            column: e.position.column,
            message: e.message,
        })?;
        for mut d in docs {
            let (start, positions) = (d.start, std::mem::take(&mut d.positions));
            let v = V::from_yaml(d);
            let items = (0..v.array_len("items"))
                .map(|i| {
                    positions
                        .locate(&format!("/items/{i}"))
                        .map_or(start.line, |p| p.line)
                })
                .collect();
            raw.push((start.line, v, items));
        }
    }
    if raw.iter().any(|(_, v, _)| v.needs_exact()) {
        let mut exact = exact_forms(text, is_json).into_iter();
        raw = raw
            .into_iter()
            .map(|(line, v, items)| {
                let e = exact.next();
                let v = if v.needs_exact() { v.with_exact(e) } else { v };
                (line, v, items)
            })
            .collect();
    }
    let mut out = Vec::new();
    for (index, (line, v, item_lines)) in raw.into_iter().enumerate() {
        let document = |line, item, value| Document {
            source: source.to_string(),
            line,
            index,
            item,
            value,
        };
        if v.is_null() {
            continue;
        }
        if !v.is_object() {
            return Err(DocumentError::NotAnObject {
                source: source.to_string(),
                line,
            });
        }
        if is_list(&v) {
            for (i, item) in v.take_items("items").into_iter().enumerate() {
                let at = item_lines.get(i).copied().unwrap_or(line);
                out.push(document(at, Some(i), item));
            }
        } else {
            out.push(document(line, None, v));
        }
    }
    Ok(out)
}

/// The documents of a stream `text` (JSON or YAML) as `serde_json` values, in order with the
/// documents read before (empty documents included): the exact forms of documents holding
/// integers beyond int64, which [`Json`] holds as floats. Empty when it does not read (it did
/// before, as [`Json`]).
fn exact_forms(text: &str, is_json: bool) -> Vec<Value> {
    if is_json {
        serde_json::Deserializer::from_str(text)
            .into_iter::<Value>()
            .map_while(Result::ok)
            .collect()
    } else {
        crate::yaml::parse_stream_with(text, Track::ListItems, crate::yaml::Reader::Auto)
            .map(|docs| docs.into_iter().map(|d| d.value).collect())
            .unwrap_or_default()
    }
}

/// Whether `v` is a `*List` document whose `items` are expanded into documents.
fn is_list<V: DocumentValue>(v: &V) -> bool {
    v.str_at("/kind").is_some_and(|k| k.ends_with("List")) && v.has_array("items")
}

/// The byte offsets, in `json` (one JSON value), of the elements of its top-level `items`
/// array; empty when it has none.
fn json_item_offsets(json: &str) -> Vec<usize> {
    #[derive(serde::Deserialize)]
    struct Items<'a> {
        #[serde(borrow, default)]
        items: Option<Vec<&'a serde_json::value::RawValue>>,
    }
    let base = json.as_ptr() as usize;
    serde_json::from_str::<Items<'_>>(json)
        .ok()
        .and_then(|l| l.items)
        .unwrap_or_default()
        .iter()
        .map(|r| r.get().as_ptr() as usize - base)
        .collect()
}

/// A CRD decoded from a document, with the document's `file:line`.
#[derive(Clone, Debug)]
pub struct LocatedCrd {
    /// The CRD.
    pub crd: CustomResourceDefinition,
    /// `file:line` of its document.
    pub location: String,
}

/// Decodes the CRDs among `docs`.
pub fn decode_crds(docs: &[Document]) -> Result<Vec<LocatedCrd>, DocumentError> {
    docs.iter().filter(|d| d.is_crd()).map(decode_crd).collect()
}

/// Decodes `doc` as a CustomResourceDefinition.
pub fn decode_crd<V: DocumentValue>(doc: &Document<V>) -> Result<LocatedCrd, DocumentError> {
    serde_json::from_value::<CustomResourceDefinition>(doc.value.serde_value())
        .map(|crd| LocatedCrd {
            crd,
            location: doc.location(),
        })
        .map_err(|e| DocumentError::Crd {
            source: doc.source.clone(),
            line: doc.line,
            message: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_expand_and_documents_keep_their_lines() {
        let text = "a: 1\n---\nkind: WidgetList\nitems:\n- {kind: Widget}\n- {kind: Widget}\n";
        let docs = parse_documents("f.yaml", text).expect("parses");
        let lines: Vec<usize> = docs.iter().map(|d| d.line).collect();
        assert_eq!(lines, [1, 5, 6]);
        let at: Vec<(usize, Option<usize>)> = docs.iter().map(|d| (d.index, d.item)).collect();
        assert_eq!(at, [(0, None), (1, Some(0)), (1, Some(1))]);
        assert_eq!(docs[1].kind(), "Widget");
    }

    #[test]
    fn json_streams_and_errors_name_file_and_line() {
        let docs = parse_documents("f.json", "{\"kind\":\"A\"}\n\n{\"kind\":\"B\"}").expect("ok");
        assert_eq!(docs[1].location(), "f.json:3");
        let list =
            "{\"kind\": \"List\",\n \"items\": [\n  {\"kind\": \"A\"},\n\n  {\"kind\": \"B\"}]}";
        let docs = parse_documents("l.json", list).expect("ok");
        let lines: Vec<usize> = docs.iter().map(|d| d.line).collect();
        assert_eq!(lines, [3, 5]);
        let mixed = "{\"kind\": \"A\"}\n{\"kind\": \"List\", \"items\": [\n{\"kind\": \"B\"}]}\n\n{\"kind\": \"C\"}";
        let docs = parse_documents("m.json", mixed).expect("ok");
        let lines: Vec<(usize, &str)> = docs.iter().map(|d| (d.line, d.kind())).collect();
        assert_eq!(lines, [(1, "A"), (3, "B"), (5, "C")]);
        let err = parse_documents("f.json", "[1]").expect_err("not an object");
        assert_eq!(err.to_string(), "f.json:1: a document must be an object");
    }
}
