#include "results/file_format.hpp"

#include <filesystem>

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

void require_hdf5(const std::string& path) {
  std::error_code ignored;
  if (fs::is_directory(path, ignored)) throw DataError(path + ": a folder, not a results file");
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

// HDF5 locks a file while it is open; the lock failing is the common case worth a hint.
Handle open_hdf5(const std::string& path, unsigned access) {
  const hid_t id = H5Fopen(path.c_str(), access, H5P_DEFAULT);
  if (id >= 0) return Handle(id, H5Fclose);
  const std::string reason = hdf5_error_reason();
  const bool locked = reason.find("unable to lock file") != std::string::npos;
  throw DataError(path + ": cannot open the file: " + reason,
                  locked ? "another process has it open for writing (a running experiment?); "
                           "wait for it, or read anyway with HDF5_USE_FILE_LOCKING=FALSE"
                         : "");
}

Handle open_checked(const std::string& path, unsigned access) {
  Handle file = open_hdf5(path, access);
  const bool writes = access == H5F_ACC_RDWR;
  const Versions versions{writes ? kFormatVersion : kOldestReadableVersion, kFormatVersion};
  with_context(path, [&] {
    require_runner_format(file.get(), versions, writes ? "appends to" : "reads");
  });
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
  create_parent_folder(path);
  const std::string what = path + ": cannot create the file";
  Handle properties = own(H5Pcreate(H5P_FILE_CREATE), H5Pclose, what);
  check(H5Pset_link_creation_order(properties.get(),
                                   H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
        what);
  // Exclusive: of two processes creating the same file, neither truncates the other's.
  Handle file = own(H5Fcreate(path.c_str(), H5F_ACC_EXCL, properties.get(), H5P_DEFAULT),
                    H5Fclose, what);
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

Handle open_for_append(const std::string& path) {
  silence_hdf5_error_printing();
  return file_exists(path) ? open_existing(path, H5F_ACC_RDWR) : create_file(path);
}

Handle open_for_reading(const std::string& path) {
  silence_hdf5_error_printing();
  if (!file_exists(path)) throw DataError("results file not found: " + path);
  return open_existing(path, H5F_ACC_RDONLY);
}

void flush_file(hid_t object) {
  check(H5Fflush(object, H5F_SCOPE_GLOBAL), "cannot flush the file");
}

}  // namespace runner::results::detail
