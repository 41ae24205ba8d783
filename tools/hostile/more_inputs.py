"""The hostile inputs added to hostile_inputs.py's first matrix: values past any machine's
bounds, files that are not what their names say, two writers on one results file, edited
checkpoints and resume paths, and a busy rendezvous port. more_cases(h) returns them as
hostile_inputs.Case objects; `h` is that module, read when a case runs (its paths are set by
--build after this module is imported)."""
import glob
import json
import os
import signal
import socket
import struct
import subprocess
import zlib

HELD_SOCKETS = []  # ports held busy until the process ends


def layered_experiment(d, extra=""):
    """The fixture's two-layer model on blobs with adam, 3 epochs of 16 steps, a checkpoint
    every 5 steps."""
    return h_write(f"{d}/exp.toml", f"""[experiment]
name = "hostile"
results = "{d}/r.h5"
[dataset]
name = "blobs"
train_size = 512
[model]
name = "layered_probe"
[train]
epochs = 3
batch_size = 32
threads = 1
[optimizer]
name = "adam"
lr = 0.01
[checkpoint]
every_steps = 5
keep = 20
{extra}""")


def h_write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def checkpoints_of(d):
    """The complete checkpoints under d, oldest first."""
    return sorted(os.path.dirname(m) for m in glob.glob(f"{d}/**/manifest.json", recursive=True))


def trained(h, d, kill_at=None):
    """Trains the layered experiment in d (killed at its kill_at-th forward); its checkpoints."""
    env = dict(os.environ)
    if kill_at:
        env["FIXTURE_KILL_AT_STEP"] = str(kill_at)
    subprocess.run([h.RUNNER, "-q", "--plugin-path", h.GOOD, layered_experiment(d)], env=env,
                   capture_output=True)
    return checkpoints_of(d)


def redigest(folder):
    """The manifest's sizes and CRC-32s of the shards made those of the files as they are."""
    path = f"{folder}/manifest.json"
    with open(path) as f:
        manifest = json.load(f)
    for shard in manifest["shards"]:
        with open(f"{folder}/{shard['file']}", "rb") as f:
            data = f.read()
        shard["bytes"], shard["crc32"] = len(data), zlib.crc32(data)
    with open(path, "w") as f:
        json.dump(manifest, f, indent=2)


def transpose_a_model_tensor(folder):
    """Rank 0's shard with a 2-D model tensor's shape written transposed, bytes unchanged."""
    path = f"{folder}/rank-0.safetensors"
    with open(path, "rb") as f:
        data = bytearray(f.read())
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    for key, entry in header.items():
        shape = entry.get("shape", []) if isinstance(entry, dict) else []
        if key.startswith("model/") and len(shape) == 2 and shape[0] != shape[1]:
            old = f'"shape":[{shape[0]},{shape[1]}]'.encode()
            at = data.index(old, data.index(f'"{key}"'.encode()))
            data[at:at + len(old)] = f'"shape":[{shape[1]},{shape[0]}]'.encode()
            break
    with open(path, "wb") as f:
        f.write(data)
    redigest(folder)


def edit_manifest(folder, field, value):
    path = f"{folder}/manifest.json"
    with open(path) as f:
        manifest = json.load(f)
    manifest["progress"][field] = value
    with open(path, "w") as f:
        json.dump(manifest, f, indent=2)


def resume(h, edit, named):
    """A killed run whose newest checkpoint `edit` changed; resumed from it by name, or from
    the latest."""
    def setup(d):
        newest = trained(h, d, kill_at=50)[-1]
        edit(newest)
        return ["--plugin-path", h.GOOD, f"{d}/exp.toml", "--resume"] + ([newest] if named else [])
    return setup


def completed_run_resumed_from_its_checkpoint(h):
    def setup(d):
        newest = trained(h, d)[-1]
        return ["--plugin-path", h.GOOD, f"{d}/exp.toml", "--resume", newest]
    return setup


