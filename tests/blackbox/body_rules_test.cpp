// docs/protocol.md §4, request bodies: content type, size, JSON well-formedness and the
// rules of each field, seen over the wire.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "support/fixture.h"

namespace bb {
namespace {

class BodyRules : public BlackboxTest {};

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

std::string Repeat(std::string_view unit, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += unit;
  return out;
}

// 400 1702, with `field` when given.
void ExpectMalformed(const HttpResponse& r, std::optional<std::string_view> field = {}) {
  ExpectApiError(r, 400, 1702, "LICENSE_API_MALFORMED");
  if (field) {
    const json::value body_json1 = BodyJson(r);  // Find points into it
    const json::value* f = Find(body_json1, "field");
    EXPECT_TRUE(f && *f == json::value(*field)) << "field should be " << *field << "\n"
                                                << r.Describe();
  }
}
#define EXPECT_MALFORMED(...)         \
  do {                                \
    SCOPED_TRACE("EXPECT_MALFORMED"); \
    ExpectMalformed(__VA_ARGS__);     \
  } while (0)

TEST_F(BodyRules, UppercaseLicenseKeyIsNormalisedToLowercase) {
  Start();
  const std::string license = NewLicense(2);
  ASSERT_NE(Upper(license), license);
  const HttpResponse r = Activate(Upper(license), "machine-0001");
  ASSERT_OK(r);
  const json::value body_json2 = BodyJson(r);  // Find points into it
  if (const json::value* k = Find(body_json2, "licenseKey")) {
    EXPECT_EQ(*k, json::value(license)) << r.Describe();
  }
  const json::value shown = admin().Show(license);
  EXPECT_EQ(Str(shown, "licenseKey"), license);
  EXPECT_EQ(Arr(shown, "activations").size(), 1u);
  const auto records = AuditRecords(license, "license.activate");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(Str(records[0], "licenseKey"), license);
  // The same license whichever case the client uses.
  const HttpResponse lower = Status(license, "machine-0001");
  ASSERT_OK(lower);
  EXPECT_TRUE(Bool(BodyJson(lower), "valid")) << lower.Describe();
  EXPECT_OK(Heartbeat(Upper(license), "machine-0001"));
}

TEST_F(BodyRules, ContentTypeTextPlainIs1702) {
  Start();
  const std::string license = NewLicense(1);
  SignOptions o;
  o.content_type = "text/plain";
  EXPECT_MALFORMED(Call("activate", Body(license, "machine-0001"), kPluginKey, o));
  EXPECT_EQ(Arr(admin().Show(license), "activations").size(), 0u);
}

TEST_F(BodyRules, MissingContentTypeIs1702) {
  Start();
  const std::string license = NewLicense(1);
  SignOptions o;
  o.content_type.reset();
  EXPECT_MALFORMED(Call("activate", Body(license, "machine-0001"), kPluginKey, o));
}

TEST_F(BodyRules, ContentTypeWithCharsetIsAccepted) {
  Start();
  const std::string license = NewLicense(1);
  SignOptions o;
  o.content_type = "application/json; charset=utf-8";
  EXPECT_OK(Call("activate", Body(license, "machine-0001"), kPluginKey, o));
}

TEST_F(BodyRules, BodyOfExactly16KiBIsAccepted) {
  Start();
  const std::string license = NewLicense(1);
  const std::string body = PaddedBody(license, 16 * 1024);
  ASSERT_EQ(body.size(), 16384u);
  EXPECT_OK(Call("activate", body));
}

TEST_F(BodyRules, BodyOf16KiBPlusOneIs413) {
  Start();
  const std::string license = NewLicense(1);
  EXPECT_API_ERROR(Call("activate", PaddedBody(license, 16 * 1024 + 1)), 413, 1702,
                   "LICENSE_API_MALFORMED");
  EXPECT_EQ(Arr(admin().Show(license), "activations").size(), 0u);
}

TEST_F(BodyRules, ChunkedBodyLargerThan16KiBIs413) {
  Start();
  const std::string license = NewLicense(1);
  const std::string body = PaddedBody(license, 20 * 1024);
  const HttpRequest signed_req = Signed("activate", body);
  std::string raw = "POST " + Endpoint("activate") + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (const auto& h : signed_req.headers) raw += h.name + ": " + h.value + "\r\n";
  raw += "Transfer-Encoding: chunked\r\n\r\n";
  for (std::size_t off = 0; off < body.size(); off += 4096) {
    const std::string chunk = body.substr(off, 4096);
    char size[16];
    std::snprintf(size, sizeof size, "%zx", chunk.size());
    raw += std::string(size) + "\r\n" + chunk + "\r\n";
  }
  raw += "0\r\n\r\n";
  EXPECT_API_ERROR(SendRaw(raw), 413, 1702, "LICENSE_API_MALFORMED");
}

TEST_F(BodyRules, DeclaredContentLengthOver16KiBIs413WithoutWaitingForTheBody) {
  Start();
  const std::string license = NewLicense(1);
  const HttpRequest signed_req = Signed("activate", Body(license, "machine-0001"));
  std::string raw = "POST " + Endpoint("activate") + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (const auto& h : signed_req.headers) raw += h.name + ": " + h.value + "\r\n";
  raw += "Content-Length: 100000000\r\n\r\n";  // and no body at all
  const HttpResponse r = bb::SendRaw(port(), raw, std::chrono::seconds(5));
  EXPECT_API_ERROR(r, 413, 1702, "LICENSE_API_MALFORMED");
}

TEST_F(BodyRules, MalformedJsonIs1702) {
  Start();
  const std::string license = NewLicense(1);
  for (const std::string& body :
       {std::string("{"), std::string(""), std::string("{\"licenseKey\":"),
        R"({"licenseKey":")" + license + R"(","machineId":"machine-0001",})",
        R"({'licenseKey':')" + license + "'}"}) {
    SCOPED_TRACE(body);
    EXPECT_MALFORMED(Call("activate", body));
  }
}

TEST_F(BodyRules, BodyThatIsNotOneObjectIs1702) {
  Start();
  const std::string license = NewLicense(1);
  const std::string obj = Body(license, "machine-0001");
  for (const std::string& body : {"[" + obj + "]", std::string("\"text\""), std::string("null"),
                                  std::string("42"), obj + obj, obj + " x"}) {
    SCOPED_TRACE(body);
    EXPECT_MALFORMED(Call("activate", body));
  }
  EXPECT_EQ(Arr(admin().Show(license), "activations").size(), 0u);
}

TEST_F(BodyRules, DuplicateMemberAtAnyDepthIs1702) {
  Start();
  const std::string license = NewLicense(1);
  EXPECT_MALFORMED(
      Call("activate", R"({"licenseKey":")" + license +
                           R"(","machineId":"machine-0001","machineId":"machine-0002"})"));
  EXPECT_MALFORMED(Call("activate", R"({"licenseKey":")" + license +
                                        R"(","machineId":"machine-0001","extra":{"a":1,"a":2}})"));
  EXPECT_MALFORMED(Call(
      "activate",
      R"({"licenseKey":")" + license + R"(","machineId":"machine-0001","extra":[{"b":1,"b":1}]})"));
  EXPECT_EQ(Arr(admin().Show(license), "activations").size(), 0u);
}

