// The access log's fields from a request: the key id only when well-formed, the license
// key only masked, "-" for what the request did not say.
#include "http/access_log.h"

#include <gtest/gtest.h>

namespace licensed {
namespace {

HttpRequest Request(std::string body, const std::string& key_id) {
  HttpRequest r;
  r.set("X-License-Key-Id", key_id);
  r.body() = std::move(body);
  return r;
}

TEST(AccessLog, TheLicenseKeyIsMaskedAndTheKeyIdKept) {
  const HttpRequest r = Request(
      R"({"licenseKey":"1b4e28ba-2fa1-41d2-883f-0016d3cca427","machineId":"m"})", "plugin-2026");
  const AccessLogFields fields = access_log_fields(&r);
  EXPECT_EQ(fields.key_id, "plugin-2026");
  EXPECT_EQ(fields.license, "1b4e...a427");
}

TEST(AccessLog, WhatTheRequestDidNotSayIsADash) {
  EXPECT_EQ(access_log_fields(nullptr).key_id, "-");
  const HttpRequest bad = Request("not json", "id with spaces\x01");
  const AccessLogFields fields = access_log_fields(&bad);
  EXPECT_EQ(fields.key_id, "-") << "a malformed key id is the client's text, not logged";
  EXPECT_EQ(fields.license, "-");
}

}  // namespace
}  // namespace licensed
