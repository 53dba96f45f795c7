//! A declared function with its overloads grouped by call shape (member or
//! global, argument count), built once per environment so that the checker's
//! overload resolution visits only the overloads a call could match.
//!
//! cel-go's `checker.resolveOverload` (checker/checker.go) walks every overload
//! of the function, skipping those of the other call style and, when
//! `CrossTypeNumericComparisons` is off, the cross-type numeric comparisons;
//! an overload of another argument count cannot match, but still draws fresh
//! type variables for its type parameters, which numbers the variables of
//! later overloads. A [`CallShape`] lists the candidates of one argument count
//! with how many such variables the skipped overloads before each drew, so the
//! numbering is unchanged.

use std::sync::Arc;

use super::once_slots::OnceSlots;

use crate::checker::unify::{exact_eq, has_type_param, is_dyn, same_type};
use crate::functions::{Function, Overload};
use crate::types::Type;

/// A function as an environment declares it: the [`Function`] and its
/// overloads by call shape.
pub(crate) struct DeclaredFunction {
    /// The declaration.
    pub(crate) function: Function,
    /// One entry per (call style, argument count) some overload takes.
    shapes: Vec<CallShape>,
    /// Per call style (global, member): the type parameters of all its
    /// overloads, drawn by a call of an argument count no overload takes.
    unmatched_fresh: [usize; 2],
    /// Per call style: the first overload considered, for `_&&_` and `_||_`
    /// (none for other functions).
    logical_first: [Option<Candidate>; 2],
}

/// Overload ids as a checked call's reference holds them.
pub(crate) type OverloadIds = Arc<[Arc<str>]>;

/// The overloads one call shape may match.
pub(crate) struct CallShape {
    member: bool,
    arity: usize,
    /// Candidate overloads, in declaration order.
    pub(crate) candidates: Vec<Candidate>,
    /// Type parameters of the overloads skipped after the last candidate.
    pub(crate) fresh_after: usize,
    /// What a call whose arguments are all `dyn` resolves to, when no
    /// candidate has type parameters (see [`DynResolution`]).
    pub(crate) all_dyn: Option<DynResolution>,
    /// The resolutions of the calls of this shape checked so far whose
    /// argument types were concrete.
    pub(crate) memo: ResolutionMemo,
}

/// How many argument typings a [`ResolutionMemo`] holds.
const MEMO_SLOTS: usize = 8;

/// The resolutions of a call shape for argument types without type
/// parameters (`_==_` on `(dyn, int)`), filled by the checker as it resolves
/// such calls and kept for the environment's life: its functions do not
/// change, and such a resolution depends on the argument types alone. The
/// overloads' type parameters are instantiated as fresh variables that no
/// other node mentions, so the bindings the full resolution makes are never
/// read again; a resolution whose type mentions a type parameter is not
/// kept. Bounded ([`MEMO_SLOTS`] typings, allocated on the first); entries
/// are written once and read without locking, so checks on many threads
/// share it.
pub(crate) struct ResolutionMemo {
    /// The type variables a call of the shape draws: the candidates' type
    /// parameters and those of the overloads skipped.
    fresh: usize,
    entries: OnceSlots<MemoEntry, MEMO_SLOTS>,
}

/// One memoized resolution.
struct MemoEntry {
    /// The argument types (the receiver first).
    args: Box<[Type]>,
    /// The call's type.
    result: Type,
    /// The overloads the call may use.
    overload_ids: OverloadIds,
}

impl ResolutionMemo {
    fn new(fresh: usize) -> Self {
        ResolutionMemo {
            fresh,
            entries: OnceSlots::default(),
        }
    }

    /// The type variables a call of the shape draws.
    pub(crate) fn fresh(&self) -> usize {
        self.fresh
    }

    /// The resolution (type, overload ids) recorded for the argument types
    /// `args` (compared exactly). Every call of the shape has as many
    /// arguments. Inlined into the checker's one call, which the memo is
    /// there to make cheap.
    #[inline(always)]
    pub(crate) fn find<'t, I>(&self, args: I) -> Option<(&Type, &OverloadIds)>
    where
        I: Iterator<Item = &'t Type> + Clone,
    {
        let e = self.entries.find(|e| {
            args.clone()
                .zip(e.args.iter())
                .all(|(a, b)| same_type(b, a))
        })?;
        Some((&e.result, &e.overload_ids))
    }

