//! Tiles for a scene that does not fit into wasm memory (issue 12): neighbouring objects go
//! into tiles whose objects fit, so the page can load and check the scene one tile at a time
//! instead of crashing or checking only the objects that happened to come first.
//!
//! The objects are split like a k-d tree: along the longest extent of their box centres, at
//! the cost-weighted median, until a tile's own objects (its *core*) fit into half the
//! budget. A tile also loads its *halo*: every other object whose box meets (within
//! `margin`) the box of one of its core objects. Every pair the check could report has
//! meeting boxes, so it is checked in the tile whose core holds its first object; a tile
//! whose core and halo do not fit is split again. Only a tile of one object whose halo alone
//! is over the budget leaves neighbours out, and it says which.

use serde::Serialize;

use crate::collide::sweep_and_prune;
use crate::ldi::Region;

/// One tile: the objects it checks and the neighbours it loads with them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Tile {
    /// Objects this tile is responsible for (every object is in exactly one core), ascending.
    pub core: Vec<usize>,
    /// Other objects loaded with the core because their boxes meet a core object's box,
    /// ascending.
    pub halo: Vec<usize>,
    /// Neighbours left out because even the tile's one core object and its halo do not fit,
    /// ascending; empty almost always. A pair with one of them is checked only where the
    /// other object's own tile loads this tile's object.
    pub left_out: Vec<usize>,
    /// The summed cost of core and halo.
    pub cost: f64,
}

/// Tiles of the objects with boxes `boxes` and memory costs `costs` (any unit, the same as
/// `budget`) such that each tile's core and halo cost at most `budget` where possible.
/// `margin` grows every box on each side before boxes are compared (the check's clearance,
/// plus a little for rounding). Deterministic; the tiles are in k-d order (neighbours
/// follow each other).
pub fn plan_tiles(boxes: &[Region], costs: &[f64], budget: f64, margin: f32) -> Vec<Tile> {
    let n = boxes.len().min(costs.len());
    if n == 0 {
        return Vec::new();
    }
    let grown: Vec<Region> = boxes[..n]
        .iter()
        .map(|b| b.grown(margin.max(0.0)))
        .collect();
    let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, j) in sweep_and_prune(&grown) {
        neighbours[i].push(j);
        neighbours[j].push(i);
    }
    let cost = |i: usize| costs[i].max(0.0);
    let centre = |i: usize| (boxes[i].min + boxes[i].max) * 0.5;

    // Split until each core fits into half the budget, then until core and halo fit.
    let mut pending: Vec<Vec<usize>> = vec![(0..n).collect()];
    let mut done: Vec<Vec<usize>> = Vec::new();
    while let Some(core) = pending.pop() {
        let core_cost: f64 = core.iter().map(|&i| cost(i)).sum();
        let fits = core_cost <= budget / 2.0
            && core_cost
                + halo_of(&core, &neighbours, n)
                    .iter()
                    .map(|&i| cost(i))
                    .sum::<f64>()
                <= budget;
        if fits || core.len() == 1 {
            done.push(core);
            continue;
        }
        let (low, high) = split(core, &centre, &cost);
        // Depth first, low half first: the tiles come out in k-d order.
        pending.push(high);
        pending.push(low);
    }

    done.into_iter()
        .map(|mut core| {
            core.sort_unstable();
            let mut halo = halo_of(&core, &neighbours, n);
            let mut total: f64 = core.iter().map(|&i| cost(i)).sum();
            let mut left_out = Vec::new();
            if total + halo.iter().map(|&i| cost(i)).sum::<f64>() > budget {
                // One object with more neighbours than fit: the cheapest neighbours first.
                halo.sort_by(|&a, &b| cost(a).total_cmp(&cost(b)).then(a.cmp(&b)));
                let mut kept = Vec::new();
                for i in halo {
                    if total + cost(i) <= budget {
                        total += cost(i);
                        kept.push(i);
                    } else {
                        left_out.push(i);
                    }
                }
                kept.sort_unstable();
                left_out.sort_unstable();
                halo = kept;
            } else {
                total += halo.iter().map(|&i| cost(i)).sum::<f64>();
            }
            Tile {
                core,
                halo,
                left_out,
                cost: total,
            }
        })
        .collect()
}

/// The objects outside `core` whose (grown) boxes meet a core object's, ascending.
fn halo_of(core: &[usize], neighbours: &[Vec<usize>], n: usize) -> Vec<usize> {
    let mut in_core = vec![false; n];
    for &i in core {
        in_core[i] = true;
    }
    let mut seen = vec![false; n];
    let mut halo = Vec::new();
    for &i in core {
        for &j in &neighbours[i] {
            if !in_core[j] && !seen[j] {
                seen[j] = true;
                halo.push(j);
            }
        }
    }
    halo.sort_unstable();
    halo
}

