//! A fast hash for declaration names (variables, functions, overload ids,
//! type names, type parameters).
//!
//! Names come from the host's declarations and from the checker itself, not
//! from attackers in bulk, so the keyed SipHash that `HashMap` defaults to is
//! not needed; an expression only ever looks names up.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A multiply-rotate hash over 8-byte words (FxHash's scheme).
#[derive(Default)]
pub(crate) struct NameHasher(u64);

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The hasher builder of name-keyed maps.
pub(crate) type NameHash = BuildHasherDefault<NameHasher>;
/// A map keyed by names.
pub(crate) type NameMap<K, V> = HashMap<K, V, NameHash>;
/// A set of names.
pub(crate) type NameSet<K> = HashSet<K, NameHash>;
