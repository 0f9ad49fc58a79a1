#include "store/migration.h"

#include <string>

namespace licensed {

Status refuse_newer_schema(int64_t version, int newest) {
  if (version <= newest) return Ok{};
  return Error::internal("its schema version " + std::to_string(version) +
                         " is newer than this binary knows (" + std::to_string(newest) +
                         "): run a newer licensed");
}

}  // namespace licensed
