//! Pass timings: GPU time per pass from timestamp queries written by the passes themselves
//! (`timestamp_writes`; `write_timestamp` inside encoders panics on the web, TOOLING.md) when
//! the adapter has `TIMESTAMP_QUERY`, CPU wall time around each submission otherwise.

use std::collections::BTreeMap;

use super::context::GpuContext;
use super::error::GpuError;
use super::passes::Stamp;
use super::readback::read_pod;

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

    /// Resolve and read back the stamps written so far and add them to the totals.
    pub async fn flush(&mut self, ctx: &GpuContext) -> Result<(), GpuError> {
        let (Some(set), Some(resolve)) = (&self.set, &self.resolve) else {
            return Ok(());
        };
        if self.labels.is_empty() {
            return Ok(());
        }
        let n = self.labels.len() as u32 * 2;
        ctx.scoped("Timer::resolve", || {
            let mut encoder = ctx.encoder("Timer::encoder");
            encoder.resolve_query_set(set, 0..n, resolve, 0);
            ctx.submit(encoder);
        })
        .await?;
        let ticks: Vec<u64> = read_pod(ctx, resolve, 0, u64::from(n), "Timer::resolve").await?;
        let period = f64::from(ctx.queue.get_timestamp_period()) * 1e-6;
        for (i, label) in self.labels.iter().enumerate() {
            let dt = ticks[2 * i + 1].saturating_sub(ticks[2 * i]) as f64 * period;
            *self.totals.entry((*label).to_string()).or_default() += dt;
        }
        self.labels.clear();
        Ok(())
    }
}
