//! Mapping a sequence on several threads with the results in the sequence's order, so that a
//! run's output does not depend on how many threads ran it.

use std::num::NonZeroUsize;
use std::sync::Mutex;

/// `items.into_iter().map(f)` on up to `jobs` scoped threads, results in `items`' order. Each
/// thread takes the next unclaimed item (by value: an item's data can move into `f`'s result
/// and be freed as soon as `f` is done with it), so slow items do not hold up a fixed share of
/// the work. A panic in `f` is resumed on the calling thread.
pub fn ordered_map<I, R>(items: I, jobs: NonZeroUsize, f: impl Fn(I::Item) -> R + Sync) -> Vec<R>
where
    I: IntoIterator,
    I::IntoIter: ExactSizeIterator + Send,
    I::Item: Send,
    R: Send,
{
    let items = items.into_iter();
    let len = items.len();
    let threads = jobs.get().min(len);
    if threads <= 1 {
        return items.map(f).collect();
    }
    // The next unclaimed item with its index; a worker holds the lock only to take one.
    let next = Mutex::new(items.enumerate());
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(len).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        // A poisoned lock means another worker panicked: stop, its panic is
                        // resumed below.
                        let claimed = match next.lock() {
                            Ok(mut items) => items.next(),
                            Err(_) => None,
                        };
                        let Some((i, item)) = claimed else { break };
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
                        if let Some(slot) = slots.get_mut(i) {
                            *slot = Some(r);
                        }
                    }
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    // Every index below `len` was claimed by exactly one worker, which filled it.
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

    #[test]
    fn owned_items_move_into_the_function() {
        let items: Vec<String> = (0..100).map(|i| i.to_string()).collect();
        let jobs = NonZeroUsize::new(3).expect("non-zero");
        let lengths = ordered_map(items.clone(), jobs, |s: String| s.len());
        assert_eq!(lengths, items.iter().map(String::len).collect::<Vec<_>>());
    }
}
