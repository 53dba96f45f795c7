//! Regenerates the shipped built-in schemas (`crates/kube/data/builtins.zst`) from
//! kube-apiserver's published OpenAPI v3 documents, one `1.NN.tar.zst` per release
//! (`1.NN/api/v1.json`, `1.NN/apis/<group>/<version>.json`, as kubectl-validate bundles them):
//!
//! ```text
//! cargo run --release -p kcel-kube --example builtin_schemas -- ../shared/builtins crates/kube/data/builtins.zst
//! ```
//!
//! The form is described in `kcel_kube::builtins::shipped`.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use kcel_kube::builtins::openapi::{GroupVersion, group_versions};
use kcel_kube::builtins::shipped;

const SOURCE: &str = "Kubernetes' published OpenAPI v3 specs (kube-apiserver /openapi/v3), as bundled by kubernetes-sigs/kubectl-validate pkg/openapiclient/builtins (snapshot a97ccfa); Apache-2.0";

type Failure = Box<dyn std::error::Error>;

/// The group-versions of one release's archive.
fn read_release(archive: &Path) -> Result<Vec<GroupVersion>, Failure> {
    let file = std::fs::File::open(archive)?;
    let decoder = ruzstd::decoding::StreamingDecoder::new(std::io::BufReader::new(file))?;
    let mut tar = tar::Archive::new(decoder);
    let mut out = Vec::new();
    let mut entries: Vec<(String, String)> = Vec::new();
    for entry in tar.entries()? {
        let mut entry = entry?;
        let path = entry.path()?.to_string_lossy().to_string();
        if !path.ends_with(".json") {
            continue;
        }
        let mut text = String::new();
        entry.read_to_string(&mut text)?;
        entries.push((path, text));
    }
    entries.sort();
    for (path, text) in entries {
        let doc: serde_json::Value = serde_json::from_str(&text)?;
        let gvs = group_versions(&doc).map_err(|e| format!("{path}: {e}"))?;
        out.extend(gvs);
    }
    Ok(out)
}

fn run(dir: &Path, output: &Path) -> Result<(), Failure> {
    let mut releases = BTreeMap::new();
    for minor in shipped::OLDEST_RELEASE..=shipped::NEWEST_RELEASE {
        let archive = dir.join(format!("1.{minor}.tar.zst"));
        let gvs = read_release(&archive).map_err(|e| format!("{}: {e}", archive.display()))?;
        let kinds: usize = gvs.iter().map(|g| g.kinds.len()).sum();
        eprintln!("1.{minor}: {} group-versions, {kinds} kinds", gvs.len());
        releases.insert(minor, gvs);
    }
    let (compressed, size) = shipped::encode(&releases, SOURCE);
    std::fs::write(output, &compressed)?;
    eprintln!(
        "{}: {} bytes ({size} uncompressed)",
        output.display(),
        compressed.len(),
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, output] = args.as_slice() else {
        eprintln!("usage: builtin_schemas <dir of 1.NN.tar.zst> <output .zst>");
        return ExitCode::from(2);
    };
    match run(Path::new(dir), Path::new(output)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("builtin_schemas: {e}");
            ExitCode::FAILURE
        }
    }
}
