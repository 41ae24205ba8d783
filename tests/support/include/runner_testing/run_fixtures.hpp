// What the tests of a run's stages share: the fixture plugins, experiments written inline, and a
// results writer that keeps records in memory.
#pragma once

#include <filesystem>
#include <sstream>

#include "config/experiment.hpp"
#include "plugin_host/registry.hpp"
#include "results/results.hpp"

namespace runner::testing {

inline plugin_host::Registry fixture_registry() {
  plugin_host::Registry registry;
  registry.load_directories(
      {std::string(RUNNER_BINARY_DIR) + "/tests/fixtures/good", std::string(RUNNER_PLUGIN_DIR)});
  return registry;
}

// A blobs/linear_probe experiment; `extra` is appended TOML (more keys, a sweep).
inline std::string blobs_experiment(const std::string& extra = "") {
  return "[experiment]\nname = \"blobs\"\nseed = 5\n"
         "[dataset]\nname = \"blobs\"\ntrain_size = 256\ntest_size = 128\n"
         "[model]\nname = \"linear_probe\"\n"
         "[optimizer]\nname = \"sgd\"\nlr = 0.1\n"
         "[train]\nepochs = 2\nbatch_size = 32\nthreads = 2\n" +
         extra;
}

class MemoryWriter : public results::RunWriter {
 public:
  const std::string& group_name() const override { return name_; }
  void append_epoch(const results::EpochRecord& e) override { epochs.push_back(e); }
  void append_steps(const std::vector<results::StepRecord>& s) override {
    steps.insert(steps.end(), s.begin(), s.end());
  }
  void write_summary(const results::Summary& s) override { summary = s; }
  void set_status(results::Status s, const std::string& e) override { status = s, error = e; }

  std::vector<results::EpochRecord> epochs;
  std::vector<results::StepRecord> steps;
  std::optional<results::Summary> summary;
  results::Status status = results::Status::running;
  std::string error;

 private:
  std::string name_ = "memory";
};

inline std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "runner_run_test";
  std::filesystem::create_directories(dir);
  auto path = dir / name;
  std::filesystem::remove_all(path);
  return path.string();
}

}  // namespace runner::testing
