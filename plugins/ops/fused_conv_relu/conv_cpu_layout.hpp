// The data layout of fused_conv_relu's CPU kernels, included by conv_cpu_kernels.cpp only, so
// it lands in the namespace of each CPU capability's copy: the register tile sizes, a thread's
// scratch, and the grids and rows the implicit GEMM reads (a sample zero-padded, im2col columns
// for strides above 1, the masked gradient spread for grad_x).
#pragma once

#include <ATen/cpu/vec/vec.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "conv_shape.hpp"

namespace fused_conv_relu::cpu {
namespace CPU_CAPABILITY {
namespace {

template <typename T>
using Vec = at::vec::Vectorized<T>;

// Register tiles: kRows output channels x up to kVectors vectors of output pixels for the
// convolution, kDotRows x kDotCols accumulators for grad_weight.
#if defined(CPU_CAPABILITY_AVX512)
inline constexpr int kRows = 8;
inline constexpr int kVectors = 3;
inline constexpr int kDotRows = 4;
inline constexpr int kDotCols = 6;
#elif defined(CPU_CAPABILITY_AVX2)
inline constexpr int kRows = 4;
inline constexpr int kVectors = 3;
inline constexpr int kDotRows = 3;
inline constexpr int kDotCols = 4;
#else
inline constexpr int kRows = 4;
inline constexpr int kVectors = 2;
inline constexpr int kDotRows = 2;
inline constexpr int kDotCols = 4;
#endif

// Loops over a register tile must unroll completely, or its accumulators live in memory.
#define TILE_UNROLL _Pragma("GCC unroll 32")

inline constexpr int64_t kAlign = 16;  // scratch regions start at multiples of 16 elements

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

template <typename T>
constexpr int64_t lanes() {
  return Vec<T>::size();
}

// Elements past a grid's last plane that the kernels may read, into results they drop: the
// last chunk of a product reads up to a vector past the last output, a dot product up to a
// vector and kw - 1 elements past it.
template <typename T>
int64_t slack(const ConvShape& s) {
  return kVectors * lanes<T>() + s.kernel_w;
}

// Hands out consecutive aligned regions of a thread's scratch. With a null base it only
// counts, which is how the scratch sizes are computed from the same code.
template <typename T>
class Carver {
 public:
  explicit Carver(T* base) : base_(base) {}
  // `count` elements, zeroed when `zeroed`.
  T* take(int64_t count, bool zeroed) {
    T* region = base_ ? base_ + used_ : nullptr;
    used_ += round_up(count, kAlign);
    if (region && zeroed) std::fill(region, region + count, T(0));
    return region;
  }
  int64_t used() const { return used_; }

