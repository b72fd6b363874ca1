//! Mesh validation: closedness, orientation, signed volume, degenerate triangles and
//! non-finite coordinates.
//!
//! Assumes nothing about the mesh: out-of-range indices do not panic (such triangles count as
//! degenerate and are left out of everything else), and NaN/inf coordinates are counted.
//!
//! How it works: every triangle with three distinct, in-range indices contributes its three
//! directed edges, sorted as undirected edges `(min, max)` with a direction bit (two sorted
//! lists, directed and undirected, for indices of 2^31 and more); runs of equal entries give
//! the counts (sorting is faster than hashing for a million triangles and needs no
//! allocator-heavy map).
//! - A directed edge used twice means two triangles disagree on orientation.
//! - An undirected edge used once is a boundary edge; more than twice, non-manifold.
//! - Closed: at least one triangle, every undirected edge used exactly twice and no directed
//!   edge twice (so the two uses are opposite). Closed implies consistently oriented.
//!
//! The signed volume is `Σ (a−o)·((b−o)×(c−o)) / 6` in `f64` over the same triangles, with
//! `o` the centre of the finite positions' bounding box. For a closed mesh this equals
//! [`Mesh::signed_volume`] (which uses the origin) up to rounding, with less cancellation far
//! from the origin; for an open mesh it depends on `o` and means little.

use glam::DVec3;

use super::Mesh;
use crate::ldi::snap::max3;

/// What [`validate`] found.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Validation {
    /// Number of triangles.
    pub triangles: usize,
    /// Number of positions.
    pub vertices: usize,
    /// Every edge is shared by exactly two triangles that use it in opposite directions.
    pub closed: bool,
    /// No directed edge is used by two triangles.
    pub consistently_oriented: bool,
    /// Closed and the signed volume is positive (normals point outward).
    pub outward: bool,
    /// Signed volume in cubed file units (positive when outward; see the module docs).
    pub signed_volume: f64,
    /// Edges used by exactly one triangle.
    pub boundary_edges: usize,
    /// Edges used by more than two triangles.
    pub non_manifold_edges: usize,
    /// Triangles with a repeated or out-of-range index, or (nearly) zero area: the cross
    /// product of two edges is zero or below `1e-12` times the longest edge squared.
    pub degenerate_triangles: usize,
    /// Positions with a NaN or infinite coordinate.
    pub non_finite_vertices: usize,
}

/// Validates `mesh`; never panics, whatever the indices and coordinates.
pub fn validate(mesh: &Mesh) -> Validation {
    let n = mesh.positions.len();
    let non_finite_vertices = mesh.positions.iter().filter(|p| !p.is_finite()).count();
    let origin = finite_bounds_centre(mesh);

    let mut directed: Vec<u64> = Vec::with_capacity(mesh.triangles.len() * 3);
    let mut degenerate_triangles = 0usize;
    let mut six_volume = 0.0f64;
    for t in mesh.triangles.iter() {
        let [a, b, c] = *t;
        let in_range = t.iter().all(|&i| (i as usize) < n);
        if !in_range || a == b || b == c || a == c {
            degenerate_triangles += 1;
            continue;
        }
        let [pa, pb, pc] = t.map(|i| mesh.positions[i as usize].as_dvec3() - origin);
        let (ab, ac, bc) = (pb - pa, pc - pa, pc - pb);
        let cross = ab.cross(ac);
        let longest_sq = max3(
            ab.length_squared(),
            ac.length_squared(),
            bc.length_squared(),
        );
        let cross_len = cross.length();
        if cross_len == 0.0 || cross_len < 1e-12 * longest_sq {
            degenerate_triangles += 1;
        }
        six_volume += pa.dot(pb.cross(pc));
        for (from, to) in [(a, b), (b, c), (c, a)] {
            directed.push(u64::from(from) << 32 | u64::from(to));
        }
    }

    let used = !directed.is_empty();
    let counts = if n <= 1 << 31 {
        edge_counts(directed)
    } else {
        edge_counts_two_sorts(directed)
    };
    let EdgeCounts {
        consistently_oriented,
        boundary_edges,
        non_manifold_edges,
        all_twice,
    } = counts;
    let closed = used && all_twice && consistently_oriented;
    let signed_volume = six_volume / 6.0;
    Validation {
        triangles: mesh.triangles.len(),
        vertices: n,
        closed,
        consistently_oriented,
        outward: closed && signed_volume > 0.0,
        signed_volume,
        boundary_edges,
        non_manifold_edges,
        degenerate_triangles,
        non_finite_vertices,
    }
}

