// The results writer of ranks other than 0: the file has one writer, rank 0.
#pragma once

#include "results/results.hpp"

namespace runner::record {

class NullWriter final : public results::RunWriter {
 public:
  const std::string& group_name() const override { return name_; }
  void append_epoch(const results::EpochRecord&) override {}
  void append_steps(const std::vector<results::StepRecord>&) override {}
  void write_summary(const results::Summary&) override {}
  void set_status(results::Status, const std::string&) override {}

 private:
  std::string name_;
};

}  // namespace runner::record
