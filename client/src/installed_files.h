// What the SDK's two kinds of installed file share: activation files (offline_activation.cpp)
// and a borrowed seat's lease files (borrowed_lease.cpp) both live in the vendor's
// machine-wide directories (Client::offline_dirs), are small, and are read whole. The
// Client members that install and find them by name are in installed_files.cpp too.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "answer.h"

namespace licensed::client {

// An answer of this SDK's own making (no server involved): `outcome`, `error`, `message`.
Answer local_failure(Outcome outcome, std::string error, std::string message);

// The whole text of a file no larger than an armoured file may be; nullopt when it cannot
// be read or is larger (not one of ours, and not read whole).
std::optional<std::string> read_small_file(const std::filesystem::path& path);

}  // namespace licensed::client
