//! The one readback helper: copy a buffer range into a mappable staging buffer, submit, and
//! wait for the mapping. Natively the device is polled until the map callback ran; in the
//! browser the callback resolves a future that we await (`device.poll` does nothing there).
//!
//! Natively [`drive`] runs several such futures on one thread at once: each readback only maps
//! and awaits, and `drive` waits on the device once for all of them, so the round trips of
//! many GPU jobs overlap instead of adding up (issue 10: on a real GPU a job's waits were most
//! of its time).

#[cfg(not(target_arch = "wasm32"))]
use std::cell::Cell;
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
    let mut parts = read_many(ctx, label, |_| {}, &[(src, offset, size)]).await?;
    Ok(parts.pop().unwrap_or_default())
}

/// Map a staging buffer whose copy was submitted and return its bytes.
async fn map_staging(
    ctx: &GpuContext,
    staging: &wgpu::Buffer,
    label: &str,
) -> Result<Vec<u8>, GpuError> {
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
    if !DRIVEN.with(Cell::get) {
        ctx.device
            .poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: None,
            })
            .map_err(|e| GpuError::Map {
                label: label.to_string(),
                message: e.to_string(),
            })?;
    }
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

/// Read several buffer ranges `(buffer, offset, size)` (multiples of 4) with one submission
/// and one mapping, after `record` (e.g. a query resolve that fills one of them) in the same
/// encoder: one round trip instead of one per range. Returns the ranges' bytes in order.
pub(crate) async fn read_many(
    ctx: &GpuContext,
    label: &str,
    record: impl FnOnce(&mut wgpu::CommandEncoder),
    ranges: &[(&wgpu::Buffer, u64, u64)],
) -> Result<Vec<Vec<u8>>, GpuError> {
    read_many_after(ctx, label, None, record, ranges).await
}

/// [`read_many`] in `encoder` when given: the commands already recorded there (not
/// submitted) go with the copies in the one submission. A submission is host work that
/// threads driving their jobs at once contend for, so a job submits as little as it can.
pub(crate) async fn read_many_after(
    ctx: &GpuContext,
    label: &str,
    encoder: Option<wgpu::CommandEncoder>,
    record: impl FnOnce(&mut wgpu::CommandEncoder),
    ranges: &[(&wgpu::Buffer, u64, u64)],
) -> Result<Vec<Vec<u8>>, GpuError> {
    let total: u64 = ranges.iter().map(|r| r.2).sum();
    if total == 0 {
        if let Some(encoder) = encoder {
            ctx.scoped(label, || ctx.submit(encoder)).await?;
        }
        return Ok(ranges.iter().map(|_| Vec::new()).collect());
    }
    let staging = ctx.scoped(label, || {
        let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback::staging"),
            size: total,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = encoder.unwrap_or_else(|| ctx.encoder("readback::encoder"));
        record(&mut encoder);
        let mut at = 0;
        for &(src, offset, size) in ranges {
            if size > 0 {
                encoder.copy_buffer_to_buffer(src, offset, &staging, at, size);
            }
            at += size;
        }
        ctx.submit(encoder);
        staging
    });
    let staging = staging.await?;
    let bytes = map_staging(ctx, &staging, label).await?;
    let mut out = Vec::with_capacity(ranges.len());
    let mut at = 0usize;
    for &(_, _, size) in ranges {
        let end = at + size as usize;
        out.push(bytes.get(at..end).map(<[u8]>::to_vec).unwrap_or_default());
        at = end;
    }
    Ok(out)
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

/// Device waits in a row that woke no future before [`drive`] gives up on them (after
/// pauses of 1 + 2 + … + 7 ms).
#[cfg(not(target_arch = "wasm32"))]
const IDLE_WAITS: u64 = 8;

#[cfg(not(target_arch = "wasm32"))]
thread_local! {
    /// Set while [`drive`] runs futures on this thread: it polls the device for them, so a
    /// readback only maps and awaits.
    static DRIVEN: Cell<bool> = const { Cell::new(false) };
}

/// A future's "poll me again" flag, set by its waker.
#[cfg(not(target_arch = "wasm32"))]
struct Flag(std::sync::atomic::AtomicBool);

#[cfg(not(target_arch = "wasm32"))]
impl std::task::Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.store(true, std::sync::atomic::Ordering::Release);
    }
}

/// Restores [`DRIVEN`] when [`drive`] ends, also by unwinding.
#[cfg(not(target_arch = "wasm32"))]
struct DrivenGuard(bool);

