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

/// Sorts each pixel's run; insertion sort for short runs, `sort_unstable_by_key` otherwise.
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

#[inline]
fn sort_run(run: &mut [Fragment]) {
    if run.len() <= 16 {
        for i in 1..run.len() {
            let f = run[i];
            let k = f.sort_key();
            let mut j = i;
            while j > 0 && run[j - 1].sort_key() > k {
                run[j] = run[j - 1];
                j -= 1;
            }
            run[j] = f;
        }
    } else {
        run.sort_unstable_by_key(|f| f.sort_key());
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
