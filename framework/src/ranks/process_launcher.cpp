// A local launch's ranks run as child processes, watched until all have ended.
#include "ranks/process_launcher.hpp"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <optional>
#include <thread>

#include "ranks/oom_kills.hpp"
#include "ranks/rank_processes.hpp"
#include "runner/errors.hpp"

extern char** environ;

namespace runner::ranks {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds poll_interval{20};
constexpr std::chrono::seconds kill_delay{5};
// A user who interrupts waits for no timeout: a rank still busy a second later (in a
// collective whose peer already stopped) gets SIGTERM.
constexpr std::chrono::seconds kInterruptGrace{1};

const char* signal_name(int signal) {
  switch (signal) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGUSR1: return "SIGUSR1";
    case SIGSEGV: return "SIGSEGV";
    case SIGUSR2: return "SIGUSR2";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    default: return nullptr;
  }
}

std::map<std::string, std::string> launcher_environment() {
  std::map<std::string, std::string> variables;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string entry_text = *entry;
    std::size_t equals = entry_text.find('=');
    if (equals != std::string::npos)
      variables.emplace(entry_text.substr(0, equals), entry_text.substr(equals + 1));
  }
  return variables;
}

RankCommand rank_command(const LaunchSpec& spec, std::map<std::string, std::string> variables,
                         int rank) {
  for (const auto& [name, value] : spec.env) variables[name] = value;
  if (spec.rank_env)
    for (const auto& [name, value] : spec.rank_env(rank)) variables[name] = value;
  RankCommand command{spec.argv, {}};
  for (const auto& [name, value] : variables) command.env.push_back(name + "=" + value);
  return command;
}

void check_spec(const LaunchSpec& spec) {
  RUNNER_CHECK(!spec.argv.empty(), "a launch needs argv[0]");
  RUNNER_CHECK(spec.world_size >= 1, "world_size = " + std::to_string(spec.world_size));
  if (access(spec.argv[0].c_str(), X_OK) != 0)
    throw RunError("cannot run ranks of " + spec.argv[0] + ": " + std::strerror(errno));
}

// Stopping the ranks that are left once one failed or the user interrupted: `grace` for them to
// end on their own, then SIGTERM, then SIGKILL kill_delay later.
class Shutdown {
 public:
  explicit Shutdown(std::chrono::milliseconds grace) : grace_(grace) {}

  // Only the first call counts: a second failure does not extend the grace.
  void begin() { begin(grace_); }
  void begin(std::chrono::milliseconds grace) {
    if (term_at_ == kNotYet) term_at_ = Clock::now() + grace;
  }

  void escalate(RankProcesses& ranks) {
    if (term_at_ == kNotYet) return;
    ranks.kill_stopped();
    if (Clock::now() < term_at_) return;
    if (kill_at_ == kNotYet) {
      ranks.signal_all(SIGTERM);
      kill_at_ = Clock::now() + kill_delay;
    } else if (!kill_sent_ && Clock::now() >= kill_at_) {
      ranks.signal_all(SIGKILL);
      kill_sent_ = true;
    }
  }

  bool killed() const { return kill_sent_; }

 private:
  static constexpr Clock::time_point kNotYet = Clock::time_point::max();
  std::chrono::milliseconds grace_;
  Clock::time_point term_at_ = kNotYet;
  Clock::time_point kill_at_ = kNotYet;
  bool kill_sent_ = false;
};

// A SIGKILL the launcher did not send, while the kernel's out-of-memory killer ended processes
// since `before`: how many; 0 otherwise.
uint64_t oom_kills_of(const RankExit& exit, const Shutdown& shutdown,
                      std::optional<uint64_t> before) {
  if (exit.signal != SIGKILL || exit.stopped_by != 0 || shutdown.killed() || !before) return 0;
  const std::optional<uint64_t> now = oom_kill_count();
  return now && *now > *before ? *now - *before : 0;
}

}  // namespace

std::string describe_exit(const RankExit& exit) {
  if (exit.signal != 0) {
    const char* name = signal_name(exit.signal);
    std::string text = "was killed by signal " + std::to_string(exit.signal) +
                       (name ? std::string(" (") + name + ")" : "");
    if (exit.oom_kills > 0)
      text += " while the kernel's out-of-memory killer ended " + std::to_string(exit.oom_kills) +
              (exit.oom_kills == 1 ? " process" : " processes") + ": it ran out of memory";
    return text;
  }
  if (exit.exit_code < 0) return "ended with an unknown status";
  return "exited with code " + std::to_string(exit.exit_code);
}

bool LaunchResult::succeeded() const {
  for (const RankExit& exit : exits)
    if (!exit.succeeded()) return false;
  return true;
}

LaunchResult launch_ranks(const LaunchSpec& spec, const std::function<bool()>& interrupted,
                          const RankEndWatch& on_rank_end) {
  check_spec(spec);
  std::map<std::string, std::string> environment = launcher_environment();
  const std::optional<uint64_t> oom_kills_before = oom_kill_count();
  RankProcesses ranks;
  for (int rank = 0; rank < spec.world_size; ++rank)
    ranks.start(rank, rank_command(spec, environment, rank));

  LaunchResult result;
  Shutdown shutdown(spec.grace);
  bool interrupt_forwarded = false;
  while (!ranks.empty()) {
    for (RankExit& exit : ranks.reap_ended()) {
      exit.oom_kills = oom_kills_of(exit, shutdown, oom_kills_before);
      result.exits.push_back(exit);
      if (on_rank_end) on_rank_end(exit);
      if (!exit.succeeded()) shutdown.begin();
    }
    if (!interrupt_forwarded && interrupted && interrupted()) {
      ranks.signal_all(SIGINT);
      interrupt_forwarded = true;
      shutdown.begin(kInterruptGrace);
    }
    shutdown.escalate(ranks);
    if (!ranks.empty()) std::this_thread::sleep_for(poll_interval);
  }
  return result;
}

}  // namespace runner::ranks
