//! A few connections to one store, for one hub (`--store-connections`).
//!
//! The pool holds several [`Store`]s (PostgreSQL: each its own connection
//! and thread, opened by [`super::open`]); it knows nothing of how they
//! connect (TLS, say), so `Store` stays the only seam. It lives beside the
//! stores rather than inside [`super::postgres`] because the order it keeps
//! is the hub's, not the database's: every call about one question goes
//! through the same connection ([`Pool::of`], by a hash of its id), held for
//! the whole of the hub's operation, so that one question's writes (asked,
//! asker left, asker back, decided) and the reads that reconcile memory with
//! them happen one after the other, in the order the hub made them. A new
//! ask has no id yet: it takes any free connection ([`Pool::any`]), and the
//! hub closes the one gap that leaves (see `Hub::ask_as`). SQLite keeps one
//! connection: its writes are serialized by the file anyway.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use super::Store;

/// The most connections one replica may hold: PostgreSQL's default
/// `max_connections` is 100, shared by every replica and its listener.
pub const MAX_CONNECTIONS: usize = 32;

/// A PostgreSQL store's connections when `--store-connections` is not given:
/// enough to overlap commits (one commit waits on the disk's flush), few
/// enough that two or three replicas stay far below `max_connections`.
pub const DEFAULT_CONNECTIONS: usize = 4;

/// One connection, held while the caller uses it.
pub type Slot<'a> = MutexGuard<'a, Box<dyn Store>>;

pub struct Pool {
    slots: Vec<Mutex<Box<dyn Store>>>,
    /// Where [`Pool::any`] starts looking, so that asks spread.
    next: AtomicUsize,
}

impl Pool {
    /// A pool of `stores` (at least one: an empty list is a bug).
    pub fn new(stores: Vec<Box<dyn Store>>) -> Pool {
        assert!(!stores.is_empty(), "a pool needs a store");
        Pool {
            slots: stores.into_iter().map(Mutex::new).collect(),
            next: AtomicUsize::new(0),
        }
    }

    /// How many connections it holds.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Never: a pool has at least one store (for clippy's `len` rule).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The connection of question `id`: always the same one for one id.
    pub fn of(&self, id: &str) -> Slot<'_> {
        lock(&self.slots[self.index(id)])
    }

    /// A free connection, else (all busy) the next one in turn, waited for.
    pub fn any(&self) -> Slot<'_> {
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let n = self.slots.len();
        for k in 0..n {
            if let Ok(slot) = self.slots[(start + k) % n].try_lock() {
                return slot;
            }
        }
        lock(&self.slots[start % n])
    }

    /// Every connection, in order: for the rare operations that must see the
    /// whole store with no question changing meanwhile (a resync). Taken in
    /// index order, and nobody holds two slots otherwise, so it cannot
    /// deadlock.
    pub fn all(&self) -> Vec<Slot<'_>> {
        self.slots.iter().map(lock).collect()
    }

    /// The number of question `id`'s connection ([`Pool::of`]): FNV-1a of
    /// the id (ids are random already; this only spreads them evenly and
    /// the same way on every call).
    pub fn index(&self, id: &str) -> usize {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in id.bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        (hash % self.slots.len() as u64) as usize
    }
}

/// A poisoned connection is still a connection: a panic in one call does not
/// stop the others (each call is its own transaction).
fn lock(slot: &Mutex<Box<dyn Store>>) -> Slot<'_> {
    slot.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::SqliteStore;

    fn pool(n: usize) -> (tempfile::TempDir, Pool) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("inbox.sqlite3");
        let stores = (0..n)
            .map(|_| Box::new(SqliteStore::open(&path).unwrap()) as Box<dyn Store>)
            .collect();
        (dir, Pool::new(stores))
    }

    fn address(slot: &Slot<'_>) -> usize {
        let store: &dyn Store = &***slot;
        (store as *const dyn Store).cast::<u8>() as usize
    }

    #[test]
    fn one_question_always_gets_the_same_connection_and_ids_spread() {
        let (_dir, pool) = pool(4);
        let first = address(&pool.of("abcdefghjkmnpqrs"));
        for _ in 0..10 {
            assert_eq!(address(&pool.of("abcdefghjkmnpqrs")), first);
        }
        let mut used = std::collections::HashSet::new();
        for n in 0..64 {
            used.insert(pool.index(&format!("question-{n}")));
        }
        assert_eq!(used.len(), 4, "64 ids reach every connection");
    }

    #[test]
    fn any_skips_a_busy_connection() {
        let (_dir, pool) = pool(2);
        let held = pool.any();
        for _ in 0..4 {
            let other = pool.any();
            assert_ne!(address(&other), address(&held));
        }
    }

    #[test]
    fn all_holds_every_connection() {
        let (_dir, pool) = pool(3);
        let all = pool.all();
        assert_eq!(all.len(), 3);
        assert!(pool.slots.iter().all(|slot| slot.try_lock().is_err()));
        drop(all);
        assert!(pool.slots.iter().all(|slot| slot.try_lock().is_ok()));
    }
}
