//! Expanding a sequence of sources into items and mapping the items on several threads, with
//! the results handed on in the sequence's order as they complete: a gate reads a file (a
//! source) into its documents (items) and validates each, and writes each record as soon as
//! every record before it is written.
//!
//! Memory is bounded by a window, not by the input: at most [`window`]`(jobs)` sources are
//! expanded and not yet completely handed on at any time, and their items are the only ones
//! alive. Sources are expanded on the same threads that map items (a thread takes work in
//! order: pending items first, then the next source), so reading and mapping overlap and no
//! phase runs on one thread while the others wait.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::sync::{Condvar, Mutex, MutexGuard};

/// Items per piece of work a thread takes at once: small enough that a file's items spread
/// over the threads, large enough that the lock is taken rarely.
pub const ITEMS_PER_CHUNK: usize = 16;

/// How many sources may be expanded and not yet handed on completely, on `jobs` threads: one
/// being handed on, one per thread being worked on, one read ahead.
pub fn window(jobs: NonZeroUsize) -> usize {
    jobs.get() + 2
}

/// For each source in order, `expand(source)`'s items mapped by `map`, each result given to
/// `emit` in order (source by source, item by item), on up to `jobs` threads. `emit` runs on
/// one thread at a time, in order; when it breaks, no further source is expanded and no further
/// result is emitted. A panic in `expand` or `map` stops the other threads and is resumed on the
/// calling thread.
pub fn ordered_stream<S, T, R>(
    sources: Vec<S>,
    jobs: NonZeroUsize,
    expand: impl Fn(S) -> Vec<T> + Sync,
    map: impl Fn(T) -> R + Sync,
    emit: &mut (dyn FnMut(R) -> ControlFlow<()> + Send),
) where
    S: Send,
    T: Send,
    R: Send,
{
    if jobs.get() == 1 {
        for source in sources {
            for item in expand(source) {
                if emit(map(item)).is_break() {
                    return;
                }
            }
        }
        return;
    }
    let shared = Shared {
        state: Mutex::new(State {
            sources: sources.into_iter().enumerate(),
            open: 0,
            chunks: BTreeMap::new(),
            done: BTreeMap::new(),
            counts: BTreeMap::new(),
            next: (0, 0),
            writing: false,
            stop: false,
        }),
        changed: Condvar::new(),
        window: window(jobs),
    };
    let emit = Mutex::new(emit);
    std::thread::scope(|scope| {
        let worker = || shared.work(&expand, &map, &emit);
        let helpers: Vec<_> = (1..jobs.get()).map(|_| scope.spawn(worker)).collect();
        worker();
        for h in helpers {
            if let Err(panic) = h.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
}

/// A source's index and a chunk's index within the source's items.
type Key = (usize, usize);

struct State<I, T, R> {
    /// The sources not yet expanded, with their indices.
    sources: I,
    /// Sources expanded (or being expanded) and not yet handed on completely.
    open: usize,
    /// Chunks of items waiting for a thread.
    chunks: BTreeMap<Key, Vec<T>>,
    /// Chunks mapped, waiting for their turn to be emitted.
    done: BTreeMap<Key, Vec<R>>,
    /// How many chunks each expanded source has, until it is handed on.
    counts: BTreeMap<usize, usize>,
    /// The chunk to emit next.
    next: Key,
    /// Whether a thread is emitting (it alone takes chunks from `done`).
    writing: bool,
    /// `emit` broke or a thread panicked: nothing more is taken.
    stop: bool,
}

struct Shared<I, T, R> {
    state: Mutex<State<I, T, R>>,
    changed: Condvar,
    window: usize,
}

impl<I, T, R> Shared<I, T, R> {
    /// The state; a poisoned lock (a thread panicked holding it) is taken as it is, since
    /// `stop` is then set and nothing more is read from it but that.
    fn lock(&self) -> MutexGuard<'_, State<I, T, R>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Sets `stop` when a thread unwinds, so that the others do not wait for it.
struct StopOnUnwind<'s, I, T, R>(&'s Shared<I, T, R>);

impl<I, T, R> Drop for StopOnUnwind<'_, I, T, R> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.lock().stop = true;
            self.0.changed.notify_all();
        }
    }
}

/// What a thread does next.
enum Task<S, T> {
    Expand(usize, S),
    Map(Key, Vec<T>),
}

