// The launcher's side of a local launch (store, rank processes, the rank at fault) and one
// launched rank's side.
#include "ranks/local_launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <optional>

#include "checkpoint/folders.hpp"
#include "checkpoint/resume_choice.hpp"

#include "common/one_line.hpp"
#include "common/utc_now.hpp"
#include "distributed/connect.hpp"
#include "distributed/hang_report.hpp"
#include "distributed/rank_health.hpp"
#include "interrupt/interrupt.hpp"
#include "ranks/environment_reader.hpp"
#include "ranks/process_launcher.hpp"
#include "ranks/rank_run.hpp"
#include "record/null_writer.hpp"
#include "record/tensorboard_events.hpp"
#include "results/results.hpp"

namespace runner::ranks {
namespace {

constexpr const char* kLoopback = "127.0.0.1";

// One start of a run's ranks: the first (0), or a restart after a failure.
struct Attempt {
  int number = 0;
  std::string resume_from;  // the checkpoint the ranks load; empty: the start
  std::chrono::system_clock::time_point began = std::chrono::system_clock::now();
};

struct Failure {
  std::string message;
  int exit_code = static_cast<int>(ErrorClass::runtime);
  std::string hint;
  int rank = -1;                    // the rank at fault, when one is
  std::string fate;                 // how its process ended, when that was the fault
  bool own_error = false;           // it raised an error of its own, which says more than a report
  std::vector<std::string> report;  // where each rank was (the hang report), a line each
  // A rank died, stopped or failed at run time: another start may get through. A configuration,
  // plugin or data error, or an interrupt, would end the same way again.
  bool restartable() const { return exit_code == static_cast<int>(ErrorClass::runtime); }
};

// The ranks' states as they were when the run failed: all of them as the first rank fails, then
// again each rank that fails within a moment of it (it published where it failed). A rank that
// went on later (a stall that the launcher's signal ended) is not read again: what it did after
// the failure is not the fault.
class FailureStates {
 public:
  FailureStates(c10d::Store& store, int world_size) : store_(store), states_(world_size) {}

  void rank_ended(const RankExit& exit) {
    if (exit.succeeded()) return;
    const auto now = std::chrono::steady_clock::now();
    if (!first_failure_) {
      first_failure_ = now;
      for (size_t r = 0; r < states_.size(); ++r)
        states_[r] = distributed::published_state(store_, static_cast<int>(r));
    } else if (now - *first_failure_ < kMoment && exit.rank < static_cast<int>(states_.size())) {
      states_[static_cast<size_t>(exit.rank)] = distributed::published_state(store_, exit.rank);
    }
  }
  const std::optional<distributed::RankState>& state(int rank) const {
    return states_.at(static_cast<size_t>(rank));
  }

