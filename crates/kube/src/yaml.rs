//! YAML → JSON, as Kubernetes tooling converts it (`sigs.k8s.io/yaml` over `go-yaml` v2).
//!
//! Kubernetes never reads YAML into its types directly: kubectl and the API server convert YAML
//! to JSON first and decode the JSON. This module does the same conversion, so a YAML form
//! behaves exactly as it would after `kubectl apply`:
//!
//! * plain scalars resolve with YAML 1.1 rules as go-yaml v2 has them: `y`, `yes`, `on`, `true`
//!   (any of `x`, `X`, `Xxx` casings) are booleans, `n`, `no`, `off`, `false` too; `~`, `null`
//!   and the empty scalar are null; integers accept `_`, `0x`, `0o`, `0b` and leading-`0` octal;
//!   `.inf`/`.nan` are floats; timestamps stay strings;
//! * a float is written to JSON the way Go's `encoding/json` writes it, so `1.0` and `1e3` become
//!   the integers `1` and `1000` once the API server decodes the JSON (NaN and infinities are an
//!   error, as `json.Marshal` refuses them);
//! * map keys become strings: booleans `"true"`/`"false"`, integers in decimal, floats with
//!   `strconv.FormatFloat(f, 'g', -1, 32)`; null and collection keys are an error;
//! * quoted and block scalars, and scalars tagged `!!str`, are strings;
//! * anchors and aliases are expanded (with a budget against alias bombs), `<<` merge keys are
//!   applied;
//! * a key that appears twice in one mapping keeps its last value, as go-yaml v2's `Unmarshal`
//!   keeps it (`sigs.k8s.io/yaml.YAMLToJSON`, kubectl's reader); the repeated keys are listed in
//!   [`YamlDocument::duplicates`].
//!
//! The events come from libyaml (`yaml_events.rs`), the C parser go-yaml v2 is a port of,
//! so the same texts parse (or fail) as with kubectl; `yaml-rust2`, used before, follows YAML
//! 1.2's indentation rules and rejected flow collections and quoted scalars that kubectl reads.
//! This module owns scalar resolution (the YAML 1.1 rules above, which no YAML 1.2 library
//! applies) and records the line of every node for error messages. `serde_yaml` is deprecated;
//! its forks (`serde_yml`, `serde_norway`) resolve scalars with YAML 1.2 rules, which would
//! silently differ from Kubernetes.
//!
//! Every node's position is kept in a [`Positions`] table keyed by JSON pointer, so a later error
//! (a wrong type deep in a CRD) can name its line.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use std::sync::Arc;

use serde_json::map::Entry;
use serde_json::{Map, Number, Value};

use crate::values::build::{self as json_build, KeyCache};
use crate::values::{Json, JsonObject};
use crate::yaml_events::{Event, Mark, Parser};
use crate::yaml_fast;

use crate::go::fmt::{FloatStyle, format_float};

/// The deepest nesting of collections accepted in one document.
pub const MAX_YAML_DEPTH: usize = 500;

/// The most JSON nodes one stream may produce, counting alias expansions.
pub const MAX_NODES: usize = 4_000_000;

/// A position in a source text: 1-based line and column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Position {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1.
    pub column: usize,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} column {}", self.line, self.column)
    }
}

/// Positions of the nodes of one document, by JSON pointer (`/spec/versions/0`). Every node of
/// every document is recorded, so the table hashes with `foldhash` (randomly seeded per
/// process), not SipHash.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Positions {
    by_pointer: HashMap<String, Position, foldhash::fast::RandomState>,
}

impl Positions {
    /// The position of the node at `pointer`, or of its nearest recorded ancestor (nodes inside
    /// an expanded alias are located at the alias).
    pub fn locate(&self, pointer: &str) -> Option<Position> {
        let mut p = pointer;
        loop {
            if let Some(pos) = self.by_pointer.get(p) {
                return Some(*pos);
            }
            let cut = p.rfind('/')?;
            p = &p[..cut];
        }
    }

    fn record(&mut self, pointer: String, pos: Position) {
        self.by_pointer.insert(pointer, pos);
    }
}

/// One document of a YAML stream, converted to JSON: as `serde_json` ([`parse_stream`]) or
/// as [`Json`] ([`parse_stream_as`]).
#[derive(Clone, Debug, PartialEq)]
pub struct YamlDocument<V = Value> {
    /// The document as JSON.
    pub value: V,
    /// Where the document's content starts (its `---` line when it is empty).
    pub start: Position,
    /// Where its values are.
    pub positions: Positions,
    /// The JSON pointer (`/spec/a`) of every key repeated in a mapping, in document order; the
    /// last value is kept, as go-yaml v2 keeps it outside strict mode (`yaml.Unmarshal`, which
    /// `sigs.k8s.io/yaml.YAMLToJSON` and so kubectl use).
    pub duplicates: Vec<String>,
    /// Whether the document may hold a `null`: `true` whenever it does (also when a repeated
    /// key or a merge replaced the only one).
    pub has_null: bool,
    /// Whether it holds an integer beyond int64 (or a float read as one): `serde_json` holds
    /// it exactly, [`Json`] as a float.
    pub wide_integers: bool,
}

