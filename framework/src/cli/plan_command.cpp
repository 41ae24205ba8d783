// `runner plan`: the experiment's run laid out every way on the devices, checked, planned and
// ranked by a step time predicted from rates measured here (or given).
#include "cli/plan_command.hpp"
#include "config/load_experiment.hpp"

#include <fmt/format.h>
#include <torch/torch.h>

#include <iostream>
#include <thread>

#include "cli/plan_trials.hpp"
#include "cli/registry_loader.hpp"
#include "config/experiment_file.hpp"
#include "layout/calibration.hpp"
#include "layout/search.hpp"
#include "layout/search_table.hpp"
#include "layout/trials.hpp"
#include "measure/cpu_memory.hpp"
#include "measure/system.hpp"
#include "plugin_host/host_owned_errors.hpp"

namespace runner::cli {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

config::RunConfig the_run(const layout::SearchRequest& request,
                          const plugin_host::Registry& registry) {
  const auto experiment =
      config::parse_experiment(request.text, request.file, request.overrides, registry);
  if (experiment.runs.size() > 1)
    throw ConfigError(fmt::format("runner plan {}: the file's [sweep] makes {} runs; a plan "
                                  "lays out one run",
                                  request.file, experiment.runs.size()),
                      "drop the [sweep], or pin its keys with --set");
  return experiment.runs.front();
}

bool on_cuda(const PlanOptions& options, const config::RunConfig& run) {
  const std::string device =
      options.device.empty() ? run.train.get_string("device") : options.device;
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
    double value = 0;
    try {
      if (equals != std::string::npos) value = std::stod(text.substr(equals + 1));
    } catch (const std::exception&) {
    }
    const std::map<std::string, Precision> names{
        {"fp32", Precision::fp32}, {"bf16", Precision::bf16}, {"fp16", Precision::fp16}};
    if (!names.count(name) || !(value > 0))
      throw ConfigError("runner plan --tflops '" + text + "': use PRECISION=TFLOPS",
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
  const auto threads = static_cast<int>(run.train.get_int("threads"));
  c.threads_per_rank = devices.cuda ? 1 : threads > 0 ? std::min(threads, part) : part;
  if (!devices.cuda) c.cpu_share = std::min(1.0, static_cast<double>(cores) / devices.count);
  c.disk_folder = std::filesystem::temp_directory_path().string();
  c.given_flops = given_flops(options.tflops);
  if (options.bandwidth > 0) c.given_link = options.bandwidth * 1e9;
  if (options.memory_bandwidth > 0) c.given_memory = options.memory_bandwidth * 1e9;
  return c;
}

int plan_with_plugins(const PlanOptions& options, const plugin_host::Registry& registry) {
  layout::SearchRequest request;
  request.text = config::read_experiment_file(options.experiment_file);
  request.file = options.experiment_file;
  request.overrides = options.overrides;
  const config::RunConfig run = the_run(request, registry);
  request.devices = {options.devices, on_cuda(options, run)};
  // The layouts run where the plan is for: fp16 is refused on the CPU, and trials on a GPU.
  request.overrides.push_back(std::string("train.device=\"") +
                              (request.devices.cuda ? "cuda" : "cpu") + "\"");
  const bool trials = options.trials > 0 || options.budget_runs > 0;
  if (trials) check_trials_fit_here(options, request.devices);
  request.memory_per_device = memory_per_device(options, request.devices);
  const layout::Rates rates = layout::calibrate(calibration(options, run, request.devices));
  std::cout << fmt::format(
      "runner plan {}: {} {} device{}, {} each; batch {}\nrates: {}\n", request.file,
      request.devices.count, request.devices.cuda ? "CUDA" : "CPU",
      request.devices.count == 1 ? "" : "s", plan::gibibytes(request.memory_per_device),
      run.train.get_int("batch_size"), layout::rates_text(rates));
  const layout::Search search = layout::search_layouts(request, registry, rates);
  std::cout << layout::search_text(search, options.top);
  if (search.fitting.empty()) throw layout::nothing_fits(search, request);
  const Measured best = trials ? run_trials(options, search, registry)
                               : Measured{&search.fitting.front(), std::nullopt};
  if (!options.write.empty()) {
    write_text_file(options.write,
                    layout::layout_file(*best.candidate, options.experiment_file, best.step_s));
    std::cout << "wrote " << options.write << "\n";
  }
  return 0;
}

}  // namespace

int plan_command(const PlanOptions& options) {
  plugin_host::Registry registry = load_registry(options.plugin_path, options.experiment_file);
  return plugin_host::with_host_owned_errors([&] { return plan_with_plugins(options, registry); });
}

}  // namespace runner::cli
