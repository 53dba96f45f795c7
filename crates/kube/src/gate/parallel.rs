//! Mapping a slice on several threads with the results in the slice's order, so that a run's
//! output does not depend on how many threads ran it.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `items.iter().map(f)` on up to `jobs` scoped threads, results in `items`' order. Each thread
/// takes the next unclaimed item, so slow items do not hold up a fixed share of the work. A
/// panic in `f` is resumed on the calling thread.
pub fn ordered_map<T: Sync, R: Send>(
    items: &[T],
    jobs: NonZeroUsize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = jobs.get().min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        done.push((i, f(item)));
                    }
                    done
                })
            })
            .collect();
        for worker in workers {
            match worker.join() {
                Ok(done) => {
                    for (i, r) in done {
                        slots[i] = Some(r);
                    }
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    // Every index below `items.len()` was claimed by exactly one worker, which filled it.
    slots.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_input_order_whatever_the_thread_count() {
        let items: Vec<u64> = (0..1000).collect();
        let slow_square = |x: &u64| {
            if x.is_multiple_of(7) {
                std::thread::yield_now();
            }
            x * x
        };
        let one = ordered_map(&items, NonZeroUsize::MIN, slow_square);
        for jobs in [2, 3, 8] {
            let jobs = NonZeroUsize::new(jobs).expect("non-zero");
            assert_eq!(ordered_map(&items, jobs, slow_square), one);
        }
        assert_eq!(one[999], 999 * 999);
    }
}
