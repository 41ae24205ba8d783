// connect_ranks: a Gloo or NCCL communicator, a failed rendezvous diagnosed; backends unavailable.
#include "distributed/connect.hpp"

#include <torch/cuda.h>

#include "common/one_line.hpp"
#include "distributed/gloo_group.hpp"
#include "distributed/nccl_group.hpp"
#include "runner/errors.hpp"

namespace runner::distributed {
namespace {

std::string rendezvous_failure(const ConnectSpec& spec, RankHealth& health,
                               const std::string& error) {
  const std::vector<int> missing = health.ranks_not_joined();
  std::string who;
  for (int r : missing) who += (who.empty() ? "" : ", ") + std::to_string(r);
  if (missing.empty())
    return "rendezvous of " + std::to_string(spec.world_size) + " ranks at " + spec.store_address +
           " failed: " + error;
  return "rendezvous at " + spec.store_address + " timed out after " +
         std::to_string(spec.timeout.count() / 1000) + " s: rank" +
         (missing.size() > 1 ? "s " : " ") + who + " of " + std::to_string(spec.world_size) +
         " never joined";
}

}  // namespace

RankConnection connect_ranks(ConnectSpec spec) {
  if (!spec.ledger) spec.ledger = std::make_shared<CollectiveLedger>(kLedgerEntries);
  auto health =
      std::make_shared<RankHealth>(spec.store, spec.beat_store, spec.rank, spec.world_size,
                                   ProgressWatch{spec.ledger, spec.stall_timeout});
  health->mark_joined();
  try {
    auto communicator = spec.backend == "nccl" ? make_nccl_communicator(spec, health)
                                               : make_gloo_communicator(spec, health);
    return {communicator, health, spec.waits, spec.ledger};
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw RunError(rendezvous_failure(spec, *health, one_line(e)));
  }
}

std::optional<std::string> backend_unavailable(const std::string& backend, int local_ranks) {
  if (backend == "gloo")
    return gloo_built() ? std::nullopt
                        : std::optional<std::string>(
                              "backend gloo: this build found no Gloo headers (pip's LibTorch "
                              "ships none); rebuild with gloo's headers on the include path");
  if (!nccl_built())
    return std::string("backend nccl needs LibTorch built with CUDA; this one is CPU-only");
  const int gpus = static_cast<int>(torch::cuda::device_count());
  if (gpus >= local_ranks) return std::nullopt;
  return "backend nccl needs one GPU per rank: " + std::to_string(local_ranks) +
         " ranks on this machine, " + std::to_string(gpus) + " GPU" + (gpus == 1 ? "" : "s");
}

}  // namespace runner::distributed
