#include "observability/json_log_formatter.h"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "core/timestamp.h"
#include "core/utf8.h"

namespace licensed {

std::string json_log_line(std::chrono::system_clock::time_point time, std::string_view level,
                          std::string_view message, std::span<const LogField> fields) {
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
  boost::json::object line;
  line["time"] = format_timestamp(ms);
  line["level"] = valid_utf8(level);
  line["msg"] = valid_utf8(message);
  for (const auto& f : fields) {
    const std::string key = valid_utf8(f.key);
    // The three members every line has cannot be overwritten by a field.
    if (key == "time" || key == "level" || key == "msg") continue;
    line[key] = valid_utf8(f.value);
  }
  std::string out = boost::json::serialize(line);
  out.push_back('\n');
  return out;
}

void JsonLogFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  const auto level = spdlog::level::to_string_view(msg.level);
  const std::string line =
      json_log_line(msg.time, std::string_view(level.data(), level.size()),
                    std::string_view(msg.payload.data(), msg.payload.size()), current_log_fields());
  dest.append(line.data(), line.data() + line.size());
}

std::unique_ptr<spdlog::formatter> JsonLogFormatter::clone() const {
  return std::make_unique<JsonLogFormatter>();
}

}  // namespace licensed
