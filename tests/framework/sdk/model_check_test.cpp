// runner::check_model and check_estimate on small models, each broken in one way a plugin
// author meets: every problem is found and named, and a sound model passes.
#include <gtest/gtest.h>
#include <torch/nn/modules/linear.h>
#include <runner/model_check.hpp>

#include <memory>
#include <string>

namespace runner {
namespace {

// inputs (N, 4) -> (N, 3) logits, through two linear layers.
class Linear : public Layer {
 public:
  Linear(int64_t in, int64_t out) : fc(register_module("fc", torch::nn::Linear(in, out))) {}
  torch::Tensor forward(const torch::Tensor& x) override { return fc->forward(x); }
  torch::nn::Linear fc;
};

class TwoLayers : public Model {
 public:
  TwoLayers()
      : first(register_module("first", std::make_shared<Linear>(4, 5))),
        second(register_module("second", std::make_shared<Linear>(5, 3))) {}
  torch::Tensor forward(const torch::Tensor& x) override {
    return second->forward(torch::dropout(torch::relu(first->forward(x)), 0.5, dropout_on()));
  }
  std::vector<std::shared_ptr<Layer>> layers() override { return layers_; }
  double forward_flops_per_sample() const override { return 2.0 * (4 * 5 + 5 * 3); }
  virtual bool dropout_on() const { return is_training(); }

  std::shared_ptr<Linear> first, second;
  std::vector<std::shared_ptr<Layer>> layers_;
};

DatasetInfo four_features() {
  DatasetInfo data;
  data.sample_shape = {4};
  data.num_classes = 3;
  return data;
}

bool names(const ModelCheck& check, const std::string& part) {
  return check.report().find(part) != std::string::npos;
}

TEST(ModelCheck, ASoundModelPasses) {
  TwoLayers model;
  const ModelCheck check = check_model(model, four_features());
  EXPECT_TRUE(check.ok()) << check.report();
}

TEST(ModelCheck, TheWrongOutputShapeIsNamed) {
  TwoLayers model;
  DatasetInfo data = four_features();
  data.num_classes = 7;
  const ModelCheck check = check_model(model, data);
  EXPECT_EQ(check.report(),
            "forward returned (2, 3) for inputs (2, 4); the engine expects (2, 7)\n");
}

TEST(ModelCheck, AnUnusedParameterIsNamed) {
  TwoLayers model;
  model.register_parameter("spare", torch::zeros({2}));
  const ModelCheck check = check_model(model, four_features());
  EXPECT_TRUE(names(check, "parameter spare gets no gradient")) << check.report();
}

TEST(ModelCheck, DropoutLeftOnInEvalIsFound) {
  struct AlwaysDropping : TwoLayers {
    bool dropout_on() const override { return true; }
  } model;
  // 64 samples: about 160 of the 320 hidden values pass the ReLU, and two dropout masks agree
  // on all of them with probability 2^-160; on 2 samples a few do, and the masks can agree.
  const ModelCheck check = check_model(model, four_features(), 64);
  EXPECT_TRUE(names(check, "two forwards in eval mode differ")) << check.report();
}

TEST(ModelCheck, LayersThatDoNotFoldToForwardAreFound) {
  TwoLayers model;
  model.layers_ = {model.first};
  const ModelCheck check = check_model(model, four_features());
  EXPECT_TRUE(names(check, "folding forward over the 1 layers() does not give forward"))
      << check.report();
  EXPECT_TRUE(names(check, "parameter second.fc.weight belongs to none of the layers()"))
      << check.report();
}

TEST(ModelCheck, AnEstimateThatDisagreesIsNamed) {
  TwoLayers model;
  model.layers_ = {model.first, model.second};
  ModelEstimate estimate;
  estimate.parameters = model.parameter_count();
  estimate.forward_flops_per_sample = model.forward_flops_per_sample();
  estimate.layers = {LayerEstimate{4 * 5 + 5}, LayerEstimate{5 * 3 + 3}};
  EXPECT_TRUE(check_estimate(model, estimate).ok()) << check_estimate(model, estimate).report();
  estimate.parameters += 1;
  estimate.layers[1].parameters = 15;
  EXPECT_EQ(check_estimate(model, estimate).report(),
            "parameters: the estimate says 44, the model has 43\n"
            "layer 1 parameters: the estimate says 15, the model has 18\n");
}

}  // namespace
}  // namespace runner