TEST_F(BodyRules, InvalidUtf8Is1702) {
  Start();
  const std::string license = NewLicense(1);
  EXPECT_MALFORMED(Call(
      "activate", R"({"licenseKey":")" + license + "\",\"machineId\":\"machine-\xff\xfe-0001\"}"));
  EXPECT_MALFORMED(Call("activate", R"({"licenseKey":")" + license +
                                        "\",\"machineId\":\"machine-0001\",\"x\":\"\xc3\"}"));
}

TEST_F(BodyRules, LoneSurrogateEscapeIs1702) {
  Start();
  const std::string license = NewLicense(1);
  EXPECT_MALFORMED(
      Call("activate", R"({"licenseKey":")" + license +
                           R"(","machineId":"machine-0001","machineName":"a\ud800b"})"));
  EXPECT_MALFORMED(
      Call("activate", R"({"licenseKey":")" + license + R"(","machineId":"machine-\udc00-0001"})"));
  // A proper pair is fine.
  EXPECT_OK(Call("activate", R"({"licenseKey":")" + license +
                                 R"(","machineId":"machine-0001","machineName":"\ud83c\udfb9"})"));
}

TEST_F(BodyRules, WrongTypeIs1702WithField) {
  Start();
  const std::string license = NewLicense(1);
  EXPECT_MALFORMED(Call("activate", R"({"licenseKey":")" + license + R"(","machineId":12345678})"),
                   "machineId");
  EXPECT_MALFORMED(Call("activate", R"({"licenseKey":42,"machineId":"machine-0001"})"),
                   "licenseKey");
  EXPECT_MALFORMED(
      Call("activate", R"({"licenseKey":")" + license + R"(","machineId":"machine-0001",)" +
                           R"("machineName":["x"]})"),
      "machineName");
  EXPECT_MALFORMED(Call("status", R"({"licenseKey":")" + license + R"(","machineId":true})"),
                   "machineId");
}

