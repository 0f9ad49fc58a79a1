#include "admin/store_sample.h"

#include <algorithm>
#include <array>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "admin/form_body.h"
#include "auth/crypto_primitives.h"
#include "auth/store_signatures.h"
#include "core/hex.h"
#include "core/timestamp.h"

namespace licensed {
namespace {

namespace json = boost::json;

constexpr std::string_view kInboundPrefix = "/api/v1/stores/";
// What a sample order costs, in cents: refunds refund all of it.
constexpr int64_t kSampleAmount = 1000;

// `bytes` random bytes in hex: every sample is a new event and, unless told, a new order.
Result<std::string> random_hex(size_t bytes) {
  std::array<uint8_t, 16> buffer{};
  if (bytes > buffer.size() || !crypto::random_bytes(buffer.data(), bytes)) {
    return Error::internal("no random bytes for a sample id");
  }
  return to_hex(buffer.data(), bytes);
}

// An id the provider writes as a number when it is one (Lemon Squeezy's variant ids).
json::value number_or_text(const std::string& id) {
  const bool digits =
      !id.empty() && id.size() <= 18 &&
      std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) return json::value(std::stoll(id));
  return json::value(id);
}

Error signing_failed() {
  return Error::internal("the signature could not be computed");
}

Error refused(std::string message) {
  return Error::invalid_argument("sample", std::move(message));
}

struct Ids {
  std::string event;  // unique per sample
  std::string order;  // the request's, else made up
};

std::string first_name(const std::string& name) {
  return name.substr(0, name.find(' '));
}

std::string last_name(const std::string& name) {
  const auto space = name.find(' ');
  return space == std::string::npos ? std::string() : name.substr(space + 1);
}

Result<SampleDelivery> json_delivery(const json::object& body, std::string order_id) {
  SampleDelivery out;
  out.content_type = "application/json";
  out.body = json::serialize(body);
  out.order_id = std::move(order_id);
  return out;
}

Result<SampleDelivery> stripe_sample(const SampleRequest& r, const Ids& ids,
                                     std::string_view secret, UnixMillis now) {
  json::object object;
  std::string type;
  if (r.kind == SampleKind::kSale) {
    type = "checkout.session.completed";
    // The line items come expanded (as `expand[]=line_items` gives them): the server
    // reads them from the event, so no Stripe API key is needed.
    json::object line{{"id", "li_" + ids.event},
                      {"object", "item"},
                      {"price", json::object{{"id", r.item}, {"object", "price"}}},
                      {"quantity", r.quantity}};
    object = {{"id", ids.order},
              {"object", "checkout.session"},
              {"mode", "payment"},
              {"payment_status", "paid"},
              {"status", "complete"},
              {"amount_total", kSampleAmount * r.quantity},
              {"customer_details", json::object{{"email", r.email}, {"name", r.name}}},
              {"line_items", json::object{{"object", "list"},
                                          {"has_more", false},
                                          {"data", json::array{std::move(line)}}}}};
  } else {
    type = "charge.refunded";
    // The refund cites the order the sample sale made (the lifecycle finds an order by
    // its id as by any reference it listed).
    object = {{"id", "ch_" + ids.event},     {"object", "charge"},
              {"amount", kSampleAmount},     {"amount_refunded", kSampleAmount},
              {"payment_intent", ids.order}, {"refunded", true}};
  }
  const json::object event{{"id", "evt_" + ids.event},
                           {"object", "event"},
                           {"api_version", "2024-06-20"},
                           {"created", unix_seconds(now)},
                           {"livemode", r.live},
                           {"type", type},
                           {"data", json::object{{"object", std::move(object)}}}};
  ASSIGN_OR_RETURN(SampleDelivery out, json_delivery(event, ids.order));
  const auto header = stripe_signature_header(out.body, secret, unix_seconds(now));
  if (!header) return signing_failed();
  out.headers.emplace_back("Stripe-Signature", *header);
  if (!r.live) {
    out.notes.emplace_back(
        "sent with livemode false: the store acts on it only with options.testMode true "
        "(--live sends livemode true)");
  }
  return out;
}

Result<SampleDelivery> paddle_sample(const SampleRequest& r, const Ids& ids,
                                     std::string_view secret, UnixMillis now) {
  json::object data;
  std::string type;
  if (r.kind == SampleKind::kSale) {
    type = "transaction.completed";
    // No customer_id: a real one is looked up in Paddle's API (options.apiKey), which a
    // made-up one would fail (503). The sample's licenses therefore carry no customer.
    json::object item{{"price", json::object{{"id", r.item}}}, {"quantity", r.quantity}};
    data = {{"id", ids.order},
            {"status", "completed"},
            {"origin", "web"},
            {"collection_mode", "automatic"},
            {"items", json::array{std::move(item)}}};
  } else {
    type = "adjustment.created";
    data = {{"id", "adj_" + ids.event},
            {"action", "refund"},
            {"status", "approved"},
            {"type", "full"},
            {"transaction_id", ids.order}};
  }
  const json::object event{{"event_id", "evt_" + ids.event},
                           {"event_type", type},
                           {"occurred_at", format_timestamp(now)},
                           {"notification_id", "ntf_" + ids.event},
                           {"data", std::move(data)}};
  ASSIGN_OR_RETURN(SampleDelivery out, json_delivery(event, ids.order));
  const auto header = paddle_signature_header(out.body, secret, unix_seconds(now));
  if (!header) return signing_failed();
  out.headers.emplace_back("Paddle-Signature", *header);
  out.notes.emplace_back(
      "Paddle events carry no test flag: the store acts on this one as on a live sale "
      "(try it on a store made for the test, then delete that store)");
  if (r.kind == SampleKind::kSale) {
    out.notes.emplace_back(
        "the sample names no Paddle customer (a real sale's is looked up with options.apiKey), "
        "so its licenses carry no customer; --email is not sent");
  }
  return out;
}

Result<SampleDelivery> fastspring_sample(const SampleRequest& r, const Ids& ids,
                                         std::string_view secret, UnixMillis now) {
  json::object data;
  std::string type;
  if (r.kind == SampleKind::kSale) {
    type = "order.completed";
    json::object customer{
        {"first", first_name(r.name)}, {"last", last_name(r.name)}, {"email", r.email}};
    json::object item{{"product", r.item}, {"quantity", r.quantity}};
    data = {{"order", ids.order},
            {"id", ids.order},
            {"reference", ids.order},
            {"completed", true},
            {"live", r.live},
            {"total", 10.0 * static_cast<double>(r.quantity)},
            {"customer", std::move(customer)},
            {"items", json::array{std::move(item)}}};
  } else {
    type = "return.created";
    data = {{"return", "RET" + ids.event},
            {"completed", true},
            {"live", r.live},
            {"totalReturn", 10.0},
            {"original", json::object{{"id", ids.order}, {"order", ids.order}, {"total", 10.0}}}};
  }
  const json::object event{{"id", "SAMPLE" + ids.event},
                           {"processed", false},
                           {"created", now},
                           {"type", type},
                           {"live", r.live},
                           {"data", std::move(data)}};
  const json::object delivery{{"events", json::array{event}}};
  ASSIGN_OR_RETURN(SampleDelivery out, json_delivery(delivery, ids.order));
  const auto signature = fastspring_signature(out.body, secret);
  if (!signature) return signing_failed();
  out.headers.emplace_back("X-FS-Signature", *signature);
  if (!r.live) {
    out.notes.emplace_back(
        "sent with live false: the store acts on it only with options.testMode true "
        "(--live sends live true)");
  }
  return out;
}

// The value the generator sends for `name`; parameters this sample knows nothing of are
// sent empty (they are signed all the same).
std::string generator_value(const SampleRequest& r, const Ids& ids, std::string_view name) {
  if (name == "reference") return ids.order;
  if (name == "internalProductName" || name == "product") return r.item;
  if (name == "quantity") return std::to_string(r.quantity);
  if (name == "email") return r.email;
  if (name == "name") return r.name;
  if (name == "test") return r.live ? "false" : "true";
  return {};
}

Result<SampleDelivery> generator_sample(const SampleRequest& r, const Ids& ids,
                                        std::string_view secret) {
  if (r.kind != SampleKind::kSale) {
    return refused(
        "the FastSpring license generator is asked only for a sale; it sends no refunds");
  }
  const std::vector<std::string> names =
      r.generator_params.empty() ? default_generator_params() : r.generator_params;
  if (std::find(names.begin(), names.end(), "reference") == names.end()) {
    return refused("the generator's parameters must include reference");
  }
  std::vector<std::pair<std::string, std::string>> params;
  std::string body;
  for (const auto& name : names) {
    params.emplace_back(name, generator_value(r, ids, name));
    body += percent_encode(name) + "=" + percent_encode(params.back().second) + "&";
  }
  const auto hash = fastspring_generator_hash(params, secret);
  if (!hash) return signing_failed();
  body += "security_request_hash=" + *hash;
  SampleDelivery out;
  out.content_type = "application/x-www-form-urlencoded";
  out.body = std::move(body);
  out.order_id = ids.order;
  out.notes.emplace_back(
      "the server confirms every generator request with FastSpring's API "
      "(GET /orders/{reference}, options.apiKey): with a made-up --order it answers 503 "
      "(FastSpring does not know the order), which still proves the URL, the token and the "
      "hash; give --order the reference of a real completed test order to see its keys");
  return out;
}

Result<SampleDelivery> lemonsqueezy_sample(const SampleRequest& r, const Ids& ids,
                                           std::string_view secret) {
  const bool sale = r.kind == SampleKind::kSale;
  json::object attributes{{"user_name", r.name},
                          {"user_email", r.email},
                          {"currency", "USD"},
                          {"total", kSampleAmount},
                          {"refunded_amount", sale ? 0 : kSampleAmount},
                          {"status", sale ? "paid" : "refunded"},
                          {"refunded", !sale},
                          {"test_mode", !r.live}};
  if (sale) {
    // The order's UUID (the claim page takes it), shaped as Lemon Squeezy's.
    ASSIGN_OR_RETURN(const std::string u, random_hex(16));
    attributes["identifier"] = u.substr(0, 8) + "-" + u.substr(8, 4) + "-" + u.substr(12, 4) + "-" +
                               u.substr(16, 4) + "-" + u.substr(20, 12);
    attributes["first_order_item"] =
        json::object{{"variant_id", number_or_text(r.item)}, {"quantity", r.quantity}};
  }
  const json::object event{
      {"meta", json::object{{"test_mode", !r.live},
                            {"event_name", sale ? "order_created" : "order_refunded"}}},
      {"data",
       json::object{{"type", "orders"}, {"id", ids.order}, {"attributes", std::move(attributes)}}}};
  ASSIGN_OR_RETURN(SampleDelivery out, json_delivery(event, ids.order));
  const auto signature = lemonsqueezy_signature(out.body, secret);
  if (!signature) return signing_failed();
  out.headers.emplace_back("X-Signature", *signature);
  if (!r.live) {
    out.notes.emplace_back(
        "sent with meta.test_mode true: the store acts on it only with options.testMode true "
        "(--live sends test_mode false)");
  }
  return out;
}

Result<SampleDelivery> gumroad_sample(const SampleRequest& r, const Ids& ids) {
  if (r.seller_id.empty()) {
    return refused("a Gumroad sample needs --seller-id (the store's options.sellerId)");
  }
  std::vector<std::pair<std::string, std::string>> form = {{"seller_id", r.seller_id},
                                                           {"sale_id", ids.order}};
  if (r.kind == SampleKind::kSale) {
    form.emplace_back("product_id", r.item);
    form.emplace_back("email", r.email);
    form.emplace_back("full_name", r.name);
    form.emplace_back("quantity", std::to_string(r.quantity));
  } else {
    form.emplace_back("resource_name", "refund");
  }
  form.emplace_back("test", r.live ? "false" : "true");
  SampleDelivery out;
  out.content_type = "application/x-www-form-urlencoded";
  for (const auto& [name, value] : form) {
    if (!out.body.empty()) out.body += '&';
    out.body += percent_encode(name) + "=" + percent_encode(value);
  }
  out.order_id = ids.order;
  out.notes.emplace_back(
      "Gumroad signs nothing: the URL's token and the seller id are the credentials. A ping "
      "is only a trigger: the server acts on the sale Gumroad's API answers "
      "(GET /v2/sales/{sale_id}, options.apiKey), so with a made-up --order it answers 503, "
      "which still proves the URL, the token and the seller id; give --order the id of a "
      "real test sale to see it fulfilled");
  return out;
}

Result<Ids> sample_ids(const SampleRequest& r) {
  ASSIGN_OR_RETURN(std::string suffix, random_hex(8));
  Ids ids{suffix, r.order_id};
  if (!ids.order.empty()) return ids;
  if (r.kind == SampleKind::kRefund) {
    return refused("a refund sample needs --order (the order id the sale sample printed)");
  }
  if (r.provider == "stripe") {
    ids.order = "cs_sample_" + suffix;
  } else if (r.provider == "paddle") {
    ids.order = "txn_sample_" + suffix;
  } else if (r.provider == "lemonsqueezy") {
    // Lemon Squeezy's order ids are numbers: 48 random bits.
    ids.order = std::to_string(std::stoull(suffix.substr(0, 12), nullptr, 16));
  } else if (r.provider == "fastspring" || r.provider == "fastspring-generator") {
    ids.order = "SAMPLE-" + suffix;
  } else {
    ids.order = "sample_" + suffix;
  }
  return ids;
}

}  // namespace

