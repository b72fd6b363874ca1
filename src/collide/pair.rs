//! The analyses of a pair's LDI (objects 0 and 1) in one pass over its fragments.
//!
//! A pair job asks its LDI three things: the intersection volume ([`volume_overlaps_within`]),
//! the surface contacts ([`surface_contacts`]) and the overlap union of the directional
//! separation ([`overlap_union`]). Each of those walks every pixel of any number of objects,
//! keyed by pair; [`analyse_pair`] answers all three for objects 0 and 1 in one walk, with
//! plain counters instead of per-pair maps. It does the same arithmetic in the same order
//! over the same bands of pixels, so its answers are equal to theirs, bit for bit (the tests
//! below compare them on random pairs); the three stay for LDIs of many objects and as its
//! oracle.
//!
//! [`volume_overlaps_within`]: super::volume_overlaps_within
//! [`surface_contacts`]: super::surface_contacts
//! [`overlap_union`]: super::overlap_union

use super::bands::map_bands;
use super::separation::{merged, OverlapUnion};
use super::surface::{self, PairContacts};
use super::volume::{self, coverage, PairVolume};
use crate::ldi::snap::{max2, min2};
use crate::ldi::{Fragment, Ldi, LdiView};

/// What one pass over a pair's LDI found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PairAnalysis {
    /// The intersection volume, when asked for (`closed`) and the two overlap.
    pub volume: Option<PairVolume>,
    /// The contacts closer than `eps`, when there are any.
    pub contact: Option<PairContacts>,
    /// The overlap union of the directional separation (empty unless `closed`).
    pub union: OverlapUnion,
}

/// One band's sums: the volume's and the contacts' accumulators of their own analyses, and
/// the union's parts.
struct Band {
    volume: volume::Acc,
    contact: surface::Acc,
    parts: Vec<[f32; 2]>,
    union_pixels: u64,
}

impl Band {
    fn new() -> Self {
        Self {
            volume: volume::Acc::EMPTY,
            contact: surface::Acc::new(),
            parts: Vec::new(),
            union_pixels: 0,
        }
    }

    fn merge(mut self, b: Self) -> Self {
        self.volume.merge(&b.volume);
        self.contact.merge(b.contact);
        self.parts.extend(b.parts);
        self.union_pixels += b.union_pixels;
        self
    }
}

/// Volume, contacts (closer than `eps`, world units) and overlap union of objects 0 and 1 of
/// `ldi`, in one pass. `closed`: the pair's meshes are closed, so the volume and the union
/// are asked for; `outline`: the volume's border coverage, as in `volume_overlaps_within`.
/// Fragments of other objects are ignored.
pub fn analyse_pair(
    ldi: &Ldi,
    view: &LdiView,
    eps: f64,
    closed: bool,
    outline: Option<[f64; 4]>,
) -> PairAnalysis {
    let eps_n = (eps / view.depth_extent) as f32;
    let band = map_bands(
        ldi.pixel_count(),
        |range| {
            let mut band = Band::new();
            let mut intervals: [Vec<[f32; 2]>; 2] = [Vec::new(), Vec::new()];
            for p in range {
                let frags = ldi.pixel(p);
                if frags.len() < 2 {
                    continue;
                }
                let mut xy = None;
                contacts(frags, eps_n, p, ldi, &mut xy, &mut band);
                if closed && frags.len() >= 4 {
                    inside(frags, p, ldi, outline, &mut xy, &mut intervals, &mut band);
                }
            }
            band.parts = merged(std::mem::take(&mut band.parts));
            band
        },
        Band::merge,
    )
    .unwrap_or_else(Band::new);
    let pair = (0, 1);
    PairAnalysis {
        volume: (band.volume.pixels > 0).then(|| band.volume.result(view, pair)),
        contact: (!band.contact.mask.is_empty()).then(|| band.contact.result(view, pair)),
        union: OverlapUnion {
            parts: if closed {
                merged(band.parts)
            } else {
                Vec::new()
            },
            pixels: band.union_pixels,
        },
    }
}

