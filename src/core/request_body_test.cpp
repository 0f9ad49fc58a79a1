#include "core/request_body.h"

#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <string>
#include <vector>

namespace licensed {
namespace {

using namespace std::string_literals;

constexpr std::string_view kKey = "0b3a3f6e-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
constexpr std::string_view kMachine = "machine-0001";
const std::string kEmoji = "\xF0\x9F\x98\x80";  // U+1F600, 4 bytes, 1 code point

std::string repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// A body with the given raw JSON text for each member ("" leaves it out).
std::string body(std::string_view key_json, std::string_view id_json,
                 std::string_view name_json = "") {
  std::string out = "{";
  auto add = [&](std::string_view name, std::string_view value) {
    if (value.empty()) return;
    if (out.size() > 1) out += ",";
    out += "\"" + std::string(name) + "\":" + std::string(value);
  };
  add("licenseKey", key_json);
  add("machineId", id_json);
  add("machineName", name_json);
  return out + "}";
}

std::string json_str(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

std::string with_id(std::string_view raw_id) {
  return body(json_str(kKey), json_str(raw_id));
}
std::string with_name(std::string_view raw_name) {
  return body(json_str(kKey), json_str(kMachine), json_str(raw_name));
}

::testing::AssertionResult IsMalformed(const ApiResult<LicenseRequest>& r, std::string_view field) {
  if (r.ok()) return ::testing::AssertionFailure() << "parsed fine";
  const ApiError& e = r.error();
  if (e.code != ErrorCode::kMalformed || e.http_status != 400) {
    return ::testing::AssertionFailure() << "not 400 1702: " << e.message;
  }
  const auto* f = e.extra.if_contains("field");
  if (field.empty()) {
    if (f != nullptr) return ::testing::AssertionFailure() << "unexpected field " << *f;
  } else if (f == nullptr || !f->is_string() || f->as_string() != field) {
    return ::testing::AssertionFailure()
           << "field is " << (f ? boost::json::serialize(*f) : "absent") << ", want " << field
           << " (" << e.message << ")";
  }
  if (e.message.empty()) return ::testing::AssertionFailure() << "empty message";
  return ::testing::AssertionSuccess() << e.message;
}

ApiResult<LicenseRequest> activate(std::string_view b) {
  return parse_license_request(Endpoint::kActivate, b);
}

// ---- happy paths ----

TEST(RequestBody, ActivateWithAllMembers) {
  auto r = activate(body(json_str(kKey), json_str(kMachine), json_str("Studio PC")));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->license_key, kKey);
  EXPECT_EQ(r->machine_id, std::string(kMachine));
  EXPECT_EQ(r->machine_name, std::string("Studio PC"));
}

TEST(RequestBody, UppercaseKeyIsNormalisedButMachineIdIsKeptByteForByte) {
  auto r =
      activate(body(json_str("0B3A3F6E-1C2D-4E5F-8A9B-0C1D2E3F4A5B"), json_str("Machine-ABCdef")));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->license_key, kKey);
  EXPECT_EQ(r->machine_id, std::string("Machine-ABCdef"));
}

TEST(RequestBody, EveryEndpointAcceptsKeyAndMachineId) {
  for (Endpoint e :
       {Endpoint::kActivate, Endpoint::kHeartbeat, Endpoint::kStatus, Endpoint::kDeactivate}) {
    auto r = parse_license_request(e, body(json_str(kKey), json_str(kMachine)));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->machine_id, std::string(kMachine));
    EXPECT_FALSE(r->machine_name.has_value());
  }
}

TEST(RequestBody, MemberOrderAndSurroundingWhitespaceDoNotMatter) {
  auto r = activate(" \r\n\t{ \"machineId\" : \"" + std::string(kMachine) +
                    "\" ,\n \"licenseKey\":\"" + std::string(kKey) + "\" } \r\n\t ");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->license_key, kKey);
}

TEST(RequestBody, EscapesAreDecoded) {
  // \u0030 is '0'; a surrogate pair decodes to one code point.
  auto r = activate(body(json_str("\\u0030b3a3f6e-1c2d-4e5f-8a9b-0c1d2e3f4a5b"),
                         json_str("m\\u00e9\\/chine\\\\1"), json_str("\\ud83d\\ude00")));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->license_key, kKey);
  EXPECT_EQ(r->machine_id, std::string("m\xC3\xA9/chine\\1"));
  EXPECT_EQ(r->machine_name, kEmoji);
}

