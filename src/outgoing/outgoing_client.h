// The server's outgoing HTTP: store API calls now (docs/protocol.md §22.9), webhook
// deliveries later (§19), under the rules of docs/protocol.md §24 for every outgoing
// connection:
//
// - only http and https URLs, https alone unless the operator allows http
//   (--webhook-allow-http); a URL with userinfo (user:password@) is refused;
// - the address is checked (address_policy.h) unless the operator allows private
//   addresses (--webhook-allow-private), and the check is made on the very socket
//   address libcurl is about to connect to (CURLOPT_OPENSOCKETFUNCTION): what is checked
//   is what is connected, so a name that resolves once to a public address and then to
//   a private one (DNS rebinding) gains nothing. After the transfer the address libcurl
//   reports as connected must be one the check passed;
// - no proxy, whatever http_proxy, https_proxy, ALL_PROXY or NO_PROXY say; no .netrc;
// - certificates verified against the system's store, or the operator's CA file
//   (--outgoing-ca-file);
// - no redirect followed (a 3xx is an answer like any other);
// - bounded: a connect and a total timeout, an answer size past which reading stops.
//
// Failure messages name the scheme, host and port only: never the path, the query (a
// Gumroad access_token travels there) or a header (Authorization).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace licensed {

// What the operator allows every outgoing connection (serve settings).
struct OutgoingPolicy {
  bool allow_http = false;     // --webhook-allow-http
  bool allow_private = false;  // --webhook-allow-private
  std::string ca_file;         // --outgoing-ca-file: PEM CA bundle; empty: the system's
};

// What one use of the client allows itself: a store API call must leave the inbound
// delivery time to answer within 2 s (docs/protocol.md §22.9); a webhook will wait up to 15 s.
struct OutgoingLimits {
  std::chrono::milliseconds connect_timeout{1000};
  std::chrono::milliseconds total_timeout{1500};  // name lookup and connect included
  size_t max_answer_bytes = 1024 * 1024;
  // What an answer past max_answer_bytes is. False: a failure (a store look-up needs the
  // whole body). True: the answer stands, its body cut at max_answer_bytes and the rest
  // left unread (a webhook delivery, where only the status counts: docs/protocol.md §25.3).
  bool cut_long_answers = false;
};

struct OutgoingRequest {
  std::string method = "GET";  // GET or POST
  std::string url;             // absolute http(s) URL
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // sent with POST
  OutgoingLimits limits;
};

// Any answer the server gave, 2xx or not: the caller decides what a status means.
struct OutgoingAnswer {
  long status = 0;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // names in lower case
  std::string connected_to;  // the checked address the answer came from

  std::optional<std::string> header(std::string_view lower_case_name) const;
};

// "https://api.stripe.com", "http://127.0.0.1:8080": what messages name of a URL. Empty
// when the URL does not parse.
std::string url_origin(std::string_view url);

// The URL's own checks (scheme, userinfo, a host), without resolving it: for a setting
// or an admin call that stores a URL. kInvalidArgument with subject "url".
Status check_outgoing_url(std::string_view url, const OutgoingPolicy& policy);

// check_outgoing_url, then the host resolved and each of its addresses checked against
// the refused ranges (unless private addresses are allowed): for an admin call that stores
// a URL (a webhook endpoint), so a private target is refused when it is given. The client
// checks again when it connects, since DNS can change. kInvalidArgument, subject "url".
Status check_outgoing_destination(std::string_view url, const OutgoingPolicy& policy);

class OutgoingClient {
 public:
  explicit OutgoingClient(OutgoingPolicy policy) : policy_(std::move(policy)) {}

  // Sends the request and waits for the answer: it BLOCKS the calling thread for up to
  // limits.total_timeout, so it never runs on a network (io_context) thread nor inside
  // a store transaction. Thread-safe: each call has its own libcurl handle.
  // Errors: kInvalidArgument (subject "url") for a URL or address the policy refuses;
  // kUnavailable for anything that may pass (no answer in time, a refused connection,
  // a certificate not verified, an answer over the size limit unless cut_long_answers).
  Result<OutgoingAnswer> send(const OutgoingRequest& request) const;

  const OutgoingPolicy& policy() const { return policy_; }

 private:
  OutgoingPolicy policy_;
};

}  // namespace licensed
