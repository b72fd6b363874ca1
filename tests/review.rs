//! Clash review from the command line (issue 11): stable clash ids, statuses that follow
//! Navisworks' meanings across re-checks and moves (`--baseline`), ignore rules and the depth
//! tolerance (CLI and scene.json), and BCF export read back by an independent reader
//! (buildingSMART's XSD schemas and IfcOpenShell's `bcf-client`, tests/bcf/read_bcf.py).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use glam::Vec3;
use ldiclash::mesh::Mesh;
use ldiclash::report::{Kind, PairReport, Report};
use ldiclash::review::Status;

/// `scripts/test.sh` sets it: there the BCF reader must be present.
const REQUIRE_READER: &str = "LDICLASH_REQUIRE_BCF_READER";

fn cuboid(lo: Vec3, hi: Vec3) -> Mesh {
    let p = |x: bool, y: bool, z: bool| {
        Vec3::new(
            if x { hi.x } else { lo.x },
            if y { hi.y } else { lo.y },
            if z { hi.z } else { lo.z },
        )
    };
    let positions = vec![
        p(false, false, false),
        p(true, false, false),
        p(true, true, false),
        p(false, true, false),
        p(false, false, true),
        p(true, false, true),
        p(true, true, true),
        p(false, true, true),
    ];
    let triangles = vec![
        [0, 2, 1],
        [0, 3, 2],
        [4, 5, 6],
        [4, 6, 7],
        [0, 1, 5],
        [0, 5, 4],
        [1, 2, 6],
        [1, 6, 5],
        [2, 3, 7],
        [2, 7, 6],
        [3, 0, 4],
        [3, 4, 7],
    ];
    Mesh::new(positions, triangles)
}

struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Self {
        let d = std::env::temp_dir().join(format!("ldiclash-review-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        // One unit cube; objects place it.
        let m = cuboid(Vec3::ZERO, Vec3::ONE);
        std::fs::write(d.join("cube.stl"), ldiclash::mesh::io::write_stl_binary(&m)).unwrap();
        Dir(d)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
    /// A scene of unit cubes at `(name, group, x offset)`, with an optional review section.
    fn scene(&self, file: &str, cubes: &[(&str, Option<&str>, f64)], review: &str) -> PathBuf {
        let objects: Vec<String> = cubes
            .iter()
            .map(|(name, group, x)| {
                let group = group.map_or(String::new(), |g| format!(",\"group\":\"{g}\""));
                format!(
                    "{{\"name\":\"{name}\",\"file\":\"cube.stl\"{group},\"world_from_object\":[1,0,0,0,0,1,0,0,0,0,1,0,{x},0,0,1]}}"
                )
            })
            .collect();
        let review = if review.is_empty() {
            String::new()
        } else {
            format!(",\"review\":{review}")
        };
        let text = format!("{{\"objects\":[{}]{review}}}", objects.join(","));
        let path = self.path(file);
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ldiclash"))
        .arg("check")
        .args(args)
        .output()
        .unwrap()
}

fn report(args: &[&str]) -> (Report, String) {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    (serde_json::from_str(&text).unwrap(), text)
}

/// `check SCENE --clearance 0.05 --no-self --json [--baseline B] EXTRA…`.
fn clearance_check(scene: &Path, baseline: Option<&Path>, extra: &[&str]) -> (Report, String) {
    let mut args = vec![s(scene), "--clearance", "0.05", "--no-self", "--json"];
    if let Some(b) = baseline {
        args.extend(["--baseline", s(b)]);
    }
    args.extend(extra);
    report(&args)
}

fn pair<'a>(r: &'a Report, a: &str, b: &str) -> Option<&'a PairReport> {
    r.pairs
        .iter()
        .find(|p| (p.a == a && p.b == b) || (p.a == b && p.b == a))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A clash keeps its id and the planner's status through moves; one that goes away is
/// `resolved` (with its comment), one that comes back is `active`; a new class is a new clash.
#[test]
fn statuses_follow_navisworks_across_moves() {
    let d = Dir::new("statuses");
    // a at 0; b overlaps a by 0.2; c is 0.01 from a's other side… placed at -1.01.
    let first = d.scene(
        "first.json",
        &[("a", None, 0.0), ("b", None, 0.8), ("c", None, -1.01)],
        "",
    );
    let (r1, _) = clearance_check(&first, None, &[]);
    let ab = pair(&r1, "a", "b").expect("a and b overlap");
    assert_eq!(ab.kind, Kind::Volume);
    assert!((ab.volume.unwrap() - 0.2).abs() < 0.01, "{:?}", ab.volume);
    let ac = pair(&r1, "a", "c").expect("a and c are within the clearance");
    assert_eq!(ac.kind, Kind::Clearance);
    assert!(
        (ac.distance.unwrap() - 0.01).abs() < 1e-6,
        "{:?}",
        ac.distance
    );
    assert!(pair(&r1, "b", "c").is_none());
    for p in &r1.pairs {
        assert_eq!(p.status, Some(Status::New), "{}-{}", p.a, p.b);
    }
    let ab_id = ab.id.clone().unwrap();
    let ac_id = ac.id.clone().unwrap();
    assert_ne!(ab_id, ac_id);
    assert_eq!(r1.review.as_ref().unwrap().statuses.get("new"), Some(&2));

    // The planner reviews a–b with a comment and an assignee.
    let mut base = r1.clone();
    for p in &mut base.pairs {
        if p.id.as_deref() == Some(ab_id.as_str()) {
            p.status = Some(Status::Reviewed);
            p.comment = Some("weld seam, check with Anna".into());
            p.assignee = Some("anna@plant.example".into());
        }
    }
    let base1 = d.path("base1.json");
    std::fs::write(&base1, serde_json::to_string(&base).unwrap()).unwrap();

    // Same scene again: ids equal, a–b keeps `reviewed` and its comment, a–c becomes active.
    let (r2, _) = clearance_check(&first, Some(&base1), &[]);
    let ab2 = pair(&r2, "a", "b").unwrap();
    assert_eq!(ab2.id.as_deref(), Some(ab_id.as_str()));
    assert_eq!(ab2.status, Some(Status::Reviewed));
    assert_eq!(ab2.comment.as_deref(), Some("weld seam, check with Anna"));
    assert_eq!(ab2.assignee.as_deref(), Some("anna@plant.example"));
    assert_eq!(pair(&r2, "a", "c").unwrap().status, Some(Status::Active));
    assert!(r2.resolved.is_empty());

    // b moves away (a–b no longer occurs) and c moves into a (a–c is now a volume clash).
    let second = d.scene(
        "second.json",
        &[("a", None, 0.0), ("b", None, 3.0), ("c", None, -0.7)],
        "",
    );
    let base2 = d.path("base2.json");
    let (_, text) = clearance_check(&first, Some(&base1), &[]);
    std::fs::write(&base2, text).unwrap();
    let (r3, text3) = clearance_check(&second, Some(&base2), &[]);
    assert!(pair(&r3, "a", "b").is_none());
    let ac3 = pair(&r3, "a", "c").unwrap();
    assert_eq!(ac3.kind, Kind::Volume);
    assert_eq!(ac3.status, Some(Status::New), "a new class is a new clash");
    let resolved: Vec<_> = r3.resolved.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(resolved.len(), 2, "{resolved:?}");
    assert!(resolved.contains(&ab_id.as_str()) && resolved.contains(&ac_id.as_str()));
    let ab3 = r3.resolved.iter().find(|c| c.id == ab_id).unwrap();
    assert_eq!(ab3.status, Status::Resolved);
    assert_eq!(ab3.comment.as_deref(), Some("weld seam, check with Anna"));
    let st = &r3.review.as_ref().unwrap().statuses;
    assert_eq!((st.get("new"), st.get("resolved")), (Some(&1), Some(&2)));

    // b comes back: a resolved clash found again is active, and keeps its comment.
    let base3 = d.path("base3.json");
    std::fs::write(&base3, text3).unwrap();
    let (r4, _) = clearance_check(&first, Some(&base3), &[]);
    let ab4 = pair(&r4, "a", "b").unwrap();
    assert_eq!(ab4.status, Some(Status::Active));
    assert_eq!(ab4.comment.as_deref(), Some("weld seam, check with Anna"));
    // The a–c volume clash of r3 is resolved now; the a–c clearance one is back (active).
    assert_eq!(pair(&r4, "a", "c").unwrap().status, Some(Status::Active));
    assert!(r4.resolved.iter().any(|c| c.kind == Some(Kind::Volume)));
}

/// Ignore rules by group, by name patterns and by class, the depth tolerance, and statuses
/// saved in scene.json's review section.
#[test]
fn rules_from_the_command_line_and_the_scene_file() {
    let d = Dir::new("rules");
    // Cell r0: two parts of one robot overlapping by 0.1 (by design) and a fixture touching
    // nothing; a shelf overlapping the robot's base by 0.5.
    let cubes = [
        ("base", Some("r0/robot"), 0.0),
        ("arm", Some("r0/robot"), 0.9),
        ("shelf", Some("hall"), -0.5),
    ];
    let plain = d.scene("plain.json", &cubes, "");
    let (all, _) = report(&[s(&plain), "--no-self", "--json"]);
    assert!(pair(&all, "base", "arm").is_some());
    assert!(pair(&all, "base", "shelf").is_some());
    assert!(all.ignored.is_empty());
    // --ignore-within: parts of the robot.
    let (r, _) = report(&[
        s(&plain),
        "--no-self",
        "--json",
        "--ignore-within",
        "r0/robot",
    ]);
    assert!(pair(&r, "base", "arm").is_none());
    assert!(pair(&r, "base", "shelf").is_some());
    assert_eq!(r.ignored.len(), 1);
    assert_eq!(r.review.as_ref().unwrap().ignored, 1);
    // Patterns match every robot cell.
    let (r, _) = report(&[s(&plain), "--no-self", "--json", "--ignore-within", "r?/*"]);
    assert!(pair(&r, "base", "arm").is_none());
    let (r, _) = report(&[s(&plain), "--no-self", "--json", "--ignore-same-group"]);
    assert!(pair(&r, "base", "arm").is_none() && pair(&r, "base", "shelf").is_some());
    let (r, _) = report(&[
        s(&plain),
        "--no-self",
        "--json",
        "--ignore",
        "hall/*,*/base",
    ]);
    assert!(pair(&r, "base", "arm").is_some() && pair(&r, "base", "shelf").is_none());
    // --min-depth: the 0.1 overlap (separation 0.1) goes, the 0.5 one stays.
    // (All three axes, so the separation is the smallest over ±x, ±y, ±z.)
    let (r, _) = report(&[
        s(&plain),
        "--no-self",
        "--json",
        "--axes",
        "x,y,z",
        "--min-depth",
        "0.2",
    ]);
    assert!(pair(&r, "base", "arm").is_none(), "{:?}", r.pairs);
    let shelf = pair(&r, "base", "shelf").unwrap();
    assert!(shelf.separation.unwrap() > 0.45, "{:?}", shelf.separation);
    assert!(r.ignored[0].rule.starts_with("min_depth"));
    // The same rules and a saved status in scene.json.
    let id = pair(&all, "base", "shelf").unwrap().id.clone().unwrap();
    let review = format!(
        r#"{{"ignore":[{{"within":"r0/robot","reason":"robot joints"}}],"clashes":[{{"id":"{id}","a":"base","b":"shelf","status":"approved","comment":"shelf is cut out here"}}]}}"#
    );
    let saved = d.scene("saved.json", &cubes, &review);
    let (r, _) = report(&[s(&saved), "--no-self", "--json"]);
    assert!(pair(&r, "base", "arm").is_none());
    assert_eq!(r.ignored[0].rule, "ignore[0]: robot joints");
    let shelf = pair(&r, "base", "shelf").unwrap();
    assert_eq!(shelf.status, Some(Status::Approved));
    assert_eq!(shelf.comment.as_deref(), Some("shelf is cut out here"));
    // Bad rules and options are refused with a message (exit 2), never a panic.
    let bad = d.scene("bad.json", &cubes, r#"{"ignore":[{}]}"#);
    let out = run(&[s(&bad)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ignore rule 1"));
    let bad = d.scene(
        "bad2.json",
        &cubes,
        r#"{"ignore":[{"within":"x","colour":"red"}]}"#,
    );
    assert_eq!(run(&[s(&bad)]).status.code(), Some(2));
    for args in [
        vec!["--ignore", "no-comma"],
        vec!["--min-depth", "-1"],
        vec!["--min-depth", "deep"],
        vec!["--baseline", "/nonexistent/report.json"],
        vec!["--bcf", "/nonexistent/dir/out.bcfzip"],
        vec!["--bcf-version", "4.0"],
    ] {
        let mut a = vec![s(&plain)];
        a.extend(args.iter().copied());
        let out = run(&a);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    let not_json = d.path("not.json");
    std::fs::write(&not_json, "this is no report").unwrap();
    let out = run(&[s(&plain), "--baseline", s(&not_json)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not JSON"));
}

/// The Python that has the independent BCF reader, or `None` (a failure where required).
fn reader_python() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("LDICLASH_BCF_PYTHON").map(PathBuf::from),
        Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bcf-venv/bin/python")),
    ];
    let found = candidates.into_iter().flatten().find(|p| p.exists());
    if found.is_none() {
        if std::env::var(REQUIRE_READER).is_ok_and(|v| v == "1") {
            panic!(
                "{REQUIRE_READER}=1 but the BCF reader is missing: run scripts/setup.sh test \
                 (makes target/bcf-venv with bcf-client and xmlschema)"
            );
        }
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: no BCF reader (target/bcf-venv); scripts/setup.sh test installs it"
        );
    }
    found
}

fn read_bcf(python: &Path, file: &Path) -> serde_json::Value {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(python)
        .arg(root.join("tests/bcf/read_bcf.py"))
        .arg(file)
        .arg(root.join("tests/data/bcf/schemas"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the independent reader refused {}: {}{}",
        file.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `--bcf`: BCF 3.0 and 2.1 archives that buildingSMART's schemas accept and an independent
/// library reads back with the right topics, statuses, comments, components, cameras,
/// clipping boxes and snapshots.
#[test]
fn bcf_export_read_by_an_independent_reader() {
    let Some(python) = reader_python() else {
        return;
    };
    let d = Dir::new("bcf");
    let first = d.scene(
        "first.json",
        &[
            ("a", Some("cell/robot"), 0.0),
            ("b", Some("cell/robot"), 0.8),
            ("c", Some("hall"), -1.01),
        ],
        "",
    );
    let (r1, text) = clearance_check(&first, None, &[]);
    assert_eq!(r1.pairs.len(), 2);
    let mut base: Report = serde_json::from_str(&text).unwrap();
    let ab_id = pair(&base, "a", "b").unwrap().id.clone().unwrap();
    for p in &mut base.pairs {
        if p.id.as_deref() == Some(ab_id.as_str()) {
            p.status = Some(Status::Reviewed);
            p.comment = Some("seam <ok> & checked".into());
            p.assignee = Some("anna@plant.example".into());
        }
    }
    let base_path = d.path("base.json");
    std::fs::write(&base_path, serde_json::to_string(&base).unwrap()).unwrap();
    // c moves away: a–c (clearance) is resolved.
    let second = d.scene(
        "second.json",
        &[
            ("a", Some("cell/robot"), 0.0),
            ("b", Some("cell/robot"), 0.8),
            ("c", Some("hall"), -3.0),
        ],
        "",
    );
    for (version, file) in [("3.0", "out3.bcfzip"), ("2.1", "out21.bcfzip")] {
        let out_path = d.path(file);
        let (r, _) = clearance_check(
            &second,
            Some(&base_path),
            &["--bcf", s(&out_path), "--bcf-version", version],
        );
        assert_eq!((r.pairs.len(), r.resolved.len()), (1, 1));
        let read = read_bcf(&python, &out_path);
        assert_eq!(read["version"], version);
        // bcf.version, (extensions.xml), and a markup and a viewpoint per topic.
        let xml = read["xml_files_validated"].as_u64().unwrap();
        assert_eq!(xml, if version == "3.0" { 6 } else { 5 }, "{read}");
        let topics = read["topics"].as_array().unwrap();
        assert_eq!(topics.len(), 2, "{read}");
        let by_title = |t: &str| {
            topics
                .iter()
                .find(|x| x["title"].as_str().unwrap().starts_with(t))
                .unwrap_or_else(|| panic!("no topic {t}: {read}"))
        };
        let ab = by_title("a ↔ b: volume");
        assert_eq!(ab["status"], "Reviewed");
        assert_eq!(ab["type"], "Clash");
        assert_eq!(ab["assigned_to"], "anna@plant.example");
        assert_eq!(ab["comments"][0], "seam <ok> & checked");
        assert!(ab["description"].as_str().unwrap().contains(&ab_id));
        let ac = by_title("a ↔ c: clearance");
        assert_eq!(ac["status"], "Resolved");
        for t in [ab, ac] {
            let vp = &t["viewpoints"][0];
            let sel: Vec<&str> = vp["selection"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap())
                .collect();
            assert_eq!(sel.len(), 2);
            assert!(sel.contains(&"cell/robot/a"), "{sel:?}");
            assert_eq!(vp["default_visibility"], false);
            let unit = |k: &str| {
                let v: Vec<f64> = vp[k]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect();
                Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32)
            };
            let (dir, up) = (unit("camera_direction"), unit("camera_up"));
            assert!((dir.length() - 1.0).abs() < 1e-5 && (up.length() - 1.0).abs() < 1e-5);
            assert!(dir.dot(up).abs() < 1e-5);
            // Six planes around a box that holds a's and the other part's contact.
            let planes = vp["clipping_planes"].as_array().unwrap();
            assert_eq!(planes.len(), 6);
            let x_lo = planes[0]["location"][0].as_f64().unwrap();
            let x_hi = planes[1]["location"][0].as_f64().unwrap();
            assert!(x_lo < x_hi);
            assert!(vp["scale"].as_f64().unwrap() > 0.0);
            assert!(vp["snapshot_png_bytes"].as_u64().unwrap() > 1000);
        }
        // The a–b box is around the overlap x ∈ [0.8, 1].
        let planes = ab["viewpoints"][0]["clipping_planes"].as_array().unwrap();
        let (x_lo, x_hi) = (
            planes[0]["location"][0].as_f64().unwrap(),
            planes[1]["location"][0].as_f64().unwrap(),
        );
        assert!(
            x_lo <= 0.8 && x_hi >= 1.0 && x_lo > -0.5 && x_hi < 2.3,
            "{x_lo} {x_hi}"
        );
    }
    // The same clash keeps its topic GUID from one export to the next.
    let again = d.path("again.bcfzip");
    clearance_check(&second, Some(&base_path), &["--bcf", s(&again)]);
    let g = |f: &Path| {
        let mut v: Vec<String> = read_bcf(&python, f)["topics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["guid"].as_str().unwrap().to_string())
            .collect();
        v.sort();
        v
    };
    assert_eq!(g(&again), g(&d.path("out3.bcfzip")));
}

/// The snapshot shows the clash: red pixels where the two parts overlap, both parts in
/// their colours, and nothing drawn outside the clipping box.
#[test]
fn snapshot_shows_the_overlap() {
    let a = cuboid(Vec3::ZERO, Vec3::ONE);
    let b = cuboid(Vec3::new(0.8, 0.0, 0.0), Vec3::new(1.8, 1.0, 1.0));
    let far = cuboid(Vec3::new(10.0, 0.0, 0.0), Vec3::new(11.0, 1.0, 1.0));
    let scene = common::scene_of(vec![a, b, far]);
    let overlap = ldiclash::ldi::Region::new(Vec3::new(0.8, 0.0, 0.0), Vec3::new(1.0, 1.0, 1.0));
    let clip = ldiclash::review::snapshot::clash_box(&scene, 0, 1, Some(overlap)).unwrap();
    assert!(
        clip.min.x < 0.8 && clip.max.x > 1.0 && clip.max.x < 10.0,
        "{clip:?}"
    );
    let (img, cam) = ldiclash::review::snapshot::render(&scene, 0, 1, &clip, 200).unwrap();
    assert_eq!(img.rgba.len(), (img.width * img.height * 4) as usize);
    let count = |f: &dyn Fn(&[u8]) -> bool| img.rgba.chunks(4).filter(|p| f(p)).count();
    let red = count(&|p| p[0] > 200 && p[1] < 60 && p[2] < 60);
    // In u16: bright channels plus the margin overflow a u8.
    let c = |p: &[u8], k: usize| u16::from(p[k]);
    let blue = count(&|p| c(p, 2) > c(p, 0) + 40 && c(p, 2) > c(p, 1) + 20);
    let green = count(&|p| c(p, 1) > c(p, 0) + 40 && c(p, 1) > c(p, 2) + 20);
    let total = (img.width * img.height) as usize;
    assert!(red > total / 100, "red {red} of {total}");
    assert!(
        blue > total / 100 && green > total / 100,
        "blue {blue} green {green}"
    );
    assert!((cam.direction.length() - 1.0).abs() < 1e-9);
    let pixel = f64::from(clip.size().max_element()) / 200.0;
    assert!((cam.view_to_world_scale - f64::from(img.height) * pixel).abs() < 1e-9);
}

/// A session saved by the page (meshes embedded as data: URIs, `settings`, `review`) is a
/// scene file for the CLI: the meshes load, the page's statuses are the baseline.
#[test]
fn a_saved_session_with_embedded_meshes_is_read_by_the_cli() {
    let d = Dir::new("session");
    let m = cuboid(Vec3::ZERO, Vec3::ONE);
    let mut obj = String::new();
    for p in &m.positions {
        obj.push_str(&format!("v {} {} {}\n", p.x, p.y, p.z));
    }
    for t in m.triangles.iter() {
        obj.push_str(&format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1));
    }
    let uri = ldiclash::scene::embed_mesh("model/obj", obj.as_bytes());
    let ab = ldiclash::review::clash_id("a", "b", Kind::Volume);
    let gone = ldiclash::review::clash_id("a", "z", Kind::Volume);
    let place = |x: f64| format!("[1,0,0,0,0,1,0,0,0,0,1,0,{x},0,0,1]");
    let session = serde_json::json!({
        "units": "mm",
        "objects": [
            {"name": "a", "file": uri, "world_from_object": serde_json::from_str::<serde_json::Value>(&place(0.0)).unwrap()},
            {"name": "b", "file": uri, "world_from_object": serde_json::from_str::<serde_json::Value>(&place(0.75)).unwrap()},
        ],
        "settings": {"mode": "auto", "resolution": 256, "epsilon": null, "clearance": 0.05, "self_check": false},
        "review": {"clashes": [
            {"id": ab, "a": "a", "b": "b", "kind": "volume", "status": "reviewed", "assignee": "Ana", "comment": "by design"},
            {"id": gone, "a": "a", "b": "z", "kind": "volume", "status": "approved", "comment": "z was removed"},
        ]},
    });
    let path = d.path("session.json");
    std::fs::write(&path, session.to_string()).unwrap();
    let (r, _) = report(&[s(&path), "--no-self", "--json"]);
    assert_eq!(r.objects.len(), 2);
    let p = pair(&r, "a", "b").expect("a and b overlap");
    assert_eq!(p.id.as_deref(), Some(ab.as_str()));
    assert!((p.volume.unwrap() - 0.25).abs() < 0.01, "{:?}", p.volume);
    assert_eq!(p.status, Some(Status::Reviewed));
    assert_eq!(p.comment.as_deref(), Some("by design"));
    assert_eq!(p.assignee.as_deref(), Some("Ana"));
    assert_eq!(r.resolved.len(), 1);
    assert_eq!(r.resolved[0].id, gone);
    assert_eq!(r.resolved[0].status, Status::Resolved);
    assert_eq!(r.resolved[0].comment.as_deref(), Some("z was removed"));

    // A broken embedded mesh is a clear error, not a panic.
    let bad = session
        .to_string()
        .replace("data:model/obj;base64,", "data:model/obj;base64,*");
    let broken = d.path("broken.json");
    std::fs::write(&broken, bad).unwrap();
    let out = run(&[s(&broken), "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("base64") && err.contains("data:model/obj…"),
        "{err}"
    );
}
