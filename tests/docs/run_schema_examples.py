"""Runs every Python block of docs/results-schema.md, as written, in a folder holding the
results/lenet_sweep.h5 it reads: a short real run of the fixture plugin's blobs, swept over
the same keys as the README's lenet_sweep. Exits 77 (skipped) without h5py and pandas.

usage: run_schema_examples.py SCHEMA.md RUNNER FIXTURE_PLUGINS"""
import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile

try:
    import h5py  # noqa: F401
    import matplotlib  # noqa: F401
    import pandas  # noqa: F401
except ImportError as missing:
    print(f"skipped: {missing}; tools/setup.sh installs python3-h5py python3-pandas "
          "python3-matplotlib")
    sys.exit(77)

EXPERIMENT = """\
[experiment]
name = "lenet_sweep"
[dataset]
name = "blobs"
[model]
name = "linear_probe"
[train]
epochs = 2
batch_size = 32
[sweep]
"train.batch_size" = [16, 32]
"model.activation" = ["fixture_identity", "relu"]
"""


def python_blocks(markdown):
    return re.findall(r"^```python\n(.*?)^```", markdown, flags=re.S | re.M)


def main(schema, runner, plugins):
    runner, plugins = os.path.abspath(runner), os.path.abspath(plugins)
    with open(schema) as f:
        blocks = python_blocks(f.read())
    assert len(blocks) >= 2, f"expected the h5py and the runner_results examples in {schema}"
    os.chdir(tempfile.mkdtemp(prefix="runner-docs-"))
    with open("lenet_sweep.toml", "w") as f:
        f.write(EXPERIMENT)
    subprocess.run([runner, "-q", "--plugin-path", plugins, "lenet_sweep.toml"], check=True)
    for number, block in enumerate(blocks, 1):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(block, f"{schema} python block {number}", "exec"), {"__name__": "docs"})
        assert printed.getvalue(), f"block {number} printed nothing"
        print(f"block {number}: ran, printed {len(printed.getvalue().splitlines())} lines")
        print(printed.getvalue())


if __name__ == "__main__":
    main(*sys.argv[1:])
