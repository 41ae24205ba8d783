// Files that are missing, not HDF5, not ours, of another version, or damaged: DataError
// naming the file, and the file left untouched.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <utility>
#include <vector>

#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "results_test_support.hpp"
#include "runner/errors.hpp"
#include "runner_testing/special_files.hpp"

using ::testing::HasSubstr;

namespace runner::results {
namespace {

using runner::testing::make_socket_file;
using testing::sample_epoch;
using testing::sample_header;
using testing::ScratchFolder;

// The message of the DataError `action` throws; fails the test when it throws none.
std::string data_error_message(const std::function<void()>& action) {
  try {
    action();
  } catch (const DataError& error) {
    EXPECT_EQ(error.exit_code(), 4);
    return error.what();
  }
  ADD_FAILURE() << "no DataError thrown";
  return "";
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A plain HDF5 file, as another tool would write it.
void create_plain_hdf5(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  H5Fclose(file);
}

void set_root_attribute(const std::string& path, const char* name, hid_t type, const void* value) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  if (H5Aexists(file, name) > 0) H5Adelete(file, name);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attribute = H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(attribute, 0);
  EXPECT_GE(H5Awrite(attribute, type, value), 0);
  H5Aclose(attribute);
  H5Sclose(space);
  H5Fclose(file);
}

void set_root_string_attribute(const std::string& path, const char* name, const char* value) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  set_root_attribute(path, name, type, &value);
  H5Tclose(type);
}

// The free-space entry that ends the file's first global heap collection, by the published
// layout: a 16-byte collection header, then objects of a 16-byte header (index, references,
// reserved, size) and their data padded to 8 bytes; index 0 is the free space.
std::streamoff free_space_entry(const std::string& bytes) {
  const size_t collection = bytes.find("GCOL");
  size_t p = collection + 16;
  for (;;) {
    uint16_t index = 0;
    uint64_t size = 0;
    std::memcpy(&index, bytes.data() + p, 2);
    std::memcpy(&size, bytes.data() + p + 8, 8);
    if (index == 0) return static_cast<std::streamoff>(p);
    p += 16 + (size + 7) / 8 * 8;
  }
}

// A free-space entry of size 0 makes HDF5 1.10 read the collection forever (found by the
// results fuzzer): the file is refused before HDF5 reads it.
TEST(ResultsErrors, AGlobalHeapHDF5WouldReadForeverIsRefused) {
  ScratchFolder dir;
  const std::string path = dir.file("heap.h5");
  ResultsFile::open(path)->begin_run(sample_header("r1"))->append_epoch(sample_epoch(1));
  const std::string bytes = read_text(path);
  const std::streamoff entry = free_space_entry(bytes);
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(entry + 8);
    const char zeros[8] = {};
    file.write(zeros, sizeof zeros);
  }
  const std::string message = data_error_message([&] { read_runs(path); });
  EXPECT_THAT(message, HasSubstr(path + ": damaged: the global heap at byte " +
                                 std::to_string(bytes.find("GCOL"))))
      << message;
  EXPECT_THAT(data_error_message([&] { ResultsFile::open(path); }), HasSubstr("global heap"));
}

TEST(ResultsErrors, MissingFileIsNamed) {
  ScratchFolder folder;
  const std::string path = folder.file("absent.h5");
  EXPECT_EQ(data_error_message([&] { read_runs(path); }), "results file not found: " + path);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(ResultsErrors, TextFileIsNotHdf5AndIsLeftAlone) {
  ScratchFolder folder;
  const std::string path = folder.file("notes.h5");
  write_text(path, "these are my notes\n");
  for (const std::string& message : {data_error_message([&] { read_runs(path); }),
                                     data_error_message([&] { ResultsFile::open(path); })}) {
    EXPECT_THAT(message, HasSubstr(path)) << message;
    EXPECT_THAT(message, HasSubstr("not an HDF5 file")) << message;
  }
  EXPECT_EQ(read_text(path), "these are my notes\n");
}

// Each is refused by its path before anything opens it (a FIFO's open would wait for a writer
// forever), to read and to write, and is left as it was.
TEST(ResultsErrors, AFolderFifoSocketOrDeviceIsNoResultsFile) {
  ScratchFolder folder;
  const std::string fifo = folder.file("fifo.h5"), socket = folder.file("socket.h5");
  const std::string dir = folder.file("a-folder.h5");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(make_socket_file(socket));
  std::filesystem::create_directory(dir);
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {dir, "a folder"},
      {fifo, "a FIFO"},
      {socket, "a socket"},
      {"/dev/null", "a character device"}};
  for (const auto& special : kinds) {
    const std::string& path = special.first;  // a lambda captures no structured binding in C++17
    const std::string said = path + ": is " + special.second + ", not a results file";
    EXPECT_EQ(data_error_message([&] { read_runs(path); }), said);
    EXPECT_EQ(data_error_message([&] { ResultsFile::open(path); }), said);
  }
  EXPECT_FALSE(std::filesystem::exists(fifo + ".lock")) << "refused before the writer's lock";
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
}

