#include "engine/estimate.hpp"

#include <fmt/format.h>

#include "plugin_host/op_library.hpp"

namespace runner::engine {
namespace {

constexpr double kFp32Bytes = 4;

std::string gibibytes(double bytes) { return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024)); }

}  // namespace

int optimizer_states_per_parameter(const Options& optimizer) {
  const std::string& name = optimizer.get_string("name");
  if (name == "adam" || name == "adamw") return 2;  // first and second moments
  return optimizer.get_double("momentum") > 0 ? 1 : 0;
}

RunEstimate estimate_run(const config::RunConfig& run, const plugin_host::Registry& registry) {
  auto dataset = registry.make_dataset(run.dataset, DatasetContext{run.experiment.get_int("seed")});
  plugin_host::RegistryOpLibrary ops(registry, run.ops);
  const ModelContext context{dataset->info(), &ops};
  RunEstimate estimate;
  if (auto own = registry.estimate_model(run.model, context)) {
    estimate.parameters = own->parameters;
    estimate.forward_flops_per_sample = own->forward_flops_per_sample;
    estimate.from_options = true;
  } else {
    auto model = registry.make_model(run.model, context);
    estimate.parameters = model->parameter_count();
    estimate.forward_flops_per_sample = model->forward_flops_per_sample();
  }
  const auto parameters = static_cast<double>(estimate.parameters);
  estimate.optimizer = run.optimizer.get_string("name");
  estimate.weight_bytes = kFp32Bytes * parameters;
  estimate.gradient_bytes = kFp32Bytes * parameters;
  estimate.optimizer_state_bytes =
      kFp32Bytes * parameters * optimizer_states_per_parameter(run.optimizer);
  return estimate;
}

std::string with_thousands(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  for (auto i = static_cast<int64_t>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<size_t>(i), ",");
  return (n < 0 ? "-" : "") + digits;
}

std::string estimate_text(const RunEstimate& e) {
  return fmt::format(
      "{} parameters ({}); fp32 weights {}, gradients {}, {} state {}: {} before activations; "
      "{:.3g} training FLOPs per sample",
      with_thousands(e.parameters),
      e.from_options ? "from the model's options, nothing allocated" : "counted on the built model",
      gibibytes(e.weight_bytes), gibibytes(e.gradient_bytes), e.optimizer,
      gibibytes(e.optimizer_state_bytes), gibibytes(e.total_bytes()),
      3 * e.forward_flops_per_sample);
}

}  // namespace runner::engine
