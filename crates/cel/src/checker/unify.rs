//! Type unification as cel-go's checker does it: assignability with type
//! parameter substitution, "most general" joins, the occurs check and
//! substitution.
//!
//! cel-go copies its substitution map before every assignability test and keeps
//! the copy only on success. [`Mapping`] instead records every binding on a trail
//! and rolls back to a mark on failure, which gives the same results without the
//! quadratic copying.

use std::sync::Arc;

use crate::name_hash::NameMap;
use crate::types::Type;

/// Type parameter bindings, with a trail for rollback.
#[derive(Default, Debug)]
pub struct Mapping {
    bindings: Bindings,
    trail: Vec<(Arc<str>, Option<Type>)>,
}

/// The most bindings kept in a vector searched in order: an expression binds
/// a few type parameters (`x == 1` in a macro binds one or two), which a scan
/// finds sooner than a hash; past this many, a hash map holds them all.
const FEW_BINDINGS: usize = 8;

/// Type parameter → type, by parameter name.
#[derive(Default, Debug)]
struct Bindings {
    /// Every binding while there are at most [`FEW_BINDINGS`]; empty after.
    few: Vec<(Arc<str>, Type)>,
    /// Every binding once there were more (none before: most checks never
    /// get there, and build no table).
    many: Option<NameMap<Arc<str>, Type>>,
}

impl Bindings {
    /// The table of every binding, once there were more than fit in `few`.
    fn many(&self) -> Option<&NameMap<Arc<str>, Type>> {
        self.many.as_ref().filter(|m| !m.is_empty())
    }

    fn is_empty(&self) -> bool {
        self.few.is_empty() && self.many().is_none()
    }

    fn get(&self, name: &str) -> Option<&Type> {
        match self.many() {
            None => self
                .few
                .iter()
                .find(|(n, _)| same_name(n, name))
                .map(|(_, t)| t),
            Some(many) => many.get(name),
        }
    }

    /// Binds `name` to `t`, returning its previous binding.
    fn insert(&mut self, name: Arc<str>, t: Type) -> Option<Type> {
        if let Some(many) = self.many.as_mut().filter(|m| !m.is_empty()) {
            return many.insert(name, t);
        }
        if let Some((_, old)) = self.few.iter_mut().find(|(n, _)| same_name(n, &name)) {
            return Some(std::mem::replace(old, t));
        }
        if self.few.len() < FEW_BINDINGS {
            self.few.push((name, t));
        } else {
            let many = self.many.get_or_insert_default();
            many.extend(self.few.drain(..));
            many.insert(name, t);
        }
        None
    }

    fn remove(&mut self, name: &str) {
        match self.many.as_mut().filter(|m| !m.is_empty()) {
            None => {
                if let Some(at) = self.few.iter().position(|(n, _)| same_name(n, name)) {
                    self.few.swap_remove(at);
                }
            }
            Some(many) => {
                many.remove(name);
            }
        }
    }
}

/// Whether two type parameter names are equal. Each of the checker's fresh
/// variables (`_var0`, `_var1`, ...) is one shared text, and two different
/// ones of one length mostly differ in their last character: those cases
/// are settled without a byte comparison.
#[inline]
fn same_name(a: &str, b: &str) -> bool {
    std::ptr::eq(a, b)
        || (a.len() == b.len() && a.as_bytes().last() == b.as_bytes().last() && a == b)
}

impl Mapping {
    /// The binding of type parameter `t`, if `t` is a bound type parameter.
    pub fn find(&self, t: &Type) -> Option<&Type> {
        match t {
            Type::TypeParam(n) if !self.bindings.is_empty() => self.bindings.get(n),
            _ => None,
        }
    }

    fn add(&mut self, param: &Type, to: Type) {
        if let Type::TypeParam(n) = param {
            let old = self.bindings.insert(n.clone(), to);
            self.trail.push((n.clone(), old));
        }
    }

