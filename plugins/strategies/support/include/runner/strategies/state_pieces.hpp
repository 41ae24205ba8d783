// The pieces of training state (runner/training_state.hpp) that strategies have in common:
// a model's parameters and buffers, an optimizer's state per parameter, and numbers kept
// outside tensors (a step count, a loss scale).
#pragma once

#include <torch/torch.h>
#include <runner/training_state.hpp>

#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace runner::strategies {

// Where some elements of a tensor of this rank lie in a whole named tensor: the elements
// [offset, offset + numel) of the tensor flattened, viewed as `shape`, are the piece
// (whole_shape, dim, start) of `name` (see StatePiece).
struct Placement {
  std::string name;
  std::vector<int64_t> whole_shape;
  int64_t dim = -1, start = 0;
  int64_t offset = 0, numel = 0;
  std::vector<int64_t> shape;
};

// All of `tensor` as the whole tensor `name`.
Placement whole_placement(const std::string& name, const torch::Tensor& tensor);

// Each of `parameters` whole, named as in `model`: an optimizer's placements when every rank
// holds the parameters it steps whole.
std::vector<std::vector<Placement>> whole_placements(const torch::nn::Module& model,
                                                     const std::vector<torch::Tensor>& parameters);

// `tensor`'s elements at `placement`, a view, as the piece named prefix + placement.name.
StatePiece piece_of(const torch::Tensor& tensor, const Placement& placement,
                    const std::string& prefix, bool saved);

// The name of each of `module`'s parameters and buffers, by its tensor.
std::unordered_map<const void*, std::string> names_of(const torch::nn::Module& module);

// "model/<name>" of every parameter and buffer of `module`, whole.
std::vector<StatePiece> model_pieces(const torch::nn::Module& module, bool saved);

// Numbers kept outside tensors, saved as 0-d tensors (float64, int64): pieces() copies them
// out, loaded() copies them back.
class ScalarPieces {
 public:
  void add(std::string name, double* value);
  void add(std::string name, int64_t* value);
  std::vector<StatePiece> pieces(bool saved);
  void loaded();

 private:
  std::vector<std::pair<std::string, std::variant<double*, int64_t*>>> values_;
  std::vector<torch::Tensor> holders_;
};

// An optimizer's state (SGD's momentum, Adam's and AdamW's moments and step count) as
// "optimizer/<statistic>/<name>" pieces, each placed as the optimizer's parameter it belongs
// to. placements[i] are those of the optimizer's i-th parameter, in its groups' order. Throws
// ConfigError for an optimizer of another kind.
class OptimizerState {
 public:
  OptimizerState(torch::optim::Optimizer& optimizer,
                 std::vector<std::vector<Placement>> placements);

  // The state is made first (zeros, no steps) where the optimizer has not stepped yet: the
  // step that follows is the same as from no state.
  std::vector<StatePiece> pieces(bool saved);
  void loaded();  // the step counts back into the optimizer

 private:
  std::vector<torch::Tensor> parameters() const;

  torch::optim::Optimizer& optimizer_;
  std::vector<std::vector<Placement>> placements_;
  std::vector<torch::Tensor> steps_;  // per parameter, 0-d int64: the optimizer keeps an integer
};

}  // namespace runner::strategies
