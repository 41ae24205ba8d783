"""The hostile cases of runner plan's numbers, ranks and shared folders, resource limits and
broken plugin libraries, added to hostile_inputs.py's matrix: `runner plan` given quantities
past any machine (1e30 GiB, nan, inf, 0, a negative, a unit glued on), a rank that gets no data,
two runners given one checkpoint folder, a file-size limit and a full disk under each file a
run or command writes, thread counts from the environment, and plugin folders holding a library
whose constructor crashes, throws, exits or is no plugin at all. limit_cases(h) returns them as
hostile_inputs.Case objects; a case that mounts a small tmpfs (as root) unmounts it after."""
import os
import resource
import shutil
import subprocess

import more_inputs

RATES = ["--tflops", "fp32=0.1", "--tflops", "bf16=0.2", "--bandwidth", "1",
         "--memory-bandwidth", "10"]


def planning(h, *flags, rates=True):
    """`runner plan` of the blobs experiment on 2 devices with `flags`."""
    return lambda d: ["--plugin-path", h.GOOD, "plan", h.blobs(d), "--devices", "2", *flags,
                      *(RATES if rates else [])]


def plan_cases(h, add):
    said = "is not a number of {unit} from {least} to {most}"
    gib = dict(unit="GiB", least="0.0001", most="65536")
    rate = dict(unit="GB/s", least="0.001", most="100000")
    for value in ("1e30", "nan", "inf", "-inf", "0", "-1", "1e-9", "12GB"):
        add("plan flags", f"device_memory_{value}",
            planning(h, "--device-memory", value, rates=False), (2,),
            f"--device-memory: '{value}' " + said.format(**gib))
    for option in ("--bandwidth", "--memory-bandwidth"):
        for value in ("nan", "0", "1e30", "-5"):
            flags = [f for f in RATES]
            at = flags.index(option)
            flags[at + 1] = value
            add("plan flags", f"{option[2:]}_{value}",
                lambda d, flags=flags: ["--plugin-path", h.GOOD, "plan", h.blobs(d),
                                        "--devices", "2", *flags], (2,),
                f"{option}: '{value}' " + said.format(**rate))
    for value in ("bf16=nan", "bf16=inf", "bf16=1e30", "bf16=12abc", "fp32=-1", "bf16=0"):
        add("plan flags", f"tflops_{value}",
            planning(h, "--tflops", value, "--bandwidth", "1", "--memory-bandwidth", "10",
                     rates=False), (2,),
            f"--tflops '{value}': use PRECISION=TFLOPS, a number of TFLOPS from 0.001 to 100000")
    # A hexadecimal number is a number: 16 GiB.
    add("plan flags", "device_memory_0x10", planning(h, "--device-memory", "0x10"), (0,),
        "16.00 GiB each", limit_s=60)
    add("plan flags", "devices_past_the_bound", planning(h, "--devices", "5000"), (2,),
        "--devices: '5000' is not a whole number from 1 to 4096")
    # The most devices a plan takes, in bounded time: every layout of a batch of 32 refused.
    add("plan flags", "devices_4096",
        lambda d: ["--plugin-path", h.GOOD, "plan", h.blobs(d), "--devices", "4096", *RATES],
        (2,), "layouts on 4096 CPU devices passes the checks", limit_s=60)
    add("plan flags", "device_memory_largest_accepted",
        planning(h, "--device-memory", "65536"), (0,), "65536.00 GiB each", limit_s=60)


def strategy_run(h, strategy, sets):
    """The blobs experiment on 2 local ranks under `strategy` (its [strategy] keys), with
    --set `sets`."""
    def setup(d):
        path = h.blobs(d, "[strategy]\n" + strategy + "world_size = 2\ntimeout_s = 30\n")
        return ["--plugin-path", h.GOOD, *sum((["--set", s] for s in sets), []), path]
    return setup


def shared_checkpoints(h, results):
    """The long blobs run whose results go to `results`, its checkpoints to {dir}/ck."""
    def setup(d):
        text = open(h.blobs(d, epochs=60)).read()
        text = text.replace(f'results = "{d}/r.h5"', f'results = "{d}/{results}"')
        text = text.replace("train_size = 512", "train_size = 100000")
        text += f'[checkpoint]\ndir = "{d}/ck"\nevery_steps = 50\n'
        return ["--plugin-path", h.GOOD, h.write(f"{d}/{results}.toml", text)]
    return setup