impl<S, T, R, I> Shared<I, T, R>
where
    I: Iterator<Item = (usize, S)>,
{
    fn work(
        &self,
        expand: &(impl Fn(S) -> Vec<T> + Sync),
        map: &(impl Fn(T) -> R + Sync),
        emit: &Mutex<&mut (dyn FnMut(R) -> ControlFlow<()> + Send)>,
    ) {
        let _guard = StopOnUnwind(self);
        let mut state = self.lock();
        loop {
            if state.stop {
                return;
            }
            let task = if let Some((key, items)) = state.chunks.pop_first() {
                Task::Map(key, items)
            } else if state.open < self.window
                && let Some((index, source)) = state.sources.next()
            {
                state.open += 1;
                Task::Expand(index, source)
            } else if state.open == 0 {
                // Every source is expanded and handed on.
                return;
            } else {
                state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            drop(state);
            match task {
                Task::Expand(index, source) => {
                    let mut items = expand(source).into_iter();
                    let mut chunks = Vec::new();
                    loop {
                        let chunk: Vec<T> = items.by_ref().take(ITEMS_PER_CHUNK).collect();
                        if chunk.is_empty() {
                            break;
                        }
                        chunks.push(chunk);
                    }
                    state = self.lock();
                    state.counts.insert(index, chunks.len());
                    for (i, chunk) in chunks.into_iter().enumerate() {
                        state.chunks.insert((index, i), chunk);
                    }
                }
                Task::Map(key, items) => {
                    let results = items.into_iter().map(map).collect();
                    state = self.lock();
                    state.done.insert(key, results);
                }
            }
            state = self.emit_ready(state, emit);
            self.changed.notify_all();
        }
    }

    /// Emits the chunks whose turn it is, unless another thread is emitting (it will emit
    /// them). `emit` runs without the state's lock.
    fn emit_ready<'s>(
        &'s self,
        mut state: MutexGuard<'s, State<I, T, R>>,
        emit: &Mutex<&mut (dyn FnMut(R) -> ControlFlow<()> + Send)>,
    ) -> MutexGuard<'s, State<I, T, R>> {
        if state.writing || state.stop {
            return state;
        }
        state.writing = true;
        loop {
            let mut ready = Vec::new();
            let mut finished = 0;
            loop {
                let (source, chunk) = state.next;
                match state.counts.get(&source) {
                    Some(&count) if chunk == count => {
                        state.counts.remove(&source);
                        state.next = (source + 1, 0);
                        finished += 1;
                    }
                    Some(_) => match state.done.remove(&(source, chunk)) {
                        Some(results) => {
                            ready.push(results);
                            state.next = (source, chunk + 1);
                        }
                        None => break,
                    },
                    None => break,
                }
            }
            if ready.is_empty() {
                state.open -= finished;
                break;
            }
            drop(state);
            let mut stopped = false;
            {
                let mut emit = emit.lock().unwrap_or_else(|e| e.into_inner());
                'emit: for results in ready {
                    for r in results {
                        if emit(r).is_break() {
                            stopped = true;
                            break 'emit;
                        }
                    }
                }
            }
            state = self.lock();
            state.open -= finished;
            if stopped {
                state.stop = true;
                break;
            }
        }
        state.writing = false;
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sources of `n` items each (`n` from the source), mapped slowly now and then.
    fn run(jobs: usize, sizes: &[usize], stop_after: Option<usize>) -> Vec<(usize, usize)> {
        let jobs = NonZeroUsize::new(jobs).expect("non-zero");
        let sources: Vec<(usize, usize)> = sizes.iter().copied().enumerate().collect();
        let mut out = Vec::new();
        let mut emit = |r: (usize, usize)| {
            out.push(r);
            if stop_after.is_some_and(|n| out.len() >= n) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        ordered_stream(
            sources,
            jobs,
            |(s, n)| (0..n).map(|i| (s, i)).collect(),
            |(s, i)| {
                if (s + i).is_multiple_of(7) {
                    std::thread::yield_now();
                }
                (s, i)
            },
            &mut emit,
        );
        out
    }

    #[test]
    fn results_come_in_source_then_item_order_whatever_the_thread_count() {
        let sizes = [0, 3, 100, 0, 0, 17, 1, 250, 16, 32, 0];
        let want: Vec<(usize, usize)> = sizes
            .iter()
            .enumerate()
            .flat_map(|(s, &n)| (0..n).map(move |i| (s, i)))
            .collect();
        for jobs in [1, 2, 3, 8] {
            assert_eq!(run(jobs, &sizes, None), want, "jobs {jobs}");
        }
        assert!(run(3, &[], None).is_empty());
        assert!(run(3, &[0, 0], None).is_empty());
    }

    #[test]
    fn a_break_stops_the_stream() {
        for jobs in [1, 2, 8] {
            let out = run(jobs, &[40, 40, 40, 40], Some(50));
            assert_eq!(out.len(), 50, "jobs {jobs}");
            assert_eq!(out[49], (1, 9));
        }
    }

    #[test]
    fn a_panic_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| {
            let mut emit = |_: usize| ControlFlow::Continue(());
            ordered_stream(
                (0..50).collect(),
                NonZeroUsize::new(3).expect("non-zero"),
                |s: usize| vec![s; 20],
                |s| {
                    assert!(s != 30, "source 30");
                    s
                },
                &mut emit,
            );
        });
        assert!(caught.is_err());
    }
}
