//! The viewer's renderer on lavapipe: red intersection edges appear where two objects cross
//! (visible and, through an occluder, hidden), and nowhere on a separated scene; colliding
//! objects are tinted. The same renderer draws the page's canvas (web_api.rs); the browser
//! tests check the canvas too.

#![cfg(all(feature = "gpu", not(target_arch = "wasm32")))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::gpu::{ensure_runtime_dir, lock, no_gpu};
use glam::{Vec2, Vec3};
use ldiclash::check::{check, CheckOptions};
use ldiclash::mesh::shapes::cuboid;
use ldiclash::viewer::camera::OrbitCamera;
use ldiclash::viewer::render::{
    palette, segment_vertices, Display, Instance, ObjectStyle, Renderer, EDGE_RED, TINT_PENETRATION,
};
use ldiclash::viewer::section::Section;
use ldiclash::viewer::{segments_for, InputFile, Session};

const SIZE: u32 = 256;

fn device() -> Option<(wgpu::Device, wgpu::Queue)> {
    ensure_runtime_dir();
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    let instance = wgpu::Instance::new(desc);
    let adapter =
        match pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
        {
            Ok(a) => a,
            Err(e) => {
                no_gpu(&format!("no Vulkan adapter: {e}"));
                return None;
            }
        };
    match pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default())) {
        Ok(d) => Some(d),
        Err(e) => {
            no_gpu(&format!("the adapter gave no device: {e}"));
            None
        }
    }
}

fn stl(lo: Vec3, hi: Vec3) -> Vec<u8> {
    let m = cuboid(lo, hi);
    let mut s = String::from("solid b\n");
    for t in 0..m.triangles.len() {
        s.push_str("facet normal 0 0 0\nouter loop\n");
        for v in m.corners(t) {
            s.push_str(&format!("vertex {} {} {}\n", v.x, v.y, v.z));
        }
        s.push_str("endloop\nendfacet\n");
    }
    s.push_str("endsolid b\n");
    s.into_bytes()
}

struct Frame {
    rgba: Vec<u8>,
}

impl Frame {
    fn red(&self, x: u32, y: u32) -> bool {
        let i = ((y * SIZE + x) * 4) as usize;
        let p = &self.rgba[i..i + 4];
        p[0] > 200 && p[1] < 70 && p[2] < 70
    }

    fn red_count(&self) -> usize {
        (0..SIZE)
            .flat_map(|y| (0..SIZE).map(move |x| (x, y)))
            .filter(|&(x, y)| self.red(x, y))
            .count()
    }

    fn pixel(&self, p: Vec2) -> [u8; 4] {
        let i = ((p.y as u32 * SIZE + p.x as u32) * 4) as usize;
        [
            self.rgba[i],
            self.rgba[i + 1],
            self.rgba[i + 2],
            self.rgba[i + 3],
        ]
    }

    /// Pixels not of the background colour (what is drawn).
    fn drawn_count(&self) -> usize {
        let bg = Display::default()
            .background
            .map(|c| (c * 255.0).round() as i32);
        self.rgba
            .chunks_exact(4)
            .filter(|p| (0..3).any(|k| (i32::from(p[k]) - bg[k]).abs() > 2))
            .count()
    }

    fn red_near(&self, p: Vec2, r: i32) -> bool {
        (-r..=r).any(|dy| {
            (-r..=r).any(|dx| {
                let (x, y) = (p.x as i32 + dx, p.y as i32 + dy);
                x >= 0
                    && y >= 0
                    && x < SIZE as i32
                    && y < SIZE as i32
                    && self.red(x as u32, y as u32)
            })
        })
    }
}

/// Check the scene, draw it as the page does (tint + edges), read the pixels back.
fn draw(session: &Session, camera: &OrbitCamera, display: &Display) -> Option<(Frame, usize)> {
    draw_with(session, camera, display, false)
}

