// Runs the runner binary as a user would and captures what it printed, with scratch files.
#include "run_binary.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

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
  std::string dir =
      scratch_dir("output_" + std::to_string(getpid()) + "_" + std::to_string(++counter));
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
         "[train]\nepochs = " +
         std::to_string(epochs) + "\nbatch_size = 64\n";
}

std::string fixture_plugins() { return RUNNER_BINARY_DIR "/tests/fixtures/good"; }

HeldPort::HeldPort() {
  fd_ = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  if (bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      listen(fd_, 1) != 0 || getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size) != 0)
    throw std::runtime_error(std::string("HeldPort: no loopback port: ") + std::strerror(errno));
  port_ = ntohs(address.sin_port);
}

HeldPort::~HeldPort() { close(fd_); }

int free_port() { return HeldPort().port(); }

std::string torchrun_environment(int rank, int world, int port) {
  return "RANK=" + std::to_string(rank) + " LOCAL_RANK=" + std::to_string(rank) +
         " WORLD_SIZE=" + std::to_string(world) +
         " MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(port);
}

std::vector<int> run_as_torchrun(int world, const std::string& args, const std::string& dir,
                                 const std::string& extra_environment) {
  const int port = free_port();
  std::vector<pid_t> pids;
  for (int r = 0; r < world; ++r) {
    pid_t pid = fork();
    if (pid == 0) {
      std::string command = "exec env " + torchrun_environment(r, world, port) + " " +
                            extra_environment + " " RUNNER_BINARY_DIR "/bin/runner " + args + " >" +
                            dir + "/out" + std::to_string(r) + " 2>&1";
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    pids.push_back(pid);
  }
  std::vector<int> codes;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  return codes;
}

std::string blobs_experiment(const std::string& results, const std::string& extra) {
  return "[experiment]\nname = \"blobs\"\nresults = \"" + results + "\"\n" +
         "[dataset]\nname = \"blobs\"\n[model]\nname = \"linear_probe\"\n"
         "[train]\nepochs = 1\nbatch_size = 32\n" +
         extra;
}

}  // namespace runner::testing
