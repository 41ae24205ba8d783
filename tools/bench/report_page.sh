#!/usr/bin/env bash
# `runner report --html` on a big sweep: 500 runs of 10 epochs and 1,000 steps each (the
# sample_results fixture's "big" file). Prints the time to write the page, its size (goal:
# under 10 MB), and the time headless Chromium takes to open and draw it, by the page's own
# measure from navigation start to the last chart (goal: under 2 s), ROUNDS times, then
# headless Firefox's where firefox-esr is installed, interleaved. Run on an idle machine (the
# load is printed) after the build (build/ by default).
#   tools/bench/report_page.sh [build folder] [rounds]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
rounds=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores;$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
"$build/tests/fixtures/sample_results/sample_results" big "$work/big.h5"
start=$(date +%s.%N)
"$build/bin/runner" report "$work/big.h5" --html "$work/big.html" > /dev/null
end=$(date +%s.%N)
bytes=$(stat -c %s "$work/big.html")
awk -v s="$start" -v e="$end" -v b="$bytes" \
  'BEGIN { printf "page written in %.2f s: %.2f MB (goal: under 10)\n", e - s, b / 1e6 }'
browsers=(chromium)
command -v firefox-esr > /dev/null && browsers+=(firefox)
for round in $(seq "$rounds"); do
  for browser in "${browsers[@]}"; do
    /usr/bin/python3 tools/report/check_page.py "$work/big.html" --browser "$browser" \
      --expect-rows 500 --time | sed "s/^/round $round, $browser: /"
  done
done
echo "(goal: drawn in under 2000 ms)"
