// The image models' dataset checks, the activation op, stages as layers, and multiply-add counts.
#include "image_model.hpp"

#include <runner/errors.hpp>

#include <algorithm>
#include <utility>

namespace model_support {

std::string shape_text(const std::vector<int64_t>& shape) {
  if (shape.empty()) return "no shape";
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "x" : "") + std::to_string(shape[i]);
  return text;
}

void require_classification(const std::string& model, const runner::DatasetInfo& data) {
  if (data.task != runner::Task::classification)
    throw runner::ConfigError("model " + model + " is a classifier; the dataset's task is " +
                                  runner::task_name(data.task),
                              "use a classification dataset such as mnist");
  if (data.num_classes < 1)
    throw runner::ConfigError("model " + model +
                              " needs a dataset with classes; this one declares " +
                              std::to_string(data.num_classes));
}

bool is_fixed_shape(const std::vector<int64_t>& shape) {
  return !shape.empty() &&
         std::all_of(shape.begin(), shape.end(), [](int64_t side) { return side > 0; });
}

ImageShape require_images(const std::string& model, const runner::DatasetInfo& data) {
  require_classification(model, data);
  const std::vector<int64_t>& shape = data.sample_shape;
  if (shape.size() != 3 || !is_fixed_shape(shape))
    throw runner::ConfigError(
        "model " + model + " takes (C, H, W) images; the dataset gives " + shape_text(shape),
        "use an image dataset such as mnist");
  return ImageShape{shape[0], shape[1], shape[2]};
}

void require_odd_kernel(const std::string& model, int64_t kernel_size) {
  if (kernel_size % 2 == 0)
    throw runner::ConfigError("model " + model + ": kernel_size = " + std::to_string(kernel_size) +
                                  " is even; only an odd kernel keeps the image size",
                              "use an odd kernel_size such as 3 or 5");
}

torch::Tensor forward_stages(const torch::nn::ModuleList& stages, torch::Tensor x) {
  for (const std::shared_ptr<torch::nn::Module>& stage : *stages)
    x = stage->as<torch::nn::Sequential>()->forward(x);
  return x;
}

namespace {

class StageLayer : public runner::Layer {
 public:
  explicit StageLayer(torch::nn::Sequential stage)
      : stage_(register_module("stage", std::move(stage))) {}
  torch::Tensor forward(const torch::Tensor& x) override { return stage_->forward(x); }

 private:
  torch::nn::Sequential stage_;
};

}  // namespace

std::vector<std::shared_ptr<runner::Layer>> layers_of_stages(const torch::nn::ModuleList& stages) {
  std::vector<std::shared_ptr<runner::Layer>> layers;
  for (const std::shared_ptr<torch::nn::Module>& stage : *stages)
    layers.push_back(std::make_shared<StageLayer>(
        torch::nn::Sequential(std::dynamic_pointer_cast<torch::nn::SequentialImpl>(stage))));
  return layers;
}

double conv_multiply_adds(const torch::nn::Conv2d& conv, int64_t output_height,
                          int64_t output_width) {
  return static_cast<double>(conv->weight.numel()) * static_cast<double>(output_height) *
         static_cast<double>(output_width);
}

double linear_multiply_adds(const torch::nn::Linear& linear) {
  return static_cast<double>(linear->weight.numel());
}

}  // namespace model_support