def other_experiment_resumed(h):
    """Experiment "other" completed in d/other; given experiment "hostile"'s checkpoint."""
    def setup(d):
        foreign = trained(h, f"{d}/first")[-1]
        text = open(layered_experiment(f"{d}/other")).read().replace('"hostile"', '"other"')
        h_write(f"{d}/other/exp.toml", text.replace(f"{d}/other/r.h5", f"{d}/r.h5"))
        subprocess.run([h.RUNNER, "-q", "--plugin-path", h.GOOD, f"{d}/other/exp.toml"],
                       capture_output=True)
        return ["--plugin-path", h.GOOD, f"{d}/other/exp.toml", "--resume", foreign]
    return setup


def killed_run_report(h):
    def setup(d):
        trained(h, d, kill_at=50)
        return ["report", f"{d}/r.h5"]
    return setup


def exported_into(h, out):
    def setup(d):
        trained(h, d)
        with h.h5py.File(f"{d}/r.h5", "r") as f:
            group = next(name for name in f if isinstance(f[name], h.h5py.Group))
        return ["export", f"{d}/r.h5", group, "--out", out.replace("{dir}", d)]
    return setup


def busy_port(d):
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen(1)
    HELD_SOCKETS.append(held)
    return {"MASTER_PORT": str(held.getsockname()[1])}


def pipeline_deeper_than_gpt2(extra=""):
    def setup(d):
        return [*extra.split(), "--dry-run", h_write(f"{d}/exp.toml", f"""[experiment]
name = "deep_pipeline"
results = "{d}/r.h5"
[dataset]
name = "random_tokens"
size = 64
test_size = 16
seq_len = 16
vocab_size = 64
[model]
name = "gpt2"
preset = "tiny"
[strategy]
name = "pipeline"
world_size = 64
stages = 64
""")]
    return setup


def link_loop(d):
    os.makedirs(f"{d}/plugins")
    os.symlink("loop.so", f"{d}/plugins/loop.so")
    return ["--plugin-path", f"{d}/plugins", "plugins"]


def fifo(d):
    os.mkfifo(f"{d}/exp.toml")
    return [f"{d}/exp.toml"]


def special_results(kind):
    """A FIFO, a socket or a folder at the results path: refused by its path, never opened."""
    def make(path):
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "socket":
            held = socket.socket(socket.AF_UNIX)
            held.bind(path)
            held.close()
        else:
            os.mkdir(path)
        return path
    return make


def results_at(h, kind, command):
    def setup(d):
        path = special_results(kind)(f"{d}/r.h5")
        if command == "run":
            return ["--plugin-path", h.GOOD, h.blobs(d)]
        if command == "resume":
            return ["--plugin-path", h.GOOD, h.blobs(d), "--resume"]
        if command == "export":
            return ["export", path, "run-1"]
        return ["report", path] + (["--csv"] if command == "report_csv" else [])
    return setup


def mnist_dir_is_a_file(h):
    def setup(d):
        return [h.lenet5_on(d, "mnist", h.write(f"{d}/mnist", "not a folder\n"))]
    return setup


