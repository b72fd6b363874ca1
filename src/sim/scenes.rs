//! Animated scenes for the CLI (`ldiclash animate`) and the page: one [`Animation`] type that
//! owns a [`Scene`] and moves it frame by frame, with pause, single step and speed.
//!
//! Built-in scenes ([`SceneKind`]):
//! - `box100`: seed 001 §4's box with cones, cylinders, cubes and spheres (100 by default),
//!   random velocities (≤ 6 % of the object size per frame) and spins (≤ 10° per frame),
//!   bouncing off the walls (kinematic, as in the seed).
//! - `cloth`: a cloth dropped on a box standing on the floor; the cloth's particles are pushed
//!   out of the box with the LDI ([`super::response`]) and kept above the floor by a half-space.
//! - `softbody`: a soft torus (edge springs + volume constraint) squeezed between two plates
//!   until its ring folds through itself (self-collision grows).
//! - `twist`: seed 000 §A.2's twisted cylinder, the twist growing to `amplitude`.
//! - `spring`: a cylinder coiled into a spiral spring that compresses until its coils touch.
//! - `rigid`: four rigid bodies (seed 004 §3.5.1 particle boxes) dropped on the floor and on
//!   each other, colliding through the LDI push-out of their box corners.
//!
//! Any other scene (files, `scene.json`) animates with a [`Deformer`] on every object
//! ([`Animation::from_scene`]).
//!
//! Wasm: no threads, time from [`crate::clock::now_ms`]; the page calls [`Animation::step`] once
//! per displayed frame, then [`Animation::collide`] (or [`Animation::advance`] for both).

use std::f32::consts::PI;
use std::str::FromStr;
use std::sync::Arc;

use glam::{DMat4, DQuat, DVec3, Vec3};
use serde::Serialize;

use super::cloth::{Cloth, ClothDesc};
use super::constraints::HalfSpace;
use super::particles::Kernel;
use super::response::{push_out, ResponseError, ResponseOptions, ResponseStats};
use super::rigid::RigidBody;
use super::seed001::{shape, Movers, Tessellation, SHAPE_NAMES};
use super::softbody::SoftBody;
use super::world::{MassSpring, SimParams};
use crate::check::{check, CheckError, CheckOptions, Mode};
use crate::clock::now_ms;
use crate::deform::Deformer;
use crate::mesh::shapes::{cuboid, cylinder, torus};
use crate::mesh::{Mesh, Units};
use crate::report::Report;
use crate::scene::{Scene, SceneError};

/// The built-in animated scenes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SceneKind {
    /// Seed 001's box of moving convex objects.
    Box100,
    /// A cloth dropped on a box.
    Cloth,
    /// A soft torus squeezed between plates.
    SoftBody,
    /// A twisting cylinder.
    Twist,
    /// A compressing spiral spring.
    Spring,
    /// Rigid bodies (particle boxes) dropped on the floor and on each other.
    Rigid,
}

impl SceneKind {
    /// All built-in scenes.
    pub const ALL: [SceneKind; 6] = [
        SceneKind::Box100,
        SceneKind::Cloth,
        SceneKind::SoftBody,
        SceneKind::Twist,
        SceneKind::Spring,
        SceneKind::Rigid,
    ];

    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            SceneKind::Box100 => "box100",
            SceneKind::Cloth => "cloth",
            SceneKind::SoftBody => "softbody",
            SceneKind::Twist => "twist",
            SceneKind::Spring => "spring",
            SceneKind::Rigid => "rigid",
        }
    }
}

impl FromStr for SceneKind {
    type Err = AnimError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SceneKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| AnimError::UnknownScene(s.to_string()))
    }
}

