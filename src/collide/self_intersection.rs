//! Self-collision of one closed object: seed 000 §3.4, §3.5 and the pseudo-code of §4.3.
//!
//! How it works: per pixel, the object's front-face depths (front LDI) and back-face depths
//! (back LDI) are merged with two cursors. The space occupancy counter ("Raumbelegungszähler")
//! goes up at each front face and down at each back face; where it is above one the object
//! overlaps itself. The seed stores the front depth where the count reaches two and the back
//! depth where it falls back to one, giving the intervals of the self-collision LDI. Exactly as
//! the seed's listing: the loop runs until every back value is processed, and when the front
//! values are used up it stops at the first return to one. It therefore terminates on meshes
//! that are not closed; intervals that never close there are dropped and counted.
//!
//! The self-collision depth of a pixel is its largest count minus one (seed 000 §5.2: a stack
//! of `n` planes has depth `n/2 − 1`).

use super::bands::map_bands;
use crate::ldi::{Ldi, LdiView};

/// The self-collision LDI of one object: per pixel, intervals `[start, end]` (normalised depth).
#[derive(Debug, Clone, PartialEq)]
pub struct SelfLdi {
    /// Image width.
    pub width: u32,
    /// Image height.
    pub height: u32,
    /// `width * height + 1` offsets into `intervals`.
    pub offsets: Vec<u32>,
    /// Intervals, sorted per pixel.
    pub intervals: Vec<[f32; 2]>,
}

impl SelfLdi {
    /// The intervals of pixel `p`.
    pub fn pixel(&self, p: usize) -> &[[f32; 2]] {
        &self.intervals[self.offsets[p] as usize..self.offsets[p + 1] as usize]
    }
}

/// The self-collision of one object.
#[derive(Debug, Clone, PartialEq)]
pub struct SelfIntersection {
    /// The object (LDI id).
    pub object: u32,
    /// Self-intersection volume in world units³.
    pub volume: f64,
    /// Pixels with at least one self-collision interval.
    pub pixels: u64,
    /// Largest occupancy count minus one over all pixels (0: no self-collision).
    pub depth_count: u32,
    /// Longest single interval in world units.
    pub depth: f64,
    /// Intervals left open at the end of a pixel (open or inconsistent input).
    pub unterminated: u64,
    /// The self-collision LDI.
    pub ldi: SelfLdi,
}

/// One pixel of seed 000 §4.3. `front` and `back` are sorted. Pushes intervals to `out` and
/// returns `(largest count, unterminated)`.
pub fn self_pixel(front: &[f32], back: &[f32], out: &mut Vec<[f32; 2]>) -> (i32, bool) {
    let mut incount = 0i32;
    let mut max_count = 0i32;
    let (mut fi, mut bi) = (0usize, 0usize);
    let mut start: Option<f32> = None;
    // "zfront = erster z Wert von front LDI"; with no front value the comparison below never
    // takes the front branch.
    let mut zfront = front.first().copied().unwrap_or(f32::INFINITY);
    while bi < back.len() {
        let zback = back[bi];
        if zfront < zback {
            if fi < front.len() {
                incount += 1;
                max_count = max_count.max(incount);
                if incount == 2 {
                    start = Some(zfront);
                }
                fi += 1;
                if fi < front.len() {
                    zfront = front[fi];
                }
            } else {
                incount -= 1;
                if incount == 1 {
                    if let Some(s) = start.take() {
                        out.push([s, zback]);
                    }
                    break; // "Abbruch": only the last back face is left
                }
                bi += 1;
            }
        } else {
            incount -= 1;
            if incount == 1 {
                if let Some(s) = start.take() {
                    out.push([s, zback]);
                }
            }
            bi += 1;
        }
    }
    (max_count, start.is_some())
}

