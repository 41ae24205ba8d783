// AdamW's step on GPT-2 small's parameters: LibTorch's torch::optim::AdamW against runner's
// FusedAdamW, each on its own copy, interleaved (tools/bench/adamw_step.sh builds and runs it).
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "train/fused_adamw.hpp"

namespace {

// GPT-2 small's parameter shapes (124,439,808 numbers, the tied head counted once).
std::vector<std::vector<int64_t>> gpt2_small_shapes() {
  const int64_t c = 768;
  using Shapes = std::vector<std::vector<int64_t>>;
  const Shapes attention = {{c}, {c}, {3 * c, c}, {3 * c}, {c, c}, {c}};  // with ln_1
  const Shapes mlp = {{c}, {c}, {4 * c, c}, {4 * c}, {c, 4 * c}, {c}};    // with ln_2
  Shapes shapes = {{50257, c}, {1024, c}};
  for (int layer = 0; layer < 12; ++layer) {
    shapes.insert(shapes.end(), attention.begin(), attention.end());
    shapes.insert(shapes.end(), mlp.begin(), mlp.end());
  }
  shapes.insert(shapes.end(), {{c}, {c}});  // ln_f
  return shapes;
}

// Parameters with gradients, the same numbers on every call.
std::vector<torch::Tensor> parameters_with_gradients() {
  torch::manual_seed(0);
  std::vector<torch::Tensor> parameters;
  for (const auto& shape : gpt2_small_shapes()) {
    auto p = (torch::randn(shape) * 0.02).requires_grad_();
    p.mutable_grad() = torch::randn(shape) * 1e-3;
    parameters.push_back(p);
  }
  return parameters;
}

double seconds_of_step(torch::optim::Optimizer& optimizer) {
  const auto start = std::chrono::steady_clock::now();
  optimizer.step();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The largest |a - b| / |b| over the parameters, in the Euclidean norm.
double largest_relative_difference(const std::vector<torch::Tensor>& a,
                                   const std::vector<torch::Tensor>& b) {
  double largest = 0;
  for (size_t i = 0; i < a.size(); ++i)
    largest = std::max(largest, ((a[i] - b[i]).norm() / b[i].norm()).item<double>());
  return largest;
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 10;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  if (steps < 2 || threads < 1) {
    std::fprintf(stderr,
                 "adamw_step: needs at least 2 steps (the first is left out) and 1 thread\n");
    return 2;
  }
  at::set_num_threads(threads);
  const auto options = torch::optim::AdamWOptions(5e-4).weight_decay(0.01);
  auto libtorch_parameters = parameters_with_gradients();
  auto fused_parameters = parameters_with_gradients();
  torch::optim::AdamW libtorch(libtorch_parameters, options);
  runner::train::FusedAdamW fused(fused_parameters, options);
  if (!fused.fuses_next_step()) {
    std::fprintf(stderr, "adamw_step: FusedAdamW would not take its one-pass step\n");
    return 1;
  }
  int64_t numbers = 0;
  for (const auto& p : fused_parameters) numbers += p.numel();
  std::printf("AdamW on GPT-2 small's %lld parameters, %d threads, %d steps each\n",
              static_cast<long long>(numbers), threads, steps);
  std::vector<double> libtorch_times, fused_times;
  for (int step = 1; step <= steps; ++step) {
    // Alternating which goes first: neither always finds the caches the other left.
    if (step % 2) {
      libtorch_times.push_back(seconds_of_step(libtorch));
      fused_times.push_back(seconds_of_step(fused));
    } else {
      fused_times.push_back(seconds_of_step(fused));
      libtorch_times.push_back(seconds_of_step(libtorch));
    }
    std::printf("step %d: LibTorch %.3f s   fused %.3f s\n", step, libtorch_times.back(),
                fused_times.back());
  }
  // The first step allocates both moments: the medians leave it out.
  libtorch_times.erase(libtorch_times.begin());
  fused_times.erase(fused_times.begin());
  const double a = median(libtorch_times), b = median(fused_times);
  std::printf("median of steps 2-%d: LibTorch %.3f s   fused %.3f s   fused/LibTorch %.3f\n", steps,
              a, b, b / a);
  std::printf("parameters after the steps, largest relative difference: %.2e\n",
              largest_relative_difference(fused_parameters, libtorch_parameters));
}
