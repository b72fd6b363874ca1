//! GPU errors: what went wrong and what to do about it (STYLE.md "Errors").
//!
//! [`GpuInitError`] means there is no usable GPU: the caller falls back to the CPU path.
//! [`GpuError`] is a failure of one run: validation errors caught by error scopes, device
//! loss, capacity that cannot be met, or a fragment that found no slot (never dropped
//! silently).

/// Why no GPU context could be made (the caller falls back to the CPU rasteriser).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GpuInitError {
    /// No adapter at all (no WebGPU in this browser, no Vulkan driver natively).
    #[error("no GPU adapter found ({reason}); use --backend cpu, or install a Vulkan driver (lavapipe: apt-get install mesa-vulkan-drivers) / use a browser with WebGPU")]
    NoAdapter {
        /// What the platform said.
        reason: String,
    },
    /// The adapter's limit is below what the pipeline needs.
    #[error(
        "the GPU limit {name} is {have}, the LDI pipeline needs at least {need}; use --backend cpu"
    )]
    MissingLimit {
        /// Limit name as in WebGPU (`maxStorageBuffersPerShaderStage`).
        name: &'static str,
        /// What the adapter offers.
        have: u64,
        /// What we need.
        need: u64,
    },
    /// The device could not be created.
    #[error("the GPU device could not be created: {0}; use --backend cpu")]
    RequestDevice(String),
}

/// Why a GPU run failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GpuError {
    /// No context.
    #[error(transparent)]
    Init(#[from] GpuInitError),
    /// A validation or internal error caught by an error scope.
    #[error("GPU validation error in {label}: {message}")]
    Validation {
        /// The step (its label).
        label: String,
        /// wgpu's message (quotes the labels of the objects involved).
        message: String,
    },
    /// The GPU ran out of memory.
    #[error("the GPU ran out of memory in {label}: {message}; set a smaller budget (more tiles) or a lower resolution")]
    OutOfMemory {
        /// The step.
        label: String,
        /// wgpu's message.
        message: String,
    },
    /// The device was lost (driver reset, browser tab in background for long, …).
    #[error("the GPU device was lost: {0}; create a new context or use --backend cpu")]
    DeviceLost(String),
    /// Mapping a buffer for reading failed.
    #[error("reading back {label} failed: {message}")]
    Map {
        /// The buffer.
        label: String,
        /// Why.
        message: String,
    },
    /// More objects than the GPU analyses' pair tables hold in one storage binding.
    #[error(
        "the GPU analyses' pair table holds at most {max} objects per LDI on this device, got {objects}; use --backend cpu"
    )]
    TooManyObjects {
        /// Objects asked for.
        objects: usize,
        /// The limit.
        max: usize,
    },
    /// Pixels where an analysis met more than it follows at once: more than 8 objects
    /// inside one another (volume), or more than 32 pairs (either analysis).
    #[error("the GPU {analysis} analysis could not follow {pixels} pixel(s): more than 8 objects inside one another or 32 pairs meeting in one pixel; use --backend cpu")]
    AnalysisCapacity {
        /// Pixels not followed.
        pixels: u64,
        /// `volume` or `surface`.
        analysis: &'static str,
    },
    /// A vertex projects too far from the image for exact 32-bit fixed point.
    #[error("a vertex projects {pixels:.0} pixels from the image, beyond the GPU path's ±2^21-pixel range; check a smaller region or use --backend cpu")]
    CoordinateRange {
        /// Distance in pixels.
        pixels: f64,
    },
    /// Not even one image row fits the budget.
    #[error("one image row needs {need} bytes but the GPU budget is {budget} bytes; raise the budget, lower the resolution, or use --backend cpu")]
    Capacity {
        /// Bytes one row needs.
        need: u64,
        /// The budget.
        budget: u64,
    },
    /// More fragments than 32-bit offsets can index.
    #[error("the LDI would hold more than 2^32-1 fragments; lower the resolution or check smaller regions")]
    TooManyFragments,
    /// Fragments were counted but did not arrive (or found no slot): a bug, never ignored.
    #[error("{overflow} fragments found no slot and {lost} pixels received a different number of fragments than counted: the GPU LDI is incomplete")]
    Incomplete {
        /// Fragments without a slot.
        overflow: u32,
        /// Pixels with a wrong count.
        lost: u32,
    },
    /// A visibility batch does not fit the device's storage bindings.
    #[error("{0}")]
    VisibilityCapacity(String),
    /// The synchronous API was called where only the async one works (the browser).
    #[error("{0}")]
    Unsupported(String),
}
