// What a device does per second, as the step-time model needs it: GEMMs by size and precision,
// elementwise memory traffic, the link between ranks, and the disk or host an offload uses.
#pragma once

#include <runner/techniques.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace runner::layout {

struct Rates {
  // FLOP/s measured for GEMMs of given sizes: (FLOPs of one GEMM, FLOP/s), by precision, in
  // increasing size.
  std::map<Precision, std::vector<std::pair<double, double>>> gemm;
  double memory_bytes_per_s = 0;  // a large copy, reads and writes counted
  // Seconds per parameter that each micro-batch after the first adds to a step, by precision:
  // its gradients added to those held, autocast's casts, its weight gradients written whole.
  std::map<Precision, double> extra_pass_s_per_parameter;
  double cast_bytes_per_s = 0;  // fp32 cast to bf16: the read and the write counted
  double link_bytes_per_s = 0;  // what one rank sends to another per second
  // What each collective moves per rank per second, as a ring counts it: (n - 1) / n of the
  // gathered or scattered whole, twice that for an all-reduce.
  double all_reduce_bytes_per_s = 0;
  double all_gather_bytes_per_s = 0;
  double reduce_scatter_bytes_per_s = 0;
  double disk_bytes_per_s = 0;  // nvme offload: written and synced
  double host_bytes_per_s = 0;  // cpu offload: between the device and pinned host memory
  std::string source;           // how they were obtained, in a line

  // The rate of a GEMM of `flops` FLOPs: interpolated in log(flops) between the measured sizes,
  // the smallest's or largest's rate outside them. Throws ConfigError when `precision` has no
  // measurement.
  double gemm_rate(Precision precision, double flops) const;
};

}  // namespace runner::layout
