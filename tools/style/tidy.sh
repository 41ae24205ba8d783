#!/usr/bin/env bash
# clang-tidy with .clang-tidy's checks over runner's own C++ sources; fails naming each finding.
#   tools/style/tidy.sh            the host's sources that build without LibTorch (config,
#                                  results, report, the ranks' launcher, bin/runner's start
#                                  checks, augment's schemas, machine/): about a minute on 2
#                                  cores, what CI runs
#   tools/style/tidy.sh --all      every .cpp of framework/, plugins/ and tests/ (not the CUDA
#                                  sources): each LibTorch unit parses all of torch's headers,
#                                  so this takes most of an hour on 2 cores
#   tools/style/tidy.sh FILE...    those sources
# The compile commands come from build-tidy/, configured with clang, each source its own unit
# (no unity batches) and no precompiled header (clang-tidy cannot read GCC's), and protoc's
# headers made; nothing else is built.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v clang-tidy > /dev/null || {
  echo "tidy: clang-tidy is not installed (apt-get install clang-tidy)" >&2
  exit 2
}
mkdir -p build-tidy
cmake -S . -B build-tidy -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DRUNNER_UNITY=OFF -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  > build-tidy/configure.log 2>&1 || { tail -n 20 build-tidy/configure.log >&2; exit 2; }
mapfile -t protoc_headers < <(ninja -C build-tidy -t targets all | grep -o '^[^:]*\.pb\.h' || true)
((${#protoc_headers[@]} == 0)) || ninja -C build-tidy "${protoc_headers[@]}" > /dev/null

# sources MODE: the files of the compile commands that MODE selects.
sources() {
  python3 - "$1" <<'PY'
import json, os, sys
mode, root = sys.argv[1], os.getcwd() + "/"
for entry in json.load(open("build-tidy/compile_commands.json")):
    path = entry["file"]
    if not path.startswith(root) or not path.endswith(".cpp"):
        continue
    own = path[len(root):]
    if mode == "all" and own.startswith(("framework/", "plugins/", "tests/")):
        print(path)
    elif mode == "torch-free" and own.startswith("framework/src/") and \
            "torch" not in entry["command"] and "/tensorboard/" not in own:
        print(path)
PY
}
if (($# == 0)); then
  mapfile -t files < <(sources torch-free)
elif [[ $1 == --all ]]; then
  mapfile -t files < <(sources all)
else
  files=("$@")
fi
echo "tidy: ${#files[@]} sources"
report=build-tidy/findings.txt
# Headers count where they are runner's own, not protoc's in build-tidy/ nor a system's.
header_filter="^$PWD/(framework|plugins|tests)/"
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p build-tidy --quiet \
  --header-filter="$header_filter" \
  > "$report" 2> build-tidy/clang-tidy.log || true
findings=$(grep -c ': \(warning\|error\):' "$report" || true)
if ((findings > 0)); then
  grep -A3 ': \(warning\|error\):' "$report" >&2
  echo "tidy: $findings findings (above; all in $report)" >&2
  exit 1
fi
echo "tidy: no findings"
