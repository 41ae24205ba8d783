// A [fault] injected into a run at a rank and step, through the path a real fault takes: the
// rank dies by SIGKILL, stalls, runs slow, its collective fails, or it calls one the others
// do not. The other ranks, the
// launcher and its restarts meet it as they would meet the real one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "distributed/collective_ledger.hpp"
#include "runner/options.hpp"

namespace runner::train {

struct FaultSettings {
  enum class Kind { none, kill, stop, slow, fail_collective, extra_collective } kind = Kind::none;
  int64_t rank = 0;
  int64_t step = 1;  // from 1, over the run's epochs
  double seconds = 0;
  double factor = 1;
  int64_t attempt = 0;         // 0: the first start of the ranks
  bool in_checkpoint = false;  // kill: while the checkpoint after `step` is written
};

// `keys`: a [fault] section validated against its schema.
FaultSettings fault_settings_of(const Options& keys);

// Throws ConfigError naming the key when the fault names a rank the run does not have, a step
// past its last (`steps`: every epoch's), a collective on a run of one rank, or a checkpoint
// the run does not save after its step (`checkpoint_every_steps`: checkpoint.every_steps).
void check_fault(const FaultSettings& fault, int world_size, int64_t steps,
                 int64_t checkpoint_every_steps);

// The fault as this rank meets it: nothing on the other ranks and attempts.
class FaultInjector {
 public:
  FaultInjector() = default;
  FaultInjector(const FaultSettings& fault, int rank, int attempt,
                std::shared_ptr<distributed::CollectiveLedger> ledger);

  // As training step `step` (from 1) starts, before its batch is loaded.
  void step_starts(int64_t step) const;
  // After step `step`'s computation, which took `seconds`: a straggler takes longer.
  void step_computed(int64_t step, double seconds) const;
  // While the checkpoint saved after step `step` is written, before its manifest commits it
  // (the writer's thread).
  void checkpoint_written(int64_t step) const;

 private:
  FaultSettings fault_;
  bool strikes_here_ = false;
  std::shared_ptr<distributed::CollectiveLedger> ledger_;
};

}  // namespace runner::train