    /// A point to roll back to.
    pub fn mark(&self) -> usize {
        self.trail.len()
    }

    /// Undoes every binding made since `mark`.
    pub fn rollback(&mut self, mark: usize) {
        while self.trail.len() > mark {
            let Some((name, old)) = self.trail.pop() else {
                break;
            };
            match old {
                Some(t) => {
                    self.bindings.insert(name, t);
                }
                None => {
                    self.bindings.remove(&name);
                }
            }
        }
    }

    /// True (keeping the new bindings) when `t1` is assignable to `t2`.
    pub fn is_assignable(&mut self, t1: &Type, t2: &Type) -> bool {
        // A type without parts is assignable to itself, binding nothing
        // (`bool` to `bool`: a logical operator's argument, a loop condition).
        if is_leaf(t1) && same_leaf(t1, t2) {
            return true;
        }
        let mark = self.mark();
        let ok = self.assignable(t1, t2, 0);
        if !ok {
            self.rollback(mark);
        }
        ok
    }

    /// True (keeping the new bindings) when every `l1[i]` is assignable to `l2[i]`.
    pub fn is_assignable_list(&mut self, l1: &[Type], l2: &[Type]) -> bool {
        let mark = self.mark();
        let ok = self.assignable_list(l1, l2, 0);
        if !ok {
            self.rollback(mark);
        }
        ok
    }

    fn assignable_list(&mut self, l1: &[Type], l2: &[Type], depth: usize) -> bool {
        l1.len() == l2.len()
            && l1
                .iter()
                .zip(l2)
                .all(|(a, b)| self.assignable(a, b, depth + 1))
    }

    fn assignable(&mut self, t1: &Type, t2: &Type, depth: usize) -> bool {
        if depth > MAX_TYPE_DEPTH {
            return false;
        }
        if matches!(t2, Type::TypeParam(_)) {
            let (valid, has_sub) = self.valid_substitution(t1, t2, depth);
            if valid {
                return true;
            }
            if has_sub {
                return false;
            }
        }
        if matches!(t1, Type::TypeParam(_)) {
            return self.valid_substitution(t2, t1, depth).0;
        }
        if is_dyn_or_error(t1) || is_dyn_or_error(t2) {
            return true;
        }
        if matches!(t1, Type::Null) {
            return is_assignable_null(t2);
        }
        if matches!(t2, Type::Null) {
            return is_assignable_null(t1);
        }
        match t1 {
            Type::Bool
            | Type::Bytes
            | Type::Double
            | Type::Int
            | Type::String
            | Type::Uint
            | Type::Duration
            | Type::Timestamp
            | Type::Object(_)
            | Type::Wrapper(_) => accepts(t1, t2),
            Type::Type(_) => matches!(t2, Type::Type(_)),
            Type::List(e1) => match t2 {
                Type::List(e2) => self.assignable(e1, e2, depth + 1),
                _ => false,
            },
            Type::Map(k1, v1) => match t2 {
                Type::Map(k2, v2) => {
                    self.assignable(k1, k2, depth + 1) && self.assignable(v1, v2, depth + 1)
                }
                _ => false,
            },
            Type::Opaque(n1, p1) => match t2 {
                Type::Opaque(n2, p2) => n1 == n2 && self.assignable_list(p1, p2, depth),
                _ => false,
            },
            _ => false,
        }
    }

    /// cel-go's `isValidTypeSubstitution`: whether `t2` (a type parameter) may
    /// stand for `t1`, and whether `t2` was bound already.
    fn valid_substitution(&mut self, t1: &Type, t2: &Type, depth: usize) -> (bool, bool) {
        if exact_eq(t1, t2) {
            return (true, true);
        }
        if let Some(sub) = self.find(t2).cloned() {
            if exact_eq(t1, &sub) {
                return (true, true);
            }
            if self.assignable(t1, &sub, depth + 1) {
                let general = most_general(t1, &sub).clone();
                if self.not_referenced_in(t2, &general, 0) {
                    self.add(t2, general);
                }
                return (true, true);
            }
            return (false, true);
        }
        if self.not_referenced_in(t2, t1, 0) {
            self.add(t2, t1.clone());
            return (true, false);
        }
        (false, false)
    }

