//! The compiled rules of schema nodes, shared between nodes of the same CEL type: the same rules
//! on the same type compile once per process ([`super::compile::compile_node_with_type`] asks
//! here first). CRDs repeat their types — the Gateway API's parent references, filters and
//! backend references appear in every route kind — and a CRD's versions often share a schema.
//!
//! What a node's rules compile to is decided by the environment (the release and view of the
//! [`EnvLoader`]), the rules and the node's CEL type: the checker and planner see the type
//! through [`crate::decl::NamedDeclTypes`], which names object types from the root name it is
//! given, and the estimator and cardinality read only sizes, so two types that differ only in
//! their object names ([`same_type`]) compile alike. Rules with a `fieldPath` (resolved against
//! the node's schema), loaders with extra libraries and loaders of a CRD update (whose view
//! depends on the old CRD) are not shared.
//!
//! Bounded: at most [`MAX_ENTRIES`] nodes and [`MAX_TEXT_BYTES`] of expression text are kept; the
//! memo is emptied when the next node would exceed either.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use super::compile::{CompiledRule, EnvLoader, StoredExpressions};
use crate::decl::{DeclField, DeclKind, DeclType, ObjectType};
use crate::schema_props::ValidationRule;
use crate::version::KubeVersion;

/// How many nodes the memo keeps.
const MAX_ENTRIES: usize = 4096;
/// How many bytes of rule and messageExpression text the memo keeps.
const MAX_TEXT_BYTES: usize = 8 << 20;

/// What a node's compilation depends on.
pub(super) struct Key {
    hash: u64,
    version: KubeVersion,
    /// Whether every expression is a stored one (else every one is new).
    stored: bool,
    is_resource_root: bool,
    decl: Arc<DeclType>,
    rules: Vec<ValidationRule>,
}

impl Key {
    /// The key of compiling `rules` on a node of type `decl`, or `None` when such a
    /// compilation is not shared.
    pub(super) fn new(
        decl: &Arc<DeclType>,
        rules: &[ValidationRule],
        is_resource_root: bool,
        loader: &EnvLoader,
    ) -> Option<Key> {
        let stored = match loader.stored {
            StoredExpressions::All => true,
            StoredExpressions::None => false,
            StoredExpressions::Preexisting(_) => return None,
        };
        if !loader.extra.is_empty() || rules.iter().any(|r| !r.field_path.is_empty()) {
            return None;
        }
        let mut h = DefaultHasher::new();
        (loader.version.minor(), stored, is_resource_root).hash(&mut h);
        for r in rules {
            (&r.rule, &r.message, &r.message_expression, &r.reason).hash(&mut h);
            r.optional_old_self.hash(&mut h);
        }
        shallow_hash(decl, &mut h);
        Some(Key {
            hash: h.finish(),
            version: loader.version,
            stored,
            is_resource_root,
            decl: decl.clone(),
            rules: rules.to_vec(),
        })
    }

    fn matches(&self, other: &Key) -> bool {
        self.hash == other.hash
            && self.version == other.version
            && self.stored == other.stored
            && self.is_resource_root == other.is_resource_root
            && self.rules == other.rules
            && same_type(&self.decl, &other.decl)
    }

    fn text_bytes(&self) -> usize {
        self.rules
            .iter()
            .map(|r| r.rule.len() + r.message.len() + r.message_expression.len())
            .sum()
    }
}

/// The node's kind and sizes, and its fields' names and kinds: equal for types that are
/// [`same_type`].
fn shallow_hash(t: &DeclType, h: &mut impl Hasher) {
    std::mem::discriminant(&t.kind).hash(h);
    (t.min_serialized_size, t.max_elements).hash(h);
    if let DeclKind::Object(o) = &t.kind {
        for (name, f) in &o.fields {
            name.hash(h);
            std::mem::discriminant(&f.ty.kind).hash(h);
        }
    }
}

/// Whether `a` and `b` are the same type but for the names of their object types. Every field
/// is named, so that a field added to these types must be considered here.
fn same_type(a: &DeclType, b: &DeclType) -> bool {
    let DeclType {
        kind,
        min_serialized_size,
        max_elements,
    } = a;
    if *min_serialized_size != b.min_serialized_size || *max_elements != b.max_elements {
        return false;
    }
    match (kind, &b.kind) {
        (DeclKind::List(x), DeclKind::List(y)) | (DeclKind::Map(x), DeclKind::Map(y)) => {
            same_type(x, y)
        }
        (DeclKind::Object(x), DeclKind::Object(y)) => same_fields(x, y),
        (DeclKind::List(_) | DeclKind::Map(_) | DeclKind::Object(_), _) => false,
        (x, y) => x == y,
    }
}

