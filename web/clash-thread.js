// One thread of the CPU check's pool (issue 15 item 4): a module worker that clash-worker.js
// starts, one per core beside its own, where the page is cross-origin isolated. It instantiates the
// threaded build (threads/ldiclash.js) on the check worker's shared memory and then runs one
// rayon thread until it is ended (../src/web_threads.rs).
//
//   in:  {js, module, memory, channel}   js: the threaded build's URL; module and memory: the
//                                         check worker's (thread_pool_prepare)
//   out: {ready: true}                    waiting for work (it never returns from that), or
//        {ready: false, error}            it could not start
// A trap here later (a Rust panic or abort, such as running out of memory in a parallel job)
// would leave the check worker waiting for this thread forever, and it cannot hear of it while
// it waits; so this thread tells the page instead, on the BroadcastChannel `channel`:
// {fatal: true, error}. The page then ends the check worker (and with it every thread).

const GiB = 1024 ** 3;

self.onmessage = async ({ data }) => {
  let ready = false;
  let memory = null;
  try {
    const mod = await import(data.js);
    await mod.default({ module_or_path: data.module, memory: data.memory });
    memory = data.memory;
    self.postMessage({ ready: true });
    ready = true;
    mod.thread_pool_run_thread();
    throw new Error("the thread returned");
  } catch (err) {
    const message = String(err?.message ?? err);
    if (!ready) {
      self.postMessage({ ready: false, error: message });
      return;
    }
    const bytes = memory?.buffer?.byteLength ?? 0;
    const error =
      err instanceof WebAssembly.RuntimeError && bytes >= GiB
        ? `the CPU check ran out of memory (its WebAssembly heap had grown to ${(bytes / GiB).toFixed(1)} GiB, the browser's limit is 4 GiB): lower the resolution or check fewer objects (${message}, on one of its threads)`
        : `the CPU check crashed (${message}, on one of its threads)`;
    const channel = new BroadcastChannel(data.channel);
    channel.postMessage({ fatal: true, error });
    channel.close();
  }
};
