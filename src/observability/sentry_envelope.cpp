#include "observability/sentry_envelope.h"

#include <openssl/rand.h>

#include <boost/json/serialize.hpp>
#include <chrono>
#include <random>

#include "core/hex.h"
#include "core/timestamp.h"
#include "core/utf8.h"

namespace licensed {

std::string new_sentry_event_id() {
  uint8_t b[16];
  if (RAND_bytes(b, sizeof b) != 1) {
    // Only uniqueness matters for an event id; a failing RNG must not lose the report.
    std::random_device rd;
    std::mt19937_64 gen(
        rd() ^ static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
    for (auto& x : b) x = static_cast<uint8_t>(gen());
  }
  b[6] = static_cast<uint8_t>((b[6] & 0x0F) | 0x40);  // version 4
  b[8] = static_cast<uint8_t>((b[8] & 0x3F) | 0x80);  // variant 10
  return to_hex(b, sizeof b);
}

boost::json::object sentry_event(const ErrorReport& report, std::string_view event_id,
                                 const SentryClientInfo& client) {
  boost::json::object event;
  event["event_id"] = event_id;
  event["timestamp"] = format_timestamp(report.at);
  event["platform"] = "native";
  event["level"] = "error";
  event["logger"] = client.name;
  event["server_name"] = valid_utf8(client.server_name);
  event["release"] = client.name + "@" + client.version;
  event["message"] = boost::json::object{{"formatted", valid_utf8(report.message)}};
  if (!report.route.empty()) event["transaction"] = valid_utf8(report.route);
  boost::json::object tags;
  tags["request_id"] = valid_utf8(report.request_id);
  if (!report.endpoint.empty()) tags["endpoint"] = valid_utf8(report.endpoint);
  if (!report.route.empty()) tags["route"] = valid_utf8(report.route);
  tags["error_code"] = std::to_string(report.error_code);
  event["tags"] = std::move(tags);
  if (!report.masked_license_key.empty()) {
    event["extra"] = boost::json::object{{"license_key", valid_utf8(report.masked_license_key)}};
  }
  event["sdk"] = boost::json::object{{"name", client.name}, {"version", client.version}};
  return event;
}

std::string sentry_envelope(const SentryDsn& dsn, std::string_view event_id, UnixMillis sent_at,
                            const SentryClientInfo& client, std::string_view event_json) {
  boost::json::object header;
  header["event_id"] = event_id;
  header["dsn"] = dsn.to_string();
  header["sent_at"] = format_timestamp(sent_at);
  header["sdk"] = boost::json::object{{"name", client.name}, {"version", client.version}};
  boost::json::object item;
  item["type"] = "event";
  item["length"] = event_json.size();
  item["content_type"] = "application/json";
  std::string out = boost::json::serialize(header);
  out += '\n';
  out += boost::json::serialize(item);
  out += '\n';
  out += event_json;
  out += '\n';
  return out;
}

std::string sentry_auth_header(const SentryDsn& dsn, const SentryClientInfo& client) {
  return "Sentry sentry_version=7, sentry_key=" + dsn.public_key +
         ", sentry_client=" + client.name + "/" + client.version;
}

}  // namespace licensed