/// Two non-empty halves of `core` (two or more objects): along the longest extent of the
/// box centres, at the cost-weighted median (ties by index).
fn split(
    mut core: Vec<usize>,
    centre: &impl Fn(usize) -> glam::Vec3,
    cost: &impl Fn(usize) -> f64,
) -> (Vec<usize>, Vec<usize>) {
    let (lo, hi) = core.iter().fold(
        (
            glam::Vec3::splat(f32::INFINITY),
            glam::Vec3::splat(f32::NEG_INFINITY),
        ),
        |(lo, hi), &i| (lo.min(centre(i)), hi.max(centre(i))),
    );
    let extent = hi - lo;
    let axis = if extent.x >= extent.y && extent.x >= extent.z {
        0
    } else if extent.y >= extent.z {
        1
    } else {
        2
    };
    core.sort_by(|&a, &b| centre(a)[axis].total_cmp(&centre(b)[axis]).then(a.cmp(&b)));
    let total: f64 = core.iter().map(|&i| cost(i)).sum();
    let mut acc = 0.0;
    let mut at = core.len() / 2;
    if total > 0.0 {
        for (k, &i) in core.iter().enumerate() {
            acc += cost(i);
            if acc >= total / 2.0 {
                at = k + 1;
                break;
            }
        }
    }
    let at = at.clamp(1, core.len() - 1);
    let high = core.split_off(at);
    (core, high)
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    /// A seeded scene: `n` boxes of sizes 0.2–2.2 in a cube of `1.6 ∛n` (about one
    /// neighbour each), costs 1–10.
    fn scene(n: usize, seed: u64) -> (Vec<Region>, Vec<f64>) {
        let mut s = seed;
        let mut next = move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) as f64) / f64::from(1u32 << 31)
        };
        let width = 1.6 * (n as f32).cbrt();
        let mut boxes = Vec::new();
        let mut costs = Vec::new();
        for _ in 0..n {
            let at = Vec3::new(next() as f32, next() as f32, next() as f32) * width;
            let size = Vec3::new(next() as f32, next() as f32, next() as f32) * 2.0 + 0.2;
            boxes.push(Region::new(at, at + size));
            costs.push(1.0 + 9.0 * next());
        }
        (boxes, costs)
    }

    #[test]
    fn every_meeting_pair_is_in_a_tile_and_every_tile_fits() {
        for (n, seed, budget) in [(400, 1, 300.0), (1000, 2, 500.0), (60, 3, 80.0)] {
            let (boxes, costs) = scene(n, seed);
            let tiles = plan_tiles(&boxes, &costs, budget, 0.0);
            assert!(
                tiles.len() > 1,
                "{n} objects over {budget}: {} tile",
                tiles.len()
            );
            // Every object in exactly one core.
            let mut owner = vec![usize::MAX; n];
            for (t, tile) in tiles.iter().enumerate() {
                for &i in &tile.core {
                    assert_eq!(owner[i], usize::MAX, "object {i} in two cores");
                    owner[i] = t;
                }
                let cost: f64 = tile.core.iter().chain(&tile.halo).map(|&i| costs[i]).sum();
                assert!((cost - tile.cost).abs() < 1e-9);
                assert!(cost <= budget, "a tile costs {cost} > {budget}");
                assert!(
                    tile.left_out.is_empty(),
                    "{n}: {tile:?} {:?}",
                    tile.core
                        .iter()
                        .chain(&tile.halo)
                        .chain(&tile.left_out)
                        .map(|&i| costs[i])
                        .collect::<Vec<_>>()
                );
            }
            assert!(owner.iter().all(|&t| t != usize::MAX));
            // Every pair of meeting boxes is loaded together by its first object's tile.
            let mut pairs = 0;
            for i in 0..n {
                for j in i + 1..n {
                    if boxes[i].overlaps(&boxes[j]) {
                        pairs += 1;
                        let tile = &tiles[owner[i]];
                        assert!(
                            tile.core.contains(&j) || tile.halo.contains(&j),
                            "pair {i}-{j} is not loaded by tile {}",
                            owner[i]
                        );
                    }
                }
            }
            assert!(pairs > n / 4, "the scene has {pairs} meeting pairs");
        }
    }

    #[test]
    fn a_margin_brings_near_neighbours_into_the_halo() {
        let a = Region::new(Vec3::ZERO, Vec3::ONE);
        let b = Region::new(Vec3::new(1.5, 0.0, 0.0), Vec3::new(2.5, 1.0, 1.0));
        let tiles = plan_tiles(&[a, b], &[1.0, 1.0], 3.0, 0.0);
        assert_eq!(tiles.len(), 2);
        assert!(tiles.iter().all(|t| t.halo.is_empty()));
        let tiles = plan_tiles(&[a, b], &[1.0, 1.0], 3.0, 0.3);
        assert_eq!(tiles.len(), 2);
        assert_eq!(
            (tiles[0].halo.as_slice(), tiles[1].halo.as_slice()),
            (&[1][..], &[0][..])
        );
    }

    #[test]
    fn what_fits_is_one_tile_and_a_crowded_object_says_what_it_leaves_out() {
        let (boxes, costs) = scene(50, 4);
        let all: f64 = costs.iter().sum();
        let one = plan_tiles(&boxes, &costs, 2.0 * all, 0.0);
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].core, (0..50).collect::<Vec<_>>());
        // A hub meeting five spokes, with room for the hub and two spokes only.
        let hub = Region::new(Vec3::ZERO, Vec3::splat(10.0));
        let mut boxes = vec![hub];
        for k in 0..5 {
            let at = Vec3::new(2.0 * k as f32, 5.0, 5.0);
            boxes.push(Region::new(at, at + Vec3::ONE));
        }
        let costs = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        let tiles = plan_tiles(&boxes, &costs, 3.0, 0.0);
        let hub_tile = tiles.iter().find(|t| t.core.contains(&0)).expect("a tile");
        assert_eq!(hub_tile.core, vec![0]);
        assert_eq!(hub_tile.halo.len() + hub_tile.left_out.len(), 5);
        assert_eq!(hub_tile.halo.len(), 2);
        assert!(hub_tile.cost <= 3.0);
    }
}
