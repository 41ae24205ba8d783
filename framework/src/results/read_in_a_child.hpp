// libhdf5 1.10 trusts some of what a file says: a variable-length string's reference names an
// object of a global heap collection by an index it never checks, so a damaged or crafted
// results file can crash the library itself (found by the results fuzzer: the SEGV in
// H5HG_read of tests/fuzz/findings). No check of ours before HDF5 opens the file can see those
// references. So a read that may meet one runs first in a forked child: a child that dies of
// a crash signal means the file is damaged, and this process never reads it.
#pragma once

#include <functional>
#include <string>

namespace runner::results::detail {

// Runs `read` in a child process first. Throws DataError naming `path` when the child dies of
// SIGSEGV, SIGBUS, SIGABRT, SIGFPE or SIGILL, or exits with a code other than 0 (a sanitizer
// reporting the crash); anything else the child meets (an error, a signal sent to the whole
// process group) is left for this process's own read to meet. Inside the child, and where no
// child can be forked, it does nothing.
void read_first_in_a_child(const std::string& path, const std::function<void()>& read);

}  // namespace runner::results::detail
