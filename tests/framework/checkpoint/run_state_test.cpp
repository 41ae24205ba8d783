// A checkpoint's engine fields and progress checked before a resume trusts them: a field
// missing, mistyped or at odds with the progress, a rank without its entries, and a checkpoint
// standing past the run are each named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <iterator>

#include "checkpoint/run_state.hpp"
#include "checkpoint_test_support.hpp"
#include "runner/errors.hpp"
#include "runner_testing/error_message.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

using nlohmann::json;

// A checkpoint of 2 ranks 3 steps into epoch 2 (global step 13, 10 recorded before the epoch),
// its engine as a run writes it; `edit` changes its manifest. Rank 1 has its pass's metrics
// unless `rank_1_metrics` is false.
std::string checkpoint_with(const std::string& name, const std::function<void(json&)>& edit,
                            bool rank_1_metrics = true) {
  std::vector<std::vector<StatePiece>> shards(2);
  for (int rank = 0; rank < 2; ++rank)
    for (const char* entry : {"rng_cpu", "pass_metrics"})
      if (rank == 0 || rank_1_metrics || std::string(entry) == "rng_cpu")
        shards[rank].push_back(
            {checkpoint::rank_entry(rank, entry), {2}, -1, 0, torch::zeros({2}), true});
  const std::string folder = write_checkpoint(fresh_folder(name), 13, shards);
  const std::string path = folder + "/" + checkpoint::kManifestFile;
  std::ifstream in(path);
  json manifest = json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
  manifest["progress"] = {{"global_step", 13}, {"epoch", 2}, {"step_in_epoch", 3}};
  const json steps = {{11, 0.5, 0.1, 0.01}, {12, 0.4, 0.1, 0.01}, {13, 0.3, 0.1, 0.01}};
  manifest["engine"] = {{"epochs_recorded", 1},
                        {"steps_recorded", 10},
                        {"elapsed_s", 1.5},
                        {"train_compute_s", 1.0},
                        {"train_samples", 640},
                        {"last_epoch", nullptr},
                        {"per_class", json::array()},
                        {"peak_memory_per_rank", {1.0, 2.0}},
                        {"tensor_peak_per_rank", {1.0, 2.0}},
                        {"state_memory_per_rank", {1.0, 2.0}},
                        {"pass", {{"steps", steps}}},
                        {"config", "[train]\nepochs = 2\n"}};
  edit(manifest);
  std::ofstream(path) << manifest.dump(2);
  return folder;
}

std::string engine_error(const std::string& name, const std::function<void(json&)>& edit,
                         bool rank_1_metrics = true) {
  const checkpoint::CheckpointReader reader(checkpoint_with(name, edit, rank_1_metrics));
  return message_of<DataError>([&] { checkpoint::check_engine_state(reader); });
}

TEST(RunState, AStateAsARunWritesItPasses) {
  const checkpoint::CheckpointReader reader(checkpoint_with("consistent", [](json&) {}));
  EXPECT_NO_THROW(checkpoint::check_engine_state(reader));
  EXPECT_NO_THROW(checkpoint::check_progress_fits(reader.manifest(), reader.folder(), 2, 10));
}

TEST(RunState, AFieldMissingOrOfAnotherTypeIsNamed) {
  EXPECT_THAT(engine_error("missing", [](json& m) { m["engine"].erase("train_samples"); }),
              HasSubstr("engine.train_samples is missing or of another type"));
  EXPECT_THAT(engine_error("mistyped", [](json& m) { m["engine"]["pass"] = 7; }),
              HasSubstr("engine.pass is missing or of another type"));
}

TEST(RunState, TheRecordedEpochsAndStepsMustLeadToTheProgress) {
  std::string message =
      engine_error("epochs", [](json& m) { m["engine"]["epochs_recorded"] = 13; });
  EXPECT_THAT(message, HasSubstr("engine.epochs_recorded = 13 before epoch 2")) << message;
  message = engine_error(
      "steps", [](json& m) { m["progress"]["global_step"] = int64_t{4611686018427387904}; });
  EXPECT_THAT(message,
              HasSubstr("engine.steps_recorded = 10 and 3 steps in its pass do not make global "
                        "step 4611686018427387904"))
      << message;
  message = engine_error("no_pass", [](json& m) { m["engine"]["pass"] = nullptr; });
  EXPECT_THAT(message, HasSubstr("step 3 of its epoch without the epoch's pass so far")) << message;
}

TEST(RunState, ARankWithoutItsEntriesIsNamed) {
  const std::string message = engine_error(
      "rank_1", [](json&) {}, false);
  EXPECT_THAT(message, HasSubstr("its shards hold no pass_metrics of rank 1 of its 2")) << message;
}

TEST(RunState, ACheckpointStandingPastTheRunIsRefused) {
  const checkpoint::CheckpointReader reader(checkpoint_with("past", [](json&) {}));
  const checkpoint::Manifest& m = reader.manifest();
  const auto fits_error = [&](int64_t epochs, std::optional<int64_t> steps) {
    return message_of<DataError>(
        [&] { checkpoint::check_progress_fits(m, reader.folder(), epochs, steps); });
  };
  EXPECT_THAT(fits_error(0, std::nullopt),
              HasSubstr("it stands at epoch 2, past this run's 0 epochs"));
  EXPECT_NO_THROW(checkpoint::check_progress_fits(m, reader.folder(), 1, std::nullopt));
  EXPECT_THAT(fits_error(2, 2), HasSubstr("it stands at step 3 of an epoch of 2 steps"));
  EXPECT_THAT(fits_error(2, 5), HasSubstr("global step 13, past this run's 2 epochs of 5 steps"));
}

}  // namespace
}  // namespace runner::testing
