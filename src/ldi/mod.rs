//! The Layered Depth Image: every depth fragment of every pixel, sorted per pixel.
//!
//! Layout (DESIGN.md): compressed sparse rows. `offsets[w*h + 1]` indexes `fragments`; the
//! fragments of pixel `p` are `fragments[offsets[p]..offsets[p+1]]`, sorted by depth (ties by
//! tag, so a front face comes before the back face of the same object at the same depth).
//! Each fragment is `{ depth: f32, tag: u32 }` with `tag = object << 1 | back_facing`. Depth is
//! normalised to `0..1` over the view's depth range (like WebGPU depth); [`LdiView`] converts
//! to world units. The CPU rasteriser and the GPU passes produce this same structure, so every
//! analysis in `collide` runs on either and the two can be compared fragment for fragment.
//!
//! An LDI usually covers its whole view ([`Layout::Dense`]); the check's region jobs build
//! LDIs of only some blocks of a view's image ([`Layout::Blocks`]) — the pixels there hold
//! exactly the fragments the whole image would hold there.
//!
//! [`snap`] is how vertices enter an LDI (projection and sub-pixel snapping), shared by the CPU
//! rasteriser and the GPU pipeline.

pub mod snap;
pub mod view;

pub use snap::{RasterObject, SnappedVertex};
pub use view::{Axis, LdiView, Region, ViewDesc, ViewError};

use bytemuck::{Pod, Zeroable};

/// One depth sample: where a ray through a pixel centre crosses a triangle.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct Fragment {
    /// Depth along the view direction, `0..1` over the view's depth range.
    pub depth: f32,
    /// `object << 1 | back_facing`.
    pub tag: u32,
}

impl Fragment {
    /// A fragment of `object`, front or back facing.
    #[inline]
    pub fn new(depth: f32, object: u32, back_facing: bool) -> Self {
        Self {
            depth,
            tag: object << 1 | u32::from(back_facing),
        }
    }

    /// The object (its index in the LDI's object list).
    #[inline]
    pub fn object(self) -> u32 {
        self.tag >> 1
    }

    /// Whether the triangle faces away from the viewer (a ray leaves the volume here).
    #[inline]
    pub fn is_back(self) -> bool {
        self.tag & 1 == 1
    }

    /// Sort key: depth, then tag (front before back of the same object).
    #[inline]
    pub(crate) fn sort_key(self) -> (u32, u32) {
        // Depths are finite and may be slightly negative; map the f32 to an order-preserving u32.
        let bits = self.depth.to_bits();
        let key = if bits & 0x8000_0000 != 0 {
            !bits
        } else {
            bits | 0x8000_0000
        };
        (key, self.tag)
    }

    /// [`Self::sort_key`] as one number: the depth's key in the high half, the tag in the low
    /// one (the same order, compared at once). [`Self::from_sort_key64`] inverts it.
    #[inline]
    pub(crate) fn sort_key64(self) -> u64 {
        let (key, tag) = self.sort_key();
        u64::from(key) << 32 | u64::from(tag)
    }

    /// The fragment whose [`Self::sort_key64`] is `k`.
    #[inline]
    pub(crate) fn from_sort_key64(k: u64) -> Self {
        Self {
            depth: depth_from_key((k >> 32) as u32),
            tag: k as u32,
        }
    }
}

/// The depth whose order-preserving key ([`Fragment::sort_key`]'s first half; `depth_key` in
/// shaders/common/types.wgsl) is `key`.
#[inline]
pub fn depth_from_key(key: u32) -> f32 {
    let bits = if key & 0x8000_0000 != 0 {
        key & 0x7fff_ffff
    } else {
        !key
    };
    f32::from_bits(bits)
}