// ---- licenseKey ----

TEST(RequestBody, LicenseKeyVersionAndVariantNibbles) {
  for (std::string_view ok :
       {"0b3a3f6e-1c2d-4e5f-8a9b-0c1d2e3f4a5b", "0b3a3f6e-1c2d-4e5f-9a9b-0c1d2e3f4a5b",
        "0b3a3f6e-1c2d-4e5f-aa9b-0c1d2e3f4a5b", "0b3a3f6e-1c2d-4e5f-ba9b-0c1d2e3f4a5b",
        "0b3a3f6e-1c2d-4e5f-Aa9b-0c1d2e3f4a5b", "0b3a3f6e-1c2d-4e5f-Ba9b-0c1d2e3f4a5b"}) {
    EXPECT_TRUE(activate(body(json_str(ok), json_str(kMachine))).ok()) << ok;
  }
  for (std::string_view bad : {
           "0b3a3f6e-1c2d-1e5f-8a9b-0c1d2e3f4a5b",  // version 1
           "0b3a3f6e-1c2d-5e5f-8a9b-0c1d2e3f4a5b",  // version 5
           "0b3a3f6e-1c2d-4e5f-7a9b-0c1d2e3f4a5b",  // variant 7
           "0b3a3f6e-1c2d-4e5f-ca9b-0c1d2e3f4a5b",  // variant c
           "0b3a3f6e-1c2d-4e5f-Ca9b-0c1d2e3f4a5b",  // variant C
           "0b3a3f6e-1c2d-4e5f-0a9b-0c1d2e3f4a5b",  // variant 0
       }) {
    EXPECT_TRUE(IsMalformed(activate(body(json_str(bad), json_str(kMachine))), "licenseKey"))
        << bad;
  }
}

TEST(RequestBody, LicenseKeyShape) {
  for (std::string_view bad : {
           "",
           "0b3a3f6e1c2d4e5f8a9b0c1d2e3f4a5b",        // no dashes
           "0b3a3f6e-1c2d-4e5f-8a9b-0c1d2e3f4a5",     // one short
           "0b3a3f6e-1c2d-4e5f-8a9b-0c1d2e3f4a5b0",   // one long
           "0b3a3f6e-1c2d-4e5f-8a9b-0c1d2e3f4a5g",    // not hex
           "{0b3a3f6e-1c2d-4e5f-8a9b-0c1d2e3f4a5b}",  // braces
           " 0b3a3f6e-1c2d-4e5f-8a9b-0c1d2e3f4a5b",   // space
           "0b3a3f6e_1c2d-4e5f-8a9b-0c1d2e3f4a5b",    // wrong separator
           "0b3a3f6-e1c2d-4e5f-8a9b-0c1d2e3f4a5b",    // dash misplaced
           "urn:uuid:0b3a3f6e-1c2d-4e5f-8a9b-0c1d2e3f",
       }) {
    EXPECT_TRUE(IsMalformed(activate(body(json_str(bad), json_str(kMachine))), "licenseKey"))
        << bad;
  }
}

TEST(RequestBody, LicenseKeyMissingNullOrWrongType) {
  EXPECT_TRUE(IsMalformed(activate(body("", json_str(kMachine))), "licenseKey"));
  EXPECT_TRUE(IsMalformed(activate(body("null", json_str(kMachine))), "licenseKey"));
  for (std::string_view v : {"1", "1.5", "-3", "true", "false", "[]", "{}", "[\"x\"]"}) {
    EXPECT_TRUE(IsMalformed(activate(body(v, json_str(kMachine))), "licenseKey")) << v;
  }
  // Member names are case-sensitive: "LicenseKey" is an unknown member.
  EXPECT_TRUE(IsMalformed(
      activate("{\"LicenseKey\":\"" + std::string(kKey) + "\",\"machineId\":\"machine-1\"}"),
      "licenseKey"));
}

