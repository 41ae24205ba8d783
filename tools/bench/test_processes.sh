#!/usr/bin/env bash
# What a process per test costs against a process per suite: runs the tests of each program
# named, one after the other, once with every test in a process of its own (as ctest did when
# each test was a CTest test) and once with every suite in one (as ctest does now), the two
# interleaved and alternating which goes first. Prints per program the counts, both wall
# times and their ratio, then the sums, with the load before each program.
#
#   tools/bench/test_processes.sh [--build DIR] [PROGRAM...]
#
# The default programs hold many short tests and none of the long end-to-end runs, whose own
# work would hide the difference; any of build/tests/ may be named. Run on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build
if [[ ${1:-} == --build ]]; then
  build=$2
  shift 2
fi
programs=("$@")
((${#programs[@]})) || programs=(config_test dataset_plugins_test model_plugins_test
  op_plugins_test results_test plugin_host_test report_test common_test)
export OPENBLAS_NUM_THREADS=1

# names PROGRAM: its tests as Suite.Test, one a line.
names() {
  "$1" --gtest_list_tests | awk '/^[^ ]/ { sub(/ .*/, ""); suite = $0; next }
    NF { sub(/^ +/, ""); sub(/ .*/, ""); print suite $0 }'
}
# seconds COMMAND...: the wall time of COMMAND, its output dropped (a failure stops the script).
seconds() {
  local from=$EPOCHREALTIME
  "$@" > /dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
  echo "$EPOCHREALTIME - $from" | bc
}
each_test() {
  local test
  while read -r test; do
    "$1" --gtest_filter="$test" > /dev/null 2>&1 || [[ $? -eq 77 ]] || return 1
  done < <(names "$1")
}
each_suite() {
  local suite
  while read -r suite; do
    "$1" --gtest_filter="$suite*" > /dev/null 2>&1 || [[ $? -eq 77 ]] || return 1
  done < <(names "$1" | sed 's/\..*$/./' | uniq)
}

printf '%-24s %6s %6s %10s %10s %6s  %s\n' program tests suites per-test per-suite ratio load
total_test=0 total_suite=0 first=test
for name in "${programs[@]}"; do
  program=$build/tests/$name
  load=$(cut -d' ' -f1 /proc/loadavg)
  if [[ $first == test ]]; then
    t=$(seconds each_test "$program") s=$(seconds each_suite "$program") first=suite
  else
    s=$(seconds each_suite "$program") t=$(seconds each_test "$program") first=test
  fi
  tests=$(names "$program" | wc -l)
  suites=$(names "$program" | sed 's/\..*$//' | uniq | wc -l)
  printf '%-24s %6d %6d %9.1fs %9.1fs %6.2f  %s\n' "$name" "$tests" "$suites" "$t" "$s" \
    "$(echo "$s / $t" | bc -l)" "$load"
  total_test=$(echo "$total_test + $t" | bc) total_suite=$(echo "$total_suite + $s" | bc)
done
printf '%-24s %6s %6s %9.1fs %9.1fs %6.2f\n' all "" "" "$total_test" "$total_suite" \
  "$(echo "$total_suite / $total_test" | bc -l)"
