// Ctrl-C, SIGTERM and SIGHUP: caught and asked for between steps (SIGHUP not under nohup);
// a closed pipe and a file-size limit fail the write instead of ending the process; a wait that
// only a timeout ends is cut short after its grace, the run recorded first, with exit code 128 +
// the signal. Each case raises its signal in a child process (a death test): the signal stays
// caught for good.
#include "interrupt/interrupt.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <thread>

#include "runner/errors.hpp"
#include "runner_testing/error_message.hpp"

namespace runner {
namespace {

using namespace std::chrono_literals;

// In the child: exits 0 when nothing was asked before the signal and the step after it stops
// with the error naming the signal.
[[noreturn]] void stop_between_steps(int signal) {
  install_interrupt_handlers();
  if (interrupt_signal() != 0) std::_Exit(1);
  stop_if_interrupted();  // nothing asked yet: no throw
  std::raise(signal);
  if (interrupt_signal() != signal) std::_Exit(2);
  const std::string message = testing::message_of<RunError>([] { stop_if_interrupted(); });
  std::_Exit(message == "interrupted by signal " + std::to_string(signal) ? 0 : 3);
}

TEST(Interrupt, ASignalIsCaughtAndTheNextStepStops) {
  EXPECT_EXIT(stop_between_steps(SIGINT), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(stop_between_steps(SIGTERM), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(stop_between_steps(SIGHUP), ::testing::ExitedWithCode(0), "");
}

TEST(Interrupt, AHangupIgnoredBeforeStaysIgnored) {
  EXPECT_EXIT(
      {
        std::signal(SIGHUP, SIG_IGN);  // as nohup starts it
        install_interrupt_handlers();
        std::raise(SIGHUP);
        std::_Exit(interrupt_signal());
      },
      ::testing::ExitedWithCode(0), "");
}

// A write to a pipe whose reader is gone returns EPIPE; without the call SIGPIPE ends the child.
[[noreturn]] void write_to_a_closed_pipe(bool ignoring) {
  std::signal(SIGPIPE, SIG_DFL);  // whatever the suite's parent left
  if (ignoring) ignore_closed_outputs();
  int ends[2];
  if (pipe(ends) != 0) std::_Exit(2);
  close(ends[0]);
  const bool failed = write(ends[1], "x", 1) == -1 && errno == EPIPE;
  std::_Exit(failed ? 0 : 1);
}

TEST(Interrupt, AClosedOutputFailsTheWriteInsteadOfEndingTheProcess) {
  EXPECT_EXIT(write_to_a_closed_pipe(true), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(write_to_a_closed_pipe(false), ::testing::KilledBySignal(SIGPIPE), "");
}

// A write past a file-size limit returns EFBIG; without the call SIGXFSZ ends the child.
[[noreturn]] void write_past_a_size_limit(bool ignoring) {
  std::signal(SIGXFSZ, SIG_DFL);
  if (ignoring) ignore_file_size_limit();
  const rlimit limit{4, 4};
  if (setrlimit(RLIMIT_FSIZE, &limit) != 0) std::_Exit(2);
  FILE* file = std::tmpfile();
  if (file == nullptr) std::_Exit(3);
  const bool failed = write(fileno(file), "12345678", 8) == 4 &&
                      write(fileno(file), "5678", 4) == -1 && errno == EFBIG;
  std::_Exit(failed ? 0 : 1);
}

TEST(Interrupt, AFileSizeLimitFailsTheWriteInsteadOfEndingTheProcess) {
  EXPECT_EXIT(write_past_a_size_limit(true), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(write_past_a_size_limit(false), ::testing::KilledBySignal(SIGXFSZ), "");
}

// A wait in progress when the signal comes: after its grace the run is recorded and the
// process ends with 128 + the signal, the error line naming the rank.
[[noreturn]] void wait_forever(std::chrono::milliseconds grace) {
  install_interrupt_handlers();
  const InterruptibleWait wait(
      "rank 1: ",
      [](const std::string& error) { std::fprintf(stderr, "recorded: %s\n", error.c_str()); },
      grace);
  std::raise(SIGTERM);
  std::this_thread::sleep_for(60s);  // the c10d wait that would end at its timeout
  std::_Exit(0);
}

TEST(Interrupt, AWaitEndsTheProcessAfterItsGraceRecordingTheRunFirst) {
  EXPECT_EXIT(wait_forever(200ms), ::testing::ExitedWithCode(128 + SIGTERM),
              "recorded: interrupted by signal 15\n"
              "runner: error: rank 1: interrupted by signal 15 while waiting for the other ranks");
}

// Within the grace the waiting thread may finish on its own: the wait's end stops the watch.
TEST(Interrupt, AWaitThatEndsWithinItsGraceLeavesTheProcessRunning) {
  EXPECT_EXIT(
      {
        install_interrupt_handlers();
        {
          const InterruptibleWait wait("", nullptr, 10s);
          std::raise(SIGINT);
          std::this_thread::sleep_for(100ms);
        }
        std::this_thread::sleep_for(300ms);
        std::_Exit(interrupt_signal() == SIGINT ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace runner
