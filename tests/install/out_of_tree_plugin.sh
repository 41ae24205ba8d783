#!/bin/sh
# Installs a runner build to a fresh prefix, builds the example plugin against that prefix as
# an author would (find_package(Runner), runner_add_plugin), then lists, describes and trains
# it with the installed runner. Exit 77 (skipped) without Fashion-MNIST.
#   out_of_tree_plugin.sh CMAKE BUILD_DIR EXAMPLE_DIR WORK_DIR
set -eu
cmake=$1 build=$2 example=$3 work=$4
data=/usr/share/datasets/fashion-mnist

if [ ! -d "$data" ]; then
  echo "SKIP: no Fashion-MNIST in $data (Debian package dataset-fashion-mnist)"
  exit 77
fi

fail() { echo "FAIL: $*" >&2; exit 1; }

# Only the folders named here may hold plugins, so a stray one cannot clash with these.
unset RUNNER_PLUGIN_PATH
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
plugins=$work/build/plugins
runner=$prefix/bin/runner

echo "== cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" > "$work/install.log"
[ -x "$runner" ] || fail "no $runner after the install"
[ -f "$prefix/lib/cmake/Runner/RunnerConfig.cmake" ] || fail "no RunnerConfig.cmake installed"

echo "== configure and build $example"
# A precompiled header that GCC finds unfit is a warning: here an error, so the test fails when
# the installed precompiled <runner/plugin.hpp> stops serving a plugin built as the runner was.
"$cmake" -S "$example" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_FLAGS=-Werror=invalid-pch
"$cmake" --build "$work/build"
if [ -f "$prefix/include/runner/precompiled/plugin.hpp.gch" ]; then
  "$cmake" --build "$work/build" -- -t commands | grep -q -- "-include $prefix/include/runner/precompiled/plugin.hpp" ||
    fail "the example plugin was not compiled on the installed precompiled runner/plugin.hpp"
fi
[ -f "$plugins/tiny_mlp.so" ] || fail "the build made no $plugins/tiny_mlp.so"
[ ! -e "$prefix/lib/runner/plugins/tiny_mlp.so" ] || fail "the plugin build installed into the prefix"

echo "== runner plugins --plugin-path $plugins"
"$runner" plugins --plugin-path "$plugins" | tee "$work/plugins.txt"
grep -q "^model/tiny_mlp .*$plugins/tiny_mlp.so\$" "$work/plugins.txt" ||
  fail "runner plugins does not list model/tiny_mlp from $plugins"
grep -q "^dataset/mnist .*$prefix/lib/runner/plugins/mnist.so\$" "$work/plugins.txt" ||
  fail "runner plugins does not list the installed dataset/mnist"

echo "== runner describe model/tiny_mlp"
"$runner" describe model/tiny_mlp --plugin-path "$plugins" | tee "$work/describe.txt"
grep -q "^  hidden " "$work/describe.txt" || fail "describe does not list the key hidden"

echo "== runner --plugin-path $plugins $example/tiny_mlp.toml"
# From the work folder: the experiment's relative results path lands there.
cd "$work"
"$runner" --plugin-path "$plugins" "$example/tiny_mlp.toml"
[ -f "$work/results/tiny_mlp.h5" ] || fail "no results file $work/results/tiny_mlp.h5"
# An install that found clang++ precompiled the SDK's header for it: a Clang plugin project
# compiles on it, and the plugin it makes loads into the GCC-built runner and trains.
clang_pch=$prefix/include/runner/precompiled/plugin.hpp.pch
if [ -f "$clang_pch" ] && command -v clang++ > /dev/null; then
  echo "== configure and build $example with clang++"
  CXX=clang++ "$cmake" -S "$example" -B "$work/build-clang" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix"
  "$cmake" --build "$work/build-clang"
  "$cmake" --build "$work/build-clang" -- -t commands | grep -q -- "-include-pch $clang_pch" ||
    fail "the example plugin was not compiled on the installed $clang_pch"
  echo "== runner --plugin-path $work/build-clang/plugins $example/tiny_mlp.toml"
  "$runner" --plugin-path "$work/build-clang/plugins" "$example/tiny_mlp.toml" \
    --set experiment.results=results/tiny_mlp_clang.h5
  [ -f "$work/results/tiny_mlp_clang.h5" ] || fail "no results file from the Clang-built plugin"
fi
echo "PASS"
