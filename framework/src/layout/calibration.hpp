// Measures the rates the step-time model needs on this machine, in a few seconds: GEMMs of a
// few sizes at each precision with a rank's threads, a large copy and cast, a step of a layer
// stack in one micro-batch and in four (what an extra micro-batch costs), a loopback
// connection between two threads (the link between CPU ranks), a synced file write (nvme
// offload). What the user gives instead (--tflops, --bandwidth) replaces the measurement.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "layout/layouts.hpp"
#include "layout/rates.hpp"

namespace runner::layout {

struct Calibration {
  Devices devices;
  int threads_per_rank = 1;  // CPU ranks: ATen threads each rank would train with
  double cpu_share = 1;      // of a core per thread, when CPU ranks outnumber the cores
  std::string disk_folder;   // where nvme offload writes its files
  std::map<Precision, double> given_flops;  // FLOP/s, instead of measuring GEMMs
  std::optional<double> given_link;         // bytes/s between ranks
  std::optional<double> given_memory;       // bytes/s of elementwise traffic
};

// Measures on this machine's CPU, or on its first GPU for CUDA devices. With CUDA devices
// and no GPU here, every rate must be given: ConfigError names the missing option.
Rates calibrate(const Calibration& calibration);

}  // namespace runner::layout
