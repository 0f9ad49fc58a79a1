// SqliteTx's part for webhooks (docs/protocol.md §25): endpoints and their secrets, the outbox of
// events and deliveries, and the marks that keep a sweep's event once. Every write runs on
// the single writer (in this process or another: BEGIN IMMEDIATE locks the file), so a
// claim is never made twice.
#include <string>

#include "store/sqlite/sqlite_tx.h"

namespace licensed {
namespace {

constexpr const char* kSelectEndpoints =
    "SELECT id, url, description, events, enabled, failing_since, disabled_reason, created_at"
    " FROM webhook_endpoints";

constexpr const char* kSelectDeliveries =
    "SELECT d.event_id, d.endpoint_id, e.type, e.at, d.attempts, d.next_attempt_at,"
    " d.last_status, d.last_error, d.delivered_at, d.failed"
    " FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id";

WebhookEndpoint read_endpoint(const Statement& s) {
  WebhookEndpoint w;
  w.id = s.int64(0);
  w.url = s.text(1);
  w.description = s.text(2);
  w.events = webhook_events_from_store(s.text(3));
  w.enabled = s.int64(4) != 0;
  w.failing_since = s.optional_int64(5);
  w.disabled_reason = s.optional_text(6);
  w.created_at = s.int64(7);
  return w;
}

WebhookDelivery read_delivery(const Statement& s) {
  WebhookDelivery d;
  d.event_id = s.int64(0);
  d.endpoint_id = s.int64(1);
  d.type = s.text(2);
  d.event_at = s.int64(3);
  d.attempts = s.int64(4);
  d.next_attempt_at = s.optional_int64(5);
  d.last_status = s.optional_int64(6);
  d.last_error = s.optional_text(7);
  d.delivered_at = s.optional_int64(8);
  d.failed = s.int64(9) != 0;
  return d;
}

Result<std::vector<WebhookDelivery>> read_deliveries(Statement& s, std::string_view what) {
  std::vector<WebhookDelivery> out;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) out.push_back(read_delivery(s));
  if (rc != SQLITE_DONE) return s.failure(rc, what);
  return out;
}

}  // namespace

Status SqliteTx::insert_webhook_event(std::string_view type, UnixMillis at, std::string_view body) {
  ASSIGN_OR_RETURN(auto ev,
                   conn_.prepare("INSERT INTO webhook_events (type, at, body) SELECT ?1, ?2, ?3"
                                 " WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE enabled = 1"
                                 " AND (events = '*' OR instr(events, ',' || ?1 || ',') > 0))"));
  ev->bind(1, type).bind(2, at).bind(3, body);
  RETURN_IF_ERROR(ev->run("insert webhook event"));
  if (sqlite3_changes(conn_.handle()) == 0) return Ok{};
  const int64_t event_id = sqlite3_last_insert_rowid(conn_.handle());
  ASSIGN_OR_RETURN(auto d,
                   conn_.prepare("INSERT INTO webhook_deliveries (endpoint_id, event_id,"
                                 " next_attempt_at) SELECT id, ?2, ?3 FROM webhook_endpoints"
                                 " WHERE enabled = 1"
                                 " AND (events = '*' OR instr(events, ',' || ?1 || ',') > 0)"));
  d->bind(1, type).bind(2, event_id).bind(3, at);
  return d->run("insert webhook deliveries");
}

Result<bool> SqliteTx::take_webhook_mark(std::string_view mark, UnixMillis now,
                                         std::optional<int64_t> renew_after_ms) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO webhook_marks (mark, at) VALUES (?1, ?2)"
                                         " ON CONFLICT (mark) DO UPDATE SET at = ?2"
                                         " WHERE ?3 IS NOT NULL AND webhook_marks.at <= ?2 - ?3"));
  s->bind(1, mark).bind(2, now).bind(3, renew_after_ms);
  RETURN_IF_ERROR(s->run("take webhook mark"));
  return sqlite3_changes(conn_.handle()) > 0;
}

Result<WebhookEndpoint> SqliteTx::insert_webhook_endpoint(const WebhookEndpoint& endpoint) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO webhook_endpoints (url, description,"
                                         " events, enabled, created_at) VALUES (?, ?, ?, ?, ?)"));
  s->bind(1, std::string_view(endpoint.url)).bind(2, std::string_view(endpoint.description));
  s->bind(3, std::string_view(webhook_events_to_store(endpoint.events)));
  s->bind(4, static_cast<int64_t>(endpoint.enabled ? 1 : 0)).bind(5, endpoint.created_at);
  RETURN_IF_ERROR(s->run("insert webhook endpoint"));
  WebhookEndpoint out = endpoint;
  out.id = sqlite3_last_insert_rowid(conn_.handle());
  for (const auto& secret : endpoint.secrets) {
    ASSIGN_OR_RETURN(auto k, conn_.prepare("INSERT INTO webhook_secrets (endpoint_id, secret,"
                                           " created_at, retires_at) VALUES (?, ?, ?, ?)"));
    k->bind(1, out.id).bind(2, std::string_view(secret.secret)).bind(3, secret.created_at);
    k->bind(4, secret.retires_at);
    RETURN_IF_ERROR(k->run("insert webhook secret"));
  }
  return out;
}

