// One copy of the model per device. The first is the master, the host's model, which the
// optimizer steps; the others are fresh models that take the master's values before each
// forward pass and hand their gradients back to it after backward.
#pragma once

#include <functional>
#include <memory>
#include <runner/runner.hpp>
#include <vector>

namespace runner::strategies {

class Replicas {
 public:
  // `master` is on devices[0]; make_model builds a model like it on the CPU.
  Replicas(std::vector<torch::Device> devices, std::shared_ptr<Model> master,
           const std::function<std::shared_ptr<Model>()>& make_model);

  // Parameters, buffers and train/eval mode of the master into every other replica.
  void follow_master();
  // Every replica's gradients, the master's included, dropped: backward writes them fresh.
  void drop_gradients();
  // The other replicas' gradients added into the master's (on devices[0]). A replica that
  // got no samples this step has none since drop_gradients.
  void sum_gradients_into_master();

  size_t size() const { return models_.size(); }
  const std::vector<torch::Device>& devices() const { return devices_; }
  Model& model(size_t i) { return *models_[i]; }
  const std::vector<std::shared_ptr<Model>>& models() const { return models_; }

 private:
  std::vector<torch::Device> devices_;
  std::vector<std::shared_ptr<Model>> models_;
  // [replica][k]: the k-th parameter (buffer) of that replica, the same k for every replica.
  std::vector<std::vector<torch::Tensor>> parameters_;
  std::vector<std::vector<torch::Tensor>> buffers_;
};

}  // namespace runner::strategies
