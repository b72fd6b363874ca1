//! Mesh import and validation, through the public API only (`ldiclash::mesh::*`).
//!
//! Fixtures: a unit cube written in every format by the helpers below (so every importer is
//! checked for 12 triangles, 8 welded vertices, closed, outward, volume 1), transformed
//! variants (glTF node and 3MF build transforms, mirrors), the real meshes in `tests/data/`
//! against their reference answers, and malformed inputs for every format (empty, every
//! truncation, wrong and huge counts, NaN coordinates, garbage): each must give an `Err`
//! naming the format (or load and report NaN), never a panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ldiclash::mesh::{load_mesh, sniff, validate, Format, LoadedMesh, MeshLoadError, Units};

// ---------------------------------------------------------------------------------------
// The unit cube in every format.

/// Corner `i` has x = bit 0, y = bit 1, z = bit 2.
fn corners() -> Vec<[f32; 3]> {
    (0..8)
        .map(|i| [(i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32])
        .collect()
}

/// Outward, counter-clockwise quads.
const QUADS: [[u32; 4]; 6] = [
    [0, 2, 3, 1],
    [4, 5, 7, 6],
    [0, 1, 5, 4],
    [2, 6, 7, 3],
    [0, 4, 6, 2],
    [1, 3, 7, 5],
];

fn triangles() -> Vec<[u32; 3]> {
    QUADS
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect()
}

fn stl_binary(header: &[u8]) -> Vec<u8> {
    let c = corners();
    let mut b = vec![b' '; 80];
    b[..header.len()].copy_from_slice(header);
    b.extend_from_slice(&12u32.to_le_bytes());
    for t in triangles() {
        b.extend_from_slice(&[0u8; 12]);
        for i in t {
            for v in c[i as usize] {
                b.extend_from_slice(&v.to_le_bytes());
            }
        }
        b.extend_from_slice(&[0, 0]);
    }
    b
}

fn stl_ascii() -> String {
    let c = corners();
    let mut s = String::from("solid cube\n");
    for t in triangles() {
        s.push_str("  facet normal 0 0 0\n    outer loop\n");
        for i in t {
            let p = c[i as usize];
            s.push_str(&format!("      vertex {} {} {}\n", p[0], p[1], p[2]));
        }
        s.push_str("    endloop\n  endfacet\n");
    }
    s.push_str("endsolid cube\n");
    s
}

fn obj() -> String {
    let mut s = String::from("# unit cube\nmtllib cube.mtl\no cube\n");
    for p in corners() {
        s.push_str(&format!("v {} {} {}\n", p[0], p[1], p[2]));
    }
    s.push_str("usemtl grey\n");
    for (k, q) in QUADS.iter().enumerate() {
        if k == 3 {
            s.push_str("g second_half\n");
        }
        s.push_str(&format!(
            "f {} {} {} {}\n",
            q[0] + 1,
            q[1] + 1,
            q[2] + 1,
            q[3] + 1
        ));
    }
    s
}

fn ply_ascii() -> String {
    let mut s = String::from(
        "ply\nformat ascii 1.0\ncomment unit cube\nelement vertex 8\nproperty float x\n\
         property float y\nproperty float z\nelement face 6\n\
         property list uchar int vertex_indices\nend_header\n",
    );
    for p in corners() {
        s.push_str(&format!("{} {} {}\n", p[0], p[1], p[2]));
    }
    for q in QUADS {
        s.push_str(&format!("4 {} {} {} {}\n", q[0], q[1], q[2], q[3]));
    }
    s
}

fn ply_binary(big_endian: bool) -> Vec<u8> {
    let order = if big_endian { "big" } else { "little" };
    let mut b = format!(
        "ply\nformat binary_{order}_endian 1.0\nelement vertex 8\nproperty float x\n\
         property float y\nproperty float z\nelement face 6\n\
         property list uchar uint vertex_indices\nend_header\n"
    )
    .into_bytes();
    let f32b = |v: f32| {
        if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let u32b = |v: u32| {
        if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    for p in corners() {
        for v in p {
            b.extend_from_slice(&f32b(v));
        }
    }
    for q in QUADS {
        b.push(4);
        for i in q {
            b.extend_from_slice(&u32b(i));
        }
    }
    b
}

fn off() -> String {
    let mut s = String::from("OFF\n# unit cube\n8 6 12\n");
    for p in corners() {
        s.push_str(&format!("{} {} {}\n", p[0], p[1], p[2]));
    }
    for q in QUADS {
        s.push_str(&format!("4 {} {} {} {}\n", q[0], q[1], q[2], q[3]));
    }
    s
}

/// Positions (96 bytes) then u16 indices (72 bytes).
fn gltf_buffer() -> Vec<u8> {
    let mut b = Vec::new();
    for p in corners() {
        for v in p {
            b.extend_from_slice(&v.to_le_bytes());
        }
    }
    for t in triangles() {
        for i in t {
            b.extend_from_slice(&(i as u16).to_le_bytes());
        }
    }
    b
}

fn base64(bytes: &[u8]) -> String {
    use base64::engine::{general_purpose::STANDARD, Engine as _};
    STANDARD.encode(bytes)
}

/// glTF JSON; `uri` is the buffer's `"uri"` member (empty for GLB), `nodes` the node list.
fn gltf_json(uri: &str, count: &str, nodes: &str) -> String {
    let len = gltf_buffer().len();
    format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],
"nodes":{nodes},
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1}}]}}],
"buffers":[{{{uri}"byteLength":{len}}}],
"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":96}},{{"buffer":0,"byteOffset":96,"byteLength":72}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":{count},"type":"VEC3","min":[0,0,0],"max":[1,1,1]}},
{{"bufferView":1,"componentType":5123,"count":36,"type":"SCALAR"}}]}}"#
    )
}

