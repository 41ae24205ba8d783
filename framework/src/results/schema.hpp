// Names in the results file, shared by the writer and the reader. They are the contract with
// users' notebooks (docs/results-schema.md): renaming one means a new kFormatVersion.
#pragma once

#include <cstddef>

namespace runner::results::schema {

// Root attributes.
inline constexpr const char* kFormat = "format";
inline constexpr const char* kFormatVersion = "format_version";

// Run group attributes and members.
inline constexpr const char* kRunId = "run_id";
inline constexpr const char* kLabel = "label";
inline constexpr const char* kExperiment = "experiment";
inline constexpr const char* kStatus = "status";
inline constexpr const char* kError = "error";
inline constexpr const char* kStartedAt = "started_at";
inline constexpr const char* kFinishedAt = "finished_at";
inline constexpr const char* kConfig = "config";  // scalar string dataset: TOML can be long
inline constexpr const char* kSweep = "sweep";
inline constexpr const char* kEnvironment = "environment";
inline constexpr const char* kEpochs = "epochs";
inline constexpr const char* kSteps = "steps";
inline constexpr const char* kSummary = "summary";
// Where the run saves its checkpoints, and the checkpoint it last resumed from; absent when
// it saves none / never resumed.
inline constexpr const char* kCheckpoints = "checkpoints";
inline constexpr const char* kResumedFrom = "resumed_from";
// A group of the run's restarts after failures, one group each named by its number ("1", ...):
// attempt, cause, resumed_from, resumed_step, time_lost_s, failed_at; absent when it never
// restarted.
inline constexpr const char* kRestarts = "restarts";
inline constexpr const char* kAttempt = "attempt";
inline constexpr const char* kRestartCause = "cause";
inline constexpr const char* kResumedStep = "resumed_step";
inline constexpr const char* kTimeLost = "time_lost_s";
inline constexpr const char* kFailedAt = "failed_at";
// A group of the hang reports of the run's failed attempts, one group each named by the
// attempt's number ("0": the first start): attempt, first_line, ranks (a line per rank); absent
// when no attempt failed with one.
inline constexpr const char* kHangReports = "hang_reports";
inline constexpr const char* kFirstLine = "first_line";
inline constexpr const char* kRankLines = "ranks";

// Summary datasets.
inline constexpr const char* kTask = "task";
inline constexpr const char* kClassNames = "class_names";
inline constexpr const char* kPerClassAccuracy = "per_class_accuracy";
inline constexpr const char* kPeakMemory = "peak_memory_bytes";  // the largest rank's
inline constexpr const char* kPeakMemoryPerRank = "peak_memory_per_rank_bytes";
inline constexpr const char* kEstimatedMemoryPerRank = "estimated_memory_per_rank_bytes";
inline constexpr const char* kTensorPeakPerRank = "tensor_peak_per_rank_bytes";
inline constexpr const char* kStateMemoryPerRank = "state_memory_per_rank_bytes";

// Elements stored together in a series: a few epochs per run, many steps.
inline constexpr size_t kEpochChunk = 64;
inline constexpr size_t kStepChunk = 1024;

}  // namespace runner::results::schema
