// Runs one fixed SQL statement on the store a black-box server uses, behind its back:
// for tests that must see or change rows the contract does not expose (remembered
// nonces, say). The statement must read the same in SQLite and PostgreSQL.
#pragma once

#include <string>

namespace bb {

// `store` is the fixture's store(): "sqlite:PATH" or a PostgreSQL URL. Returns the first
// column of the first row as text ("" when there is none); throws std::runtime_error
// when the statement fails.
std::string StoreSql(const std::string& store, const std::string& sql);

}  // namespace bb
