// DdpStrategy: setup, buffer sync, bucketed reduction on the last micro-batch, and sharding.
#include "ddp_strategy.hpp"

#include <runner/strategies/data_parallel.hpp>

namespace runner::strategies {

const OptionFields<DdpOptions>& DdpOptions::fields() {
  static const auto fields = [] {
    OptionFields<DdpOptions> f(distributed_keys());
    f.number("bucket_mb", &DdpOptions::bucket_mb,
             "Gradient bucket size in MB: each bucket's all-reduce starts when its last "
             "gradient is ready",
             0.001, 4096);
    f.flag("overlap", &DdpOptions::overlap,
           "Reduce buckets during backward; false waits for backward to end (to measure what "
           "overlap saves)");
    add_drop_last(f, "the ranks");
    f.text("buffers", &DdpOptions::buffers,
           "Model buffers (BatchNorm statistics): broadcast rank 0's before each forward, or "
           "average them over the ranks after each step",
           {"broadcast", "average"});
    return f;
  }();
  return fields;
}

void DdpStrategy::setup(const StrategyContext& context) {
  model_ = context.model;
  model_->to(context.device);
  communicator_ = context.communicator;
  parameters_ = trainable_parameters(*model_);
  for (const auto& b : model_->buffers()) buffers_.push_back(b);
  broadcast_from_rank_zero(*model_, *communicator_);
  optimizer_ = context.make_optimizer(parameters_);
  const auto bucket_bytes = static_cast<int64_t>(options_.bucket_mb * 1024 * 1024);
  buckets_ =
      std::make_unique<GradientBuckets>(parameters_, bucket_bytes, communicator_, options_.overlap);
  step_ = std::make_unique<TrainingStep>(model_, parameters_, context.techniques, context.device,
                                         context.meter);
  state_ = std::make_unique<ReplicaState>(*model_, *optimizer_, parameters_, *step_,
                                          communicator_->rank() == 0);
}

void DdpStrategy::sync_buffers_before_forward() {
  if (options_.buffers != "broadcast" || buffers_.empty()) return;
  std::vector<torch::Tensor> state;
  for (const auto& b : buffers_) state.push_back(b.detach());
  communicator_->describe_next("ddp broadcasts rank 0's buffers");
  communicator_->broadcast(state, 0);
}

// Floating buffers (BatchNorm's running statistics) become the mean over the ranks; counters
// such as num_batches_tracked are the same on every rank already. One buffer per all-reduce:
// c10d's allreduce takes a list as copies of one tensor on several devices and sums them all,
// so running_mean and running_var reduced in one call would become one sum.
void DdpStrategy::average_buffers_after_step() {
  if (options_.buffers != "average") return;
  for (const auto& b : buffers_) {
    if (!b.is_floating_point()) continue;
    torch::Tensor buffer = b.detach();
    communicator_->describe_next("ddp averages a buffer");
    communicator_->all_reduce_sum({buffer});
    buffer.div_(communicator_->world_size());
  }
}

// Micro-batches before the last accumulate locally; the last one's backward reduces the sum
// in buckets, overlapped with that backward, as torch DDP under no_sync().
StepResult DdpStrategy::train_step(const Batch& batch) {
  sync_buffers_before_forward();
  TrainingStep::Hooks hooks;
  hooks.before_backward = [this](bool last) {
    if (last) buckets_->begin_backward();
  };
  hooks.after_backward = [this](bool last) {
    if (last) buckets_->finish_backward();
  };
  StepResult result = step_->accumulate(batch, hooks);
  step_->apply(*optimizer_, result);
  average_buffers_after_step();
  return result;
}

StepResult DdpStrategy::eval_step(const Batch& batch) { return step_->evaluate(batch); }

void DdpStrategy::set_learning_rate(double lr) { strategies::set_learning_rate(*optimizer_, lr); }

torch::Tensor DdpStrategy::shard_samples(const torch::Tensor& order, Split split) const {
  return replica_samples(order, split, communicator_->rank(), communicator_->world_size(),
                         options_.drop_last);
}

}  // namespace runner::strategies
