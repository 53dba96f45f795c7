//! The fast YAML path (`yaml_fast.rs`) against libyaml: for every text, reading with the fast
//! path (`Reader::Auto`) gives exactly what libyaml alone gives — documents, every node's
//! position, repeated keys, or the same error.
//!
//! Texts: the snippets below (each construct of the subset the fast path reads, and constructs
//! it must leave to libyaml), every YAML file of `../shared` and of this repository, and
//! deterministic mutations of the smaller ones (characters inserted, deleted and replaced,
//! lines re-indented, duplicated and swapped), which put near-misses of the subset in front of
//! both readers.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::yaml_files;

use kcel_kube::values::Json;
use kcel_kube::yaml::{
    Position, Positions, Reader, Track, YamlDocument, YamlError, fast_path_gives_up,
    fast_path_reads, parse_stream_as, parse_stream_with,
};

/// Both readers' answers for `text`, in both tracking modes, and the documents built as
/// [`Json`] against the `serde_json` ones converted; `Err` describes a difference.
fn compare(text: &str) -> Result<(), String> {
    for track in [Track::All, Track::ListItems] {
        let fast = parse_stream_with(text, track, Reader::Auto);
        let reference = parse_stream_with(text, track, Reader::Libyaml);
        if fast != reference {
            return Err(format!(
                "{track:?}:\n  fast path: {fast:?}\n  libyaml:   {reference:?}"
            ));
        }
        let json = parse_stream_as::<Json>(text, track, Reader::Auto);
        let (json, converted) = (printed(json), printed(reference.map(converted)));
        if json != converted {
            return Err(format!(
                "{track:?}:\n  as Json:           {json:?}\n  serde_json as Json: {converted:?}"
            ));
        }
    }
    Ok(())
}

/// The `serde_json` documents as [`Json::from_serde`] converts them.
fn converted(docs: Vec<YamlDocument>) -> Vec<YamlDocument<Json>> {
    docs.into_iter()
        .map(|d| YamlDocument {
            value: Json::from_serde(&d.value).expect("YAML nests at most 500 levels"),
            start: d.start,
            positions: d.positions,
            duplicates: d.duplicates,
            has_null: d.has_null,
            wide_integers: d.wide_integers,
        })
        .collect()
}

/// A document with its tree printed in document order ([`Json`]'s equality ignores the order
/// of keys).
type Printed = (String, Position, Positions, Vec<String>, bool, bool);

fn printed(docs: Result<Vec<YamlDocument<Json>>, YamlError>) -> Result<Vec<Printed>, YamlError> {
    docs.map(|docs| {
        docs.into_iter()
            .map(|d| {
                let tree = serde_json::to_string(&d.value.to_serde()).unwrap_or_default();
                (
                    tree,
                    d.start,
                    d.positions,
                    d.duplicates,
                    d.has_null,
                    d.wide_integers,
                )
            })
            .collect()
    })
}

/// Texts the fast path reads, one construct each.
const READ: &[&str] = &[
    "a: 1\n",
    "a: 1",
    "a: yes\nb: ~\nc: 0x1F\nd: 1_000\ne: 1e3\nf: .inf_x\ng: -12\nh: 2024-01-01\n",
    "a:\n  b: c\n  d:\n    e: f\nz: 2\n",
    "a:\n- 1\n- 2\nb: 3\n",
    "a:\n  - 1\n  -   2\nb: 3\n",
    "- a: 1\n  b: 2\n- c: 3\n-\n  d: 4\n- \n- e\n",
    "- key:\n  - a\n  other: 1\n- x\n",
    "a:\nb:\n  c:\nd: 1\n",
    "'q': \"v\"\n\"k\": 'it''s'\n",
    "a: \"\\x41\\u00e9\\U0001F600\\n\\t\\\\\\\"\\/\\0\\a\\b\\v\\f\\r\\e\\ \\N\\_\\L\\P\"\n",
    "a: [x, 'y', \"z\", [1, 2], {}, []]\nb: {k: v, \"q\":1, n: [a]}\nc: [a, b,]\nd: [ ]\n",
    "a: plain text # comment\nb: a#b\nc: http://x:80/y\nd: -x\ne: ?x\nf: :x\n",
    "# head\n\n---\n# only a comment\n---\na: 1\n---\n",
    "---\n---\n",
    "a: 1\n--- # c\nb: 2\n",
    "a: |\n  line 1\n   more\n\n  line 3\nb: 2\n",
    "a: |-\n  x\n\n\nb: >\n  folded\n  text\n\n  para\n   indented\n  back\nc: >+\n  keep\n\n\nd: |+\n  k\n",
    "a: |\n\n  after a blank line\n  # not a comment\nb: 1\n",
    "<<: {a: 1}\nb: {<<: [{c: 1}, {c: 2, d: 3}], d: 4}\n",
    "- |\n  in a sequence\n- >-\n  folded\n  here\n",
    "ключ: значение\nk: 'ü'\n",
    "a: 1\nb: 2\na: 3\nm: {x: 1, x: 2}\n",
    "  indented: root\n  second: 1\n",
    "[a, b]\n",
    "key with spaces  : value\n",
    "a:   \n  b: 1\n",
    "a: multi\n  line\n",
    "a: 'multi\n  line'\n",
    "a: \"x\\\n  y\"\n",
    "a: 'one\n\n  two  \n  ''three'''\nb:\n- x\n",
    "- \"a\\ \n\n   b\\\n  c\"\n- plain\n\n  folded\n---\nk: v\n",
];

