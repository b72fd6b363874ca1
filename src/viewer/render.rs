//! Drawing the viewer with wgpu: shaded objects in distinct colours, colliding ones tinted red
//! (seed 001), intersection edges in red — visible ones solid, hidden ones stippled through
//! the occluders (seed 002 Abb. 2) —, self-intersections in orange, boxes, an x-ray mode and
//! the LDI as points (seed 000's display modes).
//!
//! The renderer draws into any colour target (a canvas surface in the browser, an offscreen
//! texture in the native tests) and owns only its depth buffer. Geometry is uploaded per mesh
//! slot ([`Renderer::set_mesh`]); each object draws a slot with its own `world_from_object`
//! ([`Renderer::set_instances`]), so a mesh placed many times is on the GPU once and a move
//! changes 64 bytes of uniforms, not the geometry (issue 12). Without instances, object `k`
//! draws slot `k` untransformed (world-space geometry, as uploaded).

use bytemuck::{Pod, Zeroable};
use glam::{Vec3, Vec4};

use super::camera::OrbitCamera;

/// The WGSL of the viewer.
pub const VIEW_WGSL: &str = include_str!("../../shaders/view.wgsl");

const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Uniform offsets must be multiples of this (WebGPU and WebGL2 minimum).
const DRAW_STRIDE: u64 = 256;

/// A colour palette that keeps neighbours apart (no red: red means collision).
pub const PALETTE: [[f32; 3]; 10] = [
    [0.36, 0.58, 0.86],
    [0.55, 0.76, 0.45],
    [0.85, 0.72, 0.38],
    [0.62, 0.52, 0.82],
    [0.42, 0.75, 0.78],
    [0.80, 0.60, 0.45],
    [0.70, 0.70, 0.72],
    [0.48, 0.62, 0.52],
    [0.86, 0.58, 0.74],
    [0.55, 0.66, 0.90],
];

/// Tint of objects that only touch or are in surface contact.
pub const TINT_CONTACT: f32 = 0.3;
/// Tint of penetrating objects.
pub const TINT_PENETRATION: f32 = 0.6;

/// Intersection edge colour (between objects).
pub const EDGE_RED: [u8; 4] = [235, 20, 20, 255];
/// Self-intersection edge colour.
pub const SELF_ORANGE: [u8; 4] = [255, 140, 0, 255];
/// Bounding box colour.
pub const BOX_GREY: [u8; 4] = [90, 90, 100, 255];
/// Selected box colour.
pub const BOX_SELECTED: [u8; 4] = [255, 200, 40, 255];

#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct Globals {
    view_proj: [[f32; 4]; 4],
    eye: [f32; 4],
    viewport: [f32; 4],
    clip: [f32; 4],
}

#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct DrawUniform {
    color: [f32; 4],
    flags: [f32; 4],
    model: [[f32; 4]; 4],
}

/// Which mesh slot an object draws, and where.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Instance {
    /// The mesh slot ([`Renderer::set_mesh`]'s `index`).
    pub mesh: usize,
    /// The object's placement (column-major, like `Object::world_from_object`).
    pub world_from_object: glam::Mat4,
    /// Draw the slot's coarse mesh ([`Renderer::set_mesh_lod`]) where it has one: the object
    /// is small on screen.
    pub coarse: bool,
}

/// A line or point vertex.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct ColorVertex {
    /// World position.
    pub position: [f32; 3],
    /// RGBA, 8 bits each.
    pub color: [u8; 4],
}

/// How one object is drawn this frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObjectStyle {
    /// Base colour.
    pub color: [f32; 3],
    /// Red tint: 0 none, [`TINT_CONTACT`] for surface contact or touch, [`TINT_PENETRATION`]
    /// for penetration (volume, exact crossing, convex overlap).
    pub tint: f32,
    /// Highlighted: selected.
    pub selected: bool,
    /// Drawn see-through (x-ray of non-colliding parts).
    pub ghost: bool,
    /// Drawn at all.
    pub visible: bool,
}

