//! Shared pieces of the importers: the welding [`MeshBuilder`], error shorthands, and small
//! byte-level helpers used both by the importers and by [`super::sniff`].
//!
//! Welding: a vertex is identified by its three coordinates on a grid far finer than `f32`
//! resolution at the mesh's extent ([`weld`]): in effect bit-identical positions merge
//! (`-0.0` with `0.0`), and so do coordinates that differ by noise below `1e-12` of the extent
//! (CAD exports write `5.4e-15` for `0`; without this, closed CAD parts have holes). NaN and
//! infinite coordinates weld only with the same bits. Vertices are numbered in order of first
//! use, so vertices that no triangle references never enter the mesh.

// With some importers compiled out, some helpers go unused.
#![cfg_attr(
    not(all(
        feature = "stl",
        feature = "obj",
        feature = "ply",
        feature = "off",
        feature = "gltf",
        feature = "3mf"
    )),
    allow(dead_code)
)]

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use glam::Vec3;

use super::{Format, MeshLoadError};
use crate::ldi::snap::max2;
use crate::mesh::Mesh;

/// The most triangles an importer produces (33.5 million); beyond this the file is rejected
/// as unsupported. Guards memory against instancing bombs (a glTF node tree or 3MF build
/// that repeats a big mesh) on top of the per-format byte checks.
pub const MAX_TRIANGLES: usize = 1 << 25;

/// A `Parse` error.
pub(crate) fn parse_err(
    format: Format,
    location: impl Into<String>,
    reason: impl Into<String>,
) -> MeshLoadError {
    MeshLoadError::Parse {
        format,
        location: location.into(),
        reason: reason.into(),
    }
}

/// An `Unsupported` error.
pub(crate) fn unsupported(format: Format, reason: impl Into<String>) -> MeshLoadError {
    MeshLoadError::Unsupported {
        format,
        reason: reason.into(),
    }
}

/// `"line N"` for a 1-based line number.
pub(crate) fn line(n: usize) -> String {
    format!("line {n}")
}

/// `"byte N"` for a 0-based byte offset.
pub(crate) fn byte(n: usize) -> String {
    format!("byte {n}")
}

/// An error and its whole `source()` chain as one line (crates often put the useful part in
/// the source).
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}

/// FxHash-style hasher: fast, not DoS-resistant (fine for welding one file's vertices).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn finish(&self) -> u64 {
        // Mix the high bits down: hashbrown uses the top 7 bits and the low bits.
        let h = self.0;
        h ^ (h >> 29) ^ (h >> 47)
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// Welding grid: coordinates are compared on a grid of spacing `2^(e - WELD_GRID_BITS)`,
/// where `2^e <= max |coordinate| < 2^(e+1)`. Every `f32` with `|x| >= 2^(e - 17)` is a
/// multiple of that spacing, so those keep their exact identity; only values within about
/// `1e-12` of the extent from each other *and* tiny next to it (CAD noise like `5e-15` for
/// `0`) merge.
const WELD_GRID_BITS: i32 = 40;

/// Welding keys of finite coordinates for one mesh (see [`WELD_GRID_BITS`]).
#[derive(Debug, Clone, Copy)]
struct WeldGrid {
    scale: f64,
}

impl WeldGrid {
    fn new(max_abs: f32) -> Self {
        let e = if max_abs > 0.0 && max_abs.is_finite() {
            f64::from(max_abs).log2().floor() as i32
        } else {
            0
        };
        Self {
            scale: 2f64.powi(WELD_GRID_BITS - e),
        }
    }

    /// A key per coordinate: the grid index for finite values (at most `2^41` in
    /// magnitude), the bit pattern tagged with bit 63 for NaN and infinities.
    #[inline]
    fn key(&self, p: Vec3) -> [u64; 3] {
        p.to_array().map(|c| {
            if c.is_finite() {
                round_i64(f64::from(c) * self.scale) as u64
            } else {
                (1 << 63) | u64::from(c.to_bits())
            }
        })
    }
}

/// `v.round() as i64` (half away from zero) for `|v| < 2^62`, without the library call that
/// `round` is on x86-64's baseline (no rounding instruction before SSE4.1): 6% of a
/// mesh's load went there. The truncation is exact, and so is the fraction `v - t`.
#[inline]
fn round_i64(v: f64) -> i64 {
    let t = v as i64;
    let f = v - t as f64;
    t + i64::from(f >= 0.5) - i64::from(f <= -0.5)
}