/// Texts the fast path leaves to libyaml (both read them alike all the same).
const LEFT: &[&str] = &[
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "%YAML 1.1\n---\na: 1\n",
    "a: 1\n...\n",
    "? a\n: 1\n",
    "a: multi\n  li: ne\n",
    "a:\n  b: 'multi\n  line'\n",
    "a: \"x\\\n---\n  y\"\n",
    "'multi\n  key': 1\n",
    "a:\tb\n",
    "a: 1\r\nb: 2\r\n",
    "a: [1,\n  2]\n",
    "a: |2\n   x\n",
    "a: |\nb: 1\n",
    "a: b: c\n",
    "a:\n  b: 1\n c: 2\n",
    "- - a\n",
    "a: - b\n",
    "scalar\n",
    "a: \"\\q\"\n",
    "a: \"\\ud800\"\n",
    "{a:[x]}\n",
    "[a: b]\n",
    "a: 1\n# c\n  b\n",
    "\u{feff}a: 1\n",
    "a: \u{85}\n",
];

#[test]
fn snippets_read_alike() {
    let (mut passed, mut failed) = (0, 0);
    for (texts, read) in [(READ, true), (LEFT, false)] {
        for text in texts {
            let result = compare(text).and_then(|()| {
                if fast_path_reads(text) == read {
                    Ok(())
                } else {
                    Err(format!("fast path reads it: {}, expected {read}", !read))
                }
            });
            match result {
                Ok(()) => passed += 1,
                Err(e) => {
                    failed += 1;
                    eprintln!("FAIL {text:?}: {e}");
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed, 0 skipped");
    assert_eq!(failed, 0);
    assert_eq!(passed, READ.len() + LEFT.len());
}

/// Every YAML file of `../shared` (when present) and of this repository.
fn corpus() -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(shared) = common::shared_or_skip("the shared YAML corpus") {
        yaml_files(&shared, &mut files);
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for dir in ["examples", "crates"] {
        yaml_files(&repo.join(dir), &mut files);
    }
    files
}

#[test]
fn corpus_files_read_alike() {
    let files = corpus();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let (mut fast_files, mut fast_bytes, mut bytes) = (0, 0, 0);
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            skipped += 1;
            eprintln!("skip {}: not UTF-8", f.display());
            continue;
        };
        match compare(&text) {
            Ok(()) => passed += 1,
            Err(e) => {
                failed += 1;
                eprintln!("FAIL {}: {e:.2000}", f.display());
            }
        }
        bytes += text.len();
        if fast_path_reads(&text) {
            fast_files += 1;
            fast_bytes += text.len();
        }
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    println!(
        "the fast path read {fast_files} of {} files, {fast_bytes} of {bytes} bytes",
        files.len()
    );
    assert_eq!(failed, 0);
    assert_eq!(passed + skipped, files.len());
    // Most real manifests are in the subset: a fast path that gave up on them would still
    // pass the comparison while leaving `kcel validate` slow.
    assert!(
        fast_files * 2 > passed,
        "the fast path read only {fast_files} of {passed} files"
    );
}

/// The CRD files `kcel validate --crd` and `kcel test` read on every run, by group: the
/// Gateway API standard CRDs, the CRDs of the wild corpus, and this repository's examples.
fn crd_files() -> Vec<(&'static str, PathBuf)> {
    let mut groups = Vec::new();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut examples = Vec::new();
    yaml_files(&repo.join("examples"), &mut examples);
    groups.push(("examples", examples));
    if let Some(shared) = common::shared_or_skip("the shared CRD files") {
        let mut gateway = Vec::new();
        yaml_files(
            &shared.join("corpora/gateway-api/config/crd/standard"),
            &mut gateway,
        );
        groups.push(("gateway-api standard", gateway));
        let mut wild = Vec::new();
        yaml_files(&shared.join("corpora/wild"), &mut wild);
        groups.push(("wild", wild));
    }
    groups
        .into_iter()
        .flat_map(|(group, files)| files.into_iter().map(move |f| (group, f)))
        .filter(|(_, f)| {
            std::fs::read_to_string(f).is_ok_and(|t| t.contains("kind: CustomResourceDefinition"))
        })
        .collect()
}

/// Lists why the fast path leaves CRD files to libyaml (the place of `yaml_fast.rs` that gave
/// up, with the number of files per group), the list the fast path's coverage is chosen by.
#[test]
fn crd_files_fast_path_reasons() {
    let mut reasons: BTreeMap<(&str, String), usize> = BTreeMap::new();
    let mut read: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (group, f) in crd_files() {
        let text = std::fs::read_to_string(&f).expect("read as UTF-8 when listed");
        compare(&text).unwrap_or_else(|e| panic!("{}: {e:.2000}", f.display()));
        let counts = read.entry(group).or_default();
        counts.1 += 1;
        match fast_path_gives_up(&text) {
            None => counts.0 += 1,
            Some(reason) => *reasons.entry((group, reason)).or_default() += 1,
        }
    }
    for (group, (fast, all)) in &read {
        println!("{group}: the fast path read {fast} of {all} CRD files");
    }
    for ((group, reason), n) in &reasons {
        println!("{group}: {n} gave up at {reason}");
    }
    // The Gateway API standard CRDs are read on every `kcel validate --crd` of them.
    if let Some((fast, all)) = read.get("gateway-api standard") {
        assert_eq!(fast, all, "Gateway API standard CRDs left to libyaml");
    }
}

/// A small deterministic generator (xorshift64*), so that mutations are the same every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let r = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
        (r >> 33) as usize % n.max(1)
    }
}

/// What mutations insert: the characters and pieces YAML's structure turns on.
const PIECES: &[&str] = &[
    " ", "  ", "\n", "-", "- ", ":", ": ", "#", " #", "'", "\"", "\\", "|", ">", "|-", ">+", "[",
    "]", "{", "}", ",", "&a ", "*a", "!", "?", "%", "---\n", "...\n", "<<: ", "~", "\t", "é", "\r",
    "0x", "_", ".", "e", "\\u00", "''",
];

/// `text` changed once at a random place.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let boundaries: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let at = boundaries[rng.below(boundaries.len())];
    match rng.below(6) {
        0 => format!(
            "{}{}{}",
            &text[..at],
            PIECES[rng.below(PIECES.len())],
            &text[at..]
        ),
        1 => {
            let next = boundaries.iter().find(|&&b| b > at).copied().unwrap_or(at);
            format!("{}{}", &text[..at], &text[next..])
        }
        2 => {
            let next = boundaries.iter().find(|&&b| b > at).copied().unwrap_or(at);
            let piece = PIECES[rng.below(PIECES.len())];
            format!("{}{piece}{}", &text[..at], &text[next..])
        }
        3 if !lines.is_empty() => {
            let i = rng.below(lines.len());
            let line = lines[i];
            lines.insert(i, line);
            lines.concat()
        }
        4 if lines.len() > 1 => {
            let i = rng.below(lines.len() - 1);
            lines.swap(i, i + 1);
            lines.concat()
        }
        _ if !lines.is_empty() => {
            let i = rng.below(lines.len());
            let changed = match rng.below(3) {
                0 => format!(" {}", lines[i]),
                1 => format!("  {}", lines[i]),
                _ => lines[i].strip_prefix(' ').unwrap_or(lines[i]).to_string(),
            };
            lines[i] = &changed;
            lines.concat()
        }
        _ => text.to_string(),
    }
}