/// The pixel's image position, computed once.
#[inline]
fn pixel_xy(ldi: &Ldi, p: usize, xy: &mut Option<(u32, u32)>) -> (u32, u32) {
    *xy.get_or_insert_with(|| ldi.image_xy(p))
}

/// `surface_contacts` for pair (0, 1) in one pixel: every fragment against each later one
/// within `eps_n`.
#[inline]
fn contacts(
    frags: &[Fragment],
    eps_n: f32,
    p: usize,
    ldi: &Ldi,
    xy: &mut Option<(u32, u32)>,
    band: &mut Band,
) {
    // The pixel's contacts at once: the least gap, the nearest front and the farthest back
    // (what `add` keeps of each; min and max in any order give the same).
    let (mut least, mut near, mut far) = (f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY);
    for (i, f) in frags.iter().enumerate() {
        for g in &frags[i + 1..] {
            let gap = g.depth - f.depth;
            if gap >= eps_n {
                break;
            }
            if f.object() + g.object() != 1 {
                continue; // the same object, or another pair's
            }
            least = min2(least, gap);
            near = min2(near, f.depth);
            far = max2(far, g.depth);
        }
    }
    if near <= far {
        band.contact.mask.push(p as u32);
        band.contact.add(pixel_xy(ldi, p, xy), least, near, far);
    }
}

/// Adds an open interval to a band's union parts, into the last one when the two overlap
/// (more than sharing an end): neighbouring pixels give nearly the same intervals, so the
/// parts stay few instead of one per pixel. [`merged`] gives the same union either way, bit
/// for bit: replacing two overlapping parts by their hull changes neither its groups nor
/// their ends. (A part with an end at zero is kept as it is: `min` and `max` may pick either
/// of `0.0` and `-0.0`, and [`merged`] picks by its sort order.)
#[inline]
fn push_part(parts: &mut Vec<[f32; 2]>, [l, u]: [f32; 2]) {
    if let Some(last) = parts.last_mut() {
        let zero = l == 0.0 || u == 0.0 || last[0] == 0.0 || last[1] == 0.0;
        if l < last[1] && last[0] < u && !zero {
            *last = [min2(last[0], l), max2(last[1], u)];
            return;
        }
    }
    parts.push([l, u]);
}

