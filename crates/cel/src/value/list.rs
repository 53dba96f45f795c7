//! List values.

use std::fmt;
use std::sync::Arc;

use super::Value;
use crate::error::EvalResult;

/// A list supplied by a host, read on demand.
///
/// Implementations must be cheap to index; `get` may build the element on the
/// fly (for example by wrapping a node of a host document).
pub trait ListProvider: fmt::Debug + Send + Sync {
    /// The number of elements.
    fn len(&self) -> usize;

    /// The element at `index`, `None` past the end.
    fn get(&self, index: usize) -> Option<Value>;

    /// Whether there are no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// [`ListProvider::get`] that can fail: `Err` when the host's element at `index` cannot be
    /// read as a CEL value (Kubernetes: data that does not fit its schema). Indexing goes
    /// through this; the default never fails.
    fn try_get(&self, index: usize) -> EvalResult<Option<Value>> {
        Ok(self.get(index))
    }

    /// A host-specific equality (Kubernetes compares set lists as sets), or
    /// `None` for CEL's element-wise equality. Called with `self` on the left.
    fn equals(&self, _other: &List) -> Option<bool> {
        None
    }

    /// A host-specific `self + other` (Kubernetes merges set and map lists), or
    /// `None` for concatenation.
    fn add(&self, _other: &List) -> Option<EvalResult<List>> {
        None
    }
}

/// A list value: plain, or provided by the host.
#[derive(Clone)]
pub enum List {
    /// Values held by the engine.
    Values(Arc<Vec<Value>>),
    /// Elements supplied by the host, read on demand.
    Provided(Arc<dyn ListProvider>),
}

impl List {
    /// A list of `values`.
    pub fn new(values: Vec<Value>) -> Self {
        List::Values(Arc::new(values))
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            List::Values(v) => v.len(),
            List::Provided(p) => p.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element at `index`, if any.
    pub fn get(&self, index: usize) -> Option<Value> {
        match self {
            List::Values(v) => v.get(index).cloned(),
            List::Provided(p) => p.get(index),
        }
    }

    /// [`List::get`] with the host's read error (see [`ListProvider::try_get`]).
    pub fn try_get(&self, index: usize) -> EvalResult<Option<Value>> {
        match self {
            List::Values(v) => Ok(v.get(index).cloned()),
            List::Provided(p) => p.try_get(index),
        }
    }

    /// The elements in order.
    pub fn iter(&self) -> ListIter<'_> {
        ListIter {
            list: self,
            next: 0,
            len: self.len(),
        }
    }

    /// The elements as a slice when the list is plain.
    pub fn as_slice(&self) -> Option<&[Value]> {
        match self {
            List::Values(v) => Some(v),
            List::Provided(_) => None,
        }
    }
}

impl From<Vec<Value>> for List {
    fn from(v: Vec<Value>) -> Self {
        List::new(v)
    }
}

impl fmt::Debug for List {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Iterator over the elements of a [`List`].
pub struct ListIter<'a> {
    list: &'a List,
    next: usize,
    len: usize,
}

impl Iterator for ListIter<'_> {
    type Item = Value;

    fn next(&mut self) -> Option<Value> {
        if self.next >= self.len {
            return None;
        }
        let v = self.list.get(self.next);
        self.next += 1;
        v
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len - self.next;
        (n, Some(n))
    }
}
