// A GEMM's rate at a size, from the rates measured at a few.
#include "layout/rates.hpp"

#include <runner/errors.hpp>

#include <cmath>

namespace runner::layout {

double Rates::gemm_rate(Precision precision, double flops) const {
  auto found = gemm.find(precision);
  if (found == gemm.end() || found->second.empty())
    throw ConfigError(std::string("no GEMM rate for ") + precision_name(precision),
                      "give one with --tflops " + std::string(precision_name(precision)) + "=T");
  const auto& points = found->second;
  if (flops <= points.front().first) return points.front().second;
  if (flops >= points.back().first) return points.back().second;
  size_t i = 1;
  while (points[i].first < flops) ++i;
  const auto& [f0, r0] = points[i - 1];
  const auto& [f1, r1] = points[i];
  const double t = std::log(flops / f0) / std::log(f1 / f0);
  return r0 + t * (r1 - r0);
}

}  // namespace runner::layout
