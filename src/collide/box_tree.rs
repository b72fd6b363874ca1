//! A bounding-volume hierarchy of triangle boxes: the exact tests' broad phase where a uniform
//! grid's cells do not fit the triangles ([`super::exact`]).
//!
//! How it works: the boxes are sorted along a Morton curve of their centres (one integer
//! sort), cut into leaves of [`LEAF`] neighbours, and each level's boxes are joined two by two
//! into the next, up to one root. Two trees are searched together from their roots, a pair of
//! nodes opened only where their boxes overlap ([`BoxTree::pairs`]). Unlike a grid, whose
//! cells suit one size of triangle, the hierarchy prunes as well among long slivers, fans and
//! small triangles mixed.

use std::ops::ControlFlow;

use glam::Vec3;

use crate::ldi::Region;

/// Boxes per leaf.
const LEAF: usize = 4;

/// A bounding-volume hierarchy of boxes (see the module docs).
pub(super) struct BoxTree {
    /// Box indices in Morton order.
    order: Vec<u32>,
    /// The boxes in `order`'s order.
    sorted: Vec<Region>,
    /// `levels[0]`: the leaves' boxes; `levels[k + 1][i]` joins `levels[k][2i]` and
    /// `levels[k][2i + 1]`; the last level holds the root alone.
    levels: Vec<Vec<Region>>,
}

impl BoxTree {
    /// The tree over `boxes` (the indices it reports are positions in `boxes`).
    pub(super) fn new(boxes: &[(Region, usize)]) -> Self {
        // Twice the centres: the same order, one addition each.
        let (lo, hi) =
            boxes
                .iter()
                .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), (b, _)| {
                    let c = b.min + b.max;
                    (lo.min(c), hi.max(c))
                });
        let scale = (hi - lo).max(Vec3::splat(f32::MIN_POSITIVE)).recip() * 1023.0;
        let mut keys: Vec<u64> = boxes
            .iter()
            .enumerate()
            .map(|(k, (b, _))| {
                let q = ((b.min + b.max - lo) * scale).clamp(Vec3::ZERO, Vec3::splat(1023.0));
                let code = spread(q.x as u32) | spread(q.y as u32) << 1 | spread(q.z as u32) << 2;
                u64::from(code) << 32 | k as u64
            })
            .collect();
        keys.sort_unstable();
        let order: Vec<u32> = keys.iter().map(|&k| k as u32).collect();
        let sorted: Vec<Region> = order.iter().map(|&k| boxes[k as usize].0).collect();
        let mut levels = vec![sorted.chunks(LEAF).map(join).collect::<Vec<_>>()];
        while let Some(next) = levels
            .last()
            .filter(|l| l.len() > 1)
            .map(|l| l.chunks(2).map(join).collect())
        {
            levels.push(next);
        }
        Self {
            order,
            sorted,
            levels,
        }
    }

    /// The boxes of leaf `node`, with their indices.
    fn leaf(&self, node: u32) -> impl Iterator<Item = (usize, &Region)> {
        let first = node as usize * LEAF;
        let range = first..(first + LEAF).min(self.order.len());
        self.order[range.clone()]
            .iter()
            .map(|&k| k as usize)
            .zip(&self.sorted[range])
    }

    /// Node `node` of level `level`.
    fn node(&self, level: u32, node: u32) -> Option<&Region> {
        self.levels.get(level as usize)?.get(node as usize)
    }

    /// Calls `f` with every pair `(i, j)` of a box `i` of `self` and a box `j` of `other` that
    /// overlap, each once, until `f` breaks.
    pub(super) fn pairs(
        &self,
        other: &BoxTree,
        mut f: impl FnMut(usize, usize) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let (Some(ta), Some(tb)) = (
            self.levels.len().checked_sub(1),
            other.levels.len().checked_sub(1),
        ) else {
            return ControlFlow::Continue(());
        };
        let (ta, tb) = (ta as u32, tb as u32);
        if !self
            .node(ta, 0)
            .zip(other.node(tb, 0))
            .is_some_and(|(a, b)| a.overlaps(b))
        {
            return ControlFlow::Continue(());
        }
        // (level and node of `self`, level and node of `other`), their boxes overlapping; it
        // holds about one pair per level descended.
        let mut stack: Vec<[u32; 4]> = Vec::with_capacity(64);
        stack.push([ta, 0, tb, 0]);
        while let Some([la, na, lb, nb]) = stack.pop() {
            let (Some(ba), Some(bb)) = (self.node(la, na), other.node(lb, nb)) else {
                continue;
            };
            if la == 0 && lb == 0 {
                for (i, bi) in self.leaf(na) {
                    for (j, bj) in other.leaf(nb) {
                        if bi.overlaps(bj) {
                            f(i, j)?;
                        }
                    }
                }
                continue;
            }
            // Open the higher node (the larger box, as a rule), keeping the children that
            // reach the other node.
            for c in [1, 0] {
                let next = if la > 0 && la >= lb {
                    [la - 1, 2 * na + c, lb, nb]
                } else {
                    [la, na, lb - 1, 2 * nb + c]
                };
                let reaches = if next[0] < la {
                    self.node(next[0], next[1]).is_some_and(|r| r.overlaps(bb))
                } else {
                    other.node(next[2], next[3]).is_some_and(|r| r.overlaps(ba))
                };
                if reaches {
                    stack.push(next);
                }
            }
        }
        ControlFlow::Continue(())
    }
}