/// Where the pixels of an LDI lie in its view's image.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Layout {
    /// The whole image, row-major: LDI pixel `(x, y)` is image pixel `(x, y)`.
    #[default]
    Dense,
    /// Blocks of the image, stacked: the LDI is `size[0]` wide and `size[1] · origins.len()`
    /// high, and its pixel `(x, k · size[1] + y)` is image pixel `origins[k] + (x, y)`. Parts of
    /// a block beyond the image's edge hold no fragments.
    Blocks {
        /// Block width and height in pixels.
        size: [u32; 2],
        /// Each block's lower-left image pixel.
        origins: Vec<[u32; 2]>,
    },
}

/// A Layered Depth Image in CSR layout (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Ldi {
    /// Width in pixels (the image's, or a block's for [`Layout::Blocks`]).
    pub width: u32,
    /// Height in pixels (the image's, or all blocks' for [`Layout::Blocks`]).
    pub height: u32,
    /// `width * height + 1` offsets into `fragments`.
    pub offsets: Vec<u32>,
    /// All fragments, grouped by pixel (row-major, row 0 at the view's `v` minimum) and sorted.
    pub fragments: Vec<Fragment>,
    /// Where the pixels lie in the view's image.
    pub layout: Layout,
}

impl Ldi {
    /// An LDI with no fragments.
    pub fn empty(width: u32, height: u32) -> Self {
        Self {
            width,
            height,
            offsets: vec![0; width as usize * height as usize + 1],
            fragments: Vec::new(),
            layout: Layout::Dense,
        }
    }

    /// The image pixel `(x, y)` of LDI pixel `p` (row-major index).
    #[inline]
    pub fn image_xy(&self, p: usize) -> (u32, u32) {
        let w = self.width as usize;
        let (x, y) = ((p % w) as u32, (p / w) as u32);
        match &self.layout {
            Layout::Dense => (x, y),
            Layout::Blocks { size, origins } => {
                let k = (y / size[1].max(1)) as usize;
                let o = origins.get(k).copied().unwrap_or([0, 0]);
                (o[0] + x, o[1] + y % size[1].max(1))
            }
        }
    }

    /// Number of pixels.
    #[inline]
    pub fn pixel_count(&self) -> usize {
        self.width as usize * self.height as usize
    }

    /// The sorted fragments of pixel `p` (row-major index).
    #[inline]
    pub fn pixel(&self, p: usize) -> &[Fragment] {
        &self.fragments[self.offsets[p] as usize..self.offsets[p + 1] as usize]
    }

    /// The sorted fragments of pixel `(x, y)`.
    #[inline]
    pub fn at(&self, x: u32, y: u32) -> &[Fragment] {
        self.pixel(y as usize * self.width as usize + x as usize)
    }

    /// Total number of fragments.
    pub fn fragment_count(&self) -> usize {
        self.fragments.len()
    }

    /// The largest number of fragments in one pixel (the depth complexity).
    pub fn max_depth_complexity(&self) -> u32 {
        self.offsets
            .windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0)
    }

    /// Whether every pixel's list is sorted (depth, then tag).
    pub fn is_sorted(&self) -> bool {
        (0..self.pixel_count()).all(|p| {
            self.pixel(p)
                .windows(2)
                .all(|w| w[0].sort_key() <= w[1].sort_key())
        })
    }

    /// Sort every pixel's fragments by depth, then tag.
    pub fn sort(&mut self) {
        let offsets = &self.offsets;
        sort_pixels(offsets, &mut self.fragments);
    }
}

/// Sorts each pixel's run: sorting networks up to 8 fragments, insertion sort up to 16,
/// `sort_unstable_by_key` beyond ([`sort_run`]).
pub(crate) fn sort_pixels(offsets: &[u32], fragments: &mut [Fragment]) {
    #[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
    {
        use rayon::prelude::*;
        // Split the fragment array into per-row-band slices so bands sort in parallel.
        let pixels = offsets.len().saturating_sub(1);
        let band = 4096usize;
        let mut slices = Vec::with_capacity(pixels / band + 1);
        let mut rest: &mut [Fragment] = fragments;
        let mut start = 0usize;
        while start < pixels {
            let end = (start + band).min(pixels);
            let len = (offsets[end] - offsets[start]) as usize;
            let (head, tail) = rest.split_at_mut(len);
            slices.push((start, end, head));
            rest = tail;
            start = end;
        }
        slices.into_par_iter().for_each(|(s, e, frags)| {
            let base = offsets[s];
            for p in s..e {
                let lo = (offsets[p] - base) as usize;
                let hi = (offsets[p + 1] - base) as usize;
                sort_run(&mut frags[lo..hi]);
            }
        });
    }
    #[cfg(all(target_arch = "wasm32", not(feature = "threads")))]
    {
        for w in offsets.windows(2) {
            sort_run(&mut fragments[w[0] as usize..w[1] as usize]);
        }
    }
}

