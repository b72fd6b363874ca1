//! The command-line contract: exit codes, stderr messages, `--json` shape, the table.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::{Command, Output};

use common::data;

fn ldiclash(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ldiclash"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run ldiclash: {e}"))
}

fn tmp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ldiclash-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap_or_else(|e| panic!("{e}"));
    p
}

#[test]
fn json_has_the_documented_schema() {
    let scene = data("gripper_parts/scene.json");
    let out = ldiclash(&["check", scene.to_str().unwrap_or(""), "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    for key in ["objects", "pairs", "self", "timings_ms"] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    for o in v["objects"].as_array().into_iter().flatten() {
        assert!(
            o["name"].is_string()
                && o["triangles"].as_u64().unwrap_or(0) > 0
                && o["closed"].is_boolean()
        );
    }
    let p = &v["pairs"][0];
    for key in ["a", "b", "kind", "volume", "depth", "pixels"] {
        assert!(p.get(key).is_some(), "pair misses {key}");
    }
    assert!(v["timings_ms"]["total"].as_f64().unwrap_or(-1.0) >= 0.0);
    assert!(v["timings_ms"]["load"].as_f64().unwrap_or(-1.0) >= 0.0);
}

/// `threads` says how many threads the CPU check ran on (issue 15: the page's worker fills it
/// in too): rayon's pool, which RAYON_NUM_THREADS sets; the same pairs and volumes on 1 and 3.
#[test]
fn json_says_how_many_threads_checked() {
    let scene = data("kuka_folded/scene.json");
    let run = |threads: &str| -> serde_json::Value {
        let out = Command::new(env!("CARGO_BIN_EXE_ldiclash"))
            .args(["check", scene.to_str().unwrap_or(""), "--json"])
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .unwrap_or_else(|e| panic!("cannot run ldiclash: {e}"));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"))
    };
    let (one, three) = (run("1"), run("3"));
    assert_eq!(one["threads"], 1);
    assert_eq!(three["threads"], 3);
    assert!(one["pairs"].as_array().is_some_and(|p| !p.is_empty()));
    assert_eq!(one["pairs"], three["pairs"]);
    assert_eq!(one["self"], three["self"]);
}

#[test]
fn mesh_files_are_objects_named_after_the_file() {
    let a = data("gripper_parts/meshes/GUIDE_WSG50_110.stl");
    let b = data("gripper_parts/meshes/WSG-FMF.stl");
    let out = ldiclash(&[
        "check",
        a.to_str().unwrap_or(""),
        b.to_str().unwrap_or(""),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v["objects"][0]["name"], "GUIDE_WSG50_110");
    assert_eq!(v["objects"][1]["name"], "WSG-FMF");
    assert_eq!(v["pairs"][0]["kind"], "volume");
    // The same file twice gets a unique second name and collides with itself fully.
    let out = ldiclash(&[
        "check",
        a.to_str().unwrap_or(""),
        a.to_str().unwrap_or(""),
        "--json",
    ]);
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v["objects"][1]["name"], "GUIDE_WSG50_110#2");
}

/// A folder stands for its scene.json, or else for every mesh file in it (in name order):
/// the same report as naming the files; a folder with neither is refused with the formats.
#[test]
fn a_folder_is_its_scene_file_or_its_mesh_files() {
    let json = |args: &[&str]| -> serde_json::Value {
        let out = ldiclash(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"))
    };
    let s = |p: &std::path::Path| p.to_str().unwrap_or("").to_string();
    let findings =
        |v: &serde_json::Value| (v["objects"].clone(), v["pairs"].clone(), v["self"].clone());
    let scene = data("gripper_parts");
    assert_eq!(
        findings(&json(&["check", &s(&scene), "--json"])),
        findings(&json(&["check", &s(&scene.join("scene.json")), "--json"]))
    );
    let meshes = data("gripper_parts/meshes");
    let by_folder = json(&["check", &s(&meshes), "--json"]);
    let by_files = json(&[
        "check",
        &s(&meshes.join("GUIDE_WSG50_110.stl")),
        &s(&meshes.join("WSG-FMF.stl")),
        "--json",
    ]);
    assert_eq!(findings(&by_folder), findings(&by_files));
    assert_eq!(by_folder["objects"][1]["name"], "WSG-FMF");
    assert_eq!(by_folder["pairs"][0]["kind"], "volume");
    // A folder of other files: refused, naming the folder and the formats.
    let notes = tmp("placeholder", b"").with_file_name("notes");
    std::fs::create_dir_all(&notes).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(notes.join("readme.txt"), b"not a mesh").unwrap_or_else(|e| panic!("{e}"));
    let dir = s(&notes);
    let out = ldiclash(&["check", &dir]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains(&dir)
            && err.contains("no scene.json and no mesh files")
            && err.contains("stl"),
        "{err}"
    );
}

/// `--fail-on` turns the clashes found into exit code 1 (the report still written), for
/// scripts: any clash; new ones against the baseline; ones not approved. Without it, 0.
#[test]
fn fail_on_sets_the_exit_code_by_the_clashes_found() {
    let scene = data("gripper_parts/scene.json");
    let scene = scene.to_str().unwrap_or("");
    let code = |extra: &[&str]| -> (i32, serde_json::Value) {
        let mut args = vec!["check", scene, "--json"];
        args.extend_from_slice(extra);
        let out = ldiclash(&args);
        let v = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{extra:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        (out.status.code().unwrap_or(-1), v)
    };
    // The gripper's two parts collide, and the FMF part overlaps itself.
    let (plain, first) = code(&[]);
    assert_eq!(plain, 0);
    assert_eq!(first["pairs"].as_array().map(Vec::len), Some(1));
    for which in ["any", "new", "unapproved", "ANY"] {
        let (c, v) = code(&["--fail-on", which]);
        assert_eq!(c, 1, "--fail-on {which}");
        assert_eq!(
            v["pairs"], first["pairs"],
            "the report is written all the same"
        );
    }
    // Against a baseline that has the clash: active, so not new but not approved.
    let mut base = first.clone();
    let baseline = tmp("fail-on-baseline.json", base.to_string().as_bytes());
    let baseline = baseline.to_str().unwrap_or("");
    assert_eq!(code(&["--baseline", baseline, "--fail-on", "new"]).0, 0);
    assert_eq!(
        code(&["--baseline", baseline, "--fail-on", "unapproved"]).0,
        1
    );
    // Approved in the baseline: only the self-collision is left, which `any` counts.
    base["pairs"][0]["status"] = "approved".into();
    let approved = tmp("fail-on-approved.json", base.to_string().as_bytes());
    let approved = approved.to_str().unwrap_or("");
    let (c, v) = code(&["--baseline", approved, "--fail-on", "unapproved"]);
    assert_eq!((c, v["pairs"][0]["status"].as_str()), (0, Some("approved")));
    assert_eq!(code(&["--baseline", approved, "--fail-on", "any"]).0, 1);
    // Ignored by a rule and the self-collision skipped: nothing left, 0 under every kind.
    for which in ["any", "new", "unapproved"] {
        let (c, v) = code(&["--ignore", "*,*", "--no-self", "--fail-on", which]);
        assert_eq!(c, 0, "--fail-on {which} with every pair ignored: {v}");
    }
}

/// `-` reads standard input: a mesh told by its content (named `stdin`) or a scene file
/// (its files relative to the current folder); once only; other bytes are refused.
#[test]
fn a_dash_reads_standard_input() {
    use std::io::Write as _;
    let run = |args: &[&str], input: &[u8], dir: &std::path::Path| -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ldiclash"))
            .args(args)
            .current_dir(dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run ldiclash: {e}"));
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input).unwrap_or_else(|e| panic!("{e}"));
        drop(stdin);
        child.wait_with_output().unwrap_or_else(|e| panic!("{e}"))
    };
    let json = |out: &Output| -> serde_json::Value {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"))
    };
    let dir = data("gripper_parts");
    let guide = std::fs::read(dir.join("meshes/GUIDE_WSG50_110.stl")).unwrap();
    let v = json(&run(
        &["check", "-", "meshes/WSG-FMF.stl", "--json"],
        &guide,
        &dir,
    ));
    assert_eq!(v["objects"][0]["name"], "stdin");
    assert_eq!(v["pairs"][0]["kind"], "volume");
    let scene = std::fs::read(dir.join("scene.json")).unwrap();
    let from_stdin = json(&run(&["check", "-", "--json"], &scene, &dir));
    let from_file = json(&run(&["check", "scene.json", "--json"], &[], &dir));
    assert_eq!(from_stdin["pairs"], from_file["pairs"]);
    for (args, input, words) in [
        (&["check", "-", "-"][..], &scene[..], "given twice"),
        (&["check", "-"][..], &b"hello\n"[..], "neither a mesh"),
    ] {
        let out = run(args, input, &dir);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(err.contains(words), "{args:?}: {err}");
    }
}

#[test]
fn no_self_skips_the_self_collision_check() {
    let scene = data("gripper_parts/scene.json");
    let run = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["check", scene.to_str().unwrap_or(""), "--json"];
        args.extend_from_slice(extra);
        serde_json::from_slice(&ldiclash(&args).stdout).unwrap_or_else(|e| panic!("{e}"))
    };
    let with = run(&[]);
    let without = run(&["--no-self"]);
    assert_eq!(
        with["self"].as_array().map(Vec::len),
        Some(1),
        "the FMF part overlaps itself"
    );
    assert_eq!(without["self"].as_array().map(Vec::len), Some(0));
    assert_eq!(with["pairs"], without["pairs"]);
    assert_eq!(without["stats"]["ldis"], 1);
}

#[test]
fn table_output_is_readable() {
    let scene = data("bunny_pair/scene.json");
    let out = ldiclash(&["check", scene.to_str().unwrap_or("")]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Colliding pairs (1)"), "{text}");
    assert!(text.contains("bunny_a") && text.contains("volume"));
}

#[test]
fn bad_input_exits_non_zero_with_a_message() {
    let garbage = tmp(
        "garbage.stl",
        b"solid x\n facet normal 0 0 1\n  outer loop\n   vertex 1 2\n",
    );
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["check".into(), "/no/such/file.stl".into()],
            "cannot read",
        ),
        (vec!["check".into(), garbage.display().to_string()], "STL"),
        (
            vec![
                "check".into(),
                data("bunny_pair/scene.json").display().to_string(),
                "--mode".into(),
                "fast".into(),
            ],
            "unknown mode",
        ),
        (
            vec![
                "check".into(),
                data("bunny_pair/scene.json").display().to_string(),
                "--axes".into(),
                "w".into(),
            ],
            "unknown axis",
        ),
        (
            vec![
                "check".into(),
                data("bunny_pair/scene.json").display().to_string(),
                "--fail-on".into(),
                "clash".into(),
            ],
            "use any, new or unapproved",
        ),
        (
            vec![
                "check".into(),
                data("bunny_pair/scene.json").display().to_string(),
                "--resolution".into(),
                "0".into(),
            ],
            "resolution",
        ),
        (
            vec![
                "check".into(),
                data("bunny_pair/scene.json").display().to_string(),
                "--epsilon".into(),
                "-1".into(),
            ],
            "epsilon",
        ),
        (
            vec![
                "check".into(),
                tmp("bad.json", b"{\"objects\": [").display().to_string(),
            ],
            "scene file",
        ),
        (
            vec![
                "check".into(),
                tmp(
                    "missing.json",
                    br#"{"objects":[{"name":"a","file":"nope.stl"}]}"#,
                )
                .display()
                .to_string(),
            ],
            "nope.stl",
        ),
        (
            vec![
                "check".into(),
                tmp(
                    "unnamed.json",
                    br#"{"objects":[{"name":"a","file":"a.stl"},{"name":" ","file":"b.stl"}]}"#,
                )
                .display()
                .to_string(),
            ],
            "objects[1] ('b.stl') has an empty \"name\"",
        ),
        (
            vec![
                "check".into(),
                tmp("nameless.json", br#"{"objects":[{"file":"a.stl"}]}"#)
                    .display()
                    .to_string(),
            ],
            "missing field `name` (line 1, column 28)",
        ),
        (
            vec![
                "check".into(),
                data("step/box_and_pin.step").display().to_string(),
            ],
            "is a STEP file: the command line reads meshes",
        ),
        (vec!["check".into()], "INPUT"),
    ];
    for (args, needle) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = ldiclash(&args);
        assert!(!out.status.success(), "{args:?} should fail");
        assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(needle),
            "{args:?}: stderr {err:?} lacks {needle:?}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn version_flag() {
    let out = ldiclash(&["--version"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(env!("CARGO_PKG_VERSION")));
}
