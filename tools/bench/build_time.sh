#!/usr/bin/env bash
# How long the tree takes to build: a cold build of everything (runner, plugins, tests), a
# rebuild after touching one host source, and the out-of-tree example plugin against each
# side's installed SDK (cold, then after touching its source), for two commits built in one
# run, interleaved, each in a fresh worktree and build folder. Prints the wall times with the
# load average before each, and per target kind the compile seconds summed from ninja's log.
#
#   tools/bench/build_time.sh [--before REF] [--after REF] [--rounds N] [--jobs N]
#                             [--work DIR] [--skip-cold]
#
# --before defaults to the last commit before the unity build, --after to HEAD. A cold build
# of the older tree takes most of an hour on 2 cores: run it on an idle machine (`uptime`).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

before=$(git log --format=%H -n 1 -S 'RUNNER_UNITY' -- CMakeLists.txt)
before=${before:+$before~1}
after=HEAD
rounds=1
jobs=$(nproc)
work=/tmp/runner-build-time
cold=yes
while (($#)); do
  case $1 in
    --before) before=$2; shift 2 ;;
    --after) after=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --skip-cold) cold=no; shift ;;
    *) echo "build_time: unknown argument '$1' (see the head of $0)" >&2; exit 2 ;;
  esac
done
[[ -n $before ]] || { echo "build_time: no commit before the unity build: give --before" >&2; exit 2; }

load() { cut -d' ' -f1 /proc/loadavg; }
# Seconds since FROM (an $EPOCHREALTIME), to a tenth.
seconds_of() { awk -v from="$1" -v now="$EPOCHREALTIME" 'BEGIN { printf "%.1f", now - from }'; }

# checkout SIDE REF: a worktree of REF in $work/SIDE/src.
checkout() {
  local side=$1 ref=$2
  rm -rf "$work/$side"
  git -C "$repo" worktree remove --force "$work/$side/src" 2> /dev/null || true
  git -C "$repo" worktree prune
  mkdir -p "$work/$side"
  git -C "$repo" worktree add --detach "$work/$side/src" "$ref" > /dev/null
}

# kinds SIDE: compile seconds by target kind, summed over the entries of ninja's log.
kinds() {
  awk -F'\t' '
    NR > 1 && $4 ~ /\.o$/ {
      kind = "host"
      if ($4 ~ /^plugins\/.*\/tests\// || $4 ~ /^tests\//) kind = "tests"
      else if ($4 ~ /^plugins\//) kind = "plugins"
      else if ($4 ~ /^CMakeFiles\/runner_pch/) kind = "pch"
      sum[kind] += ($2 - $1) / 1000; count[kind]++
    }
    END { for (k in sum) printf "    %-8s %5d objects %8.0f s compiling\n", k, count[k], sum[k] }
  ' "$work/$1/build/.ninja_log" | sort
}

# cold SIDE: configure and build everything from nothing.
cold() {
  local side=$1 from
  rm -rf "$work/$side/build"
  echo "  $side: cold build, load $(load)"
  from=$EPOCHREALTIME
  cmake -S "$work/$side/src" -B "$work/$side/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DRUNNER_BUILD_TESTS=ON > "$work/$side/configure.log"
  cmake --build "$work/$side/build" -j "$jobs" > "$work/$side/build.log" ||
    { tail -n 30 "$work/$side/build.log"; exit 1; }
  echo "  $side: cold build $(seconds_of "$from") s"
  kinds "$side"
}

# touch_host SIDE: rebuild after touching one host source the runner and the tests link.
touch_host() {
  local side=$1 from
  touch "$work/$side/src/framework/src/train/trainer.cpp"
  echo "  $side: rebuild after touching framework/src/train/trainer.cpp, load $(load)"
  from=$EPOCHREALTIME
  cmake --build "$work/$side/build" -j "$jobs" > "$work/$side/rebuild.log"
  echo "  $side: rebuild $(seconds_of "$from") s"
}

# plugin SIDE: install the SDK, then build the example plugin against it, cold and touched,
# with c++ and, where there is one, clang++ (an install that found clang++ ships the SDK's
# header precompiled for it too).
plugin() {
  local side=$1 prefix=$work/$1/prefix compiler
  cmake --build "$work/$side/build" -j "$jobs" --target runner_products > /dev/null
  rm -rf "$prefix"
  cmake --install "$work/$side/build" --prefix "$prefix" > /dev/null
  for compiler in c++ clang++; do
    command -v "$compiler" > /dev/null && example_plugin "$side" "$compiler"
  done
}

# example_plugin SIDE COMPILER: the example plugin's cold build (configure included) and its
# rebuild after touching its source.
example_plugin() {
  local side=$1 compiler=$2 from example=$work/$1/example-$2
  rm -rf "$example"
  echo "  $side: out-of-tree example plugin with $compiler, load $(load)"
  from=$EPOCHREALTIME
  CXX=$compiler cmake -S "$work/$side/src/tests/install/example_plugin" -B "$example" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/$side/prefix" > /dev/null
  cmake --build "$example" > "$work/$side/plugin.log" || { cat "$work/$side/plugin.log"; exit 1; }
  echo "  $side: example plugin ($compiler), cold $(seconds_of "$from") s"
  touch "$work/$side/src/tests/install/example_plugin/tiny_mlp.cpp"
  from=$EPOCHREALTIME
  cmake --build "$example" > /dev/null
  echo "  $side: example plugin ($compiler), after touching tiny_mlp.cpp $(seconds_of "$from") s"
}

echo "build_time: before $(git rev-parse --short "$before"), after $(git rev-parse --short "$after"), $(nproc) cores, $jobs jobs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
checkout before "$before"
checkout after "$after"
for ((round = 1; round <= rounds; round++)); do
  echo "round $round"
  # Which side goes first alternates, so a machine slowing down does not favour one.
  sides=(before after)
  ((round % 2)) || sides=(after before)
  if [[ $cold == yes || ! -d $work/before/build ]]; then
    for side in "${sides[@]}"; do cold "$side"; done
  fi
  for side in "${sides[@]}"; do touch_host "$side"; done
  for side in "${sides[@]}"; do plugin "$side"; done
done
git -C "$repo" worktree remove --force "$work/before/src"
git -C "$repo" worktree remove --force "$work/after/src"
