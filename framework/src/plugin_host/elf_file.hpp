// Checks that a file is a whole ELF shared object for this machine before dlopen maps it: a
// truncated library is mapped past its end and the first touch of a missing page is SIGBUS.
#pragma once

#include <string>

namespace runner::plugin_host {

// Throws PluginError naming `path` and what is wrong: not ELF, another class, byte order or
// machine, not a shared object, or program headers, segments or section headers past its end.
void require_whole_shared_object(const std::string& path);

// Whether the shared object at `path` (checked whole first) defines and exports `name` in its
// dynamic symbol table, read from the file: nothing of it runs, so a library that is no plugin
// is known as such before dlopen would run its constructors.
bool exports_symbol(const std::string& path, const std::string& name);

}  // namespace runner::plugin_host
