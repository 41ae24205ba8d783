// What a model plugin's tests check first, in one call each, as runner/gradcheck.hpp is for
// ops: the contract between a model and the engine (see docs/writing-a-plugin.md), and an
// estimator's agreement with the model it sizes. Each returns every problem it found, as
// one line each; a test asserts `ok()` and prints `report()`.
#pragma once

#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "runner/dataset.hpp"
#include "runner/model.hpp"
#include "runner/options.hpp"

namespace runner {

struct ModelCheck {
  std::vector<std::string> problems;
  bool ok() const { return problems.empty(); }
  std::string report() const {
    std::string text;
    for (const std::string& problem : problems) text += problem + "\n";
    return text;
  }
};

namespace detail {

inline std::string shape_text(at::IntArrayRef shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + ")";
}

// Random samples of `data`: images of its sample shape and class ids, or token ids and their
// next tokens for a language model.
inline Batch random_batch(const DatasetInfo& data, int64_t batch) {
  std::vector<int64_t> shape{batch};
  shape.insert(shape.end(), data.sample_shape.begin(), data.sample_shape.end());
  if (data.task == Task::language_modeling)
    return {torch::randint(data.num_classes, shape, torch::kInt64),
            torch::randint(data.num_classes, shape, torch::kInt64)};
  return {torch::randn(shape), torch::randint(data.num_classes, {batch}, torch::kInt64)};
}

// What is wrong with forward's outputs for `inputs`, or "". Classification: (N, classes);
// language modeling: (N, T, V), with a vocabulary V of at least the dataset's (a model may pad
// its vocabulary).
inline std::string outputs_problem(const torch::Tensor& outputs, const torch::Tensor& inputs,
                                   const DatasetInfo& data) {
  const int64_t n = inputs.size(0);
  const bool language = data.task == Task::language_modeling;
  const bool fits =
      language ? outputs.dim() == 3 && outputs.size(0) == n && outputs.size(1) == inputs.size(1) &&
                     outputs.size(2) >= data.num_classes
               : outputs.dim() == 2 && outputs.size(0) == n && outputs.size(1) == data.num_classes;
  if (fits) return "";
  const std::string expected = language ? "(" + std::to_string(n) + ", " +
                                              std::to_string(inputs.size(1)) + ", at least " +
                                              std::to_string(data.num_classes) + ")"
                                        : shape_text({n, data.num_classes});
  return "forward returned " + shape_text(outputs.sizes()) + " for inputs " +
         shape_text(inputs.sizes()) + "; the engine expects " + expected;
}

// A count as an integer ("43"), any other number as its shortest text.
inline std::string count_text(double value) {
  if (value == std::floor(value) && std::fabs(value) < 9e15)
    return std::to_string(static_cast<int64_t>(value));
  return number_text(value);
}

inline bool close(const torch::Tensor& a, const torch::Tensor& b) {
  return a.sizes() == b.sizes() && torch::allclose(a, b, 1e-5, 1e-6);
}

inline void check_training_pass(Model& model, const DatasetInfo& data, const Batch& batch,
                                std::vector<std::string>& problems) {
  model.train();
  model.zero_grad();
  const torch::Tensor outputs = model.forward(batch.inputs);
  if (std::string problem = outputs_problem(outputs, batch.inputs, data); !problem.empty()) {
    problems.push_back(problem);
    return;
  }
  const torch::Tensor loss = model.loss(outputs, batch.targets);
  if (loss.dim() != 0) {
    problems.push_back("loss returned " + shape_text(loss.sizes()) + ", not a scalar");
    return;
  }
  if (!std::isfinite(loss.item<double>()))
    problems.push_back("loss is " + std::to_string(loss.item<double>()) + " on random inputs");
  loss.backward();
  for (const auto& item : model.named_parameters()) {
    if (!item.value().requires_grad()) continue;
    const torch::Tensor& grad = item.value().grad();
    if (!grad.defined())
      problems.push_back("parameter " + item.key() +
                         " gets no gradient: forward does not use it (ddp would wait for it)");
    else if (!torch::isfinite(grad).all().item<bool>())
      problems.push_back("parameter " + item.key() + " gets a gradient that is not finite");
  }
  model.zero_grad();
}

// Two eval forwards agree (no dropout in eval mode), and leave the parameters as they were.
inline void check_eval_pass(Model& model, const Batch& batch, std::vector<std::string>& problems) {
  torch::NoGradGuard no_grad;
  model.eval();
  std::vector<torch::Tensor> before;
  for (const auto& p : model.parameters()) before.push_back(p.detach().clone());
  const torch::Tensor first = model.forward(batch.inputs);
  if (!close(first, model.forward(batch.inputs)))
    problems.push_back("two forwards in eval mode differ: is dropout still on in eval()?");
  const auto after = model.parameters();
  for (size_t i = 0; i < after.size(); ++i)
    if (!torch::equal(before[i], after[i])) {
      problems.push_back("forward changed a parameter (index " + std::to_string(i) + ")");
      break;
    }
}

// Folding forward over layers() gives forward, and every parameter belongs to a layer (a
// pipeline stage or a layer's gathering would miss one that does not).
inline void check_layers(Model& model, const Batch& batch, std::vector<std::string>& problems) {
  const std::vector<std::shared_ptr<Layer>> layers = model.layers();
  if (layers.empty()) return;
  torch::NoGradGuard no_grad;
  model.eval();
  torch::Tensor x = batch.inputs;
  for (const auto& layer : layers) x = layer->forward(x);
  if (!close(x, model.forward(batch.inputs)))
    problems.push_back("folding forward over the " + std::to_string(layers.size()) +
                       " layers() does not give forward");
  std::set<const void*> in_layers;
  for (const auto& layer : layers)
    for (const auto& p : layer->parameters()) in_layers.insert(p.unsafeGetTensorImpl());
  for (const auto& item : model.named_parameters())
    if (!in_layers.count(item.value().unsafeGetTensorImpl()))
      problems.push_back("parameter " + item.key() + " belongs to none of the layers()");
}

}  // namespace detail

// The model, built for `data`, on `batch` random samples: forward's shape, a finite scalar
// loss, a finite gradient for every trainable parameter, eval mode deterministic and
// read-only, layers() folding to forward and holding every parameter, positive FLOPs.
inline ModelCheck check_model(Model& model, const DatasetInfo& data, int64_t batch = 2) {
  ModelCheck check;
  torch::manual_seed(0);
  const Batch samples = detail::random_batch(data, batch);
  detail::check_training_pass(model, data, samples, check.problems);
  if (!check.ok()) return check;  // what follows runs forward again
  detail::check_eval_pass(model, samples, check.problems);
  detail::check_layers(model, samples, check.problems);
  if (!(model.forward_flops_per_sample() > 0))
    check.problems.push_back("forward_flops_per_sample() is " +
                             std::to_string(model.forward_flops_per_sample()) +
                             "; the runner reports TFLOPS and MFU from it");
  return check;
}

// An estimator's answer against the model it sizes: the parameters, the FLOPs, and per layer
// the parameters, as counted on the built model.
inline ModelCheck check_estimate(Model& model, const ModelEstimate& estimate) {
  ModelCheck check;
  auto differs = [&](const std::string& what, double estimated, double counted) {
    if (estimated != counted)
      check.problems.push_back(what + ": the estimate says " + detail::count_text(estimated) +
                               ", the model has " + detail::count_text(counted));
  };
  differs("parameters", static_cast<double>(estimate.parameters),
          static_cast<double>(model.parameter_count()));
  differs("forward FLOPs per sample", estimate.forward_flops_per_sample,
          model.forward_flops_per_sample());
  const std::vector<std::shared_ptr<Layer>> layers = model.layers();
  if (estimate.layers.empty()) return check;
  differs("layers", static_cast<double>(estimate.layers.size()),
          static_cast<double>(layers.size()));
  for (size_t i = 0; i < std::min(layers.size(), estimate.layers.size()); ++i) {
    int64_t owned = 0;
    for (const auto& p : layers[i]->parameters()) owned += p.numel();
    differs("layer " + std::to_string(i) + " parameters",
            static_cast<double>(estimate.layers[i].parameters), static_cast<double>(owned));
  }
  return check;
}

}  // namespace runner
