// A plugin host reduced to the start-up check, through the C ABI only (so on Windows it
// loads license_client.dll as a plugin would): the tests under Wine use it for the cache
// and the grace (client/tests/windows_sdk_test.cpp), and its timing is the start-up
// check's wall time the Windows SDK's report prints.
//
// Settings come from the environment licensectl reads (LICENSE_SERVER_URL, LICENSE_KEY_ID,
// LICENSE_SECRET, LICENSE_KEY, LICENSE_MACHINE_ID, LICENSE_PUBLIC_KEY), plus
// LICENSE_CACHE_DIR and LICENSE_STARTUP_BUDGET_MS. Prints one line:
//   status=<lc_status> source=<lc_source_string> ms=<wall time of the check> message=<...>
// and exits with the check's lc_status (2 when no client could be made).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "license_client/license_client.h"

namespace {

const char* setting(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

}  // namespace

int main() {
  lc_options options = lc_options_init();
  options.url = setting("LICENSE_SERVER_URL");
  options.key_id = setting("LICENSE_KEY_ID");
  options.secret = setting("LICENSE_SECRET");
  options.license_key = setting("LICENSE_KEY");
  options.machine_id = setting("LICENSE_MACHINE_ID");
  options.public_key = setting("LICENSE_PUBLIC_KEY");
  options.cache_dir = setting("LICENSE_CACHE_DIR");
  if (const char* budget = setting("LICENSE_STARTUP_BUDGET_MS")) {
    options.startup_budget_ms = std::atoll(budget);
  }
  char error[512] = {0};
  lc_client* client = lc_client_new(&options, error, sizeof error);
  if (client == nullptr) {
    std::fprintf(stderr, "lc_client_new: %s\n", error);
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  lc_result* result = nullptr;
  const lc_status status = lc_check_at_startup(client, &result);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("status=%d source=%s ms=%.1f message=%s\n", static_cast<int>(status),
              lc_source_string(lc_result_source(result)), ms, lc_result_message(result));
  std::fflush(stdout);
  lc_result_free(result);
  lc_client_free(client);
  return static_cast<int>(status);
}
