// Copies an escaping exception into a host-owned runner::Error. An exception thrown by plugin
// code may keep its type information, vtable and message in the plugin's library: reading it
// after that library is unloaded crashes. Every command that loads plugins runs its work
// through with_host_owned_errors() inside the scope that holds its Registry.
#pragma once

#include <utility>

#include "common/one_line.hpp"
#include "runner/errors.hpp"

namespace runner::plugin_host {

template <typename F>
auto with_host_owned_errors(F&& body) -> decltype(body()) {
  try {
    return std::forward<F>(body)();
  } catch (const Error& e) {
    throw Error(e.error_class(), e.what(), e.hint());
  } catch (const std::exception& e) {
    throw Error(ErrorClass::runtime, one_line(e));
  } catch (...) {
    throw Error(ErrorClass::runtime, "an exception that is not a std::exception");
  }
}

}  // namespace runner::plugin_host
