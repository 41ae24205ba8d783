// Runs the runner binary as a user would and captures what it printed.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace runner::testing {

struct Output {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `args` are passed through the shell unquoted: keep them simple.
Output run_runner(const std::string& args, const std::string& environment = "");

// A fresh folder for one test.
std::string scratch_dir(const std::string& name);
void write_file(const std::string& path, const std::string& text);
std::string read_file(const std::string& path);

inline const std::string kFashionMnist = "/usr/share/datasets/fashion-mnist";
bool have_fashion_mnist();

// A small LeNet-5 run on a slice of Fashion-MNIST, results in `results`.
std::string fashion_slice_experiment(const std::string& results, int epochs = 1);
// The good fixture's blobs experiment (pass --plugin-path fixture_plugins()).
std::string blobs_experiment(const std::string& results, const std::string& extra = "");
std::string fixture_plugins();

// A listening socket on a free loopback port, held until destroyed.
class HeldPort {
 public:
  HeldPort();
  ~HeldPort();
  HeldPort(const HeldPort&) = delete;
  HeldPort& operator=(const HeldPort&) = delete;
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

int free_port();

// What torchrun sets for `rank` of `world` on this machine.
std::string torchrun_environment(int rank, int world, int port);

// Starts `world` runner processes as torchrun would, and waits for all; rank r's output goes
// to dir/out<r>. Returns each rank's exit code.
std::vector<int> run_as_torchrun(int world, const std::string& args, const std::string& dir,
                                 const std::string& extra_environment = "");

// A parallel layout a test runs the binary under, named for the test's name.
struct Layout {
  std::string name;
  std::string strategy;  // the [strategy] table's keys
};

inline void PrintTo(const Layout& layout, std::ostream* os) { *os << layout.name; }

// The layouts that shard or split the model over 2 ranks: zero stages 2 and 3, a pipeline of
// 2 stages, tensor parallelism of degree 2.
inline std::vector<Layout> sharded_layouts() {
  return {{"zero2", "name = \"zero\"\nstage = 2"},
          {"zero3", "name = \"zero\"\nstage = 3"},
          {"pipeline", "name = \"pipeline\"\nstages = 2"},
          {"tensor", "name = \"tensor\"\ndegree = 2"}};
}

// A parameterized test's name suffix: the layout's.
inline std::string layout_name(const ::testing::TestParamInfo<Layout>& info) {
  return info.param.name;
}

}  // namespace runner::testing
