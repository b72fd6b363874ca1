//! Deformers of seed 000's demo (§6.2.1, §A.2–A.4): twist, wobble and a compressing spiral
//! spring, each with an amplitude, on any mesh.
//!
//! All three are pure functions from a rest mesh to new positions (the triangles never change),
//! so a deforming object keeps its topology and the collision check sees only new vertices —
//! no precomputation to refresh (DESIGN.md: deforming geometry costs what static geometry costs).
//!
//! Every deformer works in the mesh's own frame: the axis `a` along the longest edge of its
//! bounding box (seed 000 §3.3), with length `L`, and two perpendicular axes `u`, `v`, all
//! through the box centre. With `s ∈ [0, 1]` the position along `a`:
//!
//! - **twist**: rotate about `a` by `amplitude · (s − ½)` radians (the total twist between the
//!   two ends is `amplitude`). Twisting is a bijection of space, so a finely tessellated mesh
//!   never self-intersects; the coarse ring-to-ring triangles of a cylinder with few stacks cut
//!   through the axis once the twist per stack passes about π, which is what the seed's demo
//!   shows only as thin slivers. With `across` the rotation is about the cross axis `v`
//!   instead (angle still growing along `a`): the two halves swing round towards the same
//!   side and the ends meet once the amplitude nears π (for a cylinder of length `L` and
//!   radius `ρ`, at about `2·acos(2ρ/L)`); beyond that the ends pass through each other and
//!   the self-collision volume grows. This is seed 000 §A.2's self-colliding twisted cylinder
//!   (tests/sim.rs checks the threshold against the exact triangle test).
//! - **wobble**: move along `u` by `amplitude · L · sin(2π·waves·s + phase)` (a travelling
//!   wave along the object; `amplitude` is a fraction of `L`).
//! - **spring**: coil the mesh along a helix of `turns` turns around `a` (the `u` offset
//!   becomes radial, pointing inwards so the orientation is kept, the `v` offset axial), then compress its height by the factor
//!   `1 − amplitude`. At rest (`amplitude = 0`) the height is `L/2` and the helix radius keeps
//!   the arc length equal to `L`. Coils a pitch `p = L·(1 − amplitude)/(2·turns)` apart touch,
//!   and the mesh self-collides, exactly when `p` falls below the mesh's extent along `v`.

use glam::Vec3;

use crate::mesh::Mesh;

/// A deformation with its amplitude.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Deformer {
    /// Total twist between the two ends, in radians.
    Twist {
        /// Radians between the ends.
        amplitude: f32,
        /// Rotate about the cross axis `v` instead of the long axis (the ends swing round
        /// towards each other: not a bijection, so the object can meet itself).
        across: bool,
    },
    /// A sine wave along the longest axis.
    Wobble {
        /// Displacement as a fraction of the longest edge.
        amplitude: f32,
        /// Waves along the object.
        waves: f32,
        /// Phase in radians (advance it to animate).
        phase: f32,
    },
    /// Coil into a helix and compress.
    Spring {
        /// Compression of the coil height, `0` (rest) to below `1`.
        amplitude: f32,
        /// Helix turns.
        turns: f32,
    },
}

/// Why a deformer name could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown deformation '{0}': use twist, wobble or spring")]
pub struct DeformerNameError(pub String);

impl Deformer {
    /// The deformer called `name` (`twist`, `wobble`, `spring`) with `amplitude` and default
    /// shape parameters (wobble: 2 waves, phase 0; spring: 4 turns).
    pub fn from_name(name: &str, amplitude: f32) -> Result<Self, DeformerNameError> {
        Ok(match name {
            "twist" => Deformer::Twist {
                amplitude,
                across: false,
            },
            "wobble" => Deformer::Wobble {
                amplitude,
                waves: 2.0,
                phase: 0.0,
            },
            "spring" => Deformer::Spring {
                amplitude,
                turns: 4.0,
            },
            _ => return Err(DeformerNameError(name.to_string())),
        })
    }