/// What the edges say (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct EdgeCounts {
    consistently_oriented: bool,
    boundary_edges: usize,
    non_manifold_edges: usize,
    /// Every undirected edge used exactly twice.
    all_twice: bool,
}

/// [`EdgeCounts`] of directed edges `from << 32 | to` (`from != to`) whose indices are below
/// 2^31, in one sort: each edge's key is its undirected edge `(min, max)` and a direction bit
/// (`min << 33 | max << 1 | (from > to)`), so equal keys are a directed edge used twice and
/// runs of equal keys without that bit are the undirected edges' uses.
fn edge_counts(mut keys: Vec<u64>) -> EdgeCounts {
    for e in &mut keys {
        let (from, to) = (*e >> 32, *e & 0xffff_ffff);
        *e = from.min(to) << 33 | from.max(to) << 1 | u64::from(from > to);
    }
    keys.sort_unstable();
    EdgeCounts::new(
        keys.windows(2).all(|w| w[0] != w[1]),
        keys.chunk_by(|x, y| x >> 1 == y >> 1).map(<[u64]>::len),
    )
}

/// [`edge_counts`] for any `u32` indices: a sorted list of directed edges and one of
/// undirected edges.
fn edge_counts_two_sorts(mut directed: Vec<u64>) -> EdgeCounts {
    let mut undirected: Vec<u64> = directed
        .iter()
        .map(|&e| {
            let (from, to) = (e >> 32, e & 0xffff_ffff);
            from.min(to) << 32 | from.max(to)
        })
        .collect();
    directed.sort_unstable();
    undirected.sort_unstable();
    EdgeCounts::new(
        directed.windows(2).all(|w| w[0] != w[1]),
        undirected.chunk_by(|x, y| x == y).map(<[u64]>::len),
    )
}

impl EdgeCounts {
    /// The counts from how many times each undirected edge is used.
    fn new(consistently_oriented: bool, uses: impl Iterator<Item = usize>) -> Self {
        let mut c = Self {
            consistently_oriented,
            boundary_edges: 0,
            non_manifold_edges: 0,
            all_twice: true,
        };
        for n in uses {
            match n {
                1 => c.boundary_edges += 1,
                2 => continue,
                _ => c.non_manifold_edges += 1,
            }
            c.all_twice = false;
        }
        c
    }
}

