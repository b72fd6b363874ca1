//! `ldiclash`: the native command-line checker.
//!
//! `ldiclash check INPUT... [--resolution N] [--axes x,y,z|auto] [--mode auto|volume|surface|self|exact|cullide|convex]
//! [--epsilon E] [--no-self] [--backend cpu|gpu] [--ldi fraglist|peel] [--json]` — INPUT is mesh
//! files (placed as in the file) or scene files
//! (`*.json`, the format of `shared/data/*/scene.json`). Exit code 0 when the check ran
//! (collisions or not), 2 with a message on stderr for bad input.
//!
//! `ldiclash animate SCENE --frames N [--deform twist|wobble|spring] [--amplitude A] [--speed S]
//! [--resolution N] [--mode auto|volume|surface|self] [--scalar] [--json]` — SCENE is a built-in
//! animated scene (box100, cloth, softbody, twist, spring, rigid) or scene/mesh files deformed every
//! frame; prints per-frame collision results and timings (README "Animated scenes").

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use glam::DMat4;
use ldiclash::check::{
    check_with_progress, Axes, Backend, BroadPhase, CheckOptions, Mode, Progress,
};
use ldiclash::mesh::{load_assembly, Format, Units};
use ldiclash::report::Report;
use ldiclash::review::bcf::BcfVersion;
use ldiclash::review::{
    apply_baseline, apply_rules, clash_states, iso8601_utc, ClashState, IgnoreRule, ReviewFile,
    Rules, Status,
};
use ldiclash::scene::{annotate_report, part_names, Scene, SceneFile, UnitSettings};

#[derive(Parser, Debug)]
#[command(
    name = "ldiclash",
    version,
    about = "Image-space collision detection with Layered Depth Images"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once per run: the size of the `check` variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
