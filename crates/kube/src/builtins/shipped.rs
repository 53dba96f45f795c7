//! The built-in schemas shipped inside kcel (`data/builtins.zst`): kube-apiserver's published
//! OpenAPI v3 definitions for Kubernetes 1.28 to 1.35, stripped to what validation reads
//! ([`super::openapi::strip`]) and deduplicated across releases.
//!
//! Source: the OpenAPI v3 documents kubectl-validate bundles
//! (`pkg/openapiclient/builtins/1.NN`, Kubernetes' own published specs, Apache-2.0; see
//! `data/README.md`). Regenerate with
//! `cargo run -p kcel-kube --example builtin_schemas -- <dir of 1.NN.tar.zst> crates/kube/data/builtins.zst`.
//!
//! Form: one zstd frame whose content is lines of JSON. Line 0 is the index
//! (`{"source", "releases": {"<minor>": {"<apiVersion>": {"kinds": [...], "definitions":
//! {"<name>": <line>}}}}}`); every other line is one definition, shared by every release and
//! group-version whose definition is byte-identical. The frame is decompressed once, on first
//! use; a group-version's definitions are parsed when a validator first needs them.

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::openapi::{GroupVersion, KindEntry, reachable};

/// The shipped data.
static SHIPPED: &[u8] = include_bytes!("../../data/builtins.zst");

/// The oldest and newest releases shipped.
pub const OLDEST_RELEASE: u32 = 28;
/// The newest release shipped; newer Kubernetes versions use it.
pub const NEWEST_RELEASE: u32 = 35;

/// A group-version in the index.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct IndexedGroupVersion {
    kinds: Vec<KindEntry>,
    /// Definition name → line.
    definitions: BTreeMap<String, usize>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Index {
    source: String,
    releases: BTreeMap<u32, BTreeMap<String, IndexedGroupVersion>>,
}

/// The decompressed data.
struct Payload {
    index: Index,
    text: String,
    /// Byte ranges of the lines of `text`.
    lines: Vec<(usize, usize)>,
}

/// Why the shipped data cannot be read (a build that embedded a damaged file).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShippedError {
    /// The zstd stream does not decode to UTF-8 text: the decoder's error text.
    #[error("shipped built-in schemas are damaged: {0}")]
    Decompress(String),
    /// The decoded text is empty.
    #[error("shipped built-in schemas are damaged: empty")]
    Empty,
    /// The index (the first line) is not the JSON expected: serde's error text.
    #[error("shipped built-in schemas are damaged: {0}")]
    Index(String),
    /// The index names a line the text does not have.
    #[error("shipped built-in schemas are damaged: no line {line} for {definition}")]
    NoLine {
        /// The line's number (0-based).
        line: usize,
        /// The definition the index places there.
        definition: String,
    },
    /// A definition's line is not JSON: serde's error text.
    #[error("shipped built-in schemas are damaged: {definition}: {message}")]
    Definition {
        /// The definition's name.
        definition: String,
        /// serde's error text.
        message: String,
    },
}

fn decode(bytes: &[u8]) -> Result<Payload, ShippedError> {
    let decompress = |e: &dyn std::fmt::Display| ShippedError::Decompress(e.to_string());
    let mut decoder = ruzstd::decoding::StreamingDecoder::new(bytes).map_err(|e| decompress(&e))?;
    let mut text = String::new();
    decoder
        .read_to_string(&mut text)
        .map_err(|e| decompress(&e))?;
    let mut lines = Vec::new();
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            lines.push((start, i));
            start = i + 1;
        }
    }
    if start < text.len() {
        lines.push((start, text.len()));
    }
    let (s, e) = *lines.first().ok_or(ShippedError::Empty)?;
    let index: Index =
        serde_json::from_str(&text[s..e]).map_err(|e| ShippedError::Index(e.to_string()))?;
    Ok(Payload { index, text, lines })
}

fn payload() -> Result<&'static Payload, ShippedError> {
    static PAYLOAD: OnceLock<Result<Payload, ShippedError>> = OnceLock::new();
    PAYLOAD
        .get_or_init(|| decode(SHIPPED))
        .as_ref()
        .map_err(Clone::clone)
}

/// Where the shipped schemas come from.
pub fn source() -> Result<&'static str, ShippedError> {
    Ok(&payload()?.index.source)
}

/// The group-versions release `1.<minor>` serves.
pub fn api_versions(minor: u32) -> Result<Vec<&'static str>, ShippedError> {
    Ok(payload()?
        .index
        .releases
        .get(&minor)
        .map(|r| r.keys().map(String::as_str).collect())
        .unwrap_or_default())
}

/// Group-version `api_version` of release `1.<minor>`, its definitions parsed.
pub fn group_version(minor: u32, api_version: &str) -> Result<Option<GroupVersion>, ShippedError> {
    let p = payload()?;
    let Some(gv) = p
        .index
        .releases
        .get(&minor)
        .and_then(|r| r.get(api_version))
    else {
        return Ok(None);
    };
    let mut definitions = BTreeMap::new();
    for (name, &line) in &gv.definitions {
        let &(s, e) = p.lines.get(line).ok_or_else(|| ShippedError::NoLine {
            line,
            definition: name.clone(),
        })?;
        let def: Value =
            serde_json::from_str(&p.text[s..e]).map_err(|e| ShippedError::Definition {
                definition: name.clone(),
                message: e.to_string(),
            })?;
        definitions.insert(name.clone(), def);
    }
    Ok(Some(GroupVersion {
        api_version: api_version.to_string(),
        kinds: gv
            .kinds
            .iter()
            .map(|k| (k.kind.clone(), k.clone()))
            .collect(),
        definitions,
    }))
}

/// The uncompressed shipped form of `releases` (minor → group-versions): each group-version
/// keeps the definitions its kinds reach, identical definitions stored once.
pub fn encode(releases: &BTreeMap<u32, Vec<GroupVersion>>, source: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line_of: BTreeMap<String, usize> = BTreeMap::new();
    let mut index = Index {
        source: source.to_string(),
        releases: BTreeMap::new(),
    };
    for (&minor, gvs) in releases {
        let release = index.releases.entry(minor).or_default();
        for gv in gvs {
            let mut entry = IndexedGroupVersion {
                kinds: gv.kinds.values().cloned().collect(),
                definitions: BTreeMap::new(),
            };
            for k in gv.kinds.values() {
                for name in reachable(&gv.definitions, &k.definition) {
                    let Some(def) = gv.definitions.get(&name) else {
                        continue;
                    };
                    let text = def.to_string();
                    let next = lines.len() + 1;
                    let line = *line_of.entry(text.clone()).or_insert_with(|| {
                        lines.push(text);
                        next
                    });
                    entry.definitions.insert(name, line);
                }
            }
            release.insert(gv.api_version.clone(), entry);
        }
    }
    let mut out = serde_json::to_string(&index).unwrap_or_default();
    for l in lines {
        out.push('\n');
        out.push_str(&l);
    }
    out.push('\n');
    out
}
