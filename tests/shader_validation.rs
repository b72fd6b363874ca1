//! Every WGSL module of the GPU path parses and validates with naga (the version wgpu uses),
//! without a GPU (STYLE.md "Shaders"; re_renderer `tests/shader_validation.rs`).

#![cfg(feature = "gpu")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ldiclash::gpu::shader_sources;
use ldiclash::viewer::render::VIEW_WGSL;

/// The viewer's drawing shader (src/viewer/render.rs) validates too; it also runs on WebGL2,
/// so it uses no storage buffers.
#[test]
fn viewer_shader_validates_with_naga() {
    let module = naga::front::wgsl::parse_str(VIEW_WGSL)
        .unwrap_or_else(|e| panic!("view.wgsl: {}", e.emit_to_string(VIEW_WGSL)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("view.wgsl: {}", e.emit_to_string(VIEW_WGSL)));
    let names: Vec<&str> = module
        .entry_points
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(
        names,
        ["vs_mesh", "fs_mesh", "vs_line", "fs_line", "fs_line_hidden"]
    );
    for (_, v) in module.global_variables.iter() {
        assert_eq!(
            v.space,
            naga::AddressSpace::Uniform,
            "WebGL2 has no storage buffers"
        );
    }
}

#[test]
fn every_shader_validates_with_naga() {
    let sources = shader_sources();
    assert_eq!(sources.len(), 11, "one module per pass");
    for (label, src) in &sources {
        let module = naga::front::wgsl::parse_str(src)
            .unwrap_or_else(|e| panic!("{label}: {}", e.emit_to_string(src)));
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{label}: {}", e.emit_to_string(src)));
        // Entry points follow STYLE.md: vs_main/fs_main for geometry, cs_* for compute.
        let names: Vec<&str> = module
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        assert!(!names.is_empty(), "{label}");
        for n in &names {
            assert!(
                *n == "vs_main" || *n == "fs_main" || n.starts_with("cs_"),
                "{label}: entry point {n}"
            );
        }
        let _ = info;
    }
}

#[test]
fn every_shader_file_is_used_by_a_pass() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut sources = shader_sources();
    sources.push(("shaders/view.wgsl", VIEW_WGSL.to_string()));
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) == Some("wgsl") {
            let name = format!("shaders/{}", path.file_name().unwrap().to_string_lossy());
            assert!(
                sources.iter().any(|(l, _)| *l == name),
                "{name} has no pass"
            );
        }
    }
}

#[test]
fn wgsl_structs_have_the_sizes_of_their_rust_mirrors() {
    use ldiclash::gpu::gpu_data::*;
    use std::mem::size_of;
    let sources = shader_sources();
    let mut seen = 0;
    for (label, src) in &sources {
        let module = naga::front::wgsl::parse_str(src).unwrap();
        for (_, ty) in module.types.iter() {
            let Some(name) = ty.name.as_deref() else {
                continue;
            };
            let rust = match name {
                "GpuVertex" => size_of::<GpuVertex>(),
                "GpuFragment" => size_of::<GpuFragment>(),
                "GpuTile" => size_of::<GpuTile>(),
                "GpuStatus" => size_of::<GpuStatus>(),
                "GpuScanParams" => size_of::<GpuScanParams>(),
                "GpuSortParams" => size_of::<GpuSortParams>(),
                "GpuAnalysisParams" => size_of::<GpuAnalysisParams>(),
                "GpuPairAcc" => size_of::<GpuPairAcc>(),
                "GpuSelfAcc" => size_of::<GpuSelfAcc>(),
                "GpuVisTri" => size_of::<GpuVisTri>(),
                "GpuVisParams" => size_of::<GpuVisParams>(),
                "GpuSelfVisParams" => size_of::<GpuSelfVisParams>(),
                "GpuSeparationSlot" => size_of::<GpuSeparationSlot>(),
                "GpuSeparationStep" => size_of::<GpuSeparationStep>(),
                _ => continue,
            };
            let mut layouter = naga::proc::Layouter::default();
            layouter.update(module.to_ctx()).unwrap();
            let wgsl = layouter[module.types.get(ty).unwrap()].size as usize;
            assert_eq!(wgsl, rust, "{label}: {name}");
            seen += 1;
        }
    }
    assert!(seen >= 9, "checked {seen} struct uses");
}
