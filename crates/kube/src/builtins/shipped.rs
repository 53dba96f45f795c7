//! The built-in schemas shipped inside kcel (`data/builtins.zst`): kube-apiserver's published
//! OpenAPI v3 definitions for Kubernetes 1.28 to 1.35, stripped to what validation reads
//! ([`super::openapi::strip`]) and deduplicated across releases.
//!
//! Source: the OpenAPI v3 documents kubectl-validate bundles
//! (`pkg/openapiclient/builtins/1.NN`, Kubernetes' own published specs, Apache-2.0; see
//! `data/README.md`). Regenerate with
//! `cargo run -p kcel-kube --example builtin_schemas -- <dir of 1.NN.tar.zst> crates/kube/data/builtins.zst`.
//!
//! Form: zstd frames, so that a run decompresses only what it reads. First a skippable frame
//! (magic `0x184D2A50`) holding the compressed length of each following frame (little-endian
//! `u32`s); then the header frame, JSON `{"source", "releases": {"<minor>": <frame>},
//! "definitions": [<first line of each definition frame>]}`; then one frame per release, its
//! index, JSON `{"<apiVersion>": {"kinds": [...], "definitions": {"<name>": <line>}}}`; then the
//! definition frames, the last `definitions.len()` frames, lines of JSON numbered across them
//! from 0: every line is one definition, shared by every release and group-version whose
//! definition is byte-identical. Definitions are grouped by the group-version of the newest
//! release that uses them, groups merged up to [`MIN_FRAME_BYTES`], so that the group-versions a
//! run validates decompress a few frames. `zstd -d` reads the file as the header, the indexes
//! and the definitions, one per line. Each frame is decompressed once, on first use; a
//! group-version's definitions are parsed when a validator first needs them.

use std::collections::{BTreeMap, HashMap, HashSet};
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

/// The size a definition frame grows to, at least, before the next group starts another one
/// (uncompressed bytes; small frames compress poorly).
pub const MIN_FRAME_BYTES: usize = 16 << 10;

/// The magic number of the skippable frame holding the frames' lengths (zstd's first
/// skippable-frame magic).
const SKIPPABLE_MAGIC: u32 = 0x184D_2A50;

/// A group-version in a release's index.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct IndexedGroupVersion {
    kinds: Vec<KindEntry>,
    /// Definition name → line.
    definitions: BTreeMap<String, usize>,
}

/// A release's index: its group-versions.
type ReleaseIndex = BTreeMap<String, IndexedGroupVersion>;

/// The header frame.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Header {
    source: String,
    /// Release minor → the frame of its index.
    releases: BTreeMap<u32, usize>,
    /// The first line of each definition frame (ascending).
    definitions: Vec<usize>,
}

/// Decompressed text cut into lines.
struct Lines {
    text: String,
    /// Byte ranges of the lines of `text`.
    lines: Vec<(usize, usize)>,
}

/// The shipped data: its header read, the other frames decompressed when first read.
struct Payload {
    header: Header,
    /// Every frame, compressed.
    frames: Vec<&'static [u8]>,
    /// Each release's index, by minor.
    releases: BTreeMap<u32, OnceLock<Result<ReleaseIndex, ShippedError>>>,
    /// Each definition frame's lines.
    definitions: Vec<OnceLock<Result<Lines, ShippedError>>>,
}

/// Why the shipped data cannot be read (a build that embedded a damaged file).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShippedError {
    /// The zstd stream does not decode to UTF-8 text: the decoder's error text.
    #[error("shipped built-in schemas are damaged: {0}")]
    Decompress(String),
    /// The frames are not laid out as the skippable frame says.
    #[error("shipped built-in schemas are damaged: bad frame table")]
    Frames,
    /// The header or an index is not the JSON expected: serde's error text.
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

/// The frames of `bytes` after the skippable frame of their lengths.
fn split_frames(bytes: &[u8]) -> Result<Vec<&[u8]>, ShippedError> {
    let word = |b: &[u8], at: usize| -> Result<usize, ShippedError> {
        let w: [u8; 4] = b
            .get(at..at + 4)
            .and_then(|s| s.try_into().ok())
            .ok_or(ShippedError::Frames)?;
        usize::try_from(u32::from_le_bytes(w)).map_err(|_| ShippedError::Frames)
    };
    if word(bytes, 0)? != SKIPPABLE_MAGIC as usize {
        return Err(ShippedError::Frames);
    }
    let table_len = word(bytes, 4)?;
    if table_len % 4 != 0 {
        return Err(ShippedError::Frames);
    }
    let table = bytes.get(8..8 + table_len).ok_or(ShippedError::Frames)?;
    let mut rest = &bytes[8 + table_len..];
    let mut frames = Vec::with_capacity(table_len / 4);
    for i in 0..table_len / 4 {
        let len = word(table, 4 * i)?;
        let (frame, after) = rest.split_at_checked(len).ok_or(ShippedError::Frames)?;
        frames.push(frame);
        rest = after;
    }
    if !rest.is_empty() {
        return Err(ShippedError::Frames);
    }
    Ok(frames)
}

