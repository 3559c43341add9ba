//! Facts derived from a configuration that several rules need (its TLS servers, its
//! FastCGI targets): computed by the first rule that asks, shared by the rest. Rules run in
//! parallel; a second rule asking while the first computes waits for that result instead of
//! computing it again.
//!
//! A fact is named by its type: `memo.get(|| TlsServers(...))` returns the one value of type
//! `TlsServers` for this configuration.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

type Slot = Arc<OnceLock<Arc<dyn Any + Send + Sync>>>;

#[derive(Default)]
pub struct Memo {
    slots: Mutex<HashMap<TypeId, Slot>>,
}

impl Memo {
    /// The value of type `T`, computed by `init` the first time.
    pub fn get<T: Any + Send + Sync>(&self, init: impl FnOnce() -> T) -> Arc<T> {
        let slot = {
            // A rule that panicked while holding the lock left the map intact.
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            slots.entry(TypeId::of::<T>()).or_default().clone()
        };
        let value = slot
            .get_or_init(|| Arc::new(init()) as Arc<dyn Any + Send + Sync>)
            .clone();
        match value.downcast::<T>() {
            Ok(v) => v,
            Err(_) => unreachable!("a slot is keyed by the type of its value"),
        }
    }
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Memo")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn each_fact_is_computed_once_and_shared() {
        struct Count(usize);
        let memo = Memo::default();
        let calls = AtomicUsize::new(0);
        let values: Vec<usize> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        memo.get(|| {
                            calls.fetch_add(1, Ordering::SeqCst);
                            Count(7)
                        })
                        .0
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(values, [7, 7, 7, 7]);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        // Another type is another fact.
        assert_eq!(*memo.get(|| 3u8), 3);
    }
}
