#include "store/store_job.h"

#include <spdlog/spdlog.h>

namespace licensed {

bool run_store_job(StoreJob& job, StoreTx& tx) {
  try {
    return job.run(tx);
  } catch (const std::exception& e) {
    spdlog::error("store job failed: {}", e.what());
    return false;
  }
}

void finish_store_job(StoreJob& job, const std::optional<Error>& failure) {
  try {
    job.done(failure);
  } catch (const std::exception& e) {
    spdlog::error("store completion failed: {}", e.what());
  }
}

bool refuse_when_full(StoreJob& job, size_t depth, size_t max_queued, bool stopping,
                      LogThrottle& overload_log) {
  if (depth < max_queued && !stopping) return false;
  if (!stopping) {
    if (const auto left_out = overload_log.admit(SystemClock().now_ms())) {
      spdlog::warn(
          "store overloaded: {} jobs queued, the limit; answering 503 ({} more since "
          "the last report)",
          max_queued, *left_out);
    }
  }
  if (stopping) {
    finish_store_job(job, Error::unavailable("the license store is stopping"));
    return true;
  }
  Error full = Error::unavailable("the license store is overloaded");
  full.subject = kStoreQueueFull;  // counted apart (Store::count_failure)
  finish_store_job(job, full);
  return true;
}

}  // namespace licensed