const ONE_NODE: &str = r#"[{"mesh":0}]"#;

fn gltf_embedded_with(count: &str, nodes: &str, buffer: &[u8]) -> String {
    let uri = format!(
        r#""uri":"data:application/octet-stream;base64,{}","#,
        base64(buffer)
    );
    gltf_json(&uri, count, nodes)
}

fn gltf_embedded() -> String {
    gltf_embedded_with("8", ONE_NODE, &gltf_buffer())
}

fn glb_from(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut json = json.as_bytes().to_vec();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut b = Vec::new();
    b.extend_from_slice(b"glTF");
    b.extend_from_slice(&2u32.to_le_bytes());
    b.extend_from_slice(&(total as u32).to_le_bytes());
    b.extend_from_slice(&(json.len() as u32).to_le_bytes());
    b.extend_from_slice(b"JSON");
    b.extend_from_slice(&json);
    b.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    b.extend_from_slice(b"BIN\0");
    b.extend_from_slice(&bin);
    b
}

fn glb() -> Vec<u8> {
    glb_from(&gltf_json("", "8", ONE_NODE), &gltf_buffer())
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A zip archive of uncompressed ("stored") entries.
fn zip_stored(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let offset = out.len() as u32;
        let crc = crc32(data);
        let size = data.len() as u32;
        let mut common = Vec::new();
        common.extend_from_slice(&20u16.to_le_bytes()); // version needed
        common.extend_from_slice(&0u16.to_le_bytes()); // flags
        common.extend_from_slice(&0u16.to_le_bytes()); // stored
        common.extend_from_slice(&0u32.to_le_bytes()); // time, date
        common.extend_from_slice(&crc.to_le_bytes());
        common.extend_from_slice(&size.to_le_bytes());
        common.extend_from_slice(&size.to_le_bytes());
        common.extend_from_slice(&(name.len() as u16).to_le_bytes());
        common.extend_from_slice(&0u16.to_le_bytes()); // extra length
        out.extend_from_slice(b"PK\x03\x04");
        out.extend_from_slice(&common);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&20u16.to_le_bytes()); // version made by
        central.extend_from_slice(&common);
        central.extend_from_slice(&0u16.to_le_bytes()); // comment length
        central.extend_from_slice(&0u16.to_le_bytes()); // disk
        central.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
        central.extend_from_slice(&0u32.to_le_bytes()); // external attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let central_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06");
    out.extend_from_slice(&0u32.to_le_bytes()); // disks
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&central_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // comment length
    out
}

