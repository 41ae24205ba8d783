// runner: runs TOML experiments built from plugins, and reports on their results files.
#include <CLI/CLI.hpp>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>

#include "cli/check_op_command.hpp"
#include "cli/describe_command.hpp"
#include "cli/export_command.hpp"
#include "cli/plan_command.hpp"
#include "cli/plugins_command.hpp"
#include "cli/report_command.hpp"
#include "cli/run_command.hpp"
#include "common/clipped_text.hpp"
#include "common/one_line.hpp"
#include "interrupt/interrupt.hpp"
#include "machine/blas_kernels.hpp"
#include "machine/thread_variables.hpp"
#include "opcheck/check_op.hpp"
#include "runner/options.hpp"
#include "runner/version.hpp"

namespace {

int report_error(const runner::Error& e) {
  std::cerr << "runner: error: " << e.what() << '\n';
  if (!e.hint().empty()) std::cerr << "  hint: " << e.hint() << '\n';
  return e.exit_code();
}

// CLI11's own number checks print their bounds as doubles: a 309-digit range for "positive".
CLI::Validator whole_number_in(int64_t least, int64_t most) {
  const std::string expected =
      "a whole number from " + std::to_string(least) + " to " + std::to_string(most);
  return CLI::Validator(
      [least, most, expected](std::string& input) -> std::string {
        int64_t value = 0;
        if (CLI::detail::lexical_cast(input, value) && value >= least && value <= most) return {};
        return "'" + runner::clipped(input) + "' is not " + expected;
      },
      "INT in [" + std::to_string(least) + ", " + std::to_string(most) + "]");
}

// A quantity in `unit` from `least` to `most`: CLI11's PositiveNumber takes nan (then ignored)
// and 1e30 GiB (a plan of no machine), and names no unit.
CLI::Validator quantity_in(double least, double most, const std::string& unit) {
  const std::string expected = fmt::format("a number of {} from {} to {}", unit, least, most);
  return CLI::Validator(
      [least, most, expected](std::string& input) -> std::string {
        double value = 0;
        if (CLI::detail::lexical_cast(input, value) && std::isfinite(value) && value >= least &&
            value <= most)
          return {};
        return "'" + runner::clipped(input) + "' is not " + expected;
      },
      fmt::format("{} in [{}, {}]", unit, least, most));
}

CLI::App* add_check_op(CLI::App& app, runner::cli::CheckOpOptions& check) {
  auto* sub = app.add_subcommand(
      "check-op", "compare an op with its reference: errors, float64 gradcheck, timing");
  sub->add_option("name", check.op, "the op, e.g. gelu")->required();
  sub->add_option("--dtype", check.dtype, "float32 or float64 (default float32)");
  sub->add_option("--shapes", check.shapes,
                  "shapes of the first input, e.g. 4096x4096,1x3x17x33 (default: the op's)")
      ->allow_extra_args(false);
  sub->add_option("--set", check.settings, "an option of the op: key=value (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--device", check.device, "cpu or cuda (default cpu)");
  sub->add_option("--repeat", check.repeats, "timed calls of each, median reported (default 5)")
      ->check(whole_number_in(1, runner::opcheck::kMaxRepeats));
  sub->add_option("--threads", check.threads, "ATen threads, 0 for every core (default 0)")
      ->check(whole_number_in(0, runner::machine::kMostThreads));
  return sub;
}

CLI::App* add_plan(CLI::App& app, runner::cli::PlanOptions& plan) {
  auto* sub = app.add_subcommand(
      "plan", "search every layout of a run on N devices: memory per rank, predicted step time");
  sub->add_option("experiment", plan.experiment_file,
                  "TOML experiment file: its run, or each point of its sweep")
      ->required();
  sub->add_option("--point", plan.point, "plan run N of the file's sweep alone (1-based)")
      ->check(whole_number_in(1, 1000000));
  sub->add_option("--devices", plan.devices, "devices (ranks) to lay the run out on")
      ->required()
      ->check(whole_number_in(1, 4096));
  sub->add_option("--device", plan.device, "cpu or cuda (default: the experiment's train.device)");
  sub->add_option("--device-memory", plan.device_memory,
                  "GiB per device (default: the GPU's, or this machine's available memory "
                  "shared by the ranks)")
      ->check(quantity_in(runner::cli::kLeastDeviceGiB, runner::cli::kMostDeviceGiB, "GiB"));
  sub->add_option("--tflops", plan.tflops,
                  "a device's GEMM rate instead of measuring it: PRECISION=TFLOPS (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--bandwidth", plan.bandwidth, "GB/s between ranks (default: measured, CPU)")
      ->check(quantity_in(runner::cli::kLeastRate, runner::cli::kMostRate, "GB/s"));
  sub->add_option("--memory-bandwidth", plan.memory_bandwidth,
                  "GB/s of a device's memory (default: measured)")
      ->check(quantity_in(runner::cli::kLeastRate, runner::cli::kMostRate, "GB/s"));
  sub->add_option("--top", plan.top, "layouts to show (default 10)")
      ->check(whole_number_in(1, 100000));
  sub->add_option("--trials", plan.trials,
                  "run the best K predicted layouts a few steps each, recorded in the results "
                  "file, and print predicted beside measured")
      ->check(whole_number_in(1, 1000));
  sub->add_option("--budget-runs", plan.budget_runs,
                  "run at most K of the best predicted layouts, one at a time, stopping once "
                  "none left may beat the fastest measured")
      ->check(whole_number_in(1, 1000))
      ->excludes("--trials");
  sub->add_option("--trial-steps", plan.trial_steps, "steps of each trial (default 4)")
      ->check(whole_number_in(2, 100000));
  sub->add_option("--write", plan.write,
                  "write the best layout (measured by the trials, else predicted) as an "
                  "experiment file");
  sub->add_flag("--force", plan.force,
                "let --write replace a file that holds something else than an experiment");
  return sub;
}

int dispatch(int argc, char** argv) {
  using namespace runner::cli;
  CLI::App app{"runner " RUNNER_VERSION ": train networks from TOML experiments and plugins"};
  app.set_version_flag("--version", RUNNER_VERSION);
  RunOptions run;
  app.add_option("experiment", run.experiment_file, "TOML experiment file to run");
  // One value per occurrence, so the experiment file after them stays positional.
  app.add_option("--set", run.overrides, "override a key: dotted.key=value (repeatable)")
      ->allow_extra_args(false);
  app.add_flag("--dry-run", run.dry_run, "print the resolved runs and train nothing");
  app.add_flag("-q,--quiet", run.quiet, "print errors only");
  app.add_option("--nproc", run.nproc,
                 "train every run on N local ranks (strategy.world_size = N; single becomes ddp)")
      ->check(whole_number_in(1, 4096));
  int max_restarts = -1;
  auto* restarts =
      app.add_option("--max-restarts", max_restarts,
                     "start a failed run's ranks again, up to N times, from its newest complete "
                     "checkpoint (train.max_restarts = N)")
          ->check(whole_number_in(0, 1000));
  app.add_option("--plugin-path", run.plugin_path, "extra folder of plugins (repeatable)")
      ->allow_extra_args(false);
  std::string tensorboard_dir;
  auto* tensorboard =
      app.add_option("--tensorboard", tensorboard_dir,
                     "write TensorBoard event files into this folder (experiment.tensorboard)")
          ->allow_extra_args(false);
  std::string html_path;
  auto* run_html = app.add_option("--html", html_path,
                                  "when the sweep ends, write the results file's HTML page here "
                                  "(default: beside the results file, .html)")
                       ->expected(0, 1)
                       ->allow_extra_args(false)
                       ->excludes("--dry-run");
  std::string resume_path;
  auto* resume = app.add_option("--resume", resume_path,
                                "go on with the unfinished runs from their latest checkpoints, "
                                "or from this checkpoint or folder of checkpoints")
                     ->expected(0, 1)
                     ->allow_extra_args(false);

  auto* plugins = app.add_subcommand("plugins", "list installed plugins and their libraries");
  auto* describe = app.add_subcommand("describe", "print the keys of a component or section");
  std::string what;
  describe->add_option("what", what,
                       "KIND/NAME (model/lenet5) or experiment|train|...; none: list them");
  auto* report = app.add_subcommand("report", "print the comparison table of a results file");
  ReportOptions report_options;
  report->add_option("file", report_options.file, "results file (.h5)")->required();
  auto* csv = report
                  ->add_option("--csv", report_options.csv_path,
                               "CSV of every column (plain numbers, units in the names) to "
                               "this file, or to standard output without one")
                  ->expected(0, 1);
  auto* html = report
                   ->add_option("--html", report_options.html_path,
                                "one self-contained HTML page of the runs, their curves and the "
                                "sweep, to this file (default: beside the results file, .html)")
                   ->expected(0, 1)
                   ->excludes(csv);
  report->add_flag("--force", report_options.force,
                   "let --csv or --html replace a file that holds something else than a "
                   "report's CSV or page");
  report
      ->add_option("--columns", report_options.columns,
                   "the columns to show, by CSV name: time_s,samples_per_s,...")
      ->delimiter(',')
      ->excludes(html);
  auto* export_weights =
      app.add_subcommand("export", "write a run's trained weights for torch.load and safetensors");
  ExportOptions export_options;
  export_weights->add_option("file", export_options.file, "results file (.h5)")->required();
  export_weights->add_option("run", export_options.run, "the run: its group, id or label")
      ->required();
  export_weights->add_option("--out", export_options.out,
                             "the files' path without extension (default: beside the results "
                             "file, named by the run)");
  export_weights->add_flag("--force", export_options.force,
                           "let --out replace files that hold something else than weights");
  CheckOpOptions check;
  auto* check_op = add_check_op(app, check);
  PlanOptions plan_options;
  auto* plan = add_plan(app, plan_options);
  for (auto* sub : {plugins, describe, report, export_weights, check_op, plan}) sub->fallthrough();
  app.require_subcommand(0, 1);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(runner::ErrorClass::config);
  }
  if (plugins->parsed()) return plugins_command(run.plugin_path);
  if (describe->parsed()) return describe_command(what, run.plugin_path);
  if (report->parsed()) {
    report_options.csv = csv->count() > 0;
    report_options.html = html->count() > 0;
    return report_command(report_options);
  }
  if (export_weights->parsed()) return export_command(export_options);
  if (check_op->parsed()) {
    check.plugin_path = run.plugin_path;
    return check_op_command(check);
  }
  if (plan->parsed()) {
    plan_options.overrides = run.overrides;
    plan_options.plugin_path = run.plugin_path;
    return plan_command(plan_options);
  }
  if (resume->count() > 0) run.resume = resume_path;
  if (restarts->count() > 0)
    run.overrides.push_back("train.max_restarts=" + std::to_string(max_restarts));
  // Quoted as a TOML string, so a folder named 2024 or true stays text.
  if (tensorboard->count() > 0)
    run.overrides.push_back("experiment.tensorboard=" +
                            runner::value_to_string(runner::Value(tensorboard_dir)));
  if (run_html->count() > 0) run.html = html_path;
  // `--html EXPERIMENT.toml`: the value was the experiment file, never the page's path.
  if (run.experiment_file.empty() && run.html && run.html->size() > 5 &&
      run.html->substr(run.html->size() - 5) == ".toml") {
    run.experiment_file = *run.html;
    run.html = "";
  }
  // `--resume EXPERIMENT.toml`: the value was the experiment file.
  if (run.experiment_file.empty() && run.resume && std::filesystem::is_regular_file(*run.resume)) {
    run.experiment_file = *run.resume;
    run.resume = "";
  }
  if (run.experiment_file.empty()) {
    std::cerr << app.help();
    return static_cast<int>(runner::ErrorClass::config);
  }
  return run_command(run);
}

// glibc returns freed activation buffers (19 MB for a LeNet-5 test batch) to the kernel and
// faults them in again for the next batch: measured, 30% of a test pass in the page-fault
// handler. Keeping them in the heap costs a few tens of MB of peak memory.
void keep_freed_buffers() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  runner::ignore_closed_outputs();
  runner::ignore_file_size_limit();
  runner::machine::run_again_on_better_openblas_kernels(argv);
  keep_freed_buffers();
  try {
    if (const auto problem = runner::machine::thread_variable_problem())
      throw runner::ConfigError(*problem, runner::machine::kThreadVariableHint);
    return dispatch(argc, argv);
  } catch (const runner::Error& e) {
    return report_error(e);
  } catch (const std::exception& e) {
    std::cerr << "runner: error: " << runner::one_line(e) << '\n';
    return static_cast<int>(runner::ErrorClass::runtime);
  } catch (...) {
    std::cerr << "runner: error: an exception that is not a std::exception\n";
    return static_cast<int>(runner::ErrorClass::runtime);
  }
}