/// A YAML syntax or conversion error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    /// Where.
    pub position: Position,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.position, self.message)
    }
}

impl std::error::Error for YamlError {}

fn position(mark: &Mark) -> Position {
    Position {
        line: mark.line,
        column: mark.column,
    }
}

/// Escapes a map key for a JSON pointer segment (RFC 6901).
pub(crate) fn pointer_segment(key: &str) -> Cow<'_, str> {
    if key.contains(['~', '/']) {
        Cow::Owned(key.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(key)
    }
}

/// Which node positions a parse records in [`YamlDocument::positions`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Track {
    /// Every node's (for errors deep in a document, as the CRD loader reports them).
    #[default]
    All,
    /// The root's and those of the root's `items` elements (where the documents of a
    /// `kind: List` start), which is all a reader of input documents needs; recording every
    /// node's pointer would cost more than the parse.
    ListItems,
}

/// Which parser reads a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader {
    /// The line-oriented fast path (`yaml_fast.rs`) for the text it knows, libyaml otherwise.
    Auto,
    /// libyaml alone: the reference the fast path is tested against.
    Libyaml,
}

/// Parses a YAML stream into its documents. Empty documents (only comments, or nothing between
/// two `---`) yield `Value::Null`, as `sigs.k8s.io/yaml` does; callers usually skip them.
pub fn parse_stream(text: &str) -> Result<Vec<YamlDocument>, YamlError> {
    parse_stream_with(text, Track::All, Reader::Auto)
}

/// [`parse_stream`] recording the positions `track` names, read by `reader`. Both readers give
/// the same documents, positions and errors: the fast path only reads the text whose libyaml
/// events it reproduces, and gives up (for libyaml to read the whole stream) on anything else.
pub fn parse_stream_with(
    text: &str,
    track: Track,
    reader: Reader,
) -> Result<Vec<YamlDocument>, YamlError> {
    parse_stream_as(text, track, reader)
}

/// [`parse_stream_with`] into documents of `T`: `serde_json` values or [`Json`] trees (the same
/// documents, [`Json`] holding integers beyond int64 as floats, as [`Json::from_serde`] maps
/// them).
pub fn parse_stream_as<T: Tree>(
    text: &str,
    track: Track,
    reader: Reader,
) -> Result<Vec<YamlDocument<T>>, YamlError> {
    if reader == Reader::Auto
        && let Ok(docs) = parse_fast(text, track)
    {
        return Ok(docs);
    }
    let mut parser = Parser::new(text);
    let mut stream = Stream::new(track);
    loop {
        let (event, mark) = parser.next().map_err(|e| YamlError {
            position: position(&e.mark),
            message: e.message,
        })?;
        if stream.event(event, &mark)? {
            return Ok(stream.docs);
        }
    }
}

/// Whether the fast path reads `text` (rather than giving it to libyaml).
pub fn fast_path_reads(text: &str) -> bool {
    fast_path_gives_up(text).is_none()
}

/// Why the fast path leaves `text` to libyaml, for the tests' statistics: the line of
/// `yaml_fast.rs` that gave up (`yaml_fast.rs:LINE`), or that the documents it read do not
/// convert; `None` when it reads `text`.
pub fn fast_path_gives_up(text: &str) -> Option<String> {
    parse_fast::<Value>(text, Track::ListItems)
        .err()
        .map(|reason| match reason {
            FastPathMiss::GaveUp(at) => format!("yaml_fast.rs:{}", at.line()),
            FastPathMiss::Conversion => "the documents do not convert".to_string(),
        })
}

/// Why the fast path did not give documents.
enum FastPathMiss {
    /// The reader gave up at this place of `yaml_fast.rs`.
    GaveUp(&'static std::panic::Location<'static>),
    /// The events it read do not make documents (an error libyaml reports).
    Conversion,
}

