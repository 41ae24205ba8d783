// Strategy `pipeline`: the model's layers cut into `stages` contiguous stages, one per rank;
// each step's micro-batches flow forward through the stages and their gradients back, in the
// order of a schedule (GPipe or 1F1B). The world's ranks form world / stages pipelines, which
// are data-parallel replicas of each other. The last stage computes the loss and reports the
// metrics; a weight that layers of two stages read (a language model's tied embedding) has
// its gradients summed between them and is stepped by the stage that owns it.
#pragma once

#include <memory>
#include <runner/option_fields.hpp>
#include <runner/runner.hpp>
#include <runner/strategies/micro_batches.hpp>
#include <runner/strategies/sharded_unit.hpp>
#include <runner/strategies/state_pieces.hpp>
#include <runner/strategies/training_step.hpp>
#include <vector>

#include "messages.hpp"
#include "partition.hpp"
#include "schedule.hpp"

namespace runner::strategies {

struct PipelineOptions {
  int stages = 2;
  std::string schedule = "1f1b";  // or "gpipe"
  std::string balance = "flops";  // or "parameters", "layers"
  bool drop_last = false;
  int zero_stage = 0;     // 1: each stage's optimizer state sharded over the pipelines
  double bucket_mb = 25;  // zero_stage 1: parameters per sharded unit
  // Its keys in the strategy's table, after the host's distributed keys.
  static const OptionFields<PipelineOptions>& fields();
  static PipelineOptions from(const Options& options) { return fields().read(options); }
};

class PipelineStrategy : public Strategy {
 public:
  explicit PipelineStrategy(PipelineOptions options) : options_(std::move(options)) {}

  void setup(const StrategyContext& context) override;
  StepResult train_step(const Batch& batch) override;
  StepResult eval_step(const Batch& batch) override;
  void set_learning_rate(double lr) override;
  int data_parallel_degree(int world_size) const override { return world_size / options_.stages; }
  bool reports_metrics() const override { return last_stage(); }
  torch::Tensor shard_samples(const torch::Tensor& order, Split split) const override;
  // The first pipeline's stages save their layers' weights, buffers and optimizer state (with
  // zero_stage 1, every rank its masters' parts); every rank loads its own.
  std::vector<StatePiece> state_pieces() override;
  void state_loaded() override;

  int stage() const { return stage_; }
  const std::vector<LayerRange>& ranges() const { return ranges_; }
  const std::vector<std::shared_ptr<Layer>>& stage_layers() const { return layers_; }

 private:
  struct InFlight {
    torch::Tensor input;   // what the stage received (its gradient goes back)
    torch::Tensor output;  // what it sent on, or the last stage's weighted loss
  };

  bool first_stage() const { return stage_ == 0; }
  bool last_stage() const { return stage_ == options_.stages - 1; }
  void make_groups();
  void tie_weights();
  void place_layers(torch::Device device);
  torch::Tensor run_layers(const torch::Tensor& x, bool checkpoint) const;
  torch::Tensor timed_receive(int from, const std::string& words);
  void forward(int micro, const std::vector<MicroBatch>& micro_batches, StepResult& result,
               std::vector<torch::Tensor>& predictions);
  void backward(int micro);
  void make_optimizer(const StrategyContext& context);
  void drop_gradients();
  void reduce_gradients();
  void share_updates();
  void share_tied_weights();

  PipelineOptions options_;
  std::shared_ptr<Model> model_;
  std::shared_ptr<Communicator> world_, pipeline_, replicas_;
  int stage_ = 0, pipeline_index_ = 0, pipelines_ = 1;
  std::vector<LayerRange> ranges_;
  std::vector<std::shared_ptr<Layer>> layers_;  // this stage's
  std::vector<torch::Tensor> owned_;            // stepped here
  // zero_stage 1: owned_ in flat units over the replicas; the optimizer steps their masters.
  std::vector<std::unique_ptr<ShardedUnit>> units_;
  // A weight this stage reads that another stage reads too: its gradient is summed over
  // them, and the owner's value, once stepped, is copied to the others.
  struct TiedWeight {
    torch::Tensor weight;
    std::shared_ptr<Communicator> group;  // the stages that read it, in this pipeline
    int owner = 0;                        // the owning stage's rank in `group`
  };
  std::vector<TiedWeight> tied_;
  std::unique_ptr<Messages> messages_;
  std::vector<InFlight> in_flight_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::unique_ptr<TrainingStep> step_;
  std::unique_ptr<OptimizerState> optimizer_state_;
  std::shared_ptr<StepMeter> meter_;
  torch::Device device_ = torch::kCPU;
};

}  // namespace runner::strategies
