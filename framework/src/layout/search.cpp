// The layout search: enumerate, check, plan, predict, rank.
#include "layout/search.hpp"
#include "config/load_experiment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "plan/dataset_cache.hpp"
#include "train/technique_checks.hpp"

namespace runner::layout {
namespace {

int world_size_of(const Layout& layout, const Devices& devices) {
  return layout.strategy == "single" || layout.strategy == "dp" ? 1 : devices.count;
}

// Plans each layout; a model is sized once per precision (its activations depend on it).
class Planner {
 public:
  Planner(const SearchRequest& request, const plugin_host::Registry& registry)
      : request_(request), registry_(registry), datasets_(registry) {}

  // The layout's run and plan; ConfigError when a check refuses it.
  Candidate plan(const Layout& layout) {
    std::vector<std::string> overrides = request_.overrides;
    for (auto& o : layout.train_overrides()) overrides.push_back(o);
    const config::Experiment experiment =
        config::parse_with_strategy(request_.text, request_.file, overrides, layout.strategy,
                                    layout.strategy_overrides(request_.devices), registry_);
    Candidate candidate{layout, experiment.runs.front(), {}, {}, 0};
    const int world = world_size_of(layout, request_.devices);
    train::check_batch_divides(candidate.run, world);
    Dataset& dataset = datasets_.get(candidate.run);
    const plan::ModelSizing& sizing = sized(candidate.run, layout.precision, dataset);
    if (layout.checkpoint_layers && sizing.model.layers.empty())
      throw ConfigError(
          fmt::format("train.activation_checkpointing = \"layers\", but model '{}' "
                      "lists no layers",
                      candidate.run.model.name));
    candidate.estimate = plan::plan_model(candidate.run, registry_, world, sizing, dataset.info());
    train::check_techniques(candidate.run, candidate.estimate.plan.data_parallel_degree);
    return candidate;
  }

 private:
  const plan::ModelSizing& sized(const config::RunConfig& run, Precision precision,
                                 Dataset& dataset) {
    auto found = sizes_.find(precision);
    if (found == sizes_.end())
      found = sizes_.emplace(precision, plan::size_model(run, registry_, dataset)).first;
    return found->second;
  }

  const SearchRequest& request_;
  const plugin_host::Registry& registry_;
  plan::DatasetCache datasets_;
  std::map<Precision, plan::ModelSizing> sizes_;
};

void predict(Candidate& c, const SearchRequest& request, const Rates& rates) {
  const StepInput input{c.layout, c.estimate.model, c.run.train.batch_size,
                        plan::optimizer_states_per_parameter(c.run.optimizer), request.devices};
  c.cost = predict_step(input, rates);
  c.samples_per_s = static_cast<double>(input.batch_size) / c.cost.total();
}

std::vector<std::pair<std::string, size_t>> most_first(const std::map<std::string, size_t>& m) {
  std::vector<std::pair<std::string, size_t>> sorted(m.begin(), m.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return sorted;
}

// An offload moves the optimizer state out of the device's memory and costs time for it: it
// stays among the fitting layouts only when the same layout without it does not fit.
void drop_needless_offloads(Search& search, const Devices& devices) {
  std::set<std::string> fitting;
  for (const auto& c : search.fitting) fitting.insert(c.layout.label());
  const auto needless = [&](const Candidate& c) {
    return c.layout.offload != "none" && fitting.count(c.layout.label_without_offload(devices));
  };
  const auto end = std::remove_if(search.fitting.begin(), search.fitting.end(), needless);
  search.needless_offloads = static_cast<size_t>(search.fitting.end() - end);
  search.fitting.erase(end, search.fitting.end());
}

}  // namespace

Search search_layouts(const SearchRequest& request, const plugin_host::Registry& registry,
                      const Rates& rates) {
  Search search;
  Planner planner(request, registry);
  std::map<std::string, size_t> refused;
  const config::Experiment base =
      config::parse_experiment(request.text, request.file, request.overrides, registry);
  const auto layouts = enumerate_layouts(request.devices, base.runs.front().train.batch_size);
  search.layouts = layouts.size();
  for (const Layout& layout : layouts) {
    std::optional<Candidate> candidate;
    try {
      candidate = planner.plan(layout);
    } catch (const Error& e) {  // a plugin's ConfigError arrives wrapped, still of its class
      if (e.error_class() != ErrorClass::config) throw;
      ++refused[e.what()];
      continue;
    }
    predict(*candidate, request, rates);
    auto& into = candidate->estimate.peak_bytes() <= request.memory_per_device ? search.fitting
                                                                               : search.over_memory;
    into.push_back(std::move(*candidate));
  }
  drop_needless_offloads(search, request.devices);
  search.refused = most_first(refused);
  std::stable_sort(search.fitting.begin(), search.fitting.end(),
                   [](const auto& a, const auto& b) { return a.cost.total() < b.cost.total(); });
  std::stable_sort(search.over_memory.begin(), search.over_memory.end(),
                   [](const auto& a, const auto& b) {
                     return a.estimate.peak_bytes() < b.estimate.peak_bytes();
                   });
  return search;
}

ConfigError nothing_fits(const Search& search, const SearchRequest& request) {
  const std::string devices =
      fmt::format("{} {} device{}", request.devices.count, request.devices.cuda ? "CUDA" : "CPU",
                  request.devices.count == 1 ? "" : "s");
  if (search.over_memory.empty())
    return ConfigError(
        fmt::format("runner plan {}: none of the {} layouts on {} passes the "
                    "checks",
                    request.file, search.layouts, devices),
        search.refused.empty() ? "" : "the first reason: " + search.refused.front().first);
  const Candidate& smallest = search.over_memory.front();
  const MemoryPlan& rank =
      *std::max_element(smallest.estimate.plan.ranks.begin(), smallest.estimate.plan.ranks.end(),
                        [](const auto& a, const auto& b) { return a.total() < b.total(); });
  const double peak = smallest.estimate.peak_bytes();
  const bool activations = rank.activations > rank.total() / 2;
  return ConfigError(
      fmt::format("runner plan {}: no layout fits {}: the smallest plan, {}, needs {} on its "
                  "largest rank, {} over the {} each has ({} of it activations)",
                  request.file, devices, smallest.layout.label(), plan::gibibytes(peak),
                  plan::gibibytes(peak - request.memory_per_device),
                  plan::gibibytes(request.memory_per_device), plan::gibibytes(rank.activations)),
      activations ? "lower train.batch_size (activations dominate the smallest plan)"
                  : "plan on more devices (--devices), or larger ones (--device-memory): the "
                    "model's states dominate the smallest plan");
}

}  // namespace runner::layout