TEST(RequestBody, MessagesAreReadable) {
  auto missing = activate(body("", json_str(kMachine)));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "licenseKey is required");
  auto type = activate(body("12", json_str(kMachine)));
  ASSERT_FALSE(type.ok());
  EXPECT_EQ(type.error().message, "licenseKey must be a string, not a number");
  auto short_id = activate(with_id("short"));
  ASSERT_FALSE(short_id.ok());
  EXPECT_EQ(short_id.error().message, "machineId must be 8 to 128 characters");
  auto long_name = activate(with_name(repeat("x", 101)));
  ASSERT_FALSE(long_name.ok());
  EXPECT_EQ(long_name.error().message, "machineName must be at most 100 characters");
}

// ---- machineId ----

TEST(RequestBody, MachineIdLengthCountsCodePointsNotBytes) {
  EXPECT_TRUE(activate(with_id(repeat("a", 8))).ok());
  EXPECT_TRUE(IsMalformed(activate(with_id(repeat("a", 7))), "machineId"));
  EXPECT_TRUE(activate(with_id(repeat("a", 128))).ok());
  EXPECT_TRUE(IsMalformed(activate(with_id(repeat("a", 129))), "machineId"));

  // 8 three-byte characters are 24 bytes but 8 code points.
  auto r = activate(with_id(repeat("\xE6\x97\xA5", 8)));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->machine_id->size(), 24u);
  EXPECT_TRUE(IsMalformed(activate(with_id(repeat("\xE6\x97\xA5", 7))), "machineId"));
  // 7 four-byte characters are 28 bytes: still too short.
  EXPECT_TRUE(IsMalformed(activate(with_id(repeat(kEmoji, 7))), "machineId"));
  EXPECT_TRUE(activate(with_id(repeat(kEmoji, 8))).ok());
  // 128 emoji (512 bytes) pass, 129 fail.
  EXPECT_TRUE(activate(with_id(repeat(kEmoji, 128))).ok());
  EXPECT_TRUE(IsMalformed(activate(with_id(repeat(kEmoji, 129))), "machineId"));
  // Two-byte characters at the upper bound.
  EXPECT_TRUE(activate(with_id(repeat("\xC3\xA9", 128))).ok());
  EXPECT_TRUE(IsMalformed(activate(with_id(repeat("\xC3\xA9", 129))), "machineId"));
  // An escaped surrogate pair counts as one code point.
  EXPECT_TRUE(IsMalformed(activate(with_id(repeat("\\ud83d\\ude00", 7))), "machineId"));
  EXPECT_TRUE(activate(with_id(repeat("\\ud83d\\ude00", 8))).ok());
  EXPECT_TRUE(IsMalformed(activate(with_id("")), "machineId"));
}

TEST(RequestBody, MachineIdRejectsControlCharacters) {
  const std::string pad = "abcdefgh";
  for (std::string_view ctl : {
           "\\u0000", "\\u0001", "\\t", "\\n", "\\r", "\\u001f", "\\u001F",  // C0
           "\\u007f",                                                        // DEL
           "\\u0080", "\\u0085", "\\u009f", "\\u009F",                       // C1 escaped
       }) {
    EXPECT_TRUE(IsMalformed(activate(with_id(pad + std::string(ctl))), "machineId")) << ctl;
  }
  // Raw DEL and raw C1 (NEL = C2 85, U+009F = C2 9F) bytes are valid JSON but not allowed.
  EXPECT_TRUE(IsMalformed(activate(with_id(pad + "\x7F")), "machineId"));
  EXPECT_TRUE(IsMalformed(activate(with_id(pad + "\xC2\x85")), "machineId"));
  EXPECT_TRUE(IsMalformed(activate(with_id(pad + "\xC2\x80")), "machineId"));
  EXPECT_TRUE(IsMalformed(activate(with_id(pad + "\xC2\x9F")), "machineId"));
  // Just outside the ranges: space, '~', U+00A0 (C2 A0) are fine.
  EXPECT_TRUE(activate(with_id(pad + " ~")).ok());
  EXPECT_TRUE(activate(with_id(pad + "\xC2\xA0")).ok());
  EXPECT_TRUE(activate(with_id(pad + "\\u00a0")).ok());
  // A raw control byte inside a string is not even JSON; the error still names the member.
  EXPECT_TRUE(IsMalformed(activate(with_id(pad + "\x01")), "machineId"));
  EXPECT_TRUE(IsMalformed(activate(with_id(pad + "\t")), "machineId"));
}