/// The documents of `text` through the fast path, or why not: it gave up, or the documents it
/// read do not convert (libyaml then reads the stream again and reports the error: the fast
/// path may have read part of a construct it gives up on later).
fn parse_fast<T: Tree>(text: &str, track: Track) -> Result<Vec<YamlDocument<T>>, FastPathMiss> {
    let mut stream = Stream::new(track);
    let mut failed = false;
    let read = yaml_fast::read(text, |event, mark| match stream.event(event, &mark) {
        Ok(_) => true,
        Err(_) => {
            failed = true;
            false
        }
    });
    match read {
        _ if failed => Err(FastPathMiss::Conversion),
        Err(yaml_fast::GaveUp(at)) => Err(FastPathMiss::GaveUp(at)),
        Ok(()) => Ok(stream.docs),
    }
}

/// Events into documents.
struct Stream<T: Tree> {
    builder: Builder<T>,
    docs: Vec<YamlDocument<T>>,
}

impl<T: Tree> Stream<T> {
    fn new(track: Track) -> Stream<T> {
        Stream {
            builder: Builder::new(track),
            docs: Vec::new(),
        }
    }

    /// Takes one event; `true` at the end of the stream.
    fn event(&mut self, event: Event<'_>, mark: &Mark) -> Result<bool, YamlError> {
        match event {
            Event::StreamEnd => return Ok(true),
            Event::StreamStart => {}
            Event::DocumentStart => self.builder.start_document(position(mark)),
            Event::DocumentEnd => {
                if let Some(doc) = self.builder.finish_document() {
                    self.docs.push(doc);
                }
            }
            other => self.builder.event(other, mark)?,
        }
        Ok(false)
    }
}

/// A collection being built.
enum Frame<T: Tree> {
    Seq {
        items: Vec<T>,
        anchor: usize,
    },
    Map {
        map: T::Map,
        key: Option<(T::Key, Position)>,
        /// Keys that came from `<<` merges: an explicit key may override them once.
        merged: Vec<T::Key>,
        anchor: usize,
    },
}

/// An anchored node of the current document: its value, its node count, and the key it makes
/// when an alias of it is a map key (a scalar's text as `sigs.k8s.io/yaml` prints it; `None`
/// for null and collections, which are no keys).
struct Anchored<T> {
    value: T,
    nodes: usize,
    key: Option<String>,
}

struct Builder<T: Tree> {
    track: Track,
    stack: Vec<Frame<T>>,
    /// Anchored nodes of the current document, by anchor id.
    anchors: HashMap<usize, Anchored<T>>,
    root: Option<T>,
    start: Position,
    positions: Positions,
    nodes: usize,
    /// JSON pointers of the keys repeated in the current document.
    duplicates: Vec<String>,
    /// Whether the current document produced a `null` value.
    has_null: bool,
    /// Whether the current document produced an integer beyond int64.
    wide_integers: bool,
    /// Anchor names to the ids of their latest definitions.
    anchor_ids: HashMap<String, usize>,
    anchor_ids_next: usize,
    /// The keys of the stream, shared by the objects that repeat them.
    keys: T::Keys,
}

