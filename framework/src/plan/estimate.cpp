// A run's memory plan, worked out without training it, and the check against its budget.
#include "plan/estimate.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "config/experiment.hpp"
#include "measure/cpu_memory.hpp"
#include "measure/system.hpp"
#include "plan/measure_model.hpp"
#include "plugin_host/op_library.hpp"

namespace runner::plan {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// Two training samples on the CPU (the first twice for a split of one): what measuring a
// built model runs forward on.
Batch measuring_batch(Dataset& dataset) {
  const int64_t second = std::min<int64_t>(1, dataset.size(Split::train) - 1);
  return dataset.get_batch(Split::train, torch::tensor({int64_t{0}, second}, torch::kInt64));
}

// Strategies without a planner: the model states of a whole replica per rank; activations
// unknown (the strategy-support library's planning helpers are the strategy's to call).
RunPlan replica_per_rank(const PlanInput& input) {
  RunPlan plan;
  plan.data_parallel_degree = input.world_size;
  plan.micro_batch_size =
      std::max<int64_t>(1, input.batch_size / input.world_size / input.techniques.micro_batches);
  MemoryPlan rank;
  const auto p = static_cast<double>(input.model.parameters);
  rank.parameters = 4 * p;
  rank.gradients = 4 * p;
  rank.optimizer_state = 4 * p * input.optimizer_states_per_parameter;
  plan.ranks.assign(static_cast<size_t>(input.world_size), rank);
  plan.notes =
      "the strategy has no planner: model states of a whole replica per rank, "
      "activations not estimated";
  return plan;
}

}  // namespace

double RunEstimate::peak_bytes() const {
  double peak = 0;
  for (const auto& rank : plan.ranks) peak = std::max(peak, rank.total());
  return peak;
}

int optimizer_states_per_parameter(const Options& optimizer) {
  const std::string& name = optimizer.get_string("name");
  if (name == "adam" || name == "adamw") return 2;  // first and second moments
  return optimizer.get_double("momentum") > 0 ? 1 : 0;
}

ModelSizing size_model(const config::RunConfig& run, const plugin_host::Registry& registry,
                       Dataset& dataset) {
  plugin_host::RegistryOpLibrary ops(registry, run.ops);
  const Techniques techniques = run.train.techniques;
  const ModelContext context{dataset.info(), &ops, techniques.precision};
  if (auto own = registry.estimate_model(run.model, context)) return {*own, true};
  KeepRandomState keep;
  auto model = registry.make_model(run.model, context);
  return {measure_model(*model, measuring_batch(dataset), techniques.precision), false};
}

RunEstimate plan_model(const config::RunConfig& run, const plugin_host::Registry& registry,
                       int world_size, const ModelSizing& sizing, const DatasetInfo& data) {
  plugin_host::RegistryOpLibrary ops(registry, run.ops);
  const Techniques techniques = run.train.techniques;
  const ModelContext context{data, &ops, techniques.precision};
  RunEstimate estimate;
  estimate.model = sizing.model;
  estimate.from_options = sizing.from_options;
  estimate.optimizer = run.optimizer.get_string("name");
  PlanInput input{estimate.model,
                  techniques,
                  std::max(1, world_size),
                  run.train.batch_size,
                  run.train.test_batch_size,
                  optimizer_states_per_parameter(run.optimizer),
                  registry.estimate_split(run.model, context)};
  if (auto plan = registry.plan_strategy(run.strategy, input)) {
    estimate.plan = std::move(*plan);
    estimate.planned_by_strategy = true;
  } else {
    estimate.plan = replica_per_rank(input);
  }
  return estimate;
}

RunEstimate estimate_run(const config::RunConfig& run, const plugin_host::Registry& registry,
                         int world_size, Dataset& dataset) {
  return plan_model(run, registry, world_size, size_model(run, registry, dataset), dataset.info());
}

RunEstimate estimate_run(const config::RunConfig& run, const plugin_host::Registry& registry,
                         int world_size) {
  auto dataset = registry.make_dataset(run.dataset, DatasetContext{run.experiment.get_int("seed")});
  return estimate_run(run, registry, world_size, *dataset);
}

std::string gibibytes(double bytes) { return fmt::format("{:.2f} GiB", bytes / kGiB); }

