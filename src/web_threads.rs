//! The CPU check on several threads in the browser (issue 15 item 4): a rayon thread pool whose
//! threads are Web Workers sharing this instance's memory.
//!
//! Only the check worker's second wasm build has it (feature `threads`, built with atomics and
//! shared memory by `scripts/build-threads.sh`), and the worker loads that build only where the
//! page is cross-origin isolated (`self.crossOriginIsolated`: COOP/COEP headers, README
//! "Threads"); elsewhere the worker runs the plain build, one thread, as before.
//!
//! How it works (the scheme of wasm-bindgen-rayon, without its raw pointers, with a way to
//! hear about a thread that traps, and with the check worker's own thread in the pool):
//! 1. The check worker (web/clash-worker.js) calls [`thread_pool_prepare`], which makes the
//!    channel the pool's threads are handed over on, and gets this instance's module and
//!    memory.
//! 2. For a pool of `n` threads it starts `n - 1` module workers (web/clash-thread.js); each
//!    instantiates the same module on the same memory and calls [`thread_pool_run_thread`],
//!    which waits on the channel (a worker may block; the page's thread never does any of
//!    this).
//! 3. Once all are waiting, [`thread_pool_build`] builds rayon's global pool of `n` threads
//!    with a spawn handler that sends each rayon thread down the channel instead of spawning
//!    an OS thread. Thread 0 is the check worker's own (`use_current_thread`): a check's
//!    parallel loops start on it at once and the others steal from it. (Outside the pool it
//!    would hand every loop over and wait for a sleeping Web Worker to wake up and take it,
//!    which on small scenes cost more than the loop.)
//!
//! The check then runs as natively: `par_iter` over region jobs and bands, each answer in its
//! place, so the report does not depend on the number of threads (tests/browser/threads.mjs).

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Mutex, OnceLock};

use rayon::ThreadBuilder;
use wasm_bindgen::prelude::*;

/// Where rayon's threads wait to be picked up by a Web Worker.
struct Handover {
    sender: Sender<ThreadBuilder>,
    receiver: Mutex<Receiver<ThreadBuilder>>,
}

static HANDOVER: OnceLock<Handover> = OnceLock::new();

fn handover() -> &'static Handover {
    HANDOVER.get_or_init(|| {
        let (sender, receiver) = channel();
        Handover {
            sender,
            receiver: Mutex::new(receiver),
        }
    })
}

/// Step 1: get ready for a pool; `[module, memory]` for the threads' workers to instantiate
/// (`init({module_or_path: module, memory})`).
#[wasm_bindgen]
pub fn thread_pool_prepare() -> js_sys::Array {
    handover();
    js_sys::Array::of2(&wasm_bindgen::module(), &wasm_bindgen::memory())
}

/// Step 2, in each thread's worker: wait for a rayon thread and run it (returns only when the
/// pool ends, which it does not while the worker lives).
#[wasm_bindgen]
pub fn thread_pool_run_thread() -> Result<(), JsError> {
    let thread = {
        let receiver = handover().receiver.lock().map_err(|_| {
            JsError::new("thread pool: another thread failed while taking its work")
        })?;
        receiver
            .recv()
            .map_err(|_| JsError::new("thread pool: the pool ended before this thread started"))?
    };
    thread.run();
    Ok(())
}

/// Step 3, on the check worker's thread, once `threads - 1` workers wait in
/// [`thread_pool_run_thread`]: build rayon's global pool of `threads` on this thread and them.
/// Fails when a pool exists already (or rayon ran before: then it made a one-thread pool of
/// its own).
#[wasm_bindgen]
pub fn thread_pool_build(threads: usize) -> Result<(), JsError> {
    if threads == 0 {
        return Err(JsError::new("thread pool: at least one thread"));
    }
    let sender = handover().sender.clone();
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .use_current_thread()
        .thread_name(|i| format!("ldiclash-check-{i}"))
        .spawn_handler(move |thread| {
            sender
                .send(thread)
                .map_err(|_| std::io::Error::other("the threads' channel is closed"))
        })
        .build_global()
        .map_err(|e| JsError::new(&format!("thread pool: {e}")))
}

/// Threads of the pool. Only after [`thread_pool_build`]: before it, rayon would make a
/// one-thread pool of its own on the calling thread, and the build would then fail.
#[wasm_bindgen]
pub fn thread_pool_threads() -> usize {
    crate::check::engine::cpu_threads()
}

/// Test hook for tests/browser/threads.mjs: exhaust the memory on one of the pool's Web Worker
/// threads (not the check worker's), as a check running out of memory in a parallel job does.
/// That thread traps while the check worker waits for it, forever: the page must notice by
/// itself (web/clash-thread.js tells it). Does not return.
#[wasm_bindgen]
pub fn exhaust_memory_in_thread_for_tests() {
    // This thread is not in rayon's loop while it waits below, so another thread takes it.
    rayon::spawn(|| {
        crate::web_api::exhaust_memory_for_tests();
    });
    loop {
        std::thread::park();
    }
}