/// What documents are built of: `serde_json` values (the CRD loader and other `serde_json`
/// readers) or [`Json`] trees (the objects the pipeline validates), with the same entries in
/// the same order, a repeated key keeping its first position and its last value.
pub trait Tree: Clone + Sized {
    /// An object key.
    type Key: AsRef<str> + Clone;
    /// An object being built.
    type Map;
    /// What keys are made with (shared keys, for [`Json`]).
    type Keys: Default;
    /// The key `key` of the entry at `position` of an object at `depth`.
    fn key(keys: &mut Self::Keys, depth: usize, position: usize, key: Cow<'_, str>) -> Self::Key;
    /// An empty object.
    fn new_map() -> Self::Map;
    /// How many entries `map` has.
    fn map_len(map: &Self::Map) -> usize;
    /// Whether `map` has `key`.
    fn map_contains(map: &Self::Map, key: &str) -> bool;
    /// Sets `key`; `true` when it was set already (it keeps its position, takes the value).
    fn map_insert(map: &mut Self::Map, key: Self::Key, value: Self) -> bool;
    /// A resolved scalar (as `json_scalar` resolves it: no float that JSON writes as an integer, no
    /// infinity or NaN).
    fn scalar(scalar: Scalar<'_>) -> Self;
    /// An array.
    fn array(items: Vec<Self>) -> Self;
    /// An object.
    fn object(map: Self::Map) -> Self;
    /// The entries of an object, or the value back when it is none.
    fn into_entries(self) -> Result<Vec<(Self::Key, Self)>, Self>;
    /// The items of an array.
    fn into_items(self) -> Option<Vec<Self>>;
    /// Pushes the value's items or entry values onto `stack`.
    fn push_children<'a>(&'a self, stack: &mut Vec<&'a Self>);

    /// How many nodes the value has (itself included).
    fn count_nodes(&self) -> usize {
        let mut n = 0usize;
        let mut stack = vec![self];
        while let Some(v) = stack.pop() {
            n += 1;
            v.push_children(&mut stack);
        }
        n
    }
}

/// A resolved scalar, before it becomes a JSON value or a key.
#[doc(hidden)]
pub enum Scalar<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Str(Cow<'a, str>),
}

impl<T: Tree> Builder<T> {
    fn new(track: Track) -> Builder<T> {
        Builder {
            track,
            stack: Vec::new(),
            anchors: HashMap::new(),
            root: None,
            start: Position::default(),
            positions: Positions::default(),
            nodes: 0,
            duplicates: Vec::new(),
            has_null: false,
            wide_integers: false,
            anchor_ids: HashMap::new(),
            anchor_ids_next: 0,
            keys: T::Keys::default(),
        }
    }

    fn start_document(&mut self, start: Position) {
        self.stack.clear();
        self.anchors.clear();
        self.root = None;
        self.start = start;
        self.positions = Positions::default();
        self.duplicates.clear();
        self.has_null = false;
        self.wide_integers = false;
        self.anchor_ids.clear();
    }

    fn finish_document(&mut self) -> Option<YamlDocument<T>> {
        let value = match self.root.take() {
            Some(v) => v,
            None => {
                self.has_null = true;
                T::scalar(Scalar::Null)
            }
        };
        Some(YamlDocument {
            value,
            start: self
                .positions
                .by_pointer
                .get("")
                .copied()
                .unwrap_or(self.start),
            positions: std::mem::take(&mut self.positions),
            duplicates: std::mem::take(&mut self.duplicates),
            has_null: self.has_null,
            wide_integers: self.wide_integers,
        })
    }

    fn count(&mut self, n: usize, pos: Position) -> Result<(), YamlError> {
        self.nodes = self.nodes.saturating_add(n);
        if self.nodes > MAX_NODES {
            return Err(YamlError {
                position: pos,
                message: format!(
                    "document contains excessive aliasing (more than {MAX_NODES} nodes)"
                ),
            });
        }
        Ok(())
    }

    /// Whether the node that comes next is a map key.
    fn next_is_key(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Map { key: None, .. }))
    }

    /// The JSON pointer of the collection at `depth` of the stack: the keys and indices under
    /// which its ancestors hold it while it is built.
    fn pointer_at(&self, depth: usize) -> String {
        let mut out = String::new();
        for frame in &self.stack[..depth] {
            out.push('/');
            match frame {
                Frame::Seq { items, .. } => out.push_str(&items.len().to_string()),
                Frame::Map {
                    key: Some((k, _)), ..
                } => out.push_str(&pointer_segment(k.as_ref())),
                // A key being built is a scalar: a collection never sits under a map without one.
                Frame::Map { key: None, .. } => {}
            }
        }
        out
    }

    /// Records `pos` for the node that comes next (not a map key), as `track` asks.
    fn record_next(&mut self, pos: Position) {
        let depth = self.stack.len();
        match self.track {
            Track::All => {
                let pointer = self.pointer_at(depth);
                self.positions.record(pointer, pos);
            }
            Track::ListItems => {
                let is_item = depth == 2
                    && matches!(&self.stack[0], Frame::Map { key: Some((k, _)), .. } if k.as_ref() == "items")
                    && matches!(self.stack[1], Frame::Seq { .. });
                if depth == 0 || is_item {
                    let pointer = self.pointer_at(depth);
                    self.positions.record(pointer, pos);
                }
            }
        }
    }

    /// The id of a newly defined anchor (0: none). A later definition of the same name replaces
    /// the earlier one for the aliases that follow it.
    fn define_anchor(&mut self, name: Option<String>) -> usize {
        let Some(name) = name else {
            return 0;
        };
        self.anchor_ids_next += 1;
        self.anchor_ids.insert(name, self.anchor_ids_next);
        self.anchor_ids_next
    }