TEST(ResultsErrors, ALinkToNothingIsNamedWithItsTarget) {
  ScratchFolder folder;
  const std::string path = folder.file("link.h5");
  std::filesystem::create_symlink(folder.file("gone/r.h5"), path);
  const std::string said =
      path + ": is a symbolic link to " + folder.file("gone/r.h5") + ", which does not exist";
  EXPECT_EQ(data_error_message([&] { read_runs(path); }), said);
  EXPECT_EQ(data_error_message([&] { ResultsFile::open(path); }), said);
  EXPECT_FALSE(std::filesystem::exists(folder.file("gone")));
}

TEST(ResultsErrors, EmptyFileIsNotHdf5) {
  ScratchFolder folder;
  const std::string path = folder.file("empty.h5");
  write_text(path, "");
  const std::string message = data_error_message([&] { ResultsFile::open(path); });
  EXPECT_THAT(message, HasSubstr(path)) << message;
  EXPECT_EQ(std::filesystem::file_size(path), 0u);
}

TEST(ResultsErrors, Hdf5FileWithoutFormatIsNotOurs) {
  ScratchFolder folder;
  const std::string path = folder.file("other.h5");
  create_plain_hdf5(path);
  for (const std::string& message : {data_error_message([&] { read_runs(path); }),
                                     data_error_message([&] { ResultsFile::open(path); })}) {
    EXPECT_THAT(message, HasSubstr(path)) << message;
    EXPECT_THAT(message, HasSubstr("no 'format' attribute")) << message;
  }
}

TEST(ResultsErrors, OtherFormatNameIsReported) {
  ScratchFolder folder;
  const std::string path = folder.file("other-format.h5");
  create_plain_hdf5(path);
  set_root_string_attribute(path, "format", "keras-weights");
  const std::string message = data_error_message([&] { ResultsFile::open(path); });
  EXPECT_THAT(message, HasSubstr(path)) << message;
  EXPECT_THAT(message, HasSubstr("'keras-weights'")) << message;
}

TEST(ResultsErrors, OtherFormatVersionIsReported) {
  ScratchFolder folder;
  const std::string path = folder.file("future.h5");
  ResultsFile::open(path)->begin_run(sample_header("a"));
  const int64_t future_version = kFormatVersion + 1;
  set_root_attribute(path, "format_version", H5T_NATIVE_INT64, &future_version);
  for (const std::string& message : {data_error_message([&] { read_runs(path); }),
                                     data_error_message([&] { ResultsFile::open(path); })}) {
    EXPECT_THAT(message, HasSubstr(path)) << message;
    EXPECT_THAT(message, HasSubstr("version " + std::to_string(future_version))) << message;
  }
}

// Version 1 held sweep values as text: still read, but runs of version 2 are not mixed in.
TEST(ResultsErrors, VersionOneFilesAreReadButNotAppendedTo) {
  ScratchFolder folder;
  const std::string path = folder.file("version-1.h5");
  RunHeader header = sample_header("a");
  header.sweep_point = {{"optimizer.lr", std::string("0.1")}};
  ResultsFile::open(path)->begin_run(header);
  const int64_t version_one = 1;
  set_root_attribute(path, "format_version", H5T_NATIVE_INT64, &version_one);

  const std::vector<RunRecord> runs = read_runs(path);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(std::get<std::string>(runs[0].header.sweep_point.at(0).second), "0.1");
  const std::string message = data_error_message([&] { ResultsFile::open(path); });
  EXPECT_THAT(message, HasSubstr(path)) << message;
  EXPECT_THAT(message, HasSubstr("results format version 1, but this runner appends to version 2"))
      << message;
}

// numpy.bytes_ attributes written by h5py are fixed-length strings.
TEST(ResultsErrors, FixedLengthFormatStringIsAccepted) {
  ScratchFolder folder;
  const std::string path = folder.file("fixed-format.h5");
  ResultsFile::open(path)->begin_run(sample_header("a"));
  const char format[] = "runner-results";
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, sizeof format - 1);
  H5Tset_strpad(type, H5T_STR_NULLPAD);
  set_root_attribute(path, "format", type, format);
  H5Tclose(type);
  EXPECT_EQ(read_runs(path).size(), 1u);
}

TEST(ResultsErrors, FormatVersionOfTheWrongKindIsReported) {
  ScratchFolder folder;
  const std::string path = folder.file("string-version.h5");
  ResultsFile::open(path);
  set_root_string_attribute(path, "format_version", "1");
  const std::string message = data_error_message([&] { read_runs(path); });
  EXPECT_THAT(message, HasSubstr(path)) << message;
  EXPECT_THAT(message, HasSubstr("format_version")) << message;
}