TEST(RequestBody, MachineIdRequiredExceptForStatus) {
  for (Endpoint e : {Endpoint::kActivate, Endpoint::kHeartbeat, Endpoint::kDeactivate}) {
    EXPECT_TRUE(IsMalformed(parse_license_request(e, body(json_str(kKey), "")), "machineId"));
    EXPECT_TRUE(IsMalformed(parse_license_request(e, body(json_str(kKey), "null")), "machineId"));
  }
  for (std::string_view id : {"", "null"}) {
    auto r = parse_license_request(Endpoint::kStatus, body(json_str(kKey), id));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_FALSE(r->machine_id.has_value());
  }
}

TEST(RequestBody, StatusMachineIdWhenGivenFollowsTheSameRules) {
  auto st = [](std::string_view id_json) {
    return parse_license_request(Endpoint::kStatus, body(json_str(kKey), id_json));
  };
  EXPECT_TRUE(IsMalformed(st(json_str("short")), "machineId"));
  EXPECT_TRUE(IsMalformed(st(json_str(repeat("a", 129))), "machineId"));
  EXPECT_TRUE(IsMalformed(st(json_str("abcdefgh\\u0085")), "machineId"));
  EXPECT_TRUE(IsMalformed(st("12345678"), "machineId"));
  EXPECT_TRUE(IsMalformed(st("[]"), "machineId"));
  auto ok = st(json_str(kMachine));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->machine_id, std::string(kMachine));
}

TEST(RequestBody, MachineIdWrongType) {
  for (std::string_view v : {"12345678", "true", "[]", "{}", "{\"id\":\"abcdefgh\"}", "0.5"}) {
    for (Endpoint e : {Endpoint::kActivate, Endpoint::kHeartbeat, Endpoint::kDeactivate}) {
      EXPECT_TRUE(IsMalformed(parse_license_request(e, body(json_str(kKey), v)), "machineId")) << v;
    }
  }
}

// ---- machineName ----

TEST(RequestBody, MachineNameLengthCountsCodePoints) {
  auto r = activate(with_name(repeat(kEmoji, 100)));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->machine_name->size(), 400u);
  EXPECT_TRUE(IsMalformed(activate(with_name(repeat(kEmoji, 101))), "machineName"));
  EXPECT_TRUE(activate(with_name(repeat("n", 100))).ok());
  EXPECT_TRUE(IsMalformed(activate(with_name(repeat("n", 101))), "machineName"));
}

TEST(RequestBody, MachineNameNullAbsentAndEmpty) {
  auto absent = activate(body(json_str(kKey), json_str(kMachine)));
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->machine_name.has_value());

  auto null = activate(body(json_str(kKey), json_str(kMachine), "null"));
  ASSERT_TRUE(null.ok());
  EXPECT_FALSE(null->machine_name.has_value());

  auto empty = activate(with_name(""));
  ASSERT_TRUE(empty.ok());
  ASSERT_TRUE(empty->machine_name.has_value());
  EXPECT_EQ(*empty->machine_name, "");
}

TEST(RequestBody, MachineNameRulesOnActivate) {
  for (std::string_view v : {"1", "false", "[]", "{}", "[\"Studio\"]"}) {
    EXPECT_TRUE(IsMalformed(activate(body(json_str(kKey), json_str(kMachine), v)), "machineName"))
        << v;
  }
  EXPECT_TRUE(IsMalformed(activate(with_name("Studio\\nPC")), "machineName"));
  EXPECT_TRUE(IsMalformed(activate(with_name("Studio\\u0085PC")), "machineName"));
  EXPECT_TRUE(IsMalformed(activate(with_name("Studio\\u007fPC")), "machineName"));
  EXPECT_TRUE(IsMalformed(activate(with_name("\\u0000")), "machineName"));
}

TEST(RequestBody, MachineNameIsAnUnknownMemberOutsideActivate) {
  const std::string long_name = json_str(repeat("x", 500));
  for (Endpoint e : {Endpoint::kHeartbeat, Endpoint::kStatus, Endpoint::kDeactivate}) {
    for (std::string_view v : {std::string_view("42"), std::string_view(long_name),
                               std::string_view("\"a\\u0001\""), std::string_view("null")}) {
      auto r = parse_license_request(e, body(json_str(kKey), json_str(kMachine), v));
      ASSERT_TRUE(r.ok()) << v << ": " << r.error().message;
      EXPECT_FALSE(r->machine_name.has_value());
    }
  }
}