    fn event(&mut self, event: Event<'_>, mark: &Mark) -> Result<(), YamlError> {
        let pos = position(mark);
        let is_key = self.next_is_key();
        let is_seq = matches!(event, Event::SequenceStart { .. });
        match event {
            Event::Scalar {
                value: text,
                plain,
                tag,
                anchor,
            } => {
                self.count(1, pos)?;
                let anchor = self.define_anchor(anchor);
                let is_str_tag = tag.as_deref() == Some("tag:yaml.org,2002:str");
                let scalar = if !plain || is_str_tag {
                    Scalar::Str(text)
                } else {
                    resolve_plain(text)
                };
                if is_key {
                    let key = key_string(scalar, pos)?;
                    return self.set_key(key, pos);
                }
                let scalar = json_scalar(scalar, pos)?;
                match scalar {
                    Scalar::Null => self.has_null = true,
                    Scalar::Uint(_) => self.wide_integers = true,
                    _ => {}
                }
                let key = (anchor > 0).then(|| alias_key(&scalar)).flatten();
                let value = T::scalar(scalar);
                self.record_next(pos);
                if anchor > 0 {
                    let anchored = Anchored {
                        value: value.clone(),
                        nodes: 1,
                        key,
                    };
                    self.anchors.insert(anchor, anchored);
                }
                self.push_value(value, pos)
            }
            Event::Alias(name) => {
                let found = self
                    .anchor_ids
                    .get(&name)
                    .and_then(|id| self.anchors.get(id));
                let Some(anchored) = found else {
                    return Err(YamlError {
                        position: pos,
                        message: format!(
                            "unknown anchor {} referenced",
                            crate::go::fmt::quote(&name)
                        ),
                    });
                };
                let (nodes, key) = (anchored.nodes, anchored.key.clone());
                let value = anchored.value.clone();
                self.count(nodes, pos)?;
                if is_key {
                    return match key {
                        Some(k) => self.set_key(Cow::Owned(k), pos),
                        None => Err(unsupported_key(pos)),
                    };
                }
                self.record_next(pos);
                self.push_value(value, pos)
            }
            Event::SequenceStart { anchor } | Event::MappingStart { anchor } => {
                if is_key {
                    return Err(unsupported_key(pos));
                }
                if self.stack.len() >= MAX_YAML_DEPTH {
                    return Err(YamlError {
                        position: pos,
                        message: format!("nesting deeper than {MAX_YAML_DEPTH} levels"),
                    });
                }
                self.count(1, pos)?;
                let anchor = self.define_anchor(anchor);
                self.record_next(pos);
                let frame = if is_seq {
                    Frame::Seq {
                        items: Vec::new(),
                        anchor,
                    }
                } else {
                    Frame::Map {
                        map: T::new_map(),
                        key: None,
                        merged: Vec::new(),
                        anchor,
                    }
                };
                self.stack.push(frame);
                Ok(())
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(frame) = self.stack.pop() else {
                    return Err(YamlError {
                        position: pos,
                        message: "unbalanced collection end".into(),
                    });
                };
                let (value, anchor) = match frame {
                    Frame::Seq { items, anchor, .. } => (T::array(items), anchor),
                    Frame::Map { map, anchor, .. } => (T::object(map), anchor),
                };
                if anchor > 0 {
                    let anchored = Anchored {
                        nodes: value.count_nodes(),
                        value: value.clone(),
                        key: None,
                    };
                    self.anchors.insert(anchor, anchored);
                }
                self.push_value(value, pos)
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentStart | Event::DocumentEnd => {
                Ok(())
            }
        }
    }

    fn set_key(&mut self, key: Cow<'_, str>, pos: Position) -> Result<(), YamlError> {
        let depth = self.stack.len();
        if let Some(Frame::Map { map, key: slot, .. }) = self.stack.last_mut() {
            let key = T::key(&mut self.keys, depth, T::map_len(map), key);
            *slot = Some((key, pos));
        }
        Ok(())
    }

    fn push_value(&mut self, value: T, pos: Position) -> Result<(), YamlError> {
        let depth = self.stack.len();
        let repeated = match self.stack.last_mut() {
            None => {
                self.root = Some(value);
                return Ok(());
            }
            Some(Frame::Seq { items, .. }) => {
                items.push(value);
                return Ok(());
            }
            Some(Frame::Map {
                map, key, merged, ..
            }) => {
                let Some((k, key_pos)) = key.take() else {
                    return Err(YamlError {
                        position: pos,
                        message: "mapping value without key".into(),
                    });
                };
                if k.as_ref() == "<<" {
                    return merge::<T>(map, merged, value, key_pos);
                }
                let from_merge = merged.iter().position(|m| m.as_ref() == k.as_ref());
                if let Some(i) = from_merge {
                    merged.swap_remove(i);
                }
                let segment = from_merge.is_none().then(|| k.clone());
                // A repeated key keeps its place and takes the new value.
                let repeated = T::map_insert(map, k, value);
                segment
                    .filter(|_| repeated)
                    .map(|k| pointer_segment(k.as_ref()).into_owned())
            }
        };
        if let Some(segment) = repeated {
            let pointer = self.pointer_at(depth - 1);
            self.duplicates.push(format!("{pointer}/{segment}"));
        }
        Ok(())
    }
}

/// Applies a `<<` merge key: the entries of a mapping (or of each mapping of a sequence, first
/// one winning) are added where the key is not set yet.
fn merge<T: Tree>(
    map: &mut T::Map,
    merged: &mut Vec<T::Key>,
    value: T,
    pos: Position,
) -> Result<(), YamlError> {
    let sources = match value.into_entries() {
        Ok(entries) => vec![entries],
        Err(value) => {
            let items = value.into_items().ok_or_else(|| merge_error(pos))?;
            let mut maps = Vec::with_capacity(items.len());
            for item in items {
                maps.push(item.into_entries().map_err(|_| merge_error(pos))?);
            }
            maps
        }
    };
    for source in sources {
        for (k, v) in source {
            if !T::map_contains(map, k.as_ref()) {
                merged.push(k.clone());
                T::map_insert(map, k, v);
            }
        }
    }
    Ok(())
}

fn merge_error(pos: Position) -> YamlError {
    YamlError {
        position: pos,
        message: "map merge requires map or sequence of maps as the value".into(),
    }
}

fn unsupported_key(pos: Position) -> YamlError {
    YamlError {
        position: pos,
        message: "unsupported map key: keys must be scalars".into(),
    }
}

/// A map key as `sigs.k8s.io/yaml` writes it into JSON.
fn key_string(s: Scalar<'_>, pos: Position) -> Result<Cow<'_, str>, YamlError> {
    Ok(match s {
        Scalar::Str(s) => s,
        Scalar::Bool(b) => Cow::Borrowed(if b { "true" } else { "false" }),
        Scalar::Int(i) => i.to_string().into(),
        Scalar::Uint(u) => u.to_string().into(),
        Scalar::Float(f) if f.is_nan() => ".nan".into(),
        Scalar::Float(f) if f.is_infinite() => if f > 0.0 { ".inf" } else { "-.inf" }.into(),
        Scalar::Float(f) => format_float(f, true, FloatStyle::G).into(),
        Scalar::Null => {
            return Err(YamlError {
                position: pos,
                message: "unsupported map key: null".into(),
            });
        }
    })
}

/// The key an alias of the anchored scalar `s` (a [`json_scalar`]) makes: its JSON value
/// printed as `sigs.k8s.io/yaml` prints a key; `None` for null, which is no key.
fn alias_key(s: &Scalar<'_>) -> Option<String> {
    Some(match s {
        Scalar::Null => return None,
        Scalar::Str(s) => s.to_string(),
        Scalar::Bool(b) => b.to_string(),
        Scalar::Int(i) => i.to_string(),
        Scalar::Uint(u) => u.to_string(),
        Scalar::Float(f) => Number::from_f64(*f)?.to_string(),
    })
}

/// A scalar as it reads back after Go's `json.Marshal` and the API server's decoding: a float
/// that JSON writes without fraction or exponent becomes an integer; infinities and NaN are an
/// error.
fn json_scalar(s: Scalar<'_>, pos: Position) -> Result<Scalar<'_>, YamlError> {
    Ok(match s {
        Scalar::Float(f) => {
            if !f.is_finite() {
                return Err(YamlError {
                    position: pos,
                    message: format!(
                        "json: unsupported value: {}",
                        format_float(f, false, FloatStyle::G)
                    ),
                });
            }
            // encoding/json writes integral floats below 1e21 without fraction or exponent.
            if f.fract() == 0.0 && f.abs() < 1e21 {
                if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
                    return Ok(Scalar::Int(f as i64));
                }
                if (0.0..1.844_674_407_370_955_2e19).contains(&f) {
                    return Ok(Scalar::Uint(f as u64));
                }
            }
            Scalar::Float(f)
        }
        other => other,
    })
}

impl Tree for Value {
    type Key = String;
    type Map = Map<String, Value>;
    type Keys = ();

    fn key(_: &mut (), _: usize, _: usize, key: Cow<'_, str>) -> String {
        key.into_owned()
    }

    fn new_map() -> Self::Map {
        Map::new()
    }

    fn map_len(map: &Self::Map) -> usize {
        map.len()
    }

    fn map_contains(map: &Self::Map, key: &str) -> bool {
        map.contains_key(key)
    }

    fn map_insert(map: &mut Self::Map, key: String, value: Value) -> bool {
        // One lookup: a repeated key keeps its place and takes the new value.
        match map.entry(key) {
            Entry::Vacant(slot) => {
                slot.insert(value);
                false
            }
            Entry::Occupied(mut slot) => {
                slot.insert(value);
                true
            }
        }
    }

    fn scalar(scalar: Scalar<'_>) -> Value {
        match scalar {
            Scalar::Null => Value::Null,
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Int(i) => Value::Number(i.into()),
            Scalar::Uint(u) => Value::Number(u.into()),
            Scalar::Str(s) => Value::String(s.into_owned()),
            Scalar::Float(f) => Number::from_f64(f).map_or(Value::Null, Value::Number),
        }
    }

    fn array(items: Vec<Value>) -> Value {
        Value::Array(items)
    }

    fn object(map: Self::Map) -> Value {
        Value::Object(map)
    }

    fn into_entries(self) -> Result<Vec<(String, Value)>, Value> {
        match self {
            Value::Object(m) => Ok(m.into_iter().collect()),
            other => Err(other),
        }
    }

    fn into_items(self) -> Option<Vec<Value>> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    fn push_children<'a>(&'a self, stack: &mut Vec<&'a Value>) {
        match self {
            Value::Array(a) => stack.extend(a.iter()),
            Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
}

impl Tree for Json {
    type Key = Arc<str>;
    type Map = JsonObject;
    type Keys = KeyCache;

    fn key(keys: &mut KeyCache, depth: usize, position: usize, key: Cow<'_, str>) -> Arc<str> {
        keys.key(depth, position, &key)
    }

    fn new_map() -> JsonObject {
        JsonObject::default()
    }

    fn map_len(map: &JsonObject) -> usize {
        map.len()
    }

    fn map_contains(map: &JsonObject, key: &str) -> bool {
        map.contains_key(key)
    }

    fn map_insert(map: &mut JsonObject, key: Arc<str>, value: Json) -> bool {
        map.insert(key, value).is_some()
    }

    fn scalar(scalar: Scalar<'_>) -> Json {
        match scalar {
            Scalar::Null => Json::Null,
            Scalar::Bool(b) => Json::Bool(b),
            Scalar::Int(i) => Json::Int(i),
            Scalar::Uint(u) => json_build::wide_integer(u),
            Scalar::Str(s) => Json::String(s.as_ref().into()),
            Scalar::Float(f) => Json::Double(f),
        }
    }

    fn array(items: Vec<Json>) -> Json {
        json_build::array(items)
    }

    fn object(map: JsonObject) -> Json {
        json_build::object(map)
    }

    fn into_entries(self) -> Result<Vec<(Arc<str>, Json)>, Json> {
        match self {
            Json::Object(o) => Ok(o.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
            other => Err(other),
        }
    }

    fn into_items(self) -> Option<Vec<Json>> {
        match self {
            Json::Array(items) => Some(items.to_vec()),
            _ => None,
        }
    }

    fn push_children<'a>(&'a self, stack: &mut Vec<&'a Json>) {
        match self {
            Json::Array(a) => stack.extend(a.iter()),
            Json::Object(o) => stack.extend(o.iter().map(|(_, x)| x)),
            _ => {}
        }
    }
}

/// go-yaml v2's resolution of a plain scalar.
fn resolve_plain(text: Cow<'_, str>) -> Scalar<'_> {
    match text.as_ref() {
        "" | "~" | "null" | "Null" | "NULL" => return Scalar::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            return Scalar::Bool(true);
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            return Scalar::Bool(false);
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Scalar::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Scalar::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Scalar::Float(f64::NAN),
        _ => {}
    }
    let first = text.as_bytes().first().copied().unwrap_or(b' ');
    if !matches!(first, b'-' | b'+' | b'.' | b'0'..=b'9') {
        return Scalar::Str(text);
    }
    let plain = if text.contains('_') {
        Cow::Owned(text.replace('_', ""))
    } else {
        Cow::Borrowed(text.as_ref())
    };
    if let Some(i) = go_parse_int(&plain) {
        return Scalar::Int(i);
    }
    if let Some(u) = go_parse_uint(&plain) {
        return Scalar::Uint(u);
    }
    if is_yaml_float(&plain)
        && let Ok(f) = plain.parse::<f64>()
    {
        return Scalar::Float(f);
    }
    Scalar::Str(text)
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'-' | b'+')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Splits a Go base-0 integer literal (without sign) into radix and digits.
fn go_radix(s: &str) -> (u32, &str) {
    let b = s.as_bytes();
    if b.len() >= 2 && b[0] == b'0' {
        match b[1] {
            b'x' | b'X' => return (16, &s[2..]),
            b'o' | b'O' => return (8, &s[2..]),
            b'b' | b'B' => return (2, &s[2..]),
            _ => return (8, &s[1..]),
        }
    }
    (10, s)
}

/// Go's `strconv.ParseUint(s, 0, 64)` (underscores already removed).
fn go_parse_uint(s: &str) -> Option<u64> {
    let (radix, digits) = go_radix(s);
    if digits.is_empty() || !digits.bytes().all(|c| (c as char).is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// Go's `strconv.ParseInt(s, 0, 64)` (underscores already removed).
fn go_parse_int(s: &str) -> Option<i64> {
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let u = go_parse_uint(rest)?;
    if negative {
        if u <= i64::MAX as u64 + 1 {
            Some((u as i64).wrapping_neg())
        } else {
            None
        }
    } else {
        i64::try_from(u).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(text: &str) -> Value {
        let docs = parse_stream(text).expect("parses");
        assert_eq!(docs.len(), 1);
        docs.into_iter().next().map(|d| d.value).unwrap_or_default()
    }

    #[test]
    fn yaml_1_1_scalars() {
        let v = one(
            "a: yes\nb: off\nc: ~\nd: 0x1F\ne: 017\nf: 1_000\ng: 1.0\nh: 1e3\ni: 2.5\nj: '5'\nk: 2024-01-01\nl: 0b101\nm: -12\nbig: 18446744073709551615\no: 08\n",
        );
        assert_eq!(
            v,
            json!({"a": true, "b": false, "c": null, "d": 31, "e": 15, "f": 1000, "g": 1, "h": 1000,
                   "i": 2.5, "j": "5", "k": "2024-01-01", "l": 5, "m": -12,
                   "big": 18446744073709551615u64, "o": 8})
        );
    }

    #[test]
    fn keys_become_strings() {
        let v = one("y: 1\n1: 2\n1.5: 3\n1e6: 5\nnull_: 6\n");
        assert_eq!(
            v,
            json!({"true": 1, "1": 2, "1.5": 3, "1e+06": 5, "null_": 6})
        );
        // `y` and `true` are the same key once resolved: the last one wins.
        assert_eq!(one("y: 1\ntrue: 2\n"), json!({"true": 2}));
        assert!(parse_stream("~: 1\n").is_err());
        assert!(parse_stream("? [a]\n: 1\n").is_err());
    }

    #[test]
    fn flow_and_quoted_scalars_continued_at_the_key_column() {
        // argo-workflows and tekton examples: go-yaml (libyaml) reads these, YAML 1.2
        // parsers reject them.
        let v = one("a:\n  args: [\"x\",\n  \"y\"\n  ]\n  s: \"one\n  two\"\nb: 1\n");
        assert_eq!(
            v,
            json!({"a": {"args": ["x", "y"], "s": "one two"}, "b": 1})
        );
    }

    #[test]
    fn duplicate_keys_keep_the_last_value_and_are_listed() {
        let docs = parse_stream("a: 1\nb: {c: 1, c: 2}\na: 3\n---\nx: 1\n").expect("parses");
        assert_eq!(docs[0].value, serde_json::json!({"a": 3, "b": {"c": 2}}));
        assert_eq!(docs[0].duplicates, ["/b/c", "/a"]);
        assert!(docs[1].duplicates.is_empty());
        // A key set by a merge may be set once more without being a repetition.
        let docs = parse_stream("base: &b {k: 1}\nm:\n  <<: *b\n  k: 2\n").expect("parses");
        assert_eq!(docs[0].value["m"], serde_json::json!({"k": 2}));
        assert!(docs[0].duplicates.is_empty());
    }

    #[test]
    fn multi_document_and_positions() {
        let docs = parse_stream("---\na: 1\n---\n# only a comment\n---\nb:\n  - x\n  - q: 2\n")
            .expect("parses");
        assert_eq!(docs.len(), 3);
        assert_eq!(docs[1].value, Value::Null);
        assert_eq!(docs[2].value, json!({"b": ["x", {"q": 2}]}));
        assert_eq!(docs[2].positions.locate("/b/1/q").map(|p| p.line), Some(8));
        assert_eq!(
            docs[2].positions.locate("/b/1/q/zzz").map(|p| p.line),
            Some(8)
        );
    }

    #[test]
    fn anchors_and_merge() {
        let v = one("base: &b {p: 1, q: 2}\nd:\n  <<: *b\n  q: 3\nl: *b\n");
        assert_eq!(
            v,
            json!({"base": {"p": 1, "q": 2}, "d": {"p": 1, "q": 3}, "l": {"p": 1, "q": 2}})
        );
    }

    #[test]
    fn alias_bomb_is_bounded() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let err = parse_stream(&text).expect_err("bounded");
        assert!(err.message.contains("excessive aliasing"));
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let text = "[".repeat(10_000);
        assert!(parse_stream(&text).is_err());
    }

    #[test]
    fn infinity_cannot_become_json() {
        assert!(parse_stream("a: .inf\n").is_err());
        assert!(parse_stream("a: '.inf'\n").is_ok());
    }
}
