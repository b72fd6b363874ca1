//! What a check is asked to do: [`CheckOptions`] (mode, resolution, axes, ε, backend, broad
//! phase) and why it can fail ([`CheckError`]).

use std::str::FromStr;

use crate::ldi::{Axis, ViewError};
use crate::raster::RasterError;

/// Which analysis to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Volume for closed pairs (touch when no measurable volume), surface otherwise, and
    /// self-collision of closed objects.
    Auto,
    /// Intersection volumes of closed pairs only.
    Volume,
    /// Seed 002's surface contacts for every pair.
    Surface,
    /// Seed 000's self-collision of each closed object only.
    SelfOnly,
    /// Exact triangle–triangle tests (and nesting of closed meshes).
    Exact,
    /// Seed 003's CULLIDE / Quick-CULLIDE culling, then exact tests on what is left.
    Cullide,
    /// Seed 001's visibility test for convex pairs.
    Convex,
}

impl Mode {
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Volume => "volume",
            Mode::Surface => "surface",
            Mode::SelfOnly => "self",
            Mode::Exact => "exact",
            Mode::Cullide => "cullide",
            Mode::Convex => "convex",
        }
    }
}

impl FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "auto" => Mode::Auto,
            "volume" => Mode::Volume,
            "surface" => Mode::Surface,
            "self" => Mode::SelfOnly,
            "exact" => Mode::Exact,
            "cullide" => Mode::Cullide,
            "convex" => Mode::Convex,
            _ => {
                return Err(format!(
                    "unknown mode '{s}': use auto, volume, surface, self, exact, cullide or convex"
                ))
            }
        })
    }
}

/// Which view axes to use.
#[derive(Debug, Clone, PartialEq)]
pub enum Axes {
    /// Longest region edge, other axes when that finds nothing.
    Auto,
    /// Exactly these, merged.
    List(Vec<Axis>),
}

impl FromStr for Axes {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "auto" {
            return Ok(Axes::Auto);
        }
        let mut v = Vec::new();
        for part in s.split(',').map(str::trim) {
            let a = match part {
                "x" | "X" => Axis::X,
                "y" | "Y" => Axis::Y,
                "z" | "Z" => Axis::Z,
                _ => {
                    return Err(format!(
                        "unknown axis '{part}': use a list of x, y, z (like x,y,z) or auto"
                    ))
                }
            };
            if !v.contains(&a) {
                v.push(a);
            }
        }
        if v.is_empty() {
            return Err("no axis given: use x,y,z or auto".into());
        }
        Ok(Axes::List(v))
    }
}

impl std::fmt::Display for Axes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Axes::Auto => f.write_str("auto"),
            Axes::List(v) => {
                let names: Vec<&str> = v.iter().map(|a| a.name()).collect();
                f.write_str(&names.join(","))
            }
        }
    }
}

/// Settings of a check.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOptions {
    /// Analysis.
    pub mode: Mode,
    /// Pixels along the longer image side of each region's LDI.
    pub resolution: u32,
    /// View axes.
    pub axes: Axes,
    /// Contact tolerance in world (file) units; default one pixel of the region.
    pub epsilon: Option<f64>,
    /// In `auto` mode, also check each closed object for self-collision (default true).
    pub self_check: bool,
    /// Who builds the LDIs and runs the analyses.
    pub backend: Backend,
    /// How candidate pairs and the regions to refine are found.
    pub broad_phase: BroadPhase,
    /// Clearance tests (issue 11): pairs that do not collide but come closer than this (file
    /// units) are reported too, as `clearance` pairs with their exact distance.
    pub clearance: Option<f64>,
}

/// How a check finds what to rasterise at full resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BroadPhase {
    /// Sweep and prune on world boxes, then a coarse, conservative LDI of every object in a
    /// pair (seed 002's scene pass): only pairs whose coarse occupancies meet are refined, and
    /// only over the image blocks where they meet (default).
    #[default]
    Ldi,
    /// Sweep and prune on world boxes only: every candidate pair is rasterised over the whole
    /// overlap of its boxes (the engine before issue 10; same answers, more work).
    Boxes,
}

impl BroadPhase {
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            BroadPhase::Ldi => "ldi",
            BroadPhase::Boxes => "boxes",
        }
    }
}

impl FromStr for BroadPhase {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "ldi" => Ok(BroadPhase::Ldi),
            "boxes" => Ok(BroadPhase::Boxes),
            _ => Err(format!("unknown broad phase '{s}': use ldi or boxes")),
        }
    }
}

/// Who builds the LDIs and runs the analyses: the CPU rasteriser, or the GPU pipeline
/// (`crate::gpu`, feature `gpu`) with fragment lists or depth peeling. Both give the same
/// answers (tests/gpu.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// The CPU rasteriser and analyses.
    #[default]
    Cpu,
    /// The GPU pipeline.
    Gpu {
        /// Depth peeling instead of fragment lists.
        peel: bool,
    },
}

impl FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "cpu" => Ok(Backend::Cpu),
            "gpu" => Ok(Backend::Gpu { peel: false }),
            _ => Err(format!("unknown backend '{s}': use cpu or gpu")),
        }
    }
}

impl Default for CheckOptions {
    fn default() -> Self {
        Self {
            mode: Mode::Auto,
            resolution: 256,
            axes: Axes::Auto,
            epsilon: None,
            self_check: true,
            backend: Backend::Cpu,
            broad_phase: BroadPhase::Ldi,
            clearance: None,
        }
    }
}

/// Why a check could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CheckError {
    /// Bad view parameters.
    #[error(transparent)]
    View(#[from] ViewError),
    /// Rasterisation failed.
    #[error(transparent)]
    Raster(#[from] RasterError),
    /// Epsilon must be a non-negative finite number.
    #[error("epsilon {0} must be a finite number ≥ 0")]
    Epsilon(f64),
    /// The clearance must be a positive finite number.
    #[error("clearance {0} must be a finite number > 0 (file units)")]
    Clearance(f64),
    /// Clearance tests run with the image-space modes.
    #[error("a clearance test runs with --mode auto, volume or surface, not {0}")]
    ClearanceMode(&'static str),
    /// A visibility query (`--mode cullide|convex`) cannot run.
    #[error(transparent)]
    Visibility(#[from] crate::collide::VisibilityError),
    /// The GPU backend failed (no adapter: fall back to `Backend::Cpu`).
    #[error("GPU backend: {0}")]
    Gpu(String),
}

/// Progress of a long check: `(done, total, what)`.
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize, &str);
