// Building blocks for a model that splits over a tensor-parallel group (its TensorSplitter,
// runner/tensor_split.hpp), as Megatron-LM (Shoeybi et al., 2019) splits a transformer:
// a column-parallel linear (each rank computes some of the outputs) takes its input through
// enter_split_region, and a row-parallel linear (each rank takes some of the inputs) gives its
// partial products to leave_split_region, so a block costs one all-reduce in forward and one
// in backward.
#pragma once

#include <torch/autograd.h>

#include <memory>
#include <utility>

#include "runner/communicator.hpp"

namespace runner::tensor_parallel {

namespace detail {

struct GroupHolder : torch::CustomClassHolder {
  explicit GroupHolder(std::shared_ptr<Communicator> g) : group(std::move(g)) {}
  std::shared_ptr<Communicator> group;
};

inline Communicator& group_of(torch::autograd::AutogradContext* ctx) {
  auto holder =
      c10::static_intrusive_pointer_cast<GroupHolder>(ctx->saved_data["group"].toCapsule());
  return *holder->group;
}

inline torch::Tensor summed(const torch::Tensor& x, Communicator& group) {
  torch::Tensor total = x.contiguous().clone();
  group.all_reduce_sum({total});
  return total;
}

// Identity forward; backward sums the gradient over the group (Megatron's f).
struct Enter : torch::autograd::Function<Enter> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const c10::intrusive_ptr<GroupHolder>& holder) {
    ctx->saved_data["group"] = c10::IValue::make_capsule(holder);
    return x.view_as(x);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    return {summed(grads[0], group_of(ctx)), torch::Tensor()};
  }
};

// Forward sums over the group; backward passes the gradient on to every rank (Megatron's g).
struct Leave : torch::autograd::Function<Leave> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const c10::intrusive_ptr<GroupHolder>& holder) {
    (void)ctx;
    return summed(x, *holder->group);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    (void)ctx;
    return {grads[0], torch::Tensor()};
  }
};

}  // namespace detail

// x, which every rank of `group` holds whole, on its way into a column-parallel linear: the
// same in forward; in backward each rank's gradient of it (from its own columns) is summed.
inline torch::Tensor enter_split_region(const torch::Tensor& x,
                                        const std::shared_ptr<Communicator>& group) {
  return detail::Enter::apply(x, c10::make_intrusive<detail::GroupHolder>(group));
}

// A row-parallel linear's partial products -> their sum over `group`, whole on every rank.
inline torch::Tensor leave_split_region(const torch::Tensor& partial,
                                        const std::shared_ptr<Communicator>& group) {
  return detail::Leave::apply(partial, c10::make_intrusive<detail::GroupHolder>(group));
}

// This rank's part of `whole` along `dim`: the rank-th of world_size equal slices.
inline torch::Tensor part_of(const torch::Tensor& whole, int64_t dim, const Communicator& group) {
  const int64_t size = whole.size(dim) / group.world_size();
  return whole.narrow(dim, group.rank() * size, size).clone();
}

}  // namespace runner::tensor_parallel