/// Seed 000's self-collision LDI and volume for `object` in `ldi`.
pub fn self_intersections(ldi: &Ldi, view: &LdiView, object: u32) -> SelfIntersection {
    struct Band {
        counts: Vec<u32>,
        intervals: Vec<[f32; 2]>,
        max_count: i32,
        unterminated: u64,
    }
    let band = map_bands(
        ldi.pixel_count(),
        |range| {
            let mut b = Band {
                counts: Vec::with_capacity(range.len()),
                intervals: Vec::new(),
                max_count: 0,
                unterminated: 0,
            };
            let (mut front, mut back) = (Vec::new(), Vec::new());
            for p in range {
                front.clear();
                back.clear();
                for f in ldi.pixel(p).iter().filter(|f| f.object() == object) {
                    if f.is_back() {
                        back.push(f.depth);
                    } else {
                        front.push(f.depth);
                    }
                }
                let before = b.intervals.len();
                if front.len() >= 2 {
                    let (m, open) = self_pixel(&front, &back, &mut b.intervals);
                    b.max_count = b.max_count.max(m);
                    b.unterminated += u64::from(open);
                } else if let Some(_f) = front.first() {
                    b.max_count = b.max_count.max(1);
                }
                b.counts.push((b.intervals.len() - before) as u32);
            }
            b
        },
        |mut a, b| {
            a.counts.extend(b.counts);
            a.intervals.extend(b.intervals);
            a.max_count = a.max_count.max(b.max_count);
            a.unterminated += b.unterminated;
            a
        },
    );
    let band = band.unwrap_or(Band {
        counts: Vec::new(),
        intervals: Vec::new(),
        max_count: 0,
        unterminated: 0,
    });
    let mut offsets = Vec::with_capacity(band.counts.len() + 1);
    offsets.push(0u32);
    let mut total = 0u32;
    for c in &band.counts {
        total += c;
        offsets.push(total);
    }
    let length: f64 = band
        .intervals
        .iter()
        .map(|i| f64::from(i[1] - i[0]).max(0.0))
        .sum();
    let deepest = band
        .intervals
        .iter()
        .map(|i| i[1] - i[0])
        .fold(0.0f32, f32::max);
    SelfIntersection {
        object,
        volume: view.world_depth(length) * view.pixel_area(),
        pixels: band.counts.iter().filter(|&&c| c > 0).count() as u64,
        depth_count: (band.max_count - 1).max(0) as u32,
        depth: view.world_depth(f64::from(deepest)),
        unterminated: band.unterminated,
        ldi: SelfLdi {
            width: ldi.width,
            height: ldi.height,
            offsets,
            intervals: band.intervals,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plane_stacks_give_one_interval_from_the_second_to_the_second_last_plane() {
        for n in [2usize, 4, 6, 8, 20] {
            let front: Vec<f32> = (0..n / 2).map(|i| i as f32).collect();
            let back: Vec<f32> = (n / 2..n).map(|i| i as f32).collect();
            let mut out = Vec::new();
            let (m, open) = self_pixel(&front, &back, &mut out);
            assert_eq!(m - 1, n as i32 / 2 - 1);
            assert!(!open);
            if n >= 4 {
                assert_eq!(out, vec![[1.0, (n - 2) as f32]]);
            } else {
                assert!(out.is_empty());
            }
        }
    }

    #[test]
    fn two_separate_self_overlaps_and_open_input_terminates() {
        // f f b b f f b b: two overlaps [1,2] and [5,6].
        let mut out = Vec::new();
        self_pixel(&[0.0, 1.0, 4.0, 5.0], &[2.0, 3.0, 6.0, 7.0], &mut out);
        assert_eq!(out, vec![[1.0, 2.0], [5.0, 6.0]]);
        // Fronts only / backs only / garbage: terminates, no interval claimed closed.
        let mut out = Vec::new();
        let (_, open) = self_pixel(&[0.0, 1.0, 2.0], &[], &mut out);
        assert!(out.is_empty() && !open);
        self_pixel(&[], &[0.0, 1.0], &mut out);
        let (_, open) = self_pixel(&[0.0, 1.0, 2.0], &[3.0], &mut out);
        assert!(out.is_empty() && open);
    }
}
