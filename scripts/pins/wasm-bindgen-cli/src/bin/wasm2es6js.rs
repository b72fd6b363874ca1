// The `wasm2es6js` binary of wasm-bindgen-cli 0.2.130: its src/bin/wasm2es6js.rs, unchanged.
use std::env;

fn main() -> anyhow::Result<()> {
    env_logger::init();
    wasm_bindgen_cli::wasm2es6js::run_cli_with_args(env::args_os())
}
