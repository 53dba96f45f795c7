//! The global allocator of the `kcel` binary and of the benches that measure it: mimalloc.
//!
//! The `mimalloc` crate's `GlobalAlloc` sends every request through mimalloc's aligned entry
//! points (`mi_malloc_aligned`, `mi_zalloc_aligned`, `mi_realloc_aligned`), which check and
//! adjust alignment on every call although almost every Rust layout asks for no more than
//! `malloc` already guarantees. [`MiMalloc`] calls the plain entry points for those layouts, as
//! the standard library's `System` allocator does for `malloc` (`std::sys::alloc::unix`,
//! `GlobalAlloc for System`), and the aligned ones otherwise. Blocks of at most
//! `MI_SMALL_SIZE_MAX` bytes go to the small-object entry points (`mi_malloc_small`,
//! `mi_zalloc_small`), which take mimalloc's size-class fast path without the general entry's
//! size dispatch and call.
//!
//! The gain is measured with callgrind (`crates/cel/benches/compile_instructions.sh`, and per
//! document of `kcel validate`): see `ARCHITECTURE.md`, `crates/alloc`.

#![cfg_attr(not(test), no_std)]

use core::alloc::{GlobalAlloc, Layout};
use core::ffi::c_void;

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_malloc_small, mi_realloc, mi_realloc_aligned,
    mi_zalloc, mi_zalloc_aligned, mi_zalloc_small,
};

/// The alignment mimalloc's plain `mi_malloc` guarantees for a block of at least that many
/// bytes: `MI_MAX_ALIGN_SIZE`, `sizeof(max_align_t)` (mimalloc `include/mimalloc/types.h`), as
/// a conforming `malloc` must.
const MALLOC_ALIGN: usize = 16;

/// The largest size mimalloc's small-object entry point serves
/// (`MI_SMALL_SIZE_MAX` in mimalloc.h: 128 machine words).
const SMALL_SIZE_MAX: usize = 128 * core::mem::size_of::<usize>();

/// Whether the plain entry points satisfy `align` for `size` bytes: the block is at least as
/// large as the alignment (a `malloc` aligns a block for every type that fits in it) and the
/// alignment is one `malloc` guarantees. The same test as the standard library's `System`.
#[inline]
fn plain(size: usize, align: usize) -> bool {
    align <= MALLOC_ALIGN && align <= size
}

/// mimalloc as the global allocator.
///
/// ```
/// #[global_allocator]
/// static ALLOCATOR: kcel_alloc::MiMalloc = kcel_alloc::MiMalloc;
///
/// let names: Vec<String> = (0..3).map(|i| format!("item-{i}")).collect();
/// assert_eq!(names.join(","), "item-0,item-1,item-2");
/// ```
pub struct MiMalloc;

/// A block for `layout` from one family of mimalloc entry points (plain or zeroed): `small` for
/// plain layouts of at most [`SMALL_SIZE_MAX`] bytes, `general` for larger plain layouts,
/// `aligned` for the rest (see [`plain`]).
///
/// # Safety
/// The entry points are mimalloc's, of one family; the caller upholds `GlobalAlloc::alloc`'s
/// contract (a non-zero-size layout).
#[inline(always)]
unsafe fn allocate(
    layout: Layout,
    small: unsafe extern "C" fn(usize) -> *mut c_void,
    general: unsafe extern "C" fn(usize) -> *mut c_void,
    aligned: unsafe extern "C" fn(usize, usize) -> *mut c_void,
) -> *mut u8 {
    let (size, align) = (layout.size(), layout.align());
    // SAFETY: the entry points take any size (and, aligned, any power-of-two alignment) and
    // return a suitable block or null; `plain` selects the unaligned ones only where mimalloc's
    // guaranteed alignment covers the layout (the impl's comment below).
    unsafe {
        if !plain(size, align) {
            aligned(size, align).cast()
        } else if size <= SMALL_SIZE_MAX {
            small(size).cast()
        } else {
            general(size).cast()
        }
    }
}