 private:
  T* base_;
  int64_t used_ = 0;
};

// `planes` planes of rows x cols elements, `pitch` elements apart.
struct Grid {
  int64_t planes, rows, cols, pitch;
  int64_t size() const { return planes * pitch; }
};

inline bool unit_stride(const ConvShape& s) { return s.stride_h == 1 && s.stride_w == 1; }

// x zero-padded: (C, H + 2 ph, W + 2 pw).
inline Grid padded_grid(const ConvShape& s) {
  const int64_t rows = s.height + 2 * s.pad_h, cols = s.width + 2 * s.pad_w;
  return {s.channels, rows, cols, rows * cols};
}

// The masked gradient in the columns the rows of x use: (O, Ho, cols), zero past Wo.
inline Grid gradient_grid(const ConvShape& s, int64_t cols, int64_t vector) {
  return {s.out_channels, s.out_h, cols, round_up(s.out_h * cols, vector)};
}

// The masked gradient spread for grad_x: (O, H + kh - 1, W + kw - 1).
inline Grid spread_grid(const ConvShape& s) {
  const int64_t rows = s.height + s.kernel_h - 1, cols = s.width + s.kernel_w - 1;
  return {s.out_channels, rows, cols, rows * cols};
}

// The source positions a in [lo, hi) for which start + a * step lies in [0, extent).
struct Range {
  int64_t lo, hi;
};
inline Range inside(int64_t count, int64_t start, int64_t step, int64_t extent) {
  const int64_t lo = start >= 0 ? 0 : ceil_div(-start, step);
  const int64_t hi = start >= extent ? 0 : std::min(count, ceil_div(extent - start, step));
  return {lo, std::max(lo, hi)};
}

// to[b] = mask[b] > 0 ? src[b] : 0 for b in [0, count), without branches: the gradient
// through a ReLU whose output is `mask`.
template <typename T>
void masked_copy(const T* src, const T* mask, T* to, int64_t count) {
  const Vec<T> zero(T(0));
  const auto copy = [&](int64_t b, int64_t n) {
    const Vec<T> m = Vec<T>::loadu(mask + b, n), value = Vec<T>::loadu(src + b, n);
    Vec<T>::blendv(zero, value, m > zero).store(to + b, n);
  };
  int64_t b = 0;
  for (; b + lanes<T>() <= count; b += lanes<T>()) copy(b, lanes<T>());
  if (b < count) copy(b, count - b);
}

// Writes the (h, w) planes of `src` into `grid`: element (a, b) of plane p goes to
// (top + a * step_h, left + b * step_w) of grid plane p when that lies inside. Other grid
// cells keep their value: zeros, set once per thread.
template <typename T>
void place(const T* src, int64_t h, int64_t w, T* grid, const Grid& g, int64_t top, int64_t left,
           int64_t step_h, int64_t step_w) {
  const Range rows = inside(h, top, step_h, g.rows), cols = inside(w, left, step_w, g.cols);
  for (int64_t p = 0; p < g.planes; ++p)
    for (int64_t a = rows.lo; a < rows.hi; ++a) {
      const T* from = src + (p * h + a) * w;
      T* to = grid + p * g.pitch + (top + a * step_h) * g.cols + left;
      if (step_w == 1) {  // rows are short: a vectorized loop, not a memcpy call
        for (int64_t b = cols.lo; b < cols.hi; ++b) to[b] = from[b];
        continue;
      }
      for (int64_t b = cols.lo; b < cols.hi; ++b) to[b * step_w] = from[b];
    }
}

// The right-hand side of an implicit GEMM: row k starts at origin + offsets[k]. Output (r, c)
// of the product is its flat column r * pitch + c.
template <typename T>
struct Rows {
  const T* origin = nullptr;
  std::vector<int64_t> offsets;
  int64_t pitch = 0;
};

// Rows (p, i, j) of a stride-1 convolution over `grid`: grid plane p shifted by (i, j).
template <typename T>
Rows<T> window_rows(const T* grid, const Grid& g, int64_t kernel_h, int64_t kernel_w) {
  Rows<T> rows{grid, {}, g.cols};
  for (int64_t p = 0; p < g.planes; ++p)
    for (int64_t i = 0; i < kernel_h; ++i)
      for (int64_t j = 0; j < kernel_w; ++j) rows.offsets.push_back(p * g.pitch + i * g.cols + j);
  return rows;
}

// Rows of an im2col matrix (depth, count), each output row out_w columns wide.
template <typename T>
Rows<T> column_rows(const T* columns, int64_t depth, int64_t count, int64_t out_w) {
  Rows<T> rows{columns, {}, out_w};
  for (int64_t k = 0; k < depth; ++k) rows.offsets.push_back(k * count);
  return rows;
}

// im2col from the padded planes, for strides above 1: column (a, b) of row (c, i, j) is
// plane c at (a sh + i, b sw + j).
template <typename T>
void gather_columns(const T* grid, const Grid& g, const ConvShape& s, T* columns) {
  T* out = columns;
  for (int64_t c = 0; c < s.channels; ++c)
    for (int64_t i = 0; i < s.kernel_h; ++i)
      for (int64_t j = 0; j < s.kernel_w; ++j)
        for (int64_t a = 0; a < s.out_h; ++a) {
          const T* in = grid + c * g.pitch + (a * s.stride_h + i) * g.cols + j;
          for (int64_t b = 0; b < s.out_w; ++b) *out++ = in[b * s.stride_w];
        }
}

// One sample of x as the rows of the implicit GEMM: its zero-padded planes and, for strides
// above 1, the im2col columns (C kh kw, Ho Wo) gathered from them.
template <typename T>
struct InputRows {
  Grid grid;
  T* padded = nullptr;
  T* columns = nullptr;
  Rows<T> rows;

  InputRows(const ConvShape& s, Carver<T>& carver, bool used) : grid(padded_grid(s)) {
    padded = carver.take(grid.size() + slack<T>(s), used);
    if (unit_stride(s)) {
      rows = window_rows(padded, grid, s.kernel_h, s.kernel_w);
      return;
    }
    const int64_t depth = s.channels * s.kernel_h * s.kernel_w, count = s.out_h * s.out_w;
    columns = carver.take(depth * count + slack<T>(s), used);
    rows = column_rows(columns, depth, count, s.out_w);
  }
  void load(const ConvShape& s, const T* sample) const {
    place(sample, s.height, s.width, padded, grid, s.pad_h, s.pad_w, 1, 1);
    if (columns) gather_columns(padded, grid, s, columns);
  }
};

}  // namespace
}  // namespace CPU_CAPABILITY
}  // namespace fused_conv_relu::cpu
