#include "run_binary.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace runner::testing {

std::string scratch_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "runner_cli_test" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Output run_runner(const std::string& args, const std::string& environment) {
  // Test processes run in parallel: the pid keeps their output folders apart.
  static int counter = 0;
  std::string dir = scratch_dir("output_" + std::to_string(getpid()) + "_" + std::to_string(++counter));
  std::string command = environment + " " RUNNER_BINARY_DIR "/bin/runner " + args + " >" + dir +
                        "/out 2>" + dir + "/err </dev/null";
  int status = std::system(command.c_str());
  Output output;
  output.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  output.out = read_file(dir + "/out");
  output.err = read_file(dir + "/err");
  return output;
}

bool have_fashion_mnist() {
  return std::filesystem::exists(kFashionMnist + "/train-images-idx3-ubyte.gz");
}

std::string fashion_slice_experiment(const std::string& results, int epochs) {
  return "[experiment]\nname = \"slice\"\nseed = 3\nresults = \"" + results + "\"\n" +
         "[dataset]\nname = \"mnist\"\ndata_dir = \"" + kFashionMnist + "\"\n" +
         "train_size = 3000\ntest_size = 1000\n"
         "[model]\nname = \"lenet5\"\n"
         "[optimizer]\nname = \"adam\"\nlr = 2e-3\n"
         "[train]\nepochs = " + std::to_string(epochs) + "\nbatch_size = 64\n";
}

std::string fixture_plugins() { return RUNNER_BINARY_DIR "/tests/fixtures/good"; }

std::string blobs_experiment(const std::string& results, const std::string& extra) {
  return "[experiment]\nname = \"blobs\"\nresults = \"" + results + "\"\n" +
         "[dataset]\nname = \"blobs\"\n[model]\nname = \"linear_probe\"\n"
         "[train]\nepochs = 1\nbatch_size = 32\n" + extra;
}

}  // namespace runner::testing