std::vector<std::string> default_generator_params() {
  return {"reference", "internalProductName", "quantity", "email", "name", "company", "test"};
}

Result<std::string> sample_provider_of(std::string_view inbound_url) {
  const size_t at = inbound_url.find(kInboundPrefix);
  const auto bad = [] {
    return Error::invalid_argument(
        "url", "not a store's inbound URL (…/api/v1/stores/{provider}/{id}/{token})");
  };
  if (at == std::string_view::npos) return bad();
  std::string_view rest = inbound_url.substr(at + kInboundPrefix.size());
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash == 0) return bad();
  const std::string_view after = rest.substr(slash + 1);
  const size_t second = after.find('/');
  if (second == std::string_view::npos || second == 0 || second + 1 >= after.size()) return bad();
  return std::string(rest.substr(0, slash));
}

Result<SampleDelivery> build_store_sample(const SampleRequest& request, std::string_view secret,
                                          UnixMillis now) {
  const std::string& p = request.provider;
  const bool known = p == "stripe" || p == "paddle" || p == "fastspring" ||
                     p == "fastspring-generator" || p == "lemonsqueezy" || p == "gumroad";
  if (!known) return refused("no provider " + p);
  if (request.kind == SampleKind::kSale && request.item.empty()) {
    return refused("a sale sample needs --item (the mapping key of the store's item)");
  }
  if (request.quantity < 1) return refused("--quantity is 1 or more");
  if (p != "gumroad" && secret.empty()) {
    return refused("a " + p + " sample needs the store's secret to sign it");
  }
  ASSIGN_OR_RETURN(const Ids ids, sample_ids(request));
  if (p == "stripe") return stripe_sample(request, ids, secret, now);
  if (p == "paddle") return paddle_sample(request, ids, secret, now);
  if (p == "fastspring") return fastspring_sample(request, ids, secret, now);
  if (p == "fastspring-generator") return generator_sample(request, ids, secret);
  if (p == "lemonsqueezy") return lemonsqueezy_sample(request, ids, secret);
  return gumroad_sample(request, ids);
}

}  // namespace licensed
