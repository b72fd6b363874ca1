//! The deforming mesh pairs of `benches/deform.rs` and `benches/node/deform_bvh.mjs`: the
//! 100k- and 1M-triangle sphere pairs of `benches/peers.rs`, with every vertex moved every
//! frame by seed 000's wobble (a travelling wave, 1 % of the size, phase 0.4 rad per frame).
//! The same positions are written to a binary file for the Node benchmark, so both sides see
//! identical geometry and identical per-frame motion.
//!
//! File format (little-endian): `b"LDIDEF01"`, `u32 meshes`, `u32 frames`; per mesh `u32
//! vertices`, `u32 triangles`, `u32 × 3 × triangles` indices; then per frame, per mesh,
//! `f32 × 3 × vertices` positions.

#![allow(dead_code)]

use std::io::Write;

use glam::Vec3;
use ldiclash::deform::Deformer;
use ldiclash::mesh::shapes::uv_sphere;
use ldiclash::mesh::Mesh;

/// `(label, sphere segments)`: 99 456 and 999 696 triangles per pair.
pub const PAIRS: [(&str, u32); 2] = [("100k", 224), ("1M", 708)];

/// The rest pair for `segments`.
pub fn pair(segments: u32) -> [Mesh; 2] {
    [
        uv_sphere(Vec3::ZERO, 1.0, segments, segments / 2),
        uv_sphere(Vec3::new(1.2, 0.3, 0.1), 1.0, segments, segments / 2),
    ]
}

/// The positions of `rest` at `frame`: all vertices move.
pub fn frame_positions(rest: &Mesh, frame: usize) -> Vec<Vec3> {
    Deformer::Wobble {
        amplitude: 0.01,
        waves: 1.5,
        phase: 0.4 * frame as f32,
    }
    .apply(rest)
}

/// Write the pair and `frames` frames to `path`.
pub fn export(path: &std::path::Path, meshes: &[Mesh; 2], frames: usize) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    f.write_all(b"LDIDEF01")?;
    f.write_all(&2u32.to_le_bytes())?;
    f.write_all(&(frames as u32).to_le_bytes())?;
    for m in meshes {
        f.write_all(&(m.positions.len() as u32).to_le_bytes())?;
        f.write_all(&(m.triangles.len() as u32).to_le_bytes())?;
        for t in m.triangles.iter() {
            for i in t {
                f.write_all(&i.to_le_bytes())?;
            }
        }
    }
    for k in 0..frames {
        for m in meshes {
            for p in frame_positions(m, k) {
                for c in p.to_array() {
                    f.write_all(&c.to_le_bytes())?;
                }
            }
        }
    }
    f.flush()
}
