#!/bin/bash
# The out-of-tree example plugin's build time against an older SDK and this build's installed
# one, with c++ and clang++, interleaved over rounds in one run. Before: the older ref's SDK
# headers and example source compiled with c++ and linked as runner_add_plugin() links (that
# SDK shipped no precompiled header; its configure step is not counted, which favours it).
# After: a fresh install of BUILD, then the example configured and built with each compiler
# (cold, configure included) and rebuilt after touching its source.
#
#   tools/bench/example_plugin_time.sh [--build DIR] [--before REF] [--rounds N]
#
# --build defaults to build (configured, built), --before to 4a7e3c6, the tree the goal of a
# third was set against. Give it an idle machine (`uptime`).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build before=4a7e3c6 rounds=2
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --before) before=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "example_plugin_time.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
example=tests/install/example_plugin

load() { cut -d' ' -f1 /proc/loadavg; }
seconds_of() { awk -v from="$1" -v now="$EPOCHREALTIME" 'BEGIN { printf "%.1f", now - from }'; }

cmake --build "$build" --target runner_products > /dev/null
cmake --install "$build" --prefix "$work/prefix" > /dev/null
mkdir "$work/before"
git archive "$before" framework/include "$example" | tar -x -C "$work/before"

# The compile and link lines of a plugin project: those of a g++ build of the example against
# this install, with the SDK's include folder and the precompiled header swapped for the older
# headers.
CXX=c++ cmake -S "$example" -B "$work/lines" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" > /dev/null
compile=$(ninja -C "$work/lines" -t commands | grep -- ' -c ' | tail -n 1)
link=$(ninja -C "$work/lines" -t commands | tail -n 1)
compile=${compile//-include $work\/prefix\/include\/runner\/precompiled\/plugin.hpp/}
compile=${compile//-isystem $work\/prefix\/include/-isystem $work\/before\/framework\/include}
compile=${compile//$PWD\/$example\/tiny_mlp.cpp/$work\/before\/$example\/tiny_mlp.cpp}

before_side() {
  echo "  before ($before, c++), load $(load)"
  local from=$EPOCHREALTIME
  (cd "$work/lines" && eval "$compile" && eval "$link")
  echo "  before: example plugin, compile and link $(seconds_of "$from") s"
}

after_side() {
  local compiler=$1 from dir=$work/after-$1
  rm -rf "$dir"
  echo "  after ($compiler), load $(load)"
  from=$EPOCHREALTIME
  CXX=$compiler cmake -S "$example" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$work/prefix" > /dev/null
  cmake --build "$dir" > /dev/null
  echo "  after ($compiler): example plugin, cold $(seconds_of "$from") s"
  touch "$example/tiny_mlp.cpp"
  from=$EPOCHREALTIME
  cmake --build "$dir" > /dev/null
  echo "  after ($compiler): after touching tiny_mlp.cpp $(seconds_of "$from") s"
}

compilers=(c++)
[[ -f $work/prefix/include/runner/precompiled/plugin.hpp.pch ]] && compilers+=(clang++)
echo "example_plugin_time: before $before, after $(git rev-parse --short HEAD), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
for ((round = 1; round <= rounds; round++)); do
  echo "round $round"
  before_side
  for compiler in "${compilers[@]}"; do after_side "$compiler"; done
done