enum Command {
    /// Check meshes or scene files for collisions.
    Check {
        /// Mesh files (STL, OBJ, PLY, OFF, glTF/GLB, 3MF), scene files (.json), folders (a
        /// folder's scene.json, or else every mesh file in it), or - for standard input.
        #[arg(required = true, value_name = "INPUT")]
        inputs: Vec<PathBuf>,
        /// Pixels along the longer side of each region's LDI.
        #[arg(long, default_value_t = 256)]
        resolution: u32,
        /// View axes: a list like x,y,z, or auto (longest region edge, others when it finds nothing).
        #[arg(long, default_value = "auto")]
        axes: String,
        /// auto, volume, surface, self, exact, cullide (seed 003) or convex (seed 001).
        #[arg(long, default_value = "auto")]
        mode: String,
        /// Contact tolerance: a number in file units, or with a unit like --clearance's (0.1mm)
        /// (default: one pixel of each region).
        #[arg(long, value_name = "E", allow_hyphen_values = true)]
        epsilon: Option<String>,
        /// In auto mode, skip the self-collision check of closed objects.
        #[arg(long)]
        no_self: bool,
        /// Print one JSON object on stdout instead of a table.
        #[arg(long)]
        json: bool,
        /// Who builds the LDIs: cpu (the SIMD rasteriser) or gpu (WebGPU pipeline; falls back
        /// to cpu with a warning when there is no GPU adapter).
        #[arg(long, default_value = "cpu")]
        backend: String,
        /// GPU LDI method: fraglist (fragment lists, default) or peel (depth peeling).
        #[arg(long, default_value = "fraglist")]
        ldi: String,
        /// Broad phase: ldi (coarse occupancy LDIs, then only where objects meet; default) or
        /// boxes (every pair with overlapping boxes over its whole box overlap; same answers).
        #[arg(long, default_value = "ldi")]
        broad: String,
        /// Also report pairs closer than this, with their exact distance and closest points:
        /// a number in file units, or with a unit (20mm, 2cm, 0.02m, 0.8in, 1ft, 50um) converted with
        /// the scene's units.
        #[arg(long, value_name = "DISTANCE", allow_hyphen_values = true)]
        clearance: Option<String>,
        /// Convert every file to this unit (mm, cm, m, um, in, ft) before checking; volumes,
        /// depths and sizes are then in it. Without it each file keeps its own numbers.
        #[arg(long, value_name = "UNIT")]
        units: Option<String>,
        /// With --units: the unit of files that declare none (STL, OBJ, PLY, OFF, scene files
        /// without "units").
        #[arg(long, value_name = "UNIT", default_value = "mm")]
        default_units: String,
        /// A previous report (--json) or a saved review (scene.json with "review"): each
        /// clash is marked new, active (or keeps reviewed/approved, with assignee and
        /// comment), and the baseline's clashes no longer found are listed as resolved.
        #[arg(long, value_name = "FILE")]
        baseline: Option<PathBuf>,
        /// Ignore pairs whose two objects both lie in this group (e.g. cell3/robot; * and ?
        /// match as in file names). May be given several times.
        #[arg(long, value_name = "GROUP")]
        ignore_within: Vec<String>,
        /// Ignore pairs of parts of the same assembly (the same group).
        #[arg(long)]
        ignore_same_group: bool,
        /// Ignore pairs matching two name patterns A,B (object paths; either order; * and ?).
        /// May be given several times.
        #[arg(long, value_name = "A,B")]
        ignore: Vec<String>,
        /// Report only hard clashes deeper than this: touches and volume clashes that
        /// separate within it are ignored (file units, or with a unit like --clearance).
        #[arg(long, value_name = "DEPTH", allow_hyphen_values = true)]
        min_depth: Option<String>,
        /// Write the clashes as a BCF archive (.bcfzip): one topic per clash with its status,
        /// a viewpoint and a PNG snapshot.
        #[arg(long, value_name = "FILE")]
        bcf: Option<PathBuf>,
        /// BCF version: 3.0 (default) or 2.1.
        #[arg(long, value_name = "VERSION", default_value = "3.0")]
        bcf_version: String,
        /// Snapshot size for --bcf: pixels along the longest edge of the clash's box
        /// (0: no snapshots).
        #[arg(long, value_name = "PIXELS", default_value_t = 480)]
        snapshot_resolution: u32,
        /// Exit with code 1 (after writing the report) when the check finds clashes: any (a
        /// pair or a self-collision), new (a pair not in the baseline) or unapproved (a pair
        /// new, active or reviewed). For scripts and CI; without it the exit code is 0.
        #[arg(long, value_name = "WHICH")]
        fail_on: Option<String>,
    },
    /// Write a generated factory hall (the factory-scale benchmark's scene): a grid of cells,
    /// robot cells of the shared real meshes (default) or 12-part gear assemblies, as
    /// OUT/scene.json and OUT/meshes/*.stl.
    Hall {
        /// Cells along x.
        #[arg(long, default_value_t = 6)]
        cols: u32,
        /// Cells along y.
        #[arg(long, default_value_t = 5)]
        rows: u32,
        /// Seed of the cell placements.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// robot (the KUKA arm, gripper parts and bunnies of the test data) or gears.
        #[arg(long, default_value = "robot")]
        cell: String,
        /// Output folder (created).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Run an animated scene and check collisions every frame.
    Animate(AnimateArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(cli) {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::Clashes) => ExitCode::from(1),
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

/// How a command ended, when it ran.
enum Outcome {
    Done,
    /// `check --fail-on` found clashes of the kind asked.
    Clashes,
}

/// Which clashes fail `check --fail-on`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum FailOn {
    Any,
    New,
    Unapproved,
}

impl FailOn {
    fn parse(text: &str) -> Result<FailOn, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "any" => Ok(FailOn::Any),
            "new" => Ok(FailOn::New),
            "unapproved" => Ok(FailOn::Unapproved),
            _ => Err(format!("--fail-on {text}: use any, new or unapproved")),
        }
    }

