// `runner check-op NAME`: the op against its reference, from the command line.
#include "cli/check_op_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

#include "cli/registry_loader.hpp"
#include "config/overrides.hpp"
#include "config/validate.hpp"
#include "interrupt/interrupt.hpp"
#include "measure/system.hpp"
#include "opcheck/check_op.hpp"
#include "opcheck/report_text.hpp"
#include "plugin_host/host_owned_errors.hpp"

namespace runner::cli {
namespace {

torch::ScalarType parse_dtype(const std::string& text) {
  if (text == "float32" || text == "float") return torch::kFloat;
  if (text == "float64" || text == "double") return torch::kDouble;
  throw ConfigError("--dtype " + text + ": unknown dtype", "use float32 or float64");
}

int64_t parse_side(const std::string& side, const std::string& shape) {
  size_t used = 0;
  int64_t value = -1;
  try {
    value = std::stoll(side, &used);
  } catch (const std::exception&) {
  }
  if (used != side.size() || value < 0)
    throw ConfigError("--shapes " + shape + ": '" + side + "' is not a size",
                      "write shapes as sizes joined by x, e.g. --shapes 64x16x28x28");
  return value;
}

std::vector<int64_t> parse_shape(const std::string& shape) {
  std::vector<int64_t> sizes;
  size_t start = 0;
  while (true) {
    const size_t x = shape.find('x', start);
    sizes.push_back(parse_side(shape.substr(start, x - start), shape));
    if (x == std::string::npos) return sizes;
    start = x + 1;
  }
}

// This machine's memory: an input that alone needs more cannot be allocated.
double physical_memory_bytes() {
  return static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

// Refused before anything is allocated: counted in floating point, so no product overflows.
void check_fits_in_memory(const std::vector<int64_t>& sizes, const std::string& shape,
                          const std::string& dtype) {
  double elements = 1;
  for (int64_t side : sizes) elements *= static_cast<double>(side);
  const double bytes = elements * static_cast<double>(c10::elementSize(parse_dtype(dtype)));
  const double memory = physical_memory_bytes();
  if (bytes <= memory) return;
  throw ConfigError(fmt::format("--shapes {}: {:.3g} elements of {} need {:.3g} bytes, more than "
                                "this machine's {:.3g} bytes of memory",
                                shape, elements, dtype, bytes, memory),
                    "give smaller shapes");
}

// "--shapes 4x5,2x3" and repeated --shapes both work.
std::vector<std::vector<int64_t>> parse_shapes(const std::vector<std::string>& texts,
                                               const std::string& dtype) {
  std::vector<std::vector<int64_t>> shapes;
  for (const auto& text : texts) {
    size_t start = 0;
    while (start <= text.size()) {
      const size_t comma = std::min(text.find(',', start), text.size());
      const std::string shape = text.substr(start, comma - start);
      shapes.push_back(parse_shape(shape));
      check_fits_in_memory(shapes.back(), shape, dtype);
      start = comma + 1;
    }
  }
  return shapes;
}

// The op's options: its defaults, with `--set key=value` checked against its schema.
Options op_options(const std::string& name, const Schema& schema,
                   const std::vector<std::string>& settings) {
  const std::string section = "ops." + name;
  config::RawConfig raw;
  std::vector<std::string> dotted;
  for (const auto& s : settings) dotted.push_back(section + "." + s);
  config::apply_overrides(raw, dotted);
  return config::validate_section(section, raw.sections[section], schema);
}

torch::Device parse_device(const std::string& text) {
  if (text == "cpu") return torch::kCPU;
  if (text != "cuda") throw ConfigError("--device " + text + ": unknown device", "use cpu or cuda");
  if (!torch::cuda::is_available())
    throw RunError("--device cuda: no CUDA device is available",
                   "this LibTorch build or this machine has no GPU; use --device cpu");
  return torch::Device(torch::kCUDA, 0);
}

// A SIGINT or SIGTERM ends the timing early: the report above has the calls made before it.
int interrupted(int signal, const opcheck::CheckReport& report,
                const opcheck::CheckSettings& settings) {
  const int calls = report.timings.empty() ? 0 : report.timings.back().timed_calls;
  std::cerr << fmt::format(
                   "runner: error: check-op interrupted by signal {}: the last timing is the "
                   "median of {} of {} calls",
                   signal, calls, settings.repeats)
            << std::endl;
  return 128 + signal;
}

int check_loaded_op(const plugin_host::Registry& registry, const CheckOpOptions& options) {
  const Component& component = *registry.get(Kind::op, options.op).component;
  std::shared_ptr<Op> op =
      registry.make_op(options.op, op_options(options.op, component.schema, options.settings));
  opcheck::CheckSettings settings;
  settings.dtype = parse_dtype(options.dtype);
  settings.device = parse_device(options.device);
  settings.shapes = parse_shapes(options.shapes, options.dtype);
  settings.repeats = options.repeats;
  settings.stop_requested = [] { return interrupt_signal() != 0; };
  const int threads = measure::configure_threads(options.threads);
  std::cout << fmt::format("check-op {} {} on {} ({} threads)", options.op, options.dtype,
                           settings.device.str(), threads)
            << std::endl;
  install_interrupt_handlers();
  opcheck::CheckReport report = opcheck::check_op(options.op, *op, settings);
  std::cout << opcheck::report_text(report) << std::flush;
  if (const int signal = interrupt_signal()) return interrupted(signal, report, settings);
  return report.passed() ? 0 : 1;
}

}  // namespace

int check_op_command(const CheckOpOptions& options) {
  plugin_host::Registry registry = load_registry(options.plugin_path, "");
  return plugin_host::with_host_owned_errors([&] { return check_loaded_op(registry, options); });
}

}  // namespace runner::cli