/// Why an animation could not be built or advanced.
#[derive(Debug, thiserror::Error)]
pub enum AnimError {
    /// Not a built-in scene name.
    #[error("unknown scene '{0}': use box100, cloth, softbody, twist, spring, rigid, or a scene.json / mesh file")]
    UnknownScene(String),
    /// A scene operation failed.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// The collision check failed.
    #[error(transparent)]
    Check(#[from] CheckError),
    /// The collision response failed.
    #[error(transparent)]
    Response(#[from] ResponseError),
    /// A parameter is out of range.
    #[error("{0}")]
    Parameter(String),
}

/// Settings of an animation.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimOptions {
    /// Deformation amplitude (scene default when `None`): twist radians, spring compression,
    /// wobble fraction of the object length, box100 ignores it, softbody: final plate gap as
    /// a fraction of the torus tube diameter, cloth ignores it.
    pub amplitude: Option<f32>,
    /// Frames over which a growing deformation (twist, spring, softbody squeeze) reaches its
    /// amplitude, at speed 1.
    pub ramp_frames: u32,
    /// Objects in `box100`.
    pub objects: usize,
    /// SIMD or scalar simulation loops.
    pub kernel: Kernel,
    /// The LDI collision response.
    pub response: ResponseOptions,
}

impl Default for AnimOptions {
    fn default() -> Self {
        Self {
            amplitude: None,
            ramp_frames: 60,
            objects: 100,
            kernel: Kernel::default_for_build(),
            response: ResponseOptions::default(),
        }
    }
}

/// One frame's results: the collision report of `ldiclash check` plus the frame number and
/// timings.
#[derive(Debug, Clone, Serialize)]
pub struct FrameReport {
    /// Frame number (after the step).
    pub frame: u64,
    /// Simulation steps taken so far.
    pub steps: u64,
    /// Wall time of this frame's simulation (including the LDI response), ms.
    pub sim_ms: f64,
    /// Wall time of this frame's collision check, ms.
    pub collision_ms: f64,
    /// The current deformation amplitude (deforming scenes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amplitude: Option<f32>,
    /// The LDI collision response of this frame (particle scenes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response: Option<ResponseStats>,
    /// The check's report (same schema as `ldiclash check --json`).
    #[serde(flatten)]
    pub report: Report,
}

/// What moves the scene.
#[derive(Debug, Clone)]
enum Motion {
    /// `box100`'s objects bouncing in their box.
    Kinematic(Movers),
    Deform {
        /// Rest meshes (object coordinates) of the deformed objects.
        rest: Vec<(usize, Arc<Mesh>)>,
        deformer: Deformer,
        amplitude: f32,
        /// Grow the amplitude over the ramp (twist, spring); otherwise animate the phase.
        ramp: bool,
    },
    Particles(Box<ParticleScene>),
}

/// A mass-spring world driving scene objects.
#[derive(Debug, Clone)]
struct ParticleScene {
    world: MassSpring,
    /// (scene object, particle range) pairs: the object's vertices are these particles.
    driven: Vec<(usize, std::ops::Range<usize>)>,
    /// (particle range, obstacle object): push these particles out of that object.
    response: Vec<(std::ops::Range<usize>, usize)>,
    /// Squeeze plates.
    plates: Option<Plates>,
    /// Rigid bodies: (scene object, body) — the body's particles drive the object's transform.
    rigid: Vec<(usize, RigidBody)>,
}

#[derive(Debug, Clone)]
struct Plates {
    objects: [usize; 2],
    start_gap: f32,
    end_gap: f32,
    thickness: f32,
}

/// An animated scene with pause, single step and speed.
#[derive(Debug, Clone)]
pub struct Animation {
    name: String,
    scene: Scene,
    motion: Motion,
    options: AnimOptions,
    frame: u64,
    steps: u64,
    paused: bool,
    speed: u32,
    last_sim_ms: f64,
    last_response: Option<ResponseStats>,
    check: CheckOptions,
}

impl Animation {
    /// A built-in scene.
    pub fn new(kind: SceneKind, options: AnimOptions) -> Result<Self, AnimError> {
        let (scene, motion, check) = match kind {
            SceneKind::Box100 => box100(&options)?,
            SceneKind::Cloth => cloth(&options)?,
            SceneKind::SoftBody => softbody(&options)?,
            SceneKind::Rigid => rigid(&options)?,
            SceneKind::Twist => {
                let mut s = Scene::new();
                let m = Arc::new(cylinder(Vec3::ZERO, 0.3, -2.0, 2.0, 24, 64));
                s.add("cylinder", m.clone(), Units::Unknown, DMat4::IDENTITY)?;
                let motion = Motion::Deform {
                    rest: vec![(0, m)],
                    deformer: Deformer::Twist {
                        amplitude: 0.0,
                        across: true,
                    },
                    amplitude: options.amplitude.unwrap_or(1.5 * PI),
                    ramp: true,
                };
                (s, motion, self_check_options())
            }
            SceneKind::Spring => {
                let mut s = Scene::new();
                let m = Arc::new(cylinder(Vec3::ZERO, 0.25, -5.0, 5.0, 12, 192));
                s.add("spring", m.clone(), Units::Unknown, DMat4::IDENTITY)?;
                let deformer = Deformer::Spring {
                    amplitude: 0.0,
                    turns: 4.0,
                };
                s.set_positions(0, &deformer.apply(&m))?;
                let motion = Motion::Deform {
                    rest: vec![(0, m)],
                    deformer,
                    amplitude: options.amplitude.unwrap_or(0.8),
                    ramp: true,
                };
                (s, motion, self_check_options())
            }
        };
        Ok(Self::assemble(kind.name(), scene, motion, options, check))
    }

