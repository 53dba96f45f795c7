//! Defaulting (apiextensions `schema/defaulting/algorithm.go` `Default`; reference §7): the
//! schema's `default`s applied top-down to absent members and to non-nullable `null`s.
//!
//! What a schema can default is worked out once per CRD version ([`DefaultsPlan::new`]): each
//! node's default as served (pruned against its own schema, `PruneDefaults`, with the defaults
//! below it already applied) and which subtrees hold any default at all. Defaulting a document
//! then visits only those subtrees and inserts each default by sharing it (an `Arc` clone).

use std::sync::Arc;

use super::prune::{MAX_PRUNE_DEPTH, additional, items, prune};
use crate::schema_props::{JsonSchemaProps, SchemaLookup};
use crate::values::Json;

/// What defaulting does below one schema node.
#[derive(Debug, Default)]
pub(crate) struct DefaultsPlan {
    /// The node's default as served: pruned against the node's schema, the defaults below it
    /// applied; `None` without a non-null `default`.
    served: Option<Json>,
    /// Whether the node is `nullable` (a `null` there is kept, not defaulted).
    nullable: bool,
    /// The plans of the properties that default something, in the schema's order, each with
    /// its position among the schema's properties.
    properties: Vec<(Arc<str>, usize, DefaultsPlan)>,
    /// The plan of `additionalProperties`, when it defaults something.
    additional: Option<Box<DefaultsPlan>>,
    /// The plan of `items`, when it defaults something.
    items: Option<Box<DefaultsPlan>>,
}

impl DefaultsPlan {
    /// The plan of `s`; `None` when nothing below it (itself included) has a default.
    pub(crate) fn new(s: &JsonSchemaProps) -> Option<DefaultsPlan> {
        Self::of(s, 0)
    }

    fn of(s: &JsonSchemaProps, depth: usize) -> Option<DefaultsPlan> {
        if depth > MAX_PRUNE_DEPTH {
            return None;
        }
        let mut plan = DefaultsPlan {
            served: None,
            nullable: s.nullable,
            properties: s
                .properties
                .iter()
                .enumerate()
                .filter_map(|(i, (k, p))| Some((Arc::from(k.as_str()), i, Self::of(p, depth + 1)?)))
                .collect(),
            additional: additional(s)
                .flatten()
                .and_then(|ap| Self::of(ap, depth + 1))
                .map(Box::new),
            items: items(s)
                .and_then(|is| Self::of(is, depth + 1))
                .map(Box::new),
        };
        plan.served = s
            .default
            .as_ref()
            .filter(|d| !d.is_null())
            .and_then(|d| Json::from_serde_within(d, MAX_PRUNE_DEPTH))
            .map(|mut d| {
                prune(&mut d, s, false);
                plan.apply(&mut d, s, 0);
                d
            });
        (plan.served.is_some() || plan.defaults_below()).then_some(plan)
    }

    /// Whether some node strictly below this one has a default.
    fn defaults_below(&self) -> bool {
        !self.properties.is_empty() || self.additional.is_some() || self.items.is_some()
    }

    /// The served default for a member of this node holding `v` (absent: `None`): absent
    /// members and non-nullable `null`s get it.
    fn default_for(&self, v: Option<&Json>) -> Option<&Json> {
        self.served
            .as_ref()
            .filter(|_| v.is_none_or(|x| x.is_null() && !self.nullable))
    }

    /// Applies the defaults below this node (`s`) to `v`, top-down. A default inserted is
    /// served whole: the defaults below it are in it already.
    pub(crate) fn apply(&self, v: &mut Json, s: &JsonSchemaProps, depth: usize) {
        if depth > MAX_PRUNE_DEPTH || !self.defaults_below() {
            return;
        }
        match v {
            Json::Object(_) => {
                let Some(m) = v.as_object_mut() else { return };
                for (k, position, plan) in &self.properties {
                    let Some(child) = m.get_mut(k) else {
                        if let Some(d) = plan.default_for(None) {
                            m.insert(k.clone(), d.clone());
                        }
                        continue;
                    };
                    if let Some(d) = plan.default_for(Some(child)) {
                        *child = d.clone();
                    } else if plan.defaults_below()
                        && let Some((_, prop)) = s.properties.get_index(*position)
                    {
                        plan.apply(child, prop, depth + 1);
                    }
                }
                if let (Some(plan), Some(Some(ap))) = (&self.additional, additional(s)) {
                    for (k, child) in m.iter_mut() {
                        if s.properties.lookup(k).is_some() {
                            continue;
                        }
                        if let Some(d) = plan.default_for(Some(child)) {
                            *child = d.clone();
                        } else {
                            plan.apply(child, ap, depth + 1);
                        }
                    }
                }
            }
            Json::Array(_) => {
                if let (Some(plan), Some(is)) = (&self.items, items(s)) {
                    for x in v.as_array_mut().into_iter().flatten() {
                        if let Some(d) = plan.default_for(Some(x)) {
                            *x = d.clone();
                        } else {
                            plan.apply(x, is, depth + 1);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::pipeline::tests::{doc, schema};

    #[test]
    fn defaults_absent_members_and_non_nullable_nulls_with_nested_defaults_served_whole() {
        let s = schema(json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "a": {"type": "string", "default": "d"},
                "n": {"type": "string", "nullable": true, "default": "kept-null"},
                "o": {"type": "object", "default": {"x": 1, "unknown": 2}, "properties": {
                    "x": {"type": "integer"},
                    "y": {"type": "integer", "default": 5}
                }},
                "m": {"type": "object", "additionalProperties":
                    {"type": "object", "default": {}, "properties": {"z": {"type": "boolean", "default": true}}}},
                "l": {"type": "array", "items": {"type": "integer", "default": 0}},
                "plain": {"type": "object", "properties": {"q": {"type": "string"}}}
            }}
        }}));
        let plan = DefaultsPlan::new(&s).expect("plan");
        let spec = &plan.properties[0].2;
        assert_eq!(
            spec.properties
                .iter()
                .map(|(k, i, _)| (&**k, *i))
                .collect::<Vec<_>>(),
            [("a", 0), ("n", 1), ("o", 2), ("m", 3), ("l", 4)],
            "subtrees without defaults are not planned"
        );
        let mut v = doc(
            json!({"spec": {"n": null, "m": {"p": null, "r": {}}, "l": [1, null],
            "plain": {"q": "s"}}}),
        );
        plan.apply(&mut v, &s, 0);
        assert_eq!(
            v.to_serde().to_string(),
            json!({"spec": {"n": null, "m": {"p": {"z": true}, "r": {"z": true}}, "l": [1, 0],
                "plain": {"q": "s"}, "a": "d", "o": {"x": 1, "y": 5}}})
            .to_string()
        );
    }

    #[test]
    fn schemas_without_defaults_have_no_plan() {
        let s = schema(
            json!({"type": "object", "properties": {"a": {"type": "string"},
            "b": {"type": "string", "default": null}}}),
        );
        assert!(DefaultsPlan::new(&s).is_none());
    }
}
