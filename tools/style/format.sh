#!/usr/bin/env bash
# Formats the tree's C++ and CUDA sources by .clang-format (clang-format 14, Debian's).
# `tools/style/format.sh --check` changes nothing and fails, naming the files, where one is
# not formatted (CI runs it).
set -euo pipefail
cd "$(dirname "$0")/../.."

mode=fix
case "${1:-}" in
  "") ;;
  --check) mode=check ;;
  *) echo "format: unknown argument '$1' (tools/style/format.sh [--check])" >&2; exit 2 ;;
esac
command -v clang-format > /dev/null || { echo "format: clang-format is not installed" >&2; exit 1; }

mapfile -t sources < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh')
if [[ $mode == fix ]]; then
  clang-format -i "${sources[@]}"
  exit 0
fi
unformatted=()
for file in "${sources[@]}"; do
  clang-format --dry-run -Werror "$file" > /dev/null 2>&1 || unformatted+=("$file")
done
if ((${#unformatted[@]})); then
  echo "format: ${#unformatted[@]} files differ from .clang-format (tools/style/format.sh fixes" \
       "them): ${unformatted[*]}" >&2
  exit 1
fi
echo "format: ${#sources[@]} files formatted"
