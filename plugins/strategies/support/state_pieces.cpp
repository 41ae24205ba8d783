// State pieces of a model, of SGD's and Adam's per-parameter state, and of scalars such as steps.
#include "runner/strategies/state_pieces.hpp"

#include <runner/compat.hpp>
#include <runner/errors.hpp>

namespace runner::strategies {
namespace {

using torch::optim::AdamParamState;
using torch::optim::AdamWParamState;
using torch::optim::SGDParamState;

torch::Tensor fresh_statistic(const torch::Tensor& parameter) {
  return torch::zeros_like(parameter, torch::MemoryFormat::Preserve);
}

// Adam's and AdamW's states differ in type only.
template <typename State>
State& adam_state(torch::optim::Optimizer& optimizer, const torch::Tensor& p, bool amsgrad) {
  auto& slot = optimizer.state()[compat::optimizer_state_key(p)];
  if (!slot) {
    auto made = std::make_unique<State>();
    made->step(0);
    made->exp_avg(fresh_statistic(p));
    made->exp_avg_sq(fresh_statistic(p));
    if (amsgrad) made->max_exp_avg_sq(fresh_statistic(p));
    slot = std::move(made);
  }
  return static_cast<State&>(*slot);
}

// The statistics of `p` by name, made where missing; `step` the state's step count.
template <typename State>
std::vector<std::pair<std::string, torch::Tensor>> adam_statistics(
    torch::optim::Optimizer& optimizer, const torch::Tensor& p, bool amsgrad, int64_t& step) {
  State& state = adam_state<State>(optimizer, p, amsgrad);
  step = state.step();
  std::vector<std::pair<std::string, torch::Tensor>> statistics{{"exp_avg", state.exp_avg()},
                                                                {"exp_avg_sq", state.exp_avg_sq()}};
  if (amsgrad) statistics.emplace_back("max_exp_avg_sq", state.max_exp_avg_sq());
  return statistics;
}

std::vector<std::pair<std::string, torch::Tensor>> sgd_statistics(torch::optim::SGD& optimizer,
                                                                  const torch::Tensor& p) {
  if (static_cast<const torch::optim::SGDOptions&>(optimizer.defaults()).momentum() == 0) return {};
  auto& slot = optimizer.state()[compat::optimizer_state_key(p)];
  if (!slot) {
    auto made = std::make_unique<SGDParamState>();
    made->momentum_buffer(fresh_statistic(p));
    slot = std::move(made);
  }
  return {{"momentum_buffer", static_cast<SGDParamState&>(*slot).momentum_buffer()}};
}

// Of parameter `p`: its statistics, and its step count where the optimizer keeps one.
std::vector<std::pair<std::string, torch::Tensor>> statistics_of(torch::optim::Optimizer& optimizer,
                                                                 const torch::Tensor& p,
                                                                 int64_t& step) {
  step = -1;
  if (dynamic_cast<torch::optim::AdamW*>(&optimizer)) {
    const auto& options = static_cast<const torch::optim::AdamWOptions&>(optimizer.defaults());
    return adam_statistics<AdamWParamState>(optimizer, p, options.amsgrad(), step);
  }
  if (dynamic_cast<torch::optim::Adam*>(&optimizer)) {
    const auto& options = static_cast<const torch::optim::AdamOptions&>(optimizer.defaults());
    return adam_statistics<AdamParamState>(optimizer, p, options.amsgrad(), step);
  }
  if (auto* sgd = dynamic_cast<torch::optim::SGD*>(&optimizer)) return sgd_statistics(*sgd, p);
  throw ConfigError("the optimizer's state cannot be saved: only sgd, adam and adamw are known");
}

void set_step(torch::optim::Optimizer& optimizer, const torch::Tensor& p, int64_t step) {
  auto& state = *optimizer.state().at(compat::optimizer_state_key(p));
  if (auto* adamw = dynamic_cast<AdamWParamState*>(&state)) adamw->step(step);
  if (auto* adam = dynamic_cast<AdamParamState*>(&state)) adam->step(step);
}

}  // namespace

Placement whole_placement(const std::string& name, const torch::Tensor& tensor) {
  return {name, tensor.sizes().vec(), -1, 0, 0, tensor.numel(), tensor.sizes().vec()};
}

std::vector<std::vector<Placement>> whole_placements(const torch::nn::Module& model,
                                                     const std::vector<torch::Tensor>& parameters) {
  const auto names = names_of(model);
  std::vector<std::vector<Placement>> placements;
  for (const auto& p : parameters)
    placements.push_back({whole_placement(names.at(p.unsafeGetTensorImpl()), p)});
  return placements;
}

StatePiece piece_of(const torch::Tensor& tensor, const Placement& placement,
                    const std::string& prefix, bool saved) {
  torch::Tensor values = tensor.view(-1).narrow(0, placement.offset, placement.numel);
  return {prefix + placement.name, placement.whole_shape,        placement.dim,
          placement.start,         values.view(placement.shape), saved};
}

std::unordered_map<const void*, std::string> names_of(const torch::nn::Module& module) {
  std::unordered_map<const void*, std::string> names;
  for (const auto& item : module.named_parameters())
    names[item.value().unsafeGetTensorImpl()] = item.key();
  for (const auto& item : module.named_buffers())
    names[item.value().unsafeGetTensorImpl()] = item.key();
  return names;
}

std::vector<StatePiece> model_pieces(const torch::nn::Module& module, bool saved) {
  std::vector<StatePiece> pieces;
  auto add = [&](const std::string& name, const torch::Tensor& tensor) {
    pieces.push_back(piece_of(tensor.detach(), whole_placement(name, tensor), "model/", saved));
  };
  for (const auto& item : module.named_parameters()) add(item.key(), item.value());
  for (const auto& item : module.named_buffers()) add(item.key(), item.value());
  return pieces;
}

void ScalarPieces::add(std::string name, double* value) {
  values_.emplace_back(std::move(name), value);
}

void ScalarPieces::add(std::string name, int64_t* value) {
  values_.emplace_back(std::move(name), value);
}

std::vector<StatePiece> ScalarPieces::pieces(bool saved) {
  holders_.clear();
  std::vector<StatePiece> pieces;
  for (const auto& [name, value] : values_) {
    holders_.push_back(
        std::visit([](auto* number) { return torch::tensor(*number).reshape({}); }, value));
    pieces.push_back({name, {}, -1, 0, holders_.back(), saved});
  }
  return pieces;
}

void ScalarPieces::loaded() {
  for (size_t i = 0; i < values_.size() && i < holders_.size(); ++i)
    std::visit([&](auto* number) { *number = holders_[i].item<std::decay_t<decltype(*number)>>(); },
               values_[i].second);
}

OptimizerState::OptimizerState(torch::optim::Optimizer& optimizer,
                               std::vector<std::vector<Placement>> placements)
    : optimizer_(optimizer), placements_(std::move(placements)) {
  RUNNER_CHECK(placements_.size() == parameters().size(),
               "a placement for each of the optimizer's parameters");
}

std::vector<torch::Tensor> OptimizerState::parameters() const {
  std::vector<torch::Tensor> all;
  for (const auto& group : optimizer_.param_groups())
    all.insert(all.end(), group.params().begin(), group.params().end());
  return all;
}

std::vector<StatePiece> OptimizerState::pieces(bool saved) {
  const std::vector<torch::Tensor> all = parameters();
  steps_.assign(all.size(), torch::Tensor());
  std::vector<StatePiece> pieces;
  for (size_t i = 0; i < all.size(); ++i) {
    int64_t step = -1;
    for (const auto& [statistic, tensor] : statistics_of(optimizer_, all[i], step))
      for (const auto& placement : placements_[i])
        pieces.push_back(piece_of(tensor, placement, "optimizer/" + statistic + "/", saved));
    if (step < 0) continue;
    steps_[i] = torch::tensor(step, torch::kInt64).reshape({});
    for (const auto& placement : placements_[i])
      pieces.push_back({"optimizer/step/" + placement.name, {}, -1, 0, steps_[i], saved});
  }
  return pieces;
}

void OptimizerState::loaded() {
  const std::vector<torch::Tensor> all = parameters();
  for (size_t i = 0; i < all.size() && i < steps_.size(); ++i)
    if (steps_[i].defined()) set_step(optimizer_, all[i], steps_[i].item<int64_t>());
}

}  // namespace runner::strategies
