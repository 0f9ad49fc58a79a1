// `licensed admin schema|verify|backup` (docs/operations.md): where the store's schema
// stands against this binary, a check of a store (after a restore, say), and a
// consistent online copy of a SQLite store while it serves. None of them creates or
// migrates the store.
#pragma once

#include <CLI/CLI.hpp>

#include "admin/cli_store.h"
#include "admin/plan_cli.h"

namespace licensed {

// `store`: the --store value, read when the command runs; `chosen` receives the command.
void add_maintenance_commands(CLI::App& admin, const AdminStore* store,
                              const ChosenCommand& chosen);

}  // namespace licensed