/// Optimal sorting networks for 2 to 8 elements (Knuth, *TAOCP* vol. 3, §5.3.4): their
/// compare-exchanges, in order. `sorting_networks_sort_every_input` checks each on every input
/// of zeros and ones, which proves it sorts any input (the 0–1 principle).
#[rustfmt::skip]
mod networks {
    pub(super) const NET2: [(usize, usize); 1] = [(0, 1)];
    pub(super) const NET3: [(usize, usize); 3] = [(0, 1), (1, 2), (0, 1)];
    pub(super) const NET4: [(usize, usize); 5] = [(0, 1), (2, 3), (0, 2), (1, 3), (1, 2)];
    pub(super) const NET5: [(usize, usize); 9] = [(0, 1), (3, 4), (2, 4), (2, 3), (0, 3), (0, 2), (1, 4), (1, 3), (1, 2)];
    pub(super) const NET6: [(usize, usize); 12] = [(1, 2), (4, 5), (0, 2), (3, 5), (0, 1), (3, 4), (2, 5), (0, 3), (1, 4), (2, 4), (1, 3), (2, 3)];
    pub(super) const NET7: [(usize, usize); 16] = [(1, 2), (3, 4), (5, 6), (0, 2), (3, 5), (4, 6), (0, 1), (4, 5), (2, 6), (0, 4), (1, 5), (0, 3), (2, 5), (1, 3), (2, 4), (2, 3)];
    pub(super) const NET8: [(usize, usize); 19] = [(0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7), (0, 1), (2, 3), (4, 5), (6, 7), (2, 4), (3, 5), (1, 4), (3, 6), (1, 2), (3, 4), (5, 6)];
}
use networks::*;

/// Sorts `run` (`N` fragments) by [`Fragment::sort_key64`] with the compare-exchanges `pairs`:
/// the keys stay in registers (the sizes and indices are constants once inlined) and each
/// exchange is a minimum and a maximum, without branches.
#[inline(always)]
fn network<const N: usize, const M: usize>(run: &mut [Fragment], pairs: [(usize, usize); M]) {
    let Ok(run) = <&mut [Fragment; N]>::try_from(run) else {
        return;
    };
    let mut k = run.map(Fragment::sort_key64);
    for (i, j) in pairs {
        let (a, b) = (k[i], k[j]);
        k[i] = a.min(b);
        k[j] = a.max(b);
    }
    *run = k.map(Fragment::from_sort_key64);
}

