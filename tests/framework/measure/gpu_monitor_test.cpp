// The GPU monitor against a library with NVML's entry points (tests/fixtures/fake_nvml), so
// its loading, readings and failures are tested where no driver is installed.
#include "measure/gpu_monitor.hpp"
#include "runner_testing/byte_units.hpp"

#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <thread>

using ::testing::HasSubstr;

namespace runner::measure {
namespace {

const std::string kFake = std::string(RUNNER_BINARY_DIR) + "/tests/fixtures/fake_nvml/fake_nvml.so";
const std::string kBusId = "00000000:3b:00.0";
using runner::testing::kGiB;
using runner::testing::kMiB;
const auto kNever = std::chrono::hours(1);  // no reading from the thread: only take()'s

// The fake's own counters, from the library the monitor loaded (dlopen shares the handle).
struct FakeNvml {
  FakeNvml() : handle(dlopen(kFake.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    reads = reinterpret_cast<int (*)()>(dlsym(handle, "fake_nvml_reads"));
    reset = reinterpret_cast<void (*)()>(dlsym(handle, "fake_nvml_reset"));
    last_bus_id = reinterpret_cast<const char* (*)()>(dlsym(handle, "fake_nvml_last_bus_id"));
    reset();
  }
  ~FakeNvml() { dlclose(handle); }

  void* handle;
  int (*reads)();
  void (*reset)();
  const char* (*last_bus_id)();
};

class GpuMonitorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"FAKE_NVML_INIT_ERROR", "FAKE_NVML_BUS_ID", "FAKE_NVML_UTILIZATION",
                             "FAKE_NVML_READ_ERROR"})
      unsetenv(name);
  }
  FakeNvml fake;
};

TEST_F(GpuMonitorTest, AnEpochIsTheMeanUtilisationAndTheLargestMemoryOfItsReadings) {
  setenv("FAKE_NVML_UTILIZATION", "10,30,80,20", 1);
  GpuMonitor monitor(Nvml::load(kFake), kBusId, kNever);  // reads 10% to check the device
  EXPECT_EQ(fake.last_bus_id(), kBusId);
  GpuEpoch first = monitor.take();  // 30%
  EXPECT_DOUBLE_EQ(first.utilization, 0.30);
  GpuEpoch both = monitor.take();  // 30% and 80%
  EXPECT_DOUBLE_EQ(both.utilization, (0.30 + 0.80) / 2);
  EXPECT_DOUBLE_EQ(both.memory_used_bytes, kGiB + 3 * kMiB);  // after the third reading
  monitor.epoch_begins();
  GpuEpoch next = monitor.take();  // 20%: the earlier readings are forgotten
  EXPECT_DOUBLE_EQ(next.utilization, 0.20);
  EXPECT_DOUBLE_EQ(next.memory_used_bytes, kGiB + 4 * kMiB);
}

TEST_F(GpuMonitorTest, ItsThreadReadsEveryPeriod) {
  setenv("FAKE_NVML_UTILIZATION", "50", 1);
  GpuMonitor monitor(Nvml::load(kFake), kBusId, std::chrono::milliseconds(5));
  while (fake.reads() < 6) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  GpuEpoch epoch = monitor.take();
  EXPECT_DOUBLE_EQ(epoch.utilization, 0.50);
  EXPECT_GE(epoch.memory_used_bytes, kGiB + 6 * kMiB);
}

TEST_F(GpuMonitorTest, FailedReadingsAreLeftOutAndNoneLeavesNaN) {
  setenv("FAKE_NVML_UTILIZATION", "40", 1);
  GpuMonitor monitor(Nvml::load(kFake), kBusId, kNever);
  setenv("FAKE_NVML_READ_ERROR", "15", 1);  // the GPU is lost
  GpuEpoch lost = monitor.take();
  EXPECT_TRUE(std::isnan(lost.utilization));
  EXPECT_TRUE(std::isnan(lost.memory_used_bytes));
  unsetenv("FAKE_NVML_READ_ERROR");
  EXPECT_DOUBLE_EQ(monitor.take().utilization, 0.40);
}

TEST_F(GpuMonitorTest, ACpuDeviceIsNotMonitoredAndSaysSo) {
  std::string reason;
  EXPECT_EQ(start_gpu_monitor(false, "", reason, kFake), nullptr);
  EXPECT_EQ(reason, "the run's device is not a GPU");
  EXPECT_EQ(gpu_monitor_status(false, kFake), "off: the run's device is not a GPU");
  EXPECT_EQ(fake.reads(), 0);
}

TEST_F(GpuMonitorTest, AMissingLibraryIsAReasonNotAnError) {
  std::string reason;
  EXPECT_EQ(start_gpu_monitor(true, kBusId, reason, "/nonexistent/libnvidia-ml.so.1"), nullptr);
  EXPECT_THAT(reason, HasSubstr("/nonexistent/libnvidia-ml.so.1 could not be loaded: ")) << reason;
  EXPECT_EQ(gpu_monitor_status(true, "/nonexistent/libnvidia-ml.so.1").rfind("off: ", 0), 0u);
}

TEST_F(GpuMonitorTest, ALibraryWithoutNvmlsFunctionsIsNamedAsSuch) {
  const std::string not_nvml =
      std::string(RUNNER_BINARY_DIR) + "/tests/fixtures/no_entry/no_entry.so";
  try {
    Nvml::load(not_nvml);
    FAIL() << "loaded a library without NVML's functions";
  } catch (const NvmlUnavailable& e) {
    EXPECT_STREQ(e.what(), "the NVML library has no nvmlInit_v2 (a driver older than CUDA 5's)");
  }
}

TEST_F(GpuMonitorTest, AFailedInitIsNvmlsOwnError) {
  setenv("FAKE_NVML_INIT_ERROR", "9", 1);
  std::string reason;
  EXPECT_EQ(start_gpu_monitor(true, kBusId, reason, kFake), nullptr);
  EXPECT_EQ(reason, "nvmlInit failed: Driver Not Loaded");
  EXPECT_EQ(gpu_monitor_status(true, kFake), "off: nvmlInit failed: Driver Not Loaded");
}

TEST_F(GpuMonitorTest, ADeviceNvmlDoesNotKnowIsNamedByItsBusId) {
  std::string reason;
  EXPECT_EQ(start_gpu_monitor(true, "00000000:af:00.0", reason, kFake), nullptr);
  EXPECT_EQ(reason, "NVML has no device at PCI bus id 00000000:af:00.0: Not Found");
}

TEST_F(GpuMonitorTest, TheStatusNamesTheDriver) {
  EXPECT_EQ(gpu_monitor_status(true, kFake), "NVML, driver 999.1.2");
}

}  // namespace
}  // namespace runner::measure
