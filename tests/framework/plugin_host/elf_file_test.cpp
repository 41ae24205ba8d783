// A library cut short, or built for another machine, is refused by name before dlopen maps it.
#include <elf.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fixtures.hpp"
#include "load_error.hpp"
#include "plugin_host/elf_file.hpp"
#include "plugin_host/library.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::plugin_host {
namespace {

using runner::testing::fixture_library;
using runner::testing::fresh_dir;
using runner::testing::load_error;

std::string good_library_bytes() {
  std::ifstream in(fixture_library("good"), std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string write_library(const std::string& name, const std::string& bytes) {
  const std::string path = fresh_dir("elf_" + name) + "/" + name + ".so";
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(ElfFile, ALibraryCutShortAnywhereIsRefusedAsTooShort) {
  const std::string whole = good_library_bytes();
  ASSERT_GT(whole.size(), 4096u);
  for (size_t length :
       {size_t{20}, sizeof(Elf64_Ehdr) + 8, size_t{4096}, whole.size() / 2, whole.size() - 1}) {
    const std::string path =
        write_library("cut_" + std::to_string(length), whole.substr(0, length));
    const std::string message = load_error(path);
    EXPECT_THAT(message, HasSubstr("file too short")) << length << ": " << message;
    EXPECT_THAT(message, HasSubstr(path)) << message;
  }
}

TEST(ElfFile, ALibraryOfAnotherMachineOrWordSizeIsNamedSo) {
  std::string other_machine = good_library_bytes();
  other_machine[offsetof(Elf64_Ehdr, e_machine)] = static_cast<char>(EM_S390);
  other_machine[offsetof(Elf64_Ehdr, e_machine) + 1] = 0;
  EXPECT_THAT(load_error(write_library("s390", other_machine)), HasSubstr("another machine"));
  std::string other_class = good_library_bytes();
  other_class[EI_CLASS] = ELFCLASS32;
  EXPECT_THAT(load_error(write_library("elf32", other_class)), HasSubstr("32 bits"));
}

TEST(ElfFile, AnEmptyFileIsNotElf) {
  EXPECT_THAT(load_error(write_library("empty", "")), HasSubstr("not an ELF file"));
}

// A position-independent executable is an ELF shared object to the checks: it is refused by its
// missing entry, read from the file, before dlopen could run any of its code.
TEST(ElfFile, AnExecutableIsRefusedByItsMissingEntryUnopened) {
  std::ifstream in("/bin/true", std::ios::binary);
  const std::string executable(std::istreambuf_iterator<char>(in), {});
  ASSERT_FALSE(executable.empty());
  const std::string path = write_library("executable", executable);
  EXPECT_FALSE(exports_symbol(path, RUNNER_PLUGIN_ENTRY_SYMBOL));
  const std::string message = load_error(path);
  EXPECT_THAT(message, Not(HasSubstr("Bad file descriptor"))) << message;
  EXPECT_THAT(message, HasSubstr("has no entry symbol 'runner_plugin_entry'")) << message;
}

// A library with the entry that dlopen still refuses keeps the loader's reason.
TEST(ElfFile, TheLoadersOwnReasonIsKept) {
  const std::string message = load_error(fixture_library("undefined_symbol"));
  EXPECT_THAT(message, HasSubstr("undefined symbol: runner_fixture_defined_nowhere")) << message;
  EXPECT_THAT(message, HasSubstr(fixture_library("undefined_symbol"))) << message;
}

TEST(ElfFile, APluginsEntryIsFoundInItsFile) {
  EXPECT_TRUE(exports_symbol(runner::testing::fixture_library("good"), RUNNER_PLUGIN_ENTRY_SYMBOL));
  EXPECT_TRUE(exports_symbol(runner::testing::fixture_library("no_entry"), "fixture_answer"));
  EXPECT_FALSE(
      exports_symbol(runner::testing::fixture_library("no_entry"), RUNNER_PLUGIN_ENTRY_SYMBOL));
}

}  // namespace
}  // namespace runner::plugin_host