// ---- unknown members ----

TEST(RequestBody, UnknownMembersAreIgnoredWhateverTheirShape) {
  auto r = activate("{\"licenseKey\":\"" + std::string(kKey) +
                    "\",\"machineId\":\"machine-1\",\"extra\":{\"licenseKey\":5,"
                    "\"machineId\":[1,2,{\"deep\":[null,true,1e300,-0.0,18446744073709551615]}]},"
                    "\"list\":[[],[{}],\"s\"],\"n\":null,\"plugin\":\"2.1\"}");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->machine_id, std::string("machine-1"));
}

TEST(RequestBody, NestedSchemaNamesDoNotCountAsTopLevelMembers) {
  // licenseKey only inside a nested object: still missing at the top level.
  EXPECT_TRUE(IsMalformed(activate("{\"wrap\":{\"licenseKey\":\"" + std::string(kKey) +
                                   "\"},\"machineId\":\"machine-1\"}"),
                          "licenseKey"));
}

// ---- duplicates ----

TEST(RequestBody, DuplicateTopLevelMemberIsNamed) {
  const std::string k = json_str(kKey);
  EXPECT_TRUE(IsMalformed(
      activate("{\"licenseKey\":" + k + ",\"machineId\":\"machine-1\",\"licenseKey\":" + k + "}"),
      "licenseKey"));
  EXPECT_TRUE(IsMalformed(activate("{\"licenseKey\":" + k +
                                   ",\"machineId\":\"machine-1\",\"machineId\":\"machine-2\"}"),
                          "machineId"));
  // Unknown members are checked too.
  EXPECT_TRUE(IsMalformed(
      activate("{\"licenseKey\":" + k + ",\"machineId\":\"machine-1\",\"x\":1,\"x\":1}"), "x"));
  // machineName is unknown for heartbeat, but a duplicate is still a duplicate.
  EXPECT_TRUE(IsMalformed(
      parse_license_request(Endpoint::kHeartbeat, "{\"licenseKey\":" + k +
                                                      ",\"machineId\":\"machine-1\","
                                                      "\"machineName\":1,\"machineName\":2}"),
      "machineName"));
  auto r = activate("{\"licenseKey\":" + k + ",\"licenseKey\":" + k + ",\"machineId\":\"m-1\"}");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "duplicate member \"licenseKey\"");
}

TEST(RequestBody, DuplicateAtAnyDepthIsNamed) {
  const std::string prefix =
      "{\"licenseKey\":\"" + std::string(kKey) + "\",\"machineId\":\"machine-1\",";
  EXPECT_TRUE(IsMalformed(activate(prefix + "\"meta\":{\"a\":1,\"b\":2,\"a\":3}}"), "a"));
  EXPECT_TRUE(IsMalformed(activate(prefix + "\"meta\":[1,{\"os\":\"x\",\"os\":\"y\"}]}"), "os"));
  EXPECT_TRUE(
      IsMalformed(activate(prefix + "\"m\":{\"n\":{\"o\":{\"p\":[[{\"q\":1,\"q\":1}]]}}}}"), "q"));
  // Escapes are decoded before comparing: "\u0061" is "a".
  EXPECT_TRUE(IsMalformed(activate(prefix + "\"meta\":{\"a\":1,\"\\u0061\":2}}"), "a"));
  // A duplicate that appears before a bad licenseKey still wins (schema after structure).
  EXPECT_TRUE(IsMalformed(activate("{\"licenseKey\":1,\"z\":{\"d\":1,\"d\":2}}"), "d"));
}

TEST(RequestBody, SameNameInDifferentObjectsIsNotADuplicate) {
  auto r = activate("{\"licenseKey\":\"" + std::string(kKey) +
                    "\",\"machineId\":\"machine-1\",\"a\":{\"a\":1,\"licenseKey\":2},"
                    "\"b\":{\"a\":2},\"c\":[{\"a\":1},{\"a\":2}]}");
  EXPECT_TRUE(r.ok()) << r.error().message;
  // Names differing only in case are different names.
  EXPECT_TRUE(activate("{\"licenseKey\":\"" + std::string(kKey) +
                       "\",\"machineId\":\"machine-1\",\"x\":1,\"X\":1}")
                  .ok());
}