fn same_fields(a: &ObjectType, b: &ObjectType) -> bool {
    let ObjectType { name: _, fields } = a;
    fields.len() == b.fields.len()
        && fields.iter().zip(&b.fields).all(|((ka, fa), (kb, fb))| {
            let DeclField {
                name,
                property,
                ty,
                required,
                enum_values,
                default,
            } = fa;
            ka == kb
                && *name == fb.name
                && *property == fb.property
                && *required == fb.required
                && *enum_values == fb.enum_values
                && *default == fb.default
                && same_type(ty, &fb.ty)
        })
}

#[derive(Default)]
struct Memo {
    entries: HashMap<u64, Vec<(Key, Vec<CompiledRule>)>>,
    count: usize,
    text_bytes: usize,
}

fn memo() -> std::sync::MutexGuard<'static, Memo> {
    static MEMO: OnceLock<Mutex<Memo>> = OnceLock::new();
    // A panic elsewhere while holding the lock leaves a usable map.
    MEMO.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// The rules compiled for a node with the same key, if kept.
pub(super) fn get(key: &Key) -> Option<Vec<CompiledRule>> {
    memo()
        .entries
        .get(&key.hash)?
        .iter()
        .find(|(k, _)| k.matches(key))
        .map(|(_, compiled)| compiled.clone())
}

/// Keeps `compiled`, the rules compiled for `key`.
pub(super) fn put(key: Key, compiled: &[CompiledRule]) {
    let bytes = key.text_bytes();
    if bytes > MAX_TEXT_BYTES {
        return;
    }
    let mut m = memo();
    if m.count >= MAX_ENTRIES || m.text_bytes + bytes > MAX_TEXT_BYTES {
        *m = Memo::default();
    }
    m.count += 1;
    m.text_bytes += bytes;
    m.entries
        .entry(key.hash)
        .or_default()
        .push((key, compiled.to_vec()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema_props::JsonSchemaProps;
    use crate::structural::Structural;
    use serde_json::json;

    fn decl(schema: serde_json::Value, name: &str) -> Arc<DeclType> {
        let props: JsonSchemaProps = serde_json::from_value(schema).expect("props");
        let s = Arc::new(Structural::from_props(&props).expect("structural"));
        DeclType::from_schema(&s, false, name).expect("decl")
    }

    fn rule(text: &str) -> ValidationRule {
        ValidationRule {
            rule: text.to_string(),
            ..ValidationRule::default()
        }
    }

    #[test]
    fn types_differing_only_in_names_share_their_rules() {
        let shape = json!({"type": "object", "properties": {
            "a": {"type": "object", "properties": {"n": {"type": "integer"}}}}});
        let a = decl(shape.clone(), "selfType1");
        let b = decl(shape, "object.spec");
        assert_ne!(a, b, "the object names differ");
        assert!(same_type(&a, &b));
        let other = decl(
            json!({"type": "object", "properties": {
                "a": {"type": "object", "properties": {"n": {"type": "string"}}}}}),
            "selfType1",
        );
        assert!(!same_type(&a, &other));

        let loader = EnvLoader::create(KubeVersion::NEWEST);
        let rules = [rule("self.a.n > 0")];
        let ka = Key::new(&a, &rules, false, &loader).expect("shared");
        let kb = Key::new(&b, &rules, false, &loader).expect("shared");
        assert!(ka.matches(&kb));
        let runtime = Key::new(&b, &rules, false, &EnvLoader::runtime(KubeVersion::NEWEST));
        assert!(!ka.matches(&runtime.expect("shared")), "another view");
        let ko = Key::new(&other, &rules, false, &loader).expect("shared");
        assert!(!ka.matches(&ko));
        let kr = Key::new(&a, &[rule("self.a.n > 1")], false, &loader).expect("shared");
        assert!(!ka.matches(&kr));
    }

    #[test]
    fn field_paths_and_updates_are_not_shared() {
        let a = decl(
            json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
            "x",
        );
        let with_path = ValidationRule {
            field_path: ".n".to_string(),
            ..rule("self.n > 0")
        };
        let loader = EnvLoader::create(KubeVersion::NEWEST);
        assert!(Key::new(&a, &[with_path], false, &loader).is_none());
        let update = EnvLoader {
            stored: StoredExpressions::Preexisting(Default::default()),
            ..loader
        };
        assert!(Key::new(&a, &[rule("self.n > 0")], false, &update).is_none());
    }
}
