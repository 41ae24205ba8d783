#!/bin/sh
# docs/writing-a-plugin.md shows the example plugin's files whole; each must appear there as one
# fenced code block, byte for byte, so the walk-through is the code that install_out_of_tree_plugin
# builds and trains.
#   docs_example.sh DOC EXAMPLE_DIR WORK_DIR
set -eu
doc=$1 example=$2 work=$3

rm -rf "$work"
mkdir -p "$work"
# Fenced blocks of the document to block1, block2, ... (fence lines excluded).
awk -v dir="$work" '
  /^```/ { if (inside) { inside = 0; close(file) } else { inside = 1; n++; file = dir "/block" n; printf "" > file }; next }
  inside { print > file }
' "$doc"

status=0
for name in CMakeLists.txt tiny_mlp.cpp tiny_mlp.toml; do
  found=no
  for block in "$work"/block*; do
    if cmp -s "$example/$name" "$block"; then found=yes; break; fi
  done
  if [ "$found" = no ]; then
    echo "FAIL: $doc has no code block equal to $example/$name" >&2
    status=1
  fi
done
[ "$status" -ne 0 ] || echo "PASS: $doc shows each example file as it is"
exit "$status"
