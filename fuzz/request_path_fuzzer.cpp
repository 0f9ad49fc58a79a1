// Fuzzes the whole request path: bytes in, answers out, through exchange_bytes (the
// socket session's intake: header limit, route, size, body limit, pipelining) and the
// License API service (pipeline, body validator, operations, SQLite store), on the
// fixture of fixture_world.h.
//
// Byte 0 of an input chooses the mode:
//   bit 0 clear ('P', 'R'): raw. The rest is what a client sent on one connection.
//   bit 0 set   ('Q', 'S'): structured. The rest describes one request, which is built
//     and signed with the fixture's real key, timestamp and a fresh nonce (unless the
//     description says to spoil them), so that mutations reach past the signature check
//     into the body validator and the operations. See build_structured below.
//   bit 1 ('R', 'S'): tight rate limits, so that both 429s are reachable.
//
// Besides crashes, leaks and UB, it traps when an answer breaks the response shape
// (fuzz_checks.h) or when a request the description says is well signed is refused as
// if it were not.
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "auth/request_signature.h"
#include "fixture_world.h"
#include "fuzz_checks.h"
#include "http/request_intake.h"
#include "spec_rules.h"

namespace licensed::fuzz {
namespace {

constexpr std::string_view kEndpoints[] = {"activate", "heartbeat", "status", "deactivate"};
// Offsets from the fixture's clock. The first five are accepted; -101 is before the
// server's start, -300 both that and at the window's edge, +301 past the window.
constexpr int64_t kTimestampOffsets[] = {0, -1, 1, -100, 300, -101, -300, 301};
constexpr std::string_view kContentTypes[] = {"application/json", "application/json; charset=utf-8",
                                              "text/plain", ""};

// Reads the input front to back; past its end every byte reads as 0.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  uint8_t byte() {
    if (data_.empty()) return 0;
    const auto b = static_cast<uint8_t>(data_.front());
    data_.remove_prefix(1);
    return b;
  }
  std::string_view take(size_t n) {
    const std::string_view part = data_.substr(0, n);
    data_.remove_prefix(part.size());
    return part;
  }
  std::string_view rest() { return take(data_.size()); }

 private:
  std::string_view data_;
};

// A structured input, after the mode byte:
//   byte A: bits 0-1 endpoint; bit 2 a proxy prefix and a query string on the target;
//           bits 3-4 signing key (0, 1 fuzz-key; 2 bound-key; 3 fuzz-key with a wrong
//           secret); bit 5 sign another path; bit 6 method GET; bit 7 send it twice
//           (the second is a replay).
//   byte B: bits 0-2 timestamp offset (kTimestampOffsets); bits 3-4 Content-Type
//           (kContentTypes, the last one absent); bit 5 HTTP/1.0; bit 6 chunked body;
//           bit 7 Connection: close.
//   byte C: bit 7 set: the payload is the body, as is. Otherwise a JSON body is built:
//           bits 0-2 license (kLicenseKeys); bit 3 license key in upper case; bits 4-5
//           machineName (absent, the payload after its first '\n', null, ""); bit 6 no
//           machineId (else the payload up to its first '\n').
//   byte N, then N bytes of extra header lines, sent before the signing headers (so a
//           duplicate of one of them wins); then the payload.
struct Structured {
  std::string bytes;
  // The request is signed right, dated inside the window, has a JSON content type
  // and no extra header lines: it must not be refused at steps 1 to 7.
  bool well_signed = false;
  // Well signed, and the body is valid for the endpoint: no 400 either.
  bool valid_body = false;
  Endpoint endpoint = Endpoint::kActivate;
  size_t license_index = 0;
  bool sent_twice = false;
  bool keep_alive = true;
};

std::string json_string(std::string_view s) {
  return boost::json::serialize(boost::json::string(s));
}