#[cfg(not(target_arch = "wasm32"))]
impl Drop for DrivenGuard {
    fn drop(&mut self) {
        DRIVEN.with(|d| d.set(self.0));
    }
}

/// Run `futures` (each using `ctx`'s readbacks, e.g. several [`run`](super::run)s) together on
/// this thread and return their outputs in order. Each future runs until it waits for a
/// readback; once none can go on, the device is waited on once for everything submitted,
/// which resolves all their mappings. GPU memory in use is that of all of them at once.
/// A future that waits for something other than this device's work ends the call with
/// [`GpuError::Map`] instead of hanging. Natively only (the browser's event loop already
/// interleaves awaiting futures).
#[cfg(not(target_arch = "wasm32"))]
pub fn drive<'a, T>(
    ctx: &GpuContext,
    mut futures: Vec<Pin<Box<dyn Future<Output = T> + 'a>>>,
) -> Result<Vec<T>, GpuError> {
    use std::sync::atomic::{AtomicBool, Ordering};

    let _guard = DrivenGuard(DRIVEN.with(|d| d.replace(true)));
    let flags: Vec<Arc<Flag>> = futures
        .iter()
        .map(|_| Arc::new(Flag(AtomicBool::new(true))))
        .collect();
    let mut outputs: Vec<Option<T>> = futures.iter().map(|_| None).collect();
    let mut left = futures.len();
    // Device waits in a row that woke no future: after a few, the futures wait for something
    // the device will never deliver.
    let mut idle_waits = 0;
    while left > 0 {
        for ((future, flag), out) in futures.iter_mut().zip(&flags).zip(&mut outputs) {
            // Swapped first: a finished future's flag is cleared too.
            let woken = flag.0.swap(false, Ordering::AcqRel);
            if out.is_some() || !woken {
                continue;
            }
            let waker = Waker::from(flag.clone());
            if let Poll::Ready(v) = future.as_mut().poll(&mut Context::from_waker(&waker)) {
                *out = Some(v);
                left -= 1;
                idle_waits = 0;
            }
        }
        if left == 0 || flags.iter().any(|f| f.0.load(Ordering::Acquire)) {
            continue;
        }
        // Wait for an empty submission, hence for all before it (a wait for "the last
        // submission" with none made can block for good).
        let last = ctx.queue.submit(std::iter::empty());
        ctx.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(last),
                timeout: None,
            })
            .map_err(|e| GpuError::Map {
                label: "GPU jobs".to_string(),
                message: e.to_string(),
            })?;
        // Every waiting future waits on a mapping, and the wait finished all submitted work,
        // so their callbacks have run or are running: another thread that polls the device
        // at the same time (the check drives its GPU jobs on several) may have taken them
        // and call them a moment later. A few waits in a row, with growing pauses, that
        // woke nobody found them stuck.
        if flags.iter().any(|f| f.0.load(Ordering::Acquire)) {
            idle_waits = 0;
        } else {
            idle_waits += 1;
            if idle_waits > IDLE_WAITS {
                return Err(GpuError::Map {
                    label: "GPU jobs".to_string(),
                    message: format!("{left} job(s) wait for nothing in flight"),
                });
            }
            if idle_waits > 1 {
                std::thread::sleep(std::time::Duration::from_millis(idle_waits - 1));
            }
            // Poll every waiting future once more (a callback may have run before its
            // waker was stored).
            for f in &flags {
                f.0.store(true, Ordering::Release);
            }
        }
    }
    Ok(outputs.into_iter().flatten().collect())
}

/// Await `futures` together and return their outputs in order: in the browser their
/// readbacks' round trips overlap (each resolves through the event loop), as [`drive`] does
/// natively.
#[cfg(target_arch = "wasm32")]
pub(crate) async fn join_all<'a, T>(futures: Vec<Pin<Box<dyn Future<Output = T> + 'a>>>) -> Vec<T> {
    let mut futures: Vec<Option<Pin<Box<dyn Future<Output = T> + 'a>>>> =
        futures.into_iter().map(Some).collect();
    let mut outputs: Vec<Option<T>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut waiting = false;
        for (slot, out) in futures.iter_mut().zip(&mut outputs) {
            if let Some(future) = slot {
                match future.as_mut().poll(cx) {
                    Poll::Ready(v) => {
                        *out = Some(v);
                        *slot = None;
                    }
                    Poll::Pending => waiting = true,
                }
            }
        }
        if waiting {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}
