//! The check worker's engine in WebAssembly against the same code natively (issue 15 item 2),
//! without the page: the shared scenes loaded (scene file and meshes parsed, the scene
//! built), a [`Checker`]'s first check with its report as JSON (what the worker hands the
//! page), and its re-check after the scene's last part moved along x by 1% of its world
//! box's largest side — what `examples/recheck.rs` times natively and the worker does in the
//! page (`web/clash-worker.js`: `load`, then `check_report` per check).
//!
//! In wasm (wasm-bindgen-test-runner under Node.js, the same V8 as Chromium's workers):
//!
//! ```text
//! cargo bench --target wasm32-unknown-unknown --no-default-features --features stl,obj \
//!     --bench worker_engine -- --nocapture
//! ```
//!
//! first runs the worker's warm-up as the page's worker does while idle (`warm_up_round`, up
//! to 12 rounds or 600 ms: `WARM_ROUNDS` and `WARM_MS` of `web/clash-worker.js`), printing
//! `worker_engine_warm rounds N ms M`, then one line per scene, medians of 15 rounds after 3
//! unmeasured ones, and the scene's first round (the first check of a scene of that kind in
//! the warmed module, as a page's first check of a dropped scene), milliseconds:
//! `worker_engine SCENE load L check C recheck R pairs P first L1 C1 R1`.
//! `scripts/bench-worker.sh` runs it beside `examples/recheck.rs` (the native counterpart, one
//! thread) and prints the table in README. Natively this bench has nothing to run (it is the
//! wasm build's).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(target_arch = "wasm32")]
#[path = "common/recheck_move.rs"]
mod recheck_move;

#[cfg(target_arch = "wasm32")]
mod wasm {
    use super::recheck_move;
    use ldiclash::check::{CheckOptions, Checker};
    use ldiclash::scene::{Scene, SceneFile};
    use wasm_bindgen_test::{console_log, wasm_bindgen_bench, Criterion};

    const WARM: usize = 3;
    const ROUNDS: usize = 15;

    /// Node's `performance.now()` (milliseconds).
    fn now() -> f64 {
        let global = js_sys::global();
        js_sys::Reflect::get(&global, &"performance".into())
            .ok()
            .and_then(|p| {
                let f: js_sys::Function = js_sys::Reflect::get(&p, &"now".into()).ok()?.into();
                f.call0(&p).ok()?.as_f64()
            })
            .expect("performance.now()")
    }

    fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }

    macro_rules! files {
        ($dir:literal: $($f:literal),*) => {
            [$(($f, &include_bytes!(concat!("../tests/data/", $dir, "/", $f))[..])),*]
        };
    }

    fn run(name: &str, files: &[(&str, &[u8])]) {
        let (mut loads, mut checks, mut rechecks) = (Vec::new(), Vec::new(), Vec::new());
        let mut pairs = 0;
        let mut first = [0.0; 3];
        for round in 0..WARM + ROUNDS {
            let t = now();
            let file = SceneFile::parse(files[0].1).expect("scene file");
            let mut scene = Scene::from_file(&file, |n| {
                files
                    .iter()
                    .find(|f| f.0 == n)
                    .map(|f| f.1.to_vec())
                    .ok_or_else(|| format!("{n}: not in the bench"))
            })
            .expect("scene");
            let load = now() - t;
            let mut checker = Checker::new(CheckOptions::default());
            let t = now();
            let report = checker.check(&scene).expect("check");
            let json = serde_json::to_string(&report).expect("report JSON");
            let check = now() - t;
            pairs = report.pairs.len();
            recheck_move::move_last_part(&mut scene).expect("move");
            let t = now();
            let again = checker.check(&scene).expect("re-check");
            let json_again = serde_json::to_string(&again).expect("report JSON");
            let recheck = now() - t;
            assert!(!json.is_empty() && !json_again.is_empty());
            if round == 0 {
                first = [load, check, recheck];
            }
            if round >= WARM {
                loads.push(load);
                checks.push(check);
                rechecks.push(recheck);
            }
        }
        console_log!(
            "worker_engine {name} load {:.3} check {:.3} recheck {:.3} pairs {pairs} first {:.3} {:.3} {:.3}",
            median(loads),
            median(checks),
            median(rechecks),
            first[0],
            first[1],
            first[2]
        );
    }

    /// Rounds of its own (medians of fresh checkers on freshly loaded scenes, as the page's
    /// bench takes them), not Criterion's iterations.
    #[wasm_bindgen_bench]
    fn shared_scenes(_: &mut Criterion) {
        // The worker's warm-up (web/clash-worker.js: WARM_ROUNDS, WARM_MS), before any scene.
        let (mut rounds, mut ms) = (0, 0.0);
        while rounds < 12 && ms < 600.0 {
            let t = now();
            ldiclash::web_api::warm_up_round()
                .map_err(|_| "the warm-up round failed")
                .unwrap();
            ms += now() - t;
            rounds += 1;
        }
        console_log!("worker_engine_warm rounds {rounds} ms {ms:.1}");
        run(
            "bunny_pair",
            &files!("bunny_pair": "scene.json", "meshes/bunny.obj"),
        );
        run(
            "gripper_parts",
            &files!("gripper_parts": "scene.json", "meshes/GUIDE_WSG50_110.stl", "meshes/WSG-FMF.stl"),
        );
        run(
            "kuka_folded",
            &files!("kuka_folded": "scene.json", "meshes/link_0.stl", "meshes/link_1.stl", "meshes/link_2.stl", "meshes/link_3.stl", "meshes/link_4.stl", "meshes/link_5.stl", "meshes/link_6.stl", "meshes/link_7.stl"),
        );
        run(
            "kuka_zero_pose",
            &files!("kuka_zero_pose": "scene.json", "meshes/link_0.stl", "meshes/link_1.stl", "meshes/link_2.stl", "meshes/link_3.stl", "meshes/link_4.stl", "meshes/link_5.stl", "meshes/link_6.stl", "meshes/link_7.stl"),
        );
    }
}