TEST_F(BodyRules, MissingRequiredFieldIs1702WithField) {
  Start();
  const std::string license = NewLicense(1);
  EXPECT_MALFORMED(Call("activate", R"({"machineId":"machine-0001"})"), "licenseKey");
  EXPECT_MALFORMED(Call("status", R"({})"), "licenseKey");
  for (const char* endpoint : {"activate", "heartbeat", "deactivate"}) {
    SCOPED_TRACE(endpoint);
    EXPECT_MALFORMED(Call(endpoint, Body(license)), "machineId");
  }
}

TEST_F(BodyRules, LicenseKeyMustBeAUuidV4) {
  Start();
  const std::string good = "3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2c";
  for (const std::string& key : {
           std::string("3f2b8c1e-9d4a-1e7b-8c21-5a6f0d9e1b2c"),  // version 1
           std::string("3f2b8c1e-9d4a-4e7b-c821-5a6f0d9e1b2c"),  // variant c
           std::string("3f2b8c1e9d4a4e7b8c215a6f0d9e1b2c"),      // no dashes
           std::string("{3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2c}"),
           std::string("3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2"),
           std::string("3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2c0"),
           std::string("3f2b8c1g-9d4a-4e7b-8c21-5a6f0d9e1b2c"),
           std::string(""),
       }) {
    SCOPED_TRACE(key);
    EXPECT_MALFORMED(Call("status", Body(key)), "licenseKey");
  }
  // Well-formed in any case, merely unknown.
  for (const std::string& key :
       {good, Upper(good), std::string("3f2b8c1e-9d4a-4e7b-bC21-5a6f0d9e1b2c")}) {
    SCOPED_TRACE(key);
    EXPECT_API_ERROR(Status(key), 404, 1703, "LICENSE_API_NOT_FOUND");
  }
}

