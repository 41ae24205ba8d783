// The keys the host owns: [experiment], [train], [optimizer], [schedule], [checkpoint], [fault].
// `runner
// describe` prints these docs, so each says what the key does and what its special values mean.
#include "config/host_schemas.hpp"

namespace runner::config {

const Schema& experiment_schema() {
  static const Schema schema = [] {
    Schema s;
    s.text("name", "", "Experiment name, names the results file; empty: the file's stem");
    s.text("description", "", "One line on what the experiment compares. Not part of a run's id");
    s.integer("seed", 0, "Seed of every random generator of a run", 0);
    s.text("results", "", "Results file (HDF5); empty: results/<name>.h5. Not part of a run's id");
    s.text("tensorboard", "",
           "Folder of TensorBoard event files: <folder>/<name>/ holds the sweep's hparams and "
           "one folder per run; empty: none. Not part of a run's id");
    s.texts("plugin_path", std::vector<std::string>{}, "Extra folders to load plugins from");
    s.texts("table", std::vector<std::string>{},
            "Columns the study compares (runner report's CSV names, e.g. forward_s): shown in "
            "its table whatever the width. Not part of a run's id");
    s.number("plan_step_s", 0.0,
             "The step time, s, `runner plan` predicted for this run's layout (its trials set "
             "it; runner report --html shows it beside the measured step); 0: none. Not part "
             "of a run's id",
             0);
    return s;
  }();
  return schema;
}

const Schema& train_schema() {
  static const Schema schema = [] {
    Schema s;
    s.integer("epochs", 1, "Passes over the training set", 1);
    s.integer("batch_size", 64, "Samples per training step (over all ranks)", 1);
    s.integer("test_batch_size", 1000, "Samples per evaluation step", 1);
    s.text("device", "cpu", "Where to train; auto: cuda when available, else cpu",
           {"cpu", "cuda", "auto"});
    // The ceiling is far above any machine's cores: it only stops a typo (100000) from
    // starting so many threads that the process hangs.
    s.integer("threads", 0, "Intra-op CPU threads per rank; 0: the number of cores", 0, 1024);
    s.text("precision", "fp32",
           "Arithmetic of forward and loss: fp32, or bf16 / fp16 autocast (matmuls and "
           "convolutions in 16 bits) with fp32 master weights; fp16 only on CUDA, with dynamic "
           "loss scaling",
           {"fp32", "bf16", "fp16"});
    s.integer("micro_batches", 1,
              "Gradient accumulation: each rank's share of train.batch_size runs as this many "
              "forward/backward passes, then one optimizer step; it must divide the share",
              1, 65536);
    s.text("activation_checkpointing", "none",
           "layers: each of the model's layers keeps only its input during forward and runs "
           "again in backward (less memory, about one more forward); none: keep activations",
           {"none", "layers"});
    s.number("grad_clip_norm", 0.0,
             "Clip gradients to this global L2 norm over all parameters; 0: no clipping", 0);
    s.number("memory_budget", 0.0,
             "GiB a rank may hold (the run plan's estimate); a run planned over it is refused "
             "before it starts; 0: no budget (a CUDA device's memory still applies)",
             0);
    s.number("peak_tflops", 0.0,
             "Peak TFLOP/s of one device at the run's precision, for MFU; 0: known GPUs by "
             "name (H100 SXM bf16 989, A100 bf16 312), none for CPUs",
             0);
    s.number("loss_scale", 65536.0, "fp16: the initial loss scale", 1);
    s.integer("loss_scale_growth_interval", 2000,
              "fp16: steps without overflow after which the loss scale doubles", 1);
    s.number("loss_scale_backoff", 0.5,
             "fp16: factor applied to the loss scale when a step's gradients overflow (the "
             "step is skipped)",
             0.0625, 0.9375);
    s.integer("num_workers", 0,
              "Loader threads that read and augment the next batches while a step computes; "
              "0: batches are made between steps",
              0, 64);
    s.integer("prefetch", 2, "Batches each loader thread may prepare ahead", 1, 64);
    s.flag("pin_memory", true, "CUDA: stage batches in page-locked memory for asynchronous copies");
    s.integer("log_every", 50, "Training steps between progress updates", 1);
    s.integer("max_steps_per_epoch", 0, "Stop an epoch after this many steps; 0: no limit", 0);
    s.integer("max_eval_steps", 0,
              "Stop each test pass after this many batches (its first ones); 0: the whole test "
              "set",
              0);
    s.flag("deterministic", false, "Use deterministic algorithms only (slower, reproducible)");
    s.integer("collective_ledger", 4096,
              "Collectives each rank keeps in its ledger (the newest: group, sequence number, "
              "op, size, step, phase, state), which name the collective of a failure; 0: none",
              0, 1 << 20);
    s.integer("max_restarts", 0,
              "Times the launcher starts a failed run's ranks again (a rank died, a collective "
              "failed or timed out), each time from the run's newest complete checkpoint, or from "
              "the start without one; 0: a failure ends the run. Not part of a run's id",
              0, 1000);
    s.integer("stall_timeout_s", 1800,
              "Seconds a rank may make no progress (no phase entered, no collective issued or "
              "ended) outside a collective before it gives up and the run fails with a hang "
              "report; at least the collective timeout (strategy.timeout_s); 0: off. Not part "
              "of a run's id",
              0, 604800);
    s.flag("check_collectives", false,
           "Before each collective its group's members compare op, dtype and size (a small "
           "all-gather); a member that called another is an error at once naming both calls, "
           "instead of a hang. Not part of a run's id while off");
    s.text("backend_conv", "vendor",
           "convolutions: vendor (oneDNN on CPU, cuDNN on GPU, LibTorch's default) or native "
           "(ATen's own kernels, vendor libraries off)",
           {"vendor", "native"});
    return s;
  }();
  return schema;
}

const Schema& optimizer_schema() {
  static const Schema schema = [] {
    Schema s;
    s.text("name", "adam", "Optimizer", {"sgd", "adam", "adamw"});
    s.number("lr", 1e-3, "Learning rate (the peak one when a schedule warms up)", 0);
    s.number("momentum", 0.0, "SGD momentum", 0, 1);
    s.flag("nesterov", false, "SGD with Nesterov momentum");
    s.number("weight_decay", 0.0, "L2 penalty (decoupled for adamw)", 0);
    s.numbers("betas", std::vector<double>{0.9, 0.999}, "Adam/AdamW moment decay rates, two values",
              0, 1);
    s.number("eps", 1e-8, "Adam/AdamW term added to the denominator", 0);
    return s;
  }();
  return schema;
}

const Schema& schedule_schema() {
  static const Schema schema = [] {
    Schema s;
    s.text("name", "constant", "Learning-rate schedule",
           {"constant", "step", "cosine", "one_cycle"});
    s.integer("step_size", 1, "step: epochs between two decays", 1);
    s.number("gamma", 0.1, "step: factor applied to the rate at each decay", 0);
    s.number("min_lr", 0.0, "cosine: the rate at the end (the floor)", 0);
    s.number("max_lr", 0.0, "one_cycle: the peak rate; 0: optimizer.lr", 0);
    s.number("pct_start", 0.3, "one_cycle: fraction of the steps spent rising", 0, 1);
    s.integer("warmup_steps", 0, "Steps of linear warm-up from 0 to the rate", 0);
    return s;
  }();
  return schema;
}

const Schema& checkpoint_schema() {
  static const Schema schema = [] {
    Schema s;
    s.integer("every_epochs", 0, "Save a checkpoint after every this many epochs; 0: never", 0);
    s.integer("every_steps", 0, "Save a checkpoint after every this many steps; 0: never", 0);
    s.integer("keep", 2, "Complete checkpoints kept per run, the latest ones", 1);
    s.flag("final_weights", true,
           "Without every_epochs or every_steps: keep the trained model's weights (not the "
           "optimizer's state) for runner export when the run ends");
    s.text("dir", "",
           "Folder of the checkpoints, one folder per run id inside; empty: beside the results "
           "file, <results>.checkpoints");
    return s;
  }();
  return schema;
}

const Schema& fault_schema() {
  static const Schema schema = [] {
    Schema s;
    s.text("kind", "none",
           "A fault injected into the run, through the path a real one takes: kill (the rank "
           "dies by SIGKILL as the step starts), stop (the rank makes no progress for `seconds` "
           "in the step's data loading), slow (from `step` on, each of the rank's steps takes "
           "`factor` times as long: a straggler), fail_collective (the rank's next collective "
           "fails), extra_collective (before its next collective the rank calls an all-reduce "
           "the others do not: a code path that diverged); none: no fault",
           {"none", "kill", "stop", "slow", "fail_collective", "extra_collective"});
    s.integer("rank", 0, "The rank it strikes", 0);
    s.integer("step", 1, "The training step it strikes at, from 1, counted over the epochs", 1);
    s.number("seconds", 30.0, "stop: how long the rank makes no progress", 0, 86400);
    s.number("factor", 2.0, "slow: how many times as long each of the rank's steps takes", 1, 1000);
    s.text("in", "step",
           "kill: where the rank dies: step (as the step starts) or checkpoint (while the "
           "checkpoint saved after `step` is written: its shard on disk, on rank 0 every "
           "shard, its manifest not yet committed)",
           {"step", "checkpoint"});
    s.integer("attempt", 0,
              "The attempt it strikes: 0 the first, 1 the first restart (train.max_restarts), "
              "...; the others run without it",
              0, 1000);
    return s;
  }();
  return schema;
}

const Schema& sweep_schema() {
  static const Schema schema = [] {
    Schema s;
    s.text("mode", "product",
           "product: every combination of the lists; zip: the lists side by side",
           {"product", "zip"});
    s.integer("max_points", 10000,
              "Runs the sweep may expand to; more is refused before any is made", 1);
    return s;
  }();
  return schema;
}

}  // namespace runner::config
