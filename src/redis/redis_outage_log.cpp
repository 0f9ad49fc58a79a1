#include "redis/redis_outage_log.h"

#include <spdlog/spdlog.h>

namespace licensed {

RedisOutageLog::RedisOutageLog(std::string what, std::string consequence, const Clock& clock)
    : what_(std::move(what)), consequence_(std::move(consequence)), clock_(clock) {}

void RedisOutageLog::failed(std::string_view cause) {
  failures_.fetch_add(1, std::memory_order_relaxed);
  down_.store(true, std::memory_order_relaxed);
  if (auto left_out = throttle_.admit(clock_.now_ms())) {
    spdlog::warn("redis unavailable, {} {}: {} ({} similar lines left out)", what_, consequence_,
                 cause, *left_out);
  }
}

void RedisOutageLog::succeeded() {
  if (!down_.load(std::memory_order_relaxed)) return;
  if (down_.exchange(false, std::memory_order_relaxed)) {
    spdlog::info("redis recovered: {} work again", what_);
  }
}

}  // namespace licensed
