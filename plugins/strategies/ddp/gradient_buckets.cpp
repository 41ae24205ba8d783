// GradientBuckets: assigning parameters to flat buckets and all-reducing each as it fills.
#include "gradient_buckets.hpp"

namespace runner::strategies {

GradientBuckets::GradientBuckets(std::vector<torch::Tensor> parameters, int64_t bucket_bytes,
                                 std::shared_ptr<Communicator> communicator, bool overlap)
    : parameters_(std::move(parameters)),
      communicator_(std::move(communicator)),
      overlap_(overlap),
      slots_(parameters_.size()) {
  assign_buckets(bucket_bytes);
  for (size_t i = 0; i < parameters_.size(); ++i)
    parameters_[i].register_hook([this, i](const torch::Tensor& grad) { gradient_ready(i, grad); });
}

void GradientBuckets::assign_buckets(int64_t bucket_bytes) {
  int64_t bytes = 0;
  for (size_t k = parameters_.size(); k-- > 0;) {
    const torch::Tensor& p = parameters_[k];
    const bool fits = !buckets_.empty() && bytes + p.nbytes() <= static_cast<size_t>(bucket_bytes);
    const bool same_kind = !buckets_.empty() &&
                           parameters_[buckets_.back().parameters.front()].dtype() == p.dtype() &&
                           parameters_[buckets_.back().parameters.front()].device() == p.device();
    if (!fits || !same_kind) {
      buckets_.emplace_back();
      bytes = 0;
    }
    Bucket& bucket = buckets_.back();
    slots_[k] = {buckets_.size() - 1, bucket.flat.defined() ? bucket.flat.numel() : 0, false};
    bucket.parameters.push_back(k);
    bytes += static_cast<int64_t>(p.nbytes());
    torch::Tensor room = torch::zeros({p.numel()}, p.options().requires_grad(false));
    bucket.flat = bucket.flat.defined() ? torch::cat({bucket.flat, room}) : room;
  }
}

std::vector<std::vector<size_t>> GradientBuckets::layout() const {
  std::vector<std::vector<size_t>> layout;
  for (const auto& bucket : buckets_) layout.push_back(bucket.parameters);
  return layout;
}

torch::Tensor GradientBuckets::view_in_bucket(size_t parameter) {
  const Slot& slot = slots_[parameter];
  const torch::Tensor& p = parameters_[parameter];
  return buckets_[slot.bucket].flat.narrow(0, slot.offset, p.numel()).view(p.sizes());
}

void GradientBuckets::begin_backward() {
  for (auto& slot : slots_) slot.ready = false;
  for (auto& bucket : buckets_) bucket.ready = 0, bucket.reduction.reset();
  next_to_start_ = 0;
  armed_ = true;
}

void GradientBuckets::gradient_ready(size_t parameter, const torch::Tensor& grad) {
  if (!armed_) return;
  Slot& slot = slots_[parameter];
  // Autograd sums all uses of a parameter before its hook runs: one call per backward.
  RUNNER_CHECK(!slot.ready, "a parameter's gradient arrived twice in one backward");
  // The hook sees this backward's gradient before it is added to .grad, which holds the
  // earlier micro-batches' sum: the bucket takes both.
  const torch::Tensor& earlier = parameters_[parameter].grad();
  torch::Tensor slot_view = view_in_bucket(parameter);
  if (earlier.defined())
    torch::add_out(slot_view, earlier, grad);
  else
    slot_view.copy_(grad);
  slot.ready = true;
  ++buckets_[slot.bucket].ready;
  if (overlap_) start_ready_buckets();
}

void GradientBuckets::start_ready_buckets() {
  while (next_to_start_ < buckets_.size() &&
         buckets_[next_to_start_].ready == buckets_[next_to_start_].parameters.size())
    start(buckets_[next_to_start_++]);
}

void GradientBuckets::start(Bucket& bucket) {
  // Divided before the sum, as torch DDP does: the sum of averages cannot overflow where the
  // sum of the gradients would.
  bucket.flat.div_(communicator_->world_size());
  const size_t number = static_cast<size_t>(&bucket - buckets_.data()) + 1;
  communicator_->describe_next("ddp bucket " + std::to_string(number) + " of " +
                               std::to_string(buckets_.size()));
  bucket.reduction = communicator_->start_all_reduce_sum({bucket.flat});
}

void GradientBuckets::finish_backward() {
  for (size_t k = 0; k < parameters_.size(); ++k)
    if (!slots_[k].ready) {
      const torch::Tensor& earlier = parameters_[k].grad();
      if (earlier.defined())
        view_in_bucket(k).copy_(earlier);
      else
        view_in_bucket(k).zero_();
      slots_[k].ready = true;
      ++buckets_[slots_[k].bucket].ready;
    }
  start_ready_buckets();
  armed_ = false;
  for (auto& bucket : buckets_) bucket.reduction->wait();
  for (size_t k = 0; k < parameters_.size(); ++k) parameters_[k].mutable_grad() = view_in_bucket(k);
}

}  // namespace runner::strategies
