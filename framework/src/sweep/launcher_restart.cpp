// The record of a restart that torchrun or Slurm made, from the run's earlier attempt.
#include "sweep/launcher_restart.hpp"

#include <algorithm>
#include <ctime>

#include "checkpoint/folders.hpp"
#include "common/utc_now.hpp"
#include "results/status.hpp"

namespace runner::sweep {
namespace {

using Clock = std::chrono::system_clock;

// Where the failed attempt began: the run's start, or the newest restart before it.
Clock::time_point attempt_began(const results::RunRecord& failed) {
  const std::string& began =
      failed.restarts.empty() ? failed.header.started_at : failed.restarts.back().failed_at;
  return parse_utc(began).value_or(Clock::time_point{});
}

}  // namespace

std::optional<Clock::time_point> parse_utc(const std::string& text) {
  std::tm parts{};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &parts);
  if (!end || *end != '\0') return std::nullopt;
  return Clock::from_time_t(timegm(&parts));
}

results::RestartRecord launcher_restart(const results::RunRecord& failed, int attempt,
                                        const checkpoint::ResumeChoice& resume) {
  results::RestartRecord restart;
  restart.attempt = attempt;
  restart.cause = failed.error.empty()
                      ? "the ranks were ended before rank 0 recorded an error (status " +
                            std::string(results::status_name(failed.status)) + ")"
                      : failed.error;
  restart.resumed_from = resume.checkpoint;
  restart.resumed_step = resume.global_step;
  // A run whose ranks were ended before rank 0 recorded its end failed, at the latest, now.
  restart.failed_at = failed.finished_at.empty() ? utc_now() : failed.finished_at;
  const Clock::time_point failed_at = parse_utc(restart.failed_at).value_or(Clock::now());
  const Clock::time_point kept =
      std::max(attempt_began(failed), checkpoint::committed_at(resume.checkpoint));
  restart.time_lost_s = std::max(0.0, std::chrono::duration<double>(failed_at - kept).count());
  return restart;
}

}  // namespace runner::sweep
