#!/usr/bin/env bash
# The Python package installed as the README's offline command installs it, on Debian's own
# packages: into a fresh venv that sees them, with nothing fetched and nothing written into the
# checkout; then imported from the venv, and its command run.
#   tests/python/install_offline.sh PYTHON SOURCE_DIR
set -euo pipefail
python=$1
source_dir=$2
"$python" -c 'import flit_core, venv' 2> /dev/null ||
  { echo "skipped: no flit_core or venv for $python; tools/setup.sh installs flit python3-venv"; exit 77; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
listing() { (cd "$source_dir/python" && find . -print | LC_ALL=C sort); }
before=$(listing)

cd "$source_dir"
# The README's two commands, the venv in the scratch folder.
"$python" -m venv --system-site-packages "$scratch/venv"
"$scratch/venv/bin/pip" install --no-build-isolation --no-deps --no-index --quiet ./python

after=$(listing)
if [[ $before != "$after" ]]; then
  echo "FAIL: the install wrote into $source_dir/python:"
  diff <(echo "$before") <(echo "$after") || true
  exit 1
fi
where=$(cd "$scratch" && "$scratch/venv/bin/python" -c 'import runner_results; print(runner_results.__file__)')
[[ $where == "$scratch/venv/"* ]] || { echo "FAIL: runner_results imported from $where"; exit 1; }
"$scratch/venv/bin/runner-results" --help > /dev/null ||
  { echo "FAIL: runner-results --help"; exit 1; }
echo "installed offline into a venv: $where"
