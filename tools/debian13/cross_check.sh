#!/usr/bin/env bash
# Each LibTorch's runner refuses a plugin built against the other: the Debian 12 build (build/,
# LibTorch 1.13) loads the fixture plugin built in the Debian 13 root, and that root's runner
# (LibTorch 2.6) loads the one built here. Both must exit 3 with one line naming both versions.
# Run after tools/setup.sh here and tools/debian13/run.sh VARIANT build (or test).
#   tools/debian13/cross_check.sh cpu|cuda
set -uo pipefail
cd "$(dirname "$0")/../.."
variant=${1:-cuda}
root=.debian13/$variant
theirs=$root/src/runner/build/tests/fixtures/good
[[ -d $theirs && -x build/bin/runner ]] ||
  { echo "cross_check: build here and in $root first" >&2; exit 2; }

failures=0
# expect NAME OUTPUT CODE WANTED...: exit CODE and every WANTED text, on one line of OUTPUT.
expect() {
  local name=$1 output=$2 code=$3 line
  shift 3
  line=$(grep -m1 'was built with LibTorch' <<< "$output")
  local ok=1
  [[ $code -eq 3 && -n $line ]] || ok=0
  for wanted in "$@"; do [[ $line == *"$wanted"* ]] || ok=0; done
  if ((ok)); then
    echo "cross_check: $name: refused, exit 3: $line"
  else
    echo "cross_check: $name: FAILED (exit $code):"
    echo "$output"
    failures=$((failures + 1))
  fi
}

output=$(build/bin/runner --plugin-path "$theirs" plugins 2>&1)
expect "LibTorch 1.13 runner, LibTorch 2.6 plugin" "$output" $? \
  "was built with LibTorch 2.6" "this runner uses LibTorch 1.13"

mkdir -p "$root/tmp/plugin-of-1.13"
cp build/tests/fixtures/good/*.so "$root/tmp/plugin-of-1.13/"
output=$(bash tools/debian13/run.sh "$variant" -- \
  build/bin/runner --plugin-path /tmp/plugin-of-1.13 plugins 2>&1)
expect "LibTorch 2.6 runner, LibTorch 1.13 plugin" "$output" $? \
  "was built with LibTorch 1.13" "this runner uses LibTorch 2.6"

((failures == 0)) && echo "cross_check: each runner refused the other LibTorch's plugin"
((failures == 0))
