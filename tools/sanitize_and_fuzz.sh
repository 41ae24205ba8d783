#!/usr/bin/env bash
# The guards of hostile input, for CI (tools/setup.sh must have run): a second build with
# clang, AddressSanitizer and UndefinedBehaviorSanitizer (build-sanitize/), then
#   - the torch-free suites run sanitized: config (the TOML reader, overrides, sweeps), results
#     (the HDF5 writer and reader), report, the HTML report's page (results' text in JSON and
#     HTML) and ranks (the rank variables and the local launcher). They hold the parsers of
#     untrusted text and files and build in a few minutes; the suites that link LibTorch are
#     left out, as Debian's LibTorch is not built with the sanitizers and its headers take most
#     of a build.
#   - three fuzzers run FUZZ_SECONDS (default 60) each over their seed corpora: config_fuzzer
#     (runner's own TOML reading, overrides, validation, sweeps; tests/fuzz/corpus/config),
#     mnist_idx_fuzzer (a split's two IDX files, plain or gzip) and cifar10_records_fuzzer (a
#     CIFAR-10 binary file), whose corpora live in their plugins' tests/fuzz_corpus. A crash,
#     a leak or an input slower than 10 s fails, and the input is left in
#     build-sanitize/fuzz-work/<name>/ to be added to the corpus as a regression input.
#   - results_fuzzer replays its corpus (tests/fuzz/corpus/results: a good file and the
#     damaged ones it found) and must get through every input. It is not run free here: left to
#     mutate, it reaches crashes inside libhdf5 1.10 itself within a minute. runner refuses such
#     files after a trial read in a forked child (framework/src/results/read_in_a_child.hpp), but
#     libFuzzer in that child still reports each one, and a crash's report would fail CI at
#     random.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}

missing=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  # The lock tools/setup.sh and tools/debian13/run.sh queue on (apt's lists lock does not wait).
  "${sudo_cmd[@]}" flock /var/lock/runner-apt.lock apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" flock /var/lock/runner-apt.lock \
    apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

suites=(config_test results_test report_test report_html_test ranks_test)
declare -A corpus=(
  [config_fuzzer]=tests/fuzz/corpus/config
  [mnist_idx_fuzzer]=plugins/datasets/mnist/tests/fuzz_corpus
  [cifar10_records_fuzzer]=plugins/datasets/cifar10/tests/fuzz_corpus
)
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DRUNNER_SANITIZE=ON -DRUNNER_FUZZ=ON \
  >/dev/null
cmake --build build-sanitize --target "${suites[@]}" "${!corpus[@]}" results_fuzzer

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp
for suite in "${suites[@]}"; do
  echo "== $suite (sanitized)"
  OPENBLAS_NUM_THREADS=1 "build-sanitize/tests/$suite" --gtest_brief=1
done

fuzz_options=(-timeout=10 -rss_limit_mb=4096 -max_len=131072 -print_final_stats=1)
for fuzzer in config_fuzzer mnist_idx_fuzzer cifar10_records_fuzzer; do
  echo "== $fuzzer, ${seconds} s"
  work=build-sanitize/fuzz-work/$fuzzer
  rm -rf "$work" && mkdir -p "$work/corpus"
  build-sanitize/fuzz/$fuzzer -max_total_time="$seconds" "${fuzz_options[@]}" \
    -artifact_prefix="$work/" "$work/corpus" "${corpus[$fuzzer]}" 2>&1 | tail -n 8
done
echo "== results_fuzzer, its corpus replayed"
# The trial read's child meets the HDF5 crash of hdf5_heap_index.h5 and libFuzzer there saves it
# as an artifact: into the work folder, not the checkout.
work=build-sanitize/fuzz-work/results_fuzzer
rm -rf "$work" && mkdir -p "$work"
build-sanitize/fuzz/results_fuzzer -runs=0 "${fuzz_options[@]}" -artifact_prefix="$work/" \
  tests/fuzz/corpus/results 2>&1 | tail -n 3
