#include "store/store_fault.h"

#include <spdlog/spdlog.h>

namespace licensed {

ApiError store_fault(LogThrottle& throttle, bool transient, std::string detail) {
  if (const auto left_out = throttle.admit(SystemClock().now_ms())) {
    const auto level = transient ? spdlog::level::warn : spdlog::level::err;
    spdlog::log(level, "store {}{}", detail, left_out_note(*left_out));
  }
  ApiError e = transient ? errors::unavailable(1, "the license store is temporarily unavailable")
                         : errors::internal();
  e.detail = std::move(detail);
  return e;
}

}  // namespace licensed
