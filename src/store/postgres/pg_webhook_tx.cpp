// PgTx's part for webhooks (docs/protocol.md §25). Two instances on one database claim deliveries
// with FOR UPDATE SKIP LOCKED: each takes rows the other has not locked, and a claimed row's
// next_attempt_at moves past its attempt, so no other instance attempts it meanwhile.
// An event and its deliveries are one statement (a data-modifying WITH) sent with the
// transaction's next round trip, so reporting a change costs no round trip of its own.
#include <string>

#include "store/postgres/pg_tx.h"

namespace licensed {
namespace {

constexpr const char* kSelectEndpoints =
    "SELECT id, url, description, events, enabled, failing_since, disabled_reason, created_at"
    " FROM webhook_endpoints";

constexpr const char* kDeliveryColumns =
    "d.event_id, d.endpoint_id, e.type, e.at, d.attempts, d.next_attempt_at,"
    " d.last_status, d.last_error, d.delivered_at, d.failed";

// An enabled endpoint that takes the type in $1.
constexpr const char* kTakesType =
    "enabled AND (events = '*' OR strpos(events, ',' || $1::text || ',') > 0)";

WebhookEndpoint read_endpoint(const PgResult& r, int row) {
  WebhookEndpoint w;
  w.id = r.int64(row, 0);
  w.url = r.text(row, 1);
  w.description = r.text(row, 2);
  w.events = webhook_events_from_store(r.text(row, 3));
  w.enabled = r.boolean(row, 4);
  w.failing_since = r.optional_int64(row, 5);
  w.disabled_reason = r.optional_text(row, 6);
  w.created_at = r.int64(row, 7);
  return w;
}

std::vector<WebhookDelivery> read_deliveries(const PgResult& r) {
  std::vector<WebhookDelivery> out;
  for (int i = 0; i < r.rows(); ++i) {
    WebhookDelivery d;
    d.event_id = r.int64(i, 0);
    d.endpoint_id = r.int64(i, 1);
    d.type = r.text(i, 2);
    d.event_at = r.int64(i, 3);
    d.attempts = r.int64(i, 4);
    d.next_attempt_at = r.optional_int64(i, 5);
    d.last_status = r.optional_int64(i, 6);
    d.last_error = r.optional_text(i, 7);
    d.delivered_at = r.optional_int64(i, 8);
    d.failed = r.boolean(i, 9);
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

Status PgTx::insert_webhook_event(std::string_view type, UnixMillis at, std::string_view body) {
  static const std::string sql =
      std::string("WITH ep AS (SELECT id FROM webhook_endpoints WHERE ") + kTakesType +
      "), ev AS (INSERT INTO webhook_events (type, at, body)"
      " SELECT $1::text, $2::bigint, $3::text WHERE EXISTS (SELECT 1 FROM ep) RETURNING id)"
      " INSERT INTO webhook_deliveries (endpoint_id, event_id, next_attempt_at)"
      " SELECT ep.id, ev.id, $2::bigint FROM ep, ev";
  conn_.defer(sql, PgParams().add(type).add(at).add(body), "insert webhook event");
  return Ok{};
}

Result<bool> PgTx::take_webhook_mark(std::string_view mark, UnixMillis now,
                                     std::optional<int64_t> renew_after_ms) {
  ASSIGN_OR_RETURN(
      auto r, conn_.query("INSERT INTO webhook_marks (mark, at) VALUES ($1, $2)"
                          " ON CONFLICT (mark) DO UPDATE SET at = $2"
                          " WHERE $3::bigint IS NOT NULL"
                          " AND webhook_marks.at <= $2 - $3::bigint RETURNING mark",
                          PgParams().add(mark).add(now).add(renew_after_ms), "take webhook mark"));
  return r.rows() > 0;
}

Result<WebhookEndpoint> PgTx::insert_webhook_endpoint(const WebhookEndpoint& endpoint) {
  PgParams p;
  p.add(std::string_view(endpoint.url)).add(std::string_view(endpoint.description));
  p.add(std::string_view(webhook_events_to_store(endpoint.events)))
      .add(endpoint.enabled)
      .add(endpoint.created_at);
  ASSIGN_OR_RETURN(auto r, conn_.query("INSERT INTO webhook_endpoints (url, description, events,"
                                       " enabled, created_at) VALUES ($1, $2, $3, $4, $5)"
                                       " RETURNING id",
                                       p, "insert webhook endpoint"));
  WebhookEndpoint out = endpoint;
  out.id = r.int64(0, 0);
  for (const auto& secret : endpoint.secrets) {
    PgParams k;
    k.add(out.id).add(std::string_view(secret.secret)).add(secret.created_at);
    k.add(secret.retires_at);
    RETURN_IF_ERROR(
        conn_.run("INSERT INTO webhook_secrets (endpoint_id, secret, created_at,"
                  " retires_at) VALUES ($1, $2, $3, $4)",
                  k, "insert webhook secret"));
  }
  return out;
}

Status PgTx::load_webhook_secrets(WebhookEndpoint& endpoint, UnixMillis now) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("SELECT secret, created_at, retires_at FROM webhook_secrets"
                               " WHERE endpoint_id = $1"
                               " AND (retires_at IS NULL OR retires_at > $2)"
                               " ORDER BY created_at DESC, secret COLLATE \"C\"",
                               PgParams().add(endpoint.id).add(now), "read webhook secrets"));
  for (int i = 0; i < r.rows(); ++i) {
    endpoint.secrets.push_back(WebhookSecret{r.text(i, 0), r.int64(i, 1), r.optional_int64(i, 2)});
  }
  return Ok{};
}

Result<std::optional<WebhookEndpoint>> PgTx::find_webhook_endpoint(int64_t id, UnixMillis now) {
  ASSIGN_OR_RETURN(auto r, conn_.query(std::string(kSelectEndpoints) + " WHERE id = $1",
                                       PgParams().add(id), "find webhook endpoint"));
  if (r.rows() == 0) return std::optional<WebhookEndpoint>();
  WebhookEndpoint w = read_endpoint(r, 0);
  RETURN_IF_ERROR(load_webhook_secrets(w, now));
  return std::optional<WebhookEndpoint>(std::move(w));
}

Result<std::vector<WebhookEndpoint>> PgTx::list_webhook_endpoints(UnixMillis now) {
  ASSIGN_OR_RETURN(auto r, conn_.query(std::string(kSelectEndpoints) + " ORDER BY id", PgParams(),
                                       "list webhook endpoints"));
  std::vector<WebhookEndpoint> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(read_endpoint(r, i));
  for (auto& w : out) RETURN_IF_ERROR(load_webhook_secrets(w, now));
  return out;
}

Status PgTx::update_webhook_endpoint(const WebhookEndpoint& endpoint) {
  PgParams p;
  p.add(std::string_view(endpoint.url)).add(std::string_view(endpoint.description));
  p.add(std::string_view(webhook_events_to_store(endpoint.events))).add(endpoint.enabled);
  p.add(endpoint.failing_since).add(endpoint.disabled_reason).add(endpoint.id);
  return conn_.run(
      "UPDATE webhook_endpoints SET url = $1, description = $2, events = $3,"
      " enabled = $4, failing_since = $5, disabled_reason = $6 WHERE id = $7",
      p, "update webhook endpoint");
}

Result<bool> PgTx::delete_webhook_endpoint(int64_t id) {
  RETURN_IF_ERROR(conn_.run("DELETE FROM webhook_deliveries WHERE endpoint_id = $1",
                            PgParams().add(id), "forget webhook deliveries"));
  RETURN_IF_ERROR(conn_.run("DELETE FROM webhook_secrets WHERE endpoint_id = $1",
                            PgParams().add(id), "forget webhook secrets"));
  ASSIGN_OR_RETURN(auto r, conn_.query("DELETE FROM webhook_endpoints WHERE id = $1",
                                       PgParams().add(id), "delete webhook endpoint"));
  return r.affected() > 0;
}

Status PgTx::rotate_webhook_secret(int64_t id, std::string_view secret, UnixMillis now,
                                   UnixMillis old_retire_at) {
  RETURN_IF_ERROR(
      conn_.run("UPDATE webhook_secrets SET retires_at = $2 WHERE endpoint_id = $1"
                " AND (retires_at IS NULL OR retires_at > $2)",
                PgParams().add(id).add(old_retire_at), "retire webhook secrets"));
  RETURN_IF_ERROR(
      conn_.run("DELETE FROM webhook_secrets WHERE endpoint_id = $1"
                " AND retires_at <= $2",
                PgParams().add(id).add(now), "forget retired webhook secrets"));
  return conn_.run(
      "INSERT INTO webhook_secrets (endpoint_id, secret, created_at)"
      " VALUES ($1, $2, $3)",
      PgParams().add(id).add(secret).add(now), "add webhook secret");
}

Result<std::vector<WebhookDelivery>> PgTx::claim_webhook_deliveries(UnixMillis now,
                                                                    UnixMillis claim_until,
                                                                    int64_t limit) {
  static const std::string sql =
      std::string(
          "UPDATE webhook_deliveries d SET next_attempt_at = $2 FROM webhook_events e"
          " WHERE e.id = d.event_id AND d.next_attempt_at <= $1"
          " AND (d.endpoint_id, d.event_id) IN (SELECT c.endpoint_id, c.event_id"
          " FROM webhook_deliveries c JOIN webhook_endpoints w ON w.id = c.endpoint_id"
          " WHERE c.next_attempt_at <= $1 AND w.enabled"
          " ORDER BY c.next_attempt_at LIMIT $3 FOR UPDATE OF c SKIP LOCKED)"
          " RETURNING ") +
      kDeliveryColumns;
  ASSIGN_OR_RETURN(auto r, conn_.query(sql, PgParams().add(now).add(claim_until).add(limit),
                                       "claim webhook deliveries"));
  return read_deliveries(r);
}

Result<std::optional<WebhookEventRecord>> PgTx::find_webhook_event(int64_t event_id) {
  ASSIGN_OR_RETURN(auto r, conn_.query("SELECT id, type, at, body FROM webhook_events"
                                       " WHERE id = $1",
                                       PgParams().add(event_id), "find webhook event"));
  if (r.rows() == 0) return std::optional<WebhookEventRecord>();
  return std::optional<WebhookEventRecord>(
      WebhookEventRecord{r.int64(0, 0), r.text(0, 1), r.int64(0, 2), r.text(0, 3)});
}

Status PgTx::record_webhook_attempt(const WebhookDelivery& d) {
  PgParams p;
  p.add(d.attempts).add(d.next_attempt_at).add(d.last_status).add(d.last_error);
  p.add(d.delivered_at).add(d.failed).add(d.endpoint_id).add(d.event_id);
  return conn_.run(
      "UPDATE webhook_deliveries SET attempts = $1, next_attempt_at = $2,"
      " last_status = $3, last_error = $4, delivered_at = $5, failed = $6"
      " WHERE endpoint_id = $7 AND event_id = $8",
      p, "record webhook attempt");
}

Result<std::vector<WebhookDelivery>> PgTx::list_webhook_deliveries(int64_t endpoint_id,
                                                                   int64_t before_event_id,
                                                                   int64_t limit) {
  PgParams p;
  p.add(endpoint_id).add(before_event_id == 0 ? INT64_MAX : before_event_id).add(limit);
  ASSIGN_OR_RETURN(auto r, conn_.query(std::string("SELECT ") + kDeliveryColumns +
                                           " FROM webhook_deliveries d JOIN webhook_events e"
                                           " ON e.id = d.event_id WHERE d.endpoint_id = $1"
                                           " AND d.event_id < $2 ORDER BY d.event_id DESC"
                                           " LIMIT $3",
                                       p, "list webhook deliveries"));
  return read_deliveries(r);
}

Result<bool> PgTx::retry_webhook_delivery(int64_t endpoint_id, int64_t event_id, UnixMillis now) {
  ASSIGN_OR_RETURN(auto r, conn_.query("UPDATE webhook_deliveries SET next_attempt_at = $1,"
                                       " failed = FALSE WHERE endpoint_id = $2 AND event_id = $3",
                                       PgParams().add(now).add(endpoint_id).add(event_id),
                                       "retry webhook delivery"));
  return r.affected() > 0;
}

Result<WebhookOutboxStats> PgTx::webhook_outbox_stats() {
  ASSIGN_OR_RETURN(auto r, conn_.query("SELECT COUNT(*), MIN(e.at) FROM webhook_deliveries d"
                                       " JOIN webhook_events e ON e.id = d.event_id"
                                       " WHERE d.next_attempt_at IS NOT NULL",
                                       PgParams(), "webhook outbox stats"));
  return WebhookOutboxStats{r.int64(0, 0), r.optional_int64(0, 1)};
}

Result<int64_t> PgTx::prune_webhook_outbox(UnixMillis done_before, UnixMillis all_before) {
  RETURN_IF_ERROR(
      conn_.run("DELETE FROM webhook_deliveries WHERE event_id IN"
                " (SELECT id FROM webhook_events WHERE at < $1)"
                " AND next_attempt_at IS NULL",
                PgParams().add(done_before), "prune webhook deliveries"));
  RETURN_IF_ERROR(
      conn_.run("DELETE FROM webhook_deliveries WHERE event_id IN"
                " (SELECT id FROM webhook_events WHERE at < $1)",
                PgParams().add(all_before), "prune old webhook deliveries"));
  ASSIGN_OR_RETURN(auto r, conn_.query("DELETE FROM webhook_events e WHERE e.at < $1 AND NOT"
                                       " EXISTS (SELECT 1 FROM webhook_deliveries d"
                                       " WHERE d.event_id = e.id)",
                                       PgParams().add(done_before), "prune webhook events"));
  RETURN_IF_ERROR(conn_.run("DELETE FROM webhook_marks WHERE at < $1", PgParams().add(all_before),
                            "prune webhook marks"));
  return r.affected();
}

}  // namespace licensed