    /// Whether `report` (reviewed: rules and baseline applied) holds such a clash.
    fn fails(self, report: &Report) -> bool {
        let status = |p: &ldiclash::report::PairReport| p.status.unwrap_or_default();
        match self {
            FailOn::Any => !report.pairs.is_empty() || !report.self_collisions.is_empty(),
            FailOn::New => report.pairs.iter().any(|p| status(p) == Status::New),
            FailOn::Unapproved => report.pairs.iter().any(|p| status(p) != Status::Approved),
        }
    }
}

fn run(cli: Cli) -> Result<Outcome, String> {
    let cmd = match cli.command {
        Command::Animate(args) => return animate(args).map(|()| Outcome::Done),
        Command::Hall {
            cols,
            rows,
            seed,
            cell,
            out,
        } => return write_hall(cols, rows, seed, &cell, &out).map(|()| Outcome::Done),
        c => c,
    };
    let Command::Check {
        inputs,
        resolution,
        axes,
        mode,
        epsilon,
        no_self,
        json,
        backend,
        ldi,
        broad,
        clearance,
        units,
        default_units,
        baseline,
        ignore_within,
        ignore_same_group,
        ignore,
        min_depth,
        bcf,
        bcf_version,
        snapshot_resolution,
        fail_on,
    } = cmd
    else {
        return Err("unreachable command".into());
    };
    let unit = |name: &str, option: &str| match Units::parse(name) {
        Ok(Units::Unknown) | Err(_) => Err(format!(
            "{option} {name}: unknown length unit; use mm, cm, m, um, in or ft"
        )),
        Ok(u) => Ok(u),
    };
    let default_units = unit(&default_units, "--default-units")?;
    let units = match units {
        Some(u) => UnitSettings::convert(unit(&u, "--units")?, default_units),
        None => UnitSettings::default(),
    };
    let peel = match ldi.as_str() {
        "fraglist" => false,
        "peel" => true,
        _ => return Err(format!("unknown LDI method '{ldi}': use fraglist or peel")),
    };
    let backend = match backend.parse::<Backend>()? {
        Backend::Gpu { .. } => Backend::Gpu { peel },
        b => b,
    };
    let opts = CheckOptions {
        mode: mode.parse::<Mode>()?,
        resolution,
        axes: axes.parse::<Axes>()?,
        epsilon: None,
        self_check: !no_self,
        backend,
        broad_phase: broad.parse::<BroadPhase>()?,
        clearance: None,
    };
    let bcf_version = bcf_version.parse::<BcfVersion>()?;
    let fail_on = fail_on.as_deref().map(FailOn::parse).transpose()?;
    if let Some(path) = &bcf {
        writable(path, "--bcf")?;
    }
    let t0 = ldiclash::clock::now_ms();
    let (scene, reviews) = load_inputs(&inputs, &units)?;
    let load_ms = ldiclash::clock::now_ms() - t0;
    let opts = CheckOptions {
        clearance: clearance
            .as_deref()
            .map(|c| length_in_file_units(c, &scene, "--clearance"))
            .transpose()?,
        epsilon: epsilon
            .as_deref()
            .map(|e| length_in_file_units(e, &scene, "--epsilon"))
            .transpose()?,
        ..opts
    };
    // Rules: the scene files' review sections, then the command line's.
    let mut rules = Rules::default();
    let mut saved = Vec::new();
    for r in reviews {
        rules.ignore.extend(r.rules.ignore);
        rules.min_depth = r.rules.min_depth.or(rules.min_depth);
        saved.extend(r.clashes);
    }
    rules
        .ignore
        .extend(ignore_within.into_iter().map(|g| IgnoreRule {
            within: Some(g),
            ..IgnoreRule::default()
        }));
    if ignore_same_group {
        rules.ignore.push(IgnoreRule {
            same_group: true,
            ..IgnoreRule::default()
        });
    }
    for pair in ignore {
        let Some((a, b)) = pair.split_once(',') else {
            return Err(format!(
                "--ignore {pair}: give two name patterns separated by a comma, like 'robot/*,fence*'"
            ));
        };
        rules.ignore.push(IgnoreRule {
            a: Some(a.trim().to_string()),
            b: Some(b.trim().to_string()),
            ..IgnoreRule::default()
        });
    }
    if let Some(d) = min_depth {
        rules.min_depth = Some(length_in_file_units(&d, &scene, "--min-depth")?);
    }
    rules.validate()?;
    let (baseline_clashes, baseline_source) = match &baseline {
        Some(path) => (read_baseline(path)?, Some(path.display().to_string())),
        None if !saved.is_empty() => (saved, Some("the scene file's review".to_string())),
        None => (Vec::new(), None),
    };
    let interactive = std::io::stderr().is_terminal();
    let mut last = 0.0;
    let mut progress = |done: usize, total: usize, what: &str| {
        let now = ldiclash::clock::now_ms();
        if interactive && total > 0 && (now - last > 200.0 || done == total) {
            last = now;
            eprint!("\rchecking {what}: {done}/{total}   ");
            if done == total {
                eprint!("\r{:40}\r", "");
            }
            let _ = std::io::stderr().flush();
        }
    };
    let mut report = run_check(&scene, &opts, &mut progress)?;
    annotate_report(&scene, &units, &mut report);
    apply_rules(&mut report, &rules);
    apply_baseline(&mut report, &baseline_clashes, baseline_source);
    report.timings_ms.insert("load".into(), load_ms);
    if let Some(path) = &bcf {
        write_bcf(&scene, &report, path, bcf_version, snapshot_resolution)?;
    }
    let out = if json {
        report.to_json() + "\n"
    } else {
        report.to_table()
    };
    std::io::stdout()
        .write_all(out.as_bytes())
        .map_err(|e| format!("cannot write the report: {e}"))?;
    Ok(match fail_on {
        Some(f) if f.fails(&report) => Outcome::Clashes,
        _ => Outcome::Done,
    })
}