/// Welds `positions` referenced by `triangles`: positions with the same grid key (bit-identical
/// ones, `-0.0` and `0.0`, and sub-resolution noise, see [`WELD_GRID_BITS`]) become one
/// vertex; vertices are numbered in order of first use, unreferenced ones are dropped.
/// Triangles must index into `positions`.
pub(crate) fn weld(
    positions: &[Vec3],
    triangles: &[[u32; 3]],
) -> Option<(Vec<Vec3>, Vec<[u32; 3]>)> {
    let max_abs = triangles
        .iter()
        .flatten()
        .filter_map(|&i| positions.get(i as usize))
        .flat_map(|p| p.to_array())
        .filter(|c| c.is_finite())
        .fold(0f32, |m, c| max2(m, c.abs()));
    let grid = WeldGrid::new(max_abs);
    const UNSET: u32 = u32::MAX;
    let mut remap = vec![UNSET; positions.len()];
    // (Meshes of triangles given by their corners, STL's, have about a sixth as many
    // distinct vertices as corners.)
    let mut index_of: FastMap<[u64; 3], u32> =
        FastMap::with_capacity_and_hasher(positions.len() / 6, Default::default());
    let mut welded = Vec::new();
    let mut out = Vec::with_capacity(triangles.len());
    for t in triangles {
        let mut w = [0u32; 3];
        for (slot, &i) in w.iter_mut().zip(t) {
            let r = remap.get_mut(i as usize)?;
            if *r == UNSET {
                let p = positions[i as usize];
                let next = u32::try_from(welded.len()).ok()?;
                *r = *index_of.entry(grid.key(p)).or_insert_with(|| {
                    welded.push(p);
                    next
                });
            }
            *slot = *r;
        }
        out.push(w);
    }
    Some((welded, out))
}

/// Builds a welded [`Mesh`] from triangles given as positions or as indices into a
/// per-file vertex list. Positions are collected as given and welded in [`MeshBuilder::finish`]
/// (the welding grid depends on the extent of the whole mesh).
#[derive(Debug)]
pub(crate) struct MeshBuilder {
    format: Format,
    positions: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
}

impl MeshBuilder {
    pub(crate) fn new(format: Format) -> Self {
        Self {
            format,
            positions: Vec::new(),
            triangles: Vec::new(),
        }
    }

    /// Adds a position; returns its (unwelded) index for [`MeshBuilder::triangle`].
    #[inline]
    pub(crate) fn vertex(&mut self, p: Vec3) -> Result<u32, MeshLoadError> {
        let index = u32::try_from(self.positions.len())
            .ok()
            .filter(|&i| i != u32::MAX)
            .ok_or_else(|| unsupported(self.format, "more than 4294967294 vertices"))?;
        self.positions.push(p);
        Ok(index)
    }

    /// Adds a triangle of indices from [`MeshBuilder::vertex`].
    #[inline]
    pub(crate) fn triangle(&mut self, t: [u32; 3]) -> Result<(), MeshLoadError> {
        if self.triangles.len() >= MAX_TRIANGLES {
            return Err(unsupported(
                self.format,
                format!("more than {MAX_TRIANGLES} triangles; split the model into parts"),
            ));
        }
        self.triangles.push(t);
        Ok(())
    }

    /// Adds a triangle given by its corner positions.
    #[inline]
    pub(crate) fn triangle_from_positions(&mut self, p: [Vec3; 3]) -> Result<(), MeshLoadError> {
        let t = [self.vertex(p[0])?, self.vertex(p[1])?, self.vertex(p[2])?];
        self.triangle(t)
    }

    /// Adds a polygon (3 or more corners) as a triangle fan around its first corner; fewer
    /// than three corners add nothing.
    pub(crate) fn polygon(&mut self, corners: &[u32]) -> Result<(), MeshLoadError> {
        if let Some((&first, rest)) = corners.split_first() {
            for pair in rest.windows(2) {
                self.triangle([first, pair[0], pair[1]])?;
            }
        }
        Ok(())
    }

