#!/usr/bin/env bash
# A CPU profile of the check worker's engine in WebAssembly: `benches/worker_engine.rs` (the
# shared scenes loaded, checked and re-checked, as scripts/bench-worker.sh runs it) under
# Node.js with V8's sampling profiler, and the functions that took the most time by self time
# (benches/node/cpuprofile-top.mjs; the build keeps function names). wasm-bindgen-test-runner
# starts `node` itself and Node refuses --cpu-prof in NODE_OPTIONS, so a `node` wrapper first
# on PATH adds it.
#
#   scripts/profile-worker.sh [TOP]      (default 25 functions)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
real_node=$(command -v node)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/bin" "$dir/prof"
cat > "$dir/bin/node" <<WRAP
#!/usr/bin/env bash
exec "$real_node" --cpu-prof --cpu-prof-dir="$dir/prof" "\$@"
WRAP
chmod +x "$dir/bin/node"
PATH="$dir/bin:$PATH" cargo bench --target wasm32-unknown-unknown --no-default-features \
  --features stl,obj --bench worker_engine -- --nocapture 2>/dev/null | grep '^worker_engine ' >&2
shopt -s nullglob
profiles=("$dir"/prof/*.cpuprofile)
if [[ ${#profiles[@]} -eq 0 ]]; then
  echo "profile-worker: no profile written" >&2
  exit 1
fi
"$real_node" benches/node/cpuprofile-top.mjs "${profiles[@]}" --top "${1:-25}"
