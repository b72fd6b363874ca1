#!/usr/bin/env bash
# Checks scripts/setup.sh without installing anything (issue 14, items 5–7), from its dry-run
# plan (SETUP_DRY_RUN=1 SETUP_ASSUME_MISSING=1) and with fake prerequisites:
#   1. `serve` installs only what serving needs: the serve apt packages after `apt-get update`,
#      the wasm32 target, the pinned nightly with rust-src (the threaded check worker), trunk
#      and the pinned wasm-bindgen-cli, npm ci — no Chromium, no
#      chromedriver, no lavapipe, no clippy/rustfmt, no cargo-fuzz;
#   2. `test` installs all of that plus the test tools;
#   3. every `cargo install` is --locked, wasm-bindgen-cli comes from scripts/pins with its
#      committed Cargo.lock, and `apt-get update` runs before any `apt-get install`;
#   4. `curl`, `git` and `ca-certificates` are in both plans;
#   5. Node older than package.json's engines.node, or no Rust at all, stops setup.sh with a
#      message saying what to install, before anything is installed.
# Prints "N passed, M failed"; exits non-zero on any failure. scripts/test.sh runs it.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

passed=0
failed=0
ok() {
  passed=$((passed + 1))
  echo "ok   - $*"
}
bad() {
  failed=$((failed + 1))
  echo "FAIL - $*"
}

plan() {
  SETUP_DRY_RUN=1 SETUP_ASSUME_MISSING=1 scripts/setup.sh "$1" 2>&1 | grep '^setup: would run: ' | sed 's/^setup: would run: //'
}

SERVE=$(plan serve)
TEST=$(plan test)

# Packages named by the plan's apt-get install line.
apt_of() { grep '^apt-get install ' <<<"$1" | sed 's/^apt-get install -y -q --no-install-recommends //' | tr ' ' '\n' | sort; }

want_serve_apt=$(printf '%s\n' build-essential ca-certificates curl git pkg-config | sort)
want_test_apt=$(printf '%s\n' build-essential ca-certificates chromium chromium-driver curl fonts-dejavu-core git libvulkan1 mesa-vulkan-drivers pkg-config python3 python3-venv | sort)
[[ $(apt_of "$SERVE") == "$want_serve_apt" ]] && ok "serve: apt installs only $(echo $want_serve_apt)" ||
  bad "serve: apt installs $(apt_of "$SERVE" | tr '\n' ' '), want $(echo $want_serve_apt)"
[[ $(apt_of "$TEST") == "$want_test_apt" ]] && ok "test: apt installs $(echo $want_test_apt)" ||
  bad "test: apt installs $(apt_of "$TEST" | tr '\n' ' '), want $(echo $want_test_apt)"

for p in "$SERVE" "$TEST"; do
  first_update=$(grep -n '^apt-get update' <<<"$p" | head -n1 | cut -d: -f1)
  first_install=$(grep -n '^apt-get install' <<<"$p" | head -n1 | cut -d: -f1)
  if [[ -n $first_update && -n $first_install && $first_update -lt $first_install ]]; then
    ok "apt-get update (line $first_update) before apt-get install (line $first_install)"
  else
    bad "apt-get update does not come before apt-get install: $(tr '\n' ';' <<<"$p")"
  fi
done

must() { grep -qxF -- "$2" <<<"$1"; }
mustnt() { ! grep -qF -- "$2" <<<"$1"; }
for cmd in "rustup target add wasm32-unknown-unknown" \
  "rustup toolchain install $(tr -d '[:space:]' <scripts/pins/nightly) --profile minimal --component rust-src" \
  "cargo install trunk --version 0.21.14 --locked" \
  "cargo install --path $ROOT/scripts/pins/wasm-bindgen-cli --locked --force" \
  "npm ci --no-audit --no-fund"; do
  must "$SERVE" "$cmd" && must "$TEST" "$cmd" && ok "serve and test: $cmd" || bad "missing in a plan: $cmd"
done
for cmd in "rustup component add clippy" "rustup component add rustfmt" \
  "cargo install cargo-fuzz --version 0.13.2 --locked" \
  "$ROOT/target/bcf-venv/bin/pip install -q --disable-pip-version-check -r $ROOT/scripts/pins/bcf-reader.txt"; do
  must "$TEST" "$cmd" && mustnt "$SERVE" "$cmd" && ok "test only: $cmd" || bad "$cmd: want it in test's plan only"
done
unlocked=$(grep '^cargo install' <<<"$TEST" | grep -v -- '--locked' || true)
[[ -z $unlocked ]] && ok "every cargo install is --locked" || bad "not --locked: $unlocked"
if [[ -f scripts/pins/wasm-bindgen-cli/Cargo.lock ]] &&
  grep -q '^name = "wasm-bindgen-cli"' scripts/pins/wasm-bindgen-cli/Cargo.lock &&
  grep -A1 '^name = "wasm-bindgen-cli"$' scripts/pins/wasm-bindgen-cli/Cargo.lock | grep -q '^version = "0.2.130"$'; then
  ok "scripts/pins/wasm-bindgen-cli/Cargo.lock pins wasm-bindgen-cli 0.2.130"
else
  bad "scripts/pins/wasm-bindgen-cli/Cargo.lock does not pin wasm-bindgen-cli 0.2.130"
fi
pin=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' Cargo.toml)
grep -q "^WASM_BINDGEN_VERSION=$pin\$" scripts/setup.sh && ok "setup.sh wants wasm-bindgen $pin, Cargo.toml's pin" ||
  bad "setup.sh's WASM_BINDGEN_VERSION is not Cargo.toml's pin ($pin)"

# Fake prerequisites: an old Node, then no Rust.
FAKE=$(mktemp -d)
trap 'rm -rf "$FAKE"' EXIT
mkdir -p "$FAKE/bin" "$FAKE/home"
printf '#!/bin/sh\necho v18.19.0\n' >"$FAKE/bin/node"
chmod +x "$FAKE/bin/node"
set +e
out=$(PATH="$FAKE/bin:$PATH" SETUP_DRY_RUN=1 SETUP_ASSUME_MISSING=1 scripts/setup.sh serve 2>&1)
rc=$?
set -e
if [[ $rc -ne 0 && $out == *"Node.js 18.19.0 is too old: package.json needs 20 or newer"* && $out != *"would run"* ]]; then
  ok "Node 18 stops setup.sh before anything is installed, saying so"
else
  bad "Node 18: exit $rc, output: $out"
fi
# No rustup or cargo: a HOME without .cargo, and a PATH without ~/.cargo/bin.
nocargo=$(tr ':' '\n' <<<"$PATH" | grep -v '\.cargo/bin' | paste -sd: -)
set +e
out=$(HOME="$FAKE/home" PATH="$nocargo" SETUP_DRY_RUN=1 scripts/setup.sh test 2>&1)
rc=$?
set -e
if command -v -p rustup >/dev/null 2>&1 || PATH="$nocargo" command -v rustup >/dev/null 2>&1; then
  echo "skip - no Rust: rustup is installed system-wide here, so it cannot be hidden"
elif [[ $rc -ne 0 && $out == *"Rust is missing: install rustup (https://rustup.rs"* && $out != *"would run"* ]]; then
  ok "no Rust stops setup.sh before anything is installed, saying how to install it"
else
  bad "no Rust: exit $rc, output: $out"
fi

echo "$passed passed, $failed failed"
((failed == 0))
