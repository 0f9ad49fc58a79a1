// A stand-in for a store provider's API (Stripe, Paddle, FastSpring, Gumroad) on
// 127.0.0.1:0 inside the test process, plain HTTP or HTTPS with a self-signed
// certificate made by the openssl command at start. It answers each request from the
// answers a test gave it, by target, and records every request with its headers.
//
// Use, in a unit test of the outgoing client or a black-box test of the real binary:
//
//   bb::ProviderStandIn stripe;                               // or (Tls::kSelfSigned)
//   stripe.AnswerWithFile("/v1/checkout/sessions/cs_1/line_items",
//                         LICENSED_SOURCE_DIR
//                         "/tests/fixtures/stripe/checkout_session_line_items.json");
//   // a store whose options.apiBase is stripe.base_url(), served by
//   //   licensed serve --webhook-allow-private --webhook-allow-http ...
//   // (HTTPS: --webhook-allow-private --outgoing-ca-file <stripe.ca_file()>)
//   ... deliver the event ...
//   const auto requests = stripe.WaitFor(1);
//   EXPECT_EQ(requests[0].header("authorization"), "Bearer rk_test_1");
//
// A target is matched exactly (path and query) first, then by its path alone; anything
// unmatched answers 404 with {"error": "no stand-in answer for <path>"}. One request per
// connection (the answer closes it). The stand-in listens on 127.0.0.1 only, so the
// server reaches it only with --webhook-allow-private (docs/protocol.md §24).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "support/http_client.h"
#include "support/http_receiver.h"

namespace bb {

struct StandInAnswer {
  unsigned status = 200;
  std::string body;
  std::vector<Header> headers;         // Content-Type is application/json unless given here
  std::chrono::milliseconds delay{0};  // waited before answering: for timeouts
  bool chunked = false;  // no Content-Length: the client learns the size only by reading
};

class ProviderStandIn {
 public:
  // kOwnCa: a CA of its own (made by the openssl command) signs the certificate it
  // serves; ca_file() is that CA's certificate.
  enum class Tls { kOff, kSelfSigned, kOwnCa };

  // `port` 0: the kernel picks; another: that one (a receiver back on the port it had).
  explicit ProviderStandIn(Tls tls = Tls::kOff, std::uint16_t port = 0);
  ~ProviderStandIn();
  ProviderStandIn(const ProviderStandIn&) = delete;
  ProviderStandIn& operator=(const ProviderStandIn&) = delete;

  // The answer to requests for `target` ("/v1/customers/ctm_1", or with its query); a
  // later call for the same target replaces it. Thread-safe.
  void Answer(const std::string& target, StandInAnswer answer);
  // A fixture file's bytes as the body of a JSON answer.
  void AnswerWithFile(const std::string& target, const std::filesystem::path& file,
                      unsigned status = 200);

  std::uint16_t port() const;
  // "http://127.0.0.1:PORT" or "https://127.0.0.1:PORT": what options.apiBase names.
  std::string base_url() const;
  // HTTPS: the self-signed certificate (PEM, for 127.0.0.1 and localhost) or the CA that
  // signed it, the file to trust with --outgoing-ca-file. Empty without TLS.
  std::string ca_file() const;

  // Connections accepted so far, whether a request came on them or not.
  std::size_t connections() const;
  std::vector<ReceivedRequest> Received() const;
  // Waits until at least `n` requests arrived, at most `deadline`; returns them all.
  std::vector<ReceivedRequest> WaitFor(std::size_t n,
                                       std::chrono::seconds deadline = std::chrono::seconds(30));

  struct State;  // defined in the .cpp, where its sessions need it

 private:
  std::unique_ptr<State> state_;
};

}  // namespace bb
