// Strategy `zero`: data parallelism with the model state sharded over the ranks, as
// DeepSpeed's ZeRO. Stage 1 shards the optimizer state: each rank steps its part of the
// parameters and the parts are all-gathered after the step. Stage 2 also shards the
// gradients: reduce-scattered in buckets during backward, each rank keeping its part's sum.
// Stage 3 also shards the parameters: a layer's are gathered just before its forward and
// again before its backward, and freed after.
#pragma once

#include <memory>
#include <runner/option_fields.hpp>
#include <runner/runner.hpp>
#include <runner/strategies/sharded_unit.hpp>
#include <runner/strategies/state_pieces.hpp>
#include <runner/strategies/training_step.hpp>
#include <string>
#include <utility>
#include <vector>

#include "gradient_reduction.hpp"
#include "layer_gathering.hpp"

namespace runner::strategies {

struct ZeroOptions {
  int stage = 1;
  double bucket_mb = 25;  // stages 1 and 2: parameters per unit
  bool overlap = true;    // reduce during backward
  bool prefetch = true;   // stage 3: the next layer's gather started while one runs
  bool drop_last = false;
  std::string offload = "none";  // "cpu": the state in host memory; "nvme": in files
  std::string offload_dir;       // nvme: where; empty: the system's temporary folder
  // Its keys in the strategy's table, after the host's distributed keys.
  static const OptionFields<ZeroOptions>& fields();
  static ZeroOptions from(const Options& options) { return fields().read(options); }
};

class ZeroStrategy : public Strategy {
 public:
  explicit ZeroStrategy(ZeroOptions options) : options_(std::move(options)) {}

  void setup(const StrategyContext& context) override;
  StepResult train_step(const Batch& batch) override;
  StepResult eval_step(const Batch& batch) override;
  void set_learning_rate(double lr) override;
  torch::Tensor shard_samples(const torch::Tensor& order, Split split) const override;
  // Each rank saves its masters' parts of the parameters and their optimizer state; rank 0
  // the rest (buffers, frozen parameters) whole.
  std::vector<StatePiece> state_pieces() override;
  void state_loaded() override;

  // Every parameter of the model whole on this rank (stage 3 gathers them until the next
  // step), to read or save the model.
  void gather_parameters();
  const std::vector<std::unique_ptr<ShardedUnit>>& units() const { return units_; }
  torch::optim::Optimizer& optimizer() { return *optimizer_; }

 private:
  ZeroStage stage() const { return static_cast<ZeroStage>(options_.stage); }
  void make_buckets(const std::vector<torch::Tensor>& parameters);
  void make_layer_units(const std::vector<torch::Tensor>& parameters);
  std::vector<ShardedUnit*> reduction_order() const;
  void share_updates();
  void make_optimizer(const std::vector<torch::Tensor>& masters, const StrategyContext& context);

  ZeroOptions options_;
  std::shared_ptr<Model> model_;
  std::shared_ptr<Communicator> communicator_;
  std::vector<std::unique_ptr<ShardedUnit>> units_;
  std::unique_ptr<LayerGathering> gathering_;  // stage 3
  std::unique_ptr<GradientReduction> reduction_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::unique_ptr<TrainingStep> step_;
  // The optimizer's state as checkpoint pieces: one for the masters' optimizer (or for the
  // host copies' with offload cpu), one per part with offload nvme.
  std::vector<std::unique_ptr<OptimizerState>> optimizer_states();
  std::vector<std::unique_ptr<OptimizerState>> optimizer_states_;
};

}  // namespace runner::strategies
