"""The hostile outputs and input paths added to hostile_inputs.py's matrix: every path a command
writes (report --csv and --html, a run's --html, export --out, plan --write, --tensorboard,
[checkpoint] dir) given its own
input, a results file, a checkpoint's file, an unrelated file, a folder, a FIFO, /dev/full or a
link to nothing; and the paths it reads (plugin folders, plugin libraries, --resume) given a
FIFO or nothing. Each case names the files it must leave as they were (`kept`): one that changed
is data loss. output_cases(h) returns them as hostile_inputs.Case objects."""
import os
import shutil

import more_inputs


def trained_with_checkpoint(h, d):
    """The layered experiment trained in d; its first run's group and latest checkpoint."""
    checkpoint = more_inputs.trained(h, d)[-1]
    with h.h5py.File(f"{d}/r.h5", "r") as f:
        group = next(name for name in f if isinstance(f[name], h.h5py.Group))
    return group, checkpoint


def the_targets(d, suffix):
    """Beside the trained run: a copy of its results file, notes, a folder and a FIFO, each
    named <kind><suffix>, and a link to /dev/full and one to nothing."""
    shutil.copy(f"{d}/r.h5", f"{d}/results{suffix}")
    with open(f"{d}/notes{suffix}", "w") as f:
        f.write("my notes\n")
    os.makedirs(f"{d}/folder{suffix}")
    os.mkfifo(f"{d}/fifo{suffix}")
    os.symlink("/dev/full", f"{d}/full{suffix}")
    os.symlink(f"{d}/absent/x", f"{d}/dangling{suffix}")


# The files each case must leave as they were, relative to its folder (glob patterns).
KEPT = ("r.h5", "exp.toml", "results.*", "notes.*", "r.checkpoints/**/*")

CHECKPOINT_SHARD = "{ck}/rank-0.safetensors"

# Per command: its option, the suffix of its targets, and (class, target, what the refusal
# says). A target "{ck}/..." is in the trained run's latest checkpoint.
WRITERS = {
    "report": ("--csv", ".csv", (
        ("own input", "r.h5", "is the results file this report reads"),
        ("checkpoint", CHECKPOINT_SHARD, "is a file of the checkpoint"))),
    "export": ("--out", ".pt", (
        ("own input", CHECKPOINT_SHARD, ", the checkpoint this export reads; name a file "
                                        "outside it"),)),
    "report_html": ("--html", ".html", (
        ("own input", "r.h5", "is the results file this report reads"),
        ("checkpoint", CHECKPOINT_SHARD, "is a file of the checkpoint"))),
    "run_html": ("--html", ".html", (
        ("own input", "exp.toml", "is the experiment file this run reads"),
        ("own results file", "r.h5", "is the results file this run writes"),
        ("checkpoint", CHECKPOINT_SHARD, "is a file of the checkpoint"))),
    "plan": ("--write", ".toml", (
        ("own input", "exp.toml", "is the experiment file this plan reads"),
        ("own results file", "r.h5", "is the experiment's results file"),
        ("checkpoint", CHECKPOINT_SHARD, "is a file of the checkpoint"))),
}

# The classes every writer meets, by name without the suffix.
COMMON_TARGETS = (
    ("results file", "results", "is a results file (HDF5)"),
    ("unrelated file", "notes", "is a file that is not what this command writes"),
    ("folder", "folder", "is a folder, not a file to write"),
    ("fifo", "fifo", "is a FIFO, not a file to write"),
    ("dev_full", "full", "is a character device, not a file to write"),
    ("dangling link", "dangling", "is a symbolic link to {dir}/absent/x, which does not exist"),
)


def arguments_for(h, command, d, target):
    group, checkpoint = trained_with_checkpoint(h, d)
    the_targets(d, WRITERS[command][1])
    path = target.replace("{ck}", checkpoint) if target.startswith("{ck}") else f"{d}/{target}"
    return {
        "report": ["report", f"{d}/r.h5", "--csv", path],
        "report_html": ["report", f"{d}/r.h5", "--html", path],
        "run_html": ["--plugin-path", h.GOOD, f"{d}/exp.toml", "--html", path],
        "export": ["export", f"{d}/r.h5", group, "--out", os.path.splitext(path)[0]],
        "plan": ["--plugin-path", h.GOOD, "plan", f"{d}/exp.toml", "--devices", "1", "--write",
                 path],
    }[command]


def writing(h, command, target):
    return lambda d: arguments_for(h, command, d, target)


def writer_cases(h, add):
    for command, (option, suffix, own_targets) in WRITERS.items():
        common = ((cls, name + suffix, said) for cls, name, said in COMMON_TARGETS)
        targets = [*own_targets, *common]
        for cls, target, said in targets:
            shown = said if target.startswith("{ck}") else f"{option} {{dir}}/{target}: {said}"
            add("outputs", f"{command}_{cls.replace(' ', '_')}", writing(h, command, target),
                (2,), shown)
    add("outputs", "export_out_a_folder",
        lambda d: (lambda group: ["export", f"{d}/r.h5", group, "--out", d])(
            trained_with_checkpoint(h, d)[0]), (2,),
        "--out {dir}: is a folder, not the files' path without their extension")