    /// The occurs check: true when `t` does not occur in `within`.
    fn not_referenced_in(&self, t: &Type, within: &Type, depth: usize) -> bool {
        if depth > MAX_TYPE_DEPTH || exact_eq(t, within) {
            return false;
        }
        match within {
            Type::TypeParam(_) => match self.find(within) {
                Some(sub) => self.not_referenced_in(t, sub, depth + 1),
                None => true,
            },
            Type::List(e) | Type::Type(Some(e)) => self.not_referenced_in(t, e, depth + 1),
            Type::Map(k, v) => {
                self.not_referenced_in(t, k, depth + 1) && self.not_referenced_in(t, v, depth + 1)
            }
            Type::Opaque(_, ps) => ps.iter().all(|p| self.not_referenced_in(t, p, depth + 1)),
            _ => true,
        }
    }

    /// Replaces bound type parameters by their bindings; unbound ones become
    /// `dyn` when `to_dyn`.
    pub fn substitute(&self, t: &Type, to_dyn: bool) -> Type {
        self.substitute_changed(t, to_dyn, 0)
            .unwrap_or_else(|| t.clone())
    }

    /// Like [`Self::substitute`], `None` when nothing changes (no allocation).
    fn substitute_changed(&self, t: &Type, to_dyn: bool, depth: usize) -> Option<Type> {
        if depth > MAX_TYPE_DEPTH {
            return Some(Type::Error);
        }
        match t {
            Type::TypeParam(_) => match self.find(t) {
                Some(sub) => Some(
                    self.substitute_changed(sub, to_dyn, depth + 1)
                        .unwrap_or_else(|| sub.clone()),
                ),
                None if to_dyn => Some(Type::Dyn),
                None => None,
            },
            Type::List(e) => self
                .substitute_changed(e, to_dyn, depth + 1)
                .map(Type::list),
            Type::Map(k, v) => {
                let k2 = self.substitute_changed(k, to_dyn, depth + 1);
                let v2 = self.substitute_changed(v, to_dyn, depth + 1);
                if k2.is_none() && v2.is_none() {
                    return None;
                }
                Some(Type::Map(
                    k2.map(Arc::new).unwrap_or_else(|| k.clone()),
                    v2.map(Arc::new).unwrap_or_else(|| v.clone()),
                ))
            }
            Type::Type(Some(p)) => self
                .substitute_changed(p, to_dyn, depth + 1)
                .map(Type::type_of),
            Type::Opaque(n, ps) => {
                let subs: Vec<Option<Type>> = ps
                    .iter()
                    .map(|p| self.substitute_changed(p, to_dyn, depth + 1))
                    .collect();
                if subs.iter().all(Option::is_none) {
                    return None;
                }
                let params: Vec<Type> = subs
                    .into_iter()
                    .zip(ps.iter())
                    .map(|(s, p)| s.unwrap_or_else(|| p.clone()))
                    .collect();
                Some(Type::Opaque(n.clone(), params.into()))
            }
            _ => None,
        }
    }
}

/// Types nest at most this deep during unification (guards hostile declarations).
const MAX_TYPE_DEPTH: usize = 512;

/// Whether `t` is a type without parts (no name, parameter or nested type).
#[inline]
pub(crate) fn is_leaf(t: &Type) -> bool {
    matches!(
        t,
        Type::Dyn
            | Type::Null
            | Type::Bool
            | Type::Int
            | Type::Uint
            | Type::Double
            | Type::String
            | Type::Bytes
            | Type::Any
            | Type::Timestamp
            | Type::Duration
            | Type::Type(None)
            | Type::Error
    )
}

