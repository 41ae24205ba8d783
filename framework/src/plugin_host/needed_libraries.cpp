// Reads a shared object's DT_NEEDED names: its dynamic section, and the string table it names.
#include "plugin_host/needed_libraries.hpp"

#include <elf.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <type_traits>

namespace runner::plugin_host {
namespace {

using Header = std::conditional_t<sizeof(void*) == 8, Elf64_Ehdr, Elf32_Ehdr>;
using ProgramHeader = std::conditional_t<sizeof(void*) == 8, Elf64_Phdr, Elf32_Phdr>;
using Dynamic = std::conditional_t<sizeof(void*) == 8, Elf64_Dyn, Elf32_Dyn>;

// Bounds for a file that lies about its sizes: a real library has a few dozen of each.
constexpr size_t kMostEntries = 65536;
constexpr size_t kLongestName = 4096;

template <typename T>
std::vector<T> read_table(std::ifstream& in, uint64_t offset, uint64_t count) {
  std::vector<T> table(static_cast<size_t>(std::min<uint64_t>(count, kMostEntries)));
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(table.data()),
          static_cast<std::streamsize>(table.size() * sizeof(T)));
  if (!in) table.clear();
  return table;
}

// Where the byte loaded at `address` lies in the file.
std::optional<uint64_t> file_offset(const std::vector<ProgramHeader>& segments, uint64_t address) {
  for (const auto& s : segments)
    if (s.p_type == PT_LOAD && address >= s.p_vaddr && address - s.p_vaddr < s.p_filesz)
      return s.p_offset + (address - s.p_vaddr);
  return std::nullopt;
}

std::string read_name(std::ifstream& in, uint64_t offset, uint64_t room) {
  std::string name;
  in.seekg(static_cast<std::streamoff>(offset));
  for (char c; name.size() < std::min<uint64_t>(room, kLongestName) && in.get(c) && c != '\0';)
    name.push_back(c);
  return name;
}

}  // namespace

std::vector<std::string> needed_libraries(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Header h{};
  if (!in.read(reinterpret_cast<char*>(&h), sizeof h) || h.e_phentsize != sizeof(ProgramHeader))
    return {};
  const auto segments = read_table<ProgramHeader>(in, h.e_phoff, h.e_phnum);
  std::vector<Dynamic> entries;
  for (const auto& s : segments)
    if (s.p_type == PT_DYNAMIC)
      entries = read_table<Dynamic>(in, s.p_offset, s.p_filesz / sizeof(Dynamic));
  uint64_t strings = 0, strings_size = 0;
  std::vector<uint64_t> needed;
  for (const auto& e : entries) {
    if (e.d_tag == DT_NULL) break;
    if (e.d_tag == DT_STRTAB) strings = e.d_un.d_ptr;
    if (e.d_tag == DT_STRSZ) strings_size = e.d_un.d_val;
    if (e.d_tag == DT_NEEDED) needed.push_back(e.d_un.d_val);
  }
  const std::optional<uint64_t> table = file_offset(segments, strings);
  std::vector<std::string> names;
  if (!table) return names;
  for (uint64_t at : needed)
    if (at < strings_size) names.push_back(read_name(in, *table + at, strings_size - at));
  return names;
}

}  // namespace runner::plugin_host
