#include "observability/sentry_envelope.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace licensed {
namespace {

namespace json = boost::json;

SentryDsn Dsn() {
  auto dsn = parse_sentry_dsn("http://publickey@127.0.0.1:9000/42");
  EXPECT_TRUE(dsn.ok());
  return dsn.value();
}

SentryClientInfo Client() {
  SentryClientInfo c;
  c.version = "0.1.0";
  c.server_name = "host-1";
  return c;
}

ErrorReport Report() {
  ErrorReport r;
  r.at = 1'790'000'000'123;
  r.message = "internal error (1709) answering /api/v1/license/status";
  r.request_id = "req_00112233445566778899aabb";
  r.endpoint = "status";
  r.route = "/api/v1/license/status";
  r.masked_license_key = "1b4e...a427";
  return r;
}

bool IsLowerHex(std::string_view s) {
  return s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

std::vector<std::string> Lines(const std::string& body) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t nl; (nl = body.find('\n', start)) != std::string::npos; start = nl + 1) {
    out.push_back(body.substr(start, nl - start));
  }
  EXPECT_EQ(start, body.size()) << "the envelope must end with a newline";
  return out;
}

TEST(SentryEventId, Is32LowercaseHexOfAUuidV4) {
  const std::string id = new_sentry_event_id();
  ASSERT_EQ(id.size(), 32u);
  EXPECT_TRUE(IsLowerHex(id)) << id;
  EXPECT_EQ(id[12], '4') << id;
  EXPECT_NE(std::string("89ab").find(id[16]), std::string::npos) << id;
  EXPECT_NE(new_sentry_event_id(), id);
}

TEST(SentryEvent, CarriesTheRequiredAndTaggedMembers) {
  const json::object e = sentry_event(Report(), "0123456789abcdef0123456789abcdef", Client());
  EXPECT_EQ(e.at("event_id"), "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(e.at("timestamp"), "2026-09-21T14:13:20.123Z");
  EXPECT_EQ(e.at("platform"), "native");
  EXPECT_EQ(e.at("level"), "error");
  EXPECT_EQ(e.at("logger"), "licensed");
  EXPECT_EQ(e.at("server_name"), "host-1");
  EXPECT_EQ(e.at("release"), "licensed@0.1.0");
  EXPECT_EQ(e.at("transaction"), "/api/v1/license/status");
  EXPECT_EQ(std::string(e.at("message").at("formatted").as_string()), Report().message);
  const json::object& tags = e.at("tags").as_object();
  EXPECT_EQ(tags.at("request_id"), "req_00112233445566778899aabb");
  EXPECT_EQ(tags.at("endpoint"), "status");
  EXPECT_EQ(tags.at("route"), "/api/v1/license/status");
  EXPECT_EQ(tags.at("error_code"), "1709");
  EXPECT_EQ(e.at("extra").at("license_key"), "1b4e...a427");
}

TEST(SentryEnvelope, IsHeaderItemHeaderAndEventLines) {
  const std::string event_json =
      json::serialize(sentry_event(Report(), "0123456789abcdef0123456789abcdef", Client()));
  const std::string body = sentry_envelope(Dsn(), "0123456789abcdef0123456789abcdef",
                                           1'790'000'000'456, Client(), event_json);
  const auto lines = Lines(body);
  ASSERT_EQ(lines.size(), 3u) << body;

  const json::object header = json::parse(lines[0]).as_object();
  EXPECT_EQ(header.at("event_id"), "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(header.at("dsn"), "http://publickey@127.0.0.1:9000/42");
  EXPECT_EQ(header.at("sent_at"), "2026-09-21T14:13:20.456Z");
  EXPECT_EQ(header.at("sdk").at("name"), "licensed");

  const json::object item = json::parse(lines[1]).as_object();
  EXPECT_EQ(item.at("type"), "event");
  EXPECT_EQ(item.at("length").to_number<size_t>(), lines[2].size());
  EXPECT_EQ(lines[2], event_json);
  EXPECT_EQ(json::parse(lines[2]).at("event_id"), header.at("event_id"));
}

TEST(SentryEnvelope, LengthCountsBytesNotCharacters) {
  ErrorReport r = Report();
  r.message = "caf\xC3\xA9 \xF0\x9F\x8E\xB9 and a bad byte \xFF";
  const std::string event_json = json::serialize(sentry_event(r, new_sentry_event_id(), Client()));
  const auto lines =
      Lines(sentry_envelope(Dsn(), "0123456789abcdef0123456789abcdef", 0, Client(), event_json));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(json::parse(lines[1]).at("length").to_number<size_t>(), lines[2].size());
  EXPECT_EQ(json::parse(lines[2]).at("message").at("formatted"),
            "caf\xC3\xA9 \xF0\x9F\x8E\xB9 and a bad byte \xEF\xBF\xBD");
}

TEST(SentryAuthHeader, NamesVersionKeyAndClient) {
  EXPECT_EQ(sentry_auth_header(Dsn(), Client()),
            "Sentry sentry_version=7, sentry_key=publickey, sentry_client=licensed/0.1.0");
}

}  // namespace
}  // namespace licensed