/// `volume_overlaps_within` and `overlap_union` for pair (0, 1) in one pixel, from the inside
/// counts of the two objects (front face +1, back face −1).
#[inline]
fn inside(
    frags: &[Fragment],
    p: usize,
    ldi: &Ldi,
    outline: Option<[f64; 4]>,
    xy: &mut Option<(u32, u32)>,
    intervals: &mut [Vec<[f32; 2]>; 2],
    band: &mut Band,
) {
    let mut count = [0i32; 2];
    let mut start = [0.0f32; 2];
    // The open run where both are inside; this pixel's (total, deepest, first, last).
    let mut run: Option<f32> = None;
    let mut pixel: Option<(f32, f32, f32, f32)> = None;
    intervals[0].clear();
    intervals[1].clear();
    for f in frags {
        let o = f.object() as usize;
        if o > 1 {
            continue;
        }
        let old = count[o];
        let new = if f.is_back() { old - 1 } else { old + 1 };
        count[o] = new;
        if old <= 0 && new > 0 {
            start[o] = f.depth;
            if count[1 - o] > 0 {
                run = Some(f.depth);
            }
        } else if old > 0 && new <= 0 {
            if f.depth > start[o] {
                intervals[o].push([start[o], f.depth]);
            }
            if let Some(s) = run.take() {
                let len = f.depth - s;
                if len > 0.0 {
                    pixel = Some(match pixel {
                        Some((total, deepest, z0, z1)) => (
                            total + len,
                            max2(deepest, len),
                            min2(z0, s),
                            max2(z1, f.depth),
                        ),
                        None => (len, len, s, f.depth),
                    });
                }
            }
        }
    }
    if let Some(run) = pixel {
        let (x, y) = pixel_xy(ldi, p, xy);
        let share = outline.map_or(1.0, |o| coverage(x, y, o));
        band.volume.add_pixel((x, y), share, run);
    }
    let [ia, ib] = &*intervals;
    if ia.is_empty() || ib.is_empty() {
        return;
    }
    band.union_pixels += 1;
    for &[a0, a1] in ia {
        for &[b0, b1] in ib {
            push_part(&mut band.parts, [a0 - b1, a1 - b0]);
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::collide::{overlap_union, surface_contacts, volume_overlaps_within};
    use crate::ldi::{Axis, Region, ViewDesc};
    use crate::mesh::shapes::{cuboid, uv_sphere};
    use crate::mesh::Mesh;
    use crate::raster::{rasterize, RasterObject};
    use crate::sim::Lcg;

    /// Two meshes as one object.
    fn union_of(mut a: Mesh, b: &Mesh) -> Mesh {
        a.append(b);
        a
    }

    /// The pairs the random ones rarely give: faces touching exactly along the view, a part
    /// of two pieces (two runs per pixel), a part of no thickness, nested parts, a copy.
    fn edge_pairs() -> Vec<(Mesh, Mesh)> {
        let unit = || cuboid(Vec3::ZERO, Vec3::ONE);
        vec![
            (
                unit(),
                cuboid(Vec3::new(0.2, 0.3, 1.0), Vec3::new(1.4, 1.2, 2.0)),
            ),
            (
                union_of(
                    unit(),
                    &cuboid(Vec3::new(0.0, 0.0, 1.5), Vec3::new(1.0, 1.0, 2.5)),
                ),
                cuboid(Vec3::new(0.3, 0.2, 0.5), Vec3::new(0.8, 0.9, 2.0)),
            ),
            (
                cuboid(Vec3::new(0.0, 0.0, 0.5), Vec3::new(1.0, 1.0, 0.5)),
                cuboid(Vec3::new(0.2, 0.2, 0.0), Vec3::new(0.7, 0.8, 1.0)),
            ),
            (unit(), cuboid(Vec3::splat(0.25), Vec3::splat(0.75))),
            (unit(), unit()),
        ]
    }

    /// The smallest positive depth gap between fragments of objects 0 and 1, in world units:
    /// an `eps` the contacts' `gap < eps` test meets with equality.
    fn observed_gap(ldi: &Ldi, view: &LdiView) -> Option<f64> {
        (0..ldi.pixel_count())
            .flat_map(|p| ldi.pixel(p).windows(2).map(|w| (w[0], w[1])))
            .filter(|(f, g)| f.object() != g.object() && g.depth > f.depth)
            .map(|(f, g)| g.depth - f.depth)
            .min_by(f32::total_cmp)
            .map(|gap| f64::from(gap) * view.depth_extent)
    }

    /// Parts added one by one into the last (`push_part`) merge to the union of the parts
    /// kept apart, bit for bit: overlapping, touching, nested, degenerate and repeated parts
    /// in random order and in runs of near neighbours (as pixels give them).
    #[test]
    fn parts_merged_as_they_come_give_the_same_union() {
        let mut rng = Lcg::new(11);
        let mut merged_in = 0usize;
        for case in 0..2000 {
            let n = 1 + case % 60;
            let mut raw: Vec<[f32; 2]> = Vec::new();
            let mut l = rng.next_f32() * 4.0 - 2.0;
            for k in 0..n {
                // Quantised ends: equal ends (touching parts) are common.
                // Some ends at -0.0.
                let q = |x: f32| {
                    let r = (x * 16.0).round() / 16.0;
                    if r == 0.0 && k % 2 == 0 {
                        -0.0
                    } else {
                        r
                    }
                };
                if case % 3 == 0 || k % 7 == 0 {
                    l = rng.next_f32() * 4.0 - 2.0; // a jump: a new run
                }
                let len = match k % 5 {
                    0 => 0.0, // degenerate
                    _ => rng.next_f32() * 0.5,
                };
                l += (rng.next_f32() - 0.5) * 0.25;
                raw.push([q(l), q(l + len)]);
            }
            let mut parts = Vec::new();
            for &p in &raw {
                push_part(&mut parts, p);
            }
            merged_in += raw.len() - parts.len();
            let (a, b) = (merged(raw), merged(parts));
            assert_eq!(a.len(), b.len(), "case {case}");
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(x[0].to_bits(), y[0].to_bits(), "case {case}");
                assert_eq!(x[1].to_bits(), y[1].to_bits(), "case {case}");
            }
        }
        assert!(merged_in > 10_000, "{merged_in}");
    }

    /// The one pass equals the three analyses exactly on random pairs of spheres and boxes
    /// (overlapping, touching, nested, apart), with and without an outline, every axis.
    #[test]
    fn one_pass_equals_the_three_analyses() {
        let mut rng = Lcg::new(7);
        let mut checked = [0usize; 3];
        let mut edges = edge_pairs().into_iter();
        for case in 0..75 {
            let shape = |rng: &mut Lcg| -> Mesh {
                let c = rng.next_vec3() * 1.5;
                let r = 0.2 + rng.next_f32();
                if rng.next_f32() < 0.5 {
                    uv_sphere(c, r, 24, 12)
                } else {
                    cuboid(c - r, c + r * Vec3::new(1.0, 0.7, 1.3))
                }
            };
            let (a, b) = match (case % 5 == 4).then(|| edges.next()).flatten() {
                Some(pair) => pair,
                None => (shape(&mut rng), shape(&mut rng)),
            };
            let region = Region::around(a.positions.iter().chain(&b.positions).copied())
                .unwrap_or(Region::new(Vec3::ZERO, Vec3::ONE));
            let axis = [Axis::X, Axis::Y, Axis::Z][case % 3];
            let mut view = LdiView::new(&region, ViewDesc::Axis(axis), 48 + (case as u32 % 5) * 40)
                .unwrap_or_else(|e| panic!("{e}"));
            view.fit_depth(region.corners());
            let objects = [
                RasterObject {
                    id: 0,
                    positions: &a.positions,
                    triangles: &a.triangles,
                },
                RasterObject {
                    id: 1,
                    positions: &b.positions,
                    triangles: &b.triangles,
                },
            ];
            let (ldi, _) = rasterize(&view, &objects).unwrap_or_else(|e| panic!("{e}"));
            let outline = (case % 2 == 0).then(|| {
                let (w, h) = (f64::from(ldi.width), f64::from(ldi.height));
                [0.3 * w, 0.2 * h, 0.9 * w, 0.75 * h]
            });
            let eps = match case % 4 {
                3 => observed_gap(&ldi, &view).unwrap_or(view.pixel_size),
                k => view.pixel_size * (k + 1) as f64,
            };
            for closed in [true, false] {
                let got = analyse_pair(&ldi, &view, eps, closed, outline);
                let contact = surface_contacts(&ldi, &view, eps)
                    .into_iter()
                    .find(|p| (p.a, p.b) == (0, 1));
                assert_eq!(got.contact, contact, "case {case}");
                if closed {
                    let volume = volume_overlaps_within(&ldi, &view, outline)
                        .into_iter()
                        .find(|p| (p.a, p.b) == (0, 1));
                    assert_eq!(got.volume, volume, "case {case}");
                    assert_eq!(got.union, overlap_union(&ldi, 0, 1), "case {case}");
                    checked[0] += usize::from(volume.is_some());
                    checked[2] += usize::from(got.union.pixels > 0);
                } else {
                    assert_eq!(got.volume, None);
                    assert_eq!(got.union, OverlapUnion::default());
                }
                checked[1] += usize::from(contact.is_some());
            }
        }
        // The cases cover every answer, not only empty ones.
        assert!(checked.iter().all(|&n| n >= 10), "{checked:?}");
    }
}
