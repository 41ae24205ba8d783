// Shared by the results tests: a scratch folder and runs with recognisable values.
#pragma once

#include <filesystem>
#include <string>

#include "results/results.hpp"

namespace runner::results::testing {

// A fresh folder under the system's temporary folder, removed with everything in it.
class ScratchFolder {
 public:
  ScratchFolder();
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

RunHeader sample_header(const std::string& run_id);

// Every field differs and derives from `epoch`, so a wrong row or column shows.
EpochRecord sample_epoch(int64_t epoch);
StepRecord sample_step(int64_t step);
Summary sample_summary();

void expect_same_epoch(const EpochRecord& actual, const EpochRecord& expected);

}  // namespace runner::results::testing
