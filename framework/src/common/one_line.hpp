// The first line of an exception's message, LibTorch's errors without their backtrace: how
// the host quotes an error from plugin code, LibTorch or c10d in its one-line messages.
#pragma once

#include <c10/util/Exception.h>

#include <exception>
#include <string>

namespace runner {

inline std::string one_line(const std::exception& e) {
  const auto* torch_error = dynamic_cast<const c10::Error*>(&e);
  std::string text = torch_error ? torch_error->what_without_backtrace() : e.what();
  return text.substr(0, text.find('\n'));
}

}  // namespace runner