/// Display settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Display {
    /// Draw the objects' surfaces (off in the LDI point modes if wanted).
    pub surfaces: bool,
    /// Draw intersection edges hidden behind surfaces too (stippled).
    pub hidden_edges: bool,
    /// Background colour.
    pub background: [f64; 4],
    /// The section plane ([`super::section::Section::shader_plane`]): surface points `p` with
    /// `dot(xyz, p) > w` are not drawn. [`super::section::NO_SECTION`] cuts nothing. Lines
    /// (intersection edges, boxes) and LDI points are never cut: the clash stays visible.
    pub clip: [f32; 4],
}

impl Default for Display {
    fn default() -> Self {
        Self {
            surfaces: true,
            hidden_edges: true,
            background: [0.96, 0.965, 0.975, 1.0],
            clip: super::section::NO_SECTION,
        }
    }
}

struct GpuMesh {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    count: u32,
}

struct LineSet {
    buffer: Option<wgpu::Buffer>,
    count: u32,
}

impl LineSet {
    fn empty() -> Self {
        Self {
            buffer: None,
            count: 0,
        }
    }
}

/// The renderer: pipelines, per-object geometry, lines and points.
pub struct Renderer {
    format: wgpu::TextureFormat,
    globals: wgpu::Buffer,
    globals_bg: wgpu::BindGroup,
    draws: wgpu::Buffer,
    draws_bg: wgpu::BindGroup,
    draw_capacity: u64,
    draw_layout: wgpu::BindGroupLayout,
    mesh_opaque: wgpu::RenderPipeline,
    mesh_ghost: wgpu::RenderPipeline,
    lines_visible: wgpu::RenderPipeline,
    lines_hidden: wgpu::RenderPipeline,
    points: wgpu::RenderPipeline,
    depth: Option<(wgpu::Texture, wgpu::TextureView, (u32, u32))>,
    meshes: Vec<Option<GpuMesh>>,
    coarse: Vec<Option<GpuMesh>>,
    instances: Vec<Instance>,
    edges: LineSet,
    boxes: LineSet,
    ldi: LineSet,
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer")
            .field("format", &self.format)
            .field("meshes", &self.meshes.len())
            .field("edges", &self.edges.count)
            .finish_non_exhaustive()
    }
}

fn uniform_layout(
    device: &wgpu::Device,
    label: &str,
    dynamic: bool,
    size: u64,
) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: dynamic,
                min_binding_size: wgpu::BufferSize::new(size),
            },
            count: None,
        }],
    })
}

struct PipelineSpec<'a> {
    label: &'a str,
    vs: &'a str,
    fs: &'a str,
    topology: wgpu::PrimitiveTopology,
    lines: bool,
    depth_write: bool,
    compare: wgpu::CompareFunction,
    blend: bool,
}

