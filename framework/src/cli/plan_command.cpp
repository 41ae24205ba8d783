// `runner plan`: the experiment's run (or each point of its sweep, or the one --point picks)
// laid out every way on the devices, checked, planned and ranked by a step time predicted from
// rates measured here (or given).
#include "cli/plan_command.hpp"
#include "config/load_experiment.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>
#include <torch/torch.h>

#include <cmath>
#include <iostream>
#include <optional>
#include <thread>

#include "cli/plan_trials.hpp"
#include "cli/registry_loader.hpp"
#include "common/clipped_text.hpp"
#include "common/output_path.hpp"
#include "config/experiment_file.hpp"
#include "layout/calibration.hpp"
#include "layout/plan_points.hpp"
#include "layout/search.hpp"
#include "layout/search_table.hpp"
#include "layout/trials.hpp"
#include "measure/cpu_memory.hpp"
#include "measure/system.hpp"
#include "plugin_host/host_owned_errors.hpp"
#include "sweep/experiment_runner.hpp"

namespace runner::cli {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

bool on_cuda(const PlanOptions& options, const config::RunConfig& run) {
  const std::string device = options.device.empty() ? run.train.device : options.device;
  if (device != "cpu" && device != "cuda" && device != "auto")
    throw ConfigError("runner plan --device " + device + ": use cpu or cuda");
  return device == "cuda" || (device == "auto" && torch::cuda::is_available());
}

// What one rank's plan may reach: --device-memory, the GPU's memory, or on the CPU this
// machine's available memory shared by the ranks, each less what its process holds before its
// model and the quarter more a rank keeps for reuse (measure/cpu_memory.hpp).
double memory_per_device(const PlanOptions& options, const layout::Devices& devices) {
  if (options.device_memory > 0) return options.device_memory * kGiB;
  if (devices.cuda) {
    if (auto memory = measure::cuda_memory_bytes()) return *memory;
    throw ConfigError("runner plan --device cuda: this machine has no GPU to read the memory of",
                      "give the memory of one device with --device-memory GiB");
  }
  const double available = measure::available_memory_bytes().value_or(0);
  const double base = static_cast<double>(measure::resident_memory_bytes());
  return std::max(0.0, available / devices.count - base) / measure::resident_allowance(1.0);
}

std::map<Precision, double> given_flops(const std::vector<std::string>& tflops) {
  std::map<Precision, double> given;
  for (const auto& text : tflops) {
    const auto equals = text.find('=');
    const std::string name = text.substr(0, equals);
    double value = NAN;
    if (equals != std::string::npos) {
      const std::string number = text.substr(equals + 1);
      size_t used = 0;
      try {
        value = std::stod(number, &used);
      } catch (const std::exception&) {
      }
      if (used != number.size()) value = NAN;
    }
    const std::map<std::string, Precision> names{
        {"fp32", Precision::fp32}, {"bf16", Precision::bf16}, {"fp16", Precision::fp16}};
    if (!names.count(name) || !(value >= kLeastRate && value <= kMostRate))
      throw ConfigError(fmt::format("runner plan --tflops '{}': use PRECISION=TFLOPS, a number "
                                    "of TFLOPS from {} to {}",
                                    clipped(text), kLeastRate, kMostRate),
                        "e.g. --tflops bf16=989 (fp32, bf16 or fp16; dense TFLOPS per device)");
    given[names.at(name)] = value * 1e12;
  }
  return given;
}

layout::Calibration calibration(const PlanOptions& options, const config::RunConfig& run,
                                const layout::Devices& devices) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  layout::Calibration c;
  c.devices = devices;
  // CPU ranks share this machine's cores: each measures with its part of them (a rank asking
  // for more threads would only oversubscribe), and with more ranks than cores a part of one.
  const int part = std::max(1, cores / devices.count);
  const auto threads = static_cast<int>(run.train.threads);
  c.threads_per_rank = devices.cuda ? 1 : threads > 0 ? std::min(threads, part) : part;
  if (!devices.cuda) c.cpu_share = std::min(1.0, static_cast<double>(cores) / devices.count);
  c.disk_folder = std::filesystem::temp_directory_path().string();
  c.given_flops = given_flops(options.tflops);
  if (options.bandwidth > 0) c.given_link = options.bandwidth * 1e9;
  if (options.memory_bandwidth > 0) c.given_memory = options.memory_bandwidth * 1e9;
  return c;
}

// What the plan needs of the machine and the options, the same for every point planned.
struct PlanSetting {
  layout::Devices devices;
  double memory_per_device = 0;
  layout::Rates rates;
  bool trials = false;
};

