// Strategy `tensor`: tensor parallelism (Megatron-LM, Shoeybi et al. 2019) in a mesh with data
// parallelism. Consecutive ranks form a tensor-parallel group of `degree` ranks that share a
// batch: the model splits its matrices among them (Model::split_tensor_parallel), so each
// rank holds and computes 1/degree of each split layer and the group meets in two all-reduces
// per block and pass. The groups are data-parallel replicas of each other: each takes its
// shard of the epoch and their gradients are averaged after backward.
#pragma once

#include <runner/runner.hpp>
#include <runner/strategies/training_step.hpp>

namespace runner::strategies {

struct TensorOptions {
  int degree = 2;          // ranks per tensor-parallel group
  bool drop_last = false;  // drop the tail of an epoch instead of padding it
  static TensorOptions from(const Options& options);
};

class TensorStrategy : public Strategy {
 public:
  explicit TensorStrategy(TensorOptions options) : options_(options) {}

  void setup(const StrategyContext& context) override;
  StepResult train_step(const Batch& batch) override;
  StepResult eval_step(const Batch& batch) override;
  void set_learning_rate(double lr) override;

  int data_parallel_degree(int world_size) const override { return world_size / options_.degree; }
  // Every rank of a group computes the same loss and predictions: its first rank reports.
  bool reports_metrics() const override { return group_->rank() == 0; }
  torch::Tensor shard_samples(const torch::Tensor& order, Split split) const override;

 private:
  void make_groups(Communicator& world);
  void average_over_replicas();

  TensorOptions options_;
  std::shared_ptr<Model> model_;
  std::shared_ptr<Communicator> group_;     // this rank's tensor-parallel group
  std::shared_ptr<Communicator> replicas_;  // the same position in every group; none alone
  int replica_ = 0, replica_count_ = 1;
  std::vector<torch::Tensor> parameters_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::unique_ptr<TrainingStep> step_;
};

}  // namespace runner::strategies
