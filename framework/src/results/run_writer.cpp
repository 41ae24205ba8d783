// Hdf5RunWriter: each call reserves disk, writes its part of the run group, then flushes.
#include "results/run_writer.hpp"

#include <utility>

#include "common/utc_now.hpp"
#include "results/attributes.hpp"
#include "results/disk_reserve.hpp"
#include "results/file_format.hpp"
#include "results/groups.hpp"
#include "results/record_series.hpp"
#include "results/run_group.hpp"
#include "results/schema.hpp"
#include "results/summary_group.hpp"

namespace runner::results::detail {

Hdf5RunWriter::Hdf5RunWriter(std::string file_path, std::string group_name,
                             std::shared_ptr<const WriterLock> lock, Handle run_group)
    : file_path_(std::move(file_path)),
      group_name_(std::move(group_name)),
      lock_(std::move(lock)),
      run_group_(std::move(run_group)) {}

template <typename Write>
void Hdf5RunWriter::write_and_flush(uint64_t reserve, Write&& write) {
  if (first_failure_) std::rethrow_exception(first_failure_);
  silence_hdf5_error_printing();
  try {
    reserve_disk_space(file_path_, reserve);
    with_context(file_path_, [&] {
      write(run_group_.get());
      flush_file(run_group_.get());
    });
  } catch (const DataError&) {
    first_failure_ = std::current_exception();
    throw;
  }
}

void Hdf5RunWriter::append_epoch(const EpochRecord& epoch) {
  write_and_flush(bytes_for_records(1), [&](hid_t run) {
    Handle epochs = open_group(run, schema::kEpochs);
    append_records(epochs.get(), epoch_layout(), {epoch});
  });
}

void Hdf5RunWriter::append_steps(const std::vector<StepRecord>& steps) {
  write_and_flush(bytes_for_records(steps.size()), [&](hid_t run) {
    Handle group = open_group(run, schema::kSteps);
    append_records(group.get(), step_layout(), steps);
  });
}

void Hdf5RunWriter::write_summary(const Summary& summary) {
  RUNNER_CHECK(!has_member(run_group_.get(), schema::kSummary),
               "the summary of run " + group_name_ + " is written twice");
  write_and_flush(bytes_for_records(1), [&](hid_t run) { write_summary_group(run, summary); });
}

// The final status is worth one more try after a failed write: its attributes are small and
// may fit in the space the file already has.
void Hdf5RunWriter::set_status(Status status, const std::string& error) {
  const std::string finished_at = status == Status::running ? "" : utc_now();
  const std::exception_ptr earlier = std::exchange(first_failure_, nullptr);
  try {
    write_and_flush(kBytesForAttributes,
                    [&](hid_t run) { write_run_status(run, status, error, finished_at); });
  } catch (const DataError&) {
    if (!earlier) throw;
    first_failure_ = earlier;
    std::rethrow_exception(earlier);
  }
}

void Hdf5RunWriter::record_checkpoints(const std::string& folder) {
  write_and_flush(kBytesForAttributes,
                  [&](hid_t run) { write_string_attribute(run, schema::kCheckpoints, folder); });
}

void Hdf5RunWriter::resume_from(const std::string& checkpoint, size_t epochs, size_t steps) {
  write_and_flush(kBytesForAttributes, [&](hid_t run) {
    Handle epoch_group = open_group(run, schema::kEpochs);
    cut_records(epoch_group.get(), epoch_layout(), epochs);
    Handle step_group = open_group(run, schema::kSteps);
    cut_records(step_group.get(), step_layout(), steps);
    // A run killed between its summary and its final status wrote a summary the run that
    // goes on writes again.
    if (has_member(run, schema::kSummary))
      check(H5Ldelete(run, schema::kSummary, H5P_DEFAULT), "cannot remove the old summary");
    write_string_attribute(run, schema::kResumedFrom, checkpoint);
    write_run_status(run, Status::running, "", "");
  });
}

void Hdf5RunWriter::record_restart(const RestartRecord& restart) {
  write_and_flush(kBytesForAttributes, [&](hid_t run) { write_restart(run, restart); });
}

void Hdf5RunWriter::record_hang_report(const HangReportRecord& report) {
  write_and_flush(kBytesForAttributes, [&](hid_t run) { write_hang_report(run, report); });
}

}  // namespace runner::results::detail
