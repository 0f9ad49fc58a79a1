// `--log-format text|json` (docs/protocol.md §18 precedence: flag, LICENSED_LOG_FORMAT, TOML
// log_format, default text). Text is for a terminal; json is for a log collector.
#pragma once

#include <optional>
#include <string_view>

namespace licensed {

enum class LogFormat { kText, kJson };

// "text" or "json" (exactly); nullopt otherwise.
std::optional<LogFormat> parse_log_format(std::string_view text);

// Switches the default spdlog logger to `format`, for the whole process.
void use_log_format(LogFormat format);

}  // namespace licensed
