// SqliteTx's part for the support console (docs/protocol.md §26): refused requests, kept
// 30 days and 1,000 per license, and the vendor overview's figures. Days are UTC days,
// `at / 86400000`, the same integer division on both stores.
#include <string>

#include "store/sqlite/sqlite_tx.h"

namespace licensed {
namespace {

constexpr const char* kSelectRefusals =
    "SELECT id, at, code, license_key, machine_id, machine_name, ip, key_id, request_id"
    " FROM refusals";

Refusal read_refusal(const Statement& s) {
  Refusal r;
  r.id = s.int64(0);
  r.at = s.int64(1);
  r.code = static_cast<int>(s.int64(2));
  r.license_key = s.text(3);
  r.machine_id = s.optional_text(4);
  r.machine_name = s.optional_text(5);
  r.ip = s.optional_text(6);
  r.key_id = s.optional_text(7);
  r.request_id = s.optional_text(8);
  return r;
}

Result<std::vector<DayCount>> read_day_counts(Statement& s, std::string_view what) {
  std::vector<DayCount> out;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) out.push_back(DayCount{s.int64(0), s.text(1), s.int64(2)});
  if (rc != SQLITE_DONE) return s.failure(rc, what);
  return out;
}

}  // namespace

Status SqliteTx::insert_refusal(const Refusal& r) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO refusals (at, code, license_key, machine_id,"
                                         " machine_name, ip, key_id, request_id)"
                                         " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
  s->bind(1, r.at).bind(2, static_cast<int64_t>(r.code)).bind(3, std::string_view(r.license_key));
  s->bind(4, r.machine_id).bind(5, r.machine_name).bind(6, r.ip).bind(7, r.key_id);
  s->bind(8, r.request_id);
  RETURN_IF_ERROR(s->run("insert refusal"));
  ASSIGN_OR_RETURN(auto old, conn_.prepare("DELETE FROM refusals WHERE at < ?"));
  old->bind(1, r.at - kRefusalsKeptMillis);
  RETURN_IF_ERROR(old->run("forget old refusals"));
  // NULL (fewer than the cap) deletes nothing.
  ASSIGN_OR_RETURN(auto extra,
                   conn_.prepare("DELETE FROM refusals WHERE license_key = ?1 AND id <= (SELECT id"
                                 " FROM refusals WHERE license_key = ?1 ORDER BY id DESC"
                                 " LIMIT 1 OFFSET ?2)"));
  extra->bind(1, std::string_view(r.license_key)).bind(2, kRefusalsKeptPerLicense);
  return extra->run("forget refusals beyond the cap");
}

Result<std::vector<Refusal>> SqliteTx::list_refusals(std::string_view license_key, UnixMillis since,
                                                     int64_t before_id, int64_t limit) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare((std::string(kSelectRefusals) +
                                          " WHERE license_key = ? AND id < ? AND at >= ?"
                                          " ORDER BY id DESC LIMIT ?")
                                             .c_str()));
  s->bind(1, license_key).bind(2, before_id == 0 ? INT64_MAX : before_id).bind(3, since);
  s->bind(4, limit);
  std::vector<Refusal> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) out.push_back(read_refusal(*s));
  if (rc != SQLITE_DONE) return s->failure(rc, "list refusals");
  return out;
}

Result<std::vector<std::pair<std::string, int64_t>>> SqliteTx::count_licenses_by_status(
    UnixMillis now) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT CASE WHEN status = 'ACTIVE' AND expires_at IS NOT"
                                         " NULL AND expires_at <= ?1 THEN 'EXPIRED' ELSE status"
                                         " END AS shown, COUNT(*) FROM licenses"
                                         " WHERE deleted_at IS NULL GROUP BY shown"));
  s->bind(1, now);
  std::vector<std::pair<std::string, int64_t>> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) out.emplace_back(s->text(0), s->int64(1));
  if (rc != SQLITE_DONE) return s->failure(rc, "count licenses by status");
  return out;
}

Result<std::vector<DayCount>> SqliteTx::count_activations_per_day(UnixMillis since) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT at / 86400000 AS day, 'activations', COUNT(*)"
                                         " FROM audit_log WHERE action = 'license.activate'"
                                         " AND at >= ? AND refresh = 0 GROUP BY day ORDER BY day"));
  s->bind(1, since);
  return read_day_counts(*s, "count activations per day");
}

Result<std::vector<DayCount>> SqliteTx::count_refusals_per_day(UnixMillis since) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT at / 86400000 AS day, CAST(code AS TEXT),"
                                         " COUNT(*) FROM refusals WHERE at >= ?"
                                         " GROUP BY day, code ORDER BY day, code"));
  s->bind(1, since);
  return read_day_counts(*s, "count refusals per day");
}

Result<std::vector<TrialStart>> SqliteTx::list_trials_since(UnixMillis since) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT product_id, machine_hmac, license_key, created_at"
                                         " FROM trials WHERE created_at >= ? ORDER BY created_at"));
  s->bind(1, since);
  std::vector<TrialStart> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) {
    out.push_back(TrialStart{s->int64(0), s->text(1), s->text(2), s->int64(3)});
  }
  if (rc != SQLITE_DONE) return s->failure(rc, "list trials");
  return out;
}

Result<std::vector<PaidActivation>> SqliteTx::list_paid_activations_since(UnixMillis since) {
  ASSIGN_OR_RETURN(auto s,
                   conn_.prepare("SELECT l.product_id, a.machine_id, a.activated_at"
                                 " FROM activations a JOIN licenses l ON l.id ="
                                 " a.license_id WHERE l.trial = 0 AND a.activated_at >= ?"));
  s->bind(1, since);
  std::vector<PaidActivation> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) {
    out.push_back(PaidActivation{s->int64(0), s->text(1), s->int64(2)});
  }
  if (rc != SQLITE_DONE) return s->failure(rc, "list paid activations");
  return out;
}

// holds_slot (core/license.h) in SQL, with each license's own machineTtl.
Result<std::vector<CapUse>> SqliteTx::licenses_nearest_cap(UnixMillis now, int64_t limit) {
  ASSIGN_OR_RETURN(
      auto s,
      conn_.prepare("SELECT l.license_key, p.slug, COUNT(*) AS used, l.max_activations"
                    " FROM licenses l JOIN products p ON p.id = l.product_id"
                    " JOIN activations a ON a.license_id = l.id"
                    " WHERE l.deleted_at IS NULL AND l.status = 'ACTIVE' AND l.max_activations > 0"
                    " AND (l.expires_at IS NULL OR l.expires_at > ?1)"
                    " AND CASE WHEN a.offline_until IS NOT NULL THEN a.offline_until > ?1"
                    " ELSE (l.machine_ttl IS NULL OR a.last_seen_at >= ?1 - l.machine_ttl * 1000)"
                    " END GROUP BY l.id"
                    " ORDER BY CAST(COUNT(*) AS REAL) / l.max_activations DESC, used DESC, l.id"
                    " LIMIT ?2"));
  s->bind(1, now).bind(2, limit);
  std::vector<CapUse> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) {
    out.push_back(CapUse{s->text(0), s->text(1), s->int64(2), s->int64(3)});
  }
  if (rc != SQLITE_DONE) return s->failure(rc, "licenses nearest their cap");
  return out;
}

}  // namespace licensed
