//! The one readback helper: copy a buffer range into a mappable staging buffer, submit, and
//! wait for the mapping. Natively the device is polled until the map callback ran; in the
//! browser the callback resolves a future that we await (`device.poll` does nothing there).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use super::context::GpuContext;
use super::error::GpuError;

/// Read `size` bytes of `src` at `offset` (both multiples of 4).
pub(crate) async fn read_bytes(
    ctx: &GpuContext,
    src: &wgpu::Buffer,
    offset: u64,
    size: u64,
    label: &str,
) -> Result<Vec<u8>, GpuError> {
    if size == 0 {
        return Ok(Vec::new());
    }
    let staging = ctx.scoped(label, || {
        let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback::staging"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = ctx.encoder("readback::encoder");
        encoder.copy_buffer_to_buffer(src, offset, &staging, 0, size);
        ctx.submit(encoder);
        staging
    });
    let staging = staging.await?;
    let slot = Arc::new(Mutex::new(Slot::default()));
    {
        let slot = slot.clone();
        staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            if let Ok(mut s) = slot.lock() {
                s.result = Some(r.map_err(|e| e.to_string()));
                if let Some(w) = s.waker.take() {
                    w.wake();
                }
            }
        });
    }
    #[cfg(not(target_arch = "wasm32"))]
    ctx.device
        .poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: None,
        })
        .map_err(|e| GpuError::Map {
            label: label.to_string(),
            message: e.to_string(),
        })?;
    let mapped = MapFuture { slot }.await;
    mapped.map_err(|message| GpuError::Map {
        label: label.to_string(),
        message,
    })?;
    ctx.check_lost()?;
    let bytes = staging
        .slice(..)
        .get_mapped_range()
        .map_err(|e| GpuError::Map {
            label: label.to_string(),
            message: e.to_string(),
        })?
        .to_vec();
    staging.unmap();
    Ok(bytes)
}

/// Read a whole buffer of `T`s (`count` of them from element `first`).
pub(crate) async fn read_pod<T: bytemuck::Pod>(
    ctx: &GpuContext,
    src: &wgpu::Buffer,
    first: u64,
    count: u64,
    label: &str,
) -> Result<Vec<T>, GpuError> {
    let sz = std::mem::size_of::<T>() as u64;
    let bytes = read_bytes(ctx, src, first * sz, count * sz, label).await?;
    Ok(bytemuck::pod_collect_to_vec(&bytes))
}

#[derive(Default)]
struct Slot {
    result: Option<Result<(), String>>,
    waker: Option<Waker>,
}

struct MapFuture {
    slot: Arc<Mutex<Slot>>,
}

impl Future for MapFuture {
    type Output = Result<(), String>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.slot.lock() {
            Ok(mut s) => match s.result.take() {
                Some(r) => Poll::Ready(r),
                None => {
                    s.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            },
            Err(_) => Poll::Ready(Err("map callback state poisoned".into())),
        }
    }
}
