// The implicit GEMM of fused_conv_relu's CPU kernels, included by conv_cpu_kernels.cpp only,
// so it lands in the namespace of each CPU capability's copy: a packed matrix times the rows of
// conv_cpu_layout.hpp, over flat columns (rows of a grid's width one after another), in
// register tiles of kRows rows x kVectors vectors; bias and ReLU applied in registers before
// the tile's only store, masked to the columns that are outputs.
#pragma once

#include <ATen/cpu/vec/vec.h>

#include <algorithm>
#include <cstdint>

#include "conv_cpu_layout.hpp"

namespace fused_conv_relu::cpu {
namespace CPU_CAPABILITY {
namespace {

// Where a product goes: row r is the (out_h, out_w) plane at out + r out_h out_w, plus
// bias[r] when there is a bias, then max(., 0) when relu.
template <typename T>
struct Output {
  T* out;
  int64_t rows, out_h, out_w;
  const T* bias;
  bool relu;
};

// acc[r][v] = sum over k of a(r, k) * row k at (origin + v lanes), for the kRows rows of one
// block of a packed matrix (depth x kRows).
template <typename T, int NV>
inline void multiply_tile(const T* packed, int64_t depth, const T* origin, const int64_t* offsets,
                          Vec<T> (&acc)[kRows][NV]) {
  TILE_UNROLL
  for (int r = 0; r < kRows; ++r) {
    TILE_UNROLL
    for (int v = 0; v < NV; ++v) acc[r][v] = Vec<T>(T(0));
  }
  for (int64_t k = 0; k < depth; ++k) {
    const T* row = origin + offsets[k];
    Vec<T> b[NV];
    TILE_UNROLL
    for (int v = 0; v < NV; ++v) b[v] = Vec<T>::loadu(row + v * lanes<T>());
    const T* a = packed + k * kRows;
    TILE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      const Vec<T> ar(a[r]);
      TILE_UNROLL
      for (int v = 0; v < NV; ++v) acc[r][v] = at::vec::fmadd(ar, b[v], acc[r][v]);
    }
  }
}

// Stores lanes [first, last) of v, lane i at dst + i; the other lanes are not written.
template <typename T>
inline void store_lanes(const Vec<T>& v, T* dst, int first, int last) {
  T lanes_of_v[Vec<T>::size()];
  v.store(lanes_of_v);
  for (int i = first; i < last; ++i) dst[i] = lanes_of_v[i];
}
#if defined(CPU_CAPABILITY_AVX512)
inline void store_lanes(const Vec<float>& v, float* dst, int first, int last) {
  _mm512_mask_storeu_ps(dst, static_cast<__mmask16>(((1u << (last - first)) - 1) << first), v);
}
inline void store_lanes(const Vec<double>& v, double* dst, int first, int last) {
  _mm512_mask_storeu_pd(dst, static_cast<__mmask8>(((1u << (last - first)) - 1) << first), v);
}
#endif

// Where the lanes of a chunk of flat columns go in an output plane: vector v's segments are
// [begin[v], begin[v + 1]), each putting the vector's lanes [first, last) at plane + offset +
// lane. Flat columns past a row's out_w, and past the chunk, go nowhere.
template <typename T>
struct ChunkPlan {
  struct Segment {
    int first, last;
    int64_t offset;
  };
  Segment segments[kVectors * (Vec<T>::size() + 1)];
  int begin[kVectors + 1] = {};

  // The chunk of `count` flat columns from q0, flat column q being output
  // (q / pitch, q % pitch) when q % pitch < out_w.
  ChunkPlan(int64_t q0, int64_t count, int64_t pitch, int64_t out_w) {
    int64_t row = q0 / pitch, col = q0 % pitch;
    int n = 0;
    for (int v = 0; v < kVectors; ++v) {
      begin[v] = n;
      for (int64_t lane = 0, left = count - v * lanes<T>(); lane < lanes<T>() && lane < left;) {
        const int64_t span = std::min({lanes<T>() - lane, pitch - col, left - lane});
        const int64_t kept = std::min(span, out_w - col);
        if (kept > 0)
          segments[n++] = {static_cast<int>(lane), static_cast<int>(lane + kept),
                           row * out_w + col - lane};
        lane += span;
        col += span;
        if (col == pitch) {
          col = 0;
          ++row;
        }
      }
    }
    begin[kVectors] = n;
  }
};

// Stores rows [row0, row0 + kRows) of the chunk planned by `plan`, with bias and ReLU applied
// in registers.
template <typename T, int NV>
inline void store_tile(const Vec<T> (&acc)[kRows][NV], const Output<T>& o, int64_t row0,
                       const ChunkPlan<T>& plan) {
  TILE_UNROLL
  for (int r = 0; r < kRows; ++r) {
    if (row0 + r >= o.rows) return;
    T* plane = o.out + (row0 + r) * o.out_h * o.out_w;
    const Vec<T> bias(o.bias ? o.bias[row0 + r] : T(0));
    TILE_UNROLL
    for (int v = 0; v < NV; ++v) {
      Vec<T> value = o.bias ? acc[r][v] + bias : acc[r][v];
      if (o.relu) value = at::vec::maximum(value, Vec<T>(T(0)));
      for (int i = plan.begin[v]; i < plan.begin[v + 1]; ++i)
        store_lanes(value, plane + plan.segments[i].offset, plan.segments[i].first,
                    plan.segments[i].last);
    }
  }
}

// The chunk of flat columns from q0 for every block of rows; the chunk's right-hand side
// (depth x NV vectors) stays in L1 from one block to the next.
template <typename T, int NV>
void product_chunk(const T* packed, int64_t depth, const Rows<T>& src, const Output<T>& o,
                   int64_t q0, const ChunkPlan<T>& plan) {
  for (int64_t row0 = 0; row0 < o.rows; row0 += kRows) {
    Vec<T> acc[kRows][NV];
    multiply_tile<T, NV>(packed + row0 * depth, depth, src.origin + q0, src.offsets.data(), acc);
    store_tile<T, NV>(acc, o, row0, plan);
  }
}

// o = packed matrix (o.rows x depth) times the rows of `src`, over the flat columns up to the
// last output (those past out_w in a row are computed and dropped), in chunks of kVectors
// vectors.
template <typename T>
void product(const T* packed, int64_t depth, const Rows<T>& src, const Output<T>& o) {
  const int64_t chunk = kVectors * lanes<T>();
  const int64_t total = (o.out_h - 1) * src.pitch + o.out_w;
  for (int64_t q0 = 0; q0 < total; q0 += chunk) {
    const int64_t count = std::min(chunk, total - q0);
    const ChunkPlan<T> plan(q0, count, src.pitch, o.out_w);
    const int64_t vectors = ceil_div(count, lanes<T>());
    if (vectors == 1)
      product_chunk<T, 1>(packed, depth, src, o, q0, plan);
    else if (vectors == 2)
      product_chunk<T, 2>(packed, depth, src, o, q0, plan);
    else
      product_chunk<T, kVectors>(packed, depth, src, o, q0, plan);
  }
}

}  // namespace
}  // namespace CPU_CAPABILITY
}  // namespace fused_conv_relu::cpu
