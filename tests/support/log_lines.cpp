#include "support/log_lines.h"

#include <gtest/gtest.h>

namespace bb {

std::vector<std::string> LogLines(const std::string& log) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < log.size()) {
    const std::size_t nl = log.find('\n', start);
    const std::size_t end = nl == std::string::npos ? log.size() : nl;
    out.push_back(log.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::vector<json::object> JsonLogLines(const std::string& log) {
  std::vector<json::object> out;
  for (const std::string& line : LogLines(log)) {
    boost::system::error_code ec;
    json::value v = json::parse(line, ec);
    if (ec || !v.is_object()) {
      ADD_FAILURE() << "log line is not a JSON object: " << line;
      continue;
    }
    json::object& o = v.as_object();
    for (const char* member : {"time", "level", "msg"}) {
      const json::value* m = o.if_contains(member);
      if (m == nullptr || !m->is_string()) {
        ADD_FAILURE() << "log line has no string '" << member << "': " << line;
      }
    }
    if (const json::value* t = o.if_contains("time"); t && t->is_string()) {
      EXPECT_TRUE(IsTimestamp(t->get_string())) << "time is not RFC 3339 UTC: " << line;
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace bb
