"""Hostile input and faults against the runner binary, a case at a time, and a table of how
each class fared: cases tried, handled well, weak, crash, hang, data loss.

Each case writes what it needs into its own folder, runs one command (in a session of its own,
so every process it starts can be found and signalled), and is judged in this order:
  hang       it ran past its time limit (it is then killed);
  crash      it ended by a signal it was not sent, or printed a sanitizer's or the kernel's
             crash report;
  data loss  its results file cannot be read, a run was left "running" by a command that
             ended on its own, fewer epochs were recorded than had finished, or a file it was
             to leave alone (its input, a file of another kind where it writes) changed;
  weak       a process of its folder outlived it, its exit code is not the documented one for
             its class, or its message does not name the file, key, rank or value at fault;
  handled well otherwise.
Exit codes: 2 config, 3 plugin, 4 data, 5 run, 130/143 interrupted, 1 an op that fails its check.

Usage (from the checkout, after building; Debian's python3 with h5py):
  /usr/bin/python3 tools/hostile/hostile_inputs.py [--build DIR] [--only CLASS] [--verbose]
Prints a line per case that was not handled well, then the table; exit 1 when a case crashed,
hung or lost data.
"""
import argparse
import glob
import gzip
import os
import resource
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import h5py

import limits
import more_inputs
import output_paths

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUNNER = FIXTURES = GOOD = None  # set from --build


def use_build(build):
    global RUNNER, FIXTURES, GOOD
    RUNNER = os.path.join(build, "bin", "runner")
    FIXTURES = os.path.join(build, "tests", "fixtures")
    GOOD = os.path.join(FIXTURES, "good")


RESULTS_CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus", "results")
CLASSES = ["config", "data", "plugin", "results", "training fault", "distributed fault",
           "check-op", "outputs", "inputs", "plan flags", "ranks and folders", "resource limits",
           "broken plugins"]


@dataclass
class Case:
    cls: str
    name: str
    setup: object  # (dir) -> list of arguments after the binary
    codes: tuple  # the exit codes that are right
    message: str  # in stderr or stdout; "{dir}" is the case's folder
    env: object = field(default_factory=dict)  # a dict, or (dir) -> dict
    epochs: int = None  # the epochs its one run must hold
    send: tuple = None  # (seconds, signal): sent to the command's session
    limit_s: float = 120
    absent: str = None  # text that must not appear in its output (another library's noise)
    companion: object = None  # (dir) -> arguments of a runner started first, kept running
    companion_s: float = 0  # how long the companion runs before the command starts
    kept: tuple = ()  # glob patterns, in its folder, of files it must leave as they were
    limits: dict = field(default_factory=dict)  # resource.RLIMIT_* -> value, the command's own
    unprivileged: bool = False  # run as nobody when root (root is exempt from RLIMIT_NPROC)
    teardown: object = None  # (dir) -> None, after the case is judged (a tmpfs unmounted)
    closed: str = None  # "stdout" or "stderr": its reader gone from the start (`| head -1`)


# ---- writing inputs ---------------------------------------------------------------------------

def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return path


def blobs(d, extra="", model_extra="", epochs=1, samples=512):
    return write(f"{d}/exp.toml", f"""[experiment]
name = "hostile"
results = "{d}/r.h5"
[dataset]
name = "blobs"
train_size = {samples}
[model]
name = "linear_probe"
{model_extra}
[train]
epochs = {epochs}
batch_size = 32
threads = 1
{extra}""")


def run_blobs(extra="", model_extra="", epochs=1, samples=512):
    return lambda d: ["--plugin-path", GOOD, blobs(d, extra, model_extra, epochs, samples)]


# Epochs of about half a second, for faults that arrive while it trains.
def long_run(extra=""):
    return run_blobs(extra, epochs=60, samples=100000)


def toml_text(text):
    return lambda d: ["--plugin-path", GOOD, write(f"{d}/exp.toml", text.replace("{dir}", d))]


def big_endian(*values):
    return b"".join(struct.pack(">I", v) for v in values)


def idx_split(folder, prefix, images=10, pixels=None, labels=None, image_magic=2051,
              label_magic=2049, label_count=None):
    pixels = images * 28 * 28 if pixels is None else pixels
    labels = bytes([3] * images) if labels is None else labels
    write(f"{folder}/{prefix}-images-idx3-ubyte",
          big_endian(image_magic, images, 28, 28) + b"\x7f" * pixels)
    count = images if label_count is None else label_count
    write(f"{folder}/{prefix}-labels-idx1-ubyte", big_endian(label_magic, count) + labels)


