// Strategy `ddp`: distributed data parallel, as torch's DistributedDataParallel. Every rank
// holds a replica (rank 0's parameters and buffers broadcast at setup), trains on its shard
// of each epoch (DistributedSampler's), and averages gradients over the ranks in buckets that
// are reduced during backward; each rank's optimizer then takes the same step. With
// micro-batches only the last one's backward reduces, the gradients summed before it included.
#pragma once

#include <runner/option_fields.hpp>
#include <runner/runner.hpp>
#include <runner/strategies/replica_state.hpp>
#include <runner/strategies/training_step.hpp>

#include "gradient_buckets.hpp"

namespace runner::strategies {

struct DdpOptions {
  double bucket_mb = 25;
  bool overlap = true;                // start each bucket's all-reduce as soon as it is full
  bool drop_last = false;             // drop the tail of an epoch instead of padding it
  std::string buffers = "broadcast";  // or "average"
  // Its keys in the strategy's table, after the host's distributed keys.
  static const OptionFields<DdpOptions>& fields();
  static DdpOptions from(const Options& options) { return fields().read(options); }
};

class DdpStrategy : public Strategy {
 public:
  explicit DdpStrategy(DdpOptions options) : options_(std::move(options)) {}

  void setup(const StrategyContext& context) override;
  StepResult train_step(const Batch& batch) override;
  StepResult eval_step(const Batch& batch) override;
  void set_learning_rate(double lr) override;
  torch::Tensor shard_samples(const torch::Tensor& order, Split split) const override;
  std::vector<StatePiece> state_pieces() override { return state_->pieces(); }
  void state_loaded() override { state_->loaded(); }

  const GradientBuckets& buckets() const { return *buckets_; }

 private:
  void sync_buffers_before_forward();
  void average_buffers_after_step();

  DdpOptions options_;
  std::shared_ptr<Model> model_;
  std::shared_ptr<Communicator> communicator_;
  std::vector<torch::Tensor> parameters_;
  std::vector<torch::Tensor> buffers_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::unique_ptr<GradientBuckets> buckets_;
  std::unique_ptr<TrainingStep> step_;
  std::unique_ptr<ReplicaState> state_;
};

}  // namespace runner::strategies
