//! Broad phase: sweep and prune on world AABBs (seed 001 §4).
//!
//! Boxes are sorted by their lower x bound and swept; pairs whose x intervals overlap are
//! checked on y and z. Touching boxes count as overlapping (a face contact is a collision).
//!
//! [`IncrementalSap`] keeps the sorted order between frames (seed 001 §4 runs sweep and prune
//! every frame of a moving scene): objects move little from one frame to the next, so the kept
//! order is nearly sorted and an insertion sort repairs it in about O(n + swaps) instead of
//! sorting from scratch (temporal coherence, as in I-COLLIDE, seed 001 ref. \[8\]).

use crate::ldi::Region;

/// All pairs `(i, j)`, `i < j`, whose boxes overlap or touch, in ascending order.
pub fn sweep_and_prune(boxes: &[Region]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&a, &b| boxes[a].min.x.total_cmp(&boxes[b].min.x));
    let mut active: Vec<usize> = Vec::new();
    let mut pairs = Vec::new();
    for &i in &order {
        let bi = &boxes[i];
        active.retain(|&j| boxes[j].max.x >= bi.min.x);
        for &j in &active {
            if boxes[j].overlaps(bi) {
                pairs.push((i.min(j), i.max(j)));
            }
        }
        active.push(i);
    }
    pairs.sort_unstable();
    pairs
}

/// Sweep and prune that keeps its sorted order across frames (temporal coherence).
///
/// Call [`IncrementalSap::update`] with the boxes of each frame; the boxes keep their index
/// from frame to frame. The result equals [`sweep_and_prune`] on the same boxes.
#[derive(Debug, Clone, Default)]
pub struct IncrementalSap {
    /// Box indices sorted by their lower x bound in the last frame.
    order: Vec<usize>,
    /// Swaps the last insertion sort needed (0 when nothing changed order).
    swaps: usize,
}

impl IncrementalSap {
    /// An empty sweep; the first update sorts from scratch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Swaps the last update's insertion sort made (a measure of how much the order changed).
    pub fn last_swaps(&self) -> usize {
        self.swaps
    }

    /// All overlapping or touching pairs `(i, j)`, `i < j`, ascending, of this frame's boxes.
    pub fn update(&mut self, boxes: &[Region]) -> Vec<(usize, usize)> {
        if self.order.len() != boxes.len() {
            // The object set changed: start again from the identity order.
            self.order = (0..boxes.len()).collect();
        }
        // Insertion sort of the kept order by the new lower bounds.
        self.swaps = 0;
        for k in 1..self.order.len() {
            let mut m = k;
            while m > 0 && boxes[self.order[m - 1]].min.x > boxes[self.order[m]].min.x {
                self.order.swap(m - 1, m);
                self.swaps += 1;
                m -= 1;
            }
        }
        let mut active: Vec<usize> = Vec::new();
        let mut pairs = Vec::new();
        for &i in &self.order {
            let bi = &boxes[i];
            active.retain(|&j| boxes[j].max.x >= bi.min.x);
            for &j in &active {
                if boxes[j].overlaps(bi) {
                    pairs.push((i.min(j), i.max(j)));
                }
            }
            active.push(i);
        }
        pairs.sort_unstable();
        pairs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn matches_all_pairs_on_random_boxes() {
        let mut s = 99u32;
        let mut r = || {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as f32 / (1u32 << 24) as f32
        };
        let boxes: Vec<Region> = (0..200)
            .map(|_| {
                let c = Vec3::new(r(), r(), r()) * 10.0;
                Region::new(c, c + Vec3::new(r(), r(), r()))
            })
            .collect();
        let mut brute = Vec::new();
        for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                if boxes[i].overlaps(&boxes[j]) {
                    brute.push((i, j));
                }
            }
        }
        assert!(!brute.is_empty());
        assert_eq!(sweep_and_prune(&boxes), brute);
    }

    #[test]
    fn incremental_matches_brute_force_on_moving_boxes() {
        let mut s = 7u32;
        let mut r = || {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as f32 / (1u32 << 24) as f32
        };
        let n = 150;
        let mut pos: Vec<Vec3> = (0..n).map(|_| Vec3::new(r(), r(), r()) * 10.0).collect();
        let vel: Vec<Vec3> = (0..n)
            .map(|_| (Vec3::new(r(), r(), r()) - 0.5) * 0.3)
            .collect();
        let size: Vec<Vec3> = (0..n).map(|_| Vec3::new(r(), r(), r()) + 0.2).collect();
        let mut sap = IncrementalSap::new();
        let (mut total_pairs, mut total_swaps) = (0, 0);
        for frame in 0..60 {
            let boxes: Vec<Region> = (0..n)
                .map(|i| Region::new(pos[i], pos[i] + size[i]))
                .collect();
            let mut brute = Vec::new();
            for i in 0..n {
                for j in i + 1..n {
                    if boxes[i].overlaps(&boxes[j]) {
                        brute.push((i, j));
                    }
                }
            }
            let got = sap.update(&boxes);
            assert_eq!(got, brute, "frame {frame}");
            assert_eq!(got, sweep_and_prune(&boxes));
            total_pairs += got.len();
            if frame > 0 {
                total_swaps += sap.last_swaps();
            }
            for i in 0..n {
                pos[i] += vel[i];
                // Bounce in the 10-unit box.
                if pos[i].x < 0.0 || pos[i].x > 10.0 {
                    pos[i].x = pos[i].x.clamp(0.0, 10.0);
                }
            }
        }
        assert!(total_pairs > 100, "{total_pairs}");
        // Coherence: far fewer swaps than a fresh sort's n log n comparisons per frame.
        assert!(total_swaps < 59 * n, "{total_swaps}");
    }

    #[test]
    fn touching_boxes_are_a_pair() {
        let a = Region::new(Vec3::ZERO, Vec3::ONE);
        let b = Region::new(Vec3::new(1.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0));
        assert_eq!(sweep_and_prune(&[a, b]), vec![(0, 1)]);
    }
}