// The point's search, printed; its best layout tried and written as the options ask.
void plan_point(const PlanOptions& options, const PlanSetting& setting,
                layout::SearchRequest request, const plugin_host::Registry& registry) {
  request.devices = setting.devices;
  request.memory_per_device = setting.memory_per_device;
  // The layouts run where the plan is for: fp16 is refused on the CPU, and trials on a GPU.
  request.overrides.push_back(std::string("train.device=\"") +
                              (setting.devices.cuda ? "cuda" : "cpu") + "\"");
  const config::RunConfig run =
      config::parse_experiment(request.text, request.file, request.overrides, registry)
          .runs.front();
  std::cout << fmt::format("runner plan {}: {} {} device{}, {} each; batch {}\n", request.file,
                           setting.devices.count, setting.devices.cuda ? "CUDA" : "CPU",
                           setting.devices.count == 1 ? "" : "s",
                           plan::gibibytes(setting.memory_per_device), run.train.batch_size);
  const layout::Search search = layout::search_layouts(request, registry, setting.rates);
  std::cout << layout::search_text(search, options.top);
  if (search.fitting.empty()) throw layout::nothing_fits(search, request);
  const Measured best = setting.trials ? run_trials(options, search, registry)
                                       : Measured{&search.fitting.front(), std::nullopt};
  if (!options.write.empty()) {
    write_text_file(options.write,
                    layout::layout_file(*best.candidate, options.experiment_file, best.step_s));
    std::cout << "wrote " << options.write << "\n";
  }
}

// The point's run as the search reads it: the file itself for a file of one run, else the
// point's resolved TOML (the sweep and --set applied), named by its place in the sweep.
layout::SearchRequest request_of(const PlanOptions& options, const std::string& text,
                                 const config::Experiment& experiment,
                                 const layout::PlanPoint& point) {
  if (experiment.runs.size() == 1) return {text, options.experiment_file, options.overrides, {}, 0};
  const config::RunConfig& run = experiment.runs[point.run];
  std::string alike;
  for (size_t i = 1; i < point.alike.size(); ++i)
    alike += fmt::format("{}{}", i == 1 ? "; alike for the plan: run " : ", ", point.alike[i] + 1);
  return {run.resolved_toml,
          fmt::format("{} (run {}/{} {}{})", options.experiment_file, point.run + 1,
                      experiment.runs.size(), run.label, alike),
          {},
          {},
          0};
}

// An experiment file, such as an earlier --write made: TOML with an [experiment] table.
bool holds_experiment(const std::string& path) {
  try {
    return toml::parse_file(path)["experiment"].is_table();
  } catch (const std::exception&) {
    return false;
  }
}

// Before the rates are measured: a --write that would replace one of the plan's own files, or
// a file of another kind, is refused at once.
void check_write_path(const PlanOptions& options, const config::Experiment& experiment) {
  check_output_file({"--write",
                     options.write,
                     {{options.experiment_file, "the experiment file this plan reads"},
                      {sweep::results_path(experiment), "the experiment's results file"}},
                     options.force,
                     holds_experiment});
}

// Trials and --write lay out one run: a sweep of several points to plan needs --point.
void check_one_point_for(const PlanOptions& options, const config::Experiment& experiment,
                         size_t points, bool trials) {
  if (points <= 1 || (!trials && options.write.empty())) return;
  throw ConfigError(
      fmt::format("runner plan {}: {} tries or writes the layout of one run, and the sweep "
                  "makes {} runs that plan apart",
                  options.experiment_file, trials ? "--trials/--budget-runs" : "--write", points),
      fmt::format("add --point N for run N of the sweep (1 to {})", experiment.runs.size()));
}

int plan_with_plugins(const PlanOptions& options, const plugin_host::Registry& registry) {
  const std::string text = config::read_experiment_file(options.experiment_file);
  const config::Experiment experiment =
      config::parse_experiment(text, options.experiment_file, options.overrides, registry);
  const std::vector<layout::PlanPoint> points = layout::plan_points(experiment, options.point);
  const config::RunConfig& first = experiment.runs[points.front().run];
  PlanSetting setting;
  setting.devices = {options.devices, on_cuda(options, first)};
  setting.trials = options.trials > 0 || options.budget_runs > 0;
  check_one_point_for(options, experiment, points.size(), setting.trials);
  if (!options.write.empty()) check_write_path(options, experiment);
  if (setting.trials) check_trials_fit_here(options, setting.devices);
  setting.memory_per_device = memory_per_device(options, setting.devices);
  setting.rates = layout::calibrate(calibration(options, first, setting.devices));
  std::cout << "rates: " << layout::rates_text(setting.rates) << "\n";
  std::optional<int> failed;
  for (size_t i = 0; i < points.size(); ++i) {
    if (i > 0) std::cout << "\n";
    try {
      plan_point(options, setting, request_of(options, text, experiment, points[i]), registry);
    } catch (const Error& e) {
      if (points.size() == 1) throw;
      std::cerr << "runner: error: " << e.what() << "\n";
      if (!e.hint().empty()) std::cerr << "  hint: " << e.hint() << "\n";
      failed = failed.value_or(e.exit_code());
    }
  }
  return failed.value_or(0);
}

}  // namespace

int plan_command(const PlanOptions& options) {
  plugin_host::Registry registry = load_registry(options.plugin_path, options.experiment_file);
  return plugin_host::with_host_owned_errors([&] { return plan_with_plugins(options, registry); });
}

}  // namespace runner::cli