/// The box around `boxes` (an empty box for none).
fn join(boxes: &[Region]) -> Region {
    boxes
        .iter()
        .copied()
        .reduce(|r, b| r.union(&b))
        .unwrap_or(Region {
            min: Vec3::INFINITY,
            max: Vec3::NEG_INFINITY,
        })
}

/// The ten low bits of `v` spread to every third bit (one axis of a Morton code).
fn spread(v: u32) -> u32 {
    let mut x = v & 0x3ff;
    x = (x | x << 16) & 0x0300_00ff;
    x = (x | x << 8) & 0x0300_f00f;
    x = (x | x << 4) & 0x030c_30c3;
    (x | x << 2) & 0x0924_9249
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random boxes: small ones, long slivers along each axis, and large ones.
    fn boxes(seed: u64, n: usize) -> Vec<(Region, usize)> {
        let mut rng = crate::sim::Lcg::new(seed);
        let mut rnd = || rng.next_f32();
        (0..n)
            .map(|k| {
                let p = Vec3::new(rnd(), rnd(), rnd()) * 10.0;
                let size = match k % 4 {
                    0 => Vec3::splat(0.2),
                    1 => Vec3::new(4.0, 0.05, 0.05),
                    2 => Vec3::new(0.05, 0.05, 4.0),
                    _ => Vec3::splat(2.0),
                } * rnd();
                (Region::new(p, p + size), k)
            })
            .collect()
    }

    /// The search gives exactly the overlapping pairs brute force finds, each once.
    #[test]
    fn searches_find_every_overlapping_pair_once() {
        let mut found = 0;
        for (seed, (na, nb)) in [(1, (1500, 1000)), (2, (1, 50)), (3, (0, 9)), (4, (257, 3))] {
            let (a, b) = (boxes(seed, na), boxes(seed + 100, nb));
            let mut want: Vec<(usize, usize)> = (0..na)
                .flat_map(|i| (0..nb).map(move |j| (i, j)))
                .filter(|&(i, j)| a[i].0.overlaps(&b[j].0))
                .collect();
            let (ta, tb) = (BoxTree::new(&a), BoxTree::new(&b));
            let mut got = Vec::new();
            let _ = ta.pairs(&tb, |i, j| {
                got.push((i, j));
                ControlFlow::Continue(())
            });
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "seed {seed}");
            found += got.len();
        }
        assert!(found > 1000, "{found} pairs");
    }
}