def ranks_and_folders_cases(h, add):
    add("ranks and folders", "ddp_one_sample_drop_last",
        strategy_run(h, 'name = "ddp"\ndrop_last = true\n',
                     ["dataset.train_size=1", "train.batch_size=2"]), (2,),
        "the train split's 1 sample leaves rank 0 of 2 without one (strategy 'ddp', "
        "drop_last = true)", limit_s=60)
    add("ranks and folders", "zero1_one_sample_drop_last",
        strategy_run(h, 'name = "zero"\ndrop_last = true\n',
                     ["dataset.train_size=1", "train.batch_size=2"]), (2,),
        "the train split's 1 sample leaves rank 0 of 2 without one (strategy 'zero', "
        "drop_last = true)", limit_s=60)
    add("ranks and folders", "zero3_one_test_sample",
        strategy_run(h, 'name = "zero"\nstage = 3\n',
                     ["dataset.test_size=1", "dataset.train_size=2", "train.batch_size=2"]),
        (2,), "the test split's 1 sample leaves rank 1 of 2 without one (strategy 'zero')",
        limit_s=60)
    add("ranks and folders", "zero3_test_shards_of_2_and_1",
        strategy_run(h, 'name = "zero"\nstage = 3\n',
                     ["dataset.test_size=3", "train.test_batch_size=1"]), (0,),
        "results: {dir}/r.h5", limit_s=60)
    add("ranks and folders", "ddp_one_sample_padded",
        strategy_run(h, 'name = "ddp"\n', ["dataset.train_size=1", "train.batch_size=2"]),
        (0,), "results: {dir}/r.h5", limit_s=60)
    add("ranks and folders", "one_checkpoint_folder_two_runners",
        shared_checkpoints(h, "r.h5"), (4,),
        "{dir}/ck/", companion=shared_checkpoints(h, "first.h5"), companion_s=6, limit_s=60)
    add("ranks and folders", "plugin_path_variable_missing_folders", lambda d: ["plugins"], (2,),
        "plugin folder not found: {dir}/a (from RUNNER_PLUGIN_PATH)",
        env={"RUNNER_PLUGIN_PATH": "{dir}/a:{dir}/b"}, limit_s=30)
    add("ranks and folders", "experiment_plugin_path_missing",
        lambda d: [h.write(f"{d}/exp.toml", open(h.blobs(d)).read().replace(
            'name = "hostile"\n', f'name = "hostile"\nplugin_path = ["{d}/none"]\n'))],
        (2,), "plugin folder not found: {dir}/none", limit_s=30)


def limited(**limits):
    """Resource limits for the command alone: name -> soft and hard value."""
    return {getattr(resource, f"RLIMIT_{name.upper()}"): value for name, value in limits.items()}


def mounted_tmpfs(path, kib):
    """A tmpfs of `kib` KiB at `path`, for a full disk (needs root); None where it cannot."""
    os.makedirs(path, exist_ok=True)
    if os.geteuid() != 0:
        return None
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={kib}k", "tmpfs", path],
                          capture_output=True)
    return path if done.returncode == 0 else None


def unmount(d):
    for mount in ("small",):
        path = f"{d}/{mount}"
        if os.path.ismount(path):
            subprocess.run(["umount", "-l", path], capture_output=True)


def small_disk(d, kib):
    """{d}/small, a tmpfs of `kib` KiB; the case fails to set up where it cannot be mounted."""
    if not mounted_tmpfs(f"{d}/small", kib):
        raise RuntimeError("a full disk needs root, to mount a tmpfs")
    return f"{d}/small"


