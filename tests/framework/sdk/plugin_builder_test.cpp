// Tests of PluginBuilder's tensor-parallel entry: it joins the named model, and only that one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <runner/plugin.hpp>

#include <stdexcept>

using ::testing::HasSubstr;

namespace runner {
namespace {

ModelFactory no_model() {
  return [](const Options&, const ModelContext&) { return std::shared_ptr<Model>(); };
}

TEST(PluginBuilder, TensorParallelismJoinsTheModelOfItsName) {
  PluginBuilder plugin;
  plugin.add_model("plain", "1.0.0", "a model that does not split", Schema(), no_model());
  plugin.add_model("split", "1.0.0", "a model that splits", Schema(), no_model());
  plugin.add_tensor_parallel("split", {[](Model&, const std::shared_ptr<Communicator>&) {
                                         return std::vector<torch::Tensor>();
                                       },
                                       [](const Options&, const ModelContext&) {
                                         SplitEstimate estimate;
                                         estimate.divisors = {{"heads", 4}};
                                         return estimate;
                                       }});
  const std::vector<Component>& components = plugin.components();
  ASSERT_EQ(components.size(), 2u);
  EXPECT_FALSE(components[0].tensor_parallel.split);
  EXPECT_FALSE(components[0].tensor_parallel.estimate);
  ASSERT_TRUE(components[1].tensor_parallel.split);
  ASSERT_TRUE(components[1].tensor_parallel.estimate);
  EXPECT_EQ(
      components[1].tensor_parallel.estimate(Options("model"), ModelContext{}).divisors[0].second,
      4);
}

TEST(PluginBuilder, TensorParallelismForAModelNotAddedNamesIt) {
  PluginBuilder plugin;
  plugin.add_op("split", "1.0.0", "an op, not a model", Schema(),
                [](const Options&) { return std::shared_ptr<Op>(); });
  try {
    plugin.add_tensor_parallel("split", {});
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(std::string(e.what()),
                HasSubstr("add_tensor_parallel(\"split\"): no model of that name"))
        << e.what();
  }
}

}  // namespace
}  // namespace runner