/// The largest corpus file mutated, and how many mutants each gets (several changes stacked).
const MUTATED_MAX_BYTES: usize = 6_000;
const MUTANTS_PER_FILE: usize = 24;

#[test]
fn mutated_corpus_files_read_alike() {
    let mut texts: Vec<String> = READ.iter().chain(LEFT).map(|s| s.to_string()).collect();
    texts.extend(
        corpus()
            .iter()
            .filter_map(|f| std::fs::read_to_string(f).ok())
            .filter(|t| t.len() <= MUTATED_MAX_BYTES),
    );
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut passed, mut failed, mut fast) = (0, 0, 0);
    for text in &texts {
        let mut mutant = text.clone();
        for n in 0..MUTANTS_PER_FILE {
            // Every fourth mutant starts again from the original.
            if n % 4 == 0 {
                mutant = text.clone();
            }
            mutant = mutate(&mutant, &mut rng);
            match compare(&mutant) {
                Ok(()) => passed += 1,
                Err(e) => {
                    failed += 1;
                    if failed <= 20 {
                        eprintln!("FAIL {mutant:?}: {e:.2000}");
                    }
                }
            }
            if fast_path_reads(&mutant) {
                fast += 1;
            }
        }
    }
    println!("{passed} passed, {failed} failed, 0 skipped ({fast} read by the fast path)");
    assert_eq!(failed, 0);
    assert_eq!(passed, texts.len() * MUTANTS_PER_FILE);
}
