//! `ldiclash`: the native command-line checker.
//!
//! `ldiclash check INPUT... [--resolution N] [--axes x,y,z|auto] [--mode auto|volume|surface|self|exact|cullide|convex]
//! [--epsilon E] [--no-self] [--backend cpu|gpu] [--ldi fraglist|peel] [--json]` — INPUT is mesh
//! files (placed as in the file) or scene files
//! (`*.json`, the format of `shared/data/*/scene.json`). Exit code 0 when the check ran
//! (collisions or not), 2 with a message on stderr for bad input.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use glam::DMat4;
use ldiclash::collide::{check_with_progress, Axes, Backend, CheckOptions, Mode, Progress};
use ldiclash::mesh::load_mesh;
use ldiclash::report::Report;
use ldiclash::scene::{Scene, SceneFile};

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

#[derive(Subcommand, Debug)]
enum Command {
    /// Check meshes or scene files for collisions.
    Check {
        /// Mesh files (STL, OBJ, PLY, OFF, glTF/GLB, 3MF) or scene files (.json).
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
        /// Contact tolerance in file units (default: one pixel of each region).
        #[arg(long, allow_negative_numbers = true)]
        epsilon: Option<f64>,
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
    },
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
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
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
    } = cli.command;
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
        epsilon,
        self_check: !no_self,
        backend,
    };
    let t0 = ldiclash::clock::now_ms();
    let scene = load_inputs(&inputs)?;
    let load_ms = ldiclash::clock::now_ms() - t0;
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
    report.timings_ms.insert("load".into(), load_ms);
    let out = if json {
        report.to_json() + "\n"
    } else {
        report.to_table()
    };
    std::io::stdout()
        .write_all(out.as_bytes())
        .map_err(|e| format!("cannot write the report: {e}"))
}

/// The check on the chosen backend; without a GPU adapter the GPU backend falls back to the
/// CPU with a warning in the report.
fn run_check(scene: &Scene, opts: &CheckOptions, progress: Progress<'_>) -> Result<Report, String> {
    #[cfg(all(feature = "gpu", not(target_arch = "wasm32")))]
    if let Backend::Gpu { .. } = opts.backend {
        use ldiclash::gpu::{block_on, GpuContext, GpuOptions};
        return match block_on(GpuContext::new(GpuOptions::default())) {
            Ok(ctx) => ldiclash::collide::check_on_gpu(scene, opts, &ctx, progress)
                .map_err(|e| e.to_string()),
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

/// Mesh files become objects named after the file (placed as in the file); scene files bring
/// their objects. Names must be unique; repeated mesh names get `#2`, `#3`, ….
fn load_inputs(inputs: &[PathBuf]) -> Result<Scene, String> {
    let mut scene = Scene::new();
    for path in inputs {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let is_scene = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if is_scene {
            let file = SceneFile::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let sub = Scene::from_file(&file, |name| {
                std::fs::read(base.join(name)).map_err(|e| e.to_string())
            })
            .map_err(|e| format!("{}: {e}", path.display()))?;
            for o in sub.objects {
                let name = unique(&scene, &o.name);
                scene
                    .add(&name, o.mesh.clone(), o.units, *o.world_from_object())
                    .map_err(|e| e.to_string())?;
            }
        } else {
            let name = path.display().to_string();
            let loaded =
                load_mesh(&name, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "mesh".into());
            let name = unique(&scene, &stem);
            scene
                .add(&name, Arc::new(loaded.mesh), loaded.units, DMat4::IDENTITY)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(scene)
}

fn unique(scene: &Scene, name: &str) -> String {
    if scene.find(name).is_none() {
        return name.to_string();
    }
    (2..)
        .map(|k| format!("{name}#{k}"))
        .find(|n| scene.find(n).is_none())
        .unwrap_or_else(|| name.to_string())
}
