// The RunWriter of one run group: each call writes, then flushes the whole file.
#pragma once

#include <exception>
#include <memory>
#include <string>

#include "results/hdf5_handle.hpp"
#include "results/results.hpp"
#include "results/writer_lock.hpp"

namespace runner::results::detail {

class Hdf5RunWriter final : public RunWriter {
 public:
  // `run_group` already holds what write_new_run writes. The group keeps the file open after
  // its ResultsFile is gone, so the writer holds the file's `lock` too.
  Hdf5RunWriter(std::string file_path, std::string group_name,
                std::shared_ptr<const WriterLock> lock, Handle run_group);

  const std::string& group_name() const override { return group_name_; }
  void append_epoch(const EpochRecord& epoch) override;
  void append_steps(const std::vector<StepRecord>& steps) override;
  void write_summary(const Summary& summary) override;
  void set_status(Status status, const std::string& error) override;
  void record_checkpoints(const std::string& folder) override;
  void resume_from(const std::string& checkpoint, size_t epochs, size_t steps) override;
  void record_restart(const RestartRecord& restart) override;
  void record_hang_report(const HangReportRecord& report) override;

 private:
  // Runs `write` on the run group then flushes, naming the file in any DataError. After one
  // failed, HDF5's cache of the file is in doubt (a second flush reports "slist already
  // enabled?"): later writes throw the first failure again without touching the file.
  // `reserve`: the disk space it takes first (reserve_disk_space), in bytes.
  template <typename Write>
  void write_and_flush(uint64_t reserve, Write&& write);

  std::string file_path_;
  std::string group_name_;
  std::shared_ptr<const WriterLock> lock_;  // declared first: released after the group closes
  Handle run_group_;
  std::exception_ptr first_failure_;
};

}  // namespace runner::results::detail