def running_into(h, key, name):
    """A setup that trains, makes the targets, and runs again with `key` naming `name`."""
    def setup(d):
        _, checkpoint = trained_with_checkpoint(h, d)
        the_targets(d, "")
        target = checkpoint if name == "{ck}" else f"{d}/{name}"
        flag = (["--tensorboard", target] if key == "tensorboard"
                else ["--set", f'checkpoint.dir="{target}"'])
        return ["--plugin-path", h.GOOD, *flag, f"{d}/exp.toml"]
    return setup


FOLDER_TARGETS = (
    ("results file", "results", "is a results file (HDF5), not a folder"),
    ("checkpoint", "{ck}", "is a checkpoint's folder, not one to write into"),
    ("unrelated file", "notes", "is a file, not a folder"),
    ("fifo", "fifo", "is a FIFO, not a folder"),
    ("dev_full", "full", "is a character device, not a folder"),
    ("dangling link", "dangling", "is a symbolic link to {dir}/absent/x, which does not exist"),
)


def folder_cases(h, add):
    for key, option in (("tensorboard", "[experiment] tensorboard"),
                        ("checkpoint_dir", "[checkpoint] dir")):
        for cls, name, said in FOLDER_TARGETS:
            shown = said if name == "{ck}" else f"{option} {{dir}}/{name}: {said}"
            add("outputs", f"{key}_{cls.replace(' ', '_')}", running_into(h, key, name), (2,),
                shown)


def output_cases(h):
    c = []
    add = lambda *a, **k: c.append(h.Case(*a, kept=KEPT, limit_s=60, **k))
    writer_cases(h, add)
    folder_cases(h, add)
    add("outputs", "results_dangling_link",
        lambda d: (os.symlink(f"{d}/absent/r.h5", f"{d}/r.h5"),
                   ["--plugin-path", h.GOOD, h.blobs(d)])[1], (4,),
        "{dir}/r.h5: is a symbolic link to {dir}/absent/r.h5, which does not exist")
    return c + input_cases(h)


def fifo_at(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.mkfifo(path)
    return path


def input_cases(h):
    c = []
    add = lambda *a, **k: c.append(h.Case(*a, limit_s=30, **k))
    add("inputs", "plugin_path_variable_fifo", lambda d: (fifo_at(f"{d}/fifo"), ["plugins"])[1],
        (2,), "plugin path {dir}/fifo is not a folder but a FIFO (from RUNNER_PLUGIN_PATH)",
        env={"RUNNER_PLUGIN_PATH": "{dir}/fifo"})
    add("inputs", "plugin_path_variable_missing", lambda d: ["plugins"], (2,),
        "plugin folder not found: {dir}/none (from RUNNER_PLUGIN_PATH)",
        env={"RUNNER_PLUGIN_PATH": "{dir}/none"})
    add("inputs", "plugin_path_option_fifo",
        lambda d: ["--plugin-path", fifo_at(f"{d}/fifo"), "plugins"], (2,),
        "plugin path {dir}/fifo is not a folder but a FIFO (from --plugin-path)")
    add("inputs", "plugin_library_fifo",
        lambda d: (fifo_at(f"{d}/plugins/x.so"), ["--plugin-path", f"{d}/plugins", "plugins"])[1],
        (3,), "{dir}/plugins/x.so: is a FIFO, not a plugin library")
    add("inputs", "resume_fifo",
        lambda d: ["--plugin-path", h.GOOD, h.blobs(d), "--resume", fifo_at(f"{d}/fifo")], (2,),
        "--resume {dir}/fifo: is a FIFO, not a folder")

    def manifest_fifo(d):
        checkpoint = more_inputs.trained(h, d)[-1]
        os.remove(f"{checkpoint}/manifest.json")
        fifo_at(f"{checkpoint}/manifest.json")
        return ["--plugin-path", h.GOOD, f"{d}/exp.toml", "--resume", checkpoint]
    add("inputs", "resume_manifest_fifo", manifest_fifo, (4,),
        "manifest.json: is a FIFO, not a checkpoint manifest")

    def shard_fifo(d):
        group, checkpoint = trained_with_checkpoint(h, d)
        os.remove(f"{checkpoint}/rank-0.safetensors")
        fifo_at(f"{checkpoint}/rank-0.safetensors")
        return ["export", f"{d}/r.h5", group]
    # The latest checkpoint (step 48) is passed over for the one before, never opened.
    add("inputs", "export_past_a_shard_fifo", shard_fifo, (0,), "step-000000045:")
    return c
