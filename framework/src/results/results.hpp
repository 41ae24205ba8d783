// The results file (HDF5): one per experiment, one group per run, flushed at every epoch so
// that a run killed at any moment leaves every finished epoch readable.
// Schema: docs/results-schema.md, the contract with users' notebooks: a change to it needs a
// new kFormatVersion.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "results/status.hpp"

namespace runner::results {

inline constexpr const char* kFormatName = "runner-results";
// Version 2 stores sweep values with their TOML types (version 1: as text) and a summary's
// scalar peak memory. runner reads both, and appends runs to files of its own version only.
inline constexpr int kFormatVersion = 2;
inline constexpr int kOldestReadableVersion = 1;

// A swept key's value with its TOML type; a list or a swept section as its text.
using SweepValue = std::variant<bool, int64_t, double, std::string>;

struct RunHeader {
  std::string run_id;
  std::string label;
  std::string experiment;
  std::string config_toml;
  std::vector<std::pair<std::string, SweepValue>> sweep_point;  // dotted key -> value
  std::map<std::string, std::string> environment;  // runner/torch version, blas, device, ...
  std::string started_at;                          // ISO 8601, UTC
};

// Accuracies are fractions in [0, 1]; times in seconds; memory in bytes.
struct EpochRecord {
  int64_t epoch = 0;  // 1-based
  double train_loss = 0, train_accuracy = 0;
  double test_loss = 0, test_accuracy = 0;
  double duration_s = 0, data_wait_s = 0, compute_s = 0;
  double samples_per_s = 0;
  double peak_memory_bytes = 0;
  double learning_rate = 0;
  // The training steps' phases, as the strategy reports them (0 when it does not), and the
  // largest memory a forward pass left held for its backward. Files of runner 0.1.0 have
  // none of these: they read as 0.
  double forward_s = 0, backward_s = 0, optimizer_s = 0;
  double activation_memory_bytes = 0;
  // fp16's loss scaling: steps skipped for overflowing gradients, and the scale at the end
  // of the epoch (0 without loss scaling). Files before runner 0.2.0 have neither.
  double skipped_steps = 0, loss_scale = 0;
  // The share of the training pass the ranks spent waiting for another rank's data inside a
  // step (a pipeline's idle stages), the mean over the ranks; 0 when the strategy does not
  // say. Absent in files before runner 0.3.0.
  double bubble_fraction = 0;
  // The time the ranks waited for their collectives to finish, the mean over the ranks: 0 on
  // one rank; NaN in files older than this column and in NCCL runs from before their waits
  // were timed.
  double communication_s = std::numeric_limits<double>::quiet_NaN();
  // The same waits' spread over the ranks: the most and the least one rank waited, and the rank
  // that waited least (the one the others waited for: a straggler). NaN on one rank, where not
  // measured, and in files older than these columns.
  double communication_max_s = std::numeric_limits<double>::quiet_NaN();
  double communication_min_s = std::numeric_limits<double>::quiet_NaN();
  double slowest_rank = std::numeric_limits<double>::quiet_NaN();
  // The GPU as NVML saw it over the epoch: the mean share of time a kernel ran on the ranks'
  // devices, and the most device memory in use on any of them (every process's). NaN when
  // not measured: a CPU run, no NVML, or a file older than these columns.
  double gpu_utilization = std::numeric_limits<double>::quiet_NaN();
  double gpu_memory_used_bytes = std::numeric_limits<double>::quiet_NaN();
};

struct StepRecord {
  int64_t step = 0;  // 1-based, over the whole run
  double loss = 0;
  double learning_rate = 0;
  double duration_s = 0;
};

struct Summary {
  std::string task = "classification";  // or "language_modeling": accuracy is then per token
  double total_time_s = 0;
  int64_t epochs_completed = 0;
  double final_train_loss = 0;
  double final_test_loss = 0;
  double final_test_accuracy = 0;
  std::vector<std::string> class_names;
  std::vector<double> per_class_accuracy;
  std::vector<double> peak_memory_per_rank_bytes;  // the process's (RSS on the CPU)
  // The run plan's peak of each rank, and each rank's measured tensor peak (the counting
  // allocator's on the CPU, beyond what the rank held before building its model; the caching
  // allocator's on CUDA): side by side. Empty in files before runner 0.2.0.
  std::vector<double> estimated_memory_per_rank_bytes;
  std::vector<double> tensor_peak_per_rank_bytes;
  // Tensor bytes each rank still held after its last training step (the same counters): the
  // model state, what the strategy keeps between steps. Empty in files before runner 0.3.0.
  std::vector<double> state_memory_per_rank_bytes;
  int64_t parameters = 0;
  double flops_per_sample = 0;
  double tflops = 0;
  double mfu = 0;  // 0 when the device's peak is unknown (a CPU without train.peak_tflops)
};

// A restart of a run's ranks after a failure (train.max_restarts): what failed and where the
// run went on from.
struct RestartRecord {
  int64_t attempt = 0;       // 1: the first restart
  std::string cause;         // the failure, as its first line said it
  std::string resumed_from;  // the checkpoint the ranks went on from; empty: the start
  int64_t resumed_step = 0;  // the training steps that checkpoint had done; 0: the start
  double time_lost_s = 0;    // the failed attempt's time since its newest checkpoint (or start)
  std::string failed_at;     // ISO 8601, UTC
};

// Where the ranks of a failed attempt were (a hang report): the line that names the fault, then a
// line per rank.
struct HangReportRecord {
  int64_t attempt = 0;  // 0: the first start of the ranks
  std::string first_line;
  std::vector<std::string> ranks;
};

// Writes one run. Every call leaves the file flushed and readable.
class RunWriter {
 public:
  virtual ~RunWriter() = default;
  virtual const std::string& group_name() const = 0;
  virtual void append_epoch(const EpochRecord& epoch) = 0;
  virtual void append_steps(const std::vector<StepRecord>& steps) = 0;
  virtual void write_summary(const Summary& summary) = 0;
  virtual void set_status(Status status, const std::string& error = {}) = 0;
  // The folder of the run's checkpoints.
  virtual void record_checkpoints(const std::string& folder) { (void)folder; }
  // The run goes on from `checkpoint`, which had recorded its first `epochs` epochs and
  // `steps` steps: longer series are cut to those, and the status is running again.
  virtual void resume_from(const std::string& checkpoint, size_t epochs, size_t steps) {
    (void)checkpoint, (void)epochs, (void)steps;
  }
  // A restart after a failure, kept beside the earlier ones.
  virtual void record_restart(const RestartRecord& restart) { (void)restart; }
  // The hang report of a failed attempt.
  virtual void record_hang_report(const HangReportRecord& report) { (void)report; }
};

// Opens (creating it and its folder when missing) the results file for appending runs.
// Throws DataError when the file exists but is not a runner results file of this version.
class ResultsFile {
 public:
  virtual ~ResultsFile() = default;
  // A new group named after the run id ("<id>", or "<id>.2", ... when the id is taken;
  // a '/' in the id becomes '_'), with status "running".
  virtual std::unique_ptr<RunWriter> begin_run(const RunHeader& header) = 0;
  // The writer of a run group begun earlier (by another process: the launcher of the run's
  // ranks). Throws DataError when there is no such run.
  virtual std::unique_ptr<RunWriter> resume_run(const std::string& group_name) = 0;
  static std::unique_ptr<ResultsFile> open(const std::string& path);
};

struct RunRecord {
  std::string group;
  RunHeader header;
  Status status = Status::running;
  std::string error;
  std::string finished_at;  // ISO 8601, UTC; empty until the run has its final status
  std::vector<EpochRecord> epochs;
  std::vector<StepRecord> steps;
  std::optional<Summary> summary;
  std::string checkpoints;   // the folder of its checkpoints; empty when it saves none
  std::string resumed_from;  // the checkpoint it last resumed from; empty when it never did
  std::vector<RestartRecord> restarts;         // after failures, in order
  std::vector<HangReportRecord> hang_reports;  // of its failed attempts, in order
  // What of this run could not be read, and why; empty when intact. Only a writer killed in
  // the middle of a write (not between two calls) can leave a run damaged.
  std::string damage;
  // Its status is running, but no process writes the file: its writer died without recording
  // an end (killed by SIGKILL, or the machine went down).
  bool abandoned = false;
};

}  // namespace runner::results