def resource_cases(h, add):
    add("resource limits", "results_file_size_limit", h.run_blobs(epochs=200), (4,),
        "the file size limit (ulimit -f) stops the writing of {dir}/r.h5",
        limits=limited(fsize=96 * 1024), limit_s=120)
    # Checkpoints of a wide linear probe (20000 features, adam: about 1 MB a shard) past a
    # limit of 512 KiB, which the results file never reaches.
    add("resource limits", "checkpoint_file_size_limit",
        lambda d: ["--plugin-path", h.GOOD, "--set", "dataset.dim=20000", "--set",
                   'optimizer.name="adam"', "--set", "checkpoint.every_steps=5",
                   h.blobs(d, epochs=2)], (4,),
        "the file size limit (ulimit -f) stops the writing of {dir}/r.checkpoints/",
        limits=limited(fsize=512 * 1024), limit_s=120)
    def trained_then(*args):
        def setup(d):
            more_inputs.trained(h, d)
            return [a.replace("{dir}", d) for a in args]
        return setup
    add("resource limits", "csv_file_size_limit",
        trained_then("report", "{dir}/r.h5", "--csv", "{dir}/out.csv"), (4,),
        "the file size limit (ulimit -f) stops the writing of {dir}/out.csv",
        limits=limited(fsize=16))
    # TensorBoard's events outgrow the results file past 5,000 steps (about 95 bytes a step
    # against 60): a limit of 512 KiB stops them first, at about epoch 345 of 400.
    add("resource limits", "tensorboard_file_size_limit",
        lambda d: ["--plugin-path", h.GOOD, "--tensorboard", f"{d}/tb",
                   h.blobs(d, "log_every = 64\n", epochs=400)], (4,),
        "the file size limit (ulimit -f) stops the writing of {dir}/tb/",
        limits=limited(fsize=512 * 1024), limit_s=120)
    add("resource limits", "tensorboard_full_disk",
        lambda d: ["--plugin-path", h.GOOD, "--tensorboard", small_disk(d, 64),
                   h.blobs(d, epochs=400)],
        (4,), "no space left on {dir}/small/", limit_s=120, teardown=unmount)
    add("resource limits", "checkpoints_full_disk",
        lambda d: ["--plugin-path", h.GOOD, "--set", f'checkpoint.dir="{small_disk(d, 64)}"',
                   more_inputs.layered_experiment(d)],
        (4,), "no space left on {dir}/small/", limit_s=120, teardown=unmount)
    add("resource limits", "zero_offload_full_disk",
        lambda d: ["--plugin-path", h.GOOD,
                   "--set", "dataset.dim=20000", "--set", 'optimizer.name="adam"',
                   h.blobs(d, '[strategy]\nname = "zero"\nworld_size = 1\noffload = "nvme"\n'
                              f'offload_dir = "{small_disk(d, 64)}"\n', epochs=2)],
        (4,), "no space left on {dir}/small/runner-zero-", limit_s=120, teardown=unmount)
    # A dataset too large for memory (1e9 features of 128 samples): the amount asked, in GiB.
    add("resource limits", "allocation_past_memory",
        lambda d: ["--plugin-path", h.GOOD, "--set", "dataset.dim=1000000000", "--set",
                   "dataset.train_size=64", "--set", "dataset.test_size=8", h.blobs(d)], (3,),
        "out of memory: an allocation of 476.84 GiB (512000000000 bytes) failed", limit_s=60)
    add("resource limits", "allocation_past_ulimit_v",
        lambda d: ["--plugin-path", h.GOOD, "--set", "dataset.dim=100000000", "--set",
                   "dataset.train_size=2", "--set", "dataset.test_size=2", h.blobs(d)], (3,),
        "out of memory: an allocation of 0.75 GiB (800000000 bytes) failed",
        limits=limited(**{"as": 3 * 1024 ** 3}), limit_s=60)
    for name, value in (("OMP_NUM_THREADS", "100000"), ("OMP_NUM_THREADS", "0"),
                        ("OMP_NUM_THREADS", "many"), ("OPENBLAS_NUM_THREADS", "100000"),
                        ("MKL_NUM_THREADS", "-3")):
        add("resource limits", f"{name.lower()}_{value}", h.run_blobs(), (2,),
            f"{name}={value}: a thread count must be a whole number from 1 to 1024",
            env={name: value}, absent="libgomp", limit_s=60)
    # Variables libgomp's constructor reads before runner's main, and refuses with a line of
    # its own: runner names them first.
    for name, value in (("OMP_PROC_BIND", "sideways"), ("OMP_STACKSIZE", "999999999999T"),
                        ("OMP_DYNAMIC", "maybe"), ("GOMP_SPINCOUNT", "lots")):
        add("resource limits", f"{name.lower()}_{value}", h.run_blobs(), (2,),
            f"{name}={value}: OpenMP (libgomp) does not take this value",
            env={name: value}, absent="libgomp:", limit_s=60)
    # An address space too small for the dynamic loader to map LibTorch, for each command.
    for command in (["--version"], ["plugins"], ["report", "missing.h5"]):
        add("resource limits", f"{command[0].strip('-')}_under_ulimit_v_200_mib",
            lambda d, command=command: command, (5,),
            "the address-space limit (ulimit -v 204800 KiB) is too small to load runner's "
            "libraries", absent="error while loading", limits=limited(**{"as": 200 * 1024 ** 2}),
            limit_s=60)
    # ulimit -u counts a user's threads: at::set_num_threads waited forever for a worker that
    # could not start (as nobody: root is exempt).
    for threads, nproc in ((4, 2), (1, 1)):
        add("resource limits", f"threads_{threads}_past_ulimit_u_{nproc}",
            lambda d, threads=threads: ["--plugin-path", h.GOOD, "--set",
                                        f"train.threads={threads}", h.blobs(d)], (5,),
            f"cannot start {2 * threads - 1} threads beside this one",
            limits=limited(nproc=nproc), unprivileged=True, limit_s=60)
    # Data loader threads past the limit, once ATen's and OpenMP's have started: refused all
    # together, the run recorded failed, none left unjoined (std::terminate before).
    add("resource limits", "loader_threads_past_ulimit_u_3",
        lambda d: ["--plugin-path", h.GOOD, "--set", "train.threads=1", "--set",
                   "train.num_workers=8", h.blobs(d)], (5,),
        "cannot start 8 data loader threads: ", absent="terminate",
        limits=limited(nproc=3), unprivileged=True, limit_s=60)
    add("resource limits", "check_op_threads_100000",
        lambda d: ["check-op", "gelu", "--threads", "100000"], (2,),
        "--threads: '100000' is not a whole number from 0 to 1024", limit_s=60)


