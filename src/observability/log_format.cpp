#include "observability/log_format.h"

#include <spdlog/spdlog.h>

#include "observability/json_log_formatter.h"

namespace licensed {

std::optional<LogFormat> parse_log_format(std::string_view text) {
  if (text == "text") return LogFormat::kText;
  if (text == "json") return LogFormat::kJson;
  return std::nullopt;
}

void use_log_format(LogFormat format) {
  switch (format) {
    case LogFormat::kText:
      spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %l %v", spdlog::pattern_time_type::utc);
      return;
    case LogFormat::kJson:
      spdlog::set_formatter(std::make_unique<JsonLogFormatter>());
      return;
  }
}

}  // namespace licensed
