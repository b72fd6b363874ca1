//! Broad phase: sweep and prune on world AABBs (seed 001 §4).
//!
//! Boxes are sorted by their lower x bound and swept; pairs whose x intervals overlap are
//! checked on y and z. Touching boxes count as overlapping (a face contact is a collision).

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
    fn touching_boxes_are_a_pair() {
        let a = Region::new(Vec3::ZERO, Vec3::ONE);
        let b = Region::new(Vec3::new(1.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0));
        assert_eq!(sweep_and_prune(&[a, b]), vec![(0, 1)]);
    }
}
