// PgTx's part for concurrent seats (docs/protocol.md §27): the leases table. The writes run
// in a transaction holding the license row's lock (SELECT ... FOR UPDATE, see pg_store.h),
// so checkouts of one license queue and a count made before an insert stays true.
#include <string>

#include "store/postgres/pg_tx.h"

namespace licensed {
namespace {

const std::string kSelectLeases =
    "SELECT machine_id, session_id, created_at, expires_at, borrowed FROM leases";

Lease read_lease(const PgResult& r, int row) {
  Lease l;
  l.machine_id = r.text(row, 0);
  l.session_id = r.text(row, 1);
  l.created_at = r.int64(row, 2);
  l.expires_at = r.int64(row, 3);
  l.borrowed = r.boolean(row, 4);
  return l;
}

}  // namespace

Result<int64_t> PgTx::count_leases(int64_t license_id, UnixMillis now) {
  ASSIGN_OR_RETURN(auto r, conn_.query("SELECT COUNT(*) FROM leases"
                                       " WHERE license_id = $1 AND expires_at > $2",
                                       PgParams().add(license_id).add(now), "count leases"));
  return r.int64(0, 0);
}

Result<std::vector<Lease>> PgTx::list_leases(int64_t license_id, UnixMillis now) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query(kSelectLeases + " WHERE license_id = $1 AND expires_at > $2"
                                               " ORDER BY expires_at, machine_id COLLATE \"C\","
                                               " session_id COLLATE \"C\"",
                               PgParams().add(license_id).add(now), "list leases"));
  std::vector<Lease> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(read_lease(r, i));
  return out;
}

Result<std::optional<Lease>> PgTx::find_lease(const LockedLicense& license,
                                              std::string_view machine_id,
                                              std::string_view session_id, UnixMillis now) {
  PgParams p;
  p.add(license->id).add(machine_id).add(session_id).add(now);
  ASSIGN_OR_RETURN(auto r, conn_.query(kSelectLeases + " WHERE license_id = $1 AND machine_id = $2"
                                                       " AND session_id = $3 AND expires_at > $4",
                                       p, "find lease"));
  if (r.rows() == 0) return std::optional<Lease>();
  return std::optional<Lease>(read_lease(r, 0));
}

Status PgTx::put_lease(const LockedLicense& license, const Lease& lease) {
  PgParams p;
  p.add(license->id).add(std::string_view(lease.machine_id));
  p.add(std::string_view(lease.session_id)).add(lease.created_at).add(lease.expires_at);
  p.add(lease.borrowed);
  return conn_.run(
      "INSERT INTO leases (license_id, machine_id, session_id, created_at, expires_at, borrowed)"
      " VALUES ($1, $2, $3, $4, $5, $6)"
      " ON CONFLICT (license_id, machine_id, session_id)"
      " DO UPDATE SET created_at = excluded.created_at, expires_at = excluded.expires_at,"
      " borrowed = excluded.borrowed",
      p, "put lease");
}

Result<bool> PgTx::delete_lease(const LockedLicense& license, std::string_view machine_id,
                                std::string_view session_id) {
  ASSIGN_OR_RETURN(auto r, conn_.query("DELETE FROM leases WHERE license_id = $1"
                                       " AND machine_id = $2 AND session_id = $3",
                                       PgParams().add(license->id).add(machine_id).add(session_id),
                                       "delete lease"));
  return r.affected() > 0;
}

Result<std::vector<Lease>> PgTx::take_ended_leases(const LockedLicense& license, UnixMillis now) {
  // The CTE orders what RETURNING hands back in no promised order: by end, then (machine,
  // session) in byte order, as list_leases answers, so the events come as the leases ended.
  ASSIGN_OR_RETURN(auto r, conn_.query("WITH ended AS (DELETE FROM leases WHERE license_id = $1"
                                       " AND expires_at <= $2 RETURNING machine_id, session_id,"
                                       " created_at, expires_at, borrowed)"
                                       " SELECT * FROM ended ORDER BY expires_at,"
                                       " machine_id COLLATE \"C\", session_id COLLATE \"C\"",
                                       PgParams().add(license->id).add(now), "take ended leases"));
  std::vector<Lease> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(read_lease(r, i));
  return out;
}

// Driven from the leases table, which holds only leases not released yet: a few rows, however
// many licenses there are.
Result<std::vector<LicenseRef>> PgTx::licenses_with_ended_leases(UnixMillis now, int64_t after_id,
                                                                 int64_t limit) {
  ASSIGN_OR_RETURN(
      auto r,
      conn_.query("SELECT id, license_key FROM licenses WHERE id IN (SELECT license_id FROM leases"
                  " WHERE license_id > $1 AND expires_at <= $2) ORDER BY id LIMIT $3",
                  PgParams().add(after_id).add(now).add(limit), "licenses with ended leases"));
  std::vector<LicenseRef> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(LicenseRef{r.int64(i, 0), r.text(i, 1)});
  return out;
}

Result<std::vector<Lease>> PgTx::take_machine_leases(const LockedLicense& license,
                                                     std::string_view machine_id) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("WITH gone AS (DELETE FROM leases WHERE license_id = $1"
                               " AND machine_id = $2 RETURNING machine_id, session_id,"
                               " created_at, expires_at, borrowed)"
                               " SELECT * FROM gone ORDER BY expires_at,"
                               " session_id COLLATE \"C\"",
                               PgParams().add(license->id).add(machine_id), "take machine leases"));
  std::vector<Lease> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(read_lease(r, i));
  return out;
}

}  // namespace licensed