/// Whether `b` is the same type as `a`, a type without parts
/// ([`is_leaf`]): the variants compared, nothing else.
#[inline]
pub(crate) fn same_leaf(a: &Type, b: &Type) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b) && !matches!(b, Type::Type(Some(_)))
}

/// Whether `a` and `b` are equal (`==`), settled by their variants when
/// `a` has no parts.
#[inline]
pub(crate) fn same_type(a: &Type, b: &Type) -> bool {
    if is_leaf(a) { same_leaf(a, b) } else { a == b }
}

/// `dyn` or `google.protobuf.Any`.
pub fn is_dyn(t: &Type) -> bool {
    matches!(t, Type::Dyn | Type::Any)
}

/// `dyn`, `Any` or the error type.
pub fn is_dyn_or_error(t: &Type) -> bool {
    matches!(t, Type::Dyn | Type::Any | Type::Error)
}

/// The wrapped primitive of a wrapper, the type itself otherwise: cel-go's
/// wrapper types share kind and name with their primitive.
fn unwrap_wrapper(t: &Type) -> &Type {
    match t {
        Type::Wrapper(p) => p,
        other => other,
    }
}

/// cel-go's `IsExactType`: structural equality, where a wrapper equals its
/// primitive (they share kind and name in cel-go).
pub fn exact_eq(a: &Type, b: &Type) -> bool {
    let (a, b) = (unwrap_wrapper(a), unwrap_wrapper(b));
    match (a, b) {
        (Type::List(x), Type::List(y)) => exact_eq(x, y),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => exact_eq(k1, k2) && exact_eq(v1, v2),
        (Type::Type(x), Type::Type(y)) => match (x, y) {
            (Some(x), Some(y)) => exact_eq(x, y),
            (None, None) => true,
            _ => false,
        },
        (Type::Opaque(n1, p1), Type::Opaque(n2, p2)) => {
            n1 == n2
                && p1.len() == p2.len()
                && p1.iter().zip(p2.iter()).all(|(x, y)| exact_eq(x, y))
        }
        _ => a == b,
    }
}

/// cel-go's `Type.IsAssignableType` (no type parameter binding): whether a
/// value of type `from` may be used where `to` is expected.
fn accepts(to: &Type, from: &Type) -> bool {
    if let Type::Wrapper(p) = to {
        return matches!(from, Type::Null) || accepts(p, from);
    }
    if is_dyn(to) {
        return true;
    }
    let from = unwrap_wrapper(from);
    match (to, from) {
        (Type::List(a), Type::List(b)) => accepts(a, b),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => accepts(k1, k2) && accepts(v1, v2),
        (Type::Type(a), Type::Type(b)) => match (a, b) {
            (Some(a), Some(b)) => accepts(a, b),
            (None, None) => true,
            _ => false,
        },
        (Type::Opaque(n1, p1), Type::Opaque(n2, p2)) => {
            n1 == n2 && p1.len() == p2.len() && p1.iter().zip(p2.iter()).all(|(a, b)| accepts(a, b))
        }
        _ => to == from,
    }
}

/// Whether `null` may be assigned to (or compared with) `t`.
fn is_assignable_null(t: &Type) -> bool {
    matches!(
        t,
        Type::Opaque(..)
            | Type::Object(_)
            | Type::Any
            | Type::Duration
            | Type::Timestamp
            | Type::Wrapper(_)
            | Type::Null
            | Type::Dyn
    )
}

