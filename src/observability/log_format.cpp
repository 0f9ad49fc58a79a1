#include "observability/log_format.h"

#include <spdlog/spdlog.h>

#include <atomic>

#include "observability/json_log_formatter.h"

namespace licensed {

std::optional<LogFormat> parse_log_format(std::string_view text) {
  if (text == "text") return LogFormat::kText;
  if (text == "json") return LogFormat::kJson;
  return std::nullopt;
}

std::optional<LogLevel> parse_log_level(std::string_view text) {
  if (text == "debug") return LogLevel::kDebug;
  if (text == "info") return LogLevel::kInfo;
  if (text == "warn") return LogLevel::kWarn;
  if (text == "error") return LogLevel::kError;
  return std::nullopt;
}

void use_log_level(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return spdlog::set_level(spdlog::level::debug);
    case LogLevel::kInfo:
      return spdlog::set_level(spdlog::level::info);
    case LogLevel::kWarn:
      return spdlog::set_level(spdlog::level::warn);
    case LogLevel::kError:
      return spdlog::set_level(spdlog::level::err);
  }
}

namespace {
// The format last chosen, for a logger made afterwards (log_output.cpp).
std::atomic<LogFormat> chosen_format{LogFormat::kText};
}  // namespace

LogFormat current_log_format() {
  return chosen_format.load();
}

void use_log_format(LogFormat format) {
  chosen_format = format;
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