Structured build_structured(Reader in) {
  const uint8_t a = in.byte();
  const uint8_t b = in.byte();
  const uint8_t c = in.byte();
  const std::string_view extra_headers = in.take(in.byte());
  const std::string_view payload = in.rest();

  Structured out;
  out.endpoint = static_cast<Endpoint>(a & 3);
  const std::string api_path = "/api/v1/license/" + std::string(kEndpoints[a & 3]);
  const bool proxied = a & 4;
  const unsigned key_choice = (a >> 3) & 3;
  const bool wrong_path = a & 0x20;
  const bool get = a & 0x40;
  out.sent_twice = a & 0x80;
  const size_t offset_index = b & 7;
  const std::string_view content_type = kContentTypes[(b >> 3) & 3];
  const bool http10 = b & 0x20;
  const bool chunked = b & 0x40;
  const bool close = b & 0x80;
  out.keep_alive = !http10 && !close;

  std::string body;
  bool body_ok = false;
  if (c & 0x80) {
    body = std::string(payload);
  } else {
    out.license_index = c & 7;
    std::string key(kLicenseKeys[out.license_index]);
    if (c & 8) {
      for (char& ch : key) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    }
    const size_t nl = payload.find('\n');
    const std::string_view machine_id = payload.substr(0, nl);
    const std::string_view machine_name =
        nl == std::string_view::npos ? std::string_view() : payload.substr(nl + 1);
    const bool omit_machine_id = c & 0x40;
    body = "{\"licenseKey\":" + json_string(key);
    if (!omit_machine_id) body += ",\"machineId\":" + json_string(machine_id);
    bool name_ok = true;
    switch ((c >> 4) & 3) {
      case 1:
        body += ",\"machineName\":" + json_string(machine_name);
        // Other endpoints ignore the member, whatever it holds, but the body must still
        // be UTF-8 (serialize copies invalid bytes as they are).
        name_ok = out.endpoint == Endpoint::kActivate ? is_valid_machine_name(machine_name)
                                                      : decode_utf8(machine_name).has_value();
        break;
      case 2:
        body += ",\"machineName\":null";
        break;
      case 3:
        body += ",\"machineName\":\"\"";
        break;
      default:
        break;
    }
    body += "}";
    const bool id_ok =
        omit_machine_id ? out.endpoint == Endpoint::kStatus : is_valid_machine_id(machine_id);
    body_ok = id_ok && name_ok;
  }

  const std::string method = get ? "GET" : "POST";
  const std::string target = proxied ? "/edge" + api_path + "?trace=1" : api_path;
  const std::string_view key_id = key_choice == 2 ? kBoundKeyId : kKeyId;
  const std::string_view secret = key_choice == 2   ? kBoundSecret
                                  : key_choice == 3 ? "not-the-secret"
                                                    : kSecret;
  const std::string timestamp = std::to_string(kNowSeconds + kTimestampOffsets[offset_index]);
  const std::string nonce = "fuzz-nonce-0000000001";
  const std::string signed_path = wrong_path ? api_path + "x" : api_path;
  const std::string signature =
      sign_request(secret, {method, signed_path, key_id, timestamp, nonce, sha256_hex(body)});

  std::string request = method + " " + target + (http10 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n");
  request += "Host: licensed.test\r\n";
  request += extra_headers;
  if (!content_type.empty()) request += "Content-Type: " + std::string(content_type) + "\r\n";
  request += "X-License-Key-Id: " + std::string(key_id) + "\r\n";
  request += "X-License-Timestamp: " + timestamp + "\r\n";
  request += "X-License-Nonce: " + nonce + "\r\n";
  request += "X-License-Signature: " + signature + "\r\n";
  if (close) request += "Connection: close\r\n";
  if (chunked) {
    // Two chunks (when there is more than one byte), so the parser joins them.
    const size_t half = body.size() / 2;
    request += "Transfer-Encoding: chunked\r\n\r\n";
    for (const std::string_view chunk :
         {std::string_view(body).substr(0, half), std::string_view(body).substr(half)}) {
      if (chunk.empty()) continue;
      char size[32];
      std::snprintf(size, sizeof size, "%zx\r\n", chunk.size());
      request += size;
      request += chunk;
      request += "\r\n";
    }
    request += "0\r\n\r\n";
  } else {
    request += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  }

  out.bytes = request;
  if (out.sent_twice) out.bytes += request;
  // HTTP/1.0 with Transfer-Encoding has faulty framing (RFC 9112 6.1): 400, not served.
  out.well_signed = key_choice < 2 && !wrong_path && !get && offset_index < 5 &&
                    !(http10 && chunked) && content_type.find("application/json") == 0 &&
                    extra_headers.empty() && body.size() <= HttpLimits{}.max_body_bytes;
  out.valid_body = out.well_signed && body_ok;
  return out;
}

// What must hold for a structured request that says it is well signed.
void check_structured(const Structured& s, const std::vector<Answer>& answers) {
  if (!s.well_signed) return;
  const size_t expected = s.sent_twice && s.keep_alive ? 2 : 1;
  require(answers.size() == expected, "a well-signed request got the wrong number of answers");
  const Answer& first = answers.front();
  require(first.status != 401, "a well-signed request was refused as unauthenticated");
  require(first.code || first.ok, "a well-signed request was refused before its endpoint");
  if (s.valid_body) {
    require(first.status != 400, "a valid body was refused as malformed");
    // A status request on a live license of an unbound key answers 200 whatever the
    // license's state; 1706 cannot happen on a first request.
    const bool live = s.license_index != 4 && s.license_index != 7;
    if (s.endpoint == Endpoint::kStatus && live) {
      require(first.status == 200, "status of a live license did not answer 200");
    }
  }
  if (expected == 2) {
    // Signature checked, so the nonce was consumed: the replay is refused at step 7.
    require(answers[1].code == 1700 && answers[1].reason == "nonce_reused",
            "a replayed request was not refused as nonce_reused");
  }
}

// LICENSED_FUZZ_PRINT=1 prints each input's request bytes and answers: for reading what
// a saved input does when it is run again by hand.
void print_exchange(std::string_view request, std::string_view answers) {
  static const bool enabled = std::getenv("LICENSED_FUZZ_PRINT") != nullptr;
  if (!enabled) return;
  std::fprintf(stderr, "---- request bytes:\n%.*s\n---- answers:\n%.*s\n----\n",
               static_cast<int>(request.size()), request.data(), static_cast<int>(answers.size()),
               answers.data());
}

FixtureWorld& world() {
  // Never destroyed: its store's threads run until the process exits.
  static FixtureWorld* w = new FixtureWorld();
  return *w;
}

}  // namespace
}  // namespace licensed::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)licensed::fuzz::world();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace licensed::fuzz;
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const uint8_t mode = data[0];
  auto server = world().begin_input(/*tight_limits=*/mode & 2);
  const licensed::HttpLimits limits;
  if (mode & 1) {
    const Structured s = build_structured(Reader(input.substr(1)));
    const std::string out = licensed::exchange_bytes(*server->handler, limits, s.bytes, kClientIp);
    print_exchange(s.bytes, out);
    check_structured(s, check_answers(out, s.bytes));
  } else {
    const std::string out =
        licensed::exchange_bytes(*server->handler, limits, input.substr(1), kClientIp);
    print_exchange(input.substr(1), out);
    (void)check_answers(out, input.substr(1));
  }
  return 0;
}