// ---- whole-body problems ----

TEST(RequestBody, NonObjectBodies) {
  for (std::string_view b : {"[]", "[{\"licenseKey\":\"x\"}]", "\"text\"", "42", "-1.5", "null",
                             "true", "false", " [ ] "}) {
    EXPECT_TRUE(IsMalformed(activate(b), "")) << b;
  }
  auto r = activate("null");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "request body must be a JSON object");
}

TEST(RequestBody, EmptyBody) {
  for (std::string_view b : {"", " ", "\r\n\t "}) {
    EXPECT_TRUE(IsMalformed(activate(b), "")) << "[" << b << "]";
    EXPECT_TRUE(IsMalformed(parse_license_request(Endpoint::kStatus, b), ""));
  }
  // An empty object is JSON, but licenseKey is missing.
  EXPECT_TRUE(IsMalformed(activate("{}"), "licenseKey"));
}

TEST(RequestBody, MalformedJson) {
  const std::string k = json_str(kKey);
  for (const std::string& b : std::vector<std::string>{
           "{"s, "{\"licenseKey\":"s, "{\"licenseKey\":" + k,
           "{\"licenseKey\":" + k + ",}",                     // trailing comma
           "{\"licenseKey\":" + k + " \"machineId\":\"m\"}",  // missing comma
           "{'licenseKey':" + k + "}",                        // single quotes
           "{licenseKey:" + k + "}",                          // bare name
           "{\"licenseKey\":" + k + "/* c */}",               // comment
           "{\"licenseKey\":" + k + "} // c",                 // comment after
           "{\"a\":01}",                                      // leading zero
           "{\"a\":NaN}",                                     // not JSON
           "{\"a\":\"\\x41\"}",                               // bad escape
           "{\"a\":\"\\u12\"}",                               // short \u escape
           "\xEF\xBB\xBF{}",                                  // BOM
       }) {
    EXPECT_TRUE(IsMalformed(activate(b), "")) << b;
  }
  // A structural fault wins over a duplicate seen before it.
  EXPECT_TRUE(IsMalformed(activate("{\"a\":1,\"a\":2"), ""));
}

TEST(RequestBody, NestingTooDeep) {
  const std::string deep = "{\"x\":" + repeat("[", 100) + repeat("]", 100) + "}";
  EXPECT_TRUE(IsMalformed(activate(deep), ""));
}

TEST(RequestBody, InvalidUtf8IsRejectedAnywhere) {
  const std::string prefix =
      "{\"licenseKey\":\"" + std::string(kKey) + "\",\"machineId\":\"machine-1\",";
  for (std::string_view bad : {
           "\xFF",              // never valid
           "\x80",              // lone continuation byte
           "\xC3",              // truncated 2-byte sequence
           "\xE6\x97",          // truncated 3-byte sequence
           "\xC0\x80",          // overlong NUL
           "\xC1\xBF",          // overlong
           "\xE0\x80\xAF",      // overlong '/'
           "\xF0\x8F\xBF\xBF",  // overlong U+FFFF
           "\xED\xA0\x80",      // UTF-8 encoded surrogate U+D800
           "\xED\xBF\xBF",      // UTF-8 encoded surrogate U+DFFF
           "\xF4\x90\x80\x80",  // above U+10FFFF
           "\xF8\x88\x80\x80\x80",
       }) {
    const std::string b(bad);
    // In a schema member (which the error names), an unknown member's value, and a
    // member name.
    EXPECT_TRUE(IsMalformed(activate(with_id("machine-" + b)), "machineId"));
    EXPECT_TRUE(IsMalformed(activate(with_name("studio " + b)), "machineName"));
    EXPECT_TRUE(IsMalformed(activate(prefix + "\"x\":\"" + b + "\"}"), ""));
    EXPECT_TRUE(IsMalformed(activate(prefix + "\"" + b + "\":1}"), ""));
    // Outside a string it is a syntax error too.
    EXPECT_TRUE(IsMalformed(activate(prefix + "\"x\":1" + b + "}"), ""));
  }
  // Boundary code points that are valid.
  EXPECT_TRUE(activate(with_id("machine-\xED\x9F\xBF")).ok());      // U+D7FF
  EXPECT_TRUE(activate(with_id("machine-\xEE\x80\x80")).ok());      // U+E000
  EXPECT_TRUE(activate(with_id("machine-\xF4\x8F\xBF\xBF")).ok());  // U+10FFFF
}