/// One frame decompressed.
fn decompress(frame: &[u8]) -> Result<String, ShippedError> {
    let decompress = |e: &dyn std::fmt::Display| ShippedError::Decompress(e.to_string());
    let mut decoder = ruzstd::decoding::StreamingDecoder::new(frame).map_err(|e| decompress(&e))?;
    let mut text = String::new();
    decoder
        .read_to_string(&mut text)
        .map_err(|e| decompress(&e))?;
    Ok(text)
}

fn parse_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ShippedError> {
    serde_json::from_str(text).map_err(|e| ShippedError::Index(e.to_string()))
}

fn decode(bytes: &'static [u8]) -> Result<Payload, ShippedError> {
    let frames = split_frames(bytes)?;
    let header: Header = parse_json(&decompress(frames.first().ok_or(ShippedError::Frames)?)?)?;
    if header.definitions.len() > frames.len()
        || header
            .releases
            .values()
            .any(|&f| f == 0 || f >= frames.len())
    {
        return Err(ShippedError::Frames);
    }
    Ok(Payload {
        releases: header
            .releases
            .keys()
            .map(|&m| (m, OnceLock::new()))
            .collect(),
        definitions: header.definitions.iter().map(|_| OnceLock::new()).collect(),
        header,
        frames,
    })
}

fn payload() -> Result<&'static Payload, ShippedError> {
    static PAYLOAD: OnceLock<Result<Payload, ShippedError>> = OnceLock::new();
    PAYLOAD
        .get_or_init(|| decode(SHIPPED))
        .as_ref()
        .map_err(Clone::clone)
}

impl Payload {
    /// The index of release `1.<minor>`, if shipped.
    fn release(&self, minor: u32) -> Result<Option<&ReleaseIndex>, ShippedError> {
        let (Some(cell), Some(&frame)) =
            (self.releases.get(&minor), self.header.releases.get(&minor))
        else {
            return Ok(None);
        };
        cell.get_or_init(|| parse_json(&decompress(self.frames[frame])?))
            .as_ref()
            .map(Some)
            .map_err(Clone::clone)
    }

    /// The text of definition line `line` (`definition` names it in errors).
    fn line(&self, line: usize, definition: &str) -> Result<&str, ShippedError> {
        let no_line = || ShippedError::NoLine {
            line,
            definition: definition.to_string(),
        };
        let k = self
            .header
            .definitions
            .partition_point(|&first| first <= line)
            .checked_sub(1)
            .ok_or_else(no_line)?;
        let frame = self.frames[self.frames.len() - self.definitions.len() + k];
        let lines = self.definitions[k]
            .get_or_init(|| {
                let text = decompress(frame)?;
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
                Ok(Lines { text, lines })
            })
            .as_ref()
            .map_err(Clone::clone)?;
        let &(s, e) = lines
            .lines
            .get(line - self.header.definitions[k])
            .ok_or_else(no_line)?;
        Ok(&lines.text[s..e])
    }
}

/// Where the shipped schemas come from.
pub fn source() -> Result<&'static str, ShippedError> {
    Ok(&payload()?.header.source)
}

/// The group-versions release `1.<minor>` serves.
pub fn api_versions(minor: u32) -> Result<Vec<&'static str>, ShippedError> {
    Ok(payload()?
        .release(minor)?
        .map(|r| r.keys().map(String::as_str).collect())
        .unwrap_or_default())
}

