#!/usr/bin/env bash
# What bin/runner's start checks cost: `runner --version` through the launcher (bin/runner)
# against the host started directly (libexec/runner/runner), rounds interleaved, and the same
# under `ulimit -v` (where the launcher starts the host once more to see that it loads). Prints
# the median wall time of each and the ratios. Run on an idle machine (the load is printed).
#   tools/bench/launcher_start.sh [build folder] [rounds]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
rounds=${2:-9}
launcher=$build/bin/runner host=$build/libexec/runner/runner
[[ -x $launcher && -x $host ]] || { echo "no $launcher or $host: build first" >&2; exit 2; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores;$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
# seconds PROGRAM [LIMIT_KIB]: one start's wall time.
seconds() {
  local from to
  from=$(date +%s.%N)
  if [[ -n ${2:-} ]]; then (ulimit -v "$2" && "$1" --version > /dev/null); else "$1" --version > /dev/null; fi
  to=$(date +%s.%N)
  echo "$to - $from" | bc
}
declare -A times
for ((i = 0; i < rounds; ++i)); do
  times[host]+="$(seconds "$host") "
  times[launcher]+="$(seconds "$launcher") "
  times[host_limited]+="$(seconds "$host" 32000000) "
  times[launcher_limited]+="$(seconds "$launcher" 32000000) "
done
median() { tr ' ' '\n' <<< "$1" | grep . | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for name in host launcher host_limited launcher_limited; do
  printf '%-18s median %.3f s over %d starts\n' "$name" "$(median "${times[$name]}")" "$rounds"
done
printf 'launcher / host: %.3f; under ulimit -v: %.3f\n' \
  "$(echo "$(median "${times[launcher]}") / $(median "${times[host]}")" | bc -l)" \
  "$(echo "$(median "${times[launcher_limited]}") / $(median "${times[host_limited]}")" | bc -l)"
