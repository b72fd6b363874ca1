//! How much of a check runs in parallel: rayon's pool natively and in the `threads` wasm
//! build, one thread in the plain wasm build, and one thread on request ([`on_one_thread`]).
//! Every parallel step (`check`, `raster`, `ldi`, `collide`, `scene`) asks [`cpu_threads`].

/// Threads a check runs its jobs on: rayon's pool natively and in the `threads` wasm build
/// (the pool of Web Workers `web_threads` started, or 1 where none was), 1 in the
/// plain wasm build and within [`on_one_thread`].
pub fn cpu_threads() -> usize {
    #[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
    {
        if ONE_THREAD.with(std::cell::Cell::get) {
            1
        } else {
            rayon::current_num_threads()
        }
    }
    #[cfg(all(target_arch = "wasm32", not(feature = "threads")))]
    {
        1
    }
}

std::thread_local! {
    /// Set by [`on_one_thread`] on the thread it runs on.
    static ONE_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with all of its work on the calling thread when `one` is true: every parallel
/// step of a check ([`cpu_threads`] is then 1) runs in turn instead of over the pool. For
/// small checks where handing work to other threads costs more than it saves (the page's
/// threaded worker: [`SMALL_CHECK_TRIANGLES`]). The answers are the same either way.
pub fn on_one_thread<R>(one: bool, f: impl FnOnce() -> R) -> R {
    /// Puts the flag back, also when `f` unwinds.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            ONE_THREAD.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(ONE_THREAD.with(|c| c.replace(one)));
    f()
}

/// Scenes with fewer triangles than this are checked on one thread in the page's threaded
/// worker (`benches/page.mjs`: on two cores a pool made checks of up to 15 k triangles
/// 1.3–1.7× slower, while the 3.1 M-triangle hall gained 1.6×).
pub const SMALL_CHECK_TRIANGLES: usize = 100_000;
