#!/usr/bin/env bash
# Finds test assertions that cannot fail (issue 13): a green run must mean something.
#
# A grep over the test code (tests/, benches/, fuzz/, the #[test]s in src/, the browser tests)
# for shapes that are true whatever the code does:
#   or-true      `assert!(a || true)`, `if (a || true) …`: the alternative is always true
#   x-or-not-x   `assert!(x || !x)`, `assert!(!x || x)`
#   always-true  `assert!(true)`
#   same-sides   `assert_eq!(x, x)`, `assert!(x == x)`
#   unsigned>=0  `v.len() >= 0`, `n as usize >= 0`, `>= 0u32`: an unsigned number is never
#                negative
#   or-nonempty  `assert!(a || v.len() > 0)`, `|| it.count() > 0`: the shape of the assertion
#                issue 13 found in tests/gpu.rs (`gpu.is_sorted() || cpu.fragments.windows(2)
#                .count() > 0`), true for any non-trivial input
# It works line by line (an assertion spread over several lines is seen only where the pattern
# sits on one line) and is no proof; clippy (absurd_extreme_comparisons, eq_op,
# overly_complex_bool_expr, all deny-by-default or in -D warnings) covers more of the same.
# A line may opt out with a `lint-tests: allow` comment saying why.
#
# Usage: scripts/lint-tests.sh            scan the repository (exit 1 on a finding)
#        scripts/lint-tests.sh --self-test check the patterns against known good and bad lines
# scripts/test.sh runs both.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# name|Perl regex (applied to one line of a file)
PATTERNS=(
  'or-true|(?:assert\w*!|\bif\s*\(|\bexpect\().*(?:\|\|\s*true\b|\btrue\s*\|\|)'
  'x-or-not-x|assert\w*!\(\s*(?:([\w.:\[\]()]+?)\s*\|\|\s*!\s*\1|!\s*([\w.:\[\]()]+?)\s*\|\|\s*\2)\s*[,)]'
  'always-true|assert!\(\s*true\s*[,)]'
  'same-sides|assert_eq!\(\s*([^,]+?)\s*,\s*\1\s*[,)]|assert!\(\s*([\w.:\[\]()]+)\s*==\s*\2\s*[,)]'
  'unsigned>=0|(?:\.(?:len|count|capacity)\(\)|\bas\s+(?:u8|u16|u32|u64|u128|usize))\s*>=\s*0\b(?!\.)|>=\s*0(?:u8|u16|u32|u64|u128|usize)\b'
  'or-nonempty|assert\w*!\(.*\|\|.*\.(?:len|count)\(\)\s*(?:>\s*0\b|>=\s*1\b|!=\s*0\b)'
)

# Reads "file<TAB>lineno<TAB>text" lines on stdin; prints "file:lineno: [name] text" for
# each pattern a line matches. One perl process for everything.
match_lines() {
  printf '%s\n' "${PATTERNS[@]}" >"$PATTERN_FILE"
  perl -e '
    open(my $fh, "<", $ARGV[0]) or die "$ARGV[0]: $!";
    my @p = map { chomp; my ($n, $r) = split(/\|/, $_, 2); [$n, qr/$r/] } <$fh>;
    while (my $l = <STDIN>) {
      chomp $l;
      my ($file, $no, $text) = split(/\t/, $l, 3);
      next if $text =~ /lint-tests: allow/;
      for my $q (@p) {
        if ($text =~ $q->[1]) { (my $t = $text) =~ s/^\s+//; print "$file:$no: [$q->[0]] $t\n"; }
      }
    }' "$PATTERN_FILE"
}

PATTERN_FILE=$(mktemp)
trap 'rm -f "$PATTERN_FILE"' EXIT

self_test() {
  local bad=(
    'assert!(gpu.is_sorted() || true);'
    'assert!(true || x > 1, "msg");'
    'if (!(report.pairs.length === 1 || true)) throw new Error("x");'
    'assert!(ok || !ok);'
    'assert!(!v.is_empty() || v.is_empty());'
    'assert!(true);'
    'assert_eq!(a.len(), a.len());'
    'assert!(x == x, "same");'
    'assert!(v.len() >= 0);'
    'assert!(n as usize >= 0);'
    'assert!(k >= 0u32);'
    'assert!(gpu.is_sorted() || cpu.fragments.windows(2).count() > 0);'
    'debug_assert!(a.is_sorted() || b.len() != 0);'
  )
  local good=(
    'assert!(gpu.is_sorted(), "{what}: not sorted");'
    'assert!(count >= 0, "exit before entry");'
    'assert!(f["sim_ms"].as_f64().unwrap() >= 0.0);'
    'assert!(*n == "vs_main" || *n == "fs_main" || n.starts_with("cs_"));'
    'assert_eq!(a.len(), b.len());'
    'assert!(text.contains("OBJ") || text.contains("GLB"));'
    'assert!(v.len() > 0);'
    'cmd || true'
    'assert!(a || b);'
    'assert!(v.len() >= 0); // lint-tests: allow (a test of this script)'
  )
  local l failed=0 out
  for l in "${bad[@]}"; do
    out=$(printf 'bad\t0\t%s\n' "$l" | match_lines)
    if [[ -z $out ]]; then
      echo "lint-tests self-test: not flagged: $l" >&2
      failed=1
    fi
  done
  for l in "${good[@]}"; do
    out=$(printf 'good\t0\t%s\n' "$l" | match_lines)
    if [[ -n $out ]]; then
      echo "lint-tests self-test: flagged but fine: $out" >&2
      failed=1
    fi
  done
  if ((failed)); then
    echo "lint-tests: self-test FAILED" >&2
    exit 1
  fi
  echo "lint-tests: self-test ok (${#bad[@]} bad lines flagged, ${#good[@]} good lines not)"
}

scan() {
  local files=() out n
  mapfile -t files < <(
    git ls-files -- 'tests/*.rs' 'tests/**/*.rs' 'benches/*.rs' 'benches/**/*.rs' 'fuzz/src/*.rs' \
      'fuzz/fuzz_targets/*.rs' 'src/*.rs' 'src/**/*.rs' 'tests/browser/*.mjs' | sort -u
  )
  n=${#files[@]}
  # Only lines that assert or throw can hide a test that cannot fail.
  out=$(awk '/assert|throw|expect\(/ { printf "%s\t%d\t%s\n", FILENAME, FNR, $0 }' "${files[@]}" | match_lines)
  if [[ -n $out ]]; then
    printf '%s\n' "$out"
    echo "lint-tests: $(wc -l <<<"$out") assertion(s) that cannot fail in $n files (fix them, or add '// lint-tests: allow (why)')" >&2
    exit 1
  fi
  echo "lint-tests: $n files, no assertion that cannot fail"
}

case "${1:-}" in
  --self-test) self_test ;;
  "") scan ;;
  *)
    echo "usage: scripts/lint-tests.sh [--self-test]" >&2
    exit 2
    ;;
esac