/// cel-go's `isEqualOrLessSpecific`.
pub fn is_equal_or_less_specific(t1: &Type, t2: &Type) -> bool {
    if is_dyn(t1) || matches!(t1, Type::TypeParam(_)) {
        return true;
    }
    if is_dyn(t2) || matches!(t2, Type::TypeParam(_)) {
        return false;
    }
    match (unwrap_wrapper(t1), unwrap_wrapper(t2)) {
        (Type::Opaque(n1, p1), Type::Opaque(n2, p2)) => {
            n1 == n2
                && p1.len() == p2.len()
                && p1
                    .iter()
                    .zip(p2.iter())
                    .all(|(a, b)| is_equal_or_less_specific(a, b))
        }
        (Type::List(a), Type::List(b)) => is_equal_or_less_specific(a, b),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => {
            is_equal_or_less_specific(k1, k2) && is_equal_or_less_specific(v1, v2)
        }
        (Type::Type(_), Type::Type(_)) => true,
        _ => exact_eq(t1, t2),
    }
}

/// The more general of two types known to unify. A `null` joined to a type
/// that accepts it keeps that type (`[optional.of(1), null]` is a list of
/// `optional_type(int)`, cel-spec's legacy nullable types).
pub fn most_general<'a>(t1: &'a Type, t2: &'a Type) -> &'a Type {
    if matches!(t2, Type::Null) || is_equal_or_less_specific(t1, t2) {
        t1
    } else {
        t2
    }
}

/// True when `t` mentions a type parameter.
pub fn has_type_param(t: &Type) -> bool {
    match t {
        Type::TypeParam(_) => true,
        Type::List(e) => has_type_param(e),
        Type::Map(k, v) => has_type_param(k) || has_type_param(v),
        Type::Type(Some(p)) | Type::Wrapper(p) => has_type_param(p),
        Type::Opaque(_, ps) => ps.iter().any(has_type_param),
        _ => false,
    }
}

/// Replaces each type parameter `p` of `t` by `fresh(p)` (when `Some`).
pub fn instantiate_with(t: &Type, fresh: &dyn Fn(&str) -> Option<Type>) -> Type {
    match t {
        Type::TypeParam(n) => fresh(n).unwrap_or_else(|| t.clone()),
        Type::List(e) => Type::list(instantiate_with(e, fresh)),
        Type::Map(k, v) => Type::map(instantiate_with(k, fresh), instantiate_with(v, fresh)),
        Type::Type(Some(p)) => Type::type_of(instantiate_with(p, fresh)),
        Type::Wrapper(p) => Type::wrapper(instantiate_with(p, fresh)),
        Type::Opaque(n, ps) => Type::Opaque(
            n.clone(),
            ps.iter()
                .map(|p| instantiate_with(p, fresh))
                .collect::<Vec<_>>()
                .into(),
        ),
        other => other.clone(),
    }
}

/// The kind of a type for [`kinds_differ`]: `None` for types that may unify
/// with anything (dyn, Any, error, type parameters) or with several kinds
/// (null); a wrapper has its primitive's kind.
fn top_kind(t: &Type) -> Option<u8> {
    Some(match t {
        Type::Wrapper(p) => return top_kind(p),
        Type::Dyn | Type::Any | Type::Error | Type::TypeParam(_) | Type::Null => return None,
        Type::Bool => 0,
        Type::Int => 1,
        Type::Uint => 2,
        Type::Double => 3,
        Type::String => 4,
        Type::Bytes => 5,
        Type::Duration => 6,
        Type::Timestamp => 7,
        Type::List(_) => 8,
        Type::Map(_, _) => 9,
        Type::Type(_) => 10,
        Type::Opaque(_, _) => 11,
        Type::Object(_) => 12,
    })
}

