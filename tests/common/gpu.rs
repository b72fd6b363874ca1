//! Shared GPU test setup: a runtime directory for the Vulkan loader, the lavapipe context and a
//! lock serializing the tests of one binary.

use std::sync::{Mutex, MutexGuard, OnceLock};

use ldiclash::gpu::{block_on, GpuContext, GpuOptions};

/// Serializes the GPU tests of one test binary.
pub fn lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sets `XDG_RUNTIME_DIR` to a private temporary directory when it is not set (the Vulkan
/// loader and lavapipe want one).
pub fn ensure_runtime_dir() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        let dir = std::env::temp_dir().join(format!("ldiclash-xdg-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
        }
        std::env::set_var("XDG_RUNTIME_DIR", dir);
    }
}

/// The shared software context, or `None` (with a notice) when there is no adapter.
pub fn ctx() -> Option<&'static GpuContext> {
    static CTX: OnceLock<Option<GpuContext>> = OnceLock::new();
    CTX.get_or_init(|| {
        ensure_runtime_dir();
        match block_on(GpuContext::new(GpuOptions {
            prefer_software: true,
        })) {
            Ok(c) => {
                eprintln!("GPU tests on {}", c.adapter_name());
                Some(c)
            }
            Err(e) => {
                eprintln!(
                    "SKIPPED: no GPU adapter ({e}); GPU tests need lavapipe (mesa-vulkan-drivers)"
                );
                None
            }
        }
    })
    .as_ref()
}