def crashing_library(kind):
    """C++ source of a library whose constructor `kind`s: segfaults, throws, exits or hangs, with
    runner's entry symbol (so it passes for a plugin until it loads); or, with no entry (no
    plugin), says that it ran."""
    body = {
        "segfaults": "volatile int* p = nullptr; *p = 1;",
        "throws": "throw std::runtime_error(\"constructor failed\");",
        "exits": "std::exit(0);",
        "hangs": "for (;;) pause();",
        "marks": "std::fputs(\"a constructor ran\\n\", stderr);",
    }[kind]
    entry = ('extern "C" __attribute__((visibility("default"))) const void* '
             "runner_plugin_entry() { return nullptr; }\n")
    return ("#include <cstdio>\n#include <cstdlib>\n#include <stdexcept>\n#include <unistd.h>\n" +
            (entry if kind != "marks" else "") +
            f"namespace {{ struct At {{ At() {{ {body} }} }} at; }}\n")


def plugin_folder_with(kind):
    """A folder of plugins holding one library whose constructor `kind`s, built with c++."""
    def make(d):
        folder = f"{d}/plugins"
        os.makedirs(folder, exist_ok=True)
        source = more_inputs.h_write(f"{d}/broken.cpp", crashing_library(kind))
        subprocess.run(["c++", "-shared", "-fPIC", "-o", f"{folder}/libbroken_{kind}.so", source],
                       check=True, capture_output=True)
        return folder
    return make


def open_plugin_folder(h, folder_mode, library_mode):
    """A folder holding a copy of the good fixture's library, with these modes."""
    def make(d):
        folder = f"{d}/open_plugins"
        os.makedirs(folder, exist_ok=True)
        library = f"{folder}/fixture_good.so"
        shutil.copyfile(f"{h.GOOD}/fixture_good.so", library)
        os.chmod(library, library_mode)
        os.chmod(folder, folder_mode)
        return folder
    return make


def plugin_cases(h, add):
    said = {"segfaults": "crashed with signal 11 (SIGSEGV) while loading",
            "throws": "threw an exception while loading: constructor failed",
            "exits": "called exit() while loading (a constructor that ends the process)"}
    for kind, how in said.items():
        add("broken plugins", f"plugins_listing_a_library_that_{kind}",
            lambda d, kind=kind: ["--plugin-path", plugin_folder_with(kind)(d), "plugins"], (0,),
            f"libbroken_{kind}.so: {how}", limit_s=60)
        add("broken plugins", f"a_run_beside_a_library_that_{kind}",
            lambda d, kind=kind: ["--plugin-path", plugin_folder_with(kind)(d),
                                  "--plugin-path", h.GOOD, h.blobs(d)], (0,),
            f"libbroken_{kind}.so: {how}", limit_s=60)
    for what, folder_mode, library_mode in (("folder", 0o777, 0o644), ("library", 0o755, 0o666),
                                            ("sticky_folder", 0o1777, 0o644)):
        noun = "library" if what == "library" else "folder"
        add("broken plugins", f"a_run_from_a_{what}_every_user_may_write",
            lambda d, fm=folder_mode, lm=library_mode: [
                "--plugin-path", open_plugin_folder(h, fm, lm)(d), h.blobs(d)], (0,),
            f"runner: warning: plugin {noun} ", limit_s=60)
    # The child that loads it is killed after 60 s: the one slow case of the class.
    add("broken plugins", "plugins_listing_a_library_that_hangs",
        lambda d: ["--plugin-path", plugin_folder_with("hangs")(d), "plugins"], (0,),
        "libbroken_hangs.so: did not finish loading in 60 s", limit_s=150)
    add("broken plugins", "dry_run_runs_no_code_of_a_non_plugin",
        lambda d: ["--plugin-path", plugin_folder_with("marks")(d), "--plugin-path", h.GOOD,
                   "--dry-run", h.blobs(d)], (3,),
        "libbroken_marks.so has no entry symbol 'runner_plugin_entry'",
        absent="a constructor ran", limit_s=60)


def limit_cases(h):
    c = []
    add = lambda *a, **k: c.append(h.Case(*a, **k))
    plan_cases(h, add)
    ranks_and_folders_cases(h, add)
    resource_cases(h, add)
    plugin_cases(h, add)
    return c
