// `licensed init [--store URL]`: creates an empty store and its response keys, the one
// way (with --create) a store comes into being, so that a mistyped path or a database
// lost under a running server is never silently replaced by an empty one
// (docs/operations.md, "Creating a store"; docs/protocol.md §18).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace licensed {

// Registers `init` on `app`; the returned function runs it after parsing and returns the
// exit status: 0 made, 1 the store exists already (nothing changed) or cannot be used.
std::function<int()> add_init_command(CLI::App& app);

}  // namespace licensed