/// The check on the chosen backend; without a GPU adapter the GPU backend falls back to the
/// CPU with a warning in the report.
fn run_check(scene: &Scene, opts: &CheckOptions, progress: Progress<'_>) -> Result<Report, String> {
    #[cfg(all(feature = "gpu", not(target_arch = "wasm32")))]
    if let Backend::Gpu { .. } = opts.backend {
        use ldiclash::gpu::{block_on, GpuContext, GpuOptions};
        let t = ldiclash::clock::now_ms();
        return match block_on(GpuContext::new(GpuOptions::default())) {
            Ok(ctx) => {
                // Opening the device and building the passes' pipelines, before the check.
                let init_ms = ldiclash::clock::now_ms() - t;
                let mut r = ldiclash::check::check_on_gpu(scene, opts, &ctx, progress)
                    .map_err(|e| e.to_string())?;
                r.timings_ms.insert("gpu_init".into(), init_ms);
                Ok(r)
            }
            Err(e) => {
                let cpu = CheckOptions {
                    backend: Backend::Cpu,
                    ..opts.clone()
                };
                let mut r =
                    check_with_progress(scene, &cpu, progress).map_err(|e| e.to_string())?;
                r.warnings
                    .push(format!("--backend gpu: {e}; ran on the CPU instead"));
                Ok(r)
            }
        };
    }
    check_with_progress(scene, opts, progress).map_err(|e| e.to_string())
}

