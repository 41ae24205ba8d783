// checkpointed_forward: an autograd function that runs the layer again in backward, RNG restored.
#include "runner/strategies/activation_checkpointing.hpp"

#include <runner/compat.hpp>

#include <mutex>
#include <optional>
#include <vector>

namespace runner::strategies {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The random-number generators a layer may draw from: the CPU's, and the CUDA device's when
// the layer's input is on one.
struct RngStates {
  torch::Tensor cpu;
  std::optional<torch::Device> cuda;
  torch::Tensor cuda_state;

  static RngStates take(const torch::Tensor& x) {
    RngStates s;
    s.cpu = read(at::detail::getDefaultCPUGenerator());
    if (x.is_cuda()) {
      s.cuda = x.device();
      s.cuda_state = read(at::globalContext().defaultGenerator(x.device()));
    }
    return s;
  }

  void put() const {
    write(at::detail::getDefaultCPUGenerator(), cpu);
    if (cuda) write(at::globalContext().defaultGenerator(*cuda), cuda_state);
  }

 private:
  // Generators are handles: a copy is the same generator.
  static torch::Tensor read(at::Generator g) {
    std::lock_guard<std::mutex> lock(g.mutex());
    return g.get_state();
  }
  static void write(at::Generator g, const torch::Tensor& state) {
    std::lock_guard<std::mutex> lock(g.mutex());
    g.set_state(state);
  }
};

// What the recomputation needs besides the saved input, kept in the autograd context.
struct Recompute : torch::CustomClassHolder {
  std::shared_ptr<Layer> layer;
  RngStates rng;
  c10::DeviceType device_type = c10::DeviceType::CPU;
  compat::AutocastState autocast;
  std::vector<bool> parameter_needs_grad;
};

std::vector<torch::Tensor> used_parameters(const Layer& layer) {
  std::vector<torch::Tensor> used = layer.parameters();
  for (const auto& t : layer.tied_parameters()) used.push_back(t);
  return used;
}

// The layer run again with a graph, the RNG as the first run found it; the RNG's state
// after this is what it was before.
torch::Tensor run_again(const Recompute& r, const torch::Tensor& input) {
  const RngStates now = RngStates::take(input);
  r.rng.put();
  torch::Tensor output;
  try {
    compat::AutocastScope autocast(r.device_type, r.autocast);
    torch::AutoGradMode grad(true);
    output = r.layer->forward(input);
  } catch (...) {
    now.put();
    throw;
  }
  now.put();
  return output;
}

struct CheckpointFunction : torch::autograd::Function<CheckpointFunction> {
  // params: the layer's used parameters, inputs of this node so that their gradients flow
  // through the enclosing graph (summed with other uses, seen by hooks, accumulated once).
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x,
                               const std::shared_ptr<Layer>& layer, at::TensorList params) {
    auto r = c10::make_intrusive<Recompute>();
    r->layer = layer;
    r->rng = RngStates::take(x);
    r->device_type = x.device().type();
    r->autocast = compat::AutocastState::of(r->device_type);
    for (const auto& p : params) r->parameter_needs_grad.push_back(p.requires_grad());
    ctx->saved_data["recompute"] = c10::IValue::make_capsule(r);
    ctx->save_for_backward({x});
    return layer->forward(x);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    auto r =
        c10::static_intrusive_pointer_cast<Recompute>(ctx->saved_data["recompute"].toCapsule());
    const torch::Tensor x = ctx->get_saved_variables()[0];
    torch::Tensor input = x.detach();
    const bool input_needs_grad = x.is_floating_point() && ctx->needs_input_grad(0);
    input.requires_grad_(input_needs_grad);
    const torch::Tensor output = run_again(*r, input);

    const std::vector<torch::Tensor> params = used_parameters(*r->layer);
    std::vector<torch::Tensor> wrt;
    if (input_needs_grad) wrt.push_back(input);
    for (size_t i = 0; i < params.size(); ++i)
      if (r->parameter_needs_grad[i]) wrt.push_back(params[i]);
    variable_list grads;
    if (!wrt.empty() && output.requires_grad())
      grads = torch::autograd::grad({output}, wrt, {grad_outputs[0]}, /*retain_graph=*/false,
                                    /*create_graph=*/false, /*allow_unused=*/true);

    // One gradient per input of forward: x, the layer (none), then each parameter.
    variable_list result{input_needs_grad ? grads[0] : torch::Tensor(), torch::Tensor()};
    size_t next = input_needs_grad ? 1 : 0;
    for (size_t i = 0; i < params.size(); ++i)
      result.push_back(r->parameter_needs_grad[i] && next < grads.size() ? grads[next++]
                                                                         : torch::Tensor());
    return result;
  }
};

}  // namespace

torch::Tensor checkpointed_forward(const std::shared_ptr<Layer>& layer, const torch::Tensor& x) {
  const std::vector<torch::Tensor> params = used_parameters(*layer);
  return CheckpointFunction::apply(x, layer, at::TensorList(params));
}

}  // namespace runner::strategies
