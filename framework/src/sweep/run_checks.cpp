// A run's checks before a sweep starts: local ranks per core, the node's address, the batch,
// techniques, the plan.
#include "sweep/run_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "config/experiment.hpp"
#include "distributed/bind_address.hpp"
#include "runner/errors.hpp"
#include "train/fault_injection.hpp"
#include "train/technique_checks.hpp"

namespace runner::sweep {
namespace {

// Ranks a local launch can start on the CPU: one per core. (On CUDA, one per GPU: a machine
// with too few GPUs skips the run, as it skips NCCL without GPUs.)
void check_local_world(const ranks::RankSetup& setup) {
  if (setup.start != ranks::RankStart::local) return;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (setup.cuda || setup.world_size <= cores) return;
  throw ConfigError(
      fmt::format("strategy.world_size = {}: a local launch starts at most one rank per core, "
                  "and this machine has {}",
                  setup.world_size, cores),
      "start the ranks across machines with torchrun or srun (see the README)");
}

// The run's plan against its budget, and checkpointing against a model without layers.
void check_plan(const config::RunConfig& run, const plan::RunEstimate& estimate, int local_ranks) {
  if (run.train.techniques.checkpoint_layers && estimate.model.layers.empty())
    throw ConfigError(
        fmt::format("train.activation_checkpointing = \"layers\", but model '{}' "
                    "lists no layers{}",
                    run.model.name, run.label.empty() ? "" : " (run " + run.label + ")"),
        "set train.activation_checkpointing = \"none\", or use a model that "
        "lists its layers (gpt2, vgg, conv_stack)");
  plan::check_plan_fits(run, estimate, local_ranks);
}

// A fault for an attempt this runner never starts would never strike. Under torchrun or srun
// the launcher counts the restarts, not train.max_restarts.
void check_fault_attempt(const config::RunConfig& run, const ranks::RankSetup& setup) {
  const train::FaultSettings fault = train::fault_settings_of(run.fault);
  const int64_t restarts = run.train.max_restarts;
  if (fault.kind == train::FaultSettings::Kind::none || setup.start == ranks::RankStart::outside ||
      fault.attempt <= restarts)
    return;
  throw ConfigError(fmt::format("fault.attempt = {}: the run's ranks start at most {} time{} "
                                "(train.max_restarts = {}): the fault would never strike",
                                fault.attempt, restarts + 1, restarts == 0 ? "" : "s", restarts),
                    "raise train.max_restarts (--max-restarts) or lower fault.attempt");
}

// RUNNER_NODE_ADDR, which the ranks' Gloo groups bind, before any rank starts.
void check_node_address(const ranks::RankSetup& setup) {
  const char* address = std::getenv("RUNNER_NODE_ADDR");
  if (setup.distributed && address && *address) distributed::check_node_address(address);
}

// A rank waiting in a collective is left to the collective's timeout; a stall timeout below it
// would give up on ranks that only wait for a slower one.
void check_stall_timeout(const config::RunConfig& run, const ranks::RankSetup& setup) {
  const int64_t stall = run.train.stall_timeout_s;
  const auto collective_s = std::chrono::duration_cast<std::chrono::seconds>(setup.timeout).count();
  if (stall == 0 || !setup.distributed || stall >= collective_s) return;
  throw ConfigError(
      fmt::format("train.stall_timeout_s = {}: below the collective timeout "
                  "(strategy.timeout_s = {})",
                  stall, collective_s),
      fmt::format("raise it to {} or more, or set it to 0 to turn it off", collective_s));
}

}  // namespace

void check_run(const config::RunConfig& run, const ranks::RankSetup& setup,
               const std::optional<plan::RunEstimate>& estimate) {
  check_local_world(setup);
  check_node_address(setup);
  check_fault_attempt(run, setup);
  check_stall_timeout(run, setup);
  train::check_batch_divides(run, setup.world_size);
  // Micro-batches split a data-parallel replica's share: a pipeline's stages, or a tensor
  // group's ranks, share one.
  train::check_techniques(run, estimate ? estimate->plan.data_parallel_degree : setup.world_size);
  if (estimate) check_plan(run, *estimate, setup.local_world_size);
}

}  // namespace runner::sweep