/// Mesh files become objects named after the file (placed as in the file; a file of several
/// parts becomes one object per part, `file/part…`); scene files bring their objects. Names
/// must be unique; repeated mesh names get `#2`, `#3`, …. Units converted by `units`.
fn load_inputs(
    inputs: &[PathBuf],
    units: &UnitSettings,
) -> Result<(Scene, Vec<ReviewFile>), String> {
    let mut scene = Scene::new();
    let mut reviews = Vec::new();
    let mut stdin_read = false;
    for path in &folder_files(inputs)? {
        // `-`: standard input, a mesh (its format from its content) or a scene file (JSON
        // that is not glTF; its files relative to the current folder).
        let stdin = path.as_os_str() == "-";
        let bytes = if stdin {
            if std::mem::replace(&mut stdin_read, true) {
                return Err("- (standard input) is given twice".into());
            }
            let mut b = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut b)
                .map_err(|e| format!("cannot read standard input: {e}"))?;
            b
        } else {
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?
        };
        let is_scene = if stdin {
            let mesh = ldiclash::mesh::sniff(&bytes).is_some();
            let json = bytes.trim_ascii_start().starts_with(b"{");
            if !mesh && !json {
                return Err("standard input (-): neither a mesh (STL, OBJ, PLY, OFF, glTF/GLB, 3MF, told by its content) nor a scene file".into());
            }
            !mesh
        } else {
            path.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        };
        let path: &Path = if stdin { Path::new("stdin") } else { path };
        if is_scene {
            let file = SceneFile::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let sub = Scene::from_file_with(
                &file,
                |name| std::fs::read(base.join(name)).map_err(|e| e.to_string()),
                units,
            )
            .map_err(|e| format!("{}: {e}", path.display()))?;
            scene.append(sub);
            reviews.extend(file.review);
        } else {
            let name = path.display().to_string();
            let loaded =
                load_assembly(&name, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "mesh".into());
            let paths: Vec<&[String]> = loaded.parts.iter().map(|p| p.path.as_slice()).collect();
            let name = unique(&scene, &stem, |base| {
                part_names(base, None, &paths)
                    .into_iter()
                    .map(|(n, _)| n)
                    .collect()
            });
            scene
                .add_assembly(&name, None, &loaded, DMat4::IDENTITY, units)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok((scene, reviews))
}

/// The files `inputs` name: a file as it is; a folder's `scene.json` when it has one,
/// otherwise every mesh file directly in it (by extension, in name order).
fn folder_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in inputs {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let scene = path.join("scene.json");
        if scene.is_file() {
            files.push(scene);
            continue;
        }
        let entries = std::fs::read_dir(path)
            .map_err(|e| format!("cannot read the folder {}: {e}", path.display()))?;
        let mut meshes = Vec::new();
        for entry in entries {
            let p = entry
                .map_err(|e| format!("cannot read the folder {}: {e}", path.display()))?
                .path();
            let mesh = p
                .extension()
                .and_then(|e| e.to_str())
                .and_then(Format::from_extension)
                .is_some();
            if mesh && p.is_file() {
                meshes.push(p);
            }
        }
        if meshes.is_empty() {
            return Err(format!(
                "{}: the folder holds no scene.json and no mesh files ({}); name the files to check",
                path.display(),
                Format::ALL.map(|f| f.extension()).join(", ")
            ));
        }
        meshes.sort();
        files.extend(meshes);
    }
    Ok(files)
}

/// Fail early (before a long check) when `path` cannot be written.
fn writable(path: &Path, option: &str) -> Result<(), String> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(format!(
            "{option} {}: the folder {} does not exist",
            path.display(),
            dir.display()
        ));
    }
    Ok(())
}

/// The clashes of a previous review: a report (`--json` output) or a scene file with a
/// `review` section.
fn read_baseline(path: &Path) -> Result<Vec<ClashState>, String> {
    let bytes = std::fs::read(path)
        .map_err(|e| format!("--baseline: cannot read {}: {e}", path.display()))?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        format!(
            "--baseline {}: not JSON (line {}, column {}): {e}",
            path.display(),
            e.line(),
            e.column()
        )
    })?;
    if value.get("pairs").is_some() {
        let report: Report = serde_json::from_value(value)
            .map_err(|e| format!("--baseline {}: not an ldiclash report: {e}", path.display()))?;
        return Ok(clash_states(&report));
    }
    if value.get("objects").is_some() {
        let file =
            SceneFile::parse(&bytes).map_err(|e| format!("--baseline {}: {e}", path.display()))?;
        return Ok(file.review.map(|r| r.clashes).unwrap_or_default());
    }
    Err(format!(
        "--baseline {}: neither an ldiclash report (no \"pairs\") nor a scene file (no \"objects\")",
        path.display()
    ))
}

