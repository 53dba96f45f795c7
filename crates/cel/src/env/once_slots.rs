//! Bounded tables whose entries are written once and read without locking:
//! the environment's memos of what its checks resolved (`IdentMemo` and
//! `FunctionMemo` in `decls.rs`, `ResolutionMemo` in `call_shapes.rs`), which
//! checks on many threads fill and share.

use std::sync::OnceLock;

/// Up to `N` entries, filled in order (an empty slot ends them), or each in
/// the slot its key's hash picks (`get_at`, `insert_at`); the slots are
/// allocated when the first entry is recorded.
pub(crate) struct OnceSlots<T, const N: usize> {
    slots: OnceLock<Box<[OnceLock<T>; N]>>,
}

impl<T, const N: usize> Default for OnceSlots<T, N> {
    fn default() -> Self {
        OnceSlots {
            slots: OnceLock::new(),
        }
    }
}

impl<T, const N: usize> OnceSlots<T, N> {
    /// The first entry `matches` accepts.
    #[inline]
    pub(crate) fn find(&self, mut matches: impl FnMut(&T) -> bool) -> Option<&T> {
        for slot in self.slots.get()?.iter() {
            let entry = slot.get()?;
            if matches(entry) {
                return Some(entry);
            }
        }
        None
    }

    /// Records `entry` in the first free slot, unless an entry `matches`
    /// accepts is there first (another thread recorded the same key). The
    /// entry the table keeps for that key; `None` when every slot is taken.
    pub(crate) fn insert(&self, entry: T, mut matches: impl FnMut(&T) -> bool) -> Option<&T> {
        let slots = self
            .slots
            .get_or_init(|| Box::new(std::array::from_fn(|_| OnceLock::new())));
        let mut entry = entry;
        for slot in slots.iter() {
            match slot.get() {
                Some(e) if matches(e) => return Some(e),
                Some(_) => {}
                None => match slot.set(entry) {
                    Ok(()) => return slot.get(),
                    // Taken by another thread meanwhile: try the next slot.
                    Err(back) => entry = back,
                },
            }
        }
        None
    }

    /// The entry in the slot of `hash` (`hash % N`), whatever its key: for
    /// a table whose entries are each in the slot their key's hash picks
    /// ([`OnceSlots::insert_at`]), which [`OnceSlots::find`] and
    /// [`OnceSlots::insert`] do not read.
    #[inline]
    pub(crate) fn get_at(&self, hash: usize) -> Option<&T> {
        self.slots.get()?[hash % N].get()
    }

    /// Records `entry` in the slot of `hash` (`hash % N`), unless the slot
    /// is taken (by another key, or by this one on another thread): such a
    /// key is not kept.
    pub(crate) fn insert_at(&self, hash: usize, entry: T) {
        let slots = self
            .slots
            .get_or_init(|| Box::new(std::array::from_fn(|_| OnceLock::new())));
        let _ = slots[hash % N].set(entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_found_kept_once_and_bounded() {
        let table: OnceSlots<(u8, &str), 2> = OnceSlots::default();
        assert!(table.find(|e| e.0 == 1).is_none());
        assert_eq!(table.insert((1, "a"), |e| e.0 == 1), Some(&(1, "a")));
        // The same key again keeps the first entry.
        assert_eq!(table.insert((1, "b"), |e| e.0 == 1), Some(&(1, "a")));
        assert_eq!(table.insert((2, "c"), |e| e.0 == 2), Some(&(2, "c")));
        // Full: nothing more is recorded.
        assert_eq!(table.insert((3, "d"), |e| e.0 == 3), None);
        assert_eq!(table.find(|e| e.0 == 2), Some(&(2, "c")));
        assert!(table.find(|e| e.0 == 3).is_none());
    }

    #[test]
    fn hashed_slots_keep_the_first_entry_of_each_slot() {
        let table: OnceSlots<(u8, &str), 4> = OnceSlots::default();
        assert!(table.get_at(1).is_none());
        table.insert_at(1, (1, "a"));
        // Slot 5 is slot 1: taken.
        table.insert_at(5, (5, "b"));
        assert_eq!(table.get_at(1), Some(&(1, "a")));
        assert_eq!(table.get_at(5), Some(&(1, "a")));
        table.insert_at(2, (2, "c"));
        assert_eq!(table.get_at(2), Some(&(2, "c")));
        assert!(table.get_at(3).is_none());
    }

    #[test]
    fn threads_filling_one_table_keep_one_entry_per_key() {
        let table: OnceSlots<(usize, usize), 8> = OnceSlots::default();
        std::thread::scope(|s| {
            for t in 0..4 {
                let table = &table;
                s.spawn(move || {
                    for key in 0..6 {
                        let kept = table.insert((key, t), |e| e.0 == key);
                        assert_eq!(kept.map(|e| e.0), Some(key));
                    }
                });
            }
        });
        for key in 0..6 {
            assert!(table.find(|e| e.0 == key).is_some(), "{key}");
        }
        // Each key once: six of the eight slots.
        assert_eq!(table.insert((6, 0), |e| e.0 == 6).map(|e| e.0), Some(6));
        assert_eq!(table.insert((7, 0), |e| e.0 == 7).map(|e| e.0), Some(7));
        assert_eq!(table.insert((8, 0), |e| e.0 == 8), None);
    }
}