/// True when `arg` can never be assignable to `param` because their outer
/// kinds differ (`int` against `list(A)`): a cheap test that lets overload
/// resolution skip a candidate without instantiating it. When false, the full
/// [`Mapping::is_assignable`] decides.
pub fn kinds_differ(arg: &Type, param: &Type) -> bool {
    matches!((top_kind(arg), top_kind(param)), (Some(a), Some(b)) if a != b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(n: &str) -> Type {
        Type::param(n)
    }

    #[test]
    fn many_bindings_roll_back_as_few_do() {
        let mut m = Mapping::default();
        let names: Vec<String> = (0..3 * FEW_BINDINGS).map(|i| format!("_var{i}")).collect();
        let half = m.mark();
        for (i, n) in names.iter().enumerate() {
            if i == FEW_BINDINGS || i == names.len() / 2 {
                // A failed test leaves the bindings as they were.
                let mark = m.mark();
                assert!(!m.is_assignable(&Type::String, &p(&names[0])));
                assert_eq!(m.mark(), mark);
                assert_eq!(m.find(&p(&names[0])), Some(&Type::Int));
            }
            assert!(m.is_assignable(&Type::Int, &p(n)));
        }
        for n in &names {
            assert_eq!(m.find(&p(n)), Some(&Type::Int), "{n}");
        }
        assert_eq!(m.find(&p("_var999")), None);
        m.rollback(half);
        for n in &names {
            assert_eq!(m.find(&p(n)), None, "{n}");
        }
        assert!(m.is_assignable(&Type::Bool, &p(&names[1])));
        assert_eq!(m.find(&p(&names[1])), Some(&Type::Bool));
    }

    #[test]
    fn primitives_and_wrappers() {
        let mut m = Mapping::default();
        assert!(m.is_assignable(&Type::Int, &Type::Int));
        assert!(!m.is_assignable(&Type::Int, &Type::Uint));
        assert!(m.is_assignable(&Type::Int, &Type::wrapper(Type::Int)));
        assert!(m.is_assignable(&Type::wrapper(Type::Int), &Type::Int));
        assert!(m.is_assignable(&Type::Null, &Type::wrapper(Type::Int)));
        assert!(!m.is_assignable(&Type::Null, &Type::Int));
        assert!(!m.is_assignable(&Type::Int, &Type::Null));
        assert!(m.is_assignable(&Type::Null, &Type::Timestamp));
        assert!(m.is_assignable(&Type::Any, &Type::Int));
        assert!(m.is_assignable(&Type::type_of(Type::Int), &Type::Type(None)));
    }

    #[test]
    fn type_params_bind_and_widen() {
        let mut m = Mapping::default();
        assert!(m.is_assignable(&Type::list(Type::Int), &Type::list(p("A"))));
        assert_eq!(m.substitute(&p("A"), false), Type::Int);
        // A second use must agree.
        assert!(!m.is_assignable(&Type::String, &p("A")));
        assert_eq!(m.substitute(&p("A"), false), Type::Int);
        // dyn widens the binding.
        assert!(m.is_assignable(&Type::Dyn, &p("A")));
        assert_eq!(m.substitute(&p("A"), false), Type::Dyn);
        assert_eq!(m.substitute(&p("B"), true), Type::Dyn);
        assert_eq!(m.substitute(&p("B"), false), p("B"));
    }

    #[test]
    fn failed_assignability_rolls_back() {
        let mut m = Mapping::default();
        assert!(!m.is_assignable_list(&[Type::Int, Type::String], &[p("A"), p("A")]));
        assert_eq!(m.substitute(&p("A"), false), p("A"));
    }

    #[test]
    fn occurs_check() {
        let mut m = Mapping::default();
        assert!(!m.is_assignable(&Type::list(p("A")), &p("A")));
        // Also through type(T): `[c, type(c)]` must not bind c's type to type(c's type).
        assert!(!m.is_assignable(&p("A"), &Type::type_of(p("A"))));
    }

    #[test]
    fn most_general_prefers_dyn() {
        assert_eq!(most_general(&Type::Int, &Type::Dyn), &Type::Dyn);
        assert_eq!(most_general(&Type::Dyn, &Type::Int), &Type::Dyn);
        assert_eq!(
            most_general(&Type::list(Type::Int), &Type::list(Type::Dyn)),
            &Type::list(Type::Dyn)
        );
    }
}