/// `--bcf`: the report's clashes as a BCF archive.
fn write_bcf(
    scene: &Scene,
    report: &Report,
    path: &Path,
    version: BcfVersion,
    snapshot_resolution: u32,
) -> Result<(), String> {
    let topics = ldiclash::review::bcf::topics(scene, report, snapshot_resolution)
        .map_err(|e| format!("--bcf: cannot draw a snapshot: {e}"))?;
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let header = ldiclash::review::bcf::Header {
        author: "ldiclash".into(),
        date: iso8601_utc(secs),
    };
    let bytes =
        ldiclash::review::bcf::write(&topics, &header, version).map_err(|e| e.to_string())?;
    std::fs::write(path, bytes).map_err(|e| format!("--bcf: cannot write {}: {e}", path.display()))
}

/// `--clearance`, `--min-depth`, `--epsilon`: a number in file units, or a number with a unit
/// (`--units`' names: `20mm`, `2 cm`, `5e-3m`, `0.8in`, `1ft`, `50um`) converted to the scene's
/// units (which every object must declare, and alike).
fn length_in_file_units(text: &str, scene: &Scene, option: &str) -> Result<f64, String> {
    let (value, unit) = ldiclash::mesh::parse_length_at_least(text, option == "--clearance")
        .map_err(|e| format!("{option} {text}: {e}"))?;
    let Some(unit) = unit else {
        return Ok(value);
    };
    let units: Vec<_> = scene.objects.iter().map(|o| o.units).collect();
    let Some(first) = units.first().copied() else {
        return Ok(value);
    };
    match unit.convert(value, first) {
        Some(v) if units.iter().all(|&u| u == first) => Ok(v),
        _ if units.iter().any(|&u| u != first) => Err(format!(
            "{option} {text}: the objects' files declare different units; give it in file units (a number without a unit), or convert them with --units"
        )),
        _ => Err(format!(
            "{option} {text}: the scene's files do not declare their units (STL, OBJ, PLY and OFF have none); give it in file units, e.g. {option} {value}, or name their unit with --units"
        )),
    }
}

/// The shared meshes the robot cell is made of, built into the binary.
fn robot_cell_file(path: &str) -> Result<Vec<u8>, String> {
    macro_rules! files {
        ($($p:literal),*) => {
            match path {
                $($p => Ok(include_bytes!(concat!("../../tests/data/", $p)).to_vec()),)*
                _ => Err(format!("{path} is not built in")),
            }
        };
    }
    files!(
        "kuka_folded/scene.json",
        "kuka_zero_pose/scene.json",
        "kuka_folded/meshes/link_0.stl",
        "kuka_folded/meshes/link_1.stl",
        "kuka_folded/meshes/link_2.stl",
        "kuka_folded/meshes/link_3.stl",
        "kuka_folded/meshes/link_4.stl",
        "kuka_folded/meshes/link_5.stl",
        "kuka_folded/meshes/link_6.stl",
        "kuka_folded/meshes/link_7.stl",
        "gripper_parts/meshes/GUIDE_WSG50_110.stl",
        "gripper_parts/meshes/WSG-FMF.stl",
        "bunny_pair/meshes/bunny.obj"
    )
}