Status SqliteTx::load_webhook_secrets(WebhookEndpoint& endpoint, UnixMillis now) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT secret, created_at, retires_at"
                                         " FROM webhook_secrets WHERE endpoint_id = ?"
                                         " AND (retires_at IS NULL OR retires_at > ?)"
                                         " ORDER BY created_at DESC, secret"));
  s->bind(1, endpoint.id).bind(2, now);
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) {
    endpoint.secrets.push_back(WebhookSecret{s->text(0), s->int64(1), s->optional_int64(2)});
  }
  if (rc != SQLITE_DONE) return s->failure(rc, "read webhook secrets");
  return Ok{};
}

Result<std::optional<WebhookEndpoint>> SqliteTx::find_webhook_endpoint(int64_t id, UnixMillis now) {
  ASSIGN_OR_RETURN(auto s,
                   conn_.prepare((std::string(kSelectEndpoints) + " WHERE id = ?").c_str()));
  s->bind(1, id);
  const int rc = s->step();
  if (rc == SQLITE_DONE) return std::optional<WebhookEndpoint>();
  if (rc != SQLITE_ROW) return s->failure(rc, "find webhook endpoint");
  WebhookEndpoint w = read_endpoint(*s);
  RETURN_IF_ERROR(load_webhook_secrets(w, now));
  return std::optional<WebhookEndpoint>(std::move(w));
}

Result<std::vector<WebhookEndpoint>> SqliteTx::list_webhook_endpoints(UnixMillis now) {
  std::vector<WebhookEndpoint> out;
  {
    ASSIGN_OR_RETURN(auto s,
                     conn_.prepare((std::string(kSelectEndpoints) + " ORDER BY id").c_str()));
    int rc;
    while ((rc = s->step()) == SQLITE_ROW) out.push_back(read_endpoint(*s));
    if (rc != SQLITE_DONE) return s->failure(rc, "list webhook endpoints");
  }
  for (auto& w : out) RETURN_IF_ERROR(load_webhook_secrets(w, now));
  return out;
}

Status SqliteTx::update_webhook_endpoint(const WebhookEndpoint& endpoint) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("UPDATE webhook_endpoints SET url = ?, description = ?,"
                                         " events = ?, enabled = ?, failing_since = ?,"
                                         " disabled_reason = ? WHERE id = ?"));
  s->bind(1, std::string_view(endpoint.url)).bind(2, std::string_view(endpoint.description));
  s->bind(3, std::string_view(webhook_events_to_store(endpoint.events)));
  s->bind(4, static_cast<int64_t>(endpoint.enabled ? 1 : 0)).bind(5, endpoint.failing_since);
  s->bind(6, endpoint.disabled_reason).bind(7, endpoint.id);
  return s->run("update webhook endpoint");
}

Result<bool> SqliteTx::delete_webhook_endpoint(int64_t id) {
  for (const char* sql : {"DELETE FROM webhook_deliveries WHERE endpoint_id = ?",
                          "DELETE FROM webhook_secrets WHERE endpoint_id = ?"}) {
    ASSIGN_OR_RETURN(auto s, conn_.prepare(sql));
    RETURN_IF_ERROR(s->bind(1, id).run("forget webhook endpoint"));
  }
  ASSIGN_OR_RETURN(auto s, conn_.prepare("DELETE FROM webhook_endpoints WHERE id = ?"));
  RETURN_IF_ERROR(s->bind(1, id).run("delete webhook endpoint"));
  return sqlite3_changes(conn_.handle()) > 0;
}

Status SqliteTx::rotate_webhook_secret(int64_t id, std::string_view secret, UnixMillis now,
                                       UnixMillis old_retire_at) {
  ASSIGN_OR_RETURN(auto retire, conn_.prepare("UPDATE webhook_secrets SET retires_at = ?2"
                                              " WHERE endpoint_id = ?1"
                                              " AND (retires_at IS NULL OR retires_at > ?2)"));
  RETURN_IF_ERROR(retire->bind(1, id).bind(2, old_retire_at).run("retire webhook secrets"));
  ASSIGN_OR_RETURN(auto forget, conn_.prepare("DELETE FROM webhook_secrets WHERE endpoint_id = ?"
                                              " AND retires_at <= ?"));
  RETURN_IF_ERROR(forget->bind(1, id).bind(2, now).run("forget retired webhook secrets"));
  ASSIGN_OR_RETURN(auto add, conn_.prepare("INSERT INTO webhook_secrets (endpoint_id, secret,"
                                           " created_at) VALUES (?, ?, ?)"));
  return add->bind(1, id).bind(2, secret).bind(3, now).run("add webhook secret");
}

