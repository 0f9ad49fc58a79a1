// What both stores' numbered, append-only migrations share: the shape of one migration,
// and the refusal of a database a newer licensed has migrated.
#pragma once

#include <cstdint>

#include "core/result.h"

namespace licensed {

struct Migration {
  int version;
  const char* sql;
};

// Fails with a message for the operator when the database's schema `version` is newer
// than `newest`, the last this binary knows.
Status refuse_newer_schema(int64_t version, int newest);

}  // namespace licensed
