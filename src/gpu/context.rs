//! The GPU context: adapter, device, queue, the passes' pipelines (built once), and the one
//! place that submits work.
//!
//! Natively the adapter comes from Vulkan; [`GpuOptions::prefer_software`] picks a `Cpu`
//! adapter (lavapipe) when there is one, as the tests do (re_renderer prefers
//! `DeviceType::Cpu` in CI). In the browser it is the page's WebGPU adapter. No adapter is a
//! [`GpuInitError::NoAdapter`], so the caller can fall back to the CPU rasteriser. Device loss
//! is recorded by a callback and reported by the next run; uncaptured errors are logged as the
//! last resort (every run is wrapped in error scopes, see [`GpuContext::scoped`]).

use std::sync::{Arc, Mutex};

use super::caps::DeviceCaps;
use super::error::{GpuError, GpuInitError};
use super::passes::Passes;

/// How to pick the adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GpuOptions {
    /// Prefer a software (`DeviceType::Cpu`) adapter natively: deterministic tests on lavapipe.
    pub prefer_software: bool,
}

/// An open device with the LDI pipeline's passes.
#[derive(Debug)]
pub struct GpuContext {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) caps: DeviceCaps,
    pub(crate) passes: Passes,
    info: wgpu::AdapterInfo,
    lost: Arc<Mutex<Option<String>>>,
}

impl GpuContext {
    /// Open the adapter and device and build every pass.
    pub async fn new(opts: GpuOptions) -> Result<Self, GpuInitError> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = if cfg!(target_arch = "wasm32") {
            wgpu::Backends::BROWSER_WEBGPU
        } else {
            wgpu::Backends::VULKAN
        };
        let instance = wgpu::Instance::new(desc);
        let adapter = pick_adapter(&instance, opts).await?;
        let info = adapter.get_info();
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let (caps, limits) = DeviceCaps::check(&adapter.limits(), timestamps)?;
        let features = if timestamps {
            wgpu::Features::TIMESTAMP_QUERY
        } else {
            wgpu::Features::empty()
        };
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("GpuContext::device"),
                required_features: features,
                required_limits: limits,
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|e| GpuInitError::RequestDevice(e.to_string()))?;
        let lost = Arc::new(Mutex::new(None));
        {
            let lost = lost.clone();
            device.set_device_lost_callback(move |reason, message| {
                if let Ok(mut l) = lost.lock() {
                    *l = Some(format!("{reason:?}: {message}"));
                }
            });
        }
        device.on_uncaptured_error(Arc::new(|e: wgpu::Error| {
            // Last resort: every run has error scopes, so this only sees stray errors.
            eprintln_web(&format!("ldiclash: uncaptured GPU error: {e}"));
        }));
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let passes = Passes::new(&device);
        if let Some(e) = scope.pop().await {
            return Err(GpuInitError::RequestDevice(format!(
                "building the passes failed: {e}"
            )));
        }
        Ok(Self {
            device,
            queue,
            caps,
            passes,
            info,
            lost,
        })
    }

    /// `name (backend, device type)`, as the report shows it.
    pub fn adapter_name(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }

    /// Whether the adapter is a software one: `DeviceType::Cpu` natively (lavapipe,
    /// llvmpipe), the browser's fallback adapter in WebGPU (SwiftShader in Chromium).
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// The device limits in use.
    pub fn caps(&self) -> DeviceCaps {
        self.caps
    }

    /// Run `f` inside validation and out-of-memory error scopes and turn what they caught into
    /// a [`GpuError`] labelled `label`. Device loss is reported here too.
    pub(crate) async fn scoped<T>(
        &self,
        label: &str,
        f: impl FnOnce() -> T,
    ) -> Result<T, GpuError> {
        self.check_lost()?;
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let out = f();
        // Both popped before either is awaited: futures interleaved on one thread (the
        // browser's event loop, `gpu::drive`) must not push between these pops.
        let (v, o) = (validation.pop(), oom.pop());
        let (v, o) = (v.await, o.await);
        if let Some(e) = o {
            return Err(GpuError::OutOfMemory {
                label: label.to_string(),
                message: e.to_string(),
            });
        }
        if let Some(e) = v {
            return Err(GpuError::Validation {
                label: label.to_string(),
                message: e.to_string(),
            });
        }
        self.check_lost()?;
        Ok(out)
    }

    /// The one place that submits.
    pub(crate) fn submit(&self, encoder: wgpu::CommandEncoder) -> wgpu::SubmissionIndex {
        self.queue.submit(Some(encoder.finish()))
    }

    /// Whether the device still answers: its loss as recorded, else one small readback (on a
    /// lost device the mapping fails). For a check that ran nothing on the GPU (every answer
    /// remembered), which would otherwise not notice a device lost since the last one.
    pub async fn alive(&self) -> Result<(), GpuError> {
        self.check_lost()?;
        let probe = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("GpuContext::alive"),
            size: 4,
            usage: wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        super::readback::read_bytes(self, &probe, 0, 4, "GpuContext::alive").await?;
        self.check_lost()
    }

    pub(crate) fn check_lost(&self) -> Result<(), GpuError> {
        match self.lost.lock().ok().and_then(|l| l.clone()) {
            Some(m) => Err(GpuError::DeviceLost(m)),
            None => Ok(()),
        }
    }

    pub(crate) fn encoder(&self, label: &str) -> wgpu::CommandEncoder {
        self.device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) })
    }
}

async fn pick_adapter(
    instance: &wgpu::Instance,
    opts: GpuOptions,
) -> Result<wgpu::Adapter, GpuInitError> {
    #[cfg(not(target_arch = "wasm32"))]
    if opts.prefer_software {
        let adapters = instance.enumerate_adapters(wgpu::Backends::VULKAN).await;
        if let Some(a) = adapters
            .into_iter()
            .find(|a| a.get_info().device_type == wgpu::DeviceType::Cpu)
        {
            return Ok(a);
        }
    }
    let _ = opts;
    instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        })
        .await
        .map_err(|e| GpuInitError::NoAdapter {
            reason: e.to_string(),
        })
}

fn eprintln_web(msg: &str) {
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("{msg}");
    #[cfg(target_arch = "wasm32")]
    let _ = msg; // the page shows errors from the run's error scopes
}
