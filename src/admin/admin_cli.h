// `licensed admin ...` (docs/protocol.md §18). Exit status: 0 success, 1 refused, 2 usage.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>

namespace licensed {

// Registers the admin subcommands on `admin`; the returned function runs whichever was
// chosen after parsing and returns the exit status.
std::function<int()> add_admin_commands(CLI::App& admin);

}  // namespace licensed
