//! Device limits, checked once at start-up (webgpu-samples `quitIfLimitLessThan`, re_renderer
//! `DeviceCaps`): we ask for what the pipeline needs and for the adapter's largest buffers, so
//! capacity is decided by the hardware, and tiling takes over beyond it.

use super::error::GpuInitError;

/// Storage buffers the busiest shader stage binds (peel: 3 in group 0 + 5 in group 1 …
/// the sort pass binds 5; the peel fragment stage binds 7).
pub const STORAGE_BUFFERS_NEEDED: u32 = 8;
/// Compute invocations per workgroup (scan blocks).
pub const INVOCATIONS_NEEDED: u32 = 256;

/// What the device can do, as requested.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceCaps {
    /// Largest buffer in bytes.
    pub max_buffer_size: u64,
    /// Largest storage binding in bytes.
    pub max_storage_binding: u64,
    /// Largest framebuffer side.
    pub max_texture_2d: u32,
    /// Workgroups per dispatch dimension.
    pub max_workgroups_per_dim: u32,
    /// Pass timestamps available.
    pub timestamps: bool,
}

impl DeviceCaps {
    /// Check `adapter` limits and build the limits to request.
    pub fn check(
        adapter: &wgpu::Limits,
        timestamps: bool,
    ) -> Result<(Self, wgpu::Limits), GpuInitError> {
        let need = |name: &'static str, have: u64, need: u64| {
            if have < need {
                Err(GpuInitError::MissingLimit { name, have, need })
            } else {
                Ok(())
            }
        };
        need(
            "maxStorageBuffersPerShaderStage",
            adapter.max_storage_buffers_per_shader_stage.into(),
            STORAGE_BUFFERS_NEEDED.into(),
        )?;
        need(
            "maxComputeInvocationsPerWorkgroup",
            adapter.max_compute_invocations_per_workgroup.into(),
            INVOCATIONS_NEEDED.into(),
        )?;
        need(
            "maxComputeWorkgroupSizeX",
            adapter.max_compute_workgroup_size_x.into(),
            INVOCATIONS_NEEDED.into(),
        )?;
        need(
            "maxTextureDimension2D",
            adapter.max_texture_dimension_2d.into(),
            256,
        )?;
        need(
            "maxStorageBufferBindingSize",
            adapter.max_storage_buffer_binding_size,
            1 << 20,
        )?;
        let limits = wgpu::Limits {
            max_buffer_size: adapter.max_buffer_size,
            max_storage_buffer_binding_size: adapter.max_storage_buffer_binding_size,
            max_texture_dimension_2d: adapter.max_texture_dimension_2d,
            max_storage_buffers_per_shader_stage: STORAGE_BUFFERS_NEEDED,
            ..wgpu::Limits::defaults()
        };
        let caps = Self {
            max_buffer_size: adapter.max_buffer_size,
            max_storage_binding: adapter.max_storage_buffer_binding_size,
            max_texture_2d: adapter.max_texture_dimension_2d,
            max_workgroups_per_dim: limits.max_compute_workgroups_per_dimension,
            timestamps,
        };
        Ok((caps, limits))
    }

    /// The largest single storage buffer we may use.
    pub fn max_storage_buffer(&self) -> u64 {
        self.max_buffer_size.min(self.max_storage_binding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_limit_is_named_with_what_we_need() {
        let mut l = wgpu::Limits::downlevel_defaults();
        l.max_storage_buffers_per_shader_stage = 4;
        assert_eq!(
            DeviceCaps::check(&l, false).map(|_| ()),
            Err(GpuInitError::MissingLimit {
                name: "maxStorageBuffersPerShaderStage",
                have: 4,
                need: 8
            })
        );
        let l = wgpu::Limits::defaults();
        let (caps, req) = DeviceCaps::check(&l, true).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(req.max_buffer_size, l.max_buffer_size);
        assert_eq!(caps.max_storage_buffer(), 128 << 20);
    }
}
