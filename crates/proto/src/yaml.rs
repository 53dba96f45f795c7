//! YAML output, written as Kubernetes tooling writes it (sigs.k8s.io/yaml over go-yaml): keys sorted,
//! block sequences not indented under their key, multi-line strings as `|-` blocks, strings quoted
//! only where a plain scalar would read back differently.
//!
//! The emitter is `serde_norway`, the maintained fork of `serde_yaml` (which is deprecated). It
//! drives a port of libyaml's emitter, the same emitter go-yaml ports, so scalar styles and quoting
//! match the Go tools' output byte for byte on the shapes schemas use. `serde_yml` was rejected
//! (unmaintained, with a soundness advisory); `yaml-rust2`'s emitter picks different scalar styles.

use serde_json::{Map, Value};

/// `value` with the keys of every object sorted, as Go's map encoding writes them.
pub fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let mut out = Map::with_capacity(entries.len());
            for (k, v) in entries {
                out.insert(k.clone(), sorted(v));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// `value` as a YAML document with sorted keys.
pub fn to_yaml(value: &Value) -> Result<String, String> {
    serde_norway::to_string(&sorted(value)).map_err(|e| format!("cannot write YAML: {e}"))
}