TEST(RequestBody, LoneSurrogateEscapesAreRejected) {
  for (std::string_view esc : {
           "\\ud800",         // lone high surrogate
           "\\uD800",         // either case
           "\\udbff",         // last high surrogate
           "\\udc00",         // lone low surrogate
           "\\udfff",         // last low surrogate
           "\\ud800x",        // high followed by a plain character
           "\\ud800\\u0041",  // high followed by a non-surrogate escape
           "\\ud800\\ud800",  // high followed by high
           "\\ude00\\ud83d",  // pair in the wrong order
       }) {
    const std::string e(esc);
    EXPECT_TRUE(IsMalformed(activate(with_id("machine-" + e)), "machineId")) << esc;
    EXPECT_TRUE(IsMalformed(activate(with_name(e)), "machineName")) << esc;
    EXPECT_TRUE(IsMalformed(
        parse_license_request(Endpoint::kHeartbeat, "{\"licenseKey\":\"" + std::string(kKey) +
                                                        "\",\"machineId\":\"machine-1\",\"" + e +
                                                        "\":1}"),
        ""))
        << esc;
  }
  EXPECT_TRUE(activate(with_id("machine-\\ud83d\\ude00")).ok());
  EXPECT_TRUE(activate(with_id("machine-\\uDBFF\\uDFFF")).ok());  // U+10FFFF
}

TEST(RequestBody, TrailingBytesAfterTheObjectAreRejected) {
  const std::string ok = body(json_str(kKey), json_str(kMachine));
  for (const std::string& tail :
       {"x"s, "{}"s, " {}"s, "\n1"s, "null"s, ","s, "}"s, "\0"s, " \0"s, "\x01"s, "\xFF"s}) {
    EXPECT_TRUE(IsMalformed(activate(ok + tail), "")) << "tail [" << tail << "]";
  }
  for (std::string_view ws : {" ", "\n", "\r\n", "\t", "  \r\n\t  \n"}) {
    EXPECT_TRUE(activate(ok + std::string(ws)).ok());
  }
  auto r = activate(ok + "x");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("after the JSON object"), std::string::npos);
}

// ---- Content-Type ----

TEST(RequestBodyContentType, AcceptsApplicationJsonWithUtf8OrNoCharset) {
  for (std::string_view ct : {
           "application/json",
           "Application/JSON",
           "APPLICATION/JSON",
           "application/json; charset=utf-8",
           "application/json;charset=UTF-8",
           "application/json ; charset=Utf-8",
           "application/json; charset=\"utf-8\"",
           "application/json; charset=\"UTF-8\"",
           "application/json; charset=\"utf\\-8\"",  // quoted-pair
           "application/json;",
           "application/json; ",
           "application/json;;charset=utf-8;",
           "application/json; foo=bar",
           "application/json; foo=\"a;b\"; charset=utf-8",
           "application/json; CHARSET=utf-8",
           " application/json ",
           "\tapplication/json\t",
       }) {
    EXPECT_TRUE(is_json_content_type(ct)) << ct;
  }
}

TEST(RequestBodyContentType, RefusesOtherTypesAndCharsets) {
  for (std::string_view ct : {
           "",
           "text/plain",
           "text/json",
           "application/jsonx",
           "application/json-patch+json",
           "application/problem+json",
           "application/x-www-form-urlencoded",
           "application/ json",
           "application /json",
           "application",
           "application/json; charset=iso-8859-1",
           "application/json; charset=utf8",
           "application/json; charset=utf-16",
           "application/json; charset=\"latin1\"",
           "application/json; charset=",
           "application/json; charset=\"\"",
           "application/json; charset=utf-8; charset=latin1",
           "application/json; charset = utf-8",  // no whitespace around '='
           "application/json; charset=\"utf-8",  // unterminated quote
           "application/json; charset",
           "application/json; =utf-8",
           "application/json; charset=utf-8 x",
           "application/json, text/plain",
       }) {
    EXPECT_FALSE(is_json_content_type(ct)) << ct;
  }
}

}  // namespace
}  // namespace licensed
