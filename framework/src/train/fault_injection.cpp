// [fault] read and checked, and injected on the rank and attempt it names.
#include "train/fault_injection.hpp"

#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <thread>

#include "interrupt/interrupt.hpp"
#include "runner/errors.hpp"

namespace runner::train {
namespace {

FaultSettings::Kind kind_of(const std::string& name) {
  if (name == "kill") return FaultSettings::Kind::kill;
  if (name == "stop") return FaultSettings::Kind::stop;
  if (name == "slow") return FaultSettings::Kind::slow;
  if (name == "fail_collective") return FaultSettings::Kind::fail_collective;
  if (name == "extra_collective") return FaultSettings::Kind::extra_collective;
  return FaultSettings::Kind::none;
}

// The name of a fault that strikes in a collective.
const char* collective_fault_name(FaultSettings::Kind kind) {
  return kind == FaultSettings::Kind::extra_collective ? "extra_collective" : "fail_collective";
}

// A stall a signal still ends: the rank stops at the next step's start as it would anyway.
void stall_for(double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until && !interrupt_signal())
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

}  // namespace

FaultSettings fault_settings_of(const Options& keys) {
  FaultSettings f;
  if (!keys.has("kind")) return f;
  f.kind = kind_of(keys.get_string("kind"));
  f.rank = keys.get_int("rank");
  f.step = keys.get_int("step");
  f.seconds = keys.get_double("seconds");
  f.factor = keys.get_double("factor");
  f.attempt = keys.get_int("attempt");
  f.in_checkpoint = keys.get_string("in") == "checkpoint";
  return f;
}

void check_fault(const FaultSettings& fault, int world_size, int64_t steps,
                 int64_t checkpoint_every_steps) {
  if (fault.kind == FaultSettings::Kind::none) return;
  if (fault.in_checkpoint && fault.kind != FaultSettings::Kind::kill)
    throw ConfigError("fault.in = \"checkpoint\": only fault.kind = \"kill\" strikes there",
                      "set fault.kind = \"kill\", or fault.in = \"step\"");
  if (fault.in_checkpoint &&
      (checkpoint_every_steps <= 0 || fault.step % checkpoint_every_steps != 0))
    throw ConfigError(fmt::format("fault.in = \"checkpoint\": the run saves no checkpoint after "
                                  "step {} (checkpoint.every_steps = {})",
                                  fault.step, checkpoint_every_steps),
                      "name a step checkpoint.every_steps divides");
  if (fault.rank >= world_size)
    throw ConfigError(fmt::format("fault.rank = {}: the run has {} rank{} (0 to {})", fault.rank,
                                  world_size, world_size == 1 ? "" : "s", world_size - 1),
                      "name one of the run's ranks");
  if (fault.step > steps)
    throw ConfigError(
        fmt::format("fault.step = {}: the run has {} training steps", fault.step, steps),
        "name a step from 1 to the run's last");
  const bool in_a_collective = fault.kind == FaultSettings::Kind::fail_collective ||
                               fault.kind == FaultSettings::Kind::extra_collective;
  if (in_a_collective && world_size == 1)
    throw ConfigError(fmt::format("fault.kind = \"{}\": a run of one rank makes no collectives",
                                  collective_fault_name(fault.kind)),
                      "inject it into a run of several ranks (--nproc 2)");
}

FaultInjector::FaultInjector(const FaultSettings& fault, int rank, int attempt,
                             std::shared_ptr<distributed::CollectiveLedger> ledger)
    : fault_(fault),
      strikes_here_(fault.kind != FaultSettings::Kind::none && fault.rank == rank &&
                    fault.attempt == attempt),
      ledger_(std::move(ledger)) {}

void FaultInjector::step_starts(int64_t step) const {
  if (!strikes_here_ || step != fault_.step) return;
  switch (fault_.kind) {
    case FaultSettings::Kind::kill:
      if (!fault_.in_checkpoint) std::raise(SIGKILL);
      break;
    case FaultSettings::Kind::stop: stall_for(fault_.seconds); break;
    case FaultSettings::Kind::fail_collective:
      ledger_->fail_next(
          fmt::format("fault injected: fault.kind = \"fail_collective\" at step {}", step));
      break;
    case FaultSettings::Kind::extra_collective:
      ledger_->call_extra_next(
          fmt::format("fault injected: fault.kind = \"extra_collective\" at step {}", step));
      break;
    case FaultSettings::Kind::slow:
    case FaultSettings::Kind::none: break;
  }
}

void FaultInjector::checkpoint_written(int64_t step) const {
  if (strikes_here_ && fault_.in_checkpoint && step == fault_.step) std::raise(SIGKILL);
}

void FaultInjector::step_computed(int64_t step, double seconds) const {
  if (!strikes_here_ || fault_.kind != FaultSettings::Kind::slow || step < fault_.step) return;
  stall_for(seconds * (fault_.factor - 1));
}

}  // namespace runner::train
