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

/// All contacts closer than `eps` (world units) between different objects in `ldi`.
pub fn surface_contacts(ldi: &Ldi, view: &LdiView, eps: f64) -> Vec<PairContacts> {
    let eps_n = (eps / view.depth_extent) as f32;
    type Acc = (Vec<u32>, f32, [f32; 3], [f32; 3]);
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
                        let (x, y) = ldi.image_xy(p);
                        let (x, y) = (x as f32, y as f32);
                        let e = acc.entry(key).or_insert_with(|| {
                            (
                                Vec::new(),
                                f32::INFINITY,
                                [f32::INFINITY; 3],
                                [f32::NEG_INFINITY; 3],
                            )
                        });
                        if !seen.contains(&key) {
                            seen.push(key);
                            e.0.push(p as u32);
                        }
                        e.1 = e.1.min(gap);
                        e.2 = [e.2[0].min(x), e.2[1].min(y), e.2[2].min(f.depth)];
                        e.3 = [
                            e.3[0].max(x + 1.0),
                            e.3[1].max(y + 1.0),
                            e.3[2].max(g.depth),
                        ];
                    }
                }
            }
            acc
        },
        |mut a, b| {
            for (k, v) in b {
                match a.get_mut(&k) {
                    Some(e) => {
                        e.0.extend(v.0);
                        e.1 = e.1.min(v.1);
                        for i in 0..3 {
                            e.2[i] = e.2[i].min(v.2[i]);
                            e.3[i] = e.3[i].max(v.3[i]);
                        }
                    }
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
        .map(|((a, b), (mask, gap, lo, hi))| {
            let pixels = mask.len() as u64;
            PairContacts::from_image(view, (a, b), pixels, gap, lo, hi, mask)
        })
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
