//! TEMPORARY stub.
use super::Mesh;
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Validation {
    pub triangles: usize,
    pub vertices: usize,
    pub closed: bool,
    pub consistently_oriented: bool,
    pub outward: bool,
    pub signed_volume: f64,
    pub boundary_edges: usize,
    pub non_manifold_edges: usize,
    pub degenerate_triangles: usize,
    pub non_finite_vertices: usize,
}
pub fn validate(mesh: &Mesh) -> Validation {
    let mut edges = std::collections::HashMap::new();
    for t in &mesh.triangles {
        for i in 0..3 {
            *edges.entry((t[i], t[(i + 1) % 3])).or_insert(0) += 1;
        }
    }
    let closed = edges
        .iter()
        .all(|(&(a, b), &n)| n == 1 && edges.get(&(b, a)) == Some(&1));
    let v = mesh.signed_volume();
    Validation {
        triangles: mesh.triangles.len(),
        vertices: mesh.positions.len(),
        closed,
        consistently_oriented: closed,
        outward: closed && v > 0.0,
        signed_volume: v,
        boundary_edges: 0,
        non_manifold_edges: 0,
        degenerate_triangles: 0,
        non_finite_vertices: 0,
    }
}