 private:
  static constexpr std::chrono::seconds kMoment{2};
  c10d::Store& store_;
  std::vector<std::optional<distributed::RankState>> states_;
  std::optional<std::chrono::steady_clock::time_point> first_failure_;
};

// MASTER_PORT when the user set it, else 0: a free port.
int requested_port() {
  const char* text = std::getenv("MASTER_PORT");
  if (!text || !*text) return 0;
  auto port = parse_int(text);
  if (!port || *port < 1 || *port > 65535)
    throw ConfigError(fmt::format("MASTER_PORT = \"{}\" is not a port (1 to 65535)", text));
  return *port;
}

LaunchSpec spec_of(const LaunchContext& c, const RankSetup& setup, size_t index,
                   const std::string& group, int port, const Attempt& attempt) {
  LaunchSpec spec;
  spec.argv = c.rank_argv;
  spec.world_size = setup.world_size;
  spec.env = {{"MASTER_ADDR", kLoopback},
              {"MASTER_PORT", std::to_string(port)},
              {"WORLD_SIZE", std::to_string(setup.world_size)},
              {"LOCAL_WORLD_SIZE", std::to_string(setup.local_world_size)},
              {"RUNNER_RUN_INDEX", std::to_string(index)},
              {"RUNNER_RESULTS_GROUP", group},
              {"RUNNER_RESUME_FROM", attempt.resume_from},
              {"RUNNER_ATTEMPT", std::to_string(attempt.number)}};
  spec.rank_env = [](int rank) {
    return std::map<std::string, std::string>{{"RANK", std::to_string(rank)},
                                              {"LOCAL_RANK", std::to_string(rank)}};
  };
  // A surviving rank notices a dead one at its next collective, at most a timeout later.
  spec.grace = setup.timeout + std::chrono::seconds(10);
  return spec;
}

// A rank that a signal stopped answers nobody: the others give up at the timeout and the
// launcher kills it, but the stop came first.
std::optional<Failure> stopped_rank(const LaunchResult& result, std::chrono::milliseconds timeout) {
  for (const auto& exit : result.exits)
    if (exit.stopped_by != 0) {
      Failure f{
          fmt::format("rank {} stopped answering (stopped by signal {}{}): timeout "
                      "after {} s",
                      exit.rank, exit.stopped_by, exit.stopped_by == SIGSTOP ? ", SIGSTOP" : "",
                      timeout.count() / 1000)};
      f.rank = exit.rank;
      f.fate = fmt::format("was stopped by signal {}{}", exit.stopped_by,
                           exit.stopped_by == SIGSTOP ? " (SIGSTOP)" : "");
      return f;
    }
  return std::nullopt;
}

// After the first failure the launcher ends the ranks left with SIGTERM, then SIGKILL: such an
// end is not a fault of their own.
bool ended_by_the_launcher(const RankExit& exit) {
  return exit.signal == SIGTERM || exit.signal == SIGKILL || exit.exit_code == 128 + SIGTERM;
}

// What to do about a rank that ended without a report of its own.
std::string exit_hint(const RankExit& exit) {
  if (exit.oom_kills == 0) return "";
  return "give each rank less to hold (a smaller batch or model, fewer ranks on this machine) "
         "or more memory; dmesg shows the kernel's report";
}

// The rank at fault: the first to fail that did not fail because of another rank. Its own
// report says why; without one (a signal, an exit before it connected), its exit does.
Failure failure_of(const LaunchResult& result, c10d::Store& run_store,
                   std::chrono::milliseconds timeout) {
  if (auto stopped = stopped_rank(result, timeout)) return *stopped;
  const RankExit* first_failed = nullptr;
  for (const auto& exit : result.exits) {
    if (exit.succeeded()) continue;
    if (!first_failed) first_failed = &exit;
    if (distributed::reported_peer_failure(run_store, exit.rank)) continue;
    if (&exit != first_failed && ended_by_the_launcher(exit)) continue;
    const auto own = distributed::reported_failure(run_store, exit.rank);
    const std::string why = own ? "failed: " + *own : describe_exit(exit);
    const bool known_class = exit.exit_code >= 2 && exit.exit_code <= 5;
    Failure f{
        fmt::format("rank {} {}", exit.rank, why),
        known_class ? exit.exit_code : static_cast<int>(ErrorClass::runtime),
        own ? distributed::reported_hint(run_store, exit.rank).value_or("") : exit_hint(exit)};
    f.rank = exit.rank;
    f.fate = own ? "" : describe_exit(exit);
    f.own_error = own.has_value();
    return f;
  }
  const auto peer = distributed::reported_peer_failure(run_store, first_failed->rank);
  return {fmt::format("rank {} {}", first_failed->rank,
                      peer ? "failed: " + *peer : describe_exit(*first_failed))};
}

// Where each rank was, from the states they published. Its first line says more than a
// failure a signal, a stop, a stall or a timeout caused; an error a rank raised itself is kept.
void add_hang_report(Failure& f, const FailureStates& states, int world_size) {
  std::vector<distributed::RankSeen> ranks;
  bool culprit_stalled = false;
  for (int r = 0; r < world_size; ++r) {
    distributed::RankSeen seen{r, r == f.rank ? f.fate : "", states.state(r)};
    if (r == f.rank && seen.state && seen.state->stalled) culprit_stalled = true;
    ranks.push_back(std::move(seen));
  }
  const distributed::HangReport report = distributed::hang_report(ranks);
  if (!report.first_line.empty() && (!f.own_error || culprit_stalled))
    f.message = report.first_line;
  f.report = report.detail;
}

record::RunOutcome record_failure(const LaunchContext& c, const config::RunConfig& run,
                                  const std::string& group, const Failure& f) {
  results::ResultsFile::open(c.recording.results_path)
      ->resume_run(group)
      ->set_status(results::Status::failed, f.message);
  record::end_tensorboard_run(c.recording.experiment, run, group, results::Status::failed);
  record::print_error(c.recording.errors, "", f.message, f.hint);
  for (const std::string& line : f.report) c.recording.errors << "  " << line << '\n';
  return {record::RunOutcome::Kind::failed, f.exit_code, group};
}

// The report in the run's group, and on the console under the failure's first line.
void record_hang_report(const LaunchContext& c, const std::string& group, const Failure& f,
                        const Attempt& attempt) {
  results::HangReportRecord record{attempt.number, f.message, f.report};
  results::ResultsFile::open(c.recording.results_path)
      ->resume_run(group)
      ->record_hang_report(record);
}

// Serves the run's store, starts its ranks and waits for them: nullopt when every rank
// succeeded, else why not.
std::optional<Failure> run_attempt(const LaunchContext& c, const RankSetup& setup, size_t index,
                                   const std::string& group, const Attempt& attempt) {
  int port = 0;
  auto store = distributed::serve_store({kLoopback, requested_port()}, setup.timeout, port, true);
  c.recording.console.line(fmt::format("  {} ranks on this machine, {} over {}:{}",
                                       setup.world_size, setup.backend, kLoopback, port));
  const auto run_store = distributed::run_scope(store, "run");
  FailureStates states(*run_store, setup.world_size);
  const LaunchResult result = launch_ranks(
      spec_of(c, setup, index, group, port, attempt), [] { return interrupt_signal() != 0; },
      [&](const RankExit& exit) { states.rank_ended(exit); });
  if (result.succeeded()) return std::nullopt;
  if (interrupt_signal())
    return Failure{"interrupted by signal " + std::to_string(interrupt_signal()),
                   128 + interrupt_signal()};
  Failure failure = failure_of(result, *run_store, setup.timeout);
  if (failure.restartable()) add_hang_report(failure, states, setup.world_size);
  if (!failure.report.empty()) record_hang_report(c, group, failure, attempt);
  return failure;
}

// The next attempt after `failed` failed: from the run's newest complete checkpoint (or the
// start), recorded in the run's group, whose series are cut back to what it holds.
Attempt restart_after(const LaunchContext& c, const config::RunConfig& run,
                      const std::string& group, const Failure& failure, const Attempt& failed) {
  const auto settings = checkpoint::checkpoint_settings(run, c.recording.results_path);
  const checkpoint::ResumeChoice point =
      checkpoint::restart_point(run, settings, c.recording.errors);
  const auto failed_at = std::chrono::system_clock::now();
  const auto progress_kept = std::max(failed.began, checkpoint::committed_at(point.checkpoint));
  results::RestartRecord restart;
  restart.attempt = failed.number + 1;
  restart.cause = failure.message;
  restart.resumed_from = point.checkpoint;
  restart.resumed_step = point.global_step;
  restart.time_lost_s = std::chrono::duration<double>(failed_at - progress_kept).count();
  restart.failed_at = utc_now();
  auto writer = results::ResultsFile::open(c.recording.results_path)->resume_run(group);
  writer->record_restart(restart);
  writer->resume_from(point.checkpoint, static_cast<size_t>(point.epochs),
                      static_cast<size_t>(point.steps));
  c.recording.console.line("  " + failure.message);
  for (const std::string& line : failure.report) c.recording.console.line("    " + line);
  c.recording.console.line(fmt::format(
      "  restart {} of {} from {}; {:.1f} s of training lost", restart.attempt,
      run.train.max_restarts,
      point.checkpoint.empty() ? "the start (no checkpoint yet)"
                               : fmt::format("{} (step {})", point.checkpoint, point.global_step),
      restart.time_lost_s));
  return {failed.number + 1, point.checkpoint};
}

// The run's attempts: the first, then up to train.max_restarts more after failures that
// another start may get through.
record::RunOutcome launch_and_wait(const LaunchContext& c, const RankSetup& setup, size_t index,
                                   const std::string& group, const std::string& resume_from) {
  const config::RunConfig& run = c.recording.experiment.runs[index];
  Attempt attempt{0, resume_from};
  while (true) {
    std::optional<Failure> failure = run_attempt(c, setup, index, group, attempt);
    if (!failure) return {record::RunOutcome::Kind::completed, 0, group};
    if (!failure->restartable() || attempt.number >= run.train.max_restarts) {
      if (attempt.number > 0)
        failure->message +=
            fmt::format(" (after {} restart{})", attempt.number, attempt.number == 1 ? "" : "s");
      return record_failure(c, run, group, *failure);
    }
    attempt = restart_after(c, run, group, *failure, attempt);
  }
}

}  // namespace

record::RunOutcome launch_local_run(const LaunchContext& c, const config::RunConfig& run,
                                    const RankSetup& setup, size_t index,
                                    const record::RunStart& start) {
  std::string group;
  {
    auto writer =
        record::open_run(c.recording, run, setup.world_size, setup.local_world_size, start).writer;
    if (auto why = cannot_run_here(setup)) {
      writer->set_status(results::Status::skipped, *why);
      c.recording.console.line("  skipped: " + *why);
      return {record::RunOutcome::Kind::skipped, 0, writer->group_name()};
    }
    group = writer->group_name();
  }  // the file is closed: rank 0 writes the run
  // The run is recorded as running from here: a launch that fails (a bad MASTER_PORT, a port
  // in use, no process to fork) records it as failed with the reason.
  try {
    return launch_and_wait(c, setup, index, group, start.checkpoint);
  } catch (const Error& e) {
    return record_failure(c, run, group, {e.what(), e.exit_code(), e.hint()});
  } catch (const std::exception& e) {
    return record_failure(c, run, group, {one_line(e)});
  }
}

int run_launched_rank(const LaunchContext& c) {
  const RankEnvironment& env = c.environment;
  const config::Experiment& experiment = c.recording.experiment;
  if (env.run_index < 0 || env.run_index >= static_cast<int>(experiment.runs.size()))
    throw RunError(fmt::format("RUNNER_RUN_INDEX = {} names no run of {} ({} runs)", env.run_index,
                               experiment.file, experiment.runs.size()));
  const config::RunConfig& run = experiment.runs[static_cast<size_t>(env.run_index)];
  const RankSetup setup = rank_setup_of(run, env);
  const ThisRank self{env.rank,    env.local_rank, {env.master_addr, env.master_port}, true, "run",
                      env.attempt, env.node_addr};
  install_interrupt_handlers();
  std::unique_ptr<results::RunWriter> in_file = std::make_unique<record::NullWriter>();
  if (env.rank == 0)
    in_file = results::ResultsFile::open(c.recording.results_path)->resume_run(env.results_group);
  results::RunWriter* writer = in_file.get();
  const std::string prefix = fmt::format("rank {}: ", env.rank);
  const auto store = [&] {
    const InterruptibleWait connecting(
        prefix, [&](const std::string& e) { record::record_failed(*writer, e); });
    return distributed::connect_store(self.store, setup.timeout);
  }();
  std::unique_ptr<results::RunWriter> events;
  try {
    if (env.rank == 0) events = record::with_tensorboard(experiment, run, *writer);
    if (events) writer = events.get();
    checkpoint::CheckpointSettings checkpoints =
        checkpoint::checkpoint_settings(run, c.recording.results_path);
    checkpoints.resume_from = env.resume_from;
    checkpoints.resume_verified = true;  // by the launcher's setup
    results::Summary summary = train_as_rank(run, c.registry, c.recording.console, *writer, setup,
                                             self, store, checkpoints);
    c.recording.console.run_finished(summary);
    writer->set_status(results::Status::completed);
    return 0;
  } catch (const ConfigError& e) {
    // Every rank meets the same configuration error: the launcher says it once, with its hint,
    // from the store (a rank that could not report it says it itself).
    record::record_failed(*writer, e.what());
    if (!distributed::reported_failure(*distributed::run_scope(store, self.run_key), env.rank))
      record::print_error(c.recording.errors, prefix, e.what(), e.hint());
    return e.exit_code();
  } catch (const Error& e) {
    record::record_failed(*writer, e.what());
    record::print_error(c.recording.errors, prefix, e.what(), e.hint());
    return e.exit_code();
  } catch (const std::exception& e) {
    const std::string message = one_line(e);
    record::record_failed(*writer, message);
    record::print_error(c.recording.errors, prefix, message, "");
    return static_cast<int>(ErrorClass::runtime);
  }
}

}  // namespace runner::ranks
