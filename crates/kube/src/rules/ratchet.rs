//! Which CEL rule failures ratchet (apiextensions `pkg/apiserver/schema/cel/validation.go`
//! `ratchetingOptions`): a failing rule that does not use `oldSelf` becomes a warning when its
//! node — or, for a node that does not correlate, the nearest correlated ancestor — is unchanged
//! ([`Correlation::unchanged`]). The correlation itself is the one the OpenAPI validator uses
//! (`crate::correlation`).

use std::rc::Rc;

use crate::correlation::Correlation;
use crate::structural::Structural;
use crate::values::Json;

/// A correlated node of a custom resource as the rule validator walks it.
type Node<'a> = Correlation<'a, Json, Structural>;

/// Where a node stands for ratcheting: its own correlation, if correlatable, and the nearest
/// correlatable ancestor's.
#[derive(Clone, Default)]
pub(crate) struct Ratchet<'a> {
    current: Option<Rc<Node<'a>>>,
    nearest_parent: Option<Rc<Node<'a>>>,
}

impl<'a> Ratchet<'a> {
    /// No ratcheting (create, or ratcheting off).
    pub(crate) fn none() -> Ratchet<'a> {
        Ratchet::default()
    }

    /// The root of an update: `new` and `old` described by `schema`.
    pub(crate) fn root(new: &'a Json, old: &'a Json, schema: &'a Structural) -> Ratchet<'a> {
        Ratchet {
            current: Some(Rc::new(Correlation::new(new, old, schema))),
            nearest_parent: None,
        }
    }

    /// Whether errors at this node become warnings.
    pub(crate) fn should_ratchet(&self) -> bool {
        match (&self.current, &self.nearest_parent) {
            (Some(c), _) => c.unchanged(),
            (None, Some(p)) => p.unchanged(),
            (None, None) => false,
        }
    }

    /// The state an `allOf` branch validates with: not ratcheted at the node itself (as schema
    /// ratcheting does not ratchet `allOf`), only through the nearest correlatable ancestor.
    pub(crate) fn for_all_of(&self) -> Ratchet<'a> {
        Ratchet {
            current: None,
            nearest_parent: self.nearest_parent.clone(),
        }
    }

    /// The state at field `field`. `apiVersion` and `kind` of the root never ratchet.
    pub(crate) fn key(&self, field: &str) -> Ratchet<'a> {
        let Some(current) = &self.current else {
            return self.clone();
        };
        if self.nearest_parent.is_none() && (field == "apiVersion" || field == "kind") {
            return Ratchet::none();
        }
        Ratchet {
            current: current.key(field).map(Rc::new),
            nearest_parent: Some(current.clone()),
        }
    }

    /// The state at index `i`.
    pub(crate) fn index(&self, i: usize) -> Ratchet<'a> {
        let Some(current) = &self.current else {
            return self.clone();
        };
        Ratchet {
            current: current.index(i).map(Rc::new),
            nearest_parent: Some(current.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema_props::JsonSchemaProps;
    use serde_json::json;

    #[test]
    fn uncorrelated_nodes_ratchet_with_their_nearest_correlated_ancestor() {
        let props: JsonSchemaProps = serde_json::from_value(json!({"type": "object",
            "x-kubernetes-preserve-unknown-fields": true,
            "properties": {"a": {"type": "array", "items": {"type": "integer"}}}}))
        .expect("props");
        let s = Structural::from_props(&props).expect("structural");
        let j = |v| Json::from_serde(&v).expect("json");
        let (new, old) = (j(json!({"a": [1]})), j(json!({"a": [1]})));
        let r = Ratchet::root(&new, &old, &s);
        assert!(
            r.key("a").index(0).should_ratchet(),
            "the item uses the list"
        );
        assert!(
            !r.key("kind").should_ratchet(),
            "the root's kind never ratchets"
        );
        assert!(
            r.key("a").for_all_of().should_ratchet(),
            "allOf ratchets through the parent"
        );
        assert!(
            !r.for_all_of().should_ratchet(),
            "the root's allOf has no parent"
        );
        let changed = j(json!({"a": [2]}));
        let r = Ratchet::root(&changed, &old, &s);
        assert!(!r.key("a").index(0).should_ratchet());
    }
}