fn threemf_model(unit: &str, transform: &str, vertex0: &str) -> String {
    let mut s = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<model unit=\"{unit}\" xml:lang=\"en-US\" \
         xmlns=\"http://schemas.microsoft.com/3dmanufacturing/core/2015/02\">\n<resources>\n\
         <object id=\"1\" type=\"model\"><mesh><vertices>\n"
    );
    for (k, p) in corners().iter().enumerate() {
        if k == 0 && !vertex0.is_empty() {
            s.push_str(vertex0);
        } else {
            s.push_str(&format!(
                "<vertex x=\"{}\" y=\"{}\" z=\"{}\"/>\n",
                p[0], p[1], p[2]
            ));
        }
    }
    s.push_str("</vertices><triangles>\n");
    for t in triangles() {
        s.push_str(&format!(
            "<triangle v1=\"{}\" v2=\"{}\" v3=\"{}\"/>\n",
            t[0], t[1], t[2]
        ));
    }
    s.push_str(&format!(
        "</triangles></mesh></object>\n</resources>\n<build><item objectid=\"1\"{transform}/>\
         </build>\n</model>\n"
    ));
    s
}

fn threemf_from(model: &str) -> Vec<u8> {
    let content_types = br#"<?xml version="1.0" encoding="UTF-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/></Types>"#;
    let rels = br#"<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>"#;
    zip_stored(&[
        ("[Content_Types].xml", content_types),
        ("_rels/.rels", rels),
        ("3D/3dmodel.model", model.as_bytes()),
    ])
}

fn threemf() -> Vec<u8> {
    threemf_from(&threemf_model("millimeter", "", ""))
}

/// Every cube fixture: file name, bytes, the format and units it must load as.
fn cube_fixtures() -> Vec<(&'static str, Vec<u8>, Format, Units)> {
    vec![
        (
            "cube.stl",
            stl_binary(b"binary cube"),
            Format::Stl,
            Units::Unknown,
        ),
        (
            "cube_solid_header.STL",
            stl_binary(b"solid cube, but binary"),
            Format::Stl,
            Units::Unknown,
        ),
        (
            "cube_ascii.stl",
            stl_ascii().into_bytes(),
            Format::Stl,
            Units::Unknown,
        ),
        ("cube.obj", obj().into_bytes(), Format::Obj, Units::Unknown),
        (
            "cube_ascii.ply",
            ply_ascii().into_bytes(),
            Format::Ply,
            Units::Unknown,
        ),
        (
            "cube_le.ply",
            ply_binary(false),
            Format::Ply,
            Units::Unknown,
        ),
        ("cube_be.PLY", ply_binary(true), Format::Ply, Units::Unknown),
        ("cube.off", off().into_bytes(), Format::Off, Units::Unknown),
        (
            "cube.gltf",
            gltf_embedded().into_bytes(),
            Format::Gltf,
            Units::Metre,
        ),
        ("cube.glb", glb(), Format::Glb, Units::Metre),
        ("cube.3mf", threemf(), Format::ThreeMf, Units::Millimetre),
    ]
}