// SAFETY: every method forwards to mimalloc, which returns blocks of at least the requested
// size, or null on failure, as `GlobalAlloc` requires. The plain entry points are taken only when
// `plain` holds. mimalloc is a conforming `malloc` (it can replace the C library's): its blocks
// are aligned for every type that fits in them up to `max_align_t` — its size classes are word
// multiples up to 64 bytes and multiples of 16 above, laid out from 16-aligned page starts
// (`MI_PAGE_MIN_START_BLOCK_ALIGN`, mimalloc `include/mimalloc/types.h`), and Rust layouts have
// sizes that are multiples of their alignment — so `align <= 16 && align <= size` is met. Other
// layouts take the aligned entry points. `mi_free` and `mi_realloc` accept blocks from both.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: see the impl's comment.
        unsafe { allocate(layout, mi_malloc_small, mi_malloc, mi_malloc_aligned) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: see the impl's comment.
        unsafe { allocate(layout, mi_zalloc_small, mi_zalloc, mi_zalloc_aligned) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (the `GlobalAlloc` contract).
        unsafe { mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout` (the `GlobalAlloc` contract);
        // the new block keeps `layout.align()`, checked against the new size.
        unsafe {
            if plain(new_size, layout.align()) {
                mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Layouts on both sides of the plain/aligned split: every power-of-two alignment up to
    /// 4 KiB, with sizes below, at and above it.
    fn layouts() -> impl Iterator<Item = Layout> {
        (0..=12).flat_map(|shift| {
            let align = 1usize << shift;
            [align, 2 * align, 3 * align, 48 * align, 1 << 20]
                .into_iter()
                .filter_map(move |size| Layout::from_size_align(size, align).ok())
        })
    }

    fn aligned(ptr: *mut u8, align: usize) -> bool {
        !ptr.is_null() && (ptr as usize).is_multiple_of(align)
    }

    #[test]
    fn blocks_are_aligned_sized_and_zeroed_when_asked() {
        for layout in layouts() {
            // SAFETY: `layout` has a non-zero size; every block is freed with its layout.
            unsafe {
                let p = MiMalloc.alloc(layout);
                assert!(aligned(p, layout.align()), "alloc {layout:?} gave {p:?}");
                p.write_bytes(0xA5, layout.size());
                MiMalloc.dealloc(p, layout);

                let z = MiMalloc.alloc_zeroed(layout);
                assert!(
                    aligned(z, layout.align()),
                    "alloc_zeroed {layout:?} gave {z:?}"
                );
                let bytes = core::slice::from_raw_parts(z, layout.size());
                assert!(
                    bytes.iter().all(|&b| b == 0),
                    "alloc_zeroed {layout:?} not zeroed"
                );
                MiMalloc.dealloc(z, layout);
            }
        }
    }

    #[test]
    fn realloc_keeps_alignment_and_contents() {
        for layout in layouts() {
            for new_size in [layout.size() / 2, layout.size() * 3] {
                if new_size == 0 {
                    continue;
                }
                // SAFETY: `layout` has a non-zero size; `new_size` is non-zero and the block is
                // freed with the layout of its final size.
                unsafe {
                    let p = MiMalloc.alloc(layout);
                    assert!(aligned(p, layout.align()));
                    for i in 0..layout.size() {
                        p.add(i).write(i as u8);
                    }
                    let q = MiMalloc.realloc(p, layout, new_size);
                    assert!(
                        aligned(q, layout.align()),
                        "realloc {layout:?} -> {new_size}"
                    );
                    for i in 0..layout.size().min(new_size) {
                        assert_eq!(
                            q.add(i).read(),
                            i as u8,
                            "byte {i} of {layout:?} -> {new_size}"
                        );
                    }
                    MiMalloc.dealloc(
                        q,
                        Layout::from_size_align_unchecked(new_size, layout.align()),
                    );
                }
            }
        }
    }
}
