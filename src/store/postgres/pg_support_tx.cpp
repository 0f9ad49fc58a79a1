// PgTx's part for the support console (docs/protocol.md §26); see sqlite_support_tx.cpp.
#include <string>

#include "store/postgres/pg_tx.h"

namespace licensed {
namespace {

constexpr const char* kSelectRefusals =
    "SELECT id, at, code, license_key, machine_id, machine_name, ip, key_id, request_id"
    " FROM refusals";

Refusal read_refusal(const PgResult& r, int row) {
  Refusal out;
  out.id = r.int64(row, 0);
  out.at = r.int64(row, 1);
  out.code = static_cast<int>(r.int64(row, 2));
  out.license_key = r.text(row, 3);
  out.machine_id = r.optional_text(row, 4);
  out.machine_name = r.optional_text(row, 5);
  out.ip = r.optional_text(row, 6);
  out.key_id = r.optional_text(row, 7);
  out.request_id = r.optional_text(row, 8);
  return out;
}

std::vector<DayCount> read_day_counts(const PgResult& r) {
  std::vector<DayCount> out;
  for (int i = 0; i < r.rows(); ++i) {
    out.push_back(DayCount{r.int64(i, 0), r.text(i, 1), r.int64(i, 2)});
  }
  return out;
}

}  // namespace

Status PgTx::insert_refusal(const Refusal& r) {
  RETURN_IF_ERROR(
      conn_.run("INSERT INTO refusals (at, code, license_key, machine_id,"
                " machine_name, ip, key_id, request_id)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                PgParams()
                    .add(r.at)
                    .add(int64_t{r.code})
                    .add(std::string_view(r.license_key))
                    .add(r.machine_id)
                    .add(r.machine_name)
                    .add(r.ip)
                    .add(r.key_id)
                    .add(r.request_id),
                "insert refusal"));
  RETURN_IF_ERROR(conn_.run("DELETE FROM refusals WHERE at < $1",
                            PgParams().add(r.at - kRefusalsKeptMillis), "forget old refusals"));
  // NULL (fewer than the cap) deletes nothing.
  return conn_.run(
      "DELETE FROM refusals WHERE license_key = $1 AND id <= (SELECT id FROM refusals"
      " WHERE license_key = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)",
      PgParams().add(std::string_view(r.license_key)).add(kRefusalsKeptPerLicense),
      "forget refusals beyond the cap");
}

Result<std::vector<Refusal>> PgTx::list_refusals(std::string_view license_key, UnixMillis since,
                                                 int64_t before_id, int64_t limit) {
  ASSIGN_OR_RETURN(auto r, conn_.query(std::string(kSelectRefusals) +
                                           " WHERE license_key = $1 AND id < $2 AND at >= $3"
                                           " ORDER BY id DESC LIMIT $4",
                                       PgParams()
                                           .add(license_key)
                                           .add(before_id == 0 ? INT64_MAX : before_id)
                                           .add(since)
                                           .add(limit),
                                       "list refusals"));
  std::vector<Refusal> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(read_refusal(r, i));
  return out;
}

Result<std::vector<std::pair<std::string, int64_t>>> PgTx::count_licenses_by_status(
    UnixMillis now) {
  ASSIGN_OR_RETURN(auto r, conn_.query("SELECT CASE WHEN status = 'ACTIVE' AND expires_at IS NOT"
                                       " NULL AND expires_at <= $1 THEN 'EXPIRED' ELSE status"
                                       " END AS shown, COUNT(*) FROM licenses"
                                       " WHERE deleted_at IS NULL GROUP BY shown",
                                       PgParams().add(now), "count licenses by status"));
  std::vector<std::pair<std::string, int64_t>> out;
  for (int i = 0; i < r.rows(); ++i) out.emplace_back(r.text(i, 0), r.int64(i, 1));
  return out;
}

Result<std::vector<DayCount>> PgTx::count_activations_per_day(UnixMillis since) {
  ASSIGN_OR_RETURN(auto r, conn_.query("SELECT at / 86400000 AS day, 'activations', COUNT(*)"
                                       " FROM audit_log WHERE action = 'license.activate'"
                                       " AND at >= $1 AND NOT refresh GROUP BY day ORDER BY day",
                                       PgParams().add(since), "count activations per day"));
  return read_day_counts(r);
}

Result<std::vector<DayCount>> PgTx::count_refusals_per_day(UnixMillis since) {
  ASSIGN_OR_RETURN(auto r, conn_.query("SELECT at / 86400000 AS day, code::text, COUNT(*)"
                                       " FROM refusals WHERE at >= $1"
                                       " GROUP BY day, code ORDER BY day, code",
                                       PgParams().add(since), "count refusals per day"));
  return read_day_counts(r);
}

Result<std::vector<TrialStart>> PgTx::list_trials_since(UnixMillis since) {
  ASSIGN_OR_RETURN(auto r, conn_.query("SELECT product_id, machine_hmac, license_key, created_at"
                                       " FROM trials WHERE created_at >= $1 ORDER BY created_at",
                                       PgParams().add(since), "list trials"));
  std::vector<TrialStart> out;
  for (int i = 0; i < r.rows(); ++i) {
    out.push_back(TrialStart{r.int64(i, 0), r.text(i, 1), r.text(i, 2), r.int64(i, 3)});
  }
  return out;
}

Result<std::vector<PaidActivation>> PgTx::list_paid_activations_since(UnixMillis since) {
  ASSIGN_OR_RETURN(auto r, conn_.query("SELECT l.product_id, a.machine_id, a.activated_at"
                                       " FROM activations a JOIN licenses l ON l.id ="
                                       " a.license_id WHERE NOT l.trial AND a.activated_at >= $1",
                                       PgParams().add(since), "list paid activations"));
  std::vector<PaidActivation> out;
  for (int i = 0; i < r.rows(); ++i) {
    out.push_back(PaidActivation{r.int64(i, 0), r.text(i, 1), r.int64(i, 2)});
  }
  return out;
}

Result<std::vector<CapUse>> PgTx::licenses_nearest_cap(UnixMillis now, int64_t limit) {
  ASSIGN_OR_RETURN(
      auto r,
      conn_.query("SELECT l.license_key, p.slug, COUNT(*) AS used, l.max_activations"
                  " FROM licenses l JOIN products p ON p.id = l.product_id"
                  " JOIN activations a ON a.license_id = l.id"
                  " WHERE l.deleted_at IS NULL AND l.status = 'ACTIVE' AND l.max_activations > 0"
                  " AND (l.expires_at IS NULL OR l.expires_at > $1)"
                  " AND CASE WHEN a.offline_until IS NOT NULL THEN a.offline_until > $1"
                  " ELSE (l.machine_ttl IS NULL OR a.last_seen_at >= $1 - l.machine_ttl * 1000)"
                  " END GROUP BY l.id, p.slug"
                  " ORDER BY COUNT(*)::float8 / l.max_activations DESC, used DESC, l.id LIMIT $2",
                  PgParams().add(now).add(limit), "licenses nearest their cap"));
  std::vector<CapUse> out;
  for (int i = 0; i < r.rows(); ++i) {
    out.push_back(CapUse{r.text(i, 0), r.text(i, 1), r.int64(i, 2), r.int64(i, 3)});
  }
  return out;
}

}  // namespace licensed