    /// Any scene, every object deformed by `deformer` (its amplitude is the target; twist and
    /// spring grow to it over the ramp, wobble travels at full amplitude).
    pub fn from_scene(
        name: &str,
        scene: Scene,
        deformer: Deformer,
        options: AnimOptions,
    ) -> Result<Self, AnimError> {
        let amplitude = match deformer {
            Deformer::Twist { amplitude, .. }
            | Deformer::Wobble { amplitude, .. }
            | Deformer::Spring { amplitude, .. } => amplitude,
        };
        let rest = scene
            .objects
            .iter()
            .enumerate()
            .map(|(i, o)| (i, o.mesh.clone()))
            .collect();
        let ramp = !matches!(deformer, Deformer::Wobble { .. });
        let mut a = Self::assemble(
            name,
            scene,
            Motion::Deform {
                rest,
                deformer,
                amplitude,
                ramp,
            },
            options,
            CheckOptions::default(),
        );
        a.apply_deform()?;
        Ok(a)
    }

    fn assemble(
        name: &str,
        scene: Scene,
        motion: Motion,
        options: AnimOptions,
        check: CheckOptions,
    ) -> Self {
        Self {
            name: name.to_string(),
            scene,
            motion,
            options,
            frame: 0,
            steps: 0,
            paused: false,
            speed: 1,
            last_sim_ms: 0.0,
            last_response: None,
            check,
        }
    }

    /// The scene's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The scene as it is now.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// Frames advanced so far.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// Simulation steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Whether [`Self::step`] does nothing.
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// Pause or resume.
    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
    }

    /// Simulation steps per frame.
    pub fn speed(&self) -> u32 {
        self.speed
    }

    /// Set the simulation steps per frame (at least 1).
    pub fn set_speed(&mut self, steps_per_frame: u32) {
        self.speed = steps_per_frame.max(1);
    }

    /// The collision settings this scene suggests (resolution, mode, self check).
    pub fn check_options(&self) -> &CheckOptions {
        &self.check
    }

    /// Wall time of the last frame's simulation, ms.
    pub fn sim_ms(&self) -> f64 {
        self.last_sim_ms
    }

    /// The LDI collision response of the last frame (particle scenes with obstacles).
    pub fn last_response(&self) -> Option<ResponseStats> {
        self.last_response
    }

    /// The mass-spring world, for particle scenes.
    pub fn world(&self) -> Option<&MassSpring> {
        match &self.motion {
            Motion::Particles(p) => Some(&p.world),
            _ => None,
        }
    }

    /// The current deformation amplitude (deforming scenes).
    pub fn amplitude(&self) -> Option<f32> {
        match &self.motion {
            Motion::Deform {
                amplitude, ramp, ..
            } => Some(if *ramp {
                amplitude * self.ramp_share()
            } else {
                *amplitude
            }),
            _ => None,
        }
    }

