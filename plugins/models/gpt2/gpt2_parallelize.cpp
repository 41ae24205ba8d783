// gpt2's tensor parallelism: the blocks split over a group, the split's estimate, registration.
#include "gpt2_parallelize.hpp"

#include <runner/errors.hpp>

#include <string>
#include <utility>

#include "block.hpp"
#include "memory.hpp"

namespace gpt2 {

std::vector<torch::Tensor> parallelize(Gpt2& model, std::shared_ptr<runner::Communicator> group) {
  const int64_t heads = model.shape().heads, degree = group->world_size();
  if (heads % degree != 0)
    throw runner::ConfigError("gpt2's heads = " + std::to_string(heads) + " do not divide among " +
                                  std::to_string(degree) + " tensor-parallel ranks",
                              "choose a degree that divides heads");
  std::vector<torch::Tensor> split;
  for (const auto& block : *model.blocks())
    for (const auto& p : std::dynamic_pointer_cast<Block>(block)->split(group)) split.push_back(p);
  return split;
}

runner::SplitEstimate split_estimate(const Gpt2Options& options,
                                     const runner::ModelContext& context) {
  check_options(options, context.data);
  runner::SplitEstimate estimate;
  estimate.layers = layer_splits(options, context.data.sample_shape[0], context.precision);
  estimate.divisors = {{"heads", options.shape.heads}, {"hidden", options.shape.hidden}};
  return estimate;
}

void add_gpt2_tensor_parallel(runner::PluginBuilder& plugin) {
  plugin.add_tensor_parallel(
      "gpt2", {[](runner::Model& model, std::shared_ptr<runner::Communicator> group) {
                 return parallelize(dynamic_cast<Gpt2&>(model), std::move(group));
               },
               [](const runner::Options& options, const runner::ModelContext& context) {
                 return split_estimate(Gpt2Options::from(options), context);
               }});
}

}  // namespace gpt2
