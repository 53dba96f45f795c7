//! Vectors a thread keeps between compiles: the parser's token and depth
//! vectors and the checker's type and reference tables are emptied when
//! their compile ends and taken by the thread's next one, which so reuses
//! their allocations instead of making its own.

/// The most elements a kept vector may have room for: a huge expression's
/// vectors are freed, not kept.
pub(crate) const SPARE_MAX: usize = 1 << 12;

/// `v` emptied for reuse, keeping its allocation unless it is large.
pub(crate) fn emptied<T>(mut v: Vec<T>) -> Vec<T> {
    if v.capacity() > SPARE_MAX {
        return Vec::new();
    }
    v.clear();
    v
}
