// The CPU kernels of fused_conv_relu (conv_cpu_kernels.hpp), compiled once per CPU capability.
//
// The convolution is an implicit GEMM, output (O, Ho Wo) = weight (O, C kh kw) x rows (C kh kw,
// Ho Wo), whose rows are read in place: with stride 1, row (c, i, j) is the zero-padded plane
// c shifted by (i, j), so no column matrix is built; other strides gather im2col columns
// (conv_cpu_layout.hpp). The product runs over flat columns, rows of the padded width one after
// another, the kw - 1 columns past a row's end computed and dropped, in register tiles that
// add the bias and apply the ReLU before their only store (conv_cpu_tile.hpp).
//
// Backward: g = grad_y * (y > 0). grad_x is a convolution of g spread on a grid (stride
// apart, offset by kernel - 1 - padding) with the flipped weight, run by the same tile
// kernel; grad_weight is a blocked dot product of g with the rows of x; grad_bias a row sum.
// Each thread takes a range of samples with its own scratch.
#include "conv_cpu_kernels.hpp"

#include <ATen/Parallel.h>
#include <ATen/cpu/vec/vec.h>

#include <algorithm>

#include "conv_cpu_layout.hpp"
#include "conv_cpu_tile.hpp"

namespace fused_conv_relu::cpu {
namespace CPU_CAPABILITY {
namespace {

template <typename T>
T sum_lanes(const Vec<T>& v) {
  T values[Vec<T>::size()];
  v.store(values);
  T sum = 0;
  for (int64_t i = 0; i < Vec<T>::size(); ++i) sum += values[i];
  return sum;
}

// Sum of `count` elements (a multiple of the vector length).
template <typename T>
T sum_row(const T* row, int64_t count) {
  Vec<T> acc(T(0));
  for (int64_t q = 0; q < count; q += lanes<T>()) acc = acc + Vec<T>::loadu(row + q);
  return sum_lanes(acc);
}

// sums (O, depth, lanes) += g . rows^T over `count` columns (a multiple of the vector length),
// lane by lane: the lanes are added up once per thread (sum_weight_lanes), not per sample.
// g has O rows `count` apart; rows past O or depth read `zeros`.
template <typename T>
void accumulate_weight_grad(const T* g, int64_t out_channels, int64_t count, const Rows<T>& src,
                            const T* zeros, T* sums) {
  const int64_t depth = static_cast<int64_t>(src.offsets.size());
  for (int64_t o0 = 0; o0 < out_channels; o0 += kDotRows)
    for (int64_t k0 = 0; k0 < depth; k0 += kDotCols) {
      const T* a[kDotRows];
      const T* b[kDotCols];
      Vec<T> acc[kDotRows][kDotCols];
      TILE_UNROLL
      for (int i = 0; i < kDotRows; ++i) {
        a[i] = o0 + i < out_channels ? g + (o0 + i) * count : zeros;
        TILE_UNROLL
        for (int j = 0; j < kDotCols; ++j) acc[i][j] = Vec<T>(T(0));
      }
      TILE_UNROLL
      for (int j = 0; j < kDotCols; ++j)
        b[j] = k0 + j < depth ? src.origin + src.offsets[k0 + j] : zeros;
      for (int64_t q = 0; q < count; q += lanes<T>()) {
        Vec<T> av[kDotRows];
        TILE_UNROLL
        for (int i = 0; i < kDotRows; ++i) av[i] = Vec<T>::loadu(a[i] + q);
        TILE_UNROLL
        for (int j = 0; j < kDotCols; ++j) {
          const Vec<T> bv = Vec<T>::loadu(b[j] + q);
          TILE_UNROLL
          for (int i = 0; i < kDotRows; ++i) acc[i][j] = at::vec::fmadd(av[i], bv, acc[i][j]);
        }
      }
      TILE_UNROLL
      for (int i = 0; i < kDotRows; ++i) {
        TILE_UNROLL
        for (int j = 0; j < kDotCols; ++j) {
          if (o0 + i >= out_channels || k0 + j >= depth) continue;
          T* slot = sums + ((o0 + i) * depth + k0 + j) * lanes<T>();
          (Vec<T>::loadu(slot) + acc[i][j]).store(slot);
        }
      }
    }
}

// grad_weight (O depth) += the lanes of sums (O depth, lanes) added up.
template <typename T>
void sum_weight_lanes(const T* sums, int64_t count, T* grad_weight) {
  for (int64_t e = 0; e < count; ++e)
    grad_weight[e] += sum_lanes(Vec<T>::loadu(sums + e * lanes<T>()));
}

template <typename T>
int64_t packed_size(int64_t rows, int64_t depth) {
  return round_up(rows, kRows) * depth;
}

// Block after block of kRows rows, each as (depth, kRows): the kRows values the tile kernel
// broadcasts for one k lie together. Rows past `rows` are zeros.
template <typename T>
void pack(const T* matrix, int64_t rows, int64_t depth, T* packed) {
  for (int64_t row0 = 0; row0 < rows; row0 += kRows)
    for (int64_t k = 0; k < depth; ++k)
      for (int r = 0; r < kRows; ++r)
        packed[row0 * depth + k * kRows + r] =
            row0 + r < rows ? matrix[(row0 + r) * depth + k] : T(0);
}

template <typename T>
int64_t forward_scratch(const ConvShape& s) {
  Carver<T> carver(nullptr);
  InputRows<T> input(s, carver, false);
  return carver.used();
}

template <typename T>
void forward_samples(const ConvShape& s, const T* x, const T* packed_weight, const T* bias, T* y,
                     int64_t first, int64_t last, T* scratch) {
  Carver<T> carver(scratch);
  const InputRows<T> input(s, carver, true);
  const int64_t depth = s.channels * s.kernel_h * s.kernel_w;
  Output<T> o{nullptr, s.out_channels, s.out_h, s.out_w, bias, true};
  for (int64_t n = first; n < last; ++n) {
    input.load(s, x + n * s.channels * s.height * s.width);
    o.out = y + n * s.out_channels * s.out_h * s.out_w;
    product(packed_weight, depth, input.rows, o);
  }
}

// A thread's backward scratch: the masked gradient of one sample; x's rows and that
// gradient in their columns (for grad_weight and grad_bias), zeros to stand for missing rows,
// grad_weight's sums by lane; the gradient spread for grad_x. Only the regions in use are zeroed.
template <typename T>
struct BackwardScratch {
  T* masked;
  InputRows<T> input;
  Grid gradient;
  T* gradient_data;
  T* zeros;
  T* weight_sums;  // (O, C kh kw, lanes): grad_weight before its lanes are added up
  Grid spread;
  T* spread_data;
  Rows<T> spread_rows;

