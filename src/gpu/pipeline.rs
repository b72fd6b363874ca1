//! The GPU LDI pipeline driver: geometry upload, tile planning, the passes in order, and the
//! only submissions and readbacks of a run (STYLE.md: passes record, one place submits).
//!
//! How it works (issue 3; seed 002 §3, seed 000 §3.3/§4.1):
//! 1. Vertices are projected and snapped on the host exactly as the CPU rasteriser does
//!    (1/256 pixel, `ldi::snap::project_vertices`) and uploaded as 32-bit fixed point.
//! 2. Sizing: a count pass over the image (in framebuffer-sized pieces) and per-row totals
//!    (sum, max) — the only readback before the real work, `8 × rows` bytes.
//! 3. Tiles: rows are grouped so that each tile's storage (fragments, offsets, cursor, counts,
//!    scratch, peel layers) fits the budget and every buffer fits the device's largest storage
//!    binding. One tile is the usual case; then the sizing counts are reused.
//! 4. Per tile: count (again, only when tiled) → scan → fill (fragment lists) or one peel pass
//!    per layer and side (peeling) → sort (+ completeness check) → analyses, which accumulate
//!    into pair tables that stay on the GPU.
//! 5. Readback: the status counters per tile (never a silent loss), the pair tables, and the
//!    LDI or the contact mask only when asked for.

use std::collections::BTreeMap;

use wgpu::util::DeviceExt;

use super::context::GpuContext;
use super::error::GpuError;
use super::gpu_data::{
    depth_from_key, GpuAnalysisParams, GpuFragment, GpuPairAcc, GpuSelfAcc, GpuStatus, GpuTile,
    GpuVertex, NO_OUTLINE,
};
use super::passes::{self, bind_group, dispatch_size, uniform, GeometryDraw};
use super::readback::{read_many, read_many_after, read_pod};
use super::timing::Timer;
use crate::clock::now_ms;
use crate::ldi::snap::{project_vertices, RasterObject, SUBPIXEL};
use crate::ldi::{Fragment, Ldi, LdiView};

/// How the GPU builds the LDI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LdiMethod {
    /// Count, prefix sum, fill, sort: every fragment in two geometry passes (default).
    #[default]
    FragmentList,
    /// Depth peeling: one geometry pass per layer, front and back faces separately.
    Peel,
}

impl LdiMethod {
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            LdiMethod::FragmentList => "fraglist",
            LdiMethod::Peel => "peel",
        }
    }
}

impl std::str::FromStr for LdiMethod {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "fraglist" => Ok(LdiMethod::FragmentList),
            "peel" => Ok(LdiMethod::Peel),
            _ => Err(format!("unknown LDI method '{s}': use fraglist or peel")),
        }
    }
}

/// The per-pixel sort.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortVariant {
    /// Insertion sort at any length.
    Insertion,
    /// Insertion sort up to 32 fragments, merge sort beyond (default).
    #[default]
    Merge,
}

/// Settings of a GPU LDI build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LdiDesc {
    /// Fragment lists or peeling.
    pub method: LdiMethod,
    /// Sort variant.
    pub sort: SortVariant,
    /// Storage budget per tile in bytes (default: only the device limits); geometry buffers
    /// are split into chunks of at most this (and at least 64 KiB) too. Tests set a small
    /// one to force tiling.
    pub budget: Option<u64>,
    /// Build only this window `[x0, y0, width, height]` of the view's image (the check's
    /// refined blocks); `None`: the whole image. Pixels of the window hold exactly what the
    /// whole image holds there.
    pub window: Option<[u32; 4]>,
}

/// What to compute besides the LDI.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Analyses {
    /// Intersection volumes of every pair.
    pub volume: bool,
    /// The volume's border coverage (issue 13): the pair's box overlap outline in image
    /// pixels (`LdiView::footprint`); `None` counts every pixel whole.
    pub volume_outline: Option<[f32; 4]>,
    /// Surface contacts with this tolerance in normalised depth.
    pub surface_eps: Option<f32>,
    /// Self-collision of this object.
    pub self_object: Option<u32>,
    /// Read the whole LDI back (tests, the CPU analyses).
    pub read_ldi: bool,
    /// Read the contact mask back (one bit per pixel).
    pub read_mask: bool,
    /// Directional separation of a pair (issue 13; `super::separation`).
    pub separation: Option<super::separation::SeparationAsk>,
}

/// One pair's intersection as the GPU measured it (image units; `collide` converts).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuPairVolume {
    /// First object.
    pub a: u32,
    /// Second object.
    pub b: u32,
    /// Sum of interval lengths over pixels (normalised depth × pixels).
    pub length: f64,
    /// Deepest interval (normalised).
    pub deepest: f32,
    /// Pixels with overlap.
    pub pixels: u64,
    /// Lower bounds: column, row (pixels), depth (normalised).
    pub lo: [f32; 3],
    /// Upper bounds.
    pub hi: [f32; 3],
}

/// One pair's surface contacts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuPairContacts {
    /// First object.
    pub a: u32,
    /// Second object.
    pub b: u32,
    /// Contact pixels.
    pub pixels: u64,
    /// Smallest gap (normalised).
    pub min_gap: f32,
    /// Lower bounds.
    pub lo: [f32; 3],
    /// Upper bounds.
    pub hi: [f32; 3],
}

