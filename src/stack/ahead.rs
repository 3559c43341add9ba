//! Reading ahead of the loader's walk. A glob include (`sites-enabled/*`) can match
//! thousands of files; the loader must take them in order (each one's own includes are
//! followed before the next, as nginx does), but reading and parsing them is independent.
//! The other threads read and parse the matches in order while the walk consumes them, and
//! the walk reads a file itself when it gets there first, so neither waits on the other for
//! long and the walk's own work overlaps the parsing instead of following it.

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::Mutex;

const WAITING: u8 = 0;
const TAKEN: u8 = 1;
const DONE: u8 = 2;

struct Slot<T> {
    state: AtomicU8,
    value: Mutex<Option<T>>,
}

/// Items computed ahead of an in-order consumer. See [`read_ahead`].
pub struct Ahead<'a, T, F> {
    len: usize,
    slots: Vec<Slot<T>>,
    next: AtomicUsize,
    compute: &'a F,
}

impl<T: Send, F: Fn(usize) -> T + Sync> Ahead<'_, T, F> {
    /// Claims and computes items in order until none are left (a helper thread's loop).
    fn help(&self) {
        while self.help_once() {}
    }

    /// Computes the next unclaimed item, if any is left; false when none is.
    fn help_once(&self) -> bool {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        if i >= self.len {
            return false;
        }
        if self.claim(i) {
            let value = (self.compute)(i);
            *self.slots[i]
                .value
                .lock()
                .unwrap_or_else(|e| e.into_inner()) = Some(value);
            self.slots[i].state.store(DONE, Ordering::Release);
        }
        true
    }

    fn claim(&self, i: usize) -> bool {
        self.slots[i]
            .state
            .compare_exchange(WAITING, TAKEN, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Item `i`: computed here if no helper has started it. While a helper finishes it,
    /// the consumer computes items further on rather than idle: when computing is slower
    /// than consuming, the helpers stay just ahead and every thread keeps computing.
    pub fn take(&self, i: usize) -> T {
        if self.claim(i) {
            return (self.compute)(i);
        }
        let slot = &self.slots[i];
        while slot.state.load(Ordering::Acquire) != DONE {
            if !self.help_once() {
                std::thread::yield_now();
            }
        }
        let value = slot.value.lock().unwrap_or_else(|e| e.into_inner()).take();
        value.expect("an item is taken once")
    }
}

/// Runs `consume` with an [`Ahead`] over `0..len` whose items `compute` makes on the other
/// threads of the pool, in order, while `consume` takes them (each exactly once).
pub fn read_ahead<T, F, R>(
    len: usize,
    compute: &F,
    consume: impl FnOnce(&Ahead<T, F>) -> R + Send,
) -> R
where
    T: Send,
    F: Fn(usize) -> T + Sync,
    R: Send,
{
    let ahead = Ahead {
        len,
        slots: (0..len)
            .map(|_| Slot {
                state: AtomicU8::new(WAITING),
                value: Mutex::new(None),
            })
            .collect(),
        next: AtomicUsize::new(0),
        compute,
    };
    let helpers = rayon::current_num_threads().saturating_sub(1).min(len);
    let mut out = None;
    rayon::scope(|s| {
        for _ in 0..helpers {
            s.spawn(|_| ahead.help());
        }
        out = Some(consume(&ahead));
        // Helpers still running claim nothing more once `next` passes the end.
        ahead.next.store(len, Ordering::Relaxed);
    });
    out.expect("the scope ran `consume`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_computed_once_and_taken_in_order() {
        let calls = AtomicUsize::new(0);
        let compute = |i: usize| {
            calls.fetch_add(1, Ordering::Relaxed);
            i * 10
        };
        let got: Vec<usize> =
            read_ahead(1000, &compute, |a| (0..1000).map(|i| a.take(i)).collect());
        assert_eq!(got, (0..1000).map(|i| i * 10).collect::<Vec<_>>());
        assert_eq!(calls.load(Ordering::Relaxed), 1000);
    }

    #[test]
    fn items_not_taken_may_be_computed_but_nothing_hangs() {
        let compute = |i: usize| i;
        let first = read_ahead(50, &compute, |a| a.take(0));
        assert_eq!(first, 0);
    }
}