    /// Change the target amplitude of a deforming scene (the page's `[` / `]` keys of seed
    /// 000 §A.4); the scene is re-deformed at once. Returns `false` for other scenes.
    pub fn set_amplitude(&mut self, value: f32) -> Result<bool, AnimError> {
        if !value.is_finite() {
            return Err(AnimError::Parameter(format!(
                "amplitude {value} must be a finite number"
            )));
        }
        let Motion::Deform { amplitude, .. } = &mut self.motion else {
            return Ok(false);
        };
        *amplitude = value;
        self.apply_deform()?;
        Ok(true)
    }

    /// Switch the deformation of a deforming scene (seed 000 §A.4's `p` key); its amplitude
    /// becomes the target. Returns `false` for other scenes.
    pub fn set_deformer(&mut self, d: Deformer) -> Result<bool, AnimError> {
        let Motion::Deform {
            deformer,
            amplitude,
            ramp,
            ..
        } = &mut self.motion
        else {
            return Ok(false);
        };
        *amplitude = match d {
            Deformer::Twist { amplitude, .. }
            | Deformer::Wobble { amplitude, .. }
            | Deformer::Spring { amplitude, .. } => amplitude,
        };
        *ramp = !matches!(d, Deformer::Wobble { .. });
        *deformer = d;
        self.apply_deform()?;
        Ok(true)
    }

    fn ramp_share(&self) -> f32 {
        (self.steps as f32 / self.options.ramp_frames.max(1) as f32).min(1.0)
    }

    /// Advance one frame (`speed` simulation steps) unless paused.
    pub fn step(&mut self) -> Result<(), AnimError> {
        if self.paused {
            return Ok(());
        }
        self.single_step()
    }

    /// Advance one frame even when paused (the page's "single step" button).
    pub fn single_step(&mut self) -> Result<(), AnimError> {
        let t0 = now_ms();
        let mut response: Option<ResponseStats> = None;
        for _ in 0..self.speed {
            self.steps += 1;
            match &mut self.motion {
                Motion::Kinematic(movers) => movers.bounce(),
                Motion::Deform { .. } => {}
                Motion::Particles(ps) => {
                    let r = step_particles(
                        ps,
                        &mut self.scene,
                        &self.options,
                        self.steps,
                        self.options.ramp_frames,
                    )?;
                    if ps.response.is_empty() {
                        continue;
                    }
                    let acc = response.get_or_insert_with(ResponseStats::default);
                    acc.ldis += r.ldis;
                    acc.pushed += r.pushed;
                    acc.max_push = acc.max_push.max(r.max_push);
                    acc.pixel_size = acc.pixel_size.max(r.pixel_size);
                    acc.ms += r.ms;
                }
            }
        }
        match &self.motion {
            Motion::Kinematic(movers) => {
                for i in 0..movers.len() {
                    let angle = f64::from(movers.spins[i]) * self.steps as f64;
                    let rot = DQuat::from_axis_angle(movers.axes[i].as_dvec3(), angle);
                    let w = DMat4::from_rotation_translation(rot, movers.positions[i].as_dvec3());
                    self.scene.set_transform(i, w)?;
                }
            }
            Motion::Deform { .. } => self.apply_deform()?,
            Motion::Particles(_) => {}
        }
        self.frame += 1;
        self.last_sim_ms = now_ms() - t0;
        self.last_response = response;
        Ok(())
    }

    fn apply_deform(&mut self) -> Result<(), AnimError> {
        let share = self.ramp_share();
        let Motion::Deform {
            rest,
            deformer,
            amplitude,
            ramp,
        } = &self.motion
        else {
            return Ok(());
        };
        let d = if *ramp {
            deformer.with_amplitude(amplitude * share)
        } else {
            match *deformer {
                Deformer::Wobble { waves, .. } => Deformer::Wobble {
                    amplitude: *amplitude,
                    waves,
                    phase: self.steps as f32 * 0.1,
                },
                other => other,
            }
        };
        let mut buf = Vec::new();
        for (i, m) in rest {
            d.apply_into(m, &mut buf);
            self.scene.set_positions(*i, &buf)?;
        }
        Ok(())
    }

