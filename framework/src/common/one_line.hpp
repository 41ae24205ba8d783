// The first line of an exception's message, LibTorch's errors without their backtrace, clipped:
// how the host quotes an error from plugin code, LibTorch or c10d in its one-line messages.
#pragma once

#include <c10/util/Exception.h>

#include <exception>
#include <string>

#include "common/clipped_text.hpp"

namespace runner {

// The most characters of another library's error line a message quotes: a LibTorch shape error
// fits whole, a plugin that echoes a user's megabyte value does not flood the terminal.
inline constexpr size_t kQuotedErrorCharacters = 1000;

inline std::string one_line(const std::exception& e) {
  const auto* torch_error = dynamic_cast<const c10::Error*>(&e);
  std::string text = torch_error ? torch_error->what_without_backtrace() : e.what();
  return clipped(text.substr(0, text.find('\n')), kQuotedErrorCharacters);
}

}  // namespace runner
