// The rates of this machine, measured: GEMMs, a copy, a micro-batch's extra passes, a cast, a
// loopback link, a synced write.
#include "layout/calibration.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <torch/torch.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <runner/compat.hpp>
#include <runner/errors.hpp>
#include <thread>
#include <vector>

#include "common/started_threads.hpp"
#include "distributed/gloo_group.hpp"
#include "layout/best_seconds.hpp"
#include "layout/collective_rates.hpp"

namespace runner::layout {
namespace {

using Clock = std::chrono::steady_clock;

// A GEMM's size stops growing once one call takes this long (a CPU without bf16 instructions
// multiplies bf16 at about 1 GFLOP/s), or at the largest size, where rates have levelled.
constexpr double kLongestGemmSeconds = 0.1;
constexpr int64_t kLargestGemm = 2048;
constexpr int64_t kCopyBytes = int64_t{256} << 20;
constexpr int64_t kLinkBytes = int64_t{64} << 20;
constexpr int64_t kDiskBytes = int64_t{64} << 20;
// The extra-pass probe: 16 weights of 1024 x 1024 (64 MiB in fp32) over 64 rows, a few
// milliseconds of arithmetic against tens of passing over the weights.
constexpr int kProbeLayers = 16;
constexpr int64_t kProbeWidth = 1024;
constexpr int64_t kProbeRows = 64;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

torch::ScalarType dtype_of(Precision precision) {
  if (precision == Precision::bf16) return torch::kBFloat16;
  if (precision == Precision::fp16) return torch::kHalf;
  return torch::kFloat32;
}

std::vector<std::pair<double, double>> gemm_rates(Precision precision, torch::Device device) {
  std::vector<std::pair<double, double>> points;
  auto sync = [device] {
    if (device.is_cuda()) torch::zeros({1}, torch::TensorOptions().device(device)).item();
  };
  for (int64_t n = 128; n <= kLargestGemm; n *= 2) {
    auto options = torch::TensorOptions().dtype(dtype_of(precision)).device(device);
    const torch::Tensor a = torch::randn({n, n}, options), b = torch::randn({n, n}, options);
    const double seconds = best_seconds([&] { torch::mm(a, b); }, sync);
    const double flops = 2.0 * static_cast<double>(n * n * n);
    points.emplace_back(flops, flops / seconds);
    if (seconds > kLongestGemmSeconds) break;
  }
  return points;
}

double copy_rate(torch::Device device) {
  auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  const torch::Tensor from = torch::ones({kCopyBytes / 4}, options);
  torch::Tensor to = torch::empty_like(from);
  auto sync = [&] { to.select(0, 0).item(); };
  return 2.0 * kCopyBytes / best_seconds([&] { to.copy_(from); }, sync);
}

// What each micro-batch after the first adds to a step, in seconds per parameter: a chain of
// kProbeLayers square linear layers (more than the caches hold) run forward and backward over the
// same kProbeRows rows in one pass and in four. The extra passes add their gradients to those
// held, cast the weights again under autocast and write every weight gradient whole, as a
// model's micro-batches do, on autograd's own path; their arithmetic is the same.
double extra_pass_seconds_per_parameter(Precision precision, torch::Device device) {
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  std::vector<torch::Tensor> weights, biases;
  for (int i = 0; i < kProbeLayers; ++i) {
    weights.push_back((torch::randn({kProbeWidth, kProbeWidth}, options) /
                       std::sqrt(static_cast<double>(kProbeWidth)))
                          .requires_grad_());
    biases.push_back(torch::zeros({kProbeWidth}, options).requires_grad_());
  }
  const torch::Tensor rows = torch::randn({kProbeRows, kProbeWidth}, options);
  const compat::AutocastState autocast{
      precision != Precision::fp32, precision == Precision::fp16 ? torch::kHalf : torch::kBFloat16};
  auto passes = [&](int64_t count) {
    for (auto& w : weights) w.mutable_grad() = torch::Tensor();
    for (auto& b : biases) b.mutable_grad() = torch::Tensor();
    for (const torch::Tensor& chunk : rows.chunk(count)) {
      torch::Tensor x = chunk;
      {
        compat::AutocastScope scope(device.type(), autocast);
        for (int i = 0; i < kProbeLayers; ++i)  // (rows / count, width)
          x = torch::linear(x, weights[i], biases[i]);
      }
      x.to(torch::kFloat32).sum().backward();
    }
  };
  auto sync = [&] { weights.front().grad().select(0, 0).select(0, 0).item(); };
  const double one = best_seconds([&] { passes(1); }, sync);
  const double four = best_seconds([&] { passes(4); }, sync);
  const double parameters = static_cast<double>(kProbeLayers) * kProbeWidth * kProbeWidth;
  return std::max(0.0, four - one) / 3 / parameters;
}

// A GPU's rates given: an extra micro-batch's passes over its memory, its gradients added
// (two fp32 reads and a write) and in bf16 or fp16 the weights and gradients cast (6 bytes
// each way).
double given_extra_pass_seconds_per_parameter(Precision precision, double memory_bytes_per_s) {
  const double bytes = 3 * 4 + (precision == Precision::fp32 ? 0 : 2 * 6);
  return bytes / memory_bytes_per_s;
}

// Autocast's cast of fp32 weights to bf16: 4 bytes read and 2 written per element.
double cast_rate(torch::Device device) {
  const torch::Tensor weights =
      torch::ones({kCopyBytes / 4}, torch::TensorOptions().dtype(torch::kFloat32).device(device));
  torch::Tensor half = torch::empty_like(weights, weights.options().dtype(torch::kBFloat16));
  auto sync = [&] { half.select(0, 0).item(); };
  return 1.5 * kCopyBytes / best_seconds([&] { half.copy_(weights); }, sync);
}

// A memory-bound measurement as CPU ranks on one machine meet it: run at once by as many
// threads as ranks run at once (one per core at most), since they share the memory's
// bandwidth; the mean of their results. One device, or a GPU's: run alone.
template <typename Measure>
double shared_by_ranks(const Calibration& c, const Measure& measure) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int ranks = c.devices.cuda ? 1 : std::min(c.devices.count, cores);
  if (ranks == 1) return measure();
  std::vector<double> results(static_cast<size_t>(ranks));
  std::vector<std::thread> threads;
  start_threads(threads, ranks, "calibration", [&](int64_t i) {
    at::set_num_threads(std::max(1, c.threads_per_rank));
    results[static_cast<size_t>(i)] = measure();
  });
  for (auto& t : threads) t.join();
  double sum = 0;
  for (double r : results) sum += r;
  return sum / ranks;
}

struct Socket {
  int fd = -1;
  explicit Socket(int f) : fd(f) {}
  ~Socket() {
    if (fd >= 0) close(fd);
  }
};

// One thread sends kLinkBytes to another over TCP on 127.0.0.1: what Gloo's ranks on one
// machine have between them at best.
double loopback_rate() {
  Socket server(socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (server.fd < 0 || bind(server.fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      listen(server.fd, 1) != 0 ||
      getsockname(server.fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    throw RunError("runner plan: cannot open a loopback socket to measure the link",
                   "give the link's rate with --bandwidth GB/s");
  std::thread sender = started_thread("loopback sender", [address] {
    Socket client(socket(AF_INET, SOCK_STREAM, 0));
    if (connect(client.fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0)
      return;
    std::vector<char> chunk(1 << 20, 1);
    for (int64_t sent = 0; sent < kLinkBytes;) {
      const ssize_t n = send(client.fd, chunk.data(), chunk.size(), MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += n;
    }
  });
  Socket receiver(accept(server.fd, nullptr, nullptr));
  std::vector<char> chunk(1 << 20);
  const auto start = Clock::now();
  int64_t received = 0;
  while (receiver.fd >= 0 && received < kLinkBytes) {
    const ssize_t n = recv(receiver.fd, chunk.data(), chunk.size(), 0);
    if (n <= 0) break;
    received += n;
  }
  const double seconds = seconds_since(start);
  sender.join();
  if (received < kLinkBytes)
    throw RunError("runner plan: the loopback link closed while it was measured",
                   "give the link's rate with --bandwidth GB/s");
  return static_cast<double>(received) / seconds;
}

// What CPU ranks have between them; one CUDA device needs none, several need it given (NVLink
// or PCIe, which one copy here cannot tell).
double link_rate(const Calibration& c) {
  if (!c.devices.cuda) return loopback_rate();
  if (c.devices.count == 1) return 0;
  throw ConfigError("runner plan: the link between GPUs is not measured",
                    "give it with --bandwidth GB/s (NVLink 4: 450, PCIe 5 x16: 64)");
}

// Pinned host memory to the device: what cpu offload moves its gradients and weights over.
double host_rate(torch::Device device) {
  const torch::Tensor host = torch::ones(
      {kCopyBytes / 4}, torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(true));
  torch::Tensor on_device =
      torch::empty(host.sizes(), torch::TensorOptions().dtype(torch::kFloat32).device(device));
  auto sync = [&] { on_device.select(0, 0).item(); };
  return static_cast<double>(kCopyBytes) / best_seconds([&] { on_device.copy_(host); }, sync);
}

// A file of kDiskBytes written and synced in `folder`, then removed.
// The file is new and of a name nobody could guess (mkstemp): the folder is usually the
// system's shared temporary one, where a fixed name could be a link planted by another user.
double disk_rate(const std::string& folder) {
  std::string path = (std::filesystem::path(folder) / "runner-plan-disk-rate-XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0)
    throw ConfigError("runner plan: cannot write in " + folder + " to measure the disk",
                      "set strategy.offload_dir to a writable folder");
  std::vector<char> chunk(8 << 20, 1);
  const auto start = Clock::now();
  bool written = true;
  for (int64_t done = 0; written && done < kDiskBytes; done += static_cast<int64_t>(chunk.size()))
    written = write(fd, chunk.data(), chunk.size()) == static_cast<ssize_t>(chunk.size());
  written = written && fsync(fd) == 0;
  const double seconds = seconds_since(start);
  close(fd);
  std::filesystem::remove(path);
  if (!written)
    throw RunError("runner plan: writing " + path + " failed while the disk was measured",
                   "free space there, or set strategy.offload_dir");
  return static_cast<double>(kDiskBytes) / seconds;
}

// Restores ATen's thread count when the measurements end.
class ThreadsFor {
 public:
  explicit ThreadsFor(int threads) : previous_(at::get_num_threads()) {
    at::set_num_threads(threads);
  }
  ~ThreadsFor() { at::set_num_threads(previous_); }
  ThreadsFor(const ThreadsFor&) = delete;
  ThreadsFor& operator=(const ThreadsFor&) = delete;

 private:
  int previous_;
};

// CPU ranks: Gloo's collectives measured between two ranks in this process; a given link, a
// GPU's, one device's (no collectives) or a build without Gloo's stands for all of them.
void set_collective_rates(const Calibration& c, Rates& rates) {
  if (!c.devices.cuda && c.devices.count > 1 && !c.given_link && distributed::gloo_built()) {
    const CollectiveRates measured = measure_gloo_collectives(kLinkBytes);
    rates.all_reduce_bytes_per_s = measured.all_reduce;
    rates.all_gather_bytes_per_s = measured.all_gather;
    rates.reduce_scatter_bytes_per_s = measured.reduce_scatter;
    return;
  }
  rates.all_reduce_bytes_per_s = rates.all_gather_bytes_per_s = rates.reduce_scatter_bytes_per_s =
      rates.link_bytes_per_s;
}

void require_given(const Calibration& c) {
  std::string missing;
  for (Precision p : {Precision::fp32, Precision::bf16, Precision::fp16})
    if (!c.given_flops.count(p)) missing += fmt::format(" --tflops {}=T", precision_name(p));
  if (!c.given_link && c.devices.count > 1) missing += " --bandwidth GB/s";
  if (!c.given_memory) missing += " --memory-bandwidth GB/s";
  if (!missing.empty())
    throw ConfigError("runner plan --device cuda: this machine has no GPU to measure",
                      "give the GPU's rates:" + missing +
                          " (an H100 SXM: --tflops bf16=989 --tflops fp16=989 --tflops "
                          "fp32=67 --memory-bandwidth 3350 --bandwidth 450)");
}

}  // namespace

Rates calibrate(const Calibration& c) {
  const bool measure_here = !c.devices.cuda || torch::cuda::is_available();
  if (!measure_here) require_given(c);
  const torch::Device device = c.devices.cuda ? torch::Device(torch::kCUDA, 0) : torch::kCPU;
  ThreadsFor threads(std::max(1, c.threads_per_rank));
  Rates rates;
  std::vector<Precision> precisions{Precision::fp32, Precision::bf16};
  if (c.devices.cuda) precisions.push_back(Precision::fp16);
  for (Precision p : precisions) {
    auto given = c.given_flops.find(p);
    rates.gemm[p] = given != c.given_flops.end()
                        ? std::vector<std::pair<double, double>>{{1.0, given->second}}
                        : gemm_rates(p, device);
  }
  for (auto& [precision, points] : rates.gemm)
    if (!c.given_flops.count(precision))
      for (auto& point : points) point.second *= c.cpu_share;
  rates.memory_bytes_per_s =
      c.given_memory ? *c.given_memory
                     : c.cpu_share * shared_by_ranks(c, [&] { return copy_rate(device); });
  for (Precision p : precisions)
    rates.extra_pass_s_per_parameter[p] =
        measure_here
            ? shared_by_ranks(c, [&] { return extra_pass_seconds_per_parameter(p, device); }) /
                  c.cpu_share
            : given_extra_pass_seconds_per_parameter(p, rates.memory_bytes_per_s);
  // A GPU's rates given: its memory bandwidth stands for the casts too.
  rates.cast_bytes_per_s = measure_here
                               ? c.cpu_share * shared_by_ranks(c, [&] { return cast_rate(device); })
                               : rates.memory_bytes_per_s;
  rates.link_bytes_per_s = c.given_link ? *c.given_link : link_rate(c);
  set_collective_rates(c, rates);
  rates.disk_bytes_per_s = disk_rate(c.disk_folder);
  // Without a GPU here, the given link stands for the host's too.
  rates.host_bytes_per_s = !c.devices.cuda ? rates.memory_bytes_per_s
                           : measure_here  ? host_rate(device)
                                           : rates.link_bytes_per_s;
  rates.source = measure_here ? fmt::format("measured on this machine's {} with {} thread{}",
                                            c.devices.cuda ? "GPU" : "CPU", c.threads_per_rank,
                                            c.threads_per_rank == 1 ? "" : "s")
                              : "given; the disk measured here";
  return rates;
}

}  // namespace runner::layout
