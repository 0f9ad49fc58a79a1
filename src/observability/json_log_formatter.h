// `--log-format json`: one JSON object per line, {"time","level","msg"} and then the
// structured fields of the scope (log_fields.h). Any bytes in a message come out as
// valid JSON: control characters are escaped, ill-formed UTF-8 becomes U+FFFD.
#pragma once

#include <spdlog/formatter.h>

#include <chrono>
#include <span>
#include <string>
#include <string_view>

#include "observability/log_fields.h"

namespace licensed {

// One line, '\n' included. `time` is written as RFC 3339 UTC with milliseconds.
std::string json_log_line(std::chrono::system_clock::time_point time, std::string_view level,
                          std::string_view message, std::span<const LogField> fields);

class JsonLogFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;
};

}  // namespace licensed
