//! YAML output, written as Kubernetes tooling writes it (sigs.k8s.io/yaml over go-yaml): keys sorted,
//! block sequences not indented under their key, multi-line strings as `|-` blocks, strings quoted
//! only where a plain scalar would read back differently.
//!
//! The emitter is `serde_norway`, the maintained fork of `serde_yaml` (which is deprecated). It
//! drives a port of libyaml's emitter, the same emitter go-yaml ports, so scalar styles and quoting
//! match the Go tools' output byte for byte on the shapes schemas use. `serde_yml` was rejected
//! (unmaintained, with a soundness advisory); `yaml-rust2`'s emitter picks different scalar styles.

use serde_json::Value;

/// Sorts the keys of every object in `value`, as Go's map encoding writes them.
pub fn sort_keys(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.sort_keys();
            map.values_mut().for_each(sort_keys);
        }
        Value::Array(items) => items.iter_mut().for_each(sort_keys),
        _ => {}
    }
}

/// Why a document cannot be written as YAML.
#[derive(Debug, thiserror::Error)]
#[error("cannot write YAML: {0}")]
pub struct YamlError(#[from] serde_norway::Error);

/// `value` as a YAML document with sorted keys.
pub fn to_yaml(value: &Value) -> Result<String, YamlError> {
    into_yaml(value.clone())
}

/// [`to_yaml`], consuming the value (no copy).
pub fn into_yaml(mut value: Value) -> Result<String, YamlError> {
    sort_keys(&mut value);
    Ok(serde_norway::to_string(&value)?)
}