/// [`draw`]; with `instanced`, each distinct mesh is uploaded once in its own coordinates and
/// objects draw it at their placement (what the page does), otherwise world geometry per
/// object.
fn draw_with(
    session: &Session,
    camera: &OrbitCamera,
    display: &Display,
    instanced: bool,
) -> Option<(Frame, usize)> {
    let (device, queue) = device()?;
    let report = check(&session.scene, &CheckOptions::default()).unwrap();
    let segments = segments_for(&session.scene, &report);
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut r = Renderer::new(&device, format);
    let mut styles = Vec::new();
    let mut slots: Vec<*const ldiclash::mesh::Mesh> = Vec::new();
    let mut instances = Vec::new();
    for (i, o) in session.scene.objects.iter().enumerate() {
        if instanced {
            let key = std::sync::Arc::as_ptr(&o.mesh);
            let slot = slots.iter().position(|&k| k == key).unwrap_or_else(|| {
                r.set_mesh(
                    &device,
                    &queue,
                    slots.len(),
                    &o.mesh.positions,
                    &o.mesh.triangles,
                );
                slots.push(key);
                slots.len() - 1
            });
            instances.push(Instance {
                mesh: slot,
                world_from_object: o.world_from_object().as_mat4(),
                coarse: false,
            });
        } else {
            r.set_mesh(
                &device,
                &queue,
                i,
                &o.world().positions,
                &o.world().triangles,
            );
        }
        let colliding = report.pairs.iter().any(|p| p.a == o.name || p.b == o.name);
        styles.push(ObjectStyle {
            color: palette(i),
            tint: if colliding { TINT_PENETRATION } else { 0.0 },
            selected: false,
            ghost: false,
            visible: true,
        });
    }
    r.set_instances(instances);
    if instanced {
        assert_eq!(r.mesh_bytes(), slots.len() as u64 * (8 * 12 + 12 * 12));
    }
    let mut edges = Vec::new();
    segment_vertices(&segments.pairs, EDGE_RED, &mut edges);
    r.set_edges(&device, &queue, &edges);
    let frame = read_frame(&device, &queue, &mut r, camera, &styles, display);
    Some((frame, segments.pairs.len()))
}

/// Draw with `r` into a `SIZE`² texture and read the pixels back.
fn read_frame(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    r: &mut Renderer,
    camera: &OrbitCamera,
    styles: &[ObjectStyle],
    display: &Display,
) -> Frame {
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("target"),
        size: wgpu::Extent3d {
            width: SIZE,
            height: SIZE,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    r.draw(device, queue, &view, (SIZE, SIZE), camera, styles, display);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: u64::from(SIZE * SIZE * 4),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    enc.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(SIZE * 4),
                rows_per_image: Some(SIZE),
            },
        },
        wgpu::Extent3d {
            width: SIZE,
            height: SIZE,
            depth_or_array_layers: 1,
        },
    );
    queue.submit([enc.finish()]);
    buffer
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.unwrap());
    device
        .poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: None,
        })
        .unwrap();
    let rgba = buffer.slice(..).get_mapped_range().unwrap().to_vec();
    Frame { rgba }
}

fn scene(gap: f32, occluder: bool) -> Session {
    let mut s = Session::new();
    let mut files = vec![
        InputFile {
            name: "a.stl".into(),
            bytes: stl(Vec3::ZERO, Vec3::ONE),
        },
        InputFile {
            name: "b.stl".into(),
            bytes: stl(
                Vec3::new(0.6 + gap, 0.2, 0.2),
                Vec3::new(1.6 + gap, 0.8, 1.4),
            ),
        },
    ];
    if occluder {
        // A slab between the camera (on +y... see camera()) and the pair.
        files.push(InputFile {
            name: "wall.stl".into(),
            bytes: stl(Vec3::new(-1.0, -1.5, -1.0), Vec3::new(3.0, -1.2, 2.5)),
        });
    }
    let out = s.load(&files);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    s
}

fn camera(session: &Session) -> OrbitCamera {
    let mut c = OrbitCamera {
        yaw: -std::f32::consts::FRAC_PI_2, // eye on -y, looking along +y
        pitch: 0.35,
        ..OrbitCamera::default()
    };
    let b = session.scene.bounds().unwrap();
    c.scene_radius = (b.max - b.min).length() * 0.5;
    c.fit(&b);
    c
}

#[test]
fn intersection_edges_are_red_where_objects_cross_and_absent_otherwise() {
    let _g = lock();
    let s = scene(0.0, false);
    let cam = camera(&s);
    let Some((frame, n)) = draw(&s, &cam, &Display::default()) else {
        return;
    };
    assert!(n > 0, "the crossing boxes have intersection segments");
    let red = frame.red_count();
    assert!(red > 40, "{red} red pixels");
    // The segment midpoints are drawn red (within 2 px; hidden ones are stippled, so allow
    // a few misses there).
    let report = check(&s.scene, &CheckOptions::default()).unwrap();
    let seg = segments_for(&s.scene, &report);
    let size = Vec2::splat(SIZE as f32);
    let hits = seg
        .pairs
        .iter()
        .filter(|[a, b]| {
            let (p, _) = cam.to_screen((*a + *b) * 0.5, size).unwrap();
            frame.red_near(p, 2)
        })
        .count();
    assert!(
        hits * 10 >= seg.pairs.len() * 8,
        "{hits} of {} segment midpoints drawn red",
        seg.pairs.len()
    );

    // Separated by a gap: nothing red at all (the tint is only for colliding objects).
    let s = scene(0.5, false);
    let (frame, n) = draw(&s, &camera(&s), &Display::default()).unwrap();
    assert_eq!(n, 0);
    assert_eq!(frame.red_count(), 0);
}