    /// Number of triangles so far.
    pub(crate) fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    /// The welded mesh; `Empty` with `detail` (why there are none) when there are no
    /// triangles.
    pub(crate) fn finish(self, detail: impl Into<String>) -> Result<Mesh, MeshLoadError> {
        if self.triangles.is_empty() {
            return Err(MeshLoadError::Empty {
                format: self.format,
                detail: detail.into(),
            });
        }
        let bad_index = || parse_err(self.format, "triangle list", "vertex index out of range");
        let (positions, triangles) =
            weld(&self.positions, &self.triangles).ok_or_else(bad_index)?;
        let mesh = Mesh::new(positions, triangles);
        // Welding only hands out indices it created; this is the promised check.
        if let Err(t) = mesh.check_indices() {
            return Err(parse_err(
                self.format,
                format!("triangle {t}"),
                "vertex index out of range",
            ));
        }
        Ok(mesh)
    }
}

/// Maps a file's own vertex indices to welded indices, lazily (unreferenced vertices are never
/// added).
#[derive(Debug)]
pub(crate) struct IndexRemap<'a> {
    positions: &'a [Vec3],
    welded: Vec<u32>,
}

impl<'a> IndexRemap<'a> {
    const UNSET: u32 = u32::MAX;

    pub(crate) fn new(positions: &'a [Vec3]) -> Self {
        Self {
            positions,
            welded: vec![Self::UNSET; positions.len()],
        }
    }

    /// The welded index of file vertex `i`, or `None` when `i` is out of range.
    #[inline]
    pub(crate) fn get(
        &mut self,
        builder: &mut MeshBuilder,
        i: usize,
    ) -> Result<Option<u32>, MeshLoadError> {
        let (Some(&p), Some(slot)) = (self.positions.get(i), self.welded.get_mut(i)) else {
            return Ok(None);
        };
        if *slot == Self::UNSET {
            *slot = builder.vertex(p)?;
        }
        Ok(Some(*slot))
    }
}

/// True when `bytes` is exactly the size of a binary STL with the triangle count in its
/// header (`84 + 50 n`).
pub(crate) fn binary_stl_size_matches(bytes: &[u8]) -> bool {
    binary_stl_count(bytes)
        .and_then(|n| (n as u64).checked_mul(50))
        .is_some_and(|body| body + 84 == bytes.len() as u64)
}

/// The triangle count in a binary STL header, `None` when shorter than 84 bytes.
pub(crate) fn binary_stl_count(bytes: &[u8]) -> Option<u32> {
    let count: [u8; 4] = bytes.get(80..84)?.try_into().ok()?;
    Some(u32::from_le_bytes(count))
}

/// `bytes` without a UTF-8 byte order mark and leading ASCII whitespace.
pub(crate) fn skip_bom_and_whitespace(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    &bytes[start..]
}

