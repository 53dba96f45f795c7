//! Kind patterns of `--skip-kinds` and `--reject-kinds`, with kubeconform's semantics
//! (`pkg/config/config.go` `splitCSV`, `pkg/validator/validator.go` `ValidateResource`): each
//! value is a comma-separated list whose entries are trimmed and empty entries dropped; an
//! object matches when its `kind` or its `apiVersion/kind` (`apps/v1/Deployment`,
//! `v1/ConfigMap`: kubeconform's `Signature.GroupVersionKind`) is one of the entries, exactly
//! (case matters).

use std::collections::HashSet;

/// A set of kind patterns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KindPatterns {
    patterns: HashSet<String>,
}

impl KindPatterns {
    /// The patterns of some comma-separated lists (a flag given several times).
    pub fn parse<S: AsRef<str>>(values: impl IntoIterator<Item = S>) -> KindPatterns {
        let patterns = values
            .into_iter()
            .flat_map(|v| {
                v.as_ref()
                    .split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        KindPatterns { patterns }
    }

    /// Whether there is no pattern.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Whether an object of `api_version` and `kind` matches.
    pub fn matches(&self, api_version: &str, kind: &str) -> bool {
        !self.patterns.is_empty()
            && (self.patterns.contains(kind)
                || self.patterns.contains(&format!("{api_version}/{kind}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_api_version_kinds_match_exactly() {
        let p = KindPatterns::parse(["ConfigMap, ,apps/v1/Deployment", " v1/Secret"]);
        assert!(p.matches("v1", "ConfigMap"));
        assert!(p.matches("apps/v1", "Deployment"));
        assert!(!p.matches("apps/v1beta1", "Deployment"));
        assert!(p.matches("v1", "Secret"));
        assert!(!p.matches("example.com/v1", "Secret"));
        assert!(!p.matches("v1", "configmap"));
        assert!(KindPatterns::parse([",", ""]).is_empty());
    }
}
