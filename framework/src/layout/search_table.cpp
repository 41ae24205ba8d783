// The search's text: rates, refusals, the ranked table.
#include "layout/search_table.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace runner::layout {
namespace {

// GiB, or MiB below one: a small model's plan reads 181.3 MiB rather than 0.18 GiB.
std::string memory_text(double bytes) {
  constexpr double kMiB = 1024.0 * 1024;
  return bytes < 1024 * kMiB ? fmt::format("{:.1f} MiB", bytes / kMiB) : plan::gibibytes(bytes);
}

// A model without an estimate of its own is sized by building it: say so, as it costs the
// model's memory once per precision and its sizes are measured, not derived.
std::string built_model_line(const Search& search) {
  const Candidate* any = !search.fitting.empty()       ? &search.fitting.front()
                         : !search.over_memory.empty() ? &search.over_memory.front()
                                                       : nullptr;
  if (!any || any->estimate.from_options) return "";
  return fmt::format(
      "  model '{}' has no estimate of its own: built once per precision and measured\n",
      any->run.model.name);
}

}  // namespace

std::string rates_text(const Rates& rates) {
  std::string text;
  for (const auto& [precision, points] : rates.gemm) {
    const auto best =
        std::max_element(points.begin(), points.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    text += fmt::format("GEMM {} {:.1f} GFLOP/s, ", precision_name(precision), best->second / 1e9);
  }
  text += fmt::format("copy {:.1f} GB/s, cast {:.1f} GB/s, ", rates.memory_bytes_per_s / 1e9,
                      rates.cast_bytes_per_s / 1e9);
  for (const auto& [precision, seconds] : rates.extra_pass_s_per_parameter)
    text += fmt::format("extra micro-batch {} {:.2f} ns/param, ", precision_name(precision),
                        seconds * 1e9);
  return text + fmt::format(
                    "link {:.2f} GB/s (all-reduce {:.2f}, all-gather {:.2f}, reduce-scatter "
                    "{:.2f}), disk {:.2f} GB/s ({})",
                    rates.link_bytes_per_s / 1e9, rates.all_reduce_bytes_per_s / 1e9,
                    rates.all_gather_bytes_per_s / 1e9, rates.reduce_scatter_bytes_per_s / 1e9,
                    rates.disk_bytes_per_s / 1e9, rates.source);
}

std::string search_text(const Search& search, size_t top) {
  size_t refused = 0;
  for (const auto& r : search.refused) refused += r.second;
  std::string text = fmt::format(
      "{} layouts: {} refused by the checks, {} over memory, {} offloading what fits without, "
      "{} fit\n",
      search.layouts, refused, search.over_memory.size(), search.needless_offloads,
      search.fitting.size());
  for (const auto& [reason, count] : search.refused)
    text += fmt::format("  refused {:>4}: {}\n", count, reason);
  text += built_model_line(search);
  if (search.fitting.empty()) return text;
  text += fmt::format("\n{:>3}  {:<62} {:>12} {:>10} {:>10}  {}\n", "#", "layout", "memory/rank",
                      "step", "samples/s", "loses to #1 by");
  const StepCost& best = search.fitting.front().cost;
  for (size_t i = 0; i < std::min(top, search.fitting.size()); ++i) {
    const Candidate& c = search.fitting[i];
    text += fmt::format("{:>3}  {:<62} {:>12} {:>8.3g} s {:>10.3g}  {}\n", i + 1, c.layout.label(),
                        memory_text(c.estimate.peak_bytes()), c.cost.total(), c.samples_per_s,
                        i ? why_slower(c.cost, best) : "");
  }
  return text;
}

}  // namespace runner::layout