    /// Run the collision check on the scene as it is now.
    pub fn collide(&self, opts: &CheckOptions) -> Result<FrameReport, AnimError> {
        let t0 = now_ms();
        let report = check(&self.scene, opts)?;
        Ok(FrameReport {
            frame: self.frame,
            steps: self.steps,
            sim_ms: self.last_sim_ms,
            collision_ms: now_ms() - t0,
            amplitude: self.amplitude(),
            response: self.last_response,
            report,
        })
    }

    /// [`Self::step`], then [`Self::collide`].
    pub fn advance(&mut self, opts: &CheckOptions) -> Result<FrameReport, AnimError> {
        self.step()?;
        self.collide(opts)
    }
}

/// Checks for the deforming single-object scenes: self-collision, 128 pixels.
fn self_check_options() -> CheckOptions {
    CheckOptions {
        mode: Mode::SelfOnly,
        resolution: 128,
        ..CheckOptions::default()
    }
}

/// Simulate one step of a particle scene and copy the particles into the scene.
fn step_particles(
    ps: &mut ParticleScene,
    scene: &mut Scene,
    options: &AnimOptions,
    steps: u64,
    ramp_frames: u32,
) -> Result<ResponseStats, AnimError> {
    if let Some(pl) = &ps.plates {
        let share = (steps as f32 / ramp_frames.max(1) as f32).min(1.0);
        let gap = pl.start_gap + (pl.end_gap - pl.start_gap) * share;
        let h = 0.5 * gap;
        ps.world.half_spaces[0] = HalfSpace::new(Vec3::new(-h, 0.0, 0.0), Vec3::X, 0.0);
        ps.world.half_spaces[1] = HalfSpace::new(Vec3::new(h, 0.0, 0.0), -Vec3::X, 0.0);
        let t = f64::from(pl.thickness);
        scene.set_transform(
            pl.objects[0],
            DMat4::from_translation(DVec3::new(-f64::from(h) - 0.5 * t, 0.0, 0.0)),
        )?;
        scene.set_transform(
            pl.objects[1],
            DMat4::from_translation(DVec3::new(f64::from(h) + 0.5 * t, 0.0, 0.0)),
        )?;
    }
    ps.world.step();
    let mut stats = ResponseStats::default();
    for (range, obstacle) in &ps.response {
        let Some(o) = scene.objects.get(*obstacle) else {
            continue;
        };
        let r = push_out(
            &mut ps.world.particles,
            range.clone(),
            o.world(),
            &options.response,
        )?;
        stats.ldis += r.ldis;
        stats.pushed += r.pushed;
        stats.max_push = stats.max_push.max(r.max_push);
        stats.pixel_size = stats.pixel_size.max(r.pixel_size);
        stats.ms += r.ms;
    }
    let mut buf = Vec::new();
    for (object, range) in &ps.driven {
        ps.world.particles.positions_into(range.clone(), &mut buf);
        scene.set_positions(*object, &buf)?;
    }
    for (object, body) in &ps.rigid {
        scene.set_transform(*object, body.world_from_object(&ps.world))?;
    }
    Ok(stats)
}

