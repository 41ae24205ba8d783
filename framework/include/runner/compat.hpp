// The LibTorch API differences between 1.13 (Debian's CPU build) and 2.x (the CUDA builds), in
// one place, so that plugins call one function whichever LibTorch they are built against.
#pragma once

#include <ATen/autocast_mode.h>
#include <c10/core/Allocator.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

// True when the LibTorch being compiled against is MAJOR.MINOR or newer.
#define RUNNER_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||         \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace runner::compat {

// A CPU c10::Allocator written once for both APIs: LibTorch 2.x (from 2.3) made allocate()
// non-const and added copy_data(), pure; 1.13 has allocate() const and no copy_data(). A
// subclass implements allocate_block() and raw_deleter(); its blocks are plain host memory,
// copied as the default CPU allocator copies them.
class CpuAllocator : public c10::Allocator {
 public:
#if RUNNER_TORCH_AT_LEAST(2, 3)
  c10::DataPtr allocate(size_t bytes) override { return allocate_block(bytes); }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
#else
  c10::DataPtr allocate(size_t bytes) const override { return allocate_block(bytes); }
#endif

 protected:
  virtual c10::DataPtr allocate_block(size_t bytes) const = 0;
};

// The key of a parameter's slot in torch::optim::Optimizer::state(): the text of its
// TensorImpl's address in 1.13, the address itself from 2.2 on.
#if RUNNER_TORCH_AT_LEAST(2, 2)
inline void* optimizer_state_key(const torch::Tensor& parameter) {
  return parameter.unsafeGetTensorImpl();
}
#else
inline std::string optimizer_state_key(const torch::Tensor& parameter) {
  return c10::guts::to_string(parameter.unsafeGetTensorImpl());
}
#endif

// TCPStore's server (c10d::TCPStoreOptions) takes libuv's event loop by default from LibTorch
// 2.4 on, and a LibTorch built without libuv (Debian's) then refuses to make one. The classic
// server, the only one in 1.13, is in every build.
template <typename StoreOptions, typename = void>
struct HasLibUvChoice : std::false_type {};
template <typename StoreOptions>
struct HasLibUvChoice<StoreOptions, std::void_t<decltype(std::declval<StoreOptions&>().useLibUV)>>
    : std::true_type {};

template <typename StoreOptions>
void use_classic_store_server(StoreOptions& options) {
  if constexpr (HasLibUvChoice<StoreOptions>::value) options.useLibUV = false;
}

// Autocast's switches for one device type (CPU or CUDA): LibTorch 2.4 took the device type as
// an argument; 1.13 has one function per device type.
struct AutocastState {
  bool enabled = false;
  c10::ScalarType dtype = c10::ScalarType::BFloat16;

  static AutocastState of(c10::DeviceType device) {
#if RUNNER_TORCH_AT_LEAST(2, 4)
    return {at::autocast::is_autocast_enabled(device), at::autocast::get_autocast_dtype(device)};
#else
    if (device == c10::DeviceType::CUDA)
      return {at::autocast::is_enabled(), at::autocast::get_autocast_gpu_dtype()};
    return {at::autocast::is_cpu_enabled(), at::autocast::get_autocast_cpu_dtype()};
#endif
  }

  // The dtype is set when enabled or when restoring a state read before (a dtype the library
  // took once): a new disabled state leaves it alone, as 1.13's CPU autocast refuses any dtype
  // but bf16, even while off.
  void apply_to(c10::DeviceType device, bool restoring = false) const {
    const bool set_dtype = enabled || restoring;
#if RUNNER_TORCH_AT_LEAST(2, 4)
    if (set_dtype) at::autocast::set_autocast_dtype(device, dtype);
    at::autocast::set_autocast_enabled(device, enabled);
#else
    if (device == c10::DeviceType::CUDA) {
      if (set_dtype) at::autocast::set_autocast_gpu_dtype(dtype);
      at::autocast::set_enabled(enabled);
    } else {
      if (set_dtype) at::autocast::set_autocast_cpu_dtype(dtype);
      at::autocast::set_cpu_enabled(enabled);
    }
#endif
  }
};

// Puts `state` in force on this thread for `device` while it lives, as torch.autocast's
// context manager: ops on that device's tensors run in state.dtype where autocast lists them
// (matmuls, convolutions) and in fp32 where precision matters (softmax, losses). The previous
// state comes back at the end, and the cache of cast weights is dropped when the outermost
// scope ends.
class AutocastScope {
 public:
  AutocastScope(c10::DeviceType device, AutocastState state)
      : device_(device), previous_(AutocastState::of(device)) {
    state.apply_to(device_);
    at::autocast::increment_nesting();
  }
  ~AutocastScope() {
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    previous_.apply_to(device_, /*restoring=*/true);
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  c10::DeviceType device_;
  AutocastState previous_;
};

// Scaled dot-product attention in which position t attends to positions 0..t only:
// softmax(q k^T / sqrt(head_dim), masked causally) v, with dropout on the attention weights
// while `training`. q, k, v: (B, heads, T, head_dim) -> (B, heads, T, head_dim).
inline torch::Tensor causal_self_attention(const torch::Tensor& q, const torch::Tensor& k,
                                           const torch::Tensor& v, double dropout_p,
                                           bool training) {
#if RUNNER_TORCH_AT_LEAST(2, 0)
  // Fused kernels (flash, memory-efficient) where the device has them. On the CPU, LibTorch
  // 2.x's fused kernel is 6-8x slower in bf16 than in float (tools/bench/README.md, "bf16
  // attention in float"): reduced-precision inputs are attended in float, which is also the
  // more exact, outside autocast (it would cast them back), and the output cast back.
  const double p = training ? dropout_p : 0.0;
  if (q.device().is_cpu() && (q.scalar_type() == at::kBFloat16 || q.scalar_type() == at::kHalf)) {
    c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::DispatchKey::AutocastCPU);
    return at::scaled_dot_product_attention(q.to(at::kFloat), k.to(at::kFloat), v.to(at::kFloat),
                                            /*attn_mask=*/{}, p, /*is_causal=*/true)
        .to(q.scalar_type());
  }
  return at::scaled_dot_product_attention(q, k, v, /*attn_mask=*/{}, p, /*is_causal=*/true);
#else
  const int64_t steps = q.size(-2);
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  // Scaling q rather than the scores is one pass over (B, heads, T, head_dim) instead of
  // (B, heads, T, T), and the same numbers when head_dim is a power of 4 (the scale a power of
  // 2). The mask goes on in place: matmul's backward needs its inputs, not its output.
  torch::Tensor scores = torch::matmul(q * scale, k.transpose(-2, -1));  // (B, heads, T, T)
  torch::Tensor future =  // (T, T): true above the diagonal, where a key comes after its query
      torch::ones({steps, steps}, q.options().dtype(torch::kBool)).triu(1);
  scores.masked_fill_(future, -std::numeric_limits<double>::infinity());
  torch::Tensor weights = torch::dropout(torch::softmax(scores, -1), dropout_p, training);
  return torch::matmul(weights, v);  // (B, heads, T, head_dim)
#endif
}

}  // namespace runner::compat
