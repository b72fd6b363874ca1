//! Surface contacts between arbitrary (also open) meshes: seed 002 §5, equation (1).
//!
//! How it works: per pixel, fragments of different objects whose depths differ by less than
//! `eps` are a contact: `|depth₁ − depth₂| < ε`. The seed tests only adjacent fragments among
//! the seven nearest; here every fragment is compared with every later fragment of the same
//! pixel that lies within `eps` (a superset of the adjacent pairs, so a contact hidden behind a
//! fragment of the same object in between is not lost), over all fragments of the pixel. In a
//! camera view the contact pixels are the red intersection edges, hidden ones included.
//!
//! Limits (seed 002 §6): surfaces parallel to the view direction are not rasterised, and two
//! surfaces crossing steeply are only seen where a pixel centre falls within `eps` of the
//! crossing; use several axes (`multi-axis`) for both.

use std::collections::BTreeMap;

use super::bands::map_bands;
use super::volume::{ordered, world_box};
use crate::ldi::snap::{max2, min2};
use crate::ldi::{Ldi, LdiView, Region};

/// Contacts of one pair in one LDI.
#[derive(Debug, Clone, PartialEq)]
pub struct PairContacts {
    /// First object (LDI id), `a < b`.
    pub a: u32,
    /// Second object (LDI id).
    pub b: u32,
    /// Pixels with a contact of this pair.
    pub pixels: u64,
    /// Smallest depth difference found, in world units.
    pub min_gap: f64,
    /// World box around the contact samples.
    pub bbox: Region,
    /// The contact pixels (row-major indices), ascending.
    pub mask: Vec<u32>,
}

/// One pair's contacts over pixels (shared with `pair::analyse_pair`).
#[derive(Debug, Clone)]
pub(super) struct Acc {
    /// The contact pixels, in the order met.
    pub(super) mask: Vec<u32>,
    /// Smallest normalised gap.
    pub(super) gap: f32,
    /// Pixel and depth bounds (as the volume's).
    pub(super) lo: [f32; 3],
    pub(super) hi: [f32; 3],
}

impl Acc {
    /// No contact yet (the identity of [`Acc::merge`]).
    pub(super) fn new() -> Self {
        Self {
            mask: Vec::new(),
            gap: f32::INFINITY,
            lo: [f32::INFINITY; 3],
            hi: [f32::NEG_INFINITY; 3],
        }
    }

    /// A contact of fragments `f` and `g` (`gap` apart) in pixel `(x, y)`.
    #[inline]
    pub(super) fn add(&mut self, (x, y): (u32, u32), gap: f32, f: f32, g: f32) {
        let (x, y) = (x as f32, y as f32);
        self.gap = min2(self.gap, gap);
        self.lo = [
            min2(self.lo[0], x),
            min2(self.lo[1], y),
            min2(self.lo[2], f),
        ];
        self.hi = [
            max2(self.hi[0], x + 1.0),
            max2(self.hi[1], y + 1.0),
            max2(self.hi[2], g),
        ];
    }

    /// The contacts over both pixel sets.
    pub(super) fn merge(&mut self, v: Self) {
        self.mask.extend(v.mask);
        self.gap = min2(self.gap, v.gap);
        for i in 0..3 {
            self.lo[i] = min2(self.lo[i], v.lo[i]);
            self.hi[i] = max2(self.hi[i], v.hi[i]);
        }
    }

    /// The pair's result in world units.
    pub(super) fn result(self, view: &LdiView, pair: (u32, u32)) -> PairContacts {
        let pixels = self.mask.len() as u64;
        PairContacts::from_image(view, pair, pixels, self.gap, self.lo, self.hi, self.mask)
    }
}

/// All contacts closer than `eps` (world units) between different objects in `ldi`.
pub fn surface_contacts(ldi: &Ldi, view: &LdiView, eps: f64) -> Vec<PairContacts> {
    let eps_n = (eps / view.depth_extent) as f32;
    let result = map_bands(
        ldi.pixel_count(),
        |range| {
            let mut acc: BTreeMap<(u32, u32), Acc> = BTreeMap::new();
            let mut seen: Vec<(u32, u32)> = Vec::new();
            for p in range {
                let frags = ldi.pixel(p);
                if frags.len() < 2 {
                    continue;
                }
                seen.clear();
                for (i, f) in frags.iter().enumerate() {
                    for g in &frags[i + 1..] {
                        let gap = g.depth - f.depth;
                        if gap >= eps_n {
                            break;
                        }
                        if g.object() == f.object() {
                            continue;
                        }
                        let key = ordered(f.object(), g.object());
                        let e = acc.entry(key).or_insert_with(Acc::new);
                        if !seen.contains(&key) {
                            seen.push(key);
                            e.mask.push(p as u32);
                        }
                        e.add(ldi.image_xy(p), gap, f.depth, g.depth);
                    }
                }
            }
            acc
        },
        |mut a, b| {
            for (k, v) in b {
                match a.get_mut(&k) {
                    Some(e) => e.merge(v),
                    None => {
                        a.insert(k, v);
                    }
                }
            }
            a
        },
    );
    result
        .unwrap_or_default()
        .into_iter()
        .map(|(pair, acc)| acc.result(view, pair))
        .collect()
}

impl PairContacts {
    /// A pair's contacts from image-space results (normalised gap, pixel bounds), converted to
    /// world units with `view`. The CPU analysis and the GPU pass both report through this.
    pub fn from_image(
        view: &LdiView,
        (a, b): (u32, u32),
        pixels: u64,
        min_gap: f32,
        lo: [f32; 3],
        hi: [f32; 3],
        mask: Vec<u32>,
    ) -> Self {
        Self {
            a,
            b,
            pixels,
            min_gap: view.world_depth(f64::from(min_gap.max(0.0))),
            bbox: world_box(view, lo, hi),
            mask,
        }
    }
}
