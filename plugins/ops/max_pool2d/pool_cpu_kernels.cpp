// The CPU kernels of max_pool2d (pool_cpu_kernels.hpp), compiled once per CPU capability.
//
// A window is scanned row by row as PyTorch scans it: an element wins when it is larger than
// the best so far or a NaN, so the first of equal maxima and the last NaN win, and a window
// of -inf alone points at its first element. The general kernel works an output row at a
// time, window position by window position, over all outputs of the row: a branch-free loop
// the compiler vectorizes. 2x2 windows with stride 2 and no padding (LeNet's pool) have a
// loop of their own.
#include "pool_cpu_kernels.hpp"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace max_pool2d::cpu {
namespace CPU_CAPABILITY {
namespace {

// The unsigned integer of T's size, to select between two T by bit masks.
template <typename T>
using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

template <typename T>
inline Bits<T> bits_of(T value) {
  Bits<T> bits;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}

// Moves (best, index) to (value, at) when value wins: is larger, or a NaN.
// The selects are bit masks, not branches: which element wins is data, and a mispredicted
// branch per element costs more than the pool itself.
template <typename T>
inline void challenge(T value, int32_t at, T& best, int32_t& index) {
  const bool won = (value > best) | std::isnan(value);
  const Bits<T> take = Bits<T>(0) - Bits<T>(won);  // all ones when won
  const Bits<T> chosen = (bits_of(value) & take) | (bits_of(best) & ~take);
  std::memcpy(&best, &chosen, sizeof(T));
  const int32_t take_index = -static_cast<int32_t>(won);
  index = (at & take_index) | (index & ~take_index);
}

// The source positions b in [lo, hi) for which start + b * step lies in [0, extent).
struct Range {
  int64_t lo, hi;
};
Range inside(int64_t count, int64_t start, int64_t step, int64_t extent) {
  const int64_t lo = start >= 0 ? 0 : (-start + step - 1) / step;
  const int64_t hi = start >= extent ? 0 : std::min(count, (extent - start + step - 1) / step);
  return {lo, std::max(lo, hi)};
}

bool is_2x2_stride_2(const PoolShape& s) {
  return s.kernel_h == 2 && s.kernel_w == 2 && s.stride_h == 2 && s.stride_w == 2 && s.pad_h == 0 &&
         s.pad_w == 0;
}

// One plane, 2x2 windows, stride 2, no padding.
template <typename T>
void pool_2x2(const PoolShape& s, const T* x, T* y, int32_t* indices) {
  const int32_t width = static_cast<int32_t>(s.width);
  for (int64_t a = 0; a < s.out_h; ++a) {
    const T* top = x + 2 * a * s.width;
    const T* bottom = top + s.width;
    T* out = y + a * s.out_w;
    int32_t* index = indices + a * s.out_w;
    const int32_t row = static_cast<int32_t>(2 * a) * width;
    for (int64_t b = 0; b < s.out_w; ++b) {
      const int32_t at = row + static_cast<int32_t>(2 * b);
      T best = top[2 * b];
      int32_t best_at = at;
      challenge(top[2 * b + 1], at + 1, best, best_at);
      challenge(bottom[2 * b], at + width, best, best_at);
      challenge(bottom[2 * b + 1], at + width + 1, best, best_at);
      out[b] = best;
      index[b] = best_at;
    }
  }
}

// One plane, any window: output row a is built in place in y and indices, one window
// position (i, j) at a time over all its outputs, positions in the order of a window's scan.
template <typename T>
void pool_general(const PoolShape& s, const T* x, T* y, int32_t* indices) {
  for (int64_t a = 0; a < s.out_h; ++a) {
    T* out = y + a * s.out_w;
    int32_t* index = indices + a * s.out_w;
    const int64_t top = a * s.stride_h - s.pad_h;
    const int64_t first_row = std::max<int64_t>(top, 0);
    const int64_t last_row = std::min(top + s.kernel_h, s.height);
    for (int64_t b = 0; b < s.out_w; ++b) {
      out[b] = -std::numeric_limits<T>::infinity();
      const int64_t first_col = std::max<int64_t>(b * s.stride_w - s.pad_w, 0);
      index[b] = static_cast<int32_t>(first_row * s.width + first_col);
    }
    for (int64_t r = first_row; r < last_row; ++r)
      for (int64_t j = 0; j < s.kernel_w; ++j) {
        const int64_t start = j - s.pad_w;  // column of output b: b * stride + start
        const Range outputs = inside(s.out_w, start, s.stride_w, s.width);
        const T* in = x + r * s.width;
        const int32_t row = static_cast<int32_t>(r * s.width);
        for (int64_t b = outputs.lo; b < outputs.hi; ++b) {
          const int64_t col = start + b * s.stride_w;
          challenge(in[col], row + static_cast<int32_t>(col), out[b], index[b]);
        }
      }
  }
}

template <typename T>
void forward_planes(const PoolShape& s, const T* x, T* y, int32_t* indices, int64_t first,
                    int64_t last) {
  const int64_t in_plane = s.height * s.width, out_plane = s.out_h * s.out_w;
  const bool quick = is_2x2_stride_2(s);
  for (int64_t p = first; p < last; ++p) {
    if (quick)
      pool_2x2(s, x + p * in_plane, y + p * out_plane, indices + p * out_plane);
    else
      pool_general(s, x + p * in_plane, y + p * out_plane, indices + p * out_plane);
  }
}

template <typename T>
void backward_planes(const PoolShape& s, const T* grad_y, const int32_t* indices, T* grad_x,
                     int64_t first, int64_t last) {
  const int64_t in_plane = s.height * s.width, out_plane = s.out_h * s.out_w;
  for (int64_t p = first; p < last; ++p) {
    T* plane = grad_x + p * in_plane;
    const T* g = grad_y + p * out_plane;
    const int32_t* index = indices + p * out_plane;
    std::fill(plane, plane + in_plane, T(0));
    for (int64_t q = 0; q < out_plane; ++q) plane[index[q]] += g[q];
  }
}

// Planes per task: enough elements that a thread's share outweighs starting it.
int64_t grain(const PoolShape& s) {
  return std::max<int64_t>(1, 16384 / std::max<int64_t>(1, s.height * s.width));
}

template <typename T>
void forward(const PoolShape& s, const T* x, T* y, int32_t* indices) {
  at::parallel_for(0, s.planes, grain(s), [&](int64_t first, int64_t last) {
    forward_planes(s, x, y, indices, first, last);
  });
}

template <typename T>
void backward(const PoolShape& s, const T* grad_y, const int32_t* indices, T* grad_x) {
  at::parallel_for(0, s.planes, grain(s), [&](int64_t first, int64_t last) {
    backward_planes(s, grad_y, indices, grad_x, first, last);
  });
}

}  // namespace

template <typename T>
const PoolKernels<T>& pool_kernels() {
  static const PoolKernels<T> kernels{&forward<T>, &backward<T>};
  return kernels;
}

template const PoolKernels<float>& pool_kernels<float>();
template const PoolKernels<double>& pool_kernels<double>();

}  // namespace CPU_CAPABILITY
}  // namespace max_pool2d::cpu
