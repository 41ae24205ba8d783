// Opening, creating and flushing results files: checks, format versions, HDF5 locking.
#include "results/file_format.hpp"

#include <filesystem>

#include "common/file_kind.hpp"
#include "results/attributes.hpp"
#include "results/disk_reserve.hpp"
#include "results/global_heaps.hpp"
#include "results/read_in_a_child.hpp"
#include "results/results.hpp"
#include "results/schema.hpp"

namespace runner::results::detail {

namespace {

namespace fs = std::filesystem;

bool file_exists(const std::string& path) {
  std::error_code error;
  return fs::exists(path, error);
}

// Before any open or lock: opening a FIFO waits for a writer, and HDF5 would create a file
// through a link to nothing only to say it exists.
void refuse_special_file(const std::string& path) {
  if (const auto type = special_file_type(path))
    throw DataError(path + ": is " + *type + ", not a results file",
                    "results files are HDF5 files: name a file, or a path where none is yet");
  if (const auto target = dangling_link_target(path))
    throw DataError(path + ": is a symbolic link to " + *target + ", which does not exist",
                    "remove the link, or create the folder of its target");
}

void require_hdf5(const std::string& path) {
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 < 0) throw_hdf5_error(path + ": cannot read the file");
  if (is_hdf5 == 0)
    throw DataError(path + ": not an HDF5 file",
                    "results files are HDF5; choose another results file or move this one");
}

// The versions a reader understands, or the one version a writer appends to.
struct Versions {
  int64_t oldest, newest;
};

std::string version_text(Versions versions) {
  if (versions.oldest == versions.newest) return "version " + std::to_string(versions.newest);
  return "versions " + std::to_string(versions.oldest) + " to " + std::to_string(versions.newest);
}

void require_runner_format(hid_t file, Versions versions, const char* access) {
  if (!has_attribute(file, schema::kFormat))
    throw DataError("not a runner results file (its root has no 'format' attribute)");
  const std::string format = read_string_attribute(file, schema::kFormat);
  if (format != kFormatName)
    throw DataError("not a runner results file (its format is '" + format + "', not '" +
                    kFormatName + "')");
  if (!has_attribute(file, schema::kFormatVersion))
    throw DataError("its root has a 'format' attribute but no 'format_version'");
  const int64_t version = read_int_attribute(file, schema::kFormatVersion);
  if (version < versions.oldest || version > versions.newest)
    throw DataError("results format version " + std::to_string(version) + ", but this runner " +
                        access + " " + version_text(versions),
                    "use the runner version that wrote it, or write to a new results file");
}

// Without HDF5's lock: a writer holds it for as long as its run lasts, and runner's own lock
// (writer_lock.hpp) keeps writers apart whatever HDF5's locking is. The environment variable
// HDF5_USE_FILE_LOCKING still overrides this setting. "Disabled locks" are not ignored, as
// in a writer's open: HDF5 refuses a second open of a file whose flags differ from the first
// (open_read_only). H5Pset_file_locking came with HDF5 1.10.7 and 1.12.1.
Handle access_without_locking(const std::string& path) {
  const std::string what = path + ": cannot open the file";
  Handle properties = own(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, what);
  check(H5Pset_file_locking(properties.get(), false, false), what);
  return properties;
}

// An open's result: the file, or HDF5's reason it failed.
struct Opened {
  hid_t id;
  std::string reason;
};

Opened try_open(const std::string& path, unsigned access, hid_t properties) {
  const hid_t id = H5Fopen(path.c_str(), access, properties);
  return {id, id < 0 ? hdf5_error_reason() : ""};
}

// HDF5 opens a file once per process and refuses a second open of it with other locking: a
// process that writes the file reads it through its writer's open, with the same settings.
Opened open_read_only(const std::string& path) {
  const Handle without_locking = access_without_locking(path);
  const Opened opened = try_open(path, H5F_ACC_RDONLY, without_locking.get());
  // "file locking flag values don't match", or its "'ignore disabled locks' flag" sibling.
  const bool open_here_otherwise =
      opened.reason.find("flag values don't match") != std::string::npos;
  return open_here_otherwise ? try_open(path, H5F_ACC_RDONLY, H5P_DEFAULT) : opened;
}

// Writers still take HDF5's lock, which keeps out other programs that lock the file (h5py,
// h5dump); readers take it only where HDF5_USE_FILE_LOCKING asks for it.
std::string locked_hint(unsigned access) {
  if (access == H5F_ACC_RDWR)
    return "another program has it open through HDF5 (a notebook, h5dump?); close it there, or "
           "open it there without locking (h5py: locking=False)";
  return "a process is writing it, and HDF5_USE_FILE_LOCKING in the environment makes HDF5 lock "
         "the file to read it: unset the variable to read it meanwhile";
}

Handle open_hdf5(const std::string& path, unsigned access) {
  const Opened opened =
      access == H5F_ACC_RDONLY ? open_read_only(path) : try_open(path, access, H5P_DEFAULT);
  if (opened.id >= 0) return Handle(opened.id, H5Fclose);
  const bool locked = opened.reason.find("unable to lock file") != std::string::npos;
  throw DataError(path + ": cannot open the file: " + opened.reason,
                  locked ? locked_hint(access) : "");
}

Handle open_checked(const std::string& path, unsigned access) {
  Handle file = open_hdf5(path, access);
  const bool writes = access == H5F_ACC_RDWR;
  const Versions versions{writes ? kFormatVersion : kOldestReadableVersion, kFormatVersion};
  with_context(
      path, [&] { require_runner_format(file.get(), versions, writes ? "appends to" : "reads"); });
  return file;
}

Handle open_existing(const std::string& path, unsigned access) {
  require_hdf5(path);
  check_global_heaps(path);
  read_first_in_a_child(path, [&] { open_checked(path, H5F_ACC_RDONLY); });
  return open_checked(path, access);
}

void create_parent_folder(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code error;
  fs::create_directories(parent, error);
  if (error)
    throw DataError("cannot create the folder " + parent.string() + " for results file " + path +
                    ": " + error.message());
}

// The default file access properties keep the earliest library version bounds on purpose:
// newer superblocks mark the file as open for writing, and a killed writer would then leave
// a file that readers refuse.
Handle create_file(const std::string& path) {
  const std::string what = path + ": cannot create the file";
  Handle properties = own(H5Pcreate(H5P_FILE_CREATE), H5Pclose, what);
  check(H5Pset_link_creation_order(properties.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
        what);
  // Exclusive: of two processes creating the same file, neither truncates the other's.
  Handle file =
      own(H5Fcreate(path.c_str(), H5F_ACC_EXCL, properties.get(), H5P_DEFAULT), H5Fclose, what);
  try {
    reserve_disk_space(path, bytes_for_records(0));
    with_context(path, [&] {
      write_string_attribute(file.get(), schema::kFormat, kFormatName);
      write_int_attribute(file.get(), schema::kFormatVersion, kFormatVersion);
      flush_file(file.get());
    });
  } catch (const DataError&) {
    // A file without its format attributes is no results file: no reader would open it.
    file = Handle();
    std::error_code ignored;
    fs::remove(path, ignored);
    throw;
  }
  return file;
}

}  // namespace

WritableFile open_for_append(const std::string& path) {
  silence_hdf5_error_printing();
  refuse_special_file(path);
  create_parent_folder(path);  // the lock file goes beside the results file
  std::shared_ptr<const WriterLock> lock = lock_for_writing(path);
  Handle file = file_exists(path) ? open_existing(path, H5F_ACC_RDWR) : create_file(path);
  return {std::move(lock), std::move(file)};
}

Handle open_for_reading(const std::string& path) {
  silence_hdf5_error_printing();
  refuse_special_file(path);
  if (!file_exists(path)) throw DataError("results file not found: " + path);
  return open_existing(path, H5F_ACC_RDONLY);
}

void flush_file(hid_t object) {
  check(H5Fflush(object, H5F_SCOPE_GLOBAL), "cannot flush the file");
}

}  // namespace runner::results::detail