/// The OFF header keyword (`OFF`, `COFF`, `NOFF`, `STOFF`, `4OFF`, `nOFF`, ... ) when the
/// first non-comment token of `text` is one, else `None`.
pub(crate) fn off_header_token(text: &[u8]) -> Option<&[u8]> {
    for line in text.split(|&b| b == b'\n') {
        let line = match line.iter().position(|&b| b == b'#') {
            Some(hash) => &line[..hash],
            None => line,
        };
        let Some(token) = line
            .split(|b| b.is_ascii_whitespace())
            .find(|t| !t.is_empty())
        else {
            continue;
        };
        let prefix = token.strip_suffix(b"OFF")?;
        let known = prefix.len() <= 4
            && prefix
                .iter()
                .all(|b| matches!(b, b'S' | b'T' | b'C' | b'N' | b'4' | b'n'));
        return known.then_some(token);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn welded(points: &[[f32; 3]]) -> Vec<u32> {
        let positions: Vec<Vec3> = points.iter().map(|&p| Vec3::from_array(p)).collect();
        let n = positions.len() as u32;
        let triangles: Vec<[u32; 3]> = (0..n).map(|i| [i, i, i]).collect();
        weld(&positions, &triangles)
            .map(|(_, t)| t.iter().map(|t| t[0]).collect())
            .unwrap_or_default()
    }

    #[test]
    fn round_i64_rounds_as_round_does() {
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            0.499_999_999_999_999_94,
            -0.499_999_999_999_999_94,
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
            4_503_599_627_370_497.0,
            2f64.powi(41),
            -(2f64.powi(41)),
            2f64.powi(61) + 1024.0,
        ];
        let mut seed = 0x1234_5678u64;
        for _ in 0..100_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let v = f64::from_bits(seed);
            if v.is_finite() && v.abs() < 2f64.powi(62) {
                values.push(v);
            }
            // Halves and near-halves at every scale up to 2^42.
            let k = (seed >> 20) as f64 / 2f64.powi((seed % 40) as i32);
            values.extend([k + 0.5, -k - 0.5, k, -k]);
        }
        for v in values {
            assert_eq!(round_i64(v), v.round() as i64, "{v:e}");
        }
    }

    #[test]
    fn welding_merges_equal_signed_zero_and_noise_only() {
        let ids = welded(&[
            [0.0, 1.0, 100.0],
            [-0.0, 1.0, 100.0],
            [5.4e-15, 1.0, 100.0],
            [0.0, 1.0, 100.000_01],
            [0.0, 1.000_000_1, 100.0],
            [1e-6, 1.0, 100.0],
        ]);
        assert_eq!(ids, vec![0, 0, 0, 1, 2, 3]);
        // Adjacent f32 values near the extent stay apart.
        let x = 100.0f32;
        let next = f32::from_bits(x.to_bits() + 1);
        assert_eq!(welded(&[[x, 0.0, 0.0], [next, 0.0, 0.0]]), vec![0, 1]);
        // Tiny meshes weld relative to their own extent.
        let t = 1e-20f32;
        let next = f32::from_bits(t.to_bits() + 1);
        assert_eq!(welded(&[[t, 0.0, 0.0], [next, 0.0, 0.0]]), vec![0, 1]);
        let nan = welded(&[
            [f32::NAN, 0.0, 0.0],
            [f32::NAN, 0.0, 0.0],
            [f32::INFINITY, 0.0, 0.0],
        ]);
        assert_eq!(nan, vec![0, 0, 1]);
    }

    #[test]
    fn builder_welds_on_finish() {
        let mut b = MeshBuilder::new(Format::Stl);
        let p = [Vec3::ZERO, Vec3::X, Vec3::Y];
        assert!(b.triangle_from_positions(p).is_ok());
        assert!(b.triangle_from_positions([p[0], p[2], Vec3::Z]).is_ok());
        let m = b.finish("").ok();
        assert_eq!(m.as_ref().map(|m| m.positions.len()), Some(4));
        assert_eq!(
            m.map(|m| m.triangles.to_vec()),
            Some(vec![[0, 1, 2], [0, 2, 3]])
        );
    }

    #[test]
    fn empty_builder_is_an_empty_error() {
        let b = MeshBuilder::new(Format::Off);
        assert!(matches!(
            b.finish(""),
            Err(MeshLoadError::Empty {
                format: Format::Off,
                ..
            })
        ));
    }

    #[test]
    fn polygon_is_fanned() {
        let mut b = MeshBuilder::new(Format::Ply);
        for p in [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::ONE] {
            assert!(b.vertex(p).is_ok());
        }
        assert!(b.polygon(&[0, 1, 3, 2]).is_ok());
        assert!(b.polygon(&[0, 1]).is_ok());
        assert_eq!(b.triangle_count(), 2);
    }

    #[test]
    fn remap_drops_unreferenced_vertices() {
        let file = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
        let mut b = MeshBuilder::new(Format::Off);
        let mut remap = IndexRemap::new(&file);
        let t = [3usize, 1, 3].map(|i| remap.get(&mut b, i).ok().flatten());
        assert_eq!(t, [Some(0), Some(1), Some(0)]);
        assert!(matches!(remap.get(&mut b, 4), Ok(None)));
        assert!(b.triangle([0, 1, 0]).is_ok());
        assert_eq!(
            b.finish("").ok().map(|m| m.positions),
            Some(vec![Vec3::Z, Vec3::X])
        );
    }

    #[test]
    fn off_header_variants() {
        assert_eq!(off_header_token(b"OFF\n"), Some(&b"OFF"[..]));
        assert_eq!(
            off_header_token(b"# hi\n\nCNOFF 3 1 0"),
            Some(&b"CNOFF"[..])
        );
        assert_eq!(off_header_token(b"XOFF"), None);
        assert_eq!(off_header_token(b"ply"), None);
        assert_eq!(off_header_token(b""), None);
    }

    #[test]
    fn binary_stl_size() {
        let mut b = vec![0u8; 84];
        assert!(binary_stl_size_matches(&b));
        b[80] = 2;
        assert!(!binary_stl_size_matches(&b));
        b.resize(184, 0);
        assert!(binary_stl_size_matches(&b));
        assert!(!binary_stl_size_matches(&b[..83]));
    }
}
