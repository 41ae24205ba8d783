// The hparams plugin's data: each swept key typed from all its values, its domain in sweep
// order, a session's values in that type, the final metrics, and the end status.
#include "tensorboard/hparams.hpp"

#include <gtest/gtest.h>

#include "tensorboard/proto/hparams.pb.h"

namespace runner::tensorboard {
namespace {

using results::SweepValue;

const std::vector<SweepPoint> kSweep = {
    {{"optimizer.lr", SweepValue(0.1)},
     {"optimizer.nesterov", SweepValue(true)},
     {"train.batch_size", SweepValue(int64_t{16})},
     {"mixed", SweepValue(int64_t{3})}},
    {{"optimizer.lr", SweepValue(0.01)},
     {"optimizer.nesterov", SweepValue(false)},
     {"train.batch_size", SweepValue(int64_t{32})},
     {"mixed", SweepValue(std::string("a"))}},
    {{"optimizer.lr", SweepValue(0.1)},
     {"optimizer.nesterov", SweepValue(true)},
     {"train.batch_size", SweepValue(int64_t{16})},
     {"mixed", SweepValue(std::string("a"))}},
};

proto::HParamsPluginData plugin_data(const proto::Event& event, const std::string& tag) {
  EXPECT_EQ(event.summary().value_size(), 1);
  const auto& value = event.summary().value(0);
  EXPECT_EQ(value.tag(), tag);
  EXPECT_EQ(value.metadata().plugin_data().plugin_name(), "hparams");
  proto::HParamsPluginData data;
  EXPECT_TRUE(data.ParseFromString(value.metadata().plugin_data().content()));
  EXPECT_EQ(data.version(), 0);
  return data;
}

TEST(HParamTypes, AreTheValuesTypeOrTextWhenTheyDiffer) {
  const HParamTypes types = hparam_types(kSweep);
  EXPECT_EQ(types.at("optimizer.lr"), HParamType::number);
  EXPECT_EQ(types.at("optimizer.nesterov"), HParamType::boolean);
  EXPECT_EQ(types.at("train.batch_size"), HParamType::number);
  EXPECT_EQ(types.at("mixed"), HParamType::text);
}

TEST(Experiment, ListsEachKeyWithItsValuesOnceAndTheFinalMetrics) {
  const auto data = plugin_data(experiment_event("sweep", kSweep, 5.0), "_hparams_/experiment");
  const auto& experiment = data.experiment();
  EXPECT_EQ(experiment.name(), "sweep");
  ASSERT_EQ(experiment.hparam_infos_size(), 4);
  // By key name.
  const auto& mixed = experiment.hparam_infos(0);
  EXPECT_EQ(mixed.name(), "mixed");
  EXPECT_EQ(mixed.type(), proto::DATA_TYPE_STRING);
  ASSERT_EQ(mixed.domain_discrete().values_size(), 2);
  EXPECT_EQ(mixed.domain_discrete().values(0).string_value(), "3");
  EXPECT_EQ(mixed.domain_discrete().values(1).string_value(), "a");
  const auto& lr = experiment.hparam_infos(1);
  EXPECT_EQ(lr.name(), "optimizer.lr");
  EXPECT_EQ(lr.type(), proto::DATA_TYPE_FLOAT64);
  ASSERT_EQ(lr.domain_discrete().values_size(), 2);
  EXPECT_EQ(lr.domain_discrete().values(0).number_value(), 0.1);
  EXPECT_EQ(lr.domain_discrete().values(1).number_value(), 0.01);
  const auto& nesterov = experiment.hparam_infos(2);
  EXPECT_EQ(nesterov.type(), proto::DATA_TYPE_BOOL);
  EXPECT_TRUE(nesterov.domain_discrete().values(0).bool_value());
  ASSERT_EQ(experiment.metric_infos_size(), static_cast<int>(final_scalars({}).size()));
  for (int i = 0; i < experiment.metric_infos_size(); ++i) {
    EXPECT_EQ(experiment.metric_infos(i).name().tag(), final_scalars({})[i].tag);
    EXPECT_EQ(experiment.metric_infos(i).name().group(), "");
  }
}

TEST(SessionStart, HoldsTheRunsValuesTypedAsTheSweepsAndItsGroup) {
  const auto data =
      plugin_data(session_start_event(kSweep[1], hparam_types(kSweep), "0123456789ab", 7.0),
                  "_hparams_/session_start_info");
  const auto& start = data.session_start_info();
  EXPECT_EQ(start.group_name(), "0123456789ab");
  EXPECT_EQ(start.start_time_secs(), 7.0);
  ASSERT_EQ(start.hparams_size(), 4);
  EXPECT_EQ(start.hparams().at("optimizer.lr").number_value(), 0.01);
  EXPECT_FALSE(start.hparams().at("optimizer.nesterov").bool_value());
  EXPECT_EQ(start.hparams().at("optimizer.nesterov").kind_case(),
            google::protobuf::Value::kBoolValue);
  EXPECT_EQ(start.hparams().at("train.batch_size").number_value(), 32.0);
  EXPECT_EQ(start.hparams().at("mixed").string_value(), "a");
}

TEST(SessionEnd, IsSuccessForACompletedRunFailureForAFailedOne) {
  const auto end = [](results::Status status) {
    return plugin_data(session_end_event(status, 12, 9.0), "_hparams_/session_end_info")
        .session_end_info()
        .status();
  };
  EXPECT_EQ(end(results::Status::completed), proto::STATUS_SUCCESS);
  EXPECT_EQ(end(results::Status::failed), proto::STATUS_FAILURE);
  EXPECT_EQ(end(results::Status::skipped), proto::STATUS_UNKNOWN);
  EXPECT_EQ(session_end_event(results::Status::completed, 12, 9.0).step(), 12);
}

TEST(FinalScalars, AreTheSummarysNumbersWithTheLargestRanksPeak) {
  results::Summary summary;
  summary.final_test_accuracy = 0.75;
  summary.final_test_loss = 0.5;
  summary.final_train_loss = 0.25;
  summary.total_time_s = 3;
  summary.peak_memory_per_rank_bytes = {100, 300, 200};
  summary.tflops = 0.125;
  std::map<std::string, double> values;
  for (const auto& scalar : final_scalars(summary)) values[scalar.tag] = scalar.value;
  EXPECT_EQ(values, (std::map<std::string, double>{{"final/test_accuracy", 0.75},
                                                   {"final/test_loss", 0.5},
                                                   {"final/train_loss", 0.25},
                                                   {"final/total_time_s", 3},
                                                   {"final/peak_memory_bytes", 300},
                                                   {"final/tflops", 0.125}}));
}

}  // namespace
}  // namespace runner::tensorboard
