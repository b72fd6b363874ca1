//! Pass timings: GPU time per pass from timestamp queries written by the passes themselves
//! (`timestamp_writes`; `write_timestamp` inside encoders panics on the web, TOOLING.md) when
//! the adapter has `TIMESTAMP_QUERY`, CPU wall time around each submission otherwise.

use std::collections::BTreeMap;

use super::context::GpuContext;
use super::error::GpuError;
use super::passes::Stamp;
use super::readback::read_many;

/// Queries per set (pairs of begin/end).
const CAPACITY: u32 = 512;

/// Collects per-pass times in milliseconds, summed by label.
#[derive(Debug)]
pub(crate) struct Timer {
    set: Option<wgpu::QuerySet>,
    resolve: Option<wgpu::Buffer>,
    labels: Vec<&'static str>,
    pub totals: BTreeMap<String, f64>,
}

impl Timer {
    pub fn new(ctx: &GpuContext) -> Self {
        let (set, resolve) = if ctx.caps.timestamps {
            (
                Some(ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("Timer::set"),
                    ty: wgpu::QueryType::Timestamp,
                    count: CAPACITY,
                })),
                Some(ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("Timer::resolve"),
                    size: u64::from(CAPACITY) * 8,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                })),
            )
        } else {
            (None, None)
        };
        Self {
            set,
            resolve,
            labels: Vec::new(),
            totals: BTreeMap::new(),
        }
    }

    /// Whether passes are timed on the GPU.
    pub fn gpu(&self) -> bool {
        self.set.is_some()
    }

    /// Timestamp slots for the next pass, `None` without timestamps or when full (then the
    /// pass is timed with the next flush's wall clock only).
    pub fn stamp(&mut self, label: &'static str) -> Option<Stamp<'_>> {
        let n = self.labels.len() as u32 * 2;
        if n + 2 > CAPACITY {
            return None;
        }
        let set = self.set.as_ref()?;
        self.labels.push(label);
        Some(Stamp { set, index: n })
    }

    /// Add a wall-clock time (no timestamps).
    pub fn add_wall(&mut self, label: &str, ms: f64) {
        if !self.gpu() {
            *self.totals.entry(label.to_string()).or_default() += ms;
        }
    }

    /// Whether the query set is nearly full (flush before the next tile).
    pub fn nearly_full(&self) -> bool {
        self.labels.len() as u32 * 2 + 64 > CAPACITY
    }

    /// The range that [`Timer::resolve`] fills, to read back and hand to
    /// [`Timer::add_ticks`] (`None` when no stamps were written).
    pub fn pending(&self) -> Option<(&wgpu::Buffer, u64, u64)> {
        let resolve = self.resolve.as_ref()?;
        (!self.labels.is_empty()).then(|| (resolve, 0, self.labels.len() as u64 * 16))
    }

    /// Resolve the stamps written so far into [`Timer::pending`]'s range.
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        if let (Some(set), Some(resolve)) = (&self.set, &self.resolve) {
            if !self.labels.is_empty() {
                encoder.resolve_query_set(set, 0..self.labels.len() as u32 * 2, resolve, 0);
            }
        }
    }

    /// Add the ticks read back from [`Timer::resolve`]'s range to the totals and start over.
    pub fn add_ticks(&mut self, ctx: &GpuContext, bytes: &[u8]) {
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(bytes);
        let period = f64::from(ctx.queue.get_timestamp_period()) * 1e-6;
        for (i, label) in self.labels.iter().enumerate() {
            let (Some(&t0), Some(&t1)) = (ticks.get(2 * i), ticks.get(2 * i + 1)) else {
                break;
            };
            let dt = t1.saturating_sub(t0) as f64 * period;
            *self.totals.entry((*label).to_string()).or_default() += dt;
        }
        self.labels.clear();
    }

    /// Resolve and read back the stamps written so far and add them to the totals.
    pub async fn flush(&mut self, ctx: &GpuContext) -> Result<(), GpuError> {
        let Some(range) = self.pending() else {
            return Ok(());
        };
        let mut bytes = read_many(ctx, "Timer::resolve", |e| self.resolve(e), &[range]).await?;
        self.add_ticks(ctx, &bytes.pop().unwrap_or_default());
        Ok(())
    }
}
