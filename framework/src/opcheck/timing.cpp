// Median forward and backward times of the op and its reference, after a warm-up call.
#include "opcheck/timing.hpp"

#include <algorithm>
#include <chrono>
#include <functional>

#include "opcheck/compare.hpp"

namespace runner::opcheck {
namespace {

using Clock = std::chrono::steady_clock;
using Function = std::function<torch::Tensor(const std::vector<torch::Tensor>&)>;

struct PhaseSeconds {
  double forward = 0;
  double backward = 0;
  int calls = 0;  // timed, past the warm-up
};

// GPU work is asynchronous: a timer only means something after the device has finished.
void finish_device_work(const torch::Tensor& t) {
  if (t.is_cuda()) torch::cuda::synchronize();
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2),
                   values.end());
  return values[values.size() / 2];
}

// The first call is a warm-up (allocations, one-time setup) and is not counted.
PhaseSeconds time_phases(const Function& f, const std::vector<torch::Tensor>& inputs,
                         const CheckSettings& settings) {
  std::vector<double> forward, backward;
  for (int i = 0; i <= settings.repeats && !settings.stop_requested(); ++i) {
    std::vector<torch::Tensor> leaves = fresh_leaves(inputs);
    finish_device_work(inputs.at(0));
    const auto start = Clock::now();
    torch::Tensor output = f(leaves);
    finish_device_work(output);
    const double forward_s = seconds_since(start);
    double backward_s = 0;
    if (output.requires_grad()) {
      torch::Tensor grad_output = torch::ones_like(output);
      finish_device_work(grad_output);
      const auto backward_start = Clock::now();
      output.backward(grad_output);
      finish_device_work(output);
      backward_s = seconds_since(backward_start);
    }
    if (i == 0) continue;
    forward.push_back(forward_s);
    backward.push_back(backward_s);
  }
  return {median(forward), median(backward), static_cast<int>(forward.size())};
}

}  // namespace

Timing time_case(const Op& op, const OpCase& c, const std::string& label,
                 const CheckSettings& settings) {
  Timing timing{label};
  const PhaseSeconds of_op =
      time_phases([&](const std::vector<torch::Tensor>& x) { return op.forward(x, c.attributes); },
                  c.inputs, settings);
  timing.op_forward = of_op.forward;
  timing.op_backward = of_op.backward;
  timing.timed_calls = of_op.calls;
  if (!op.has_reference()) return timing;
  const PhaseSeconds of_reference = time_phases(
      [&](const std::vector<torch::Tensor>& x) { return op.reference(x, c.attributes); }, c.inputs,
      settings);
  timing.reference_forward = of_reference.forward;
  timing.reference_backward = of_reference.backward;
  return timing;
}

}  // namespace runner::opcheck
