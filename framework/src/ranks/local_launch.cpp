// The launcher's side of a local launch (store, rank processes, the rank at fault) and one
// launched rank's side.
#include "ranks/local_launch.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <optional>

#include "checkpoint/folders.hpp"
#include "checkpoint/resume_choice.hpp"

#include "common/one_line.hpp"
#include "distributed/connect.hpp"
#include "distributed/rank_health.hpp"
#include "interrupt/interrupt.hpp"
#include "measure/system.hpp"
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
  // A rank died, stopped or failed at run time: another start may get through. A configuration,
  // plugin or data error, or an interrupt, would end the same way again.
  bool restartable() const { return exit_code == static_cast<int>(ErrorClass::runtime); }
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
    if (exit.stopped_by != 0)
      return Failure{
          fmt::format("rank {} stopped answering (stopped by signal {}{}): timeout "
                      "after {} s",
                      exit.rank, exit.stopped_by, exit.stopped_by == SIGSTOP ? ", SIGSTOP" : "",
                      timeout.count() / 1000)};
  return std::nullopt;
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
    const auto own = distributed::reported_failure(run_store, exit.rank);
    const std::string why = own ? "failed: " + *own : describe_exit(exit);
    const bool known_class = exit.exit_code >= 2 && exit.exit_code <= 5;
    return {fmt::format("rank {} {}", exit.rank, why),
            known_class ? exit.exit_code : static_cast<int>(ErrorClass::runtime),
            own ? distributed::reported_hint(run_store, exit.rank).value_or("") : ""};
  }
  const auto peer = distributed::reported_peer_failure(run_store, first_failed->rank);
  return {fmt::format("rank {} {}", first_failed->rank,
                      peer ? "failed: " + *peer : describe_exit(*first_failed))};
}

record::RunOutcome record_failure(const LaunchContext& c, const config::RunConfig& run,
                                  const std::string& group, const Failure& f) {
  results::ResultsFile::open(c.recording.results_path)
      ->resume_run(group)
      ->set_status(results::Status::failed, f.message);
  record::end_tensorboard_run(c.recording.experiment, run, group, results::Status::failed);
  record::print_error(c.recording.errors, "", f.message, f.hint);
  return {record::RunOutcome::Kind::failed, f.exit_code, group};
}

// Serves the run's store, starts its ranks and waits for them: nullopt when every rank
// succeeded, else why not.
std::optional<Failure> run_attempt(const LaunchContext& c, const RankSetup& setup, size_t index,
                                   const std::string& group, const Attempt& attempt) {
  int port = 0;
  auto store = distributed::serve_store({kLoopback, requested_port()}, setup.timeout, port, true);
  c.recording.console.line(fmt::format("  {} ranks on this machine, {} over {}:{}",
                                       setup.world_size, setup.backend, kLoopback, port));
  const LaunchResult result = launch_ranks(spec_of(c, setup, index, group, port, attempt),
                                           [] { return interrupt_signal() != 0; });
  if (result.succeeded()) return std::nullopt;
  if (interrupt_signal())
    return Failure{"interrupted by signal " + std::to_string(interrupt_signal()),
                   128 + interrupt_signal()};
  return failure_of(result, *distributed::run_scope(store, "run"), setup.timeout);
}

// When the newest complete checkpoint's manifest was committed; the epoch without one.
std::chrono::system_clock::time_point committed_at(const std::string& checkpoint) {
  struct stat manifest {};
  const std::string path = checkpoint + "/" + checkpoint::kManifestFile;
  if (checkpoint.empty() || ::stat(path.c_str(), &manifest) != 0) return {};
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::seconds(manifest.st_mtim.tv_sec) +
          std::chrono::nanoseconds(manifest.st_mtim.tv_nsec)));
}

// The next attempt after `failed` failed: from the run's newest complete checkpoint (or the
// start), recorded in the run's group, whose series are cut back to what it holds.
Attempt restart_after(const LaunchContext& c, const config::RunConfig& run,
                      const std::string& group, const Failure& failure, const Attempt& failed) {
  const auto settings = checkpoint::checkpoint_settings(run, c.recording.results_path);
  const checkpoint::ResumeChoice point =
      checkpoint::restart_point(run, settings, c.recording.errors);
  const auto failed_at = std::chrono::system_clock::now();
  const auto progress_kept = std::max(failed.began, committed_at(point.checkpoint));
  results::RestartRecord restart;
  restart.attempt = failed.number + 1;
  restart.cause = failure.message;
  restart.resumed_from = point.checkpoint;
  restart.resumed_step = point.global_step;
  restart.time_lost_s = std::chrono::duration<double>(failed_at - progress_kept).count();
  restart.failed_at = measure::utc_now();
  auto writer = results::ResultsFile::open(c.recording.results_path)->resume_run(group);
  writer->record_restart(restart);
  writer->resume_from(point.checkpoint, static_cast<size_t>(point.epochs),
                      static_cast<size_t>(point.steps));
  c.recording.console.line("  " + failure.message);
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
  const ThisRank self{env.rank, env.local_rank, {env.master_addr, env.master_port},
                      true,     "run",          env.attempt};
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
