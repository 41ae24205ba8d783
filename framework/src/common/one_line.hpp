// The first line of an exception's message, LibTorch's errors without their backtrace, clipped:
// how the host quotes an error from plugin code, LibTorch or c10d in its one-line messages. An
// allocation that failed is named as memory, with the amount asked where it is known.
#pragma once

#include <c10/util/Exception.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

#include "common/clipped_text.hpp"

namespace runner {

// The most characters of another library's error line a message quotes: a LibTorch shape error
// fits whole, a plugin that echoes a user's megabyte value does not flood the terminal.
inline constexpr size_t kQuotedErrorCharacters = 1000;

namespace one_line_detail {

// LibTorch's CPU allocator says "[enforce fail at alloc_cpu.cpp:75] err == 0.
// DefaultCPUAllocator: can't allocate memory: you tried to allocate 512000000000 bytes. Error
// code 12 (Cannot allocate memory)": the amount, in GiB as a plan shows it, and nothing else.
inline std::string out_of_memory(const std::string& text) {
  const std::string asked = "you tried to allocate ";
  const size_t at = text.find("DefaultCPUAllocator: can't allocate memory: " + asked);
  if (at == std::string::npos) return "";
  const std::string bytes = text.substr(text.find(asked, at) + asked.size());
  const double amount = std::strtod(bytes.c_str(), nullptr);
  char gibibytes[64];
  std::snprintf(gibibytes, sizeof gibibytes, "%.2f GiB", amount / (1024.0 * 1024 * 1024));
  return "out of memory: an allocation of " + std::string(gibibytes) + " (" +
         bytes.substr(0, bytes.find(' ')) + " bytes) failed";
}

}  // namespace one_line_detail

inline std::string one_line(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr)
    return std::string("out of memory: an allocation failed (") + e.what() + ")";
  const auto* torch_error = dynamic_cast<const c10::Error*>(&e);
  std::string text = torch_error ? torch_error->what_without_backtrace() : e.what();
  const std::string memory = one_line_detail::out_of_memory(text);
  if (!memory.empty()) return memory;
  return clipped(text.substr(0, text.find('\n')), kQuotedErrorCharacters);
}

}  // namespace runner