/// One object's self-collision summary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuSelf {
    /// The object.
    pub object: u32,
    /// Sum of interval lengths (normalised depth × pixels).
    pub length: f64,
    /// Longest interval (normalised).
    pub deepest: f32,
    /// Pixels with an interval.
    pub pixels: u64,
    /// Largest occupancy count.
    pub max_count: u32,
    /// Pixels with an open interval.
    pub unterminated: u64,
    /// Intervals.
    pub intervals: u64,
}

/// Numbers from one GPU run.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct GpuStats {
    /// Fragments in the LDI.
    pub fragments: u64,
    /// Tiles the image was split into.
    pub tiles: u32,
    /// Chunks the geometry was split into (1 unless it exceeds a storage binding).
    pub geometry_chunks: u32,
    /// Peak bytes of GPU storage (geometry + the largest tile).
    pub bytes: u64,
    /// Geometry passes drawn.
    pub geometry_passes: u32,
    /// Peeling: layers (front + back, largest tile).
    pub layers: u32,
    /// `gpu` (timestamp queries) or `wall` (CPU wall time per submission).
    pub timer: String,
    /// Milliseconds per pass label.
    pub timings_ms: BTreeMap<String, f64>,
}

/// Everything a run produced.
#[derive(Debug, Clone, Default)]
pub struct GpuOutput {
    /// The LDI, when asked for.
    pub ldi: Option<Ldi>,
    /// Pairs with overlap.
    pub volume: Vec<GpuPairVolume>,
    /// Pairs in contact.
    pub surface: Vec<GpuPairContacts>,
    /// Self-collision summary.
    pub self_intersection: Option<GpuSelf>,
    /// Contact mask, one bit per pixel (row-major), when asked for.
    pub mask: Option<Vec<u32>>,
    /// Directional separation, when asked for (`super::separation`).
    pub separation: Option<super::separation::GpuSeparation>,
    /// Counters and timings.
    pub stats: GpuStats,
}

/// Build the LDI of `objects` seen by `view` on the GPU and read it back.
pub async fn build_ldi(
    ctx: &GpuContext,
    view: &LdiView,
    objects: &[RasterObject<'_>],
    desc: &LdiDesc,
) -> Result<(Ldi, GpuStats), GpuError> {
    let out = run(
        ctx,
        view,
        objects,
        desc,
        &Analyses {
            read_ldi: true,
            ..Analyses::default()
        },
    )
    .await?;
    let ldi = out
        .ldi
        .unwrap_or_else(|| Ldi::empty(view.width, view.height));
    Ok((ldi, out.stats))
}

/// A tile: columns `x0..x0+width`, rows `y0..y0+height`, its fragment total and longest list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Tile {
    x0: u32,
    y0: u32,
    width: u32,
    height: u32,
    fragments: u64,
    longest: u32,
}

impl Tile {
    fn pixels(&self) -> u32 {
        self.width * self.height
    }
}

const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

fn buffer(ctx: &GpuContext, label: &str, size: u64) -> wgpu::Buffer {
    ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size.max(16).next_multiple_of(4),
        usage: STORAGE,
        mapped_at_creation: false,
    })
}

fn init_buffer(ctx: &GpuContext, label: &str, bytes: &[u8]) -> wgpu::Buffer {
    let mut padded;
    let contents = if bytes.len() < 16 {
        padded = bytes.to_vec();
        padded.resize(16, 0);
        &padded[..]
    } else {
        bytes
    };
    ctx.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents,
            usage: STORAGE,
        })
}

/// Bytes a tile needs: fragments (+ merge scratch), offsets, counts, cursor (+ two peel layers).
fn tile_bytes(fragments: u64, longest: u32, pixels: u64, desc: &LdiDesc) -> u64 {
    let scratch = desc.sort == SortVariant::Merge && longest > passes::sort::RUN;
    let frag = fragments * 8 * if scratch { 2 } else { 1 };
    let per_pixel = if desc.method == LdiMethod::Peel { 5 } else { 3 };
    frag + (pixels * per_pixel + 1) * 4
}

/// The framebuffer side for a tile side: a power of two, so clip coordinates are exact.
fn fb_side(n: u32) -> u32 {
    n.max(1).next_power_of_two()
}