/// Sorts a pixel's fragments by [`Fragment::sort_key64`]. Up to 8 (in the 3 M gear hall's
/// LDIs 93% of the pixels, most with 6) by a sorting network on the keys: minima and maxima
/// without branches, where an insertion sort mispredicts branches on depths in mesh order; up
/// to 16 by insertion, longer runs by `sort_unstable`. The same total order either way.
#[inline]
fn sort_run(run: &mut [Fragment]) {
    match run.len() {
        0 | 1 => {}
        2 => network::<2, _>(run, NET2),
        3 => network::<3, _>(run, NET3),
        4 => network::<4, _>(run, NET4),
        5 => network::<5, _>(run, NET5),
        6 => network::<6, _>(run, NET6),
        7 => network::<7, _>(run, NET7),
        8 => network::<8, _>(run, NET8),
        9..=16 => {
            for i in 1..run.len() {
                let f = run[i];
                let k = f.sort_key64();
                let mut j = i;
                while j > 0 && run[j - 1].sort_key64() > k {
                    run[j] = run[j - 1];
                    j -= 1;
                }
                run[j] = f;
            }
        }
        _ => run.sort_unstable_by_key(|f| f.sort_key64()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragment_is_eight_bytes_and_tags_round_trip() {
        assert_eq!(std::mem::size_of::<Fragment>(), 8);
        let f = Fragment::new(0.25, 7, true);
        assert_eq!(f.object(), 7);
        assert!(f.is_back());
        assert_eq!(f.tag, 15);
    }

    #[test]
    fn sort_key_orders_negative_and_positive_depths() {
        let mut v = vec![
            Fragment::new(0.5, 0, false),
            Fragment::new(-0.25, 1, false),
            Fragment::new(0.0, 0, true),
            Fragment::new(0.0, 0, false),
            Fragment::new(-1.0, 2, true),
        ];
        sort_run(&mut v);
        let depths: Vec<f32> = v.iter().map(|f| f.depth).collect();
        assert_eq!(depths, vec![-1.0, -0.25, 0.0, 0.0, 0.5]);
        assert!(
            !v[2].is_back() && v[3].is_back(),
            "front before back at equal depth"
        );
    }

    /// Every run length's sort (networks up to 8, insertion up to 16, `sort_unstable` beyond)
    /// on every input of zeros and ones of up to 16 fragments — by the 0–1 principle a
    /// network that sorts those sorts any input — and on random fragments with ties, signed
    /// zeros and negative depths, against `sort_by_key(sort_key)`.
    #[test]
    fn sorting_networks_sort_every_input() {
        for n in 0..=16usize {
            for bits in 0u32..1 << n {
                let mut v: Vec<Fragment> = (0..n)
                    .map(|i| Fragment::new(((bits >> i) & 1) as f32, i as u32, false))
                    .collect();
                sort_run(&mut v);
                assert!(
                    v.windows(2).all(|w| w[0].depth <= w[1].depth),
                    "{n} fragments, input {bits:b}: {v:?}"
                );
            }
        }
        let mut rng = crate::sim::Lcg::new(5);
        let mut below = |n: usize| (rng.next_f32() * n as f32) as usize % n;
        let depths = [-0.5f32, -0.0, 0.0, 0.25, 0.25, 1.0, -1e-30, 1e-30];
        for n in 0..40usize {
            for _ in 0..200 {
                let mut v: Vec<Fragment> = (0..n)
                    .map(|_| {
                        let d = depths[below(depths.len())];
                        Fragment::new(d, below(3) as u32, below(2) == 1)
                    })
                    .collect();
                let mut w = v.clone();
                sort_run(&mut v);
                w.sort_by_key(|f| f.sort_key());
                assert_eq!(
                    v.iter()
                        .map(|f| (f.depth.to_bits(), f.tag))
                        .collect::<Vec<_>>(),
                    w.iter()
                        .map(|f| (f.depth.to_bits(), f.tag))
                        .collect::<Vec<_>>()
                );
            }
        }
    }

    #[test]
    fn sort_key64_round_trips() {
        for d in [
            -1.0f32,
            -0.0,
            0.0,
            1e-38,
            -1e-38,
            0.5,
            3.0e38,
            -3.0e38,
            f32::INFINITY,
        ] {
            for tag in [0, 1, 7, u32::MAX] {
                let f = Fragment { depth: d, tag };
                let g = Fragment::from_sort_key64(f.sort_key64());
                assert_eq!((g.depth.to_bits(), g.tag), (d.to_bits(), tag));
            }
        }
    }

    #[test]
    fn long_runs_sort_like_short_ones() {
        let mut v: Vec<Fragment> = (0..100)
            .map(|i| Fragment::new(((i * 37) % 101) as f32 / 101.0, i % 3, i % 2 == 0))
            .collect();
        let mut w = v.clone();
        sort_run(&mut v);
        w.sort_by_key(|f| f.sort_key());
        assert_eq!(v, w);
    }
}