def more_cases(h):
    c = []
    add = lambda *a, **k: c.append(h.Case(*a, **k))
    run = lambda extra="", model_extra="", epochs=1: h.run_blobs(extra, model_extra, epochs)

    add("config", "threads_beyond_any_machine",
        lambda d: ["--plugin-path", h.GOOD, "--set", "train.threads=100000", h.blobs(d)], (2,),
        "train.threads = 100000 is out of range: it must be between 0 and 1024")
    add("config", "experiment_fifo", fifo, (2,), "{dir}/exp.toml: is a FIFO, not a file",
        limit_s=20)
    add("config", "experiment_dev_zero", lambda d: ["/dev/zero"], (2,),
        "/dev/zero: is a character device, not a file", limit_s=20)
    add("config", "megabyte_value",
        run("[sweep]\n\"train.device\" = [\"" + "x" * (1 << 20) + "\"]\n"), (2,),
        "... (1048576 characters) is not one of cpu, cuda, auto")
    add("config", "sweep_point_inherits_a_foreign_key",
        run("[strategy]\nname = \"ddp\"\nbackend = \"gloo\"\n"
            "[sweep]\n\"strategy.name\" = [\"ddp\", \"single\"]\n"), (2,),
        "unknown key strategy.backend, inherited from [strategy] by sweep point")
    add("config", "dry_run_more_stages_than_layers", pipeline_deeper_than_gpt2(), (2,),
        "strategy.stages: 64 pipeline stages need at least as many layers")
    add("config", "gpt2_beyond_any_machine", pipeline_deeper_than_gpt2(
        "--set model.layers=1000000000"), (2,), "more than the 1e12 any machine here can hold")
    add("config", "nproc_not_a_number",
        lambda d: ["--plugin-path", h.GOOD, "--nproc", "abc", h.blobs(d)], (2,),
        "--nproc: 'abc' is not a whole number from 1 to 4096")
    add("config", "max_restarts_negative",
        lambda d: ["--plugin-path", h.GOOD, "--max-restarts", "-1", h.blobs(d)], (2,),
        "--max-restarts: '-1' is not a whole number from 0 to 1000")
    add("config", "max_restarts_beyond_int64",
        lambda d: ["--plugin-path", h.GOOD, "--max-restarts", "9" * 30, h.blobs(d)], (2,),
        "is not a whole number from 0 to 1000")
    add("config", "fault_on_a_rank_the_run_lacks",
        lambda d: ["--plugin-path", h.GOOD, "--set", "fault.kind=kill", "--set", "fault.rank=7",
                   h.blobs(d)], (2,), "fault.rank = 7: the run has 1 rank (0 to 0)")
    add("config", "fault_past_the_last_step",
        lambda d: ["--plugin-path", h.GOOD, "--set", "fault.kind=stop", "--set",
                   "fault.step=1000000", h.blobs(d)], (2,), "fault.step = 1000000: the run has")
    add("config", "fault_never_striking",
        lambda d: ["--plugin-path", h.GOOD, "--set", "fault.kind=kill", "--set",
                   "fault.attempt=3", h.blobs(d)], (2,), "the fault would never strike")
    add("config", "fault_nan_seconds",
        lambda d: ["--plugin-path", h.GOOD, "--set", "fault.kind=stop", "--set",
                   "fault.seconds=nan", h.blobs(d)], (2,), "fault.seconds = nan is out of range")
    add("config", "fault_in_a_checkpoint_never_saved",
        lambda d: ["--plugin-path", h.GOOD, "--set", "fault.kind=kill", "--set",
                   "fault.in=checkpoint", "--set", "fault.step=3", h.blobs(d)], (2,),
        "fault.in = \"checkpoint\": the run saves no checkpoint after step 3")
    add("config", "extra_collective_on_one_rank",
        lambda d: ["--plugin-path", h.GOOD, "--set", "fault.kind=extra_collective", h.blobs(d)],
        (2,), "fault.kind = \"extra_collective\": a run of one rank makes no collectives")
    add("config", "check_collectives_not_a_bool",
        lambda d: ["--plugin-path", h.GOOD, "--set", "train.check_collectives=2", h.blobs(d)],
        (2,), "train.check_collectives")
    add("config", "stall_timeout_negative",
        lambda d: ["--plugin-path", h.GOOD, "--set", "train.stall_timeout_s=-5", h.blobs(d)],
        (2,), "train.stall_timeout_s")
    add("config", "stall_timeout_below_the_collective_timeout",
        lambda d: ["--plugin-path", h.GOOD, h.blobs(
            d, "stall_timeout_s = 1\n[strategy]\nname = \"ddp\"\nworld_size = 2\n")], (2,),
        "train.stall_timeout_s = 1: below the collective timeout (strategy.timeout_s = 300)")
    add("config", "stall_timeout_beyond_int64",
        lambda d: ["--plugin-path", h.GOOD, "--set", "train.stall_timeout_s=" + "9" * 30,
                   h.blobs(d)], (2,), "train.stall_timeout_s")
    add("config", "describe_without_a_name", lambda d: ["describe"], (0,), "model/")
    add("config", "resume_empty_folder",
        lambda d: (os.makedirs(f"{d}/empty"),
                   ["--plugin-path", h.GOOD, h.blobs(d), "--resume", f"{d}/empty"])[1], (2,),
        "--resume {dir}/empty: the folder holds no checkpoint")
    add("config", "resume_system_folder",
        lambda d: ["--plugin-path", h.GOOD, h.blobs(d), "--resume", "/etc"], (2,),
        "--resume /etc: the folder holds no checkpoint")

    add("data", "mnist_dir_is_a_file", mnist_dir_is_a_file(h), (4,), "(it is not a folder)")

    add("plugin", "symlink_loop", link_loop, (3,),
        "{dir}/plugins/loop.so: Too many levels of symbolic links")

    add("results", "second_writer_without_hdf5_locks",
        run(epochs=1), (4,), "{dir}/r.h5: another runner process is writing it",
        env={"HDF5_USE_FILE_LOCKING": "FALSE"}, companion=h.long_run(), companion_s=3.0)
    add("results", "report_of_a_killed_run", killed_run_report(h), (0,), "killed?")
    add("results", "export_into_a_missing_folder", exported_into(h, "{dir}/absent/w"), (4,),
        "cannot write {dir}/absent/w.pt: No such file or directory")
    add("results", "export_into_a_read_only_folder", exported_into(h, "/proc/w"), (4,),
        "cannot write /proc/w.pt")

    for kind, said in (("fifo", "a FIFO"), ("socket", "a socket"), ("folder", "a folder")):
        for command in ("run", "resume", "report", "report_csv", "export"):
            add("results", f"{command}_results_{kind}", results_at(h, kind, command), (4,),
                f"{{dir}}/r.h5: is {said}, not a results file", limit_s=30)
    add("training fault", "sighup_mid_run", h.long_run(), (129,), "interrupted",
        send=(3.0, signal.SIGHUP))
    # `runner exp.toml | head -1` and `2>&-`-like ends: the reader of an output is gone from
    # the start; the run trains to its end, or records its failure, as if nobody had looked.
    add("training fault", "stdout_closed_from_the_start", h.run_blobs(epochs=3), (0,), "",
        epochs=3, closed="stdout")
    add("training fault", "stderr_closed_and_the_model_throws", h.run_blobs(
        model_extra="fail_at_step = 20\nfail_on_rank = -1\n", epochs=3), (3,), "",
        epochs=1, closed="stderr")

    add("training fault", "resume_shard_of_another_shape",
        resume(h, transpose_a_model_tensor, True), (4,), "lies outside its whole tensor")
    add("training fault", "resume_latest_past_a_shard_of_another_shape",
        resume(h, transpose_a_model_tensor, False), (0,), "resuming from")
    add("training fault", "resume_manifest_epoch_minus_5",
        resume(h, lambda f: edit_manifest(f, "epoch", -5), True), (4,),
        "progress.epoch = -5 is impossible")
    add("training fault", "resume_manifest_step_2_62",
        resume(h, lambda f: edit_manifest(f, "global_step", 1 << 62), True), (4,),
        "do not make global step 4611686018427387904")
    add("training fault", "resume_checkpoint_of_a_completed_run",
        completed_run_resumed_from_its_checkpoint(h), (2,), "completed earlier")
    add("training fault", "resume_checkpoint_of_another_experiment",
        other_experiment_resumed(h), (4,), "is of experiment 'hostile', not of 'other'")

    add("distributed fault", "master_port_busy", h.ddp(), (5,), "is in use", env=busy_port,
        absent="[c10d]")

    add("check-op", "repeat_many_then_sigterm",
        lambda d: ["check-op", "gelu", "--repeat", "100000"], (143,),
        "check-op interrupted by signal 15", send=(3.0, signal.SIGTERM), limit_s=30)
    add("check-op", "shapes_beyond_memory",
        lambda d: ["check-op", "relu", "--shapes", "100000x100000x100000"], (2,),
        "--shapes 100000x100000x100000")
    return c