TEST(ResultsErrors, TruncatedFileIsADataError) {
  ScratchFolder folder;
  const std::string path = folder.file("truncated.h5");
  {
    auto run = ResultsFile::open(path)->begin_run(sample_header("a"));
    for (int64_t epoch = 1; epoch <= 5; ++epoch) run->append_epoch(sample_epoch(epoch));
  }
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  const std::string message = data_error_message([&] { read_runs(path); });
  EXPECT_THAT(message, HasSubstr(path)) << message;
}

TEST(ResultsErrors, UnknownStatusIsNotedAsDamage) {
  ScratchFolder folder;
  const std::string path = folder.file("bad-status.h5");
  ResultsFile::open(path)->begin_run(sample_header("a"));
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t run = H5Gopen2(file, "a", H5P_DEFAULT);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);  // the attribute's own: HDF5 1.14 converts no other
    const hid_t status = H5Aopen(run, "status", H5P_DEFAULT);
    const char* bogus = "bogus";
    EXPECT_GE(H5Awrite(status, type, &bogus), 0);
    H5Aclose(status);
    H5Tclose(type);
    H5Gclose(run);
    H5Fclose(file);
  }
  const std::vector<RunRecord> runs = read_runs(path);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_THAT(runs[0].damage, HasSubstr("'bogus'")) << runs[0].damage;
}

TEST(ResultsErrors, DamagedRunDoesNotHideTheOthers) {
  ScratchFolder folder;
  const std::string path = folder.file("damaged.h5");
  {
    auto file = ResultsFile::open(path);
    for (const char* id : {"a", "b"}) {
      auto run = file->begin_run(sample_header(id));
      run->append_epoch(sample_epoch(1));
      run->append_steps({testing::sample_step(1)});
    }
  }
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    EXPECT_GE(H5Ldelete(file, "a/steps/loss", H5P_DEFAULT), 0);
    H5Fclose(file);
  }
  const std::vector<RunRecord> runs = read_runs(path);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_THAT(runs[0].damage, HasSubstr("/a/steps/loss")) << runs[0].damage;
  EXPECT_TRUE(runs[0].steps.empty());
  EXPECT_EQ(runs[0].epochs.size(), 1u);
  EXPECT_EQ(runs[0].header.run_id, "a");
  EXPECT_EQ(runs[1].damage, "");
  EXPECT_EQ(runs[1].steps.size(), 1u);
}

// The one epoch of run "a", read back from a file whose epochs lack `columns`: a file of an
// older runner.
EpochRecord epoch_without(const std::vector<const char*>& columns) {
  ScratchFolder folder;
  const std::string path = folder.file("older.h5");
  {
    auto file = ResultsFile::open(path);
    auto run = file->begin_run(sample_header("a"));
    run->append_epoch(sample_epoch(1));
  }
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    for (const char* column : columns)
      EXPECT_GE(H5Ldelete(file, (std::string("a/epochs/") + column).c_str(), H5P_DEFAULT), 0);
    H5Fclose(file);
  }
  const std::vector<RunRecord> runs = read_runs(path);
  EXPECT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs.at(0).damage, "");
  EXPECT_EQ(runs.at(0).epochs.size(), 1u);
  return runs.at(0).epochs.at(0);
}

TEST(ResultsErrors, EpochColumnsAddedLaterReadAsZeroWhenAbsent) {
  const EpochRecord epoch =
      epoch_without({"forward_s", "backward_s", "optimizer_s", "activation_memory_bytes"});
  EXPECT_EQ(epoch.train_loss, sample_epoch(1).train_loss);
  EXPECT_EQ(epoch.forward_s, 0.0);
  EXPECT_EQ(epoch.activation_memory_bytes, 0.0);
}

// Unlike the phases, these may go unmeasured in a new file too: absent reads as not measured.
TEST(ResultsErrors, CommunicationAndGpuColumnsReadAsNanWhenAbsent) {
  const EpochRecord epoch =
      epoch_without({"communication_s", "gpu_utilization", "gpu_memory_used_bytes"});
  EXPECT_EQ(epoch.bubble_fraction, sample_epoch(1).bubble_fraction);
  EXPECT_TRUE(std::isnan(epoch.communication_s));
  EXPECT_TRUE(std::isnan(epoch.gpu_utilization));
  EXPECT_TRUE(std::isnan(epoch.gpu_memory_used_bytes));
}

TEST(ResultsErrors, GroupsThatAreNotRunsAreIgnored) {
  ScratchFolder folder;
  const std::string path = folder.file("annotated.h5");
  ResultsFile::open(path)->begin_run(sample_header("a"));
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Gclose(H5Gcreate2(file, "my_notes", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Fclose(file);
  }
  const std::vector<RunRecord> runs = read_runs(path);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].group, "a");
  EXPECT_EQ(ResultsFile::open(path)->begin_run(sample_header("b"))->group_name(), "b");
}

}  // namespace
}  // namespace runner::results