/// Run the pipeline: the LDI and the asked-for analyses.
pub async fn run(
    ctx: &GpuContext,
    view: &LdiView,
    objects: &[RasterObject<'_>],
    desc: &LdiDesc,
    want: &Analyses,
) -> Result<GpuOutput, GpuError> {
    ctx.check_lost()?;
    let analyses = want.volume
        || want.surface_eps.is_some()
        || want.self_object.is_some()
        || want.separation.is_some();
    let object_count = objects.iter().map(|o| o.id as usize + 1).max().unwrap_or(0);
    // The pair tables: an entry per pair of object ids, and the entry counting the pixels an
    // analysis could not follow whole. They must fit one storage binding.
    let table_entries = pair_count(object_count) + 1;
    let table_bytes = (table_entries * std::mem::size_of::<GpuPairAcc>()) as u64;
    if analyses && table_bytes > ctx.caps.max_storage_buffer() {
        let per = std::mem::size_of::<GpuPairAcc>() as u64;
        let most = (1..=object_count)
            .rev()
            .find(|&n| (pair_count(n) as u64 + 1) * per <= ctx.caps.max_storage_buffer())
            .unwrap_or(0);
        return Err(GpuError::TooManyObjects {
            objects: object_count,
            max: most,
        });
    }
    let (w, h) = (view.width, view.height);
    // The window to build: [wx, wx + ww) × [wy, wy + wh), within the image.
    let [wx, wy, ww, wh] = match desc.window {
        Some([x, y, ww, wh]) => {
            let (x, y) = (x.min(w), y.min(h));
            [x, y, ww.min(w - x), wh.min(h - y)]
        }
        None => [0, 0, w, h],
    };
    if ww == 0 || wh == 0 {
        return Ok(GpuOutput {
            ldi: want.read_ldi.then(|| Ldi::empty(0, 0)),
            ..GpuOutput::default()
        });
    }
    let max_buf = ctx.caps.max_storage_buffer();
    let budget = desc.budget.unwrap_or(u64::MAX);
    let max_groups = ctx.caps.max_workgroups_per_dim;
    let mut timer = Timer::new(ctx);
    let mut stats = GpuStats {
        timer: if timer.gpu() { "gpu" } else { "wall" }.to_string(),
        ..GpuStats::default()
    };

    // 1. Geometry.
    let t_upload = now_ms();
    let mut verts: Vec<GpuVertex> = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    let mut ranges: Vec<(u32, u32, u32)> = Vec::new();
    const LIMIT: f64 = (1u32 << 29) as f64;
    for o in objects {
        let base = verts.len() as u32;
        for v in project_vertices(view, o.positions) {
            let (x, y) = (v.x * SUBPIXEL, v.y * SUBPIXEL);
            if !(x.abs() < LIMIT && y.abs() < LIMIT && v.z.is_finite()) {
                return Err(GpuError::CoordinateRange {
                    pixels: v.x.abs().max(v.y.abs()),
                });
            }
            verts.push(GpuVertex {
                x: x as i32,
                y: y as i32,
                z: v.z as f32,
            });
        }
        let t0 = (indices.len() / 3) as u32;
        for t in o.triangles {
            indices.extend(t.iter().map(|&i| base + i));
        }
        ranges.push((o.id, t0, (indices.len() / 3) as u32));
    }
    let geometry_bytes = (verts.len() * 12 + indices.len() * 4) as u64;
    // The budget bounds geometry chunks too (at least 64 KiB each).
    let geometry = Geometry::upload(
        ctx,
        &verts,
        &indices,
        &ranges,
        max_buf.min(budget.max(1 << 16)),
    )?;
    drop((verts, indices));
    stats.geometry_chunks = geometry.chunks.len() as u32;
    let dummy = buffer(ctx, "GpuLdi::dummy", 16);
    timer.add_wall("upload", now_ms() - t_upload);

    // Global analysis results, for the analyses asked for only (a buffer made is host work
    // the threads driving GPU jobs contend for).
    let pair_table = |label: &str, surface: bool| {
        let init: Vec<GpuPairAcc> = (0..table_entries)
            .map(|_| GpuPairAcc::empty(surface))
            .collect();
        init_buffer(ctx, label, bytemuck::cast_slice(&init))
    };
    let volume_pairs = want
        .volume
        .then(|| pair_table("GpuLdi::volume_pairs", false));
    let surface_pairs = want
        .surface_eps
        .map(|_| pair_table("GpuLdi::surface_pairs", true));
    let mask_words = (u64::from(w) * u64::from(h)).div_ceil(32);
    let mask = want
        .surface_eps
        .map(|_| buffer(ctx, "GpuLdi::mask", mask_words * 4));
    let self_acc = want.self_object.map(|_| {
        init_buffer(
            ctx,
            "GpuLdi::self_acc",
            bytemuck::bytes_of(&GpuSelfAcc::default()),
        )
    });

    // 2. Sizing: counts per column chunk and row band, then row totals.
    let max_side = {
        let m = ctx.caps.max_texture_2d.max(1);
        if m.is_power_of_two() {
            m
        } else {
            m.next_power_of_two() / 2
        }
    };
    let chunk_w = ww.min(max_side);
    let mut sized: Vec<(Tile, wgpu::Buffer)> = Vec::new();
    let mut row_stats: Vec<Vec<(u32, u32)>> = Vec::new(); // per column chunk, per window row
    let mut x0 = wx;
    while x0 < wx + ww {
        let cw = chunk_w.min(wx + ww - x0);
        let band = ((max_buf / 4 / u64::from(cw)) as u32).clamp(1, max_side);
        let mut rows_of_chunk = Vec::with_capacity(wh as usize);
        let mut y0 = wy;
        while y0 < wy + wh {
            let bh = band.min(wy + wh - y0);
            let tile = Tile {
                x0,
                y0,
                width: cw,
                height: bh,
                fragments: 0,
                longest: 0,
            };
            let counts = buffer(ctx, "GpuLdi::counts", u64::from(tile.pixels()) * 4);
            let stats_buf = buffer(ctx, "GpuLdi::row_stats", u64::from(bh) * 8);
            let t = now_ms();
            let mut keep = Vec::new();
            // The count, the row totals and their readback in one submission.
            let read = read_many(
                ctx,
                "GpuLdi::sizing",
                |enc| {
                    enc.clear_buffer(&counts, 0, None);
                    record_count(
                        ctx,
                        enc,
                        &tile,
                        &geometry,
                        &counts,
                        timer.stamp("count"),
                        &mut keep,
                    );
                    ctx.passes.scan.record_rows(
                        &ctx.device,
                        enc,
                        &counts,
                        cw,
                        bh,
                        &stats_buf,
                        &dummy,
                        &mut keep,
                    );
                },
                &[(&stats_buf, 0, u64::from(bh) * 8)],
            )
            .await?;
            drop(keep);
            stats.geometry_passes += 1;
            let rs: Vec<[u32; 2]> = read
                .first()
                .map(|b| bytemuck::pod_collect_to_vec(b))
                .unwrap_or_default();
            if rs.len() != bh as usize {
                return Err(GpuError::Map {
                    label: "GpuLdi::row_stats".into(),
                    message: format!("{} of {bh} rows read back", rs.len()),
                });
            }
            timer.add_wall("count", now_ms() - t);
            for r in rs {
                if r[0] == u32::MAX {
                    return Err(GpuError::TooManyFragments);
                }
                rows_of_chunk.push((r[0], r[1]));
            }
            sized.push((tile, counts));
            y0 += bh;
        }
        row_stats.push(rows_of_chunk);
        x0 += cw;
    }

    // 3. Plan tiles: bands of rows per column chunk within the budget.
    let mut tiles: Vec<Tile> = Vec::new();
    for (ci, rows) in row_stats.iter().enumerate() {
        let x0 = wx + ci as u32 * chunk_w;
        let cw = chunk_w.min(wx + ww - x0);
        let mut y0 = wy;
        while y0 < wy + wh {
            let (mut frags, mut longest, mut y1) = (0u64, 0u32, y0);
            while y1 < wy + wh {
                let (s, m) = rows[(y1 - wy) as usize];
                let f2 = frags + u64::from(s);
                let l2 = longest.max(m);
                let px = u64::from(y1 - y0 + 1) * u64::from(cw);
                let bytes = tile_bytes(f2, l2, px, desc);
                let fits = bytes <= budget
                    && f2 * 8 <= max_buf
                    && (px + 1) * 4 <= max_buf
                    && y1 - y0 < max_side
                    && f2 < u64::from(u32::MAX);
                if !fits {
                    if y1 == y0 {
                        return Err(if f2 >= u64::from(u32::MAX) {
                            GpuError::TooManyFragments
                        } else {
                            GpuError::Capacity {
                                need: bytes,
                                budget: budget.min(max_buf),
                            }
                        });
                    }
                    break;
                }
                frags = f2;
                longest = l2;
                y1 += 1;
            }
            tiles.push(Tile {
                x0,
                y0,
                width: cw,
                height: y1 - y0,
                fragments: frags,
                longest,
            });
            y0 = y1;
        }
    }
    stats.tiles = tiles.len() as u32;
    stats.fragments = tiles.iter().map(|t| t.fragments).sum();
    if stats.fragments >= u64::from(u32::MAX) {
        return Err(GpuError::TooManyFragments);
    }

    // Separation (issue 13): its values carry over the tiles.
    let mut separation = want
        .separation
        .map(|ask| super::separation::SeparationRun::new(ctx, ask));

    // 4. Per tile. A tile's build, sort and analyses are one submission (two when peeling);
    // a run of one tile whose results need nothing in between leaves it to the results'
    // readback, which then submits it with its copies (`results_encoder`).
    let fuse_results = tiles.len() == 1
        && separation.is_none()
        && !want.read_ldi
        && desc.method == LdiMethod::FragmentList;
    let mut results_encoder: Option<wgpu::CommandEncoder> = None;
    let mut parts: Vec<(Tile, Vec<u32>, Vec<GpuFragment>)> = Vec::new();
    let mut statuses: Vec<wgpu::Buffer> = Vec::with_capacity(tiles.len());
    // What the last tile's commands use while the results' readback has them to submit.
    let mut kept: Vec<wgpu::Buffer> = Vec::new();
    let mut peak = 0u64;
    for tile in &tiles {
        let t_tile = now_ms();
        let pixels = tile.pixels();
        peak = peak.max(tile_bytes(
            tile.fragments,
            tile.longest,
            u64::from(pixels),
            desc,
        ));
        let reuse = sized.iter().position(|(s, _)| {
            (s.x0, s.y0, s.width, s.height) == (tile.x0, tile.y0, tile.width, tile.height)
        });
        let counts = match reuse {
            Some(i) => sized[i].1.clone(),
            None => buffer(ctx, "GpuLdi::counts", u64::from(pixels) * 4),
        };
        let offsets = buffer(ctx, "GpuLdi::offsets", (u64::from(pixels) + 1) * 4);
        let cursor = buffer(ctx, "GpuLdi::cursor", u64::from(pixels) * 4);
        let fragments = buffer(ctx, "GpuLdi::fragments", tile.fragments * 8);
        let scratch = if desc.sort == SortVariant::Merge && tile.longest > passes::sort::RUN {
            buffer(ctx, "GpuLdi::scratch", tile.fragments * 8)
        } else {
            dummy.clone()
        };
        let status = init_buffer(
            ctx,
            "GpuLdi::status",
            bytemuck::bytes_of(&GpuStatus::default()),
        );
        let mut keep: Vec<wgpu::Buffer> = Vec::new();
        let fill_group = bind_group(
            &ctx.device,
            "FillPass::group",
            &ctx.passes.fill.layout,
            &[&offsets, &cursor, &fragments, &status],
        );
        // count (when tiled) + scan (+ fill); sorted and analysed in the same submission
        // unless peeling.
        let mut built: Option<wgpu::CommandEncoder> = None;
        ctx.scoped("GpuLdi::build", || {
            let mut enc = ctx.encoder("GpuLdi::build");
            if reuse.is_none() {
                enc.clear_buffer(&counts, 0, None);
                record_count(
                    ctx,
                    &mut enc,
                    tile,
                    &geometry,
                    &counts,
                    timer.stamp("count"),
                    &mut keep,
                );
            }
            ctx.passes.scan.record_scan(
                &ctx.device,
                &mut enc,
                &counts,
                pixels,
                &offsets,
                max_groups,
                timer.stamp("scan"),
                &mut keep,
            );
            enc.clear_buffer(&cursor, 0, None);
            if desc.method == LdiMethod::FragmentList {
                let (target, tile_buf, group0) = geometry_inputs(ctx, tile, 0, 0, &geometry);
                let draw = GeometryDraw {
                    parts: geometry.parts(&group0),
                    target: &target,
                };
                ctx.passes
                    .fill
                    .record(&mut enc, &draw, &fill_group, timer.stamp("fill"));
                keep.push(tile_buf);
                built = Some(enc);
            } else {
                ctx.submit(enc);
            }
        })
        .await?;
        stats.geometry_passes += u32::from(reuse.is_none());
        if desc.method == LdiMethod::FragmentList {
            stats.geometry_passes += 1;
        } else {
            let layers = peel_tile(
                ctx, tile, &geometry, &offsets, &cursor, &fragments, &status, &mut timer,
                &mut stats,
            )
            .await?;
            stats.layers = stats.layers.max(layers);
        }
        // sort + analyses.
        ctx.scoped("GpuLdi::sort_and_analyse", || {
            let mut enc = built
                .take()
                .unwrap_or_else(|| ctx.encoder("GpuLdi::sort_and_analyse"));
            let targets = passes::sort::SortTargets {
                offsets: &offsets,
                cursor: &cursor,
                fragments: &fragments,
                scratch: &scratch,
                status: &status,
            };
            let variant = match desc.sort {
                SortVariant::Insertion => 0,
                SortVariant::Merge => 1,
            };
            ctx.passes.sort.record(
                &ctx.device,
                &mut enc,
                &targets,
                pixels,
                variant,
                max_groups,
                timer.stamp("sort"),
                &mut keep,
            );
            if analyses {
                let (gx, gy, row) = dispatch_size(pixels, 64, max_groups);
                let params = uniform(
                    &ctx.device,
                    "GpuLdi::analysis_params",
                    &GpuAnalysisParams {
                        x0: tile.x0,
                        y0: tile.y0,
                        width: tile.width,
                        height: tile.height,
                        objects: object_count as u32,
                        self_object: want.self_object.unwrap_or(0),
                        eps: want.surface_eps.unwrap_or(0.0),
                        image_width: w,
                        row,
                        pad0: 0,
                        pad1: 0,
                        pad2: 0,
                        outline: want.volume_outline.unwrap_or(NO_OUTLINE),
                    },
                );
                if let Some(volume_pairs) = &volume_pairs {
                    ctx.passes.volume.record(
                        &ctx.device,
                        &mut enc,
                        &[&params, &offsets, &fragments, volume_pairs],
                        (gx, gy),
                        timer.stamp("volume"),
                    );
                }
                if let (Some(surface_pairs), Some(mask)) = (&surface_pairs, &mask) {
                    ctx.passes.surface.record(
                        &ctx.device,
                        &mut enc,
                        &[&params, &offsets, &fragments, surface_pairs, mask],
                        (gx, gy),
                        timer.stamp("surface"),
                    );
                }
                if let Some(self_acc) = &self_acc {
                    ctx.passes.self_intersection.record(
                        &ctx.device,
                        &mut enc,
                        &[&params, &offsets, &fragments, self_acc],
                        (gx, gy),
                        timer.stamp("self"),
                    );
                }
                keep.push(params);
            }
            // The timer's queries are read with the results unless it must be read before.
            if fuse_results && !timer.nearly_full() {
                results_encoder = Some(enc);
            } else {
                ctx.submit(enc);
            }
        })
        .await?;
        // Read with the results (one round trip for them all); an incomplete tile is an
        // error before any result is used.
        statuses.push(status);
        timer.add_wall("tile", now_ms() - t_tile);
        if let Some(sep) = separation.as_mut() {
            let t = [tile.x0, tile.y0, tile.width, tile.height];
            sep.tile(
                ctx,
                t,
                w,
                object_count as u32,
                &offsets,
                &fragments,
                &mut timer,
            )
            .await?;
        }
        if want.read_ldi {
            let offs: Vec<u32> =
                read_pod(ctx, &offsets, 0, u64::from(pixels) + 1, "GpuLdi::offsets").await?;
            let frags: Vec<GpuFragment> =
                read_pod(ctx, &fragments, 0, tile.fragments, "GpuLdi::fragments").await?;
            parts.push((*tile, offs, frags));
        }
        if timer.nearly_full() && results_encoder.is_none() {
            timer.flush(ctx).await?;
        }
        if results_encoder.is_some() {
            kept.append(&mut keep);
        }
    }
    stats.bytes = geometry_bytes + peak;

    // 5. Read back: the tiles' statuses, the timestamps and the accumulators in one readback.
    let status_size = std::mem::size_of::<GpuStatus>() as u64;
    let pairs_size = table_bytes;
    let mut ranges: Vec<(&wgpu::Buffer, u64, u64)> =
        statuses.iter().map(|b| (b, 0, status_size)).collect();
    let timer_at = timer.pending().map(|r| {
        ranges.push(r);
        ranges.len() - 1
    });
    let volume_at = volume_pairs.as_ref().map(|b| {
        ranges.push((b, 0, pairs_size));
        ranges.len() - 1
    });
    let surface_at = surface_pairs.as_ref().map(|b| {
        ranges.push((b, 0, pairs_size));
        ranges.len() - 1
    });
    let mask_at = mask.as_ref().filter(|_| want.read_mask).map(|b| {
        ranges.push((b, 0, mask_words * 4));
        ranges.len() - 1
    });
    let self_at = self_acc.as_ref().map(|b| {
        ranges.push((b, 0, std::mem::size_of::<GpuSelfAcc>() as u64));
        ranges.len() - 1
    });
    let read = read_many_after(
        ctx,
        "GpuLdi::results",
        results_encoder,
        |e| timer.resolve(e),
        &ranges,
    )
    .await?;
    drop((ranges, kept));
    for bytes in &read[..statuses.len()] {
        let st: GpuStatus = bytemuck::try_pod_read_unaligned(bytes).unwrap_or_default();
        if st.overflow != 0 || st.lost != 0 {
            return Err(GpuError::Incomplete {
                overflow: st.overflow,
                lost: st.lost,
            });
        }
    }
    if let Some(i) = timer_at {
        timer.add_ticks(ctx, &read[i]);
    }

    // 6. Results.
    let mut out = GpuOutput::default();
    if want.read_ldi {
        let mut ldi = stitch([wx, wy, ww, wh], &parts);
        if [wx, wy, ww, wh] != [0, 0, w, h] {
            ldi.layout = crate::ldi::Layout::Blocks {
                size: [ww, wh],
                origins: vec![[wx, wy]],
            };
        }
        out.ldi = Some(ldi);
    }
    // Pixels an analysis could not follow whole: an error, not a partial answer.
    let last_entry = (table_entries - 1) * std::mem::size_of::<GpuPairAcc>();
    for i in [volume_at, surface_at].into_iter().flatten() {
        let lost = read[i]
            .get(last_entry..)
            .and_then(|b| bytemuck::try_pod_read_unaligned::<GpuPairAcc>(b).ok());
        if let Some(lost) = lost.filter(|a| a.pixels > 0) {
            return Err(GpuError::AnalysisCapacity {
                pixels: u64::from(lost.pixels),
                analysis: if Some(i) == volume_at {
                    "volume"
                } else {
                    "surface"
                },
            });
        }
    }
    if let Some(i) = volume_at {
        let accs: Vec<GpuPairAcc> = bytemuck::pod_collect_to_vec(&read[i]);
        out.volume = pairs_of(&accs, object_count)
            .map(|(a, b, acc)| GpuPairVolume {
                a,
                b,
                length: acc.sum(),
                deepest: f32::from_bits(acc.extreme),
                pixels: u64::from(acc.pixels),
                lo: bounds_lo(acc),
                hi: bounds_hi(acc),
            })
            .collect();
    }
    if let Some(i) = surface_at {
        let accs: Vec<GpuPairAcc> = bytemuck::pod_collect_to_vec(&read[i]);
        out.surface = pairs_of(&accs, object_count)
            .map(|(a, b, acc)| GpuPairContacts {
                a,
                b,
                pixels: u64::from(acc.pixels),
                min_gap: f32::from_bits(acc.extreme),
                lo: bounds_lo(acc),
                hi: bounds_hi(acc),
            })
            .collect();
        out.mask = mask_at.map(|i| bytemuck::pod_collect_to_vec(&read[i]));
    }
    if let (Some(object), Some(i)) = (want.self_object, self_at) {
        let acc: GpuSelfAcc = bytemuck::try_pod_read_unaligned(&read[i]).unwrap_or_default();
        out.self_intersection = Some(GpuSelf {
            object,
            length: (f64::from(acc.sum_hi) * 4_294_967_296.0 + f64::from(acc.sum_lo))
                / super::gpu_data::FIXED_SCALE,
            deepest: f32::from_bits(acc.deepest),
            pixels: u64::from(acc.pixels),
            max_count: acc.max_count,
            unterminated: u64::from(acc.unterminated),
            intervals: u64::from(acc.intervals),
        });
    }
    out.separation = separation.map(super::separation::SeparationRun::finish);
    stats.timings_ms = std::mem::take(&mut timer.totals);
    out.stats = stats;
    Ok(out)
}

/// Pairs `a < b` of `objects` objects.
fn pair_count(objects: usize) -> usize {
    objects * objects.saturating_sub(1) / 2
}

/// Pairs `(a, b, acc)` with `a < b < objects` that have pixels: the table holds them row by
/// row, (0, 1), (0, 2), …, (1, 2), … (`pair_index` in shaders/common/analysis.wgsl).
fn pairs_of(accs: &[GpuPairAcc], objects: usize) -> impl Iterator<Item = (u32, u32, &GpuPairAcc)> {
    (0..objects)
        .flat_map(move |a| (a + 1..objects).map(move |b| (a, b)))
        .zip(accs)
        .filter(|(_, acc)| acc.pixels > 0)
        .map(|((a, b), acc)| (a as u32, b as u32, acc))
}

fn bounds_lo(acc: &GpuPairAcc) -> [f32; 3] {
    [acc.lo_x as f32, acc.lo_y as f32, depth_from_key(acc.lo_z)]
}

fn bounds_hi(acc: &GpuPairAcc) -> [f32; 3] {
    [acc.hi_x as f32, acc.hi_y as f32, depth_from_key(acc.hi_z)]
}

/// The geometry on the GPU, in chunks that each fit the largest storage binding (one chunk
/// unless the scene is huge; then triangles are split and their vertices re-indexed).
struct Geometry {
    chunks: Vec<Chunk>,
}

struct Chunk {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    /// (object id, first triangle, end triangle) within the chunk.
    ranges: Vec<(u32, u32, u32)>,
}

impl Geometry {
    fn upload(
        ctx: &GpuContext,
        verts: &[GpuVertex],
        indices: &[u32],
        ranges: &[(u32, u32, u32)],
        max_buf: u64,
    ) -> Result<Self, GpuError> {
        let fits = |v: usize, i: usize| (v * 12) as u64 <= max_buf && (i * 4) as u64 <= max_buf;
        if fits(verts.len(), indices.len()) {
            return Ok(Self {
                chunks: vec![Chunk {
                    vertices: init_buffer(ctx, "Geometry::vertices", bytemuck::cast_slice(verts)),
                    indices: init_buffer(ctx, "Geometry::indices", bytemuck::cast_slice(indices)),
                    ranges: ranges.to_vec(),
                }],
            });
        }
        // Split: at most `per` triangles per chunk, vertices re-indexed per chunk.
        let per = (max_buf / 36).max(1) as usize;
        let mut chunks = Vec::new();
        let mut remap: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
        for &(id, t0, t1) in ranges {
            let mut t = t0 as usize;
            while t < t1 as usize {
                let end = (t + per).min(t1 as usize);
                remap.clear();
                let mut cv: Vec<GpuVertex> = Vec::new();
                let mut ci: Vec<u32> = Vec::with_capacity((end - t) * 3);
                for &i in &indices[3 * t..3 * end] {
                    let k = *remap.entry(i).or_insert_with(|| {
                        cv.push(verts[i as usize]);
                        (cv.len() - 1) as u32
                    });
                    ci.push(k);
                }
                chunks.push(Chunk {
                    vertices: init_buffer(ctx, "Geometry::vertices", bytemuck::cast_slice(&cv)),
                    indices: init_buffer(ctx, "Geometry::indices", bytemuck::cast_slice(&ci)),
                    ranges: vec![(id, 0, (end - t) as u32)],
                });
                t = end;
            }
        }
        Ok(Self { chunks })
    }

    fn parts<'a>(&'a self, groups: &'a [wgpu::BindGroup]) -> Vec<passes::DrawPart<'a>> {
        groups
            .iter()
            .zip(&self.chunks)
            .map(|(g, c)| (g, &c.ranges[..]))
            .collect()
    }
}

/// The framebuffer view, tile uniform and group-0 bind groups of a geometry pass.
fn geometry_inputs(
    ctx: &GpuContext,
    tile: &Tile,
    cull: u32,
    first: u32,
    geometry: &Geometry,
) -> (wgpu::TextureView, wgpu::Buffer, Vec<wgpu::BindGroup>) {
    let (fw, fh) = (fb_side(tile.width), fb_side(tile.height));
    let texture = ctx.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("GpuLdi::framebuffer"),
        size: wgpu::Extent3d {
            width: fw,
            height: fh,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: passes::FRAMEBUFFER_FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    let tile_buf = uniform(
        &ctx.device,
        "GpuLdi::tile",
        &GpuTile {
            x0: tile.x0,
            y0: tile.y0,
            width: tile.width,
            height: tile.height,
            fb_width: fw,
            fb_height: fh,
            cull,
            first,
        },
    );
    let groups = geometry
        .chunks
        .iter()
        .map(|c| {
            bind_group(
                &ctx.device,
                "GpuLdi::geometry_group",
                &ctx.passes.geometry_layout,
                &[&tile_buf, &c.vertices, &c.indices],
            )
        })
        .collect();
    (view, tile_buf, groups)
}

#[allow(clippy::too_many_arguments)]
fn record_count(
    ctx: &GpuContext,
    enc: &mut wgpu::CommandEncoder,
    tile: &Tile,
    geometry: &Geometry,
    counts: &wgpu::Buffer,
    stamp: Option<passes::Stamp<'_>>,
    keep: &mut Vec<wgpu::Buffer>,
) {
    let (target, tile_buf, group0) = geometry_inputs(ctx, tile, 0, 0, geometry);
    let group = bind_group(
        &ctx.device,
        "CountPass::group",
        &ctx.passes.count.layout,
        &[counts],
    );
    let draw = GeometryDraw {
        parts: geometry.parts(&group0),
        target: &target,
    };
    ctx.passes.count.record(enc, &draw, &group, stamp);
    keep.push(tile_buf);
}

/// Peel the front faces, then the back faces, of one tile into the CSR slots. Returns the
/// number of layers (both sides).
#[allow(clippy::too_many_arguments)]
async fn peel_tile(
    ctx: &GpuContext,
    tile: &Tile,
    geometry: &Geometry,
    offsets: &wgpu::Buffer,
    cursor: &wgpu::Buffer,
    fragments: &wgpu::Buffer,
    status: &wgpu::Buffer,
    timer: &mut Timer,
    stats: &mut GpuStats,
) -> Result<u32, GpuError> {
    let pixels = u64::from(tile.pixels());
    let mut layers = 0;
    let mut a = buffer(ctx, "PeelPass::layer_a", pixels * 4);
    let mut b = buffer(ctx, "PeelPass::layer_b", pixels * 4);
    for cull in [1u32, 2u32] {
        let mut first = 1u32;
        loop {
            let t = now_ms();
            let mut keep = Vec::new();
            ctx.scoped("PeelPass", || {
                let mut enc = ctx.encoder("PeelPass::encoder");
                enc.clear_buffer(&b, 0, None);
                let (target, tile_buf, group0) = geometry_inputs(ctx, tile, cull, first, geometry);
                let group = bind_group(
                    &ctx.device,
                    "PeelPass::group",
                    &ctx.passes.peel.layout,
                    &[offsets, cursor, fragments, status, &a, &b],
                );
                let draw = GeometryDraw {
                    parts: geometry.parts(&group0),
                    target: &target,
                };
                ctx.queue.write_buffer(status, 8, &[0u8; 4]);
                ctx.passes
                    .peel
                    .record(&mut enc, &draw, &group, timer.stamp("peel"));
                keep.push(tile_buf);
                ctx.submit(enc);
            })
            .await?;
            stats.geometry_passes += 1;
            let st: Vec<GpuStatus> = read_pod(ctx, status, 0, 1, "PeelPass::status").await?;
            timer.add_wall("peel", now_ms() - t);
            if first == 0 {
                layers += 1;
            }
            first = 0;
            if st.first().map_or(0, |s| s.more) == 0 {
                break;
            }
            std::mem::swap(&mut a, &mut b);
        }
    }
    Ok(layers)
}

/// Assemble the CSR LDI of the window `[wx, wy, w, h]` from tile results (each tile row is
/// one contiguous run).
fn stitch([wx, wy, w, h]: [u32; 4], parts: &[(Tile, Vec<u32>, Vec<GpuFragment>)]) -> Ldi {
    let n = w as usize * h as usize;
    let mut offsets = vec![0u32; n + 1];
    for (t, offs, _) in parts {
        for r in 0..t.height {
            for c in 0..t.width {
                let l = (r * t.width + c) as usize;
                let g = (t.y0 - wy + r) as usize * w as usize + (t.x0 - wx + c) as usize;
                offsets[g + 1] = offs[l + 1] - offs[l];
            }
        }
    }
    for p in 0..n {
        offsets[p + 1] += offsets[p];
    }
    let mut fragments = vec![Fragment { depth: 0.0, tag: 0 }; offsets[n] as usize];
    for (t, offs, frags) in parts {
        for r in 0..t.height {
            let l0 = (r * t.width) as usize;
            let l1 = l0 + t.width as usize;
            let g = (t.y0 - wy + r) as usize * w as usize + (t.x0 - wx) as usize;
            let (s, e) = (offs[l0] as usize, offs[l1] as usize);
            let dst = offsets[g] as usize;
            for (k, f) in frags[s..e].iter().enumerate() {
                fragments[dst + k] = Fragment {
                    depth: f.depth,
                    tag: f.tag,
                };
            }
        }
    }
    Ldi {
        width: w,
        height: h,
        offsets,
        fragments,
        layout: crate::ldi::Layout::Dense,
    }
}
