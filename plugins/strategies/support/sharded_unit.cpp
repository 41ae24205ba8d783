// ShardedUnit: the flat padded vector, gathers and releases, gradient reductions into the part.
#include "runner/strategies/sharded_unit.hpp"

#include <runner/errors.hpp>

#include <algorithm>

namespace runner::strategies {
namespace {

// Gathered buffers must be ordinary tensors also when a test pass asks for the parameters
// under inference mode: the next training step's graph saves them.
struct OrdinaryTensors {
  c10::InferenceMode not_inference{false};
  torch::NoGradGuard no_grad;
};

}  // namespace

ShardedUnit::ShardedUnit(std::vector<torch::Tensor> parameters,
                         std::shared_ptr<Communicator> communicator, ZeroStage stage)
    : parameters_(std::move(parameters)), communicator_(std::move(communicator)), stage_(stage) {
  RUNNER_CHECK(!parameters_.empty(), "a sharded unit of no parameters");
  int64_t total = 0;
  for (const auto& p : parameters_) {
    offsets_.push_back(total);
    shapes_.push_back(p.sizes().vec());
    numels_.push_back(p.numel());
    total += p.numel();
  }
  const int world = communicator_->world_size();
  part_ = (total + world - 1) / world;
  taken_flags_.assign(parameters_.size(), false);

  OrdinaryTensors ordinary;
  const auto options = parameters_[0].options().requires_grad(false);
  flat_ = torch::zeros({part_ * world}, options);
  for (size_t i = 0; i < parameters_.size(); ++i)
    flat_.narrow(0, offsets_[i], numels_[i]).copy_(parameters_[i].detach().view(-1));
  point_parameters_into(flat_);
  if (stage_ == ZeroStage::parameters) {
    master_ = part_of(flat_).clone();
    return;
  }
  master_ = part_of(flat_);
  if (stage_ == ZeroStage::optimizer_state) {
    flat_gradients_ = torch::zeros({part_ * world}, options);
    for (size_t i = 0; i < parameters_.size(); ++i)
      parameters_[i].mutable_grad() =
          flat_gradients_.narrow(0, offsets_[i], numels_[i]).view(shapes_[i]);
  }
}

std::vector<ShardedUnit::OwnedSpan> ShardedUnit::owned_spans() const {
  const int64_t first = part_ * communicator_->rank(), end = first + part_;
  std::vector<OwnedSpan> spans;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const int64_t begin = std::max(first, offsets_[i]);
    const int64_t stop = std::min(end, offsets_[i] + numels_[i]);
    if (begin < stop) spans.push_back({i, begin - offsets_[i], begin - first, stop - begin});
  }
  return spans;
}

torch::Tensor ShardedUnit::part_of(const torch::Tensor& flat) const {
  return flat.narrow(0, part_ * communicator_->rank(), part_);
}

torch::Tensor ShardedUnit::zeros_like_flat() const {
  return torch::zeros({part_ * communicator_->world_size()}, master_.options());
}

void ShardedUnit::point_parameters_into(const torch::Tensor& flat) {
  OrdinaryTensors ordinary;
  for (size_t i = 0; i < parameters_.size(); ++i)
    parameters_[i].set_data(flat.narrow(0, offsets_[i], numels_[i]).view(shapes_[i]));
}

void ShardedUnit::describe(const char* what) const {
  communicator_->describe_next("zero-" + std::to_string(static_cast<int>(stage_)) + " " + what +
                               " " + name_);
}

std::unique_ptr<PendingCollective> ShardedUnit::start_sharing_updates() {
  describe("shares the updates of");
  return communicator_->start_all_gather(flat_, master_);
}

void ShardedUnit::start_gather() {
  if (gathered_ || gathering_) return;
  OrdinaryTensors ordinary;
  flat_ = torch::empty({part_ * communicator_->world_size()}, master_.options());
  describe("gathers");
  gathering_ = communicator_->start_all_gather(flat_, master_);
}

void ShardedUnit::finish_gather() {
  if (gathered_) return;
  start_gather();
  gathering_->wait();
  gathering_.reset();
  point_parameters_into(flat_);
  gathered_ = true;
}

void ShardedUnit::release() {
  if (!gathered_) return;
  OrdinaryTensors ordinary;
  for (auto& p : parameters_) p.set_data(torch::empty({0}, p.options()));
  flat_ = torch::Tensor();
  gathered_ = false;
}

