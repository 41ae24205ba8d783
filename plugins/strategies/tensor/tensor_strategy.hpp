// Strategy `tensor`: tensor parallelism (Megatron-LM, Shoeybi et al. 2019) in a mesh with data
// parallelism. Consecutive ranks form a tensor-parallel group of `degree` ranks that share a
// batch: the model splits its matrices among them (its TensorSplitter, runner/tensor_split.hpp),
// so each rank holds and computes 1/degree of each split layer and the group meets in two
// all-reduces per block and pass. The groups are data-parallel replicas of each other: each takes
// its shard of the epoch and their gradients are averaged after backward.
#pragma once

#include <runner/option_fields.hpp>
#include <runner/runner.hpp>
#include <runner/strategies/state_pieces.hpp>
#include <runner/strategies/training_step.hpp>
#include <unordered_map>

namespace runner::strategies {

struct TensorOptions {
  int degree = 2;          // ranks per tensor-parallel group
  bool drop_last = false;  // drop the tail of an epoch instead of padding it
  // Its keys in the strategy's table, after the host's distributed keys.
  static const OptionFields<TensorOptions>& fields();
  static TensorOptions from(const Options& options) { return fields().read(options); }
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
  // The first group's ranks save their parts of the split weights (and of their optimizer
  // state) as narrowed pieces of the whole weights; its first rank the rest.
  std::vector<StatePiece> state_pieces() override;
  void state_loaded() override;

 private:
  std::vector<std::vector<Placement>> placements() const;

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
  std::unordered_map<const void*, std::vector<int64_t>> whole_shapes_;  // before the split
  std::unique_ptr<OptimizerState> optimizer_state_;
};

}  // namespace runner::strategies
