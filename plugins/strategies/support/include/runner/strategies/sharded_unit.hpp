// A unit of ZeRO sharding: some parameters laid end to end in one flat vector, padded to a
// multiple of the ranks; rank r owns elements [r * part, (r + 1) * part). The owner alone
// keeps their optimizer state (the master part, which the optimizer steps) and the sum of
// their gradients over the ranks; in stage 3 it alone keeps their values between uses, and
// the whole vector is gathered only while a layer runs.
#pragma once

#include <torch/torch.h>
#include <runner/communicator.hpp>
#include <runner/strategies/state_pieces.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace runner::strategies {

enum class ZeroStage { optimizer_state = 1, gradients = 2, parameters = 3 };

class ShardedUnit {
 public:
  // `parameters` hold the same values on every rank when this is made; they stay whole until
  // release() (autograd records their shapes when hooks are added to them).
  ShardedUnit(std::vector<torch::Tensor> parameters, std::shared_ptr<Communicator> communicator,
              ZeroStage stage);

  const std::vector<torch::Tensor>& parameters() const { return parameters_; }
  // What the unit is in a collective's words ("bucket 2 of 7", "layer 12").
  void set_name(std::string name) { name_ = std::move(name); }
  int64_t part_numel() const { return part_; }
  // This rank's part, fp32, a leaf: what the optimizer steps; its .grad is the part of the
  // gradients' mean over the ranks once reduce_gradients() finished.
  const torch::Tensor& master() const { return master_; }

  // Where the master lies among the parameters: for each parameter it overlaps, the
  // overlap's first element in the parameter (flattened) and in the master, and its length.
  struct OwnedSpan {
    size_t parameter = 0;
    int64_t in_parameter = 0, in_master = 0, numel = 0;
  };
  std::vector<OwnedSpan> owned_spans() const;
  const std::vector<int64_t>& shape_of(size_t parameter) const { return shapes_[parameter]; }

  // Stages 1 and 2, after the optimizer stepped the master: every rank's updated part into
  // the whole vector the parameters are views of.
  std::unique_ptr<PendingCollective> start_sharing_updates();

  // Stage 3: the whole vector, gathered from the parts (started ahead, finished at use).
  void start_gather();
  void finish_gather();  // the parameters then point into it
  void release();        // the parameters then hold no elements
  bool gathered() const { return gathered_; }

  // Gradients. Stage 1: the parameters' .grad are views of one flat vector that backward
  // accumulates in; stages 2 and 3: each backward's gradients are copied into a bucket as
  // they arrive (take_gradient) and .grad is freed.
  void begin_step();  // stage 1: the flat gradients zeroed
  void take_gradient(size_t index);
  bool every_gradient_taken() const { return taken_ == parameters_.size(); }
  void take_missing_gradients();  // what backward did not reach counts as zero
  void start_reduction();         // the bucket's (stage 1: the flat gradients') mean over the ranks
  void finish_reduction();        // into the master's .grad (summed over micro-batches)
  void forget_gradients();        // before the next backward: nothing taken

 private:
  void point_parameters_into(const torch::Tensor& flat);
  // "zero-3 gathers layer 12": the next collective's words.
  void describe(const char* what) const;
  torch::Tensor part_of(const torch::Tensor& flat) const;
  torch::Tensor zeros_like_flat() const;

  std::vector<torch::Tensor> parameters_;
  std::vector<int64_t> offsets_;              // of each parameter in the flat vector
  std::vector<std::vector<int64_t>> shapes_;  // kept: released parameters have none
  std::vector<int64_t> numels_;
  std::shared_ptr<Communicator> communicator_;
  ZeroStage stage_;
  std::string name_ = "a unit";
  int64_t part_ = 0;  // elements per rank

  torch::Tensor flat_;    // stages 1 and 2: every value; stage 3: only while gathered
  torch::Tensor master_;  // stages 1 and 2: this rank's part of flat_; stage 3: its own
  std::unique_ptr<PendingCollective> gathering_;
  bool gathered_ = true;

  torch::Tensor flat_gradients_;  // stage 1: what .grad views
  torch::Tensor bucket_;          // stages 2 and 3: this backward's gradients, until reduced
  torch::Tensor reduced_part_;
  std::vector<bool> taken_flags_;
  size_t taken_ = 0;
  std::unique_ptr<PendingCollective> reduction_;
};

// Stages 1 and 2: `parameters` in reverse order (about the order backward produces their
// gradients), in units of at most `bucket_bytes` of one type and device, as ddp's buckets.
std::vector<std::unique_ptr<ShardedUnit>> bucketed_units(
    const std::vector<torch::Tensor>& parameters, int64_t bucket_bytes,
    const std::shared_ptr<Communicator>& communicator, ZeroStage stage);

// Per unit, where its master's elements lie in the parameters of `model` (by their names):
// the optimizer's placements when it steps the units' masters.
std::vector<std::vector<Placement>> master_placements(
    const std::vector<std::unique_ptr<ShardedUnit>>& units, const torch::nn::Module& model);

}  // namespace runner::strategies