void ShardedUnit::begin_step() {
  if (stage_ == ZeroStage::optimizer_state) flat_gradients_.zero_();
}

void ShardedUnit::take_gradient(size_t index) {
  RUNNER_CHECK(!taken_flags_[index], "a parameter's gradient arrived twice in one backward");
  taken_flags_[index] = true;
  ++taken_;
  if (stage_ == ZeroStage::optimizer_state) return;  // backward added it to the flat vector
  torch::Tensor& grad = parameters_[index].mutable_grad();
  if (!bucket_.defined()) bucket_ = zeros_like_flat();
  bucket_.narrow(0, offsets_[index], numels_[index]).view(shapes_[index]).copy_(grad);
  grad.reset();  // the bucket has it: the whole gradient is not kept
}

void ShardedUnit::take_missing_gradients() {
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (taken_flags_[i]) continue;
    taken_flags_[i] = true;
    ++taken_;
  }
  if (stage_ != ZeroStage::optimizer_state && !bucket_.defined()) bucket_ = zeros_like_flat();
}

// Divided before the sum, as torch DDP does: the sum of averages cannot overflow where the
// sum of the gradients would.
void ShardedUnit::start_reduction() {
  const int world = communicator_->world_size();
  describe("reduces the gradients of");
  if (stage_ == ZeroStage::optimizer_state) {
    flat_gradients_.div_(world);
    reduction_ = communicator_->start_reduce_scatter_sum(part_of(flat_gradients_), flat_gradients_);
    return;
  }
  bucket_.div_(world);
  reduced_part_ = torch::empty({part_}, master_.options());
  reduction_ = communicator_->start_reduce_scatter_sum(reduced_part_, bucket_);
}

void ShardedUnit::finish_reduction() {
  reduction_->wait();
  reduction_.reset();
  torch::Tensor& grad = master_.mutable_grad();
  if (stage_ == ZeroStage::optimizer_state) {
    grad = part_of(flat_gradients_);
    return;
  }
  if (grad.defined())
    grad.add_(reduced_part_);
  else
    grad = reduced_part_;
  bucket_ = reduced_part_ = torch::Tensor();
}

void ShardedUnit::forget_gradients() {
  taken_flags_.assign(parameters_.size(), false);
  taken_ = 0;
}

std::vector<std::unique_ptr<ShardedUnit>> bucketed_units(
    const std::vector<torch::Tensor>& parameters, int64_t bucket_bytes,
    const std::shared_ptr<Communicator>& communicator, ZeroStage stage) {
  std::vector<std::unique_ptr<ShardedUnit>> units;
  std::vector<torch::Tensor> bucket;
  int64_t bytes = 0;
  auto close = [&] {
    if (!bucket.empty())
      units.push_back(std::make_unique<ShardedUnit>(bucket, communicator, stage));
    bucket.clear();
    bytes = 0;
  };
  for (size_t k = parameters.size(); k-- > 0;) {
    const torch::Tensor& p = parameters[k];
    const auto size = static_cast<int64_t>(p.nbytes());
    const bool same_kind = bucket.empty() || (bucket.front().dtype() == p.dtype() &&
                                              bucket.front().device() == p.device());
    if (!bucket.empty() && (bytes + size > bucket_bytes || !same_kind)) close();
    bucket.push_back(p);
    bytes += size;
  }
  close();
  for (size_t k = 0; k < units.size(); ++k)
    units[k]->set_name("bucket " + std::to_string(k + 1) + " of " + std::to_string(units.size()));
  return units;
}

std::vector<std::vector<Placement>> master_placements(
    const std::vector<std::unique_ptr<ShardedUnit>>& units, const torch::nn::Module& model) {
  const auto names = names_of(model);
  std::vector<std::vector<Placement>> placements;
  for (const auto& unit : units) {
    placements.emplace_back();
    for (const auto& span : unit->owned_spans()) {
      const torch::Tensor& p = unit->parameters()[span.parameter];
      placements.back().push_back({names.at(p.unsafeGetTensorImpl()),
                                   unit->shape_of(span.parameter),
                                   -1,
                                   span.in_parameter,
                                   span.in_master,
                                   span.numel,
                                   {span.numel}});
    }
  }
  return placements;
}

}  // namespace runner::strategies
