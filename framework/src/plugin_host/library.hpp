// One loaded plugin library: its handle, path and checked header. Every object a plugin
// creates holds a shared_ptr to its library, so the code outlives the object.
#pragma once

#include <boost/dll/shared_library.hpp>

#include <memory>
#include <string>

#include "runner/plugin.hpp"

namespace runner::plugin_host {

class Library {
 public:
  // Loads `path` and checks its header; throws PluginError naming the file and the reason.
  static std::shared_ptr<Library> load(const std::string& path);

  const std::string& path() const { return path_; }
  const std::vector<Component>& components() const { return builder_->components(); }

 private:
  Library(boost::dll::shared_library handle, std::string path, const PluginBuilder* builder)
      : handle_(std::move(handle)), path_(std::move(path)), builder_(builder) {}

  boost::dll::shared_library handle_;
  std::string path_;
  const PluginBuilder* builder_;
};

// Checks the plain fields of a header against this host; throws PluginError on a mismatch.
void check_header(const PluginHeader& header, const std::string& path);

}  // namespace runner::plugin_host
