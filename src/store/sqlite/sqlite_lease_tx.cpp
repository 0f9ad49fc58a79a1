// SqliteTx's part for concurrent seats (docs/protocol.md §27): the leases table. Every write
// runs on the single writer (BEGIN IMMEDIATE), so a count made before an insert in one job
// stays true until that job commits.
#include <algorithm>
#include <string>
#include <tuple>

#include "store/sqlite/sqlite_tx.h"

namespace licensed {
namespace {

constexpr const char* kSelectLeases =
    "SELECT machine_id, session_id, created_at, expires_at, borrowed FROM leases";

Lease read_lease(const Statement& s) {
  Lease l;
  l.machine_id = s.text(0);
  l.session_id = s.text(1);
  l.created_at = s.int64(2);
  l.expires_at = s.int64(3);
  l.borrowed = s.int64(4) != 0;
  return l;
}

}  // namespace

Result<int64_t> SqliteTx::count_leases(int64_t license_id, UnixMillis now) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT COUNT(*) FROM leases"
                                         " WHERE license_id = ? AND expires_at > ?"));
  s->bind(1, license_id).bind(2, now);
  const int rc = s->step();
  if (rc != SQLITE_ROW) return s->failure(rc, "count leases");
  return s->int64(0);
}

Result<std::vector<Lease>> SqliteTx::list_leases(int64_t license_id, UnixMillis now) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare((std::string(kSelectLeases) +
                                          " WHERE license_id = ? AND expires_at > ?"
                                          " ORDER BY expires_at, machine_id, session_id")
                                             .c_str()));
  s->bind(1, license_id).bind(2, now);
  std::vector<Lease> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) out.push_back(read_lease(*s));
  if (rc != SQLITE_DONE) return s->failure(rc, "list leases");
  return out;
}

Result<std::optional<Lease>> SqliteTx::find_lease(const LockedLicense& license,
                                                  std::string_view machine_id,
                                                  std::string_view session_id, UnixMillis now) {
  ASSIGN_OR_RETURN(
      auto s, conn_.prepare((std::string(kSelectLeases) + " WHERE license_id = ? AND machine_id = ?"
                                                          " AND session_id = ? AND expires_at > ?")
                                .c_str()));
  s->bind(1, license->id).bind(2, machine_id).bind(3, session_id).bind(4, now);
  const int rc = s->step();
  if (rc == SQLITE_DONE) return std::optional<Lease>();
  if (rc != SQLITE_ROW) return s->failure(rc, "find lease");
  return std::optional<Lease>(read_lease(*s));
}

Status SqliteTx::put_lease(const LockedLicense& license, const Lease& lease) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO leases (license_id, machine_id, session_id,"
                                         " created_at, expires_at, borrowed)"
                                         " VALUES (?, ?, ?, ?, ?, ?)"
                                         " ON CONFLICT (license_id, machine_id, session_id)"
                                         " DO UPDATE SET created_at = excluded.created_at,"
                                         " expires_at = excluded.expires_at,"
                                         " borrowed = excluded.borrowed"));
  s->bind(1, license->id).bind(2, std::string_view(lease.machine_id));
  s->bind(3, std::string_view(lease.session_id)).bind(4, lease.created_at);
  s->bind(5, lease.expires_at).bind(6, static_cast<int64_t>(lease.borrowed ? 1 : 0));
  return s->run("put lease");
}

Result<bool> SqliteTx::delete_lease(const LockedLicense& license, std::string_view machine_id,
                                    std::string_view session_id) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("DELETE FROM leases WHERE license_id = ?"
                                         " AND machine_id = ? AND session_id = ?"));
  RETURN_IF_ERROR(
      s->bind(1, license->id).bind(2, machine_id).bind(3, session_id).run("delete lease"));
  return sqlite3_changes(conn_.handle()) > 0;
}

Result<std::vector<Lease>> SqliteTx::take_ended_leases(const LockedLicense& license,
                                                       UnixMillis now) {
  ASSIGN_OR_RETURN(auto s,
                   conn_.prepare("DELETE FROM leases WHERE license_id = ? AND expires_at <= ?"
                                 " RETURNING machine_id, session_id, created_at,"
                                 " expires_at, borrowed"));
  s->bind(1, license->id).bind(2, now);
  std::vector<Lease> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) out.push_back(read_lease(*s));
  if (rc != SQLITE_DONE) return s->failure(rc, "take ended leases");
  // RETURNING hands rows back in no promised order: by end, then (machine, session), as
  // list_leases answers, so the events come in the order the leases ended.
  std::sort(out.begin(), out.end(), [](const Lease& a, const Lease& b) {
    return std::tie(a.expires_at, a.machine_id, a.session_id) <
           std::tie(b.expires_at, b.machine_id, b.session_id);
  });
  return out;
}

// Driven from the leases table, which holds only leases not released yet: a few rows, however
// many licenses there are.
Result<std::vector<LicenseRef>> SqliteTx::licenses_with_ended_leases(UnixMillis now,
                                                                     int64_t after_id,
                                                                     int64_t limit) {
  ASSIGN_OR_RETURN(
      auto s, conn_.prepare(
                  "SELECT id, license_key FROM licenses WHERE id IN (SELECT license_id FROM leases"
                  " WHERE license_id > ? AND expires_at <= ?) ORDER BY id LIMIT ?"));
  s->bind(1, after_id).bind(2, now).bind(3, limit);
  std::vector<LicenseRef> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) out.push_back(LicenseRef{s->int64(0), s->text(1)});
  if (rc != SQLITE_DONE) return s->failure(rc, "licenses with ended leases");
  return out;
}

Result<std::vector<Lease>> SqliteTx::take_machine_leases(const LockedLicense& license,
                                                         std::string_view machine_id) {
  ASSIGN_OR_RETURN(auto s,
                   conn_.prepare("DELETE FROM leases WHERE license_id = ? AND machine_id = ?"
                                 " RETURNING machine_id, session_id, created_at,"
                                 " expires_at, borrowed"));
  s->bind(1, license->id).bind(2, machine_id);
  std::vector<Lease> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) out.push_back(read_lease(*s));
  if (rc != SQLITE_DONE) return s->failure(rc, "take machine leases");
  std::sort(out.begin(), out.end(), [](const Lease& a, const Lease& b) {
    return std::tie(a.expires_at, a.session_id) < std::tie(b.expires_at, b.session_id);
  });
  return out;
}

}  // namespace licensed