/// `ldiclash hall`: write the generated hall's meshes (one STL per mesh) and scene file.
fn write_hall(cols: u32, rows: u32, seed: u64, cell: &str, out: &Path) -> Result<(), String> {
    use ldiclash::scene::hall::{gear_cell, robot_cell, Hall, HallDesc};
    if cols == 0 || rows == 0 || u64::from(cols) * u64::from(rows) > 10_000 {
        return Err(format!(
            "--cols {cols} --rows {rows}: use 1 to 10000 cells in all"
        ));
    }
    let template = match cell {
        "robot" => robot_cell(robot_cell_file).map_err(|e| e.to_string())?,
        "gears" => gear_cell(),
        _ => return Err(format!("unknown cell '{cell}': use robot or gears")),
    };
    let hall = Hall::new(HallDesc { cols, rows, seed }, &template);
    let meshes = out.join("meshes");
    std::fs::create_dir_all(&meshes)
        .map_err(|e| format!("cannot create {}: {e}", meshes.display()))?;
    for (name, mesh) in &hall.meshes {
        let path = meshes.join(format!("{name}.stl"));
        std::fs::write(&path, ldiclash::mesh::io::write_stl_binary(mesh))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    let mut file = hall.scene_file("meshes");
    // What the cells are modelled in (module docs of ldiclash::scene::hall).
    file.units = Some(if cell == "robot" { "m" } else { "mm" }.to_string());
    let json = serde_json::to_string(&file).map_err(|e| e.to_string())?;
    let path = out.join("scene.json");
    std::fs::write(&path, json).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!(
        "wrote {} ({} objects, {} triangles) and {} meshes",
        path.display(),
        hall.placements.len(),
        hall.triangle_count(),
        hall.meshes.len()
    );
    Ok(())
}

/// `name`, or `name#2`, `name#3`, …: the first base whose object names (`names(base)`)
/// are all free in `scene`.
fn unique(scene: &Scene, name: &str, names: impl Fn(&str) -> Vec<String>) -> String {
    let free = |base: &str| names(base).iter().all(|n| scene.find(n).is_none());
    if free(name) {
        return name.to_string();
    }
    (2..)
        .map(|k| format!("{name}#{k}"))
        .find(|n| free(n))
        .unwrap_or_else(|| name.to_string())
}

// The options of `ldiclash animate` (the variant's doc comment is its help).
#[derive(Args, Debug)]
struct AnimateArgs {
    /// box100, cloth, softbody, twist, spring, rigid, or scene/mesh files (animated with --deform).
    #[arg(required = true, value_name = "SCENE")]
    inputs: Vec<PathBuf>,
    /// Frames to run.
    #[arg(long, default_value_t = 60)]
    frames: u64,
    /// Deformation of every object of a scene or mesh file: twist, wobble or spring.
    #[arg(long)]
    deform: Option<String>,
    /// Deformation amplitude (twist: radians end to end; spring: compression 0..1; wobble:
    /// fraction of the object length; softbody: final plate gap in tube diameters).
    #[arg(long, allow_negative_numbers = true)]
    amplitude: Option<f32>,
    /// Simulation steps per frame.
    #[arg(long, default_value_t = 1)]
    speed: u32,
    /// Pixels along the longer side of each region's LDI (scene default when absent).
    #[arg(long)]
    resolution: Option<u32>,
    /// auto, volume, surface or self (scene default when absent).
    #[arg(long)]
    mode: Option<String>,
    /// Run the simulation loops without SIMD.
    #[arg(long)]
    scalar: bool,
    /// Print one JSON document (an array of per-frame reports) instead of a table.
    #[arg(long)]
    json: bool,
}

/// `ldiclash animate`: per-frame collision results and timings.
fn animate(a: AnimateArgs) -> Result<(), String> {
    use ldiclash::deform::Deformer;
    use ldiclash::sim::{AnimOptions, Animation, Kernel, SceneKind};
    if a.frames == 0 {
        return Err("--frames must be at least 1".into());
    }
    if a.speed == 0 {
        return Err("--speed must be at least 1 step per frame".into());
    }
    if let Some(amp) = a.amplitude {
        if !amp.is_finite() {
            return Err(format!("--amplitude {amp} must be a finite number"));
        }
    }
    let ramp = u32::try_from(a.frames.saturating_mul(u64::from(a.speed))).unwrap_or(u32::MAX);
    let options = AnimOptions {
        amplitude: a.amplitude,
        ramp_frames: ramp,
        kernel: if a.scalar {
            Kernel::Scalar
        } else {
            Kernel::default_for_build()
        },
        ..AnimOptions::default()
    };
    let first = a.inputs[0].to_string_lossy().into_owned();
    let builtin = a.inputs.len() == 1 && !a.inputs[0].exists();
    let mut anim = if builtin {
        let kind: SceneKind = first.parse().map_err(|e| format!("{e}"))?;
        if let Some(d) = &a.deform {
            return Err(format!(
                "--deform {d} applies to scene and mesh files; the built-in scene '{}' has its own motion",
                kind.name()
            ));
        }
        Animation::new(kind, options).map_err(|e| e.to_string())?
    } else {
        let Some(d) = &a.deform else {
            return Err(
                "a file scene needs --deform twist|wobble|spring to animate (or use a built-in scene: box100, cloth, softbody, twist, spring, rigid)"
                    .into(),
            );
        };
        let def = Deformer::from_name(d, a.amplitude.unwrap_or(default_amplitude(d)))
            .map_err(|e| e.to_string())?;
        let (scene, _) = load_inputs(&a.inputs, &UnitSettings::default())?;
        Animation::from_scene(&first, scene, def, options).map_err(|e| e.to_string())?
    };
    anim.set_speed(a.speed);
    let mut opts = anim.check_options().clone();
    if let Some(r) = a.resolution {
        opts.resolution = r;
    }
    if let Some(m) = &a.mode {
        opts.mode = m.parse::<Mode>()?;
        if !matches!(
            opts.mode,
            Mode::Auto | Mode::Volume | Mode::Surface | Mode::SelfOnly
        ) {
            return Err(format!(
                "--mode {m}: animate runs the LDI analyses only: use auto, volume, surface or self"
            ));
        }
    }
    let mut out = std::io::stdout().lock();
    let mut frames = Vec::new();
    if !a.json {
        let _ = writeln!(
            out,
            "ldiclash {} · animate {} · {} objects, {} triangles · mode {} · resolution {} · speed {}",
            ldiclash::VERSION,
            anim.name(),
            anim.scene().objects.len(),
            anim.scene().triangle_count(),
            opts.mode.name(),
            opts.resolution,
            anim.speed()
        );
        let _ = writeln!(
            out,
            "{:>6}  {:>9}  {:>9}  {:>10}  {:>5}  {:>12}  {:>10}  {:>12}  {:>7}",
            "frame",
            "sim ms",
            "check ms",
            "amplitude",
            "pairs",
            "pair volume",
            "max depth",
            "self volume",
            "pushed"
        );
    }
    for _ in 0..a.frames {
        let f = anim.advance(&opts).map_err(|e| e.to_string())?;
        if a.json {
            frames.push(f);
            continue;
        }
        let r = &f.report;
        let vol = r
            .pairs
            .iter()
            .filter_map(|p| p.volume)
            .fold(0.0, |a, v| a + v);
        let depth = r
            .pairs
            .iter()
            .filter_map(|p| p.depth)
            .fold(0.0f64, f64::max);
        let selfv = r.self_collisions.iter().fold(0.0, |a, s| a + s.volume);
        let _ = writeln!(
            out,
            "{:>6}  {:>9.2}  {:>9.2}  {:>10}  {:>5}  {:>12.6}  {:>10.5}  {:>12.6}  {:>7}",
            f.frame,
            f.sim_ms,
            f.collision_ms,
            f.amplitude
                .map(|x| format!("{x:.4}"))
                .unwrap_or_else(|| "-".into()),
            r.pairs.len(),
            vol,
            depth,
            selfv,
            f.response
                .map(|x| x.pushed.to_string())
                .unwrap_or_else(|| "-".into()),
        );
    }
    if a.json {
        let doc =
            serde_json::to_string(&frames).map_err(|e| format!("cannot write the report: {e}"))?;
        let _ = writeln!(out, "{doc}");
    }
    Ok(())
}

fn default_amplitude(deform: &str) -> f32 {
    match deform {
        "twist" => std::f32::consts::PI,
        "spring" => 0.7,
        _ => 0.05,
    }
}