    /// Records the resolution of argument types `args` (without type
    /// parameters, as `result`), if a slot is free.
    pub(crate) fn insert(&self, args: &[Type], result: &Type, overload_ids: &OverloadIds) {
        let entry = MemoEntry {
            args: args.into(),
            result: result.clone(),
            overload_ids: overload_ids.clone(),
        };
        // Another thread may have recorded these types first: its entry stays.
        self.entries.insert(entry, |e| *e.args == *args);
    }
}

/// The resolution of a call whose arguments are all `dyn` (or error), when
/// no candidate has type parameters: every candidate matches (`dyn` is
/// assignable to any parameter without binding anything), the call's type is
/// the join of their result types (cel-go's: the first, or `dyn` when two
/// differ), and the skipped overloads draw all the fresh variables.
pub(crate) struct DynResolution {
    /// Every candidate's overload id, in declaration order.
    pub(crate) overload_ids: OverloadIds,
    /// The call's type.
    pub(crate) result: Type,
    /// The type variables the call draws.
    pub(crate) fresh: usize,
}

/// One overload a call shape may match.
pub(crate) struct Candidate {
    /// Index into [`Function::overloads`].
    pub(crate) overload: usize,
    /// The overload's id, alone: the reference of a call only it matches.
    pub(crate) overload_ids: OverloadIds,
    /// Type parameters of the overloads of the call style skipped (other
    /// argument count) between the previous candidate and this one.
    pub(crate) fresh_before: usize,
}

/// The shape of a call no overload takes: no candidates.
const NO_CANDIDATES: &[Candidate] = &[];

impl DeclaredFunction {
    /// `function` indexed by call shape; the cross-type numeric comparisons
    /// are left out unless `cross_type_numeric`.
    pub(crate) fn new(function: Function, cross_type_numeric: bool) -> Self {
        let considered = |o: &Overload, member: bool| {
            o.member == member && (cross_type_numeric || !is_cross_type_comparison(&o.id))
        };
        let mut shapes: Vec<CallShape> = Vec::new();
        let mut unmatched_fresh = [0; 2];
        let mut first = [None, None];
        let logical = matches!(function.name.as_str(), "_&&_" | "_||_");
        for member in [false, true] {
            let overloads = || {
                function
                    .overloads
                    .iter()
                    .enumerate()
                    .filter(move |(_, o)| considered(o, member))
            };
            unmatched_fresh[usize::from(member)] =
                overloads().map(|(_, o)| o.type_params.len()).sum();
            first[usize::from(member)] =
                overloads()
                    .next()
                    .filter(|_| logical)
                    .map(|(i, o)| Candidate {
                        overload: i,
                        overload_ids: Arc::new([o.id.clone()]),
                        fresh_before: 0,
                    });
            for (_, o) in overloads() {
                let arity = o.params.len();
                if shapes
                    .iter()
                    .any(|s| s.member == member && s.arity == arity)
                {
                    continue;
                }
                let mut candidates = Vec::new();
                let mut skipped = 0;
                for (i, o) in overloads() {
                    if o.params.len() == arity {
                        candidates.push(Candidate {
                            overload: i,
                            overload_ids: Arc::new([o.id.clone()]),
                            fresh_before: std::mem::take(&mut skipped),
                        });
                    } else {
                        skipped += o.type_params.len();
                    }
                }
                let all_dyn = dyn_resolution(&function, &candidates, skipped);
                let fresh = skipped
                    + candidates
                        .iter()
                        .map(|c| c.fresh_before + function.overloads[c.overload].type_params.len())
                        .sum::<usize>();
                shapes.push(CallShape {
                    member,
                    arity,
                    candidates,
                    fresh_after: skipped,
                    all_dyn,
                    memo: ResolutionMemo::new(fresh),
                });
            }
        }
        DeclaredFunction {
            function,
            shapes,
            unmatched_fresh,
            logical_first: first,
        }
    }

    /// The candidates of a call of style `member` with `arity` arguments
    /// (the receiver included), the type parameters drawn after the last,
    /// the resolution of all-`dyn` arguments and the shape's memo (none when
    /// no overload takes that shape).
    pub(crate) fn shape(
        &self,
        member: bool,
        arity: usize,
    ) -> (
        &[Candidate],
        usize,
        Option<&DynResolution>,
        Option<&ResolutionMemo>,
    ) {
        match self
            .shapes
            .iter()
            .find(|s| s.member == member && s.arity == arity)
        {
            Some(s) => (
                &s.candidates,
                s.fresh_after,
                s.all_dyn.as_ref(),
                Some(&s.memo),
            ),
            None => (
                NO_CANDIDATES,
                self.unmatched_fresh[usize::from(member)],
                None,
                None,
            ),
        }
    }

