//! Buffers of finished LDIs, kept for the next ones.
//!
//! A check builds LDIs one after another, each with buffers of a few hundred kilobytes to some
//! megabytes: the raw fragments of each work item, the CSR offsets and cursors, the sorted
//! fragments. Freed, blocks that large go back to the kernel (the system allocator's mmap and
//! trim thresholds), and the next LDI's buffers are faulted in and zeroed again page by page:
//! 15–20% of a small scene's check natively (`perf`: `clear_page`, page faults, `memset`).
//! These shelves keep a few freed buffers, bounded in number and bytes, for the next LDI; an
//! LDI's buffers come back through [`recycle`].

use std::sync::Mutex;

use super::RawFragment;
use crate::ldi::{Fragment, Ldi};

/// Buffers kept on each shelf.
const KEEP: usize = 4;
/// Bytes kept on each shelf at most (a larger buffer is freed, not kept).
const KEEP_BYTES: usize = 4 << 20;

static WORDS: Mutex<Vec<Vec<u32>>> = Mutex::new(Vec::new());
static FRAGMENTS: Mutex<Vec<Vec<Fragment>>> = Mutex::new(Vec::new());
static RAW: Mutex<Vec<Vec<RawFragment>>> = Mutex::new(Vec::new());

/// An empty buffer from `shelf` that holds `len` elements without growing: the smallest kept
/// one that does, or a new one (a kept buffer too small is left on the shelf).
fn take<T>(shelf: &Mutex<Vec<Vec<T>>>, len: usize) -> Vec<T> {
    let found = shelf.lock().ok().and_then(|mut s| {
        let k = (0..s.len())
            .filter(|&k| s[k].capacity() >= len)
            .min_by_key(|&k| s[k].capacity())?;
        Some(s.swap_remove(k))
    });
    match found {
        Some(mut v) => {
            v.clear();
            v
        }
        None => Vec::with_capacity(len),
    }
}

/// Keeps `v` on `shelf` for a later [`take`] when there is room (else frees it).
fn give<T>(shelf: &Mutex<Vec<Vec<T>>>, mut v: Vec<T>) {
    let bytes = |v: &Vec<T>| v.capacity() * std::mem::size_of::<T>();
    if v.capacity() == 0 || bytes(&v) > KEEP_BYTES {
        return;
    }
    v.clear();
    if let Ok(mut s) = shelf.lock() {
        if s.len() == KEEP {
            // Room for it in place of the smallest kept one, when it is larger.
            let Some(k) = (0..s.len()).min_by_key(|&k| s[k].capacity()) else {
                return;
            };
            if s[k].capacity() >= v.capacity() {
                return;
            }
            s.swap_remove(k);
        }
        let held: usize = s.iter().map(bytes).sum();
        if held + bytes(&v) <= KEEP_BYTES {
            s.push(v);
        }
    }
}

/// `len` zeros.
pub(crate) fn zeros(len: usize) -> Vec<u32> {
    let mut v = take(&WORDS, len);
    v.resize(len, 0);
    v
}

/// A copy of `from`.
pub(crate) fn copy(from: &[u32]) -> Vec<u32> {
    let mut v = take(&WORDS, from.len());
    v.extend_from_slice(from);
    v
}

/// `len` blank fragments, to be overwritten.
pub(crate) fn fragments(len: usize) -> Vec<Fragment> {
    let mut v = take(&FRAGMENTS, len);
    v.resize(len, Fragment { depth: 0.0, tag: 0 });
    v
}

/// An empty buffer of raw fragments with room for `len`.
pub(crate) fn raw(len: usize) -> Vec<RawFragment> {
    take(&RAW, len)
}

/// Keeps a buffer of raw fragments for a later LDI.
pub(crate) fn give_raw(v: Vec<RawFragment>) {
    give(&RAW, v);
}

/// Keeps a buffer of words (offsets, cursors) for a later LDI.
pub(crate) fn give_words(v: Vec<u32>) {
    give(&WORDS, v);
}

/// Keeps an LDI's buffers for later ones; call it where an LDI is done with.
pub fn recycle(ldi: Ldi) {
    give(&WORDS, ldi.offsets);
    give(&FRAGMENTS, ldi.fragments);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_buffers_come_back_empty_and_large_enough() {
        // (The shelves are shared with other tests running at once: assert only what a take
        // guarantees whatever else is kept.)
        give_words(vec![7; 1000]);
        let v = zeros(500);
        assert_eq!(v.len(), 500);
        assert!(v.iter().all(|&x| x == 0));
        let c = copy(&[1, 2, 3]);
        assert_eq!(c, vec![1, 2, 3]);
        give_raw(Vec::with_capacity(64));
        let r = raw(10);
        assert!(r.is_empty() && r.capacity() >= 10);
        let f = fragments(3);
        assert_eq!(f.len(), 3);
        assert!(f.iter().all(|f| f.depth == 0.0 && f.tag == 0));
    }

    #[test]
    fn the_shelves_stay_bounded() {
        for _ in 0..3 * KEEP {
            give_words(Vec::with_capacity(1 << 10));
        }
        // Larger than a shelf holds: freed.
        give_words(Vec::with_capacity(KEEP_BYTES / 4 + 1));
        let s = WORDS.lock().unwrap_or_else(|e| e.into_inner());
        assert!(s.len() <= KEEP);
        assert!(s.iter().map(|v| v.capacity() * 4).sum::<usize>() <= KEEP_BYTES);
    }
}