fn load_ok(name: &str, bytes: &[u8]) -> LoadedMesh {
    load_mesh(name, bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn assert_unit_cube(name: &str, loaded: &LoadedMesh, volume: f64) {
    let v = validate(&loaded.mesh);
    assert_eq!(v.triangles, 12, "{name}: {v:?}");
    assert_eq!(v.vertices, 8, "{name}: welded vertices {v:?}");
    assert!(
        v.closed && v.consistently_oriented && v.outward,
        "{name}: {v:?}"
    );
    assert!((v.signed_volume - volume).abs() < 1e-9, "{name}: {v:?}");
    assert_eq!(
        (
            v.boundary_edges,
            v.non_manifold_edges,
            v.degenerate_triangles,
            v.non_finite_vertices
        ),
        (0, 0, 0, 0),
        "{name}"
    );
}

fn enabled(format: Format) -> bool {
    format.is_enabled()
}

#[test]
fn every_format_loads_the_unit_cube() {
    for (name, bytes, format, units) in cube_fixtures() {
        if !enabled(format) {
            continue;
        }
        let loaded = load_ok(name, &bytes);
        assert_eq!((loaded.format, loaded.units), (format, units), "{name}");
        assert_unit_cube(name, &loaded, 1.0);
    }
}

#[test]
fn content_is_sniffed_without_an_extension() {
    for (name, bytes, format, _) in cube_fixtures() {
        assert_eq!(sniff(&bytes), Some(format), "{name}");
        if enabled(format) {
            let loaded = load_ok("no_extension", &bytes);
            assert_eq!(loaded.format, format, "{name}");
            let loaded = load_ok("unknown.mesh", &bytes);
            assert_unit_cube(name, &loaded, 1.0);
        }
    }
    assert!(matches!(
        load_mesh("readme", b"just some text"),
        Err(MeshLoadError::UnknownFormat { name }) if name == "readme"
    ));
}

#[test]
fn disabled_formats_say_which_feature_to_enable() {
    for (name, bytes, format, _) in cube_fixtures() {
        if enabled(format) {
            continue;
        }
        let e = load_mesh(name, &bytes).unwrap_err();
        assert!(
            matches!(e, MeshLoadError::FeatureDisabled { .. }),
            "{name}: {e}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Transforms.

#[test]
fn gltf_node_transforms_and_mirrors_are_applied() {
    if !enabled(Format::Gltf) {
        return;
    }
    let buffer = gltf_buffer();
    // Parent scales by 2, child translates by 10 (in parent units): volume 8.
    let nested = r#"[{"scale":[2,2,2],"children":[1]},{"mesh":0,"translation":[10,0,0]}]"#;
    let loaded = load_ok(
        "n.gltf",
        gltf_embedded_with("8", nested, &buffer).as_bytes(),
    );
    assert_unit_cube("nested", &loaded, 8.0);
    let (lo, hi) = loaded.mesh.aabb().unwrap();
    assert_eq!((lo.x, hi.x), (20.0, 22.0));
    // A mirror keeps the surface outward.
    let mirrored = r#"[{"mesh":0,"scale":[-1,1,1]}]"#;
    let loaded = load_ok(
        "m.gltf",
        gltf_embedded_with("8", mirrored, &buffer).as_bytes(),
    );
    assert_unit_cube("mirrored", &loaded, 1.0);
    // A column-major matrix with translation (5, 6, 7).
    let matrix = r#"[{"mesh":0,"matrix":[1,0,0,0, 0,1,0,0, 0,0,1,0, 5,6,7,1]}]"#;
    let loaded = load_ok(
        "x.gltf",
        gltf_embedded_with("8", matrix, &buffer).as_bytes(),
    );
    assert_eq!(loaded.mesh.aabb().unwrap().0.to_array(), [5.0, 6.0, 7.0]);
    // Two nodes instancing the mesh: 24 triangles.
    let two = r#"[{"children":[1,2]},{"mesh":0},{"mesh":0,"translation":[3,0,0]}]"#;
    let loaded = load_ok("two.glb", &glb_from(&gltf_json("", "8", two), &buffer));
    assert_eq!(validate(&loaded.mesh).triangles, 24);
    assert!((validate(&loaded.mesh).signed_volume - 2.0).abs() < 1e-9);
}

#[test]
fn gltf_cycles_and_external_buffers_are_errors() {
    if !enabled(Format::Gltf) {
        return;
    }
    let buffer = gltf_buffer();
    let cycle = r#"[{"mesh":0,"children":[1]},{"children":[0]}]"#;
    let e = load_mesh("c.gltf", gltf_embedded_with("8", cycle, &buffer).as_bytes());
    assert!(e.is_err(), "{e:?}");
    let external = gltf_json(r#""uri":"cube.bin","#, "8", ONE_NODE);
    let e = load_mesh("e.gltf", external.as_bytes()).unwrap_err();
    assert!(matches!(e, MeshLoadError::Unsupported { .. }), "{e}");
    assert!(
        e.to_string().contains("cube.bin") && e.to_string().contains("glb"),
        "{e}"
    );
}

#[test]
fn threemf_build_transform_and_units() {
    if !enabled(Format::ThreeMf) {
        return;
    }
    let scaled = threemf_model("inch", r#" transform="2 0 0 0 2 0 0 0 2 1 2 3""#, "");
    let loaded = load_ok("s.3mf", &threemf_from(&scaled));
    assert_eq!(loaded.units, Units::Inch);
    assert_unit_cube("scaled 3mf", &loaded, 8.0);
    assert_eq!(loaded.mesh.aabb().unwrap().0.to_array(), [1.0, 2.0, 3.0]);
    let mirrored = threemf_model("meter", r#" transform="1 0 0 0 1 0 0 0 -1 0 0 0""#, "");
    let loaded = load_ok("m.3mf", &threemf_from(&mirrored));
    assert_eq!(loaded.units, Units::Metre);
    assert_unit_cube("mirrored 3mf", &loaded, 1.0);
}

// ---------------------------------------------------------------------------------------
// Real meshes (tests/data, see tests/data/README.md).

fn data(path: &str) -> Vec<u8> {
    let full = format!("{}/tests/data/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

#[test]
fn bunny_obj_is_closed_with_reference_volume() {
    if !enabled(Format::Obj) {
        return;
    }
    let loaded = load_ok("bunny.obj", &data("bunny_pair/meshes/bunny.obj"));
    let v = validate(&loaded.mesh);
    assert!(v.closed && v.outward, "{v:?}");
    let reference = 0.832_353_261_641_523_9;
    assert!(
        ((v.signed_volume - reference) / reference).abs() < 1e-6,
        "{v:?}"
    );
}

#[test]
fn gripper_stls_are_closed_with_reference_volumes() {
    if !enabled(Format::Stl) {
        return;
    }
    for (file, reference) in [
        ("GUIDE_WSG50_110.stl", 9_128.573_519_408_275),
        ("WSG-FMF.stl", 16_755.141_149_157_1),
    ] {
        let loaded = load_ok(file, &data(&format!("gripper_parts/meshes/{file}")));
        let v = validate(&loaded.mesh);
        assert!(v.closed && v.outward, "{file}: {v:?}");
        assert!(
            ((v.signed_volume - reference) / reference).abs() < 1e-6,
            "{file}: {v:?}"
        );
    }
}

#[test]
fn kuka_links_are_open() {
    if !enabled(Format::Stl) {
        return;
    }
    for link in 0..8 {
        let file = format!("kuka_zero_pose/meshes/link_{link}.stl");
        let loaded = load_ok(&file, &data(&file));
        let v = validate(&loaded.mesh);
        assert!(v.triangles > 100, "{file}: {v:?}");
        assert!(!v.closed && !v.outward, "{file}: {v:?}");
        assert_eq!(v.non_finite_vertices, 0, "{file}");
    }
}

// ---------------------------------------------------------------------------------------
// Malformed input: errors that name the format, never a panic.

fn assert_err_names_format(name: &str, bytes: &[u8], format: Format) -> MeshLoadError {
    match load_mesh(name, bytes) {
        Ok(m) => panic!(
            "{name}: expected an error, loaded {} triangles",
            m.mesh.triangles.len()
        ),
        Err(e) => {
            let text = e.to_string();
            assert!(
                text.contains(&format.to_string()),
                "{name}: `{text}` does not name {format}"
            );
            e
        }
    }
}

#[test]
fn empty_input_is_an_error_for_every_format() {
    for format in Format::ALL {
        let name = format!("empty.{}", format.extension());
        assert_err_names_format(&name, b"", format);
    }
}

#[test]
fn every_truncation_fails_cleanly() {
    for (name, bytes, format, _) in cube_fixtures() {
        if !enabled(format) {
            continue;
        }
        // Text formats may end in a name or a line break that can go; anything shorter
        // than that must fail (OBJ has no counts, so it may load fewer faces).
        let slack = match format {
            Format::Stl if !bytes.starts_with(b"solid cube\n") => 0,
            Format::Stl | Format::Ply | Format::Off => " cube\n".len(),
            _ => 0,
        };
        for len in 0..bytes.len() {
            let prefix = &bytes[..len];
            let result = load_mesh(name, prefix);
            if format == Format::Obj {
                if let Ok(m) = result {
                    assert!(m.mesh.triangles.len() <= 12, "{name}[..{len}]");
                } else if let Err(e) = result {
                    assert!(e.to_string().contains("OBJ"), "{name}[..{len}]: {e}");
                }
                continue;
            }
            if len + slack < bytes.len() {
                if let Ok(m) = &result {
                    panic!(
                        "{name}[..{len}] loaded {} triangles",
                        m.mesh.triangles.len()
                    );
                }
            }
            if let Err(e) = result {
                let text = e.to_string();
                assert!(
                    text.contains(&format.to_string()) || text.contains("GLB"),
                    "{name}[..{len}]: {text}"
                );
            }
        }
    }
}

/// Deterministic pseudo-random bytes.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn garbage_is_an_error_for_every_format() {
    for format in Format::ALL {
        let name = format!("garbage.{}", format.extension());
        for (seed, len) in [(1, 1), (2, 83), (3, 84), (4, 134), (5, 1000), (6, 4096)] {
            assert_err_names_format(&name, &noise(seed, len), format);
        }
        // Garbage after a valid magic.
        let mut magic = match format {
            Format::Stl => b"solid x\n".to_vec(),
            Format::Obj => b"v 1 2 3\nf ".to_vec(),
            Format::Ply => b"ply\n".to_vec(),
            Format::Off => b"OFF\n".to_vec(),
            Format::Gltf => b"{\"asset\":".to_vec(),
            Format::Glb => b"glTF\x02\0\0\0\xff\0\0\0".to_vec(),
            Format::ThreeMf => b"PK\x03\x04".to_vec(),
        };
        magic.extend_from_slice(&noise(7, 300));
        assert_err_names_format(&name, &magic, format);
    }
}

fn replace(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    let at = bytes
        .windows(from.len())
        .position(|w| w == from.as_bytes())
        .unwrap_or_else(|| panic!("`{from}` not found"));
    let mut out = bytes[..at].to_vec();
    out.extend_from_slice(to.as_bytes());
    out.extend_from_slice(&bytes[at + from.len()..]);
    out
}

#[test]
fn huge_claimed_counts_are_rejected() {
    let cases: Vec<(&str, Vec<u8>, Format)> = vec![
        (
            "huge.stl",
            {
                let mut b = stl_binary(b"x");
                b[80..84].copy_from_slice(&4_000_000_000u32.to_le_bytes());
                b
            },
            Format::Stl,
        ),
        (
            "huge.ply",
            replace(ply_ascii().as_bytes(), "vertex 8", "vertex 4000000000"),
            Format::Ply,
        ),
        (
            "huge_face.ply",
            replace(&ply_binary(false), "face 6", "face 4000000000"),
            Format::Ply,
        ),
        (
            "huge_vertex.ply",
            replace(&ply_binary(true), "vertex 8", "vertex 18446744073709551615"),
            Format::Ply,
        ),
        (
            "huge.off",
            replace(off().as_bytes(), "8 6 12", "4000000000 1 0"),
            Format::Off,
        ),
        (
            "huge_faces.off",
            replace(off().as_bytes(), "8 6 12", "8 99999999999999999999 0"),
            Format::Off,
        ),
        (
            "huge.obj",
            replace(obj().as_bytes(), "f 1 3 4 2", "f 1 3 4 4000000000"),
            Format::Obj,
        ),
        (
            "huge.gltf",
            gltf_embedded_with("4000000000", ONE_NODE, &gltf_buffer()).into_bytes(),
            Format::Gltf,
        ),
        (
            "huge.glb",
            glb_from(&gltf_json("", "4294967295", ONE_NODE), &gltf_buffer()),
            Format::Glb,
        ),
        (
            "huge_length.glb",
            {
                let mut b = glb();
                b[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
                b
            },
            Format::Glb,
        ),
        (
            "huge_chunk.glb",
            {
                let mut b = glb();
                b[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
                b
            },
            Format::Glb,
        ),
        (
            "huge.3mf",
            threemf_from(&threemf_model("millimeter", "", "").replacen(
                "v1=\"0\"",
                "v1=\"4000000000\"",
                1,
            )),
            Format::ThreeMf,
        ),
    ];
    for (name, bytes, format) in cases {
        if !enabled(format) {
            continue;
        }
        assert_err_names_format(name, &bytes, format);
    }
}

#[test]
fn wrong_counts_are_errors() {
    let cases: Vec<(&str, Vec<u8>, Format)> = vec![
        (
            "one_more.stl",
            {
                let mut b = stl_binary(b"x");
                b[80..84].copy_from_slice(&13u32.to_le_bytes());
                b
            },
            Format::Stl,
        ),
        (
            "more_faces.ply",
            replace(ply_ascii().as_bytes(), "face 6", "face 7"),
            Format::Ply,
        ),
        (
            "more_vertices.ply",
            replace(&ply_binary(false), "vertex 8", "vertex 9"),
            Format::Ply,
        ),
        (
            "fewer_vertices.ply",
            replace(ply_ascii().as_bytes(), "vertex 8", "vertex 7"),
            Format::Ply,
        ),
        (
            "more.off",
            replace(off().as_bytes(), "8 6 12", "8 7 12"),
            Format::Off,
        ),
        (
            "fewer.off",
            replace(off().as_bytes(), "8 6 12", "7 6 12"),
            Format::Off,
        ),
        (
            "index.obj",
            replace(obj().as_bytes(), "f 1 3 4 2", "f 1 3 4 9"),
            Format::Obj,
        ),
        (
            "short_view.gltf",
            gltf_embedded_with("9", ONE_NODE, &gltf_buffer()).into_bytes(),
            Format::Gltf,
        ),
        (
            "short_buffer.gltf",
            gltf_embedded_with("8", ONE_NODE, &gltf_buffer()[..100]).into_bytes(),
            Format::Gltf,
        ),
        (
            "index.3mf",
            threemf_from(&threemf_model("millimeter", "", "").replacen("v1=\"0\"", "v1=\"8\"", 1)),
            Format::ThreeMf,
        ),
        (
            "object.3mf",
            threemf_from(
                &threemf_model("millimeter", "", "").replace("objectid=\"1\"", "objectid=\"2\""),
            ),
            Format::ThreeMf,
        ),
    ];
    for (name, bytes, format) in cases {
        if !enabled(format) {
            continue;
        }
        assert_err_names_format(name, &bytes, format);
    }
}

#[test]
fn nan_coordinates_load_and_are_reported() {
    let mut nan_buffer = gltf_buffer();
    nan_buffer[..4].copy_from_slice(&f32::NAN.to_le_bytes());
    let cases: Vec<(&str, Vec<u8>, Format)> = vec![
        (
            "nan.stl",
            {
                let mut b = stl_binary(b"x");
                b[96..100].copy_from_slice(&f32::NAN.to_le_bytes());
                b
            },
            Format::Stl,
        ),
        (
            "nan_ascii.stl",
            stl_ascii()
                .replacen("vertex 0 0 0", "vertex NaN 0 inf", 1)
                .into_bytes(),
            Format::Stl,
        ),
        (
            "nan.obj",
            replace(obj().as_bytes(), "v 0 0 0", "v nan 0 0"),
            Format::Obj,
        ),
        (
            "nan.ply",
            {
                let mut b = ply_binary(false);
                let data = b.len() - 6 * 17 - 8 * 12;
                b[data..data + 4].copy_from_slice(&f32::NAN.to_le_bytes());
                b
            },
            Format::Ply,
        ),
        (
            "nan.off",
            replace(off().as_bytes(), "\n0 0 0\n", "\nnan 0 -inf\n"),
            Format::Off,
        ),
        (
            "nan.gltf",
            gltf_embedded_with("8", ONE_NODE, &nan_buffer).into_bytes(),
            Format::Gltf,
        ),
        (
            "nan.3mf",
            threemf_from(&threemf_model(
                "millimeter",
                "",
                "<vertex x=\"NaN\" y=\"0\" z=\"0\"/>",
            )),
            Format::ThreeMf,
        ),
    ];
    for (name, bytes, format) in cases {
        if !enabled(format) {
            continue;
        }
        let loaded = load_ok(name, &bytes);
        let v = validate(&loaded.mesh);
        assert_eq!(v.triangles, 12, "{name}");
        assert_eq!(v.non_finite_vertices, 1, "{name}: {v:?}");
        assert!(v.signed_volume.is_nan(), "{name}: {v:?}");
    }
    // ASCII PLY has no NaN in its number grammar: an error, not a panic.
    if enabled(Format::Ply) {
        let bad = replace(ply_ascii().as_bytes(), "\n0 0 0\n", "\nnan 0 0\n");
        assert_err_names_format("nan_ascii.ply", &bad, Format::Ply);
    }
}

#[test]
fn validation_serializes_to_json() {
    if !enabled(Format::Off) {
        return;
    }
    let loaded = load_ok("cube.off", off().as_bytes());
    let json = serde_json::to_string(&validate(&loaded.mesh)).unwrap();
    assert!(
        json.contains("\"closed\":true") && json.contains("\"triangles\":12"),
        "{json}"
    );
    assert_eq!(serde_json::to_string(&loaded.format).unwrap(), "\"off\"");
    assert_eq!(serde_json::to_string(&Units::Metre).unwrap(), "\"metre\"");
}
