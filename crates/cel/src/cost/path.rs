//! Field paths with Go slice semantics.
//!
//! cel-go builds a node's path with `append(path(operand), name)`. A Go slice
//! shares its backing array with the slice it was appended to while capacity
//! remains, so two paths appended to the same shorter path can overwrite each
//! other's last element. This happens in cel-go for iteration variables (every
//! use of `x` shares the variable's path) and for the two variables of a
//! comprehension over a range whose path has spare capacity: the paths the
//! host sees are then the overwritten ones. [`GoPath`] reproduces this: the
//! backing store is shared, `append` writes in place while `len < cap`, and
//! capacity grows as Go's `append` grows a `[]string` (doubling; exact for
//! paths shorter than 256 elements, which is where Go switches to a slower
//! growth rule rounded to allocator size classes).

use std::cell::RefCell;
use std::rc::Rc;

/// A Go `[]string` value: a window `[0, len)` on a shared backing array of
/// capacity `cap`.
#[derive(Clone, Debug, Default)]
pub(crate) struct GoPath {
    buf: Option<Rc<RefCell<Vec<String>>>>,
    len: usize,
    cap: usize,
}

impl GoPath {
    /// `[]string{name}`: length and capacity 1.
    pub(crate) fn single(name: &str) -> GoPath {
        GoPath {
            buf: Some(Rc::new(RefCell::new(vec![name.to_string()]))),
            len: 1,
            cap: 1,
        }
    }

    /// Go's `append(p, name)`.
    pub(crate) fn append(&self, name: &str) -> GoPath {
        if let Some(buf) = &self.buf
            && self.len < self.cap
        {
            let mut v = buf.borrow_mut();
            if let Some(slot) = v.get_mut(self.len) {
                slot.clear();
                slot.push_str(name);
            } else {
                v.push(name.to_string());
            }
            drop(v);
            return GoPath {
                buf: Some(Rc::clone(buf)),
                len: self.len + 1,
                cap: self.cap,
            };
        }
        let cap = grown_capacity(self.cap, self.len + 1);
        let mut v = Vec::with_capacity(self.len + 1);
        if let Some(buf) = &self.buf {
            v.extend(buf.borrow().iter().take(self.len).cloned());
        }
        v.push(name.to_string());
        GoPath {
            buf: Some(Rc::new(RefCell::new(v))),
            len: self.len + 1,
            cap,
        }
    }

    /// The elements currently visible through this slice.
    pub(crate) fn to_vec(&self) -> Vec<String> {
        match &self.buf {
            Some(buf) => buf.borrow().iter().take(self.len).cloned().collect(),
            None => Vec::new(),
        }
    }

    /// The first element, if any.
    pub(crate) fn first_is(&self, pred: impl Fn(&str) -> bool) -> bool {
        match &self.buf {
            Some(buf) if self.len > 0 => buf.borrow().first().is_some_and(|s| pred(s)),
            _ => false,
        }
    }
}

/// The capacity Go's `growslice` gives a `[]string` of capacity `old` that
/// must hold `needed` elements.
fn grown_capacity(old: usize, needed: usize) -> usize {
    let double = old.saturating_mul(2);
    if needed > double {
        return needed;
    }
    if old < 256 {
        return double.max(1);
    }
    let mut cap = old;
    while cap < needed {
        cap = cap.saturating_add((cap + 3 * 256) / 4);
    }
    cap
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_share_spare_capacity_like_go() {
        let a = GoPath::single("self"); // cap 1
        let ab = a.append("a"); // new array, cap 2
        let abm = ab.append("m"); // new array, cap 4, len 3: one spare slot
        let keys = abm.append("@keys");
        assert_eq!(keys.to_vec(), ["self", "a", "m", "@keys"]);
        let values = abm.append("@values"); // overwrites the spare slot
        assert_eq!(values.to_vec(), ["self", "a", "m", "@values"]);
        assert_eq!(keys.to_vec(), ["self", "a", "m", "@values"]);
        assert_eq!(abm.to_vec(), ["self", "a", "m"]);
        // A full slice copies: the two results are independent.
        let x = ab.append("x");
        assert_eq!(x.to_vec(), ["self", "a", "x"]);
        assert_eq!(keys.to_vec(), ["self", "a", "m", "@values"]);
        assert_eq!(GoPath::default().append("f").to_vec(), ["f"]);
    }

    #[test]
    fn growth() {
        assert_eq!(grown_capacity(0, 1), 1);
        assert_eq!(grown_capacity(1, 2), 2);
        assert_eq!(grown_capacity(4, 5), 8);
        assert_eq!(grown_capacity(256, 257), 512);
    }
}