std::string with_thousands(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  for (auto i = static_cast<int64_t>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<size_t>(i), ",");
  return (n < 0 ? "-" : "") + digits;
}

std::string estimate_text(const RunEstimate& e) {
  return fmt::format(
      "{} parameters ({}); {:.3g} training FLOPs per sample; data-parallel degree {}, "
      "micro-batches of {} samples; peak {} on the largest rank ({})",
      with_thousands(e.model.parameters),
      e.from_options ? "from the model's options, nothing allocated"
                     : "measured on the built model",
      3 * e.model.forward_flops_per_sample, e.plan.data_parallel_degree, e.plan.micro_batch_size,
      gibibytes(e.peak_bytes()), e.plan.notes);
}

std::string plan_table(const RunEstimate& e) {
  std::string table =
      fmt::format("{:<8} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12}\n", "rank", "parameters",
                  "gradients", e.optimizer + " state", "activations", "buffers", "total");
  for (size_t r = 0; r < e.plan.ranks.size(); ++r) {
    const MemoryPlan& m = e.plan.ranks[r];
    size_t last = r;  // ranks alike share a row: "0-3"
    while (last + 1 < e.plan.ranks.size() && e.plan.ranks[last + 1].total() == m.total()) ++last;
    const std::string ranks = last == r ? std::to_string(r) : fmt::format("{}-{}", r, last);
    table +=
        fmt::format("{:<8} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12}\n", ranks,
                    gibibytes(m.parameters), gibibytes(m.gradients), gibibytes(m.optimizer_state),
                    gibibytes(m.activations), gibibytes(m.buffers), gibibytes(m.total()));
    r = last;
  }
  return table;
}

// CPU ranks share the machine's memory: for every rank on it, what its process holds before
// its model (this one's resident memory now: LibTorch and the plugins) and the allowance for
// its plan, against what is free. Each rank's process then keeps its resident memory within
// the same (CpuBlocksKeptForARun).
void check_machine_memory(const RunEstimate& estimate, int local_ranks, const std::string& where,
                          const std::string& fixes) {
  const std::optional<double> available = measure::available_memory_bytes();
  const size_t ranks = std::min(estimate.plan.ranks.size(), static_cast<size_t>(local_ranks));
  const double base = static_cast<double>(measure::resident_memory_bytes());
  double planned = 0, needed = 0;
  for (size_t r = 0; r < ranks; ++r) {
    planned += estimate.plan.ranks[r].total();
    needed += base + measure::resident_allowance(estimate.plan.ranks[r].total());
  }
  if (!available || needed <= *available) return;
  throw ConfigError(fmt::format("the plan needs {} for its {} rank{} on this machine ({} on the "
                                "largest; with a quarter more for freed memory kept for reuse "
                                "and the {} a process holds before its model, {}), over the "
                                "{} of memory available{}",
                                gibibytes(planned), ranks, ranks == 1 ? "" : "s",
                                gibibytes(estimate.peak_bytes()), gibibytes(base),
                                gibibytes(needed), gibibytes(*available), where),
                    fixes + ", or run on GPUs");
}

void check_plan_fits(const config::RunConfig& run, const RunEstimate& estimate, int local_ranks) {
  const double peak = estimate.peak_bytes();
  const std::string where = run.label.empty() ? "" : " (run " + run.label + ")";
  const double budget = run.train.memory_budget_gib * kGiB;
  const std::string fixes =
      "lower train.batch_size or raise train.micro_batches, set "
      "train.activation_checkpointing = \"layers\" or train.precision = \"bf16\", or shard "
      "the model over more ranks";
  if (budget > 0 && peak > budget)
    throw ConfigError(fmt::format("the plan needs {} on its largest rank, over "
                                  "train.memory_budget = {} GiB{}",
                                  gibibytes(peak), run.train.memory_budget_gib, where),
                      fixes + ", or raise train.memory_budget");
  const std::string device = run.train.device;
  const std::optional<double> memory =
      device == "cpu" ? std::nullopt : measure::cuda_memory_bytes();
  if (!memory) return check_machine_memory(estimate, local_ranks, where, fixes);
  if (peak > *memory)
    throw ConfigError(fmt::format("the plan needs {} on its largest rank, over the {} of this "
                                  "machine's GPU{}",
                                  gibibytes(peak), gibibytes(*memory), where),
                      fixes);
}

}  // namespace runner::plan