#[test]
fn hidden_edges_show_through_an_occluder() {
    let _g = lock();
    let s = scene(0.0, true);
    let cam = camera(&s);
    let Some((with, _)) = draw(&s, &cam, &Display::default()) else {
        return;
    };
    let (without, _) = draw(
        &s,
        &cam,
        &Display {
            hidden_edges: false,
            ..Display::default()
        },
    )
    .unwrap();
    let (w, wo) = (with.red_count(), without.red_count());
    // Behind the wall only the stippled hidden pass draws them.
    assert!(w > 20, "hidden edges drawn: {w} red pixels");
    assert!(wo < w / 4, "without hidden edges: {wo} vs {w}");
}

#[test]
fn a_section_plane_cuts_away_one_side_and_keeps_the_edges() {
    let _g = lock();
    // Box a spans x 0..1, box b x 0.6..1.6 (they cross for x in 0.6..1).
    let s = scene(0.0, false);
    let cam = camera(&s);
    let Some((whole, _)) = draw(&s, &cam, &Display::default()) else {
        return;
    };
    let size = Vec2::splat(SIZE as f32);
    let px = |p: Vec3| cam.to_screen(p, size).unwrap().0;
    // Points on the faces the camera (on -y) sees: a's front face at x = 0.15, b's at 1.3.
    let on_a = px(Vec3::new(0.15, 0.0, 0.5));
    let on_b = px(Vec3::new(1.3, 0.2, 0.8));
    let bg = Display::default()
        .background
        .map(|c| (c * 255.0).round() as u8);
    let is_bg = |p: [u8; 4]| (0..3).all(|k| p[k].abs_diff(bg[k]) <= 2);
    assert!(!is_bg(whole.pixel(on_a)) && !is_bg(whole.pixel(on_b)));
    // The picture with the section at x = 0.3, cutting away x > 0.3 (or, flipped, x < 0.3).
    let section = |flip: bool| {
        let clip = Section::new("x", 0.3, flip).unwrap().shader_plane();
        let display = Display {
            clip,
            ..Display::default()
        };
        draw(&s, &cam, &display).unwrap().0
    };
    // Cut away x > 0.3: all of b and most of a go; the intersection edges (x 0.6..1) stay.
    let cut = section(false);
    assert_eq!(
        cut.pixel(on_a),
        whole.pixel(on_a),
        "the kept side is drawn as before"
    );
    assert!(
        is_bg(cut.pixel(on_b)),
        "b is cut away: {:?}",
        cut.pixel(on_b)
    );
    let (w, c) = (whole.drawn_count(), cut.drawn_count());
    assert!(c * 2 < w, "drawn pixels {c} with the section, {w} without");
    assert!(cut.red_count() > 40, "{} red edge pixels", cut.red_count());
    // Flipped: the other side is cut, b is drawn again and a's left part is gone.
    let flipped = section(true);
    assert!(is_bg(flipped.pixel(on_a)), "a's left part is cut away");
    assert!(!is_bg(flipped.pixel(on_b)));
}

