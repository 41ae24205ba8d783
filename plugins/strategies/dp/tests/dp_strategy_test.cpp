// The plugin's side of dp: its keys, the devices it picks, and the runs it refuses.
#include "dp_strategy.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "device_selection.hpp"
#include "tiny_classifier.hpp"

using ::testing::HasSubstr;

namespace runner::strategies::dp_tests {
namespace {

using testing::context_for;
using testing::relative_difference;
using testing::TinyClassifier;

int64_t cuda_devices() { return static_cast<int64_t>(torch::cuda::device_count()); }

Options devices_key(std::vector<int64_t> devices) {
  Options options("strategy");
  options.set("devices", std::move(devices));
  return options;
}

// The message of the ConfigError `f` throws; fails the test when it throws none.
template <typename F>
std::string config_error_of(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ConfigError";
  return {};
}

TEST(DpStrategy, TheDevicesKeyIsAListOfIndicesEveryDeviceByDefault) {
  Schema schema = dp_schema();
  const KeySpec* devices = schema.find("devices");
  ASSERT_NE(devices, nullptr);
  EXPECT_EQ(devices->type, KeyType::integer_list);
  ASSERT_TRUE(devices->default_value.has_value());
  EXPECT_TRUE(std::get<std::vector<int64_t>>(*devices->default_value).empty());
  EXPECT_EQ(devices->min, 0.0);
  EXPECT_EQ(schema.names().size(), 1u);
}

TEST(DpStrategy, ADeviceListedTwiceIsAConfigError) {
  std::string message = config_error_of([] { make_dp_strategy(devices_key({0, 1, 0})); });
  EXPECT_THAT(message, HasSubstr("strategy.devices = [0, 1, 0]")) << message;
  EXPECT_THAT(message, HasSubstr("device 0 appears twice")) << message;
}

TEST(DpStrategy, AnIndexOutOfRangeIsAConfigError) {
  std::string message = config_error_of([] { select_cuda_devices({0, 4}, 2, 0); });
  EXPECT_THAT(message, HasSubstr("strategy.devices = [0, 4]")) << message;
  EXPECT_THAT(message, HasSubstr("device 4 is out of range")) << message;
  EXPECT_THAT(message, HasSubstr("0 to 1")) << message;
  message = config_error_of([] { select_cuda_devices({0, -1}, 2, 0); });
  EXPECT_THAT(message, HasSubstr("device -1 is out of range")) << message;
}

TEST(DpStrategy, AListNotStartingWithTheTrainingDeviceIsAConfigError) {
  std::string message = config_error_of([] { select_cuda_devices({1, 0}, 2, 0); });
  EXPECT_THAT(message, HasSubstr("strategy.devices = [1, 0] must start with 0")) << message;
}

TEST(DpStrategy, AnEmptyListTakesEveryVisibleDeviceInOrder) {
  EXPECT_EQ(
      select_cuda_devices({}, 3, 0),
      (std::vector<torch::Device>{torch::Device(torch::kCUDA, 0), torch::Device(torch::kCUDA, 1),
                                  torch::Device(torch::kCUDA, 2)}));
  EXPECT_EQ(
      select_cuda_devices({0, 2}, 3, 0),
      (std::vector<torch::Device>{torch::Device(torch::kCUDA, 0), torch::Device(torch::kCUDA, 2)}));
}

// Whatever train.device says, a machine with fewer than 2 CUDA devices cannot run dp; the run
// is skipped before a replica or an optimizer exists.
void expect_skipped_before_building(torch::Device device) {
  int built = 0;
  bool optimizer_made = false;
  StrategyContext context = context_for(std::make_shared<TinyClassifier>(), device, &built);
  context.make_optimizer = [&](std::vector<torch::Tensor> params) {
    optimizer_made = true;
    return testing::make_sgd(std::move(params));
  };
  auto strategy = make_dp_strategy(devices_key({}));
  try {
    strategy->setup(context);
    FAIL() << "no RunSkipped";
  } catch (const RunSkipped& e) {
    const std::string expected = "strategy dp needs at least 2 CUDA devices; this machine has " +
                                 std::to_string(cuda_devices()) + " CUDA device";
    EXPECT_THAT(std::string(e.what()), HasSubstr(expected)) << e.what();
    EXPECT_FALSE(e.hint().empty());
  }
  EXPECT_EQ(built, 0);
  EXPECT_FALSE(optimizer_made);
}

TEST(DpStrategy, WithoutTwoCudaDevicesTheRunIsSkipped) {
  if (cuda_devices() >= 2)
    GTEST_SKIP() << "this machine has " << cuda_devices() << " CUDA devices: dp runs here";
  expect_skipped_before_building(torch::kCPU);
  expect_skipped_before_building(torch::Device(torch::kCUDA, 0));
}

TEST(DpStrategy, OnCudaDevicesTenStepsMatchOneDevice) {
  if (cuda_devices() < 2) GTEST_SKIP() << "needs 2 CUDA devices";
  const torch::Device cuda0(torch::kCUDA, 0);
  torch::manual_seed(3);
  auto master = std::make_shared<TinyClassifier>();
  auto reference = std::make_shared<TinyClassifier>();
  {
    torch::NoGradGuard no_grad;
    auto from = master->parameters(), to = reference->parameters();
    for (size_t k = 0; k < from.size(); ++k) to[k].copy_(from[k]);
  }
  master->to(cuda0);
  reference->to(cuda0);
  auto strategy = make_dp_strategy(devices_key({}));
  strategy->setup(context_for(master, cuda0));
  auto optimizer = testing::make_sgd(reference->parameters());
  for (int step = 0; step < 10; ++step) {
    Batch batch{torch::randn({9, 4}, cuda0), torch::randint(0, 3, {9}, torch::device(cuda0))};
    StepResult ours = strategy->train_step(batch);
    optimizer->zero_grad();
    torch::Tensor loss = reference->loss(reference->forward(batch.inputs), batch.targets);
    loss.backward();
    optimizer->step();
    EXPECT_EQ(ours.predictions.device(), cuda0);
    EXPECT_LE(relative_difference(ours.loss, loss.detach()), 1e-5) << "step " << step;
  }
  auto ours = master->parameters(), theirs = reference->parameters();
  for (size_t k = 0; k < ours.size(); ++k)
    EXPECT_LE(relative_difference(ours[k], theirs[k]), 1e-5) << "parameter " << k;
}

}  // namespace
}  // namespace runner::strategies::dp_tests
