#include "admin/store_sample_cli.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "admin/cli_status.h"
#include "admin/store_sample.h"
#include "outgoing/outgoing_client.h"

namespace licensed {
namespace {

// Where the secret is read when neither --secret-file nor --secret is given: an
// environment variable keeps it out of the shell's history and out of `ps`.
constexpr const char* kSecretEnv = "LICENSED_STORE_SECRET";

struct SampleArgs {
  std::string url, server, secret, secret_file, event = "sale", item, email, name, order, seller_id;
  std::vector<std::string> generator_params;
  int64_t quantity = 1;
  bool live = false;
};

int fail(const std::string& message) {
  std::cerr << "licensed admin: " << message << "\n";
  return kExitRefused;
}

// The secret, from the file (its first line), --secret, or the environment.
Result<std::string> read_secret(const SampleArgs& a, const std::string& provider) {
  if (!a.secret_file.empty()) {
    std::ifstream in(a.secret_file, std::ios::binary);
    if (!in) return Error::invalid_argument("secret", "cannot read " + a.secret_file);
    std::string line;
    std::getline(in, line);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    return line;
  }
  if (!a.secret.empty()) return a.secret;
  const char* env = std::getenv(kSecretEnv);
  if (env != nullptr && *env != '\0') return std::string(env);
  if (provider == "gumroad") return std::string();
  return Error::invalid_argument("secret", "give the store's secret: " + std::string(kSecretEnv) +
                                               "=..., --secret-file PATH or --secret S");
}

// The URL the request goes to: --url as given, or its path on --server (a path alone, as
// a store made without --public-url shows it, needs --server).
Result<std::string> target_url(const SampleArgs& a) {
  std::string path = a.url;
  const auto scheme_end = a.url.find("://");
  if (scheme_end != std::string::npos) {
    if (a.server.empty()) return a.url;
    const auto slash = a.url.find('/', scheme_end + 3);
    path = slash == std::string::npos ? "/" : a.url.substr(slash);
  }
  if (a.server.empty()) {
    return Error::invalid_argument(
        "url", "--url " + a.url + " is a path: give --server http://HOST:PORT as well");
  }
  std::string server = a.server;
  while (server.ends_with('/')) server.pop_back();
  return server + path;
}

// The URL with its token (the last segment) as ***: the token is a credential.
std::string masked(const std::string& url) {
  const auto slash = url.rfind('/');
  return slash == std::string::npos ? url : url.substr(0, slash + 1) + "***";
}

std::string what_was_sent(const SampleRequest& r, const SampleDelivery& d) {
  if (r.kind == SampleKind::kRefund) return r.provider + " refund of order " + d.order_id;
  return r.provider + " sale of " + r.item + " x " + std::to_string(r.quantity) + " to " + r.email +
         ", order " + d.order_id;
}

// What a status other than 200 means here, for the operator.
std::string meaning_of(long status) {
  switch (status) {
    case 400:
      return "a failed check (no store with this provider, id and token; a wrong secret; or "
             "a payload the provider's reader refused): the answer says no more, the store's "
             "rejections do (GET /api/v1/admin/stores/{id}/rejections)";
    case 413:
      return "the body is over 1 MiB";
    case 429:
      return "this address sent too many requests: try again shortly";
    case 503:
      return "the server could not complete the event through the provider's API (see its "
             "log); the URL, the token and the signature were accepted";
    default:
      return "see the server's log";
  }
}

int run(const SampleArgs& a) {
  auto provider = sample_provider_of(a.url);
  if (!provider.ok()) return fail(provider.error().message);
  auto url = target_url(a);
  if (!url.ok()) return fail(url.error().message);
  auto secret = read_secret(a, provider.value());
  if (!secret.ok()) return fail(secret.error().message);
  if (a.event != "sale" && a.event != "refund") {
    return fail("--event is sale or refund, not " + a.event);
  }
  SampleRequest r;
  r.provider = provider.value();
  r.kind = a.event == "sale" ? SampleKind::kSale : SampleKind::kRefund;
  r.item = a.item;
  r.quantity = a.quantity;
  if (!a.email.empty()) r.email = a.email;
  if (!a.name.empty()) r.name = a.name;
  r.order_id = a.order;
  r.live = a.live;
  r.seller_id = a.seller_id;
  r.generator_params = a.generator_params;
  auto delivery = build_store_sample(r, secret.value(), SystemClock().now_ms());
  if (!delivery.ok()) return fail(cli_error_text(delivery.error()));

  OutgoingRequest request;
  request.method = "POST";
  request.url = url.value();
  request.headers.emplace_back("Content-Type", delivery->content_type);
  request.headers.emplace_back("User-Agent", "licensed-send-sample");
  for (const auto& header : delivery->headers) request.headers.push_back(header);
  request.body = delivery->body;
  // The server may look the event up in the provider's API before answering.
  request.limits.connect_timeout = std::chrono::milliseconds(5000);
  request.limits.total_timeout = std::chrono::milliseconds(30000);
  // The operator's own server: a loopback or private address and plain http are expected.
  OutgoingPolicy policy;
  policy.allow_http = true;
  policy.allow_private = true;
  const OutgoingClient client(policy);

  std::cout << "POST " << masked(url.value()) << "\n"
            << "sent: " << what_was_sent(r, delivery.value()) << "\n";
  for (const auto& note : delivery->notes) std::cout << "note: " << note << "\n";
  auto answer = client.send(request);
  if (!answer.ok()) return fail("no answer: " + answer.error().message);
  std::cout << "answered " << answer->status;
  if (!answer->body.empty()) std::cout << ": " << answer->body;
  if (!answer->body.ends_with('\n')) std::cout << "\n";
  if (answer->status == 200) {
    if (r.kind == SampleKind::kSale) {
      std::cout << "the licenses the order made: GET /api/v1/admin/licenses?orderId="
                << delivery->order_id << "\n";
    }
    return kExitOk;
  }
  std::string why = meaning_of(answer->status);
  if (const auto retry = answer->header("retry-after")) why += " (Retry-After: " + *retry + ")";
  return fail("the server answered " + std::to_string(answer->status) + ": " + why);
}

}  // namespace

void add_store_sample_command(CLI::App& store_group,
                              const std::shared_ptr<std::function<int()>>& chosen) {
  auto a = std::make_shared<SampleArgs>();
  auto* cmd = store_group.add_subcommand(
      "send-sample",
      "send a correctly signed sample event to a store's inbound URL on a running server");
  cmd->add_option("--url", a->url,
                  "the store's inbound URL (inboundUrl), or its path with --server")
      ->required();
  cmd->add_option("--server", a->server,
                  "http(s)://HOST:PORT the request goes to (with a path --url, or in place of "
                  "the URL's own address)");
  cmd->add_option("--secret-file", a->secret_file,
                  "a file whose first line is the store's secret (else $LICENSED_STORE_SECRET)");
  cmd->add_option("--secret", a->secret,
                  "the store's secret (visible in ps and shell history: prefer "
                  "$LICENSED_STORE_SECRET or --secret-file)");
  cmd->add_option("--event", a->event, "sale (default) or refund");
  cmd->add_option("--item", a->item,
                  "the item sold: its mapping key (price id, product path, variant id, ...)");
  cmd->add_option("--quantity", a->quantity, "units sold (default 1)")->check(CLI::Range(1, 1000));
  cmd->add_option("--email", a->email, "the buyer's email (default buyer@example.com)");
  cmd->add_option("--name", a->name, "the buyer's name (default Sample Buyer)");
  cmd->add_option("--order", a->order,
                  "the order: a refund's (required), a sale's (default: a new one each time)");
  cmd->add_flag("--live", a->live,
                "send the event as live, not test-mode (a store without options.testMode "
                "ignores test-mode events)");
  cmd->add_option("--seller-id", a->seller_id, "gumroad: the store's options.sellerId");
  cmd->add_option("--generator-param", a->generator_params,
                  "fastspring-generator: a name of the store's options.generatorParams "
                  "(repeat; default reference internalProductName quantity email name "
                  "company test)");
  cmd->callback([a, chosen] { *chosen = [a] { return run(*a); }; });
}

}  // namespace licensed