    /// `twist`, `wobble` or `spring`.
    pub fn name(&self) -> &'static str {
        match self {
            Deformer::Twist { .. } => "twist",
            Deformer::Wobble { .. } => "wobble",
            Deformer::Spring { .. } => "spring",
        }
    }

    /// The same deformer with another amplitude.
    pub fn with_amplitude(self, a: f32) -> Self {
        match self {
            Deformer::Twist { across, .. } => Deformer::Twist {
                amplitude: a,
                across,
            },
            Deformer::Wobble { waves, phase, .. } => Deformer::Wobble {
                amplitude: a,
                waves,
                phase,
            },
            Deformer::Spring { turns, .. } => Deformer::Spring {
                amplitude: a,
                turns,
            },
        }
    }

    /// The deformed positions of `rest` (same order, same count).
    pub fn apply(&self, rest: &Mesh) -> Vec<Vec3> {
        let mut out = Vec::with_capacity(rest.positions.len());
        self.apply_into(rest, &mut out);
        out
    }

    /// Write the deformed positions of `rest` into `out` (cleared first).
    pub fn apply_into(&self, rest: &Mesh, out: &mut Vec<Vec3>) {
        out.clear();
        let Some(frame) = Frame::of(rest) else {
            return;
        };
        let map = |p: Vec3| -> Vec3 {
            let (s, cu, cv) = frame.local(p);
            match *self {
                Deformer::Twist {
                    amplitude,
                    across: false,
                } => {
                    let (sin, cos) = (amplitude * (s - 0.5)).sin_cos();
                    frame.world(s, cu * cos - cv * sin, cu * sin + cv * cos)
                }
                Deformer::Twist {
                    amplitude,
                    across: true,
                } => {
                    let (sin, cos) = (amplitude * (s - 0.5)).sin_cos();
                    let xa = (s - 0.5) * frame.length;
                    frame.center
                        + frame.a * (xa * cos - cu * sin)
                        + frame.u * (xa * sin + cu * cos)
                        + frame.v * cv
                }
                Deformer::Wobble {
                    amplitude,
                    waves,
                    phase,
                } => {
                    let d = amplitude
                        * frame.length
                        * (std::f32::consts::TAU * waves * s + phase).sin();
                    frame.world(s, cu + d, cv)
                }
                Deformer::Spring { amplitude, turns } => {
                    let turns = turns.max(0.5);
                    let l = frame.length;
                    let rest_height = 0.5 * l;
                    // Arc length per turn stays L / turns at rest.
                    let per_turn = l / turns;
                    let rest_pitch = rest_height / turns;
                    let radius = (per_turn * per_turn - rest_pitch * rest_pitch)
                        .max(0.0)
                        .sqrt()
                        / std::f32::consts::TAU;
                    let height = rest_height * (1.0 - amplitude);
                    let theta = std::f32::consts::TAU * turns * s;
                    let (sin, cos) = theta.sin_cos();
                    // `u` offset inwards keeps the frame (tangent, −radial, axial) right-handed,
                    // so the coiled mesh stays outward oriented.
                    let r = radius - cu;
                    let h = height * (s - 0.5) + cv;
                    frame.center + frame.u * (r * cos) + frame.v * (r * sin) + frame.a * h
                }
            }
        };
        out.extend(rest.positions.iter().map(|&p| map(p)));
    }
}

/// The coil pitch of [`Deformer::Spring`] on a mesh whose longest box edge is `length`.
pub fn spring_pitch(length: f32, amplitude: f32, turns: f32) -> f32 {
    0.5 * length * (1.0 - amplitude) / turns.max(0.5)
}

/// The mesh's own frame: centre, longest axis `a` with its length, perpendicular `u`, `v`.
#[derive(Debug, Clone, Copy)]
struct Frame {
    center: Vec3,
    a: Vec3,
    u: Vec3,
    v: Vec3,
    length: f32,
}

