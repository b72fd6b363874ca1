//! A report's colliding pairs as a set, for benches that assert two checks agree
//! (`benches/hall.rs`, `benches/peers.rs`).

use std::collections::BTreeSet;

use ldiclash::report::Report;

/// Colliding pairs (each pair's names in order) with their classes.
pub fn pair_set(r: &Report) -> BTreeSet<(String, String, &'static str)> {
    r.pairs
        .iter()
        .map(|p| {
            let (a, b) = if p.a < p.b {
                (p.a.clone(), p.b.clone())
            } else {
                (p.b.clone(), p.a.clone())
            };
            (a, b, p.kind.name())
        })
        .collect()
}
