// Helpers shared by the image-classifier models: the dataset checks with their errors, stages
// as layers, and FLOP counting.
#pragma once

#include <memory>
#include <runner/dataset.hpp>
#include <runner/model.hpp>
#include <runner/op.hpp>
#include <string>
#include <vector>

#include "activation.hpp"

namespace model_support {

// An image sample's (C, H, W).
struct ImageShape {
  int64_t channels = 0;
  int64_t height = 0;
  int64_t width = 0;
};

// "3x32x32"; "no shape" for an empty one.
std::string shape_text(const std::vector<int64_t>& shape);

// Whether a sample shape has sides, all positive.
bool is_fixed_shape(const std::vector<int64_t>& shape);

// A ConfigError naming `model` unless the dataset is a classification task with classes.
void require_classification(const std::string& model, const runner::DatasetInfo& data);

// The dataset's (C, H, W); a ConfigError naming `model` and the shape when the dataset is not
// a classification task or its samples are not three positive sides.
ImageShape require_images(const std::string& model, const runner::DatasetInfo& data);

// A ConfigError naming `model` when `kernel_size` is even: only an odd kernel with padding
// kernel_size / 2 keeps the image size.
void require_odd_kernel(const std::string& model, int64_t kernel_size);

// Runs `x` through each stage of `stages`, each a torch::nn::Sequential. (A Sequential cannot
// hold another: its templated forward does not fit torch::nn::AnyModule.)
torch::Tensor forward_stages(const torch::nn::ModuleList& stages, torch::Tensor x);

// A model's layers (runner::Model::layers()): one per stage of `stages`, each running that
// torch::nn::Sequential, which the model keeps registered under its own name.
std::vector<std::shared_ptr<runner::Layer>> layers_of_stages(const torch::nn::ModuleList& stages);

// Multiply-adds of one sample: each weight of a conv is used once per output position, each
// weight of a linear once. Biases, normalization, pooling and activations are not counted.
double conv_multiply_adds(const torch::nn::Conv2d& conv, int64_t output_height,
                          int64_t output_width);
double linear_multiply_adds(const torch::nn::Linear& linear);

}  // namespace model_support
