// What the black-box tests of store fulfilment (docs/protocol.md §22) share: the providers'
// signatures computed from the contract alone (Stripe, Paddle, FastSpring, Lemon Squeezy,
// the FastSpring generator's MD5 hash), Stripe sale bodies, the fixtures under
// tests/fixtures/, and a fixture class that talks to the admin API about stores, their
// licenses and their rejections.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/fixture.h"

namespace bb {

// Stripe-Signature: "t=<t>,v1=<hex HMAC-SHA256 of '<t>.<body>'>".
std::string StripeSignature(std::string_view secret, std::int64_t t, std::string_view body);
// Paddle-Signature: "ts=<ts>;h1=<hex HMAC-SHA256 of '<ts>:<body>'>".
std::string PaddleSignature(std::string_view secret, std::int64_t ts, std::string_view body);
// X-FS-Signature: base64 HMAC-SHA256 of the body.
std::string FastSpringSignature(std::string_view secret, std::string_view body);
// Lowercase hex MD5 (OpenSSL EVP), for the FastSpring generator's security_request_hash.
std::string Md5Hex(std::string_view data);

// tests/fixtures/<relative> in the source tree, and its bytes.
std::filesystem::path FixturePath(std::string_view relative);
std::string Fixture(std::string_view relative);
// `s` with every `from` replaced by `to`.
std::string ReplaceAll(std::string s, std::string_view from, std::string_view to);

// A paid Checkout Session event whose line items came expanded (no look-up needed):
// `per_unit` units of price_single and one of price_site, the payment intent and
// livemode as given, customer Ada Lovelace.
std::string StripePaidSession(std::string_view event_id, std::string_view session,
                              std::string_view payment_intent = "pi_bb_1", bool livemode = true,
                              int per_unit = 2);
// A JSON POST of `body` to `path` with that Stripe-Signature (none when nullopt).
HttpRequest StripeDelivery(const std::string& path, std::string body,
                           std::optional<std::string> signature);

// A refused delivery: that status, an empty body, and no response signature.
void ExpectEmptyAnswer(const HttpResponse& r, int status);

// A black-box fixture with an admin token ("stores-bot") for the admin API's store calls.
class StoresTest : public BlackboxTest {
 protected:
  void SetUp() override;
  // Starts the server and creates reverb's plan "pro" (max 2), which the stores map.
  void StartWithPlan(const ServerOptions& options = {});
  const json::value& OpenApi();
  HttpResponse Api(const std::string& method, const std::string& target,
                   std::optional<std::string> body = {});
  // POST /stores with that body (201 expected): the store's id and inbound URL.
  std::pair<std::int64_t, std::string> CreateStoreFrom(const std::string& body);
  // Every license a store made (they carry a source), over all pages.
  std::vector<json::value> StoreLicenses();
  // The store's rejections, waiting up to 5 s until there are at least `at_least` (a
  // 413's record is written after its answer).
  std::vector<json::value> Rejections(std::int64_t id, std::size_t at_least = 0);
  // The license's audit records with that action, through the admin API.
  std::vector<json::value> LicenseAudit(const std::string& key, std::string_view action);
  // The license as the admin API shows it.
  json::value License(const std::string& key);

  std::string token_;
  json::value openapi_;
};

}  // namespace bb