#[test]
fn instances_draw_like_world_geometry_with_each_mesh_uploaded_once() {
    let _g = lock();
    // One box file placed three times by a scene file (turned, mirrored, moved) and a second
    // box crossing the first.
    let mut s = Session::new();
    let scene = br#"{"objects": [
        {"name": "a", "file": "box.stl"},
        {"name": "b", "file": "box.stl", "world_from_object": [0,1,0,0, -1,0,0,0, 0,0,1,0, 2.5,0,0,1]},
        {"name": "c", "file": "box.stl", "world_from_object": [-1,0,0,0, 0,1,0,0, 0,0,1,0, -0.5,0,0.3,1]},
        {"name": "d", "file": "other.stl", "world_from_object": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0.5,1]}]}"#;
    let out = s.load(&[
        InputFile {
            name: "scene.json".into(),
            bytes: scene.to_vec(),
        },
        InputFile {
            name: "box.stl".into(),
            bytes: stl(Vec3::ZERO, Vec3::new(1.0, 0.5, 0.8)),
        },
        InputFile {
            name: "other.stl".into(),
            bytes: stl(Vec3::new(0.6, 0.1, 0.0), Vec3::new(1.6, 0.4, 1.0)),
        },
    ]);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let cam = camera(&s);
    let Some((world, _)) = draw_with(&s, &cam, &Display::default(), false) else {
        return;
    };
    let (inst, _) = draw_with(&s, &cam, &Display::default(), true).unwrap();
    let differing = world
        .rgba
        .chunks_exact(4)
        .zip(inst.rgba.chunks_exact(4))
        .filter(|(a, b)| a.iter().zip(b.iter()).any(|(x, y)| x.abs_diff(*y) > 8))
        .count();
    let drawn = world
        .rgba
        .chunks_exact(4)
        .filter(|p| p[0] < 200 || p[1] < 200)
        .count();
    assert!(drawn > 2000, "{drawn} pixels drawn");
    // f32 placement on the GPU against f64 placement on the CPU: a few edge pixels differ.
    assert!(
        differing * 200 < drawn,
        "{differing} of {drawn} drawn pixels differ"
    );
    assert_eq!(world.red_count() > 0, inst.red_count() > 0);
}

#[test]
fn coarse_instances_draw_the_coarse_mesh_and_only_they() {
    let _g = lock();
    let Some((device, queue)) = device() else {
        return;
    };
    // Slot 0: a box as the full mesh and a smaller box as its coarse mesh (a stand-in that
    // is easy to tell apart on screen).
    let full = cuboid(Vec3::ZERO, Vec3::new(1.0, 1.0, 1.0));
    let small = cuboid(Vec3::splat(0.25), Vec3::splat(0.75));
    let mut s = Session::new();
    let out = s.load(&[InputFile {
        name: "box.stl".into(),
        bytes: stl(Vec3::ZERO, Vec3::ONE),
    }]);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let cam = camera(&s);
    let styles = [ObjectStyle {
        color: palette(0),
        tint: 0.0,
        selected: false,
        ghost: false,
        visible: true,
    }];
    let frame =
        |mesh: &ldiclash::mesh::Mesh, coarse: Option<&ldiclash::mesh::Mesh>, draw_coarse: bool| {
            let mut r = Renderer::new(&device, wgpu::TextureFormat::Rgba8Unorm);
            r.set_mesh(&device, &queue, 0, &mesh.positions, &mesh.triangles);
            if let Some(c) = coarse {
                r.set_mesh_lod(&device, &queue, 0, &c.positions, &c.triangles);
            }
            r.set_instances(vec![Instance {
                mesh: 0,
                world_from_object: glam::Mat4::IDENTITY,
                coarse: draw_coarse,
            }]);
            read_frame(&device, &queue, &mut r, &cam, &styles, &Display::default())
        };
    let drawn = |f: &Frame| {
        f.rgba
            .chunks_exact(4)
            .filter(|p| p[0] < 200 || p[1] < 200)
            .count()
    };
    let same = |a: &Frame, b: &Frame| {
        a.rgba
            .chunks_exact(4)
            .zip(b.rgba.chunks_exact(4))
            .all(|(x, y)| x.iter().zip(y.iter()).all(|(u, v)| u.abs_diff(*v) <= 2))
    };
    let big = frame(&full, None, false);
    let little = frame(&small, None, false);
    assert!(
        drawn(&little) * 2 < drawn(&big),
        "{} vs {} pixels",
        drawn(&little),
        drawn(&big)
    );
    // Marked coarse: the coarse mesh; not marked: the full one; marked without a coarse
    // mesh: the full one.
    assert!(same(&frame(&full, Some(&small), true), &little));
    assert!(same(&frame(&full, Some(&small), false), &big));
    assert!(same(&frame(&full, None, true), &big));
    // Both meshes count as GPU bytes.
    let mut r = Renderer::new(&device, wgpu::TextureFormat::Rgba8Unorm);
    r.set_mesh(&device, &queue, 0, &full.positions, &full.triangles);
    r.set_mesh_lod(&device, &queue, 0, &small.positions, &small.triangles);
    assert_eq!(r.mesh_bytes(), 2 * (8 * 12 + 12 * 12));
    r.set_mesh_lod(&device, &queue, 0, &[], &[]);
    assert_eq!(r.mesh_bytes(), 8 * 12 + 12 * 12);
}
