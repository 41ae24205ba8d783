// Runs plugin code so that whatever it throws becomes a runner error naming the component
// and its library; the plugin's object is tied to its library's lifetime.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "common/one_line.hpp"
#include "plugin_host/registry.hpp"

namespace runner::plugin_host {

// A shared_ptr to `object` that also keeps its library loaded, destroyed object-first.
template <typename T>
std::shared_ptr<T> tie_to_library(std::shared_ptr<T> object, std::shared_ptr<Library> library) {
  struct Holder {
    std::shared_ptr<Library> library;  // declared first: destroyed last
    std::shared_ptr<T> object;
  };
  T* raw = object.get();
  auto holder = std::make_shared<Holder>(Holder{std::move(library), std::move(object)});
  return std::shared_ptr<T>(holder, raw);
}

// Calls `make()` (a plugin factory); runner errors keep their class with the component named,
// anything else is a PluginError.
template <typename F>
auto call_factory(const Registered& registered, F&& make) {
  try {
    auto object = make();
    if (!object) throw PluginError(describe(registered) + " returned nothing");
    return tie_to_library(std::move(object), registered.library);
  } catch (const Error& e) {
    throw Error(e.error_class(), describe(registered) + ": " + e.what(), e.hint());
  } catch (const std::exception& e) {
    throw PluginError(describe(registered) + " failed: " + one_line(e));
  } catch (...) {
    throw PluginError(describe(registered) + " failed with an unknown exception");
  }
}

}  // namespace runner::plugin_host
