//! The passes of the GPU LDI pipeline, one file each (STYLE.md; the three LDI analyses,
//! identical but for their WGSL, share `analysis.rs`): each owns its pipeline and
//! bind group layout, built once in [`Passes::new`], and records into an encoder it is given
//! (never submits). Their WGSL lives in `shaders/<pass>.wgsl`, embedded with `include_str!`.

pub(crate) mod analysis;
pub(crate) mod count;
pub(crate) mod fill;
pub(crate) mod peel;
pub(crate) mod scan;
pub(crate) mod self_visibility;
pub(crate) mod separation;
pub(crate) mod sort;
pub(crate) mod visibility;

use wgpu::util::DeviceExt;

/// Shared WGSL: structs and helpers every pass uses.
pub const TYPES_WGSL: &str = include_str!("../../../shaders/common/types.wgsl");
/// Shared WGSL: the geometry stage (vertex shader, exact coverage and depth).
pub const RASTER_WGSL: &str = include_str!("../../../shaders/common/raster.wgsl");
/// Shared WGSL: analysis parameters and the pair table.
pub const ANALYSIS_WGSL: &str = include_str!("../../../shaders/common/analysis.wgsl");

/// Every shader module as `(label, full source)`, for validation (tests/shader_validation.rs).
pub fn shader_sources() -> Vec<(&'static str, String)> {
    vec![
        ("shaders/count.wgsl", count::source()),
        ("shaders/fill.wgsl", fill::source()),
        ("shaders/peel.wgsl", peel::source()),
        ("shaders/scan.wgsl", scan::source()),
        ("shaders/sort.wgsl", sort::source()),
        ("shaders/volume.wgsl", analysis::Analysis::Volume.source()),
        ("shaders/surface.wgsl", analysis::Analysis::Surface.source()),
        (
            "shaders/self_intersection.wgsl",
            analysis::Analysis::SelfIntersection.source(),
        ),
        ("shaders/visibility.wgsl", visibility::source()),
        ("shaders/self_visibility.wgsl", self_visibility::source()),
        ("shaders/separation.wgsl", separation::source()),
    ]
}

/// All passes, built once per context.
#[derive(Debug)]
pub(crate) struct Passes {
    pub geometry_layout: wgpu::BindGroupLayout,
    pub count: count::CountPass,
    pub fill: fill::FillPass,
    pub peel: peel::PeelPass,
    pub scan: scan::ScanPass,
    pub sort: sort::SortPass,
    pub volume: analysis::AnalysisPass,
    pub surface: analysis::AnalysisPass,
    pub self_intersection: analysis::AnalysisPass,
    pub visibility: visibility::VisibilityPass,
    pub self_visibility: self_visibility::SelfVisibilityPass,
    pub separation: separation::SeparationPass,
}

impl Passes {
    pub fn new(device: &wgpu::Device) -> Self {
        let vf = wgpu::ShaderStages::VERTEX_FRAGMENT;
        let geometry_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("Passes::geometry_layout"),
            entries: &[
                uniform_entry(0, vf),
                storage_entry(1, true, vf),
                storage_entry(2, true, vf),
            ],
        });
        Self {
            count: count::CountPass::new(device, &geometry_layout),
            fill: fill::FillPass::new(device, &geometry_layout),
            peel: peel::PeelPass::new(device, &geometry_layout),
            scan: scan::ScanPass::new(device),
            sort: sort::SortPass::new(device),
            volume: analysis::AnalysisPass::new(device, analysis::Analysis::Volume),
            surface: analysis::AnalysisPass::new(device, analysis::Analysis::Surface),
            self_intersection: analysis::AnalysisPass::new(
                device,
                analysis::Analysis::SelfIntersection,
            ),
            visibility: visibility::VisibilityPass::new(device),
            self_visibility: self_visibility::SelfVisibilityPass::new(device),
            separation: separation::SeparationPass::new(device),
            geometry_layout,
        }
    }
}

pub(crate) fn uniform_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

pub(crate) fn storage_entry(
    binding: u32,
    read_only: bool,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

pub(crate) fn shader(device: &wgpu::Device, label: &str, source: &str) -> wgpu::ShaderModule {
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    })
}

pub(crate) fn compute_pipeline(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    module: &wgpu::ShaderModule,
    entry: &str,
) -> wgpu::ComputePipeline {
    let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: Some(&pl),
        module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}

