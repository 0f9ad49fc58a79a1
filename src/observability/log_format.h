// `--log-format text|json` (docs/protocol.md §18 precedence: flag, LICENSED_LOG_FORMAT, TOML
// log_format, default text). Text is for a terminal; json is for a log collector.
#pragma once

#include <optional>
#include <string_view>

namespace licensed {

enum class LogFormat { kText, kJson };

// `--log-level`: the least severe lines written.
enum class LogLevel { kDebug, kInfo, kWarn, kError };

// "text" or "json" (exactly); nullopt otherwise.
std::optional<LogFormat> parse_log_format(std::string_view text);

// "debug", "info", "warn" or "error" (exactly); nullopt otherwise.
std::optional<LogLevel> parse_log_level(std::string_view text);

// Sets the least severe level the default logger writes, for the whole process.
void use_log_level(LogLevel level);

// Switches the default spdlog logger to `format`, for the whole process.
void use_log_format(LogFormat format);
// The format last given to use_log_format (text before any).
LogFormat current_log_format();

}  // namespace licensed
