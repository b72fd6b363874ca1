//! GPU checks in a long-lived process (what a page or a planning tool on a real GPU sees, and
//! the CLI's one check per process does not): one GPU context opened once, then per round a
//! [`Checker`]'s whole check of the scene on the GPU, the scene's last part moved (as
//! `examples/recheck.rs` and `benches/page.mjs` move it), and its re-check on the GPU (only
//! what the move changed runs); beside them, in the same process on rayon's threads, the same
//! on the CPU.
//! `scripts/bench-gpu-checks.sh --recheck BIN` prints its table.
//!
//! Usage: `cargo run --release --example gpu_recheck -- SCENE.json [ROUNDS]`; prints one line
//! of JSON: `{"adapter", "gpu_init", "gpu_first", "gpu_check", "gpu_recheck", "cpu_check",
//! "cpu_recheck", "pairs", "pairs_after", "cpu_pairs", "cpu_pairs_after", "threads",
//! "gpu_phases"}`
//! (milliseconds: opening the device; the process's first GPU check; the median GPU check of
//! the rounds after the first; the median GPU re-check after the move; the CPU's median whole
//! check and re-check; ROUNDS rounds, default 5, each on the scene as the file places it;
//! `gpu_phases`: the last GPU re-check's `timings_ms` and its `gpu` block's pass times).
//! The first round also checks that both re-checks found what a whole check of the moved
//! scene finds.
//! Without a GPU adapter it exits with status 1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../benches/common/recheck_move.rs"]
mod recheck_move;
#[path = "../benches/common/scene_file.rs"]
mod scene_file;

use ldiclash::check::{check, CheckOptions, Checker};
use ldiclash::gpu::{block_on, GpuContext, GpuOptions};
use scene_file::{load, median};
use std::path::Path;
use std::time::Instant;

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: gpu_recheck SCENE.json [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args
        .next()
        .map_or(5, |r| r.parse().expect("ROUNDS: a number"))
        .max(2);
    let fail = |e: String| -> ! {
        eprintln!("gpu_recheck: {e}");
        std::process::exit(1);
    };
    let placed = load(Path::new(&path)).unwrap_or_else(|e| fail(e));
    let t = Instant::now();
    let ctx = block_on(GpuContext::new(GpuOptions::default()))
        .unwrap_or_else(|e| fail(format!("no GPU: {e}")));
    let gpu_init = ms(t);
    let opts = CheckOptions::default();
    let mut no_progress = |_: usize, _: usize, _: &str| {};
    let (mut first, mut checks, mut rechecks) = (f64::NAN, Vec::new(), Vec::new());
    let (mut cpu_checks, mut cpu_rechecks) = (Vec::new(), Vec::new());
    let (mut pairs, mut pairs_after, mut cpu_pairs, mut cpu_pairs_after) = (0, 0, 0, 0);
    let mut phases = serde_json::Value::Null;
    for round in 0..rounds {
        let mut scene = placed.clone();
        let mut gpu = Checker::new(opts.clone());
        let t = Instant::now();
        let r = gpu
            .check_on_gpu(&scene, &ctx, &mut no_progress)
            .unwrap_or_else(|e| fail(e.to_string()));
        if round == 0 {
            first = ms(t);
        } else {
            checks.push(ms(t));
        }
        pairs = r.pairs.len();
        // The CPU's whole check, and a checker that keeps what the move does not change.
        let mut checker = Checker::new(opts.clone());
        let t = Instant::now();
        cpu_pairs = checker
            .check(&scene)
            .unwrap_or_else(|e| fail(e.to_string()))
            .pairs
            .len();
        cpu_checks.push(ms(t));
        recheck_move::move_last_part(&mut scene).unwrap_or_else(|e| fail(e.to_string()));
        let t = Instant::now();
        let r = gpu
            .check_on_gpu(&scene, &ctx, &mut no_progress)
            .unwrap_or_else(|e| fail(e.to_string()));
        rechecks.push(ms(t));
        pairs_after = r.pairs.len();
        phases = serde_json::json!({
            "timings_ms": r.timings_ms,
            "gpu": r.gpu.as_ref().map(|g| &g.timings_ms),
        });
        let t = Instant::now();
        let again = checker
            .check(&scene)
            .unwrap_or_else(|e| fail(e.to_string()));
        cpu_rechecks.push(ms(t));
        cpu_pairs_after = again.pairs.len();
        // A whole check of the moved scene finds the pairs that both re-checks found.
        if round == 0 {
            let whole = check(&scene, &opts).unwrap_or_else(|e| fail(e.to_string()));
            if whole.pairs.len() != cpu_pairs_after || whole.pairs.len() != pairs_after {
                fail(format!(
                    "the re-checks found {cpu_pairs_after} (CPU) and {pairs_after} (GPU) \
                     pairs, a whole check {}",
                    whole.pairs.len()
                ));
            }
        }
    }
    println!(
        "{}",
        serde_json::json!({
            "adapter": ctx.adapter_name(),
            "gpu_init": gpu_init,
            "gpu_first": first,
            "gpu_check": median(checks),
            "gpu_recheck": median(rechecks),
            "cpu_check": median(cpu_checks),
            "cpu_recheck": median(cpu_rechecks),
            "pairs": pairs,
            "pairs_after": pairs_after,
            "cpu_pairs": cpu_pairs,
            "cpu_pairs_after": cpu_pairs_after,
            "threads": rayon::current_num_threads(),
            "gpu_phases": phases,
        })
    );
}