/// A render pipeline for a geometry pass: the shared vertex stage, `fs_main`, no culling (the
/// vertex shader culls exactly), no depth, a colour target that is never written.
pub(crate) fn geometry_pipeline(
    device: &wgpu::Device,
    label: &str,
    geometry_layout: &wgpu::BindGroupLayout,
    pass_layout: &wgpu::BindGroupLayout,
    module: &wgpu::ShaderModule,
) -> wgpu::RenderPipeline {
    let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &[Some(geometry_layout), Some(pass_layout)],
        immediate_size: 0,
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(label),
        layout: Some(&pl),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some("vs_main"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: None,
            ..Default::default()
        },
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some("fs_main"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: FRAMEBUFFER_FORMAT,
                blend: None,
                write_mask: wgpu::ColorWrites::empty(),
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// The never-written colour target of the geometry passes (WebGPU needs one attachment to
/// size a render pass).
pub(crate) const FRAMEBUFFER_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R8Unorm;

/// Where a pass writes its timestamps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stamp<'a> {
    pub set: &'a wgpu::QuerySet,
    pub index: u32,
}

impl<'a> Stamp<'a> {
    pub fn render(s: Option<Self>) -> Option<wgpu::RenderPassTimestampWrites<'a>> {
        s.map(|s| wgpu::RenderPassTimestampWrites {
            query_set: s.set,
            beginning_of_pass_write_index: Some(s.index),
            end_of_pass_write_index: Some(s.index + 1),
        })
    }

    pub fn compute(s: Option<Self>) -> Option<wgpu::ComputePassTimestampWrites<'a>> {
        s.map(|s| wgpu::ComputePassTimestampWrites {
            query_set: s.set,
            beginning_of_pass_write_index: Some(s.index),
            end_of_pass_write_index: Some(s.index + 1),
        })
    }
}

/// (object id, first triangle, end triangle).
pub(crate) type TriangleRange = (u32, u32, u32);

/// One geometry chunk's group-0 bind group and its triangle ranges.
pub(crate) type DrawPart<'a> = (&'a wgpu::BindGroup, &'a [TriangleRange]);

/// Everything a geometry pass draws: the bind group of group 0 and per-object triangle ranges.
#[derive(Debug)]
pub(crate) struct GeometryDraw<'a> {
    /// Per geometry chunk: its group-0 bind group and its (object id, first triangle, end
    /// triangle) ranges.
    pub parts: Vec<DrawPart<'a>>,
    /// The framebuffer view.
    pub target: &'a wgpu::TextureView,
}

/// Record one geometry render pass: every object's triangles as bounding quads.
pub(crate) fn record_geometry(
    encoder: &mut wgpu::CommandEncoder,
    label: &str,
    pipeline: &wgpu::RenderPipeline,
    draw: &GeometryDraw<'_>,
    pass_group: &wgpu::BindGroup,
    stamp: Option<Stamp<'_>>,
) {
    encoder.push_debug_group(label);
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(label),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: draw.target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                    store: wgpu::StoreOp::Discard,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: Stamp::render(stamp),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(1, pass_group, &[]);
        for (group, ranges) in &draw.parts {
            pass.set_bind_group(0, *group, &[]);
            for &(id, t0, t1) in *ranges {
                if t1 > t0 {
                    pass.draw(6 * t0..6 * t1, id..id + 1);
                }
            }
        }
    }
    encoder.pop_debug_group();
}

/// A 2-D dispatch for `invocations` threads in workgroups of `wg`: (x groups, y groups,
/// invocations per row of groups).
pub(crate) fn dispatch_size(invocations: u32, wg: u32, max_per_dim: u32) -> (u32, u32, u32) {
    let groups = invocations.div_ceil(wg).max(1);
    let gx = groups.min(max_per_dim.max(1));
    let gy = groups.div_ceil(gx);
    (gx, gy, gx * wg)
}

/// A uniform buffer holding `value`.
pub(crate) fn uniform<T: bytemuck::Pod>(
    device: &wgpu::Device,
    label: &str,
    value: &T,
) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::bytes_of(value),
        usage: wgpu::BufferUsages::UNIFORM,
    })
}

/// Bind group entries from buffers, bindings 0, 1, 2, …
pub(crate) fn entries<'a>(buffers: &[&'a wgpu::Buffer]) -> Vec<wgpu::BindGroupEntry<'a>> {
    buffers
        .iter()
        .enumerate()
        .map(|(i, b)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: b.as_entire_binding(),
        })
        .collect()
}

pub(crate) fn bind_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    buffers: &[&wgpu::Buffer],
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries(buffers),
    })
}

/// Record one compute dispatch in its own (labelled) pass. Not wrapped in a debug group:
/// lavapipe (Mesa 22, llvmpipe 15) crashes on debug groups around compute passes.
pub(crate) fn record_compute(
    encoder: &mut wgpu::CommandEncoder,
    label: &str,
    pipeline: &wgpu::ComputePipeline,
    group: &wgpu::BindGroup,
    groups: (u32, u32),
    stamp: Option<Stamp<'_>>,
) {
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(label),
        timestamp_writes: Stamp::compute(stamp),
    });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, group, &[]);
    pass.dispatch_workgroups(groups.0, groups.1, 1);
}

/// Layout of an analysis pass: params, offsets, fragments, then `extra` read-write buffers.
pub(crate) fn analysis_layout(
    device: &wgpu::Device,
    label: &str,
    extra: u32,
) -> wgpu::BindGroupLayout {
    let c = wgpu::ShaderStages::COMPUTE;
    let mut entries = vec![
        uniform_entry(0, c),
        storage_entry(1, true, c),
        storage_entry(2, true, c),
    ];
    for i in 0..extra {
        entries.push(storage_entry(3 + i, false, c));
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    })
}
