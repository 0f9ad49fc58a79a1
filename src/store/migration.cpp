#include "store/migration.h"

#include <string>

namespace licensed {

Status refuse_newer_schema(int64_t version, int newest) {
  if (version <= newest) return Ok{};
  return Error::internal("its schema version " + std::to_string(version) +
                         " is newer than this binary knows (" + std::to_string(newest) +
                         "): run a newer licensed");
}

SchemaState schema_state_of(bool exists, int64_t version, std::span<const Migration> migrations) {
  SchemaState state;
  state.exists = exists;
  state.version = version;
  state.newest = migrations.empty() ? 0 : migrations.back().version;
  for (const auto& m : migrations) {
    if (m.version > version) state.pending.push_back(m.version);
  }
  return state;
}

Status refuse_unmigrated(const SchemaState& state, const StoreOpening& opening,
                         const std::string& store) {
  // A schema with nothing applied yet is a store being created, not one in use.
  if (opening.migrate || state.version == 0 || state.pending.empty()) return Ok{};
  return Error::conflict(
      "store", "the store " + store + " has schema version " + std::to_string(state.version) +
                   " and this licensed needs " + std::to_string(state.newest) + " (" +
                   std::to_string(state.pending.size()) +
                   " migration(s) pending, see `licensed admin schema`): a running older server "
                   "may still use it, so admin commands never migrate it by themselves; upgrade "
                   "the servers (serve migrates at start), or give --migrate");
}

}  // namespace licensed
