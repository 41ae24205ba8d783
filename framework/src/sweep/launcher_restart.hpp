// A restart by torchrun (--max-restarts) or Slurm (requeue), kept in the run's group of
// restarts as the local launcher keeps its own.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "checkpoint/resume_choice.hpp"
#include "results/results.hpp"

namespace runner::sweep {

// What the run's earlier attempt left (`failed`, read before this one began) and where this
// attempt (`attempt` of the launcher's count) goes on from: the earlier attempt's error as the
// cause, its time since its newest checkpoint (or its start) as the training time lost. Whole
// seconds: the file keeps its times so.
results::RestartRecord launcher_restart(const results::RunRecord& failed, int attempt,
                                        const checkpoint::ResumeChoice& resume);

// "2026-12-06T18:30:05Z" as a time; nullopt for any other text.
std::optional<std::chrono::system_clock::time_point> parse_utc(const std::string& text);

}  // namespace runner::sweep
