// http_fetch: one libcurl transfer into a file, with time limits and failure reasons.
#include <runner/datasets/http_fetch.hpp>

#include <curl/curl.h>
#include <runner/errors.hpp>

#include <cstring>
#include <memory>

#include "synced_file.hpp"

namespace runner::datasets {
namespace {

// libcurl's global state, set up once per process before the first handle.
void init_curl_once() {
  static const CURLcode code = curl_global_init(CURL_GLOBAL_DEFAULT);
  RUNNER_CHECK(code == CURLE_OK, curl_easy_strerror(code));
}

std::string failure_reason(CURL* curl, CURLcode code, const char* message) {
  if (code == CURLE_HTTP_RETURNED_ERROR) {
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    return "HTTP " + std::to_string(status);
  }
  std::string detail = message[0] != '\0' ? message : curl_easy_strerror(code);
  if (code == CURLE_OPERATION_TIMEDOUT) return "timeout (" + detail + ")";
  long os_errno = 0;
  curl_easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
  // curl's own text for a refused connection does not say it was refused; errno does.
  if (code == CURLE_COULDNT_CONNECT && os_errno != 0)
    return std::string("cannot connect (") + std::strerror(static_cast<int>(os_errno)) + ")";
  return detail;
}

bool is_unreachable(CURLcode code) {
  return code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST ||
         code == CURLE_COULDNT_RESOLVE_PROXY || code == CURLE_OPERATION_TIMEDOUT;
}

void set_options(CURL* curl, const std::string& url, FILE* out, const FetchLimits& limits,
                 char* message) {
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, out);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, message);
  curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, limits.connect_timeout_s);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, limits.low_speed_bytes_per_s);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, limits.low_speed_time_s);
  // Timeouts by signal are unsafe in a process with threads.
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "runner");
}

}  // namespace

void http_fetch(const std::string& url, const std::filesystem::path& path,
                const FetchLimits& limits) {
  init_curl_once();
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), &curl_easy_cleanup);
  RUNNER_CHECK(curl != nullptr, "curl_easy_init failed");
  SyncedFile out(path);
  char message[CURL_ERROR_SIZE] = "";
  set_options(curl.get(), url, out.get(), limits, message);
  CURLcode code = curl_easy_perform(curl.get());
  if (code != CURLE_OK)
    throw FetchError(failure_reason(curl.get(), code, message), is_unreachable(code));
  std::string not_written = out.close();
  if (!not_written.empty()) throw FetchError("cannot write " + path.string() + ": " + not_written);
}

}  // namespace runner::datasets
