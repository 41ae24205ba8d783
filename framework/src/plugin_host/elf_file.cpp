// Reading an ELF header and its program headers to check word size, machine and whole segments;
// its section headers to find an exported symbol.
#include "plugin_host/elf_file.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <type_traits>
#include <vector>

#include "runner/errors.hpp"

namespace runner::plugin_host {
namespace {

// This host loads only objects built for its own word size, byte order and machine.
constexpr unsigned char kClass = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;
constexpr unsigned char kByteOrder =
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
#elif defined(__powerpc64__)
constexpr uint16_t kMachine = EM_PPC64;
#else
#error "runner: unknown ELF machine for this architecture"
#endif

using Header = std::conditional_t<sizeof(void*) == 8, Elf64_Ehdr, Elf32_Ehdr>;
using ProgramHeader = std::conditional_t<sizeof(void*) == 8, Elf64_Phdr, Elf32_Phdr>;
using SectionHeader = std::conditional_t<sizeof(void*) == 8, Elf64_Shdr, Elf32_Shdr>;
using Symbol = std::conditional_t<sizeof(void*) == 8, Elf64_Sym, Elf32_Sym>;

// A plugin's dynamic symbols are a few thousand at most (LibTorch's templates): past this a
// table is read no further.
constexpr uint64_t kMostSymbols = uint64_t{1} << 20;

[[noreturn]] void refuse(const std::string& path, const std::string& reason) {
  throw PluginError("not a plugin library: " + path + ": " + reason,
                    "the plugin path holds only runner plugins (.so files); rebuild or reinstall "
                    "a library that was cut short");
}

// `count` entries of `size` bytes from `offset` end within `file_size`, without overflow.
bool table_fits(uint64_t offset, uint64_t count, uint64_t size, uint64_t file_size) {
  if (offset > file_size) return false;
  return size == 0 || count <= (file_size - offset) / size;
}

void require_range(const std::string& path, const std::string& what, uint64_t offset,
                   uint64_t count, uint64_t size, uint64_t file_size) {
  if (!table_fits(offset, count, size, file_size))
    refuse(path,
           "file too short: its " + what + " end past its " + std::to_string(file_size) + " bytes");
}

void check_identity(const std::string& path, const Header& h) {
  if (std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0) refuse(path, "not an ELF file");
  if (h.e_ident[EI_CLASS] != kClass)
    refuse(path, std::string("an ELF file of ") +
                     (h.e_ident[EI_CLASS] == ELFCLASS32 ? "32" : "64") + " bits, this host is " +
                     std::to_string(sizeof(void*) * 8));
  if (h.e_ident[EI_DATA] != kByteOrder) refuse(path, "an ELF file of the other byte order");
  if (h.e_machine != kMachine)
    refuse(path, "an ELF file for another machine (e_machine " + std::to_string(h.e_machine) +
                     ", this host " + std::to_string(kMachine) + ")");
  if (h.e_type != ET_DYN) refuse(path, "an ELF file that is not a shared object");
}

void check_segments(const std::string& path, std::ifstream& in, const Header& h,
                    uint64_t file_size) {
  if (h.e_phnum > 0 && h.e_phentsize != sizeof(ProgramHeader))
    refuse(path, "program header entries of " + std::to_string(h.e_phentsize) + " bytes");
  std::vector<ProgramHeader> segments(h.e_phnum);
  in.seekg(static_cast<std::streamoff>(h.e_phoff));
  in.read(reinterpret_cast<char*>(segments.data()),
          static_cast<std::streamsize>(segments.size() * sizeof(ProgramHeader)));
  if (!in) refuse(path, "file too short: its program headers cannot be read");
  for (const auto& s : segments)
    if (s.p_type == PT_LOAD) require_range(path, "segments", s.p_offset, 1, s.p_filesz, file_size);
}

template <typename T>
std::vector<T> read_entries(std::ifstream& in, uint64_t offset, uint64_t count) {
  std::vector<T> entries(static_cast<size_t>(count));
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(entries.data()),
          static_cast<std::streamsize>(entries.size() * sizeof(T)));
  if (!in) entries.clear();
  return entries;
}

// Whether the string at `offset` of the table at `table` (of `size` bytes) is `name`.
bool name_at(std::ifstream& in, uint64_t table, uint64_t size, uint64_t offset,
             const std::string& name) {
  if (offset >= size || size - offset < name.size() + 1) return false;
  std::string found(name.size() + 1, '\0');
  in.seekg(static_cast<std::streamoff>(table + offset));
  in.read(found.data(), static_cast<std::streamsize>(found.size()));
  return in && found.compare(0, name.size(), name) == 0 && found.back() == '\0';
}

}  // namespace

void require_whole_shared_object(const std::string& path) {
  std::error_code error;
  const uint64_t file_size = std::filesystem::file_size(path, error);
  if (error) refuse(path, error.message());
  std::ifstream in(path, std::ios::binary);
  Header h{};
  if (!in.read(reinterpret_cast<char*>(&h), sizeof h))
    refuse(path,
           file_size < SELFMAG || std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0
               ? "not an ELF file"
               : "file too short: " + std::to_string(file_size) + " bytes, no whole ELF header");
  check_identity(path, h);
  require_range(path, "program headers", h.e_phoff, h.e_phnum, h.e_phentsize, file_size);
  require_range(path, "section headers", h.e_shoff, h.e_shnum, h.e_shentsize, file_size);
  check_segments(path, in, h, file_size);
}

bool exports_symbol(const std::string& path, const std::string& name) {
  require_whole_shared_object(path);
  const uint64_t file_size = std::filesystem::file_size(path);
  std::ifstream in(path, std::ios::binary);
  Header h{};
  if (!in.read(reinterpret_cast<char*>(&h), sizeof h) || h.e_shentsize != sizeof(SectionHeader))
    return false;
  const auto sections = read_entries<SectionHeader>(in, h.e_shoff, h.e_shnum);
  for (const auto& table : sections) {
    if (table.sh_type != SHT_DYNSYM || table.sh_link >= sections.size()) continue;
    const SectionHeader& strings = sections[table.sh_link];
    const uint64_t count = std::min<uint64_t>(table.sh_size / sizeof(Symbol), kMostSymbols);
    if (!table_fits(table.sh_offset, count, sizeof(Symbol), file_size) ||
        !table_fits(strings.sh_offset, 1, strings.sh_size, file_size))
      return false;
    for (const auto& symbol : read_entries<Symbol>(in, table.sh_offset, count)) {
      const unsigned binding = ELF64_ST_BIND(symbol.st_info);
      if (symbol.st_shndx == SHN_UNDEF || (binding != STB_GLOBAL && binding != STB_WEAK)) continue;
      if (name_at(in, strings.sh_offset, strings.sh_size, symbol.st_name, name)) return true;
    }
  }
  return false;
}

}  // namespace runner::plugin_host
