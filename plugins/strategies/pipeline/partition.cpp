// cut_layers: contiguous stages balanced by layer count, or by parameters or FLOPs (minimax).
#include "partition.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace runner::strategies {
namespace {

void check_enough_layers(size_t layers, int stages) {
  if (stages < 1 || layers < static_cast<size_t>(stages))
    throw std::invalid_argument(std::to_string(stages) +
                                " pipeline stages need at least as many "
                                "layers; the model lists " +
                                std::to_string(layers));
}

}  // namespace

// best[j][i]: the lightest heaviest stage when the first i layers make j stages.
std::vector<LayerRange> balance_by_weight(const std::vector<double>& weights, int stages) {
  const size_t n = weights.size(), k = static_cast<size_t>(stages);
  check_enough_layers(n, stages);
  std::vector<double> prefix(n + 1, 0.0);
  for (size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + weights[i];
  const double none = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> best(k + 1, std::vector<double>(n + 1, none));
  std::vector<std::vector<size_t>> cut(k + 1, std::vector<size_t>(n + 1, 0));
  best[0][0] = 0;
  for (size_t j = 1; j <= k; ++j)
    for (size_t i = j; i <= n; ++i)
      for (size_t c = j - 1; c < i; ++c) {
        const double heaviest = std::max(best[j - 1][c], prefix[i] - prefix[c]);
        if (heaviest < best[j][i]) best[j][i] = heaviest, cut[j][i] = c;
      }
  std::vector<LayerRange> ranges(k);
  for (size_t j = k, end = n; j > 0; --j) {
    ranges[j - 1] = {cut[j][end], end};
    end = cut[j][end];
  }
  return ranges;
}

std::vector<LayerRange> balance_by_count(size_t layers, int stages) {
  check_enough_layers(layers, stages);
  const size_t k = static_cast<size_t>(stages), each = layers / k, extra = layers % k;
  std::vector<LayerRange> ranges;
  for (size_t s = 0, begin = 0; s < k; ++s) {
    const size_t size = each + (s < extra ? 1 : 0);
    ranges.push_back({begin, begin + size});
    begin += size;
  }
  return ranges;
}

bool says_flops(const LayerWeights& layers) {
  for (double f : layers.flops)
    if (f > 0) return true;
  return false;
}

std::vector<LayerRange> cut_layers(const std::string& balance, const LayerWeights& layers,
                                   int stages) {
  if (balance == "layers") return balance_by_count(layers.parameters.size(), stages);
  if (balance == "flops" && says_flops(layers)) return balance_by_weight(layers.flops, stages);
  return balance_by_weight(layers.parameters, stages);
}

}  // namespace runner::strategies
