// The rates of this machine, measured: GEMMs, a copy, a loopback link, a synced write.
#include "layout/calibration.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <torch/torch.h>
#include <unistd.h>

#include <runner/errors.hpp>

#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

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

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The best of three timed calls after one to warm up; `sync` waits for the device.
template <typename Call, typename Sync>
double best_seconds(const Call& call, const Sync& sync) {
  call();
  sync();
  double best = 1e30;
  for (int i = 0; i < 3; ++i) {
    const auto start = Clock::now();
    call();
    sync();
    best = std::min(best, seconds_since(start));
  }
  return best;
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

// A micro-batch's gradients added in place to those held: two fp32 reads and a write.
double accumulate_rate(torch::Device device) {
  auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  torch::Tensor held = torch::ones({kCopyBytes / 4}, options);
  const torch::Tensor fresh = torch::ones_like(held);
  auto sync = [&] { held.select(0, 0).item(); };
  return 3.0 * kCopyBytes / best_seconds([&] { held.add_(fresh); }, sync);
}

// Autocast's cast of fp32 weights to bf16: 4 bytes read and 2 written per element.
double cast_rate(torch::Device device) {
  const torch::Tensor weights =
      torch::ones({kCopyBytes / 4}, torch::TensorOptions().dtype(torch::kFloat32).device(device));
  torch::Tensor half = torch::empty_like(weights, weights.options().dtype(torch::kBFloat16));
  auto sync = [&] { half.select(0, 0).item(); };
  return 1.5 * kCopyBytes / best_seconds([&] { half.copy_(weights); }, sync);
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
  std::thread sender([address] {
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
double disk_rate(const std::string& folder) {
  const std::string path = (std::filesystem::path(folder) / "runner-plan-disk-rate").string();
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
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
  rates.memory_bytes_per_s = c.given_memory ? *c.given_memory : c.cpu_share * copy_rate(device);
  // A GPU's rates given: its memory bandwidth stands for these passes too.
  rates.accumulate_bytes_per_s =
      measure_here ? c.cpu_share * accumulate_rate(device) : rates.memory_bytes_per_s;
  rates.cast_bytes_per_s =
      measure_here ? c.cpu_share * cast_rate(device) : rates.memory_bytes_per_s;
  rates.link_bytes_per_s = c.given_link ? *c.given_link : link_rate(c);
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