def lenet5_on(d, dataset, folder):
    return write(f"{d}/exp.toml", f"""[experiment]
name = "hostile"
results = "{d}/r.h5"
[dataset]
name = "{dataset}"
data_dir = "{folder}"
[model]
name = "lenet5"
""")


def mnist(train_kwargs=None, after=None):
    def setup(d):
        folder = f"{d}/mnist"
        idx_split(folder, "train", **(train_kwargs or {}))
        idx_split(folder, "t10k")
        if after:
            after(folder)
        return [lenet5_on(d, "mnist", folder)]
    return setup


def gzip_cut(folder):
    name = f"{folder}/train-images-idx3-ubyte"
    with open(name, "rb") as f:
        packed = gzip.compress(f.read())
    os.remove(name)
    write(name + ".gz", packed[: len(packed) // 2])


def huge_header(folder):
    write(f"{folder}/train-images-idx3-ubyte", big_endian(2051, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF))


CIFAR_RECORD = b"\x01" + b"\x10" * 3072
CIFAR_NAMES = ["data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin",
               "data_batch_5.bin", "test_batch.bin"]


def cifar(first_file, missing=()):
    def setup(d):
        folder = f"{d}/cifar"
        for name in CIFAR_NAMES[1:]:
            if name not in missing:
                write(f"{folder}/{name}", CIFAR_RECORD)
        write(f"{folder}/data_batch_1.bin", first_file)
        return [lenet5_on(d, "cifar10", folder)]
    return setup


def plugin_folder(make):
    def setup(d):
        make(f"{d}/plugins")
        return ["--plugin-path", f"{d}/plugins", "plugins"]
    return setup


def cut_good_plugin(fraction):
    def make(folder):
        with open(f"{GOOD}/fixture_good.so", "rb") as f:
            data = f.read()
        write(f"{folder}/cut.so", data[: int(len(data) * fraction)])
    return make


def report_of(source=None, data=None):
    def setup(d):
        path = f"{d}/old.h5"
        if source:
            shutil.copy(source, path)
        else:
            write(path, data)
        return ["report", path]
    return setup


def good_results_cut(d):
    subprocess.run([RUNNER, "--quiet", "--plugin-path", GOOD, blobs(d + "/src", epochs=2)],
                   check=True, capture_output=True)
    with open(f"{d}/src/r.h5", "rb") as f:
        data = f.read()
    write(f"{d}/old.h5", data[: len(data) // 2])
    return ["report", f"{d}/old.h5"]


def foreign_hdf5(d):
    with h5py.File(f"{d}/old.h5", "w") as f:
        f["x"] = [1, 2, 3]
    return ["report", f"{d}/old.h5"]


def ddp(extra="", model_extra="", epochs=1, samples=512):
    return run_blobs("[strategy]\nname = \"ddp\"\nworld_size = 2\n" + extra, model_extra, epochs,
                     samples)


def failing(how, rank="1", epochs=3, extra=""):
    return ddp("timeout_s = 10\n" + extra,
               f"fail_at_step = 20\nfail_on_rank = {rank}\nfail_how = \"{how}\"", epochs)


def deep(key_levels=0, array_levels=0):
    def setup(d):
        text = open(blobs(d)).read()
        if key_levels:
            text += ".".join(["a"] * key_levels) + " = 1\n"
        if array_levels:
            text = text.replace("[train]\n", "[train]\nx = " + "[" * array_levels +
                                "]" * array_levels + "\n")
        return ["--plugin-path", GOOD, write(f"{d}/exp.toml", text)]
    return setup


def sweep(keys, values):
    lines = "".join(f'"train.k{k}" = [{", ".join(str(v) for v in range(values))}]\n'
                    for k in range(keys))
    return run_blobs("[sweep]\n" + lines)


def torchrun_env(rank, world, port):
    return {"RANK": str(rank), "WORLD_SIZE": str(world), "LOCAL_RANK": str(rank),
            "LOCAL_WORLD_SIZE": str(world), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
            "TORCHELASTIC_RUN_ID": "hostile", "GROUP_RANK": "0"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- the cases --------------------------------------------------------------------------------

def cases():
    c = []
    add = lambda *a, **k: c.append(Case(*a, **k))

    add("config", "missing_file", lambda d: [f"{d}/none.toml"], (2,), "{dir}/none.toml")
    add("config", "empty_file", toml_text(""), (2,), "{dir}/exp.toml")
    add("config", "syntax_error", toml_text("[experiment\nname = 1\n"), (2,), "{dir}/exp.toml:1")
    add("config", "binary_garbage", lambda d: [write(f"{d}/exp.toml", bytes(range(256)) * 4)],
        (2,), "{dir}/exp.toml")
    add("config", "not_utf8",
        lambda d: [write(f"{d}/exp.toml", b"[experiment]\nname = \"\xff\xfe\"\n")], (2,),
        "{dir}/exp.toml")
    add("config", "duplicate_key", toml_text("[experiment]\nname = \"a\"\nname = \"b\"\n"), (2,),
        "{dir}/exp.toml:3")
    add("config", "unknown_section", run_blobs("[bogus]\nx = 1\n"), (2,), "[bogus]")
    add("config", "misspelled_key",
        lambda d: ["--plugin-path", GOOD, "--set", "train.epoch=2", blobs(d)], (2,), "train.epoch")
    add("config", "wrong_type", lambda d: ["--plugin-path", GOOD, "--set",
                                           "train.epochs=\"three\"", blobs(d)], (2,),
        "train.epochs")
    add("config", "negative_epochs", lambda d: ["--plugin-path", GOOD, "--set",
                                                "train.epochs=-1", blobs(d)], (2,), "train.epochs")
    add("config", "zero_batch", lambda d: ["--plugin-path", GOOD, "--set",
                                           "train.batch_size=0", blobs(d)], (2,),
        "train.batch_size")
    add("config", "huge_batch", lambda d: ["--plugin-path", GOOD, "--set",
                                           "train.batch_size=1000000000000", blobs(d)], (0, 2),
        "train.batch_size")
    add("config", "nan_lr", run_blobs("[optimizer]\nname = \"sgd\"\nlr = nan\n"), (2,),
        "optimizer.lr")
    add("config", "inf_lr", run_blobs("[optimizer]\nname = \"sgd\"\nlr = inf\n"), (2,),
        "optimizer.lr = inf is not a finite number")
    add("config", "unknown_dataset", lambda d: ["--plugin-path", GOOD, "--set",
                                                "dataset.name=\"nope\"", blobs(d)], (2,),
        "dataset.name")
    add("config", "unknown_model", lambda d: ["--plugin-path", GOOD, "--set",
                                              "model.name=\"nope\"", blobs(d)], (2,), "model.name")
    add("config", "unknown_strategy", run_blobs("[strategy]\nname = \"nope\"\n"), (2,),
        "{dir}/exp.toml:15:1: unknown strategy 'nope'")
    add("config", "unknown_optimizer", run_blobs("[optimizer]\nname = \"nope\"\n"), (2,),
        "optimizer.name")
    add("config", "deep_dotted_key", deep(key_levels=50000), (2,), "{dir}/exp.toml")
    add("config", "deep_arrays", deep(array_levels=50000), (2,), "{dir}/exp.toml")
    add("config", "sweep_too_large", sweep(5, 100), (2,), "10000000000 runs")
    add("config", "sweep_empty_list", run_blobs("[sweep]\n\"train.epochs\" = []\n"), (2,),
        "train.epochs")
    add("config", "sweep_unknown_key", run_blobs("[sweep]\n\"train.nope\" = [1, 2]\n"), (2,),
        "train.nope")
    add("config", "set_without_value", lambda d: ["--plugin-path", GOOD, "--set", "train.epochs",
                                                  blobs(d)], (2,), "train.epochs")
    add("config", "fp16_on_cpu", lambda d: ["--plugin-path", GOOD, "--set",
                                            "train.precision=\"fp16\"", blobs(d)], (2,),
        "train.precision")
    add("config", "micro_batches_not_dividing",
        lambda d: ["--plugin-path", GOOD, "--set", "train.micro_batches=5", blobs(d)], (2,),
        "micro_batches")
    add("config", "world_beyond_machine", ddp("world_size = 4096\n"), (2,), "world_size")
    add("config", "negative_threads", lambda d: ["--plugin-path", GOOD, "--set",
                                                 "train.threads=-1", blobs(d)], (2,),
        "train.threads")
    add("config", "results_is_a_folder",
        lambda d: (os.makedirs(f"{d}/r.h5"), ["--plugin-path", GOOD, blobs(d)])[1], (4,),
        "{dir}/r.h5")
    add("config", "results_unwritable",
        lambda d: ["--plugin-path", GOOD, "--set", "experiment.results=\"/proc/r.h5\"", blobs(d)],
        (2, 4), "/proc/r.h5")
    add("config", "checkpoint_negative", run_blobs("[checkpoint]\nevery_steps = -5\n"), (2,),
        "checkpoint.every_steps")
    add("config", "resume_missing_path",
        lambda d: ["--plugin-path", GOOD, blobs(d), "--resume", f"{d}/nothing"], (2,),
        "{dir}/nothing")
    add("config", "dry_run_factory_throws",
        lambda d: ["--plugin-path", os.path.join(FIXTURES, "throwing"), "--plugin-path", GOOD,
                   "--dry-run", "--set", "model.name=\"exploding\"", blobs(d)], (2, 3),
        "exploding")

    add("data", "mnist_missing_files", lambda d: [lenet5_on(d, "mnist", f"{d}/nowhere")], (4,),
        "MNIST files missing in {dir}/nowhere")
    add("data", "mnist_truncated", mnist({"pixels": 100}), (4,),
        "{dir}/mnist/train-images-idx3-ubyte: truncated")
    add("data", "mnist_wrong_magic", mnist({"image_magic": 0x12345678}), (4,),
        "{dir}/mnist/train-images-idx3-ubyte: wrong magic number")
    add("data", "mnist_swapped", mnist({"image_magic": 2049}), (4,),
        "{dir}/mnist/train-images-idx3-ubyte: wrong dimension count")
    add("data", "mnist_bad_label", mnist({"labels": bytes([3] * 9 + [200])}), (4,),
        "{dir}/mnist/train-labels-idx1-ubyte: label 200 at index 9")
    add("data", "mnist_count_mismatch", mnist({"label_count": 9, "labels": bytes([1] * 9)}),
        (4,), "{dir}/mnist/train-labels-idx1-ubyte holds 9 labels")
    add("data", "mnist_trailing_bytes", mnist({"pixels": 10 * 28 * 28 + 5}), (4,),
        "{dir}/mnist/train-images-idx3-ubyte: 5 trailing bytes")
    add("data", "mnist_gzip_cut", mnist(after=gzip_cut), (4,),
        "{dir}/mnist/train-images-idx3-ubyte.gz: corrupt or truncated gzip")
    add("data", "mnist_huge_header", mnist(after=huge_header), (4,),
        "{dir}/mnist/train-images-idx3-ubyte: truncated")
    add("data", "cifar_missing_files", cifar(CIFAR_RECORD, missing=("test_batch.bin",)), (4,),
        "test_batch.bin")
    add("data", "cifar_cut_record", cifar(CIFAR_RECORD + CIFAR_RECORD[:100]), (4,),
        "{dir}/cifar/data_batch_1.bin: 3173 bytes is not a whole number")
    add("data", "cifar_bad_label", cifar(CIFAR_RECORD + b"\x0a" + CIFAR_RECORD[1:]), (4,),
        "{dir}/cifar/data_batch_1.bin: record 1 (byte 3073) has label 10")
    add("data", "cifar_empty_file", cifar(b""), (4,), "{dir}/cifar/data_batch_1.bin: empty file")

    add("plugin", "path_missing", lambda d: ["--plugin-path", f"{d}/none", "plugins"], (2,),
        "{dir}/none")
    add("plugin", "path_is_a_file",
        lambda d: ["--plugin-path", write(f"{d}/x.so", ""), "plugins"], (2,),
        "{dir}/x.so is not a folder")
    add("plugin", "truncated_so", plugin_folder(cut_good_plugin(0.5)), (3,),
        "{dir}/plugins/cut.so: file too short")
    add("plugin", "header_only_so", plugin_folder(cut_good_plugin(0.001)), (3,),
        "{dir}/plugins/cut.so")
    add("plugin", "empty_so", plugin_folder(lambda f: write(f"{f}/empty.so", b"")), (3,),
        "{dir}/plugins/empty.so")
    add("plugin", "text_so", plugin_folder(lambda f: write(f"{f}/text.so", "not a library\n")),
        (3,), "{dir}/plugins/text.so")
    for fixture, expected in (("wrong_abi", "ABI"), ("no_entry", "no_entry"),
                              ("wrong_torch", "LibTorch")):
        add("plugin", f"fixture_{fixture}",
            (lambda f: lambda d: ["--plugin-path", os.path.join(FIXTURES, f), "plugins"])(fixture),
            (3,), expected)
    add("plugin", "duplicate_name",
        lambda d: ["--plugin-path", GOOD, "--plugin-path", os.path.join(FIXTURES, "duplicate"),
                   "plugins"], (3,), "fixture_duplicate.so")
    add("plugin", "model_factory_throws",
        lambda d: ["--plugin-path", os.path.join(FIXTURES, "throwing"), "--plugin-path", GOOD,
                   "--set", "model.name=\"exploding\"", blobs(d)], (3,), "exploding")

    add("results", "report_missing", lambda d: ["report", f"{d}/none.h5"], (2, 4),
        "{dir}/none.h5")
    add("results", "report_not_hdf5", report_of(os.path.join(RESULTS_CORPUS, "not_hdf5.bin")),
        (4,), "{dir}/old.h5: not an HDF5 file")
    add("results", "report_empty", report_of(data=b""), (4,), "{dir}/old.h5")
    add("results", "report_heap_loop",
        report_of(os.path.join(RESULTS_CORPUS, "hdf5_heap_loop.h5")), (4,),
        "{dir}/old.h5: damaged")
    add("results", "report_heap_overrun",
        report_of(os.path.join(RESULTS_CORPUS, "hdf5_heap_overrun.h5")), (4,),
        "{dir}/old.h5: damaged")
    add("results", "report_heap_index",
        report_of(os.path.join(RESULTS_CORPUS, "hdf5_heap_index.h5")), (4,),
        "{dir}/old.h5: damaged: reading it crashes the HDF5 library")
    add("results", "report_cut_in_half", good_results_cut, (4,), "{dir}/old.h5")
    add("results", "report_foreign_hdf5", foreign_hdf5, (4,),
        "{dir}/old.h5: not a runner results file")
    add("results", "append_to_text_file",
        lambda d: (write(f"{d}/r.h5", "text\n"), ["--plugin-path", GOOD, blobs(d)])[1], (4,),
        "{dir}/r.h5: not an HDF5 file")
    add("results", "full_disk", run_blobs(epochs=50), (4,), "no space left on {dir}/r.h5",
        env={"LD_PRELOAD": os.path.join(FIXTURES, "full_disk", "full_disk.so"),
             "RUNNER_FULL_DISK_FILE": "{dir}/r.h5", "RUNNER_FULL_DISK_BYTES": "40000"})

    add("training fault", "model_throws", run_blobs(
        model_extra="fail_at_step = 20\nfail_on_rank = -1\n", epochs=3), (3,),
        "training step 20 failed", epochs=1)
    add("training fault", "diverging_loss", run_blobs(
        "[optimizer]\nname = \"sgd\"\nlr = 1e30\n", epochs=3), (0, 5), "loss", )
    add("training fault", "sigint_mid_run", long_run(), (130,), "interrupted",
        send=(3.0, signal.SIGINT))
    add("training fault", "sigterm_mid_run", long_run(), (143,), "interrupted",
        send=(3.0, signal.SIGTERM))
    add("training fault", "sigkill_mid_run", long_run(), (-9,), "",
        send=(3.0, signal.SIGKILL))

    add("distributed fault", "rank_killed", failing("kill"), (5,),
        "rank 1 was killed by signal 9 (SIGKILL)", epochs=1)
    add("distributed fault", "rank_stopped", failing("stop"), (5,),
        "rank 1 was stopped by signal 19 (SIGSTOP), last seen ",
        epochs=1, limit_s=40)
    add("distributed fault", "rank_throws", failing("throw"), (3,),
        "rank 1 failed: training step 20 failed", epochs=1)
    add("distributed fault", "rank_hangs", failing("hang"), (5,), "rank 1", epochs=1,
        limit_s=60)
    add("distributed fault", "master_port_text", ddp(), (2,), "MASTER_PORT = \"abc\"",
        env={"MASTER_PORT": "abc"})
    add("distributed fault", "rank_never_comes",
        (lambda d: ["--plugin-path", GOOD, blobs(d, "[strategy]\nname = \"ddp\"\n"
                                                 "timeout_s = 5\n")]), (5,), "rank 1",
        env=lambda d: torchrun_env(0, 2, free_port()), limit_s=40)
    add("distributed fault", "sigint_in_rendezvous",
        (lambda d: ["--plugin-path", GOOD, blobs(d, "[strategy]\nname = \"ddp\"\n"
                                                 "timeout_s = 600\n")]), (130,), "interrupted",
        env=lambda d: torchrun_env(0, 2, free_port()), send=(3.0, signal.SIGINT), limit_s=30)
    add("distributed fault", "sigint_mid_ddp", ddp(epochs=60, samples=100000), (130,), "interrupted",
        send=(4.0, signal.SIGINT))

    add("check-op", "pool_of_one_pixel", lambda d: ["check-op", "max_pool2d", "--shapes",
                                                    "1x1x1x1"], (1, 2), "max_pool2d")
    add("check-op", "pool_of_nothing", lambda d: ["check-op", "max_pool2d", "--shapes",
                                                  "1x1x0x0"], (1, 2), "max_pool2d")
    add("check-op", "repeat_zero", lambda d: ["check-op", "relu", "--repeat", "0"], (2,),
        "--repeat")
    add("check-op", "unknown_op", lambda d: ["check-op", "nope"], (2,), "nope")
    add("check-op", "shapes_garbage", lambda d: ["check-op", "relu", "--shapes", "axb"], (2,),
        "axb")
    add("check-op", "op_throws", lambda d: ["--plugin-path", os.path.join(FIXTURES, "throwing"),
                                            "check-op", "fixture_refusing", "--repeat", "1",
                                            "--shapes", "1x1x1x1"], (1,),
        "refuses an input of 1 elements")
    module = sys.modules[__name__]
    return (c + more_inputs.more_cases(module) + output_paths.output_cases(module) +
            limits.limit_cases(module))


# ---- running and judging ----------------------------------------------------------------------

CRASH_MARKS = ("Segmentation fault", "core dumped", "AddressSanitizer", "runtime error:",
               "terminate called", "Aborted", "Bus error")


def processes_of(d):
    found = subprocess.run(["pgrep", "-f", d], capture_output=True, text=True).stdout.split()
    return [p for p in found if int(p) != os.getpid()]


def file_bytes(path):
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        return f.read()


def results_problem(d, case, sent, before):
    """What is wrong with the case's results file, or None. A file the case gave as its input
    may be anything, as long as the command left it as it was."""
    path = f"{d}/r.h5"
    if before is not None and file_bytes(path) == before:
        return None
    if not os.path.isfile(path):
        return "no results file, though epochs had finished" if case.epochs else None
    try:
        with h5py.File(path, "r") as f:
            runs = [f[name] for name in f if isinstance(f[name], h5py.Group)]
            statuses = [run.attrs.get("status") for run in runs]
            epochs = [len(run["epochs/epoch"]) if "epochs/epoch" in run else 0 for run in runs]
    except Exception as error:  # h5py's errors have no common base
        return f"the results file cannot be read: {error}"
    if sent != signal.SIGKILL and any(s in ("running", b"running") for s in statuses):
        return "a run was left running"
    if case.epochs is not None and (len(runs) != 1 or epochs[0] < case.epochs):
        return f"{epochs} epochs recorded, {case.epochs} had finished"
    return None


def kept_files(d, case):
    """Each file the case must keep: its bytes, or its type where it is no regular file."""
    found = {}
    for pattern in case.kept:
        for path in glob.glob(os.path.join(d, pattern), recursive=True):
            data = file_bytes(path)
            found[path] = data if data is not None else os.lstat(path).st_mode
    return found


def changed_file(d, case, before):
    """The first kept file the case changed or removed, or None."""
    after = kept_files(d, case)
    for path, was in before.items():
        if after.get(path) != was:
            return f"{path} was changed or removed"
    return None


def start_companion(case, d):
    """The runner the case's command meets (a first writer), started in a session of its own."""
    if not case.companion:
        return None
    companion = subprocess.Popen([RUNNER, *case.companion(d)], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True, cwd=d)
    time.sleep(case.companion_s)
    return companion


def stop_companion(companion):
    if companion:
        os.killpg(companion.pid, signal.SIGINT)
        companion.wait(timeout=60)


NOBODY = 65534


def open_to_everyone(d):
    """The case's folder and what it holds, readable and writable by an unprivileged user (the
    folder above it only passed through)."""
    os.chmod(os.path.dirname(d), 0o711)
    for folder, _, files in os.walk(d):
        os.chmod(folder, 0o777)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o666)


def run_case(case, top):
    d = os.path.join(top, case.name)
    os.makedirs(d)
    companion = start_companion(case, d)
    args = case.setup(d)
    before = file_bytes(f"{d}/r.h5")
    kept_before = kept_files(d, case)
    env = dict(os.environ)
    extra = case.env(d) if callable(case.env) else case.env
    env.update({k: v.replace("{dir}", d) for k, v in extra.items()})
    as_nobody = case.unprivileged and os.geteuid() == 0
    if as_nobody:
        open_to_everyone(d)
    def limit():
        for which, value in case.limits.items():
            resource.setrlimit(which, (value, value))
        if as_nobody:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    gone = None
    if case.closed:
        read_end, gone = os.pipe()
        os.close(read_end)
        streams[case.closed] = gone
    process = subprocess.Popen([RUNNER, *args], stdout=streams["stdout"],
                               stderr=streams["stderr"], env=env, start_new_session=True, cwd=d,
                               preexec_fn=limit if case.limits or as_nobody else None)
    if gone is not None:
        os.close(gone)
    sent = None
    if case.send:
        time.sleep(case.send[0])
        sent = case.send[1]
        os.killpg(process.pid, sent)
    try:
        out, err = process.communicate(timeout=case.limit_s)
        hung = False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        hung = True
    text = ((out or b"") + (err or b"")).decode(errors="replace")
    stop_companion(companion)
    time.sleep(0.2)  # the kernel reaps what the launcher killed last
    left = processes_of(d)
    for pid in left:
        os.kill(int(pid), signal.SIGKILL)
    code = process.returncode
    if hung:
        return "hang", f"still running after {case.limit_s} s"
    if (code < 0 and code != -(sent or 0)) or any(m in text for m in CRASH_MARKS):
        return "crash", f"exit {code}: {text.strip()[-300:]}"
    loss = results_problem(d, case, sent, before) or changed_file(d, case, kept_before)
    if loss:
        return "data loss", loss
    if left:
        return "weak", f"{len(left)} processes outlived it"
    message = case.message.replace("{dir}", d)
    if code not in case.codes:
        return "weak", f"exit {code}, expected {case.codes}: {text.strip()[-300:]}"
    if message not in text:
        return "weak", f"'{message}' missing from: {text.strip()[-300:]}"
    if case.absent and case.absent in text:
        return "weak", f"'{case.absent}' in: {text.strip()[-300:]}"
    return "handled well", ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--only", choices=CLASSES)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    use_build(os.path.abspath(args.build))
    outcomes = ["handled well", "weak", "crash", "hang", "data loss"]
    table = {cls: dict.fromkeys(outcomes, 0) for cls in CLASSES}
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="runner-hostile-") as top:
        for case in cases():
            if args.only and case.cls != args.only:
                continue
            try:
                outcome, why = run_case(case, top)
            finally:
                if case.teardown:
                    case.teardown(os.path.join(top, case.name))
            table[case.cls][outcome] += 1
            if outcome != "handled well" or args.verbose:
                print(f"{case.cls} / {case.name}: {outcome} {why}".rstrip(), flush=True)
    print(f"\n{time.time() - started:.0f} s\n")
    print("| class | cases tried | " + " | ".join(outcomes) + " |")
    print("|---|---:|" + "---:|" * len(outcomes))
    totals = dict.fromkeys(outcomes, 0)
    for cls, counts in table.items():
        tried = sum(counts.values())
        if tried:
            print(f"| {cls} | {tried} | " + " | ".join(str(counts[o]) for o in outcomes) + " |")
        for o in outcomes:
            totals[o] += counts[o]
    print(f"| all | {sum(totals.values())} | " + " | ".join(str(totals[o]) for o in outcomes) +
          " |")
    return 1 if totals["crash"] or totals["hang"] or totals["data loss"] else 0


if __name__ == "__main__":
    sys.exit(main())