TEST_F(BodyRules, MachineIdIs8To128CodePoints) {
  Start();
  const std::string license = NewLicense(10);
  EXPECT_MALFORMED(Activate(license, "1234567"), "machineId");
  EXPECT_MALFORMED(Activate(license, std::string(129, 'm')), "machineId");
  EXPECT_MALFORMED(Activate(license, Repeat("\xe6\x97\xa5", 7)), "machineId");  // 7 x U+65E5
  EXPECT_MALFORMED(Activate(license, Repeat("\xe6\x97\xa5", 129)), "machineId");
  EXPECT_OK(Activate(license, "12345678"));
  EXPECT_OK(Activate(license, std::string(128, 'm')));
  EXPECT_OK(Activate(license, Repeat("\xe6\x97\xa5", 8)));    // 24 bytes, 8 code points
  EXPECT_OK(Activate(license, Repeat("\xe6\x97\xa5", 128)));  // 384 bytes, 128 code points
  EXPECT_OK(Activate(license,
                     "m\xc3\xa4"
                     "chine-\xe6\x97\xa5\xe6\x9c\xac-01"));
  EXPECT_EQ(Arr(admin().Show(license), "activations").size(), 5u);
}

TEST_F(BodyRules, ControlCharactersAreRefusedInMachineIdAndName) {
  Start();
  const std::string license = NewLicense(10);
  for (const char* id :
       {"machine-\\u0000-01", "machine-\\u0007-01", "machine-\\u001f-01", "machine-\\u007f-01",
        "machine-\\u0085-01", "machine-\\u009f-01", "machine-\\n-0001", "machine-\\t-0001"}) {
    SCOPED_TRACE(id);
    EXPECT_MALFORMED(
        Call("activate", R"({"licenseKey":")" + license + R"(","machineId":")" + id + R"("})"),
        "machineId");
  }
  // Raw C1 control (U+0085 as UTF-8) in the name.
  EXPECT_MALFORMED(Activate(license, "machine-0001", "Studio\xc2\x85PC"), "machineName");
  EXPECT_MALFORMED(Call("activate", R"({"licenseKey":")" + license +
                                        R"(","machineId":"machine-0001","machineName":"a\u0001"})"),
                   "machineName");
  // U+00A0 is not a control character.
  EXPECT_OK(Activate(license, "machine-\xc2\xa0-0001", "Studio\xc2\xa0PC"));
}

TEST_F(BodyRules, MachineNameIsAtMost100CodePoints) {
  Start();
  const std::string license = NewLicense(3);
  EXPECT_MALFORMED(Activate(license, "machine-0001", std::string(101, 'n')), "machineName");
  EXPECT_MALFORMED(Activate(license, "machine-0001", Repeat("\xc3\xa9", 101)), "machineName");
  const HttpResponse r = Activate(license, "machine-0001", Repeat("\xc3\xa9", 100));
  ASSERT_OK(r);
  EXPECT_EQ(Str(BodyJson(r), "machine.name"), Repeat("\xc3\xa9", 100));
  EXPECT_OK(Activate(license, "machine-0002", std::string(100, 'n')));
}

TEST_F(BodyRules, NullMachineNameMeansAbsent) {
  Start();
  const std::string license = NewLicense(3);
  const HttpResponse r =
      Call("activate",
           R"({"licenseKey":")" + license + R"(","machineId":"machine-0001","machineName":null})");
  ASSERT_OK(r);
  const json::value body_json3 = BodyJson(r);  // Find points into it
  const json::value* name = Find(body_json3, "machine.name");
  EXPECT_TRUE(name == nullptr || name->is_null()) << r.Describe();
}

TEST_F(BodyRules, NullForARequiredFieldIs1702) {
  Start();
  const std::string license = NewLicense(3);
  EXPECT_MALFORMED(Call("activate", R"({"licenseKey":")" + license + R"(","machineId":null})"),
                   "machineId");
  EXPECT_MALFORMED(Call("status", R"({"licenseKey":null})"), "licenseKey");
}

TEST_F(BodyRules, UnknownMembersAreIgnored) {
  Start();
  const std::string license = NewLicense(3);
  EXPECT_OK(Call("activate",
                 R"({"licenseKey":")" + license +
                     R"(","machineId":"machine-0001","os":"linux","n":[1,{"x":null}],"v":1.5})"));
  EXPECT_OK(Call("status", R"({"licenseKey":")" + license + R"(","extra":true})"));
}

}  // namespace
}  // namespace bb
