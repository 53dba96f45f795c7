//! Writes the benchmark package: `bench/v1/bench.proto`, 200 messages in package `bench.v1`, each
//! with a nested message, a nested enum, markers on most fields, a oneof, a map, a repeated field,
//! well-known types and message-level `XValidation` rules. `Msg{i}` refers to `Msg{2i+1}` and
//! `Msg{2i+2}`, so the spec message `Msg0` reaches all 200 (each inlined once).
//!
//! Usage: `cargo run --release -p kcel-proto --example bench_package -- OUT_DIR`
//! (see `benches/README.md`).

use std::fmt::Write as _;

const MESSAGES: usize = 200;

fn main() {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "bench-package".into());
    let dir = std::path::Path::new(&out).join("bench/v1");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("cannot create {}: {e}", dir.display());
        std::process::exit(2);
    }
    let path = dir.join("bench.proto");
    if let Err(e) = std::fs::write(&path, package()) {
        eprintln!("cannot write {}: {e}", path.display());
        std::process::exit(2);
    }
    println!("{}", path.display());
}

/// The text of the package.
fn package() -> String {
    let mut s = String::from(
        "syntax = \"proto3\";\n\npackage bench.v1;\n\n\
         import \"google/protobuf/duration.proto\";\n\
         import \"google/protobuf/struct.proto\";\n\
         import \"google/protobuf/wrappers.proto\";\n\n",
    );
    for i in 0..MESSAGES {
        message(&mut s, i);
    }
    s
}

/// Appends `Msg{i}`.
fn message(s: &mut String, i: usize) {
    let _ = write!(
        s,
        "// Msg{i} is message number {i}
// of the benchmark package.
//
// +kubebuilder:validation:XValidation:rule=\"self.minCount <= self.maxCount\",message=\"minCount must not exceed maxCount\"
// +kubebuilder:validation:XValidation:rule=\"!has(self.name) || self.name.size() <= 64\",messageExpression=\"'name too long: ' + self.name\"
// +kubebuilder:validation:MaxProperties=64
message Msg{i} {{
  // The name.
  //
  // +kubebuilder:validation:MaxLength=253
  // +kubebuilder:validation:Pattern=\"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\"
  string name = 1;

  // +kubebuilder:validation:Minimum=0
  // +kubebuilder:validation:Maximum=1000
  int32 min_count = 2;

  // +kubebuilder:validation:Minimum=0
  // +kubebuilder:validation:Maximum=1000
  int64 max_count = 3;

  // +kubebuilder:validation:Enum=Allow;Forbid;Replace
  // +kubebuilder:default=Allow
  string policy = 4;

  // Entries, keyed by name.
  //
  // +listType=map
  // +listMapKey=key
  // +kubebuilder:validation:MaxItems=32
  repeated Entry entries = 5;

  // +kubebuilder:validation:MaxProperties=16
  // +protoc-gen-crd:map-value-validation:XValidation:rule=\"self.key != ''\",message=\"key must be set\"
  map<string, Entry> by_name = 6;

  Mode mode = 7;

  google.protobuf.Duration timeout = 8;

  google.protobuf.UInt32Value weight = 9;

  // +kubebuilder:validation:Type=object
  google.protobuf.Struct extra = 10;

  oneof target {{
    string host = 11;
    // +kubebuilder:validation:Minimum=1
    // +kubebuilder:validation:Maximum=65535
    uint32 port = 12;
  }}

  // +listType=set
  // +kubebuilder:validation:items:MaxLength=63
  repeated string tags = 13;
"
    );
    for (n, child) in [2 * i + 1, 2 * i + 2].into_iter().enumerate() {
        if child < MESSAGES {
            let _ = writeln!(
                s,
                "\n  // Child {child}.\n  //\n  // +kubebuilder:validation:XValidation:rule=\"self.minCount >= 0\",message=\"non-negative\"\n  Msg{child} child{n} = {};",
                14 + n
            );
        }
    }
    let _ = write!(
        s,
        "
  // An entry of Msg{i}.
  message Entry {{
    // +kubebuilder:validation:Required
    // +kubebuilder:validation:MinLength=1
    string key = 1;
    // +kubebuilder:validation:XIntOrString
    string value = 2;
    bool enabled = 3;
  }}

  // Modes of Msg{i}.
  enum Mode {{
    MODE_UNSPECIFIED = 0;
    FAST = 1;
    SAFE = 2;
  }}
}}

"
    );
}