impl Renderer {
    /// Build the pipelines for colour targets of `format`.
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("view.wgsl"),
            source: wgpu::ShaderSource::Wgsl(VIEW_WGSL.into()),
        });
        let g_size = std::mem::size_of::<Globals>() as u64;
        let d_size = std::mem::size_of::<DrawUniform>() as u64;
        let globals_layout = uniform_layout(device, "viewer globals", false, g_size);
        let draw_layout = uniform_layout(device, "viewer draw", true, d_size);
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("viewer globals"),
            size: g_size,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let globals_bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("viewer globals"),
            layout: &globals_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: globals.as_entire_binding(),
            }],
        });
        let (draws, draws_bg) = Self::draw_buffer(device, &draw_layout, 16);
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("viewer"),
            bind_group_layouts: &[Some(&globals_layout), Some(&draw_layout)],
            immediate_size: 0,
        });
        let make = |s: PipelineSpec<'_>| {
            let mesh_attrs = [wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x3,
                offset: 0,
                shader_location: 0,
            }];
            let line_attrs = [
                wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32x3,
                    offset: 0,
                    shader_location: 0,
                },
                wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Unorm8x4,
                    offset: 12,
                    shader_location: 1,
                },
            ];
            let buffers = [wgpu::VertexBufferLayout {
                array_stride: if s.lines { 16 } else { 12 },
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: if s.lines { &line_attrs } else { &mesh_attrs },
            }];
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(s.label),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(s.vs),
                    compilation_options: Default::default(),
                    buffers: &[Some(buffers[0].clone())],
                },
                primitive: wgpu::PrimitiveState {
                    topology: s.topology,
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(s.depth_write),
                    depth_compare: Some(s.compare),
                    stencil: wgpu::StencilState::default(),
                    bias: wgpu::DepthBiasState::default(),
                }),
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(s.fs),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format,
                        blend: s.blend.then_some(wgpu::BlendState::ALPHA_BLENDING),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        use wgpu::CompareFunction as C;
        use wgpu::PrimitiveTopology as T;
        let mesh_opaque = make(PipelineSpec {
            label: "viewer mesh",
            vs: "vs_mesh",
            fs: "fs_mesh",
            topology: T::TriangleList,
            lines: false,
            depth_write: true,
            compare: C::Less,
            blend: false,
        });
        let mesh_ghost = make(PipelineSpec {
            label: "viewer ghost mesh",
            vs: "vs_mesh",
            fs: "fs_mesh",
            topology: T::TriangleList,
            lines: false,
            depth_write: false,
            compare: C::Less,
            blend: true,
        });
        let lines_visible = make(PipelineSpec {
            label: "viewer lines",
            vs: "vs_line",
            fs: "fs_line",
            topology: T::LineList,
            lines: true,
            depth_write: false,
            compare: C::LessEqual,
            blend: true,
        });
        let lines_hidden = make(PipelineSpec {
            label: "viewer hidden lines",
            vs: "vs_line",
            fs: "fs_line_hidden",
            topology: T::LineList,
            lines: true,
            depth_write: false,
            compare: C::Greater,
            blend: true,
        });
        let points = make(PipelineSpec {
            label: "viewer points",
            vs: "vs_line",
            fs: "fs_line",
            topology: T::PointList,
            lines: true,
            depth_write: true,
            compare: C::LessEqual,
            blend: false,
        });
        Self {
            format,
            globals,
            globals_bg,
            draws,
            draws_bg,
            draw_capacity: 16,
            draw_layout,
            mesh_opaque,
            mesh_ghost,
            lines_visible,
            lines_hidden,
            points,
            depth: None,
            meshes: Vec::new(),
            coarse: Vec::new(),
            instances: Vec::new(),
            edges: LineSet::empty(),
            boxes: LineSet::empty(),
            ldi: LineSet::empty(),
        }
    }

    fn draw_buffer(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        capacity: u64,
    ) -> (wgpu::Buffer, wgpu::BindGroup) {
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("viewer draws"),
            size: capacity * DRAW_STRIDE,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("viewer draws"),
            layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &buffer,
                    offset: 0,
                    size: wgpu::BufferSize::new(std::mem::size_of::<DrawUniform>() as u64),
                }),
            }],
        });
        (buffer, bg)
    }

    /// The colour format this renderer draws to.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }

    /// Upload (or replace) the world-space geometry of object `index`.
    pub fn set_mesh(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        index: usize,
        positions: &[Vec3],
        triangles: &[[u32; 3]],
    ) {
        if self.meshes.len() <= index {
            self.meshes.resize_with(index + 1, || None);
        }
        if positions.is_empty() || triangles.is_empty() {
            self.meshes[index] = None;
            return;
        }
        let vbytes: &[u8] = bytemuck::cast_slice(positions);
        let ibytes: &[u8] = bytemuck::cast_slice(triangles);
        // Reuse the buffers when the sizes match (a moved or deformed object).
        if let Some(m) = &self.meshes[index] {
            if m.vertices.size() == vbytes.len() as u64 && m.indices.size() == ibytes.len() as u64 {
                queue.write_buffer(&m.vertices, 0, vbytes);
                queue.write_buffer(&m.indices, 0, ibytes);
                return;
            }
        }
        let make = |label: &str, bytes: &[u8], usage: wgpu::BufferUsages| {
            let b = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes.len() as u64,
                usage: usage | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            queue.write_buffer(&b, 0, bytes);
            b
        };
        self.meshes[index] = Some(GpuMesh {
            vertices: make("viewer vertices", vbytes, wgpu::BufferUsages::VERTEX),
            indices: make("viewer indices", ibytes, wgpu::BufferUsages::INDEX),
            count: (triangles.len() * 3) as u32,
        });
    }

    /// Keep only the first `n` mesh slots.
    pub fn truncate_meshes(&mut self, n: usize) {
        self.meshes.truncate(n);
        self.coarse.truncate(n);
    }

    /// Upload (or clear, with empty slices) the coarse mesh of slot `index`, drawn for
    /// instances marked `coarse` ([`crate::viewer::lod`]).
    pub fn set_mesh_lod(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        index: usize,
        positions: &[Vec3],
        triangles: &[[u32; 3]],
    ) {
        // Reuse set_mesh's upload on a scratch slot list.
        std::mem::swap(&mut self.meshes, &mut self.coarse);
        self.set_mesh(device, queue, index, positions, triangles);
        std::mem::swap(&mut self.meshes, &mut self.coarse);
    }

    /// Object `k` draws mesh slot `instances[k].mesh` at `instances[k].world_from_object`
    /// (empty: object `k` draws slot `k` as uploaded). Mirroring placements need nothing
    /// special: faces are drawn from both sides and lit two-sided.
    pub fn set_instances(&mut self, instances: Vec<Instance>) {
        self.instances = instances;
    }

    /// Bytes of mesh geometry on the GPU (vertex and index buffers of every slot and coarse
    /// mesh).
    pub fn mesh_bytes(&self) -> u64 {
        self.meshes
            .iter()
            .chain(&self.coarse)
            .flatten()
            .map(|m| m.vertices.size() + m.indices.size())
            .sum()
    }

    fn upload_lines(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        set: &mut LineSet,
        v: &[ColorVertex],
    ) {
        set.count = v.len() as u32;
        if v.is_empty() {
            return;
        }
        let bytes: &[u8] = bytemuck::cast_slice(v);
        if set
            .buffer
            .as_ref()
            .is_none_or(|b| b.size() < bytes.len() as u64)
        {
            set.buffer = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("viewer lines"),
                size: (bytes.len() as u64).next_power_of_two().max(256),
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        if let Some(b) = &set.buffer {
            queue.write_buffer(b, 0, bytes);
        }
    }

    /// Replace the intersection edges (line list: two vertices per segment).
    pub fn set_edges(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, v: &[ColorVertex]) {
        Self::upload_lines(device, queue, &mut self.edges, v);
    }

    /// Replace the box lines.
    pub fn set_boxes(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, v: &[ColorVertex]) {
        Self::upload_lines(device, queue, &mut self.boxes, v);
    }

    /// Replace the LDI points (empty: none shown).
    pub fn set_ldi_points(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        v: &[ColorVertex],
    ) {
        Self::upload_lines(device, queue, &mut self.ldi, v);
    }

    fn depth_view(&mut self, device: &wgpu::Device, size: (u32, u32)) -> wgpu::TextureView {
        if let Some((_, view, s)) = &self.depth {
            if *s == size {
                return view.clone();
            }
        }
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("viewer depth"),
            size: wgpu::Extent3d {
                width: size.0.max(1),
                height: size.1.max(1),
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        self.depth = Some((texture, view.clone(), size));
        view
    }

    /// Draw a frame into `target` (`size` pixels) as seen by `camera`.
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        target: &wgpu::TextureView,
        size: (u32, u32),
        camera: &OrbitCamera,
        styles: &[ObjectStyle],
        display: &Display,
    ) {
        let depth = self.depth_view(device, size);
        let g = Globals {
            view_proj: camera.view_projection().to_cols_array_2d(),
            eye: camera.eye().extend(1.0).to_array(),
            viewport: [size.0 as f32, size.1 as f32, 2e-4, 0.0],
            clip: display.clip,
        };
        queue.write_buffer(&self.globals, 0, bytemuck::bytes_of(&g));
        let n = if self.instances.is_empty() {
            styles.len().min(self.meshes.len())
        } else {
            styles.len().min(self.instances.len())
        } as u64;
        if n > self.draw_capacity {
            let cap = n.next_power_of_two();
            let (b, bg) = Self::draw_buffer(device, &self.draw_layout, cap);
            self.draws = b;
            self.draws_bg = bg;
            self.draw_capacity = cap;
        }
        let mut staging = vec![0u8; (n.max(1) * DRAW_STRIDE) as usize];
        for (k, s) in styles.iter().take(n as usize).enumerate() {
            let model = self
                .instances
                .get(k)
                .map_or(glam::Mat4::IDENTITY, |i| i.world_from_object);
            let d = DrawUniform {
                color: Vec4::from((Vec3::from(s.color), if s.ghost { 0.22 } else { 1.0 }))
                    .to_array(),
                flags: [f32::from(u8::from(s.selected)), s.tint, 0.0, 0.0],
                model: model.to_cols_array_2d(),
            };
            let at = k * DRAW_STRIDE as usize;
            staging[at..at + std::mem::size_of::<DrawUniform>()]
                .copy_from_slice(bytemuck::bytes_of(&d));
        }
        queue.write_buffer(&self.draws, 0, &staging);

        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("viewer frame"),
        });
        {
            let [r, g, b, a] = display.background;
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("viewer"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.globals_bg, &[]);
            let mesh_pass = |pass: &mut wgpu::RenderPass<'_>, ghost: bool| {
                for (k, s) in styles.iter().take(n as usize).enumerate() {
                    let slot = self.instances.get(k).map_or(k, |i| i.mesh);
                    let coarse = self.instances.get(k).is_some_and(|i| i.coarse);
                    let m = match (coarse, self.coarse.get(slot), self.meshes.get(slot)) {
                        (true, Some(Some(c)), _) => c,
                        (_, _, Some(Some(m))) => m,
                        _ => continue,
                    };
                    if !s.visible || s.ghost != ghost {
                        continue;
                    }
                    pass.set_bind_group(1, &self.draws_bg, &[(k as u64 * DRAW_STRIDE) as u32]);
                    pass.set_vertex_buffer(0, m.vertices.slice(..));
                    pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
                    pass.draw_indexed(0..m.count, 0, 0..1);
                }
            };
            if display.surfaces {
                pass.set_pipeline(&self.mesh_opaque);
                mesh_pass(&mut pass, false);
            }
            // Lines and points need a draw uniform bound even though they do not read it.
            pass.set_bind_group(1, &self.draws_bg, &[0]);
            if let (Some(b), true) = (&self.ldi.buffer, self.ldi.count > 0) {
                pass.set_pipeline(&self.points);
                pass.set_vertex_buffer(0, b.slice(..));
                pass.draw(0..self.ldi.count, 0..1);
            }
            if let (Some(b), true) = (&self.boxes.buffer, self.boxes.count > 0) {
                pass.set_pipeline(&self.lines_visible);
                pass.set_vertex_buffer(0, b.slice(..));
                pass.draw(0..self.boxes.count, 0..1);
            }
            if let (Some(b), true) = (&self.edges.buffer, self.edges.count > 0) {
                pass.set_pipeline(&self.lines_visible);
                pass.set_vertex_buffer(0, b.slice(..));
                pass.draw(0..self.edges.count, 0..1);
            }
            if display.surfaces {
                pass.set_pipeline(&self.mesh_ghost);
                mesh_pass(&mut pass, true);
                pass.set_bind_group(1, &self.draws_bg, &[0]);
            }
            if display.hidden_edges {
                if let (Some(b), true) = (&self.edges.buffer, self.edges.count > 0) {
                    pass.set_pipeline(&self.lines_hidden);
                    pass.set_vertex_buffer(0, b.slice(..));
                    pass.draw(0..self.edges.count, 0..1);
                }
            }
        }
        queue.submit([encoder.finish()]);
    }
}

/// Line-list vertices of segments in one colour.
pub fn segment_vertices(segments: &[[Vec3; 2]], color: [u8; 4], out: &mut Vec<ColorVertex>) {
    for s in segments {
        for p in s {
            out.push(ColorVertex {
                position: p.to_array(),
                color,
            });
        }
    }
}

/// Line-list vertices of the 12 edges of a box.
pub fn box_vertices(lo: Vec3, hi: Vec3, color: [u8; 4], out: &mut Vec<ColorVertex>) {
    let c = |i: u32| {
        Vec3::new(
            if i & 1 == 0 { lo.x } else { hi.x },
            if i & 2 == 0 { lo.y } else { hi.y },
            if i & 4 == 0 { lo.z } else { hi.z },
        )
    };
    for (a, b) in [
        (0, 1),
        (2, 3),
        (4, 5),
        (6, 7),
        (0, 2),
        (1, 3),
        (4, 6),
        (5, 7),
        (0, 4),
        (1, 5),
        (2, 6),
        (3, 7),
    ] {
        segment_vertices(&[[c(a), c(b)]], color, out);
    }
}

/// The colour of the `index`-th object.
pub fn palette(index: usize) -> [f32; 3] {
    PALETTE[index % PALETTE.len()]
}
