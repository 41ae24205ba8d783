// TensorStrategy: the split model, its groups, gradients averaged over replicas, checkpoint pieces.
#include "tensor_strategy.hpp"

#include <runner/strategies/data_parallel.hpp>

#include <unordered_set>

namespace runner::strategies {
namespace {

// Where `part` lies in its whole tensor of `whole_shape`: along the one dim where their sizes
// differ, at this rank's share (tensor_parallel::part_of), or all of it.
Placement placement_of(const std::string& name, const torch::Tensor& part,
                       const std::vector<int64_t>& whole_shape, int rank_in_group) {
  Placement placement = whole_placement(name, part);
  placement.whole_shape = whole_shape;
  for (size_t d = 0; d < whole_shape.size(); ++d)
    if (part.size(static_cast<int64_t>(d)) != whole_shape[d]) {
      placement.dim = static_cast<int64_t>(d);
      placement.start = rank_in_group * part.size(static_cast<int64_t>(d));
    }
  return placement;
}

// The parameters the model's split left whole: every rank of the group holds them alike.
std::vector<torch::Tensor> whole_of(const std::vector<torch::Tensor>& parameters,
                                    const std::vector<torch::Tensor>& split) {
  std::unordered_set<const void*> split_ones;
  for (const auto& p : split) split_ones.insert(p.unsafeGetTensorImpl());
  std::vector<torch::Tensor> whole;
  for (const auto& p : parameters)
    if (!split_ones.count(p.unsafeGetTensorImpl())) whole.push_back(p);
  return whole;
}

}  // namespace

const OptionFields<TensorOptions>& TensorOptions::fields() {
  static const auto fields = [] {
    OptionFields<TensorOptions> f(distributed_keys());
    f.integer("degree", &TensorOptions::degree,
              "Ranks per tensor-parallel group: consecutive ranks that split each layer's "
              "matrices and share a batch; the world's ranks form world_size / degree "
              "data-parallel replicas",
              1, 1024);
    add_drop_last(f, "the replicas");
    return f;
  }();
  return fields;
}

void TensorStrategy::setup(const StrategyContext& context) {
  if (!context.split_tensor_parallel)
    throw ConfigError("strategy tensor: this model cannot be split for tensor parallelism",
                      "use a model that supports it, such as gpt2, or another strategy");
  Communicator& world = *context.communicator;
  const int t = options_.degree;
  if (world.world_size() % t != 0)
    throw ConfigError("strategy.degree = " + std::to_string(t) + " does not divide the " +
                          std::to_string(world.world_size()) + " ranks into tensor-parallel groups",
                      "set strategy.world_size to a multiple of strategy.degree");
  model_ = context.model;
  model_->to(context.device);
  // Every group splits the same weights: rank 0's, whatever each rank's initialization drew.
  broadcast_from_rank_zero(*model_, world);
  make_groups(world);
  for (const auto& p : model_->parameters())
    whole_shapes_[p.unsafeGetTensorImpl()] = p.sizes().vec();
  const std::vector<torch::Tensor> split = context.split_tensor_parallel(group_);
  parameters_ = trainable_parameters(*model_);
  optimizer_ = context.make_optimizer(parameters_);
  step_ = std::make_unique<TrainingStep>(model_, parameters_, context.techniques, context.device,
                                         context.meter);
  step_->set_whole_parameters(whole_of(parameters_, split));
}

// Every rank makes every group, in one order: the groups of consecutive ranks, then the ranks
// at one position across the groups.
void TensorStrategy::make_groups(Communicator& world) {
  const int t = options_.degree;
  replica_count_ = world.world_size() / t;
  replica_ = world.rank() / t;
  for (int g = 0; g < replica_count_; ++g) {
    std::vector<int> ranks;
    for (int i = 0; i < t; ++i) ranks.push_back(g * t + i);
    if (auto group = world.subgroup(ranks)) group_ = group;
  }
  if (replica_count_ == 1) return;
  for (int i = 0; i < t; ++i) {
    std::vector<int> ranks;
    for (int g = 0; g < replica_count_; ++g) ranks.push_back(g * t + i);
    if (auto group = world.subgroup(ranks)) replicas_ = group;
  }
}

// The replicas' gradients averaged, in one all-reduce of a flat copy.
void TensorStrategy::average_over_replicas() {
  if (!replicas_) return;
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> grads;
  for (auto& p : parameters_) {
    if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
    grads.push_back(p.grad().flatten());
  }
  torch::Tensor flat = torch::cat(grads);
  replicas_->describe_next("tensor averages the gradients over the replicas");
  replicas_->all_reduce_sum({flat});
  flat.div_(replica_count_);
  int64_t offset = 0;
  for (auto& p : parameters_) {
    p.mutable_grad().copy_(flat.narrow(0, offset, p.numel()).view_as(p));
    offset += p.numel();
  }
}

StepResult TensorStrategy::train_step(const Batch& batch) {
  StepResult result = step_->accumulate(batch);
  average_over_replicas();
  // The split gradients' squares (clipping) and overflow counts (fp16) summed over the group.
  const SumOverShards over_group = [this](torch::Tensor& t) {
    group_->describe_next("tensor sums the split gradients' norms or overflows");
    group_->all_reduce_sum({t});
  };
  step_->apply(*optimizer_, result, over_group);
  return result;
}

StepResult TensorStrategy::eval_step(const Batch& batch) { return step_->evaluate(batch); }

void TensorStrategy::set_learning_rate(double lr) {
  strategies::set_learning_rate(*optimizer_, lr);
}

// The groups split each epoch as ddp's ranks; the ranks of a group take the same samples.
torch::Tensor TensorStrategy::shard_samples(const torch::Tensor& order, Split split) const {
  return replica_samples(order, split, replica_, replica_count_, options_.drop_last);
}

std::vector<std::vector<Placement>> TensorStrategy::placements() const {
  const auto names = names_of(*model_);
  std::vector<std::vector<Placement>> placements;
  for (const auto& p : parameters_)
    placements.push_back({placement_of(names.at(p.unsafeGetTensorImpl()), p,
                                       whole_shapes_.at(p.unsafeGetTensorImpl()), group_->rank())});
  return placements;
}

std::vector<StatePiece> TensorStrategy::state_pieces() {
  if (!optimizer_state_)
    optimizer_state_ = std::make_unique<OptimizerState>(*optimizer_, placements());
  const bool first_group = replica_ == 0, first_rank = first_group && group_->rank() == 0;
  std::vector<StatePiece> pieces;
  for (const auto& item : model_->named_parameters()) {
    const torch::Tensor& p = item.value();
    const Placement placement =
        placement_of(item.key(), p, whole_shapes_.at(p.unsafeGetTensorImpl()), group_->rank());
    const bool split = placement.dim >= 0;
    pieces.push_back(piece_of(p.detach(), placement, "model/", split ? first_group : first_rank));
  }
  for (const auto& item : model_->named_buffers())
    pieces.push_back(
        piece_of(item.value(), whole_placement(item.key(), item.value()), "model/", first_rank));
  for (auto& piece : optimizer_state_->pieces(first_group)) pieces.push_back(std::move(piece));
  for (auto& piece : step_->state_pieces(first_rank)) pieces.push_back(std::move(piece));
  return pieces;
}

void TensorStrategy::state_loaded() {
  optimizer_state_->loaded();
  step_->state_loaded();
}

}  // namespace runner::strategies