    /// For `_&&_` and `_||_`, which check their arguments against it
    /// whatever their count, the first overload of call style `member`
    /// considered; `None` for other functions.
    #[inline]
    pub(crate) fn logical_first(&self, member: bool) -> Option<&Candidate> {
        self.logical_first[usize::from(member)].as_ref()
    }
}

/// The [`DynResolution`] of `candidates` (with `fresh_after` type variables
/// drawn after the last), `None` when there is none or one has type parameters.
fn dyn_resolution(
    function: &Function,
    candidates: &[Candidate],
    fresh_after: usize,
) -> Option<DynResolution> {
    let mut result: Option<Type> = None;
    let mut overload_ids = Vec::with_capacity(candidates.len());
    let mut fresh = fresh_after;
    for c in candidates {
        let o = &function.overloads[c.overload];
        if !o.type_params.is_empty()
            || has_type_param(&o.result)
            || o.params.iter().any(|p| matches!(p, Type::TypeParam(_)))
        {
            return None;
        }
        fresh += c.fresh_before;
        overload_ids.push(o.id.clone());
        result = Some(match result {
            Some(prev) if !is_dyn(&prev) && !exact_eq(&o.result, &prev) => Type::Dyn,
            Some(prev) => prev,
            None => o.result.clone(),
        });
    }
    Some(DynResolution {
        overload_ids: overload_ids.into(),
        result: result?,
        fresh,
    })
}

/// Overload ids of the cross-type numeric comparisons, left out unless
/// `EnvOptions::cross_type_numeric_comparisons` is on (as cel-go filters them).
fn is_cross_type_comparison(id: &str) -> bool {
    let rest = id
        .strip_prefix("less_equals_")
        .or_else(|| id.strip_prefix("less_"))
        .or_else(|| id.strip_prefix("greater_equals_"))
        .or_else(|| id.strip_prefix("greater_"));
    matches!(
        rest,
        Some(
            "int64_double"
                | "int64_uint64"
                | "uint64_double"
                | "uint64_int64"
                | "double_int64"
                | "double_uint64"
        )
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Type;

    fn global(id: &str, params: Vec<Type>) -> Overload {
        Overload::global(id, params, Type::Dyn, None)
    }

    #[test]
    fn shapes_keep_the_type_variables_of_skipped_overloads() {
        let a = || Type::param("A");
        let f = Function::new("f")
            .overload(global("f_one", vec![a()]))
            .overload(global("f_two", vec![Type::Int, Type::Int]))
            .overload(global("f_one_int", vec![Type::Int]))
            .overload(global("f_two_generic", vec![a(), Type::list(a())]))
            .overload(global("less_int64_double", vec![Type::Int, Type::Double]));
        let d = DeclaredFunction::new(f, false);
        let (two, after, all_dyn, memo) = d.shape(false, 2);
        // f_one's and f_two_generic's type parameters.
        assert_eq!(memo.map(ResolutionMemo::fresh), Some(2));
        assert!(all_dyn.is_none(), "f_two_generic has a type parameter");
        let picked: Vec<(usize, usize)> =
            two.iter().map(|c| (c.overload, c.fresh_before)).collect();
        // `f_one` (one type parameter) is skipped before `f_two`; the cross-type
        // comparison is left out.
        assert_eq!(picked, vec![(1, 1), (3, 0)]);
        assert_eq!(after, 0);
        let (one, after, _, _) = d.shape(false, 1);
        let picked: Vec<(usize, usize)> =
            one.iter().map(|c| (c.overload, c.fresh_before)).collect();
        assert_eq!(picked, vec![(0, 0), (2, 0)]);
        assert_eq!(after, 1);
        assert!(d.shape(true, 1).0.is_empty());
        let (none, after, _, _) = d.shape(false, 3);
        assert!(none.is_empty());
        assert_eq!(after, 2);
        let with_cross = DeclaredFunction::new(d.function, true);
        assert_eq!(with_cross.shape(false, 2).0.len(), 3);
    }
}