  BackwardScratch(const ConvShape& s, Carver<T>& carver, bool weight, bool bias, bool x)
      : masked(carver.take(s.out_channels * s.out_h * s.out_w, false)),
        input(s, carver, weight),
        gradient(gradient_grid(s, input.rows.pitch, lanes<T>())),
        gradient_data(carver.take(gradient.size(), weight || bias)),
        zeros(carver.take(gradient.pitch, weight)),
        weight_sums(carver.take(s.out_channels * s.channels * s.kernel_h * s.kernel_w * lanes<T>(),
                                weight)),
        spread(spread_grid(s)),
        spread_data(carver.take(spread.size() + slack<T>(s), x)),
        spread_rows(
            window_rows(static_cast<const T*>(spread_data), spread, s.kernel_h, s.kernel_w)) {}
};

template <typename T>
int64_t backward_scratch(const ConvShape& s) {
  Carver<T> carver(nullptr);
  BackwardScratch<T> scratch(s, carver, false, false, false);
  return carver.used();
}

template <typename T>
void backward_samples(const ConvShape& s, const T* x, const T* y, const T* grad_y,
                      const T* packed_flipped, T* grad_x, T* grad_weight, T* grad_bias,
                      int64_t first, int64_t last, T* scratch) {
  Carver<T> carver(scratch);
  const BackwardScratch<T> b(s, carver, grad_weight, grad_bias, grad_x);
  const int64_t out_plane = s.out_channels * s.out_h * s.out_w;
  const int64_t in_plane = s.channels * s.height * s.width;
  const Output<T> base{nullptr, s.channels, s.height, s.width, nullptr, false};
  for (int64_t n = first; n < last; ++n) {
    masked_copy(grad_y + n * out_plane, y + n * out_plane, b.masked, out_plane);
    if (grad_weight || grad_bias)
      place(b.masked, s.out_h, s.out_w, b.gradient_data, b.gradient, 0, 0, 1, 1);
    for (int64_t o = 0; grad_bias && o < s.out_channels; ++o)
      grad_bias[o] += sum_row(b.gradient_data + o * b.gradient.pitch, b.gradient.pitch);
    if (grad_weight) {
      b.input.load(s, x + n * in_plane);
      accumulate_weight_grad(b.gradient_data, s.out_channels, b.gradient.pitch, b.input.rows,
                             b.zeros, b.weight_sums);
    }
    if (grad_x) {
      place(b.masked, s.out_h, s.out_w, b.spread_data, b.spread, s.kernel_h - 1 - s.pad_h,
            s.kernel_w - 1 - s.pad_w, s.stride_h, s.stride_w);
      Output<T> o = base;
      o.out = grad_x + n * in_plane;
      product(packed_flipped, s.out_channels * s.kernel_h * s.kernel_w, b.spread_rows, o);
    }
  }
  if (grad_weight)
    sum_weight_lanes(b.weight_sums, s.out_channels * s.channels * s.kernel_h * s.kernel_w,
                     grad_weight);
}

// Runs body(part, first, last) for the sample ranges of `parts` parts, one task each.
template <typename Body>
void for_each_part(int64_t batch, int64_t parts, const Body& body) {
  const int64_t size = parts == 0 ? 0 : ceil_div(batch, parts);
  at::parallel_for(0, parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) body(p, p * size, std::min(batch, (p + 1) * size));
  });
}

template <typename T>
T* part_of(T* base, int64_t part, int64_t size) {
  return base ? base + part * size : nullptr;
}

template <typename T>
void forward(const ConvShape& s, const T* x, const T* packed_weight, const T* bias, T* y,
             int64_t parts, T* scratch) {
  const int64_t scratch_size = forward_scratch<T>(s);
  for_each_part(s.batch, parts, [&](int64_t p, int64_t first, int64_t last) {
    forward_samples(s, x, packed_weight, bias, y, first, last, scratch + p * scratch_size);
  });
}

template <typename T>
void backward(const ConvShape& s, const T* x, const T* y, const T* grad_y, const T* packed_flipped,
              T* grad_x, T* grad_weight, T* grad_bias, int64_t parts, T* scratch) {
  const int64_t scratch_size = backward_scratch<T>(s);
  const int64_t weight_size = s.out_channels * s.channels * s.kernel_h * s.kernel_w;
  for_each_part(s.batch, parts, [&](int64_t p, int64_t first, int64_t last) {
    backward_samples(s, x, y, grad_y, packed_flipped, grad_x, part_of(grad_weight, p, weight_size),
                     part_of(grad_bias, p, s.out_channels), first, last,
                     scratch + p * scratch_size);
  });
}

}  // namespace

template <typename T>
const ConvKernels<T>& conv_kernels() {
  static const ConvKernels<T> kernels{&packed_size<T>,      &pack<T>,    &forward_scratch<T>,
                                      &backward_scratch<T>, &forward<T>, &backward<T>};
  return kernels;
}

template const ConvKernels<float>& conv_kernels<float>();
template const ConvKernels<double>& conv_kernels<double>();

}  // namespace CPU_CAPABILITY
}  // namespace fused_conv_relu::cpu