/// The cloth scene: a 1 × 0.6 × 1 box on the floor, a 1.6 × 1.6 cloth (25 × 25 particles)
/// 0.3 above it, gravity, floor half-space, LDI push-out from the box.
fn cloth(options: &AnimOptions) -> Result<(Scene, Motion, CheckOptions), AnimError> {
    let mut world = MassSpring::new(SimParams {
        kernel: options.kernel,
        iterations: 8,
        damping: 0.99,
        ..SimParams::default()
    });
    let n = 25;
    let side = 1.6f32;
    let c = Cloth::build(
        &mut world,
        &ClothDesc {
            origin: Vec3::new(-0.5 * side, 0.9, -0.5 * side),
            u: Vec3::X,
            v: Vec3::Z,
            nu: n,
            nv: n,
            spacing: side / (n - 1) as f32,
            particle_mass: 0.01,
            stiffness: 1.0,
            bend_stiffness: 0.3,
        },
    );
    world.distances.finish();
    world
        .half_spaces
        .push(HalfSpace::new(Vec3::ZERO, Vec3::Y, 0.8));
    let mut scene = Scene::new();
    let bx = cuboid(Vec3::new(-0.5, 0.0, -0.5), Vec3::new(0.5, 0.6, 0.5));
    scene.add("box", Arc::new(bx), Units::Unknown, DMat4::IDENTITY)?;
    scene.add(
        "cloth",
        Arc::new(c.mesh(&world)),
        Units::Unknown,
        DMat4::IDENTITY,
    )?;
    let ps = ParticleScene {
        world,
        driven: vec![(1, c.particles.clone())],
        response: vec![(c.particles.clone(), 0)],
        plates: None,
        rigid: Vec::new(),
    };
    let check = CheckOptions {
        resolution: 128,
        ..CheckOptions::default()
    };
    Ok((scene, Motion::Particles(Box::new(ps)), check))
}

/// The soft-body scene: a torus (ring radius 1, tube radius 0.35) squeezed along x between two
/// plates from a gap of 2.8 down to `amplitude` × the tube diameter (default 1.2 × 0.7).
fn softbody(options: &AnimOptions) -> Result<(Scene, Motion, CheckOptions), AnimError> {
    let (major, minor) = (1.0f32, 0.35f32);
    let end_share = options.amplitude.unwrap_or(1.2);
    if !(end_share.is_finite() && end_share > 0.0) {
        return Err(AnimError::Parameter(format!(
            "softbody amplitude {end_share}: the final plate gap in tube diameters must be > 0"
        )));
    }
    let mut world = MassSpring::new(SimParams {
        kernel: options.kernel,
        gravity: Vec3::ZERO,
        iterations: 6,
        damping: 0.9,
        ..SimParams::default()
    });
    let mesh = torus(Vec3::ZERO, major, minor, 40, 12);
    let body = SoftBody::build(&mut world, &mesh, 1.0, 0.9, 1.0);
    world.distances.finish();
    let start_gap = 2.0 * (major + minor) + 0.05;
    let end_gap = end_share * 2.0 * minor;
    world.half_spaces.push(HalfSpace::new(
        Vec3::new(-0.5 * start_gap, 0.0, 0.0),
        Vec3::X,
        0.0,
    ));
    world.half_spaces.push(HalfSpace::new(
        Vec3::new(0.5 * start_gap, 0.0, 0.0),
        -Vec3::X,
        0.0,
    ));
    let mut scene = Scene::new();
    scene.add("torus", Arc::new(mesh), Units::Unknown, DMat4::IDENTITY)?;
    let thickness = 0.1f32;
    let plate = Arc::new(cuboid(
        Vec3::new(-0.5 * thickness, -1.0, -2.0),
        Vec3::new(0.5 * thickness, 1.0, 2.0),
    ));
    let at = |x: f32| DMat4::from_translation(DVec3::new(f64::from(x), 0.0, 0.0));
    let l = scene.add(
        "plate_left",
        plate.clone(),
        Units::Unknown,
        at(-0.5 * start_gap - 0.5 * thickness),
    )?;
    let r = scene.add(
        "plate_right",
        plate,
        Units::Unknown,
        at(0.5 * start_gap + 0.5 * thickness),
    )?;
    let ps = ParticleScene {
        world,
        driven: vec![(0, body.particles.clone())],
        response: Vec::new(),
        plates: Some(Plates {
            objects: [l, r],
            start_gap,
            end_gap,
            thickness,
        }),
        rigid: Vec::new(),
    };
    let check = CheckOptions {
        resolution: 128,
        ..CheckOptions::default()
    };
    Ok((scene, Motion::Particles(Box::new(ps)), check))
}

