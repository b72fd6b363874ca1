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

/// The environment switch that makes a missing GPU adapter a failure instead of a skip.
/// `scripts/test.sh` sets it (so CI does): there a GPU test that cannot run must not pass.
pub const REQUIRE_GPU: &str = "LDICLASH_REQUIRE_GPU";

/// Whether this run must have a GPU adapter (`LDICLASH_REQUIRE_GPU=1`).
pub fn gpu_required() -> bool {
    std::env::var(REQUIRE_GPU).is_ok_and(|v| v == "1")
}

/// There is no GPU adapter (`why`): a failure when one is required, else a notice that the
/// caller skips.
pub fn no_gpu(why: &str) {
    if gpu_required() {
        panic!(
            "{REQUIRE_GPU}=1 but there is no GPU adapter ({why}): install lavapipe \
             (apt-get install mesa-vulkan-drivers libvulkan1, or scripts/setup.sh test), or unset \
             {REQUIRE_GPU} to skip the GPU tests"
        );
    }
    // Straight to the process's stderr: libtest captures `eprintln!` of passing tests, and a
    // skip must be seen.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: no GPU adapter ({why}); GPU tests need lavapipe (mesa-vulkan-drivers); \
         {REQUIRE_GPU}=1 makes this a failure"
    );
}

/// The shared software context, or `None` (with a notice) when there is no adapter; with
/// `LDICLASH_REQUIRE_GPU=1` no adapter panics instead, failing every GPU test.
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
                no_gpu(&e.to_string());
                None
            }
        }
    })
    .as_ref()
}