/// Centre of the finite positions' bounding box (origin when there are none).
fn finite_bounds_centre(mesh: &Mesh) -> DVec3 {
    let mut finite = mesh.positions.iter().filter(|p| p.is_finite());
    let Some(first) = finite.next() else {
        return DVec3::ZERO;
    };
    let (lo, hi) = finite.fold((*first, *first), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
    (lo.as_dvec3() + hi.as_dvec3()) * 0.5
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn cube() -> Mesh {
        let positions = (0..8)
            .map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32))
            .collect();
        // Corners: bit 0 = x, bit 1 = y, bit 2 = z. Outward, counter-clockwise.
        let quads = [
            [0, 2, 3, 1], // z = 0, normal -z
            [4, 5, 7, 6], // z = 1
            [0, 1, 5, 4], // y = 0
            [2, 6, 7, 3], // y = 1
            [0, 4, 6, 2], // x = 0
            [1, 3, 7, 5], // x = 1
        ];
        let triangles: Vec<[u32; 3]> = quads
            .iter()
            .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
            .collect();
        Mesh::new(positions, triangles)
    }

    #[test]
    fn cube_is_closed_and_outward() {
        let m = cube();
        let v = validate(&m);
        assert!(v.closed && v.consistently_oriented && v.outward, "{v:?}");
        assert_eq!(v.triangles, 12);
        assert_eq!(v.vertices, 8);
        assert!((v.signed_volume - 1.0).abs() < 1e-12);
        assert!((m.signed_volume() - v.signed_volume).abs() < 1e-12);
        assert_eq!(
            (
                v.boundary_edges,
                v.non_manifold_edges,
                v.degenerate_triangles
            ),
            (0, 0, 0)
        );
    }

    #[test]
    fn inverted_cube_is_closed_but_inward() {
        let mut m = cube();
        for t in m.triangles_mut().iter_mut() {
            t.swap(1, 2);
        }
        let v = validate(&m);
        assert!(v.closed && !v.outward);
        assert!((v.signed_volume + 1.0).abs() < 1e-12);
    }

    #[test]
    fn one_sort_counts_edges_as_two_sorts_do() {
        // Random triangles over few vertices: boundary, manifold, non-manifold and repeated
        // directed edges all occur; and the cube with flips and duplicated triangles.
        let mut seed = 0x9E37_79B9u64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        let edges = |tris: &[[u32; 3]]| -> Vec<u64> {
            tris.iter()
                .flat_map(|&[a, b, c]| [(a, b), (b, c), (c, a)])
                .map(|(f, t)| u64::from(f) << 32 | u64::from(t))
                .collect()
        };
        let mut cases: Vec<Vec<[u32; 3]>> = Vec::new();
        for _ in 0..200 {
            let n = 3 + next(12) as u32;
            let tris = (0..1 + next(40))
                .filter_map(|_| {
                    let t = [0, 0, 0].map(|_| next(u64::from(n)) as u32);
                    (t[0] != t[1] && t[1] != t[2] && t[0] != t[2]).then_some(t)
                })
                .collect();
            cases.push(tris);
        }
        let mut flipped = cube().triangles.to_vec();
        flipped[3].swap(1, 2);
        let mut doubled = cube().triangles.to_vec();
        doubled.extend(cube().triangles.iter());
        cases.extend([cube().triangles.to_vec(), flipped, doubled]);
        // Indices near 2^31 - 1, the largest the one sort takes.
        let big = u32::MAX >> 1;
        cases.push(vec![[big, big - 1, big - 2], [big - 2, big - 1, big]]);
        for tris in &cases {
            let e = edges(tris);
            assert_eq!(edge_counts(e.clone()), edge_counts_two_sorts(e), "{tris:?}");
        }
        // (The random meshes must exercise every outcome.)
        let all: Vec<EdgeCounts> = cases.iter().map(|t| edge_counts(edges(t))).collect();
        assert!(all.iter().any(|c| !c.consistently_oriented));
        assert!(all.iter().any(|c| c.non_manifold_edges > 0));
        assert!(all.iter().any(|c| c.all_twice && c.consistently_oriented));
    }

    #[test]
    fn one_flipped_triangle_breaks_orientation() {
        let mut m = cube();
        m.triangles_mut()[3].swap(1, 2);
        let v = validate(&m);
        assert!(!v.closed && !v.consistently_oriented && !v.outward);
        assert_eq!(v.boundary_edges, 0);
    }

    #[test]
    fn open_box_has_boundary() {
        let mut m = cube();
        m.triangles_mut().truncate(10);
        let v = validate(&m);
        assert!(!v.closed && v.consistently_oriented);
        assert_eq!(v.boundary_edges, 4);
    }

    #[test]
    fn non_manifold_edge_is_counted() {
        let mut m = cube();
        m.positions.push(Vec3::new(0.5, -1.0, -1.0));
        m.triangles_mut().push([0, 1, 8]);
        let v = validate(&m);
        assert_eq!(v.non_manifold_edges, 1);
        assert_eq!(v.boundary_edges, 2);
        assert!(!v.closed);
    }

    #[test]
    fn degenerate_bad_index_and_non_finite_do_not_panic() {
        let mut m = cube();
        m.triangles_mut().push([0, 0, 1]);
        m.triangles_mut().push([0, 1, 99]);
        m.positions.push(Vec3::new(2.0, 0.0, 0.0)); // collinear with 0 and 1
        m.triangles_mut().push([0, 1, 8]);
        m.positions.push(Vec3::new(f32::NAN, 0.0, f32::INFINITY));
        let v = validate(&m);
        assert_eq!(v.degenerate_triangles, 3);
        assert_eq!(v.non_finite_vertices, 1);
        assert!(!v.closed);
    }

    #[test]
    fn empty_mesh_is_not_closed() {
        let v = validate(&Mesh::default());
        assert!(!v.closed && v.consistently_oriented && !v.outward);
        assert_eq!(v.signed_volume, 0.0);
    }

    #[test]
    fn volume_far_from_origin_is_accurate() {
        let m = cube().transformed(&glam::DMat4::from_translation(glam::DVec3::splat(1e4)));
        let v = validate(&m);
        assert!(v.closed);
        assert!((v.signed_volume - 1.0).abs() < 1e-9, "{}", v.signed_volume);
    }
}
