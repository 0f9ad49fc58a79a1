// Real faults injected into a real store file, the way a bad migration, a manual edit or
// bit rot would leave it, so tests reach the server's internal-error path (500 1709)
// without any test hook in the server.
#pragma once

#include <filesystem>
#include <string>

namespace bb {

// Sets the license's status to a value the schema's CHECK forbids (the constraint is
// bypassed with PRAGMA ignore_check_constraints), so the server fails to read the row.
// Safe while the server runs: SQLite's locking serialises it with the server's writer.
// Throws std::runtime_error when the row is not changed.
void CorruptLicenseStatus(const std::filesystem::path& db, const std::string& license_key);

}  // namespace bb