Result<std::vector<WebhookDelivery>> SqliteTx::claim_webhook_deliveries(UnixMillis now,
                                                                        UnixMillis claim_until,
                                                                        int64_t limit) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare((std::string(kSelectDeliveries) +
                                          " JOIN webhook_endpoints w ON w.id = d.endpoint_id"
                                          " WHERE d.next_attempt_at <= ? AND w.enabled = 1"
                                          " ORDER BY d.next_attempt_at LIMIT ?")
                                             .c_str()));
  s->bind(1, now).bind(2, limit);
  ASSIGN_OR_RETURN(auto due, read_deliveries(*s, "find due webhook deliveries"));
  for (auto& d : due) {
    ASSIGN_OR_RETURN(auto claim, conn_.prepare("UPDATE webhook_deliveries SET next_attempt_at = ?"
                                               " WHERE endpoint_id = ? AND event_id = ?"));
    claim->bind(1, claim_until).bind(2, d.endpoint_id).bind(3, d.event_id);
    RETURN_IF_ERROR(claim->run("claim webhook delivery"));
    d.next_attempt_at = claim_until;
  }
  return due;
}

Result<std::optional<WebhookEventRecord>> SqliteTx::find_webhook_event(int64_t event_id) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT id, type, at, body FROM webhook_events"
                                         " WHERE id = ?"));
  s->bind(1, event_id);
  const int rc = s->step();
  if (rc == SQLITE_DONE) return std::optional<WebhookEventRecord>();
  if (rc != SQLITE_ROW) return s->failure(rc, "find webhook event");
  return std::optional<WebhookEventRecord>(
      WebhookEventRecord{s->int64(0), s->text(1), s->int64(2), s->text(3)});
}

Status SqliteTx::record_webhook_attempt(const WebhookDelivery& d) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("UPDATE webhook_deliveries SET attempts = ?,"
                                         " next_attempt_at = ?, last_status = ?, last_error = ?,"
                                         " delivered_at = ?, failed = ?"
                                         " WHERE endpoint_id = ? AND event_id = ?"));
  s->bind(1, d.attempts).bind(2, d.next_attempt_at).bind(3, d.last_status);
  s->bind(4, d.last_error).bind(5, d.delivered_at).bind(6, static_cast<int64_t>(d.failed ? 1 : 0));
  s->bind(7, d.endpoint_id).bind(8, d.event_id);
  return s->run("record webhook attempt");
}

Result<std::vector<WebhookDelivery>> SqliteTx::list_webhook_deliveries(int64_t endpoint_id,
                                                                       int64_t before_event_id,
                                                                       int64_t limit) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare((std::string(kSelectDeliveries) +
                                          " WHERE d.endpoint_id = ? AND d.event_id < ?"
                                          " ORDER BY d.event_id DESC LIMIT ?")
                                             .c_str()));
  s->bind(1, endpoint_id).bind(2, before_event_id == 0 ? INT64_MAX : before_event_id);
  s->bind(3, limit);
  return read_deliveries(*s, "list webhook deliveries");
}

Result<bool> SqliteTx::retry_webhook_delivery(int64_t endpoint_id, int64_t event_id,
                                              UnixMillis now) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("UPDATE webhook_deliveries SET next_attempt_at = ?,"
                                         " failed = 0 WHERE endpoint_id = ? AND event_id = ?"));
  RETURN_IF_ERROR(s->bind(1, now).bind(2, endpoint_id).bind(3, event_id).run("retry delivery"));
  return sqlite3_changes(conn_.handle()) > 0;
}

Result<WebhookOutboxStats> SqliteTx::webhook_outbox_stats() {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT COUNT(*), MIN(e.at) FROM webhook_deliveries d"
                                         " JOIN webhook_events e ON e.id = d.event_id"
                                         " WHERE d.next_attempt_at IS NOT NULL"));
  const int rc = s->step();
  if (rc != SQLITE_ROW) return s->failure(rc, "webhook outbox stats");
  return WebhookOutboxStats{s->int64(0), s->optional_int64(1)};
}

Result<int64_t> SqliteTx::prune_webhook_outbox(UnixMillis done_before, UnixMillis all_before) {
  ASSIGN_OR_RETURN(auto done, conn_.prepare("DELETE FROM webhook_deliveries WHERE event_id IN"
                                            " (SELECT id FROM webhook_events WHERE at < ?)"
                                            " AND next_attempt_at IS NULL"));
  RETURN_IF_ERROR(done->bind(1, done_before).run("prune webhook deliveries"));
  ASSIGN_OR_RETURN(auto old, conn_.prepare("DELETE FROM webhook_deliveries WHERE event_id IN"
                                           " (SELECT id FROM webhook_events WHERE at < ?)"));
  RETURN_IF_ERROR(old->bind(1, all_before).run("prune old webhook deliveries"));
  ASSIGN_OR_RETURN(auto events, conn_.prepare("DELETE FROM webhook_events WHERE at < ? AND"
                                              " NOT EXISTS (SELECT 1 FROM webhook_deliveries d"
                                              " WHERE d.event_id = webhook_events.id)"));
  RETURN_IF_ERROR(events->bind(1, done_before).run("prune webhook events"));
  const int64_t pruned = sqlite3_changes(conn_.handle());
  ASSIGN_OR_RETURN(auto marks, conn_.prepare("DELETE FROM webhook_marks WHERE at < ?"));
  RETURN_IF_ERROR(marks->bind(1, all_before).run("prune webhook marks"));
  return pruned;
}

}  // namespace licensed
