// Library::load: ELF and LibTorch release checks, dlopen, the entry's header and its components.
#include "plugin_host/library.hpp"

#include <boost/dll/shared_library_load_mode.hpp>

#include <dlfcn.h>

#include <cstring>
#include <regex>

#include "plugin_host/elf_file.hpp"
#include "plugin_host/needed_libraries.hpp"

namespace runner::plugin_host {
namespace {

using EntryFunction = const PluginHeader*();

const char* kRebuildHint = "rebuild the plugin against this runner's SDK and LibTorch";

// Boost.DLL reports every dlopen failure as "Bad file descriptor"; dlerror() still holds the
// loader's own reason (a missing dependency, an undefined symbol).
std::string load_failure(const boost::dll::fs::error_code& error) {
  const char* reason = dlerror();
  return reason ? reason : error.message();
}

// A plugin built against another LibTorch release cannot even be opened where LibTorch's
// libraries carry their release in their names (Debian's libc10.so.2.6): the loader would only
// say that a library is missing. The names the plugin asks for say which release it wants.
void refuse_other_torch_release(const std::string& path) {
  static const std::regex versioned(
      R"(lib(?:c10|torch)[a-z0-9_]*\.so\.([0-9]+\.[0-9]+)(\.[0-9]+)*)");
  const std::string ours =
      std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR);
  for (const std::string& name : needed_libraries(path)) {
    std::smatch found;
    if (!std::regex_match(name, found, versioned) || found[1] == ours) continue;
    throw PluginError("plugin " + path + " was built with LibTorch " + found[1].str() +
                          " (it needs " + name + "), this runner uses LibTorch " TORCH_VERSION,
                      kRebuildHint);
  }
}

// Read from the file, before dlopen runs any of its constructors: a library that is no plugin
// runs no code in `runner plugins` or a dry run.
void require_entry(const std::string& path) {
  if (!exports_symbol(path, RUNNER_PLUGIN_ENTRY_SYMBOL))
    throw PluginError("plugin " + path + " has no entry symbol '" RUNNER_PLUGIN_ENTRY_SYMBOL "'",
                      "a plugin defines its components inside RUNNER_PLUGIN(...) { }");
}

boost::dll::shared_library open_library(const std::string& path) {
  require_whole_shared_object(path);
  require_entry(path);
  refuse_other_torch_release(path);
  boost::dll::fs::error_code error;
  dlerror();
  boost::dll::shared_library handle(path, boost::dll::load_mode::rtld_now, error);
  if (error || !handle.is_loaded())
    throw PluginError("not a plugin library: " + path + ": " + load_failure(error),
                      "the plugin path holds only runner plugins (.so files)");
  return handle;
}

// Its entry is exported (require_entry() read it from the file).
const PluginHeader* call_entry(boost::dll::shared_library& handle, const std::string& path) {
  auto& entry = handle.get<EntryFunction>(RUNNER_PLUGIN_ENTRY_SYMBOL);
  const PluginHeader* header = entry();
  if (!header) throw PluginError("plugin " + path + " returned no header from its entry");
  return header;
}

const PluginBuilder* register_components(const PluginHeader& header, const std::string& path) {
  const PluginBuilder* builder = nullptr;
  try {
    builder = header.components();
  } catch (const std::exception& e) {
    throw PluginError("plugin " + path + " failed while registering its components: " + e.what());
  }
  if (!builder) throw PluginError("plugin " + path + " lists no components");
  return builder;
}

}  // namespace

void check_header(const PluginHeader& header, const std::string& path) {
  if (header.abi_version != RUNNER_ABI_VERSION)
    throw PluginError("plugin " + path + " was built for runner ABI " +
                          std::to_string(header.abi_version) + ", this runner has ABI " +
                          std::to_string(RUNNER_ABI_VERSION),
                      kRebuildHint);
  const char* torch = header.torch_version ? header.torch_version : "(none)";
  if (std::strcmp(torch, TORCH_VERSION) != 0)
    throw PluginError("plugin " + path + " was built with LibTorch " + torch +
                          ", this runner uses LibTorch " TORCH_VERSION,
                      kRebuildHint);
  if (header.cxx11_abi != RUNNER_CXX11_ABI)
    throw PluginError("plugin " + path + " was built with _GLIBCXX_USE_CXX11_ABI=" +
                          std::to_string(header.cxx11_abi) + ", this runner with " +
                          std::to_string(RUNNER_CXX11_ABI),
                      kRebuildHint);
  if (!header.components) throw PluginError("plugin " + path + " lists no components");
}

std::shared_ptr<Library> Library::load(const std::string& path) {
  boost::dll::shared_library handle = open_library(path);
  const PluginHeader* header = call_entry(handle, path);
  check_header(*header, path);
  const PluginBuilder* builder = register_components(*header, path);
  return std::shared_ptr<Library>(new Library(std::move(handle), path, builder));
}

}  // namespace runner::plugin_host
