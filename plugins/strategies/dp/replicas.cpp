// Replicas: twin models checked, taking the master's values, their gradients summed into it.
#include "replicas.hpp"

namespace runner::strategies {
namespace {

// A replica must be the master's twin: same names, shapes and dtypes, in the same order, or
// the copies and the gradient sums would pair the wrong tensors.
void check_twin(const torch::OrderedDict<std::string, torch::Tensor>& master,
                const torch::OrderedDict<std::string, torch::Tensor>& replica) {
  RUNNER_CHECK(master.size() == replica.size(), "make_model builds the model of the context");
  for (size_t k = 0; k < master.size(); ++k) {
    const auto& m = master[k];
    const auto& r = replica[k];
    RUNNER_CHECK(m.key() == r.key() && m.value().sizes() == r.value().sizes() &&
                     m.value().dtype() == r.value().dtype(),
                 "replica tensor " + r.key() + " differs from the master's " + m.key());
  }
}

}  // namespace

Replicas::Replicas(std::vector<torch::Device> devices, std::shared_ptr<Model> master,
                   const std::function<std::shared_ptr<Model>()>& make_model)
    : devices_(std::move(devices)) {
  RUNNER_CHECK(!devices_.empty(), "at least one device");
  RUNNER_CHECK(devices_.size() == 1 || make_model, "the host gives strategies make_model");
  for (const auto& p : master->parameters())
    RUNNER_CHECK(p.device() == devices_[0], "the master model is on the first device");
  models_.push_back(std::move(master));
  for (size_t i = 1; i < devices_.size(); ++i) {
    std::shared_ptr<Model> replica = make_model();
    replica->to(devices_[i]);
    check_twin(models_[0]->named_parameters(), replica->named_parameters());
    check_twin(models_[0]->named_buffers(), replica->named_buffers());
    models_.push_back(std::move(replica));
  }
  for (const auto& model : models_) {
    parameters_.push_back(model->named_parameters().values());
    buffers_.push_back(model->named_buffers().values());
  }
}

void Replicas::follow_master() {
  torch::NoGradGuard no_grad;
  const bool training = models_[0]->is_training();
  for (size_t i = 1; i < models_.size(); ++i) {
    models_[i]->train(training);
    for (size_t k = 0; k < parameters_[i].size(); ++k) parameters_[i][k].copy_(parameters_[0][k]);
    for (size_t k = 0; k < buffers_[i].size(); ++k) buffers_[i][k].copy_(buffers_[0][k]);
  }
}

void Replicas::drop_gradients() {
  for (auto& replica : parameters_)
    for (auto& p : replica) p.mutable_grad().reset();
}

void Replicas::sum_gradients_into_master() {
  torch::NoGradGuard no_grad;
  for (size_t k = 0; k < parameters_[0].size(); ++k) {
    torch::Tensor& sum = parameters_[0][k].mutable_grad();
    for (size_t i = 1; i < parameters_.size(); ++i) {
      const torch::Tensor& grad = parameters_[i][k].grad();
      if (!grad.defined()) continue;  // no samples, or a parameter its forward did not use
      if (sum.defined())
        sum.add_(grad.to(devices_[0]));
      else
        sum = grad.to(grad.options().device(devices_[0]), /*non_blocking=*/false, /*copy=*/true);
    }
  }
}

}  // namespace runner::strategies
