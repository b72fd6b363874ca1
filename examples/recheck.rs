//! The native baseline of `benches/page.mjs` (issue 15 item 2): a scene's first check and its
//! re-check after one part moved, on one thread, as the page's check worker does them (a
//! [`Checker`] that keeps what the move did not change). The part is the scene's last object,
//! moved along x by 1% of its world box's largest side, as the page bench moves it.
//!
//! Usage: `cargo run --release --example recheck -- SCENE.json [ROUNDS] [MODE]` (MODE: the
//! check's `--mode`, default `auto`); prints one line of
//! JSON: `{"load", "check", "place", "recheck", "pairs", "pairs_after", "moved", "by"}` (milliseconds:
//! loading the scene file and its meshes, the first check, moving the part, the re-check;
//! medians of ROUNDS rounds, default 5; each round a fresh checker on the scene as the file
//! places it; `by`: how far the part moved, in scene units).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../benches/common/recheck_move.rs"]
mod recheck_move;
#[path = "../benches/common/scene_file.rs"]
mod scene_file;

use ldiclash::check::{CheckOptions, Checker, Mode};
use scene_file::{load, median};
use std::path::Path;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(scene) = args.next() else {
        eprintln!("usage: recheck SCENE.json [ROUNDS] [MODE]");
        std::process::exit(2);
    };
    let rounds: usize = args
        .next()
        .map_or(5, |r| r.parse().expect("ROUNDS: a number"));
    let mode: Mode = args
        .next()
        .map_or(Ok(Mode::Auto), |m| m.parse())
        .unwrap_or_else(|e| {
            eprintln!("recheck: {e}");
            std::process::exit(2);
        });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    let (mut loads, mut checks) = (Vec::new(), Vec::new());
    let (mut places, mut rechecks) = (Vec::new(), Vec::new());
    let (mut pairs, mut pairs_after, mut moved, mut by) = (0, 0, String::new(), 0.0);
    for _ in 0..rounds.max(1) {
        pool.install(|| {
            let t = Instant::now();
            let mut scene = load(Path::new(&scene)).unwrap_or_else(|e| {
                eprintln!("recheck: {e}");
                std::process::exit(1);
            });
            loads.push(t.elapsed().as_secs_f64() * 1e3);
            let mut checker = Checker::new(CheckOptions {
                mode,
                ..CheckOptions::default()
            });
            let t = Instant::now();
            pairs = checker.check(&scene).expect("check").pairs.len();
            checks.push(t.elapsed().as_secs_f64() * 1e3);
            let k = scene.objects.len() - 1;
            let t = Instant::now();
            by = recheck_move::move_last_part(&mut scene).expect("move");
            places.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            let again = checker.check(&scene).expect("re-check");
            rechecks.push(t.elapsed().as_secs_f64() * 1e3);
            pairs_after = again.pairs.len();
            if std::env::var_os("RECHECK_STATS").is_some() {
                eprintln!("{:?} {:?}", again.stats, again.timings_ms);
            }
            moved.clone_from(&scene.objects[k].name);
        });
    }
    println!(
        "{}",
        serde_json::json!({
            "load": median(loads),
            "check": median(checks),
            "place": median(places),
            "recheck": median(rechecks),
            "pairs": pairs,
            "pairs_after": pairs_after,
            "moved": moved,
            "by": by,
        })
    );
}
