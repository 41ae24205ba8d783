// A plugin library tried first in a child process: its constructors, entry and registration run
// there, so a library that crashes (SIGSEGV), throws from a constructor (std::terminate), ends
// the process (exit) or hangs as it loads is named with how, and passed over, never the host's
// end. A library that loaded in its child before, unchanged since, is not tried again: the
// libraries tried are kept in a cache file under $XDG_CACHE_HOME/runner (else ~/.cache/runner),
// by path, device, inode, size and change time.
#pragma once

#include <optional>
#include <string>

namespace runner::plugin_host {

// nullopt when `path` loads in a child (or loaded before, unchanged); else how it failed there:
// "crashed with signal 11 (SIGSEGV) while loading". A library the usual checks refuse
// (no entry, another ABI) loads in the child as far as they go: the host's own load refuses it.
// A child still loading after `limit_seconds` is killed: "did not finish loading in 60 s".
std::optional<std::string> probe_failure(const std::string& path, int limit_seconds = 60);

}  // namespace runner::plugin_host