impl Frame {
    fn of(m: &Mesh) -> Option<Self> {
        let (lo, hi) = m.aabb()?;
        let size = hi - lo;
        let (a, u, v) = if size.x >= size.y && size.x >= size.z {
            (Vec3::X, Vec3::Y, Vec3::Z)
        } else if size.y >= size.z {
            (Vec3::Y, Vec3::Z, Vec3::X)
        } else {
            (Vec3::Z, Vec3::X, Vec3::Y)
        };
        let length = size.max_element();
        (length > 0.0 && length.is_finite()).then_some(Self {
            center: 0.5 * (lo + hi),
            a,
            u,
            v,
            length,
        })
    }

    /// `(s ∈ [0, 1] along a, offset along u, offset along v)`.
    #[inline]
    fn local(&self, p: Vec3) -> (f32, f32, f32) {
        let d = p - self.center;
        (
            d.dot(self.a) / self.length + 0.5,
            d.dot(self.u),
            d.dot(self.v),
        )
    }

    #[inline]
    fn world(&self, s: f32, cu: f32, cv: f32) -> Vec3 {
        self.center + self.a * ((s - 0.5) * self.length) + self.u * cu + self.v * cv
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::shapes::{cuboid, cylinder};

    #[test]
    fn zero_amplitude_is_the_identity_for_twist_and_wobble() {
        let m = cylinder(Vec3::new(1.0, 2.0, 0.0), 0.5, -2.0, 2.0, 16, 8);
        for d in [
            Deformer::from_name("twist", 0.0),
            Deformer::from_name("wobble", 0.0),
        ] {
            let d = d.unwrap_or_else(|e| panic!("{e}"));
            for (p, q) in m.positions.iter().zip(d.apply(&m)) {
                assert!((*p - q).length() < 1e-5, "{} {p} {q}", d.name());
            }
        }
        assert!(Deformer::from_name("bend", 1.0).is_err());
    }

    #[test]
    fn twist_rotates_the_ends_by_half_the_amplitude_each_way() {
        let m = cuboid(Vec3::new(-0.5, -0.5, -4.0), Vec3::new(0.5, 0.5, 4.0));
        let t = Deformer::Twist {
            amplitude: std::f32::consts::PI,
            across: false,
        };
        let q = t.apply(&m);
        // Corner (0.5, 0.5, 4) turns by +π/2 about z: (-0.5, 0.5, 4).
        let i = m
            .positions
            .iter()
            .position(|p| *p == Vec3::new(0.5, 0.5, 4.0))
            .unwrap_or_else(|| panic!("corner"));
        assert!(
            (q[i] - Vec3::new(-0.5, 0.5, 4.0)).length() < 1e-5,
            "{}",
            q[i]
        );
        // Points on the axis stay; distances from the axis are kept.
        for (p, r) in m.positions.iter().zip(&q) {
            assert!((p.truncate().length() - r.truncate().length()).abs() < 1e-5);
            assert!((p.z - r.z).abs() < 1e-6);
        }
    }

    #[test]
    fn spring_height_and_pitch_follow_the_amplitude() {
        let m = cylinder(Vec3::ZERO, 0.25, -5.0, 5.0, 12, 160);
        for amp in [0.0f32, 0.5] {
            let q = Deformer::Spring {
                amplitude: amp,
                turns: 4.0,
            }
            .apply(&m);
            let (lo, hi) = Mesh::new(q, m.triangles.clone())
                .aabb()
                .unwrap_or_else(|| panic!("aabb"));
            // Height: L/2 (1 - amp) plus the tube diameter.
            let want = 5.0 * (1.0 - amp) + 0.5;
            assert!(
                ((hi.z - lo.z) - want).abs() < 0.05,
                "{amp}: {}",
                hi.z - lo.z
            );
        }
        assert!((spring_pitch(10.0, 0.5, 4.0) - 0.625).abs() < 1e-6);
    }
}