/// Group-version `api_version` of release `1.<minor>`, its definitions parsed.
pub fn group_version(minor: u32, api_version: &str) -> Result<Option<GroupVersion>, ShippedError> {
    let p = payload()?;
    let Some(gv) = p.release(minor)?.and_then(|r| r.get(api_version)) else {
        return Ok(None);
    };
    let mut definitions = BTreeMap::new();
    for (name, &line) in &gv.definitions {
        let def: Value =
            serde_json::from_str(p.line(line, name)?).map_err(|e| ShippedError::Definition {
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

/// The shipped form of `releases` (minor → group-versions), compressed: each group-version
/// keeps the definitions its kinds reach, identical definitions stored once. Returns the bytes
/// and their uncompressed size.
pub fn encode(releases: &BTreeMap<u32, Vec<GroupVersion>>, source: &str) -> (Vec<u8>, usize) {
    // The definitions, grouped by the group-version of the newest release that reaches them.
    let mut groups: Vec<Vec<String>> = Vec::new();
    let mut placed: HashSet<String> = HashSet::new();
    for gvs in releases.values().rev() {
        for gv in gvs {
            let mut group = Vec::new();
            for k in gv.kinds.values() {
                for name in reachable(&gv.definitions, &k.definition) {
                    let Some(def) = gv.definitions.get(&name) else {
                        continue;
                    };
                    let text = def.to_string();
                    if placed.insert(text.clone()) {
                        group.push(text);
                    }
                }
            }
            if !group.is_empty() {
                groups.push(group);
            }
        }
    }
    // Groups merged into frames of at least MIN_FRAME_BYTES; lines numbered across them.
    let mut frames: Vec<String> = Vec::new();
    let mut first_lines: Vec<usize> = Vec::new();
    let mut line_of: HashMap<String, usize> = HashMap::new();
    for text in groups.into_iter().flatten() {
        if frames.last().is_none_or(|f| f.len() >= MIN_FRAME_BYTES) {
            frames.push(String::new());
            first_lines.push(line_of.len());
        }
        if let Some(frame) = frames.last_mut() {
            frame.push_str(&text);
            frame.push('\n');
        }
        let next = line_of.len();
        line_of.insert(text, next);
    }
    // The release indexes, then the header naming their frames.
    let mut header = Header {
        source: source.to_string(),
        releases: BTreeMap::new(),
        definitions: first_lines,
    };
    let mut indexes: Vec<String> = Vec::new();
    for (&minor, gvs) in releases {
        let mut index = ReleaseIndex::new();
        for gv in gvs {
            let mut entry = IndexedGroupVersion {
                kinds: gv.kinds.values().cloned().collect(),
                definitions: BTreeMap::new(),
            };
            for k in gv.kinds.values() {
                for name in reachable(&gv.definitions, &k.definition) {
                    if let Some(&line) = gv
                        .definitions
                        .get(&name)
                        .and_then(|d| line_of.get(&d.to_string()))
                    {
                        entry.definitions.insert(name, line);
                    }
                }
            }
            index.insert(gv.api_version.clone(), entry);
        }
        header.releases.insert(minor, 1 + indexes.len());
        indexes.push(serde_json::to_string(&index).unwrap_or_default() + "\n");
    }
    let header = serde_json::to_string(&header).unwrap_or_default() + "\n";
    let texts: Vec<&String> = std::iter::once(&header)
        .chain(&indexes)
        .chain(&frames)
        .collect();
    let size = texts.iter().map(|t| t.len()).sum();
    let compressed: Vec<Vec<u8>> = texts
        .iter()
        .map(|t| {
            ruzstd::encoding::compress_to_vec(
                t.as_bytes(),
                ruzstd::encoding::CompressionLevel::Fastest,
            )
        })
        .collect();
    let word = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes();
    let mut out = Vec::new();
    out.extend(SKIPPABLE_MAGIC.to_le_bytes());
    out.extend(word(4 * compressed.len()));
    for c in &compressed {
        out.extend(word(c.len()));
    }
    for c in compressed {
        out.extend(c);
    }
    (out, size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_data_reads_back() {
        let p = payload().expect("shipped data");
        assert!(source().is_ok_and(|s| s.contains("kubectl-validate")));
        for minor in OLDEST_RELEASE..=NEWEST_RELEASE {
            let gvs = api_versions(minor).expect("index");
            assert!(gvs.contains(&"apps/v1"), "1.{minor}: {gvs:?}");
        }
        let apps = group_version(NEWEST_RELEASE, "apps/v1")
            .expect("apps/v1")
            .expect("shipped");
        assert!(apps.kinds.contains_key("Deployment"));
        assert!(
            apps.definitions
                .contains_key("io.k8s.api.apps.v1.DeploymentSpec")
        );
        assert!(group_version(NEWEST_RELEASE, "nope/v1").is_ok_and(|g| g.is_none()));
        assert!(matches!(
            p.line(usize::MAX, "x"),
            Err(ShippedError::NoLine { .. })
        ));
    }

    #[test]
    fn damaged_frame_tables_are_errors() {
        let mut bad = SHIPPED.to_vec();
        bad.push(0);
        let bad: &'static [u8] = bad.leak();
        assert!(matches!(decode(bad), Err(ShippedError::Frames)));
        assert!(matches!(decode(&SHIPPED[4..]), Err(ShippedError::Frames)));
        assert!(matches!(decode(&[]), Err(ShippedError::Frames)));
    }
}
