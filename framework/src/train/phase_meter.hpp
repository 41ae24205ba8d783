// The step meter a strategy gets: the host's, which times each phase of a step, and the rank's
// ledger, which keeps the phase for a report of a failed or hung run.
#pragma once

#include <memory>
#include <utility>

#include "distributed/collective_ledger.hpp"
#include "measure/step_meter.hpp"
#include "runner/strategy.hpp"

namespace runner::train {

class PhaseMeter final : public StepMeter {
 public:
  PhaseMeter(std::shared_ptr<measure::HostStepMeter> timing,
             std::shared_ptr<distributed::CollectiveLedger> ledger)
      : timing_(std::move(timing)), ledger_(std::move(ledger)) {}

  void forward_begins() override {
    timing_->forward_begins();
    ledger_->enter(distributed::RunPhase::forward);
  }
  void forward_ends() override {
    timing_->forward_ends();
    ledger_->enter(distributed::RunPhase::backward);
  }
  void backward_ends() override {
    timing_->backward_ends();
    ledger_->enter(distributed::RunPhase::optimizer);
  }
  void step_ends() override { timing_->step_ends(); }
  void waited(double seconds) override { timing_->waited(seconds); }

 private:
  std::shared_ptr<measure::HostStepMeter> timing_;
  std::shared_ptr<distributed::CollectiveLedger> ledger_;
};

}  // namespace runner::train
