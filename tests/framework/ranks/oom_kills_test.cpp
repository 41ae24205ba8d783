// The kernel's count of out-of-memory kills, read from a vmstat file; and a rank the kernel
// kills for memory (in a memory cgroup of 64 MiB, as root) is said to have run out of memory.
#include "ranks/oom_kills.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ranks/process_launcher.hpp"

using ::testing::HasSubstr;

namespace runner::ranks {
namespace {

namespace fs = std::filesystem;

std::string vmstat_file(const std::string& text) {
  const std::string path = ::testing::TempDir() + "vmstat_" + std::to_string(getpid());
  std::ofstream(path) << text;
  return path;
}

TEST(OomKills, AreTheOomKillLineOfVmstat) {
  EXPECT_EQ(oom_kill_count(vmstat_file("nr_free_pages 100\noom_kill 7\nnr_zone_active 3\n")), 7u);
  EXPECT_EQ(oom_kill_count(vmstat_file("nr_free_pages 100\n")), std::nullopt);
  EXPECT_EQ(oom_kill_count("/nonexistent/vmstat"), std::nullopt);
}

TEST(OomKills, ARankKilledWhileTheyRoseRanOutOfMemory) {
  RankExit exit{1, -1, SIGKILL};
  exit.oom_kills = 1;
  EXPECT_EQ(describe_exit(exit),
            "was killed by signal 9 (SIGKILL) while the kernel's out-of-memory killer ended 1 "
            "process: it ran out of memory");
  exit.oom_kills = 2;
  EXPECT_THAT(describe_exit(exit), HasSubstr("ended 2 processes"));
}

// A memory cgroup of 64 MiB beside this process's own (cgroup v1 or v2), removed after; empty
// with the reason in `why` where none can be made (not root, no memory controller).
class MemoryCgroup {
 public:
  MemoryCgroup() {
    std::ifstream lines("/proc/self/cgroup");
    for (std::string line; std::getline(lines, line);) {
      if (line.find(":memory:") != std::string::npos)
        make("/sys/fs/cgroup/memory" + line.substr(line.find(":memory:") + 8),
             "memory.limit_in_bytes");
      else if (line.rfind("0::", 0) == 0 && fs::exists("/sys/fs/cgroup/cgroup.controllers"))
        make("/sys/fs/cgroup" + line.substr(3), "memory.max");
      if (!path_.empty()) return;
    }
  }
  ~MemoryCgroup() {
    if (!path_.empty()) rmdir(path_.c_str());
  }
  MemoryCgroup(const MemoryCgroup&) = delete;
  MemoryCgroup& operator=(const MemoryCgroup&) = delete;
  const std::string& path() const { return path_; }
  const std::string& why() const { return why_; }

 private:
  void make(const std::string& parent, const std::string& limit_file) {
    const std::string path = parent + "/runner-oom-test-" + std::to_string(getpid());
    std::error_code error;
    if (!fs::create_directory(path, error) && error) {
      why_ = "cannot make a memory cgroup at " + path + ": " + error.message();
      return;
    }
    std::ofstream(path + "/" + limit_file) << (64 << 20) << std::flush;
    std::ifstream written(path + "/" + limit_file);
    long long limit = 0;
    written >> limit;
    if (limit != (64 << 20)) {
      why_ = "cannot limit the memory of " + path;
      rmdir(path.c_str());
      return;
    }
    path_ = path;
  }

  std::string path_;
  std::string why_ = "this process is in no memory cgroup";
};

TEST(OomKills, ARankTheKernelKillsForMemoryIsSaidToHaveRunOutOfIt) {
  if (!oom_kill_count()) GTEST_SKIP() << "/proc/vmstat has no oom_kill count (kernel < 4.13)";
  MemoryCgroup cgroup;
  if (cgroup.path().empty()) GTEST_SKIP() << cgroup.why();
  LaunchSpec spec;
  // Rank 1 moves into the cgroup, then holds 300 MB in a shell variable.
  spec.argv = {"/bin/sh", "-c",
               "test \"$RANK\" = 0 && exit 0; echo $$ > '" + cgroup.path() +
                   "/cgroup.procs' || exit 3; x=$(head -c 300000000 /dev/zero | tr '\\0' a)"};
  spec.world_size = 2;
  spec.rank_env = [](int rank) {
    return std::map<std::string, std::string>{{"RANK", std::to_string(rank)}};
  };
  const LaunchResult result = launch_ranks(spec, {});
  ASSERT_EQ(result.exits.size(), 2u);
  const RankExit& killed = result.exits[0].rank == 1 ? result.exits[0] : result.exits[1];
  ASSERT_EQ(killed.signal, SIGKILL) << describe_exit(killed);
  EXPECT_GE(killed.oom_kills, 1u);
  EXPECT_THAT(describe_exit(killed), HasSubstr("out-of-memory killer ended"));
}

}  // namespace
}  // namespace runner::ranks