/// The rigid-body scene (seed 004 §3.5.1): four seed-001 shapes, tilted, dropped onto the
/// floor and onto each other. Each is a particle box (its world AABB at the start, 28 springs)
/// whose frame drives the object's transform; the floor is a half-space; bodies collide with
/// each other through the LDI push-out of their box corners (the other body's mesh is the
/// obstacle, taken as kinematic for that step).
fn rigid(options: &AnimOptions) -> Result<(Scene, Motion, CheckOptions), AnimError> {
    let mut world = MassSpring::new(SimParams {
        kernel: options.kernel,
        iterations: 8,
        damping: 0.995,
        ..SimParams::default()
    });
    world
        .half_spaces
        .push(HalfSpace::new(Vec3::ZERO, Vec3::Y, 0.6));
    let mut scene = Scene::new();
    // (shape kind, size, position, tilt axis, tilt angle, velocity per step)
    let drops = [
        (
            1usize,
            0.8f32,
            Vec3::new(0.0, 0.5, 0.0),
            Vec3::Y,
            0.0f32,
            Vec3::ZERO,
        ),
        (0, 0.6, Vec3::new(0.15, 1.6, 0.1), Vec3::X, 0.0, Vec3::ZERO),
        (
            2,
            0.6,
            Vec3::new(-1.2, 1.2, 0.3),
            Vec3::Z,
            0.5,
            Vec3::new(0.004, 0.0, 0.0),
        ),
        (
            3,
            0.7,
            Vec3::new(1.3, 1.0, -0.4),
            Vec3::X,
            0.8,
            Vec3::new(-0.003, 0.0, 0.0),
        ),
    ];
    let mut bodies = Vec::new();
    for (k, &(kind, size, at, axis, angle, vel)) in drops.iter().enumerate() {
        let mesh = Arc::new(shape(kind, size, Tessellation::from_segments(24)));
        let place = DMat4::from_rotation_translation(
            DQuat::from_axis_angle(axis.as_dvec3(), f64::from(angle)),
            at.as_dvec3(),
        );
        let i = scene.add(
            &format!("{}_{k}", SHAPE_NAMES[kind]),
            mesh,
            Units::Unknown,
            place,
        )?;
        let body = RigidBody::build(&mut world, &scene.objects[i].aabb(), place, 1.0, 1.0, vel);
        bodies.push((i, body));
    }
    world.distances.finish();
    let mut response = Vec::new();
    for (i, b) in &bodies {
        for (j, _) in &bodies {
            if i != j {
                response.push((b.particles.clone(), *j));
            }
        }
    }
    let ps = ParticleScene {
        world,
        driven: Vec::new(),
        response,
        plates: None,
        rigid: bodies,
    };
    let check = CheckOptions {
        resolution: 128,
        self_check: false,
        ..CheckOptions::default()
    };
    Ok((scene, Motion::Particles(Box::new(ps)), check))
}

/// Seed 001 §4's scene ([`Movers::seed001_box`], as in benches/visibility.rs): `n`
/// objects of size 0.8–1.6 in a box of side 20, velocities up to 6 % of the size per frame,
/// spins up to 10° per frame.
fn box100(options: &AnimOptions) -> Result<(Scene, Motion, CheckOptions), AnimError> {
    let n = options.objects;
    if n == 0 || n > 10_000 {
        return Err(AnimError::Parameter(format!(
            "box100 with {n} objects: use 1 to 10000"
        )));
    }
    let seg = 24u32;
    let movers = Movers::seed001_box(n, seg);
    let mut scene = Scene::new();
    for (k, m) in movers
        .shapes(Tessellation::from_segments(seg))
        .into_iter()
        .enumerate()
    {
        scene.add(
            &format!("{}_{k}", SHAPE_NAMES[k % 4]),
            Arc::new(m),
            Units::Unknown,
            DMat4::from_translation(movers.positions[k].as_dvec3()),
        )?;
    }
    let check = CheckOptions {
        resolution: 64,
        self_check: false,
        ..CheckOptions::default()
    };
    Ok((scene, Motion::Kinematic(movers), check))
}
