#include "observability/json_log_formatter.h"

#include <gtest/gtest.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>

#include <boost/json/parse.hpp>
#include <sstream>

namespace licensed {
namespace {

namespace json = boost::json;

const auto kTime =
    std::chrono::system_clock::time_point(std::chrono::milliseconds(1'790'000'000'123));

// The line must be exactly one JSON object and a newline.
json::object Parse(const std::string& line) {
  EXPECT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "more than one line: " << line;
  boost::system::error_code ec;
  json::value v = json::parse(line, ec);
  EXPECT_FALSE(ec) << ec.message() << " in " << line;
  EXPECT_TRUE(v.is_object()) << line;
  return v.is_object() ? v.as_object() : json::object();
}

TEST(JsonLogLine, HasTimeLevelAndMessage) {
  const json::object o = Parse(json_log_line(kTime, "info", "licensed ready", {}));
  EXPECT_EQ(o.at("time"), "2026-09-21T14:13:20.123Z");
  EXPECT_EQ(o.at("level"), "info");
  EXPECT_EQ(o.at("msg"), "licensed ready");
  EXPECT_EQ(o.size(), 3u);
}

TEST(JsonLogLine, EscapesQuotesBackslashesNewlinesAndControlCharacters) {
  const std::string nasty =
      std::string("say \"hi\"\\ \n\r\t\b\f end \x01\x1f\x7f nul:") + '\0' + "!";
  const std::string line = json_log_line(kTime, "error", nasty, {});
  const json::object o = Parse(line);
  EXPECT_EQ(o.at("msg").as_string(), nasty);  // round-trips exactly
  for (char c : line.substr(0, line.size() - 1)) {
    EXPECT_GE(static_cast<unsigned char>(c), 0x20) << "raw control character in " << line;
  }
}

TEST(JsonLogLine, InvalidUtf8BecomesReplacementCharacters) {
  const json::object o = Parse(json_log_line(kTime, "warning", "bad \xC3\x28 and \xFF end", {}));
  EXPECT_EQ(o.at("msg").as_string(), "bad \xEF\xBF\xBD( and \xEF\xBF\xBD end");
}

TEST(JsonLogLine, WritesStructuredFieldsAfterTheMessage) {
  const LogField fields[] = {{"requestId", "req_0123"}, {"endpoint", "status\n\"x\""}};
  const std::string line = json_log_line(kTime, "error", "failed", fields);
  const json::object o = Parse(line);
  EXPECT_EQ(o.at("requestId"), "req_0123");
  EXPECT_EQ(o.at("endpoint"), "status\n\"x\"");
  EXPECT_LT(line.find("\"msg\""), line.find("\"requestId\""));
}

TEST(JsonLogLine, FieldsCannotReplaceTheFixedMembers) {
  const LogField fields[] = {{"msg", "forged"}, {"level", "info"}, {"time", "0"}, {"k\xFF", "v"}};
  const json::object o = Parse(json_log_line(kTime, "error", "real", fields));
  EXPECT_EQ(o.at("msg"), "real");
  EXPECT_EQ(o.at("level"), "error");
  EXPECT_EQ(o.at("time"), "2026-09-21T14:13:20.123Z");
  EXPECT_EQ(o.at("k\xEF\xBF\xBD"), "v");
}

// The formatter as spdlog uses it, with the fields of the current scope.
TEST(JsonLogFormatter, FormatsThroughSpdlogWithScopedFields) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  spdlog::logger logger("test", sink);
  logger.set_formatter(std::make_unique<JsonLogFormatter>());
  {
    const ScopedLogFields outer{{"requestId", "req_1"}};
    {
      const ScopedLogFields inner{{"endpoint", "activate"}};
      logger.error("store failure: {}", "line1\nline2");
    }
    logger.warn("after inner");
  }
  logger.info("no fields");

  std::istringstream lines(out.str());
  std::string line;
  std::vector<json::object> parsed;
  while (std::getline(lines, line)) parsed.push_back(Parse(line + "\n"));
  ASSERT_EQ(parsed.size(), 3u) << out.str();
  EXPECT_EQ(parsed[0].at("level"), "error");
  EXPECT_EQ(parsed[0].at("msg"), "store failure: line1\nline2");
  EXPECT_EQ(parsed[0].at("requestId"), "req_1");
  EXPECT_EQ(parsed[0].at("endpoint"), "activate");
  EXPECT_EQ(parsed[1].at("level"), "warning");
  EXPECT_EQ(parsed[1].at("requestId"), "req_1");
  EXPECT_FALSE(parsed[1].contains("endpoint"));
  EXPECT_FALSE(parsed[2].contains("requestId"));
}

}  // namespace
}  // namespace licensed
