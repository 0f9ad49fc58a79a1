// `licensed admin license leases KEY [--json]` and `license release-lease KEY MACHINE SESSION`
// (docs/protocol.md §27): support's view of who holds a concurrent seat and until when, and
// releasing one at once (borrowed ones too), against the store directly.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "admin/cli_store.h"
#include "admin/plan_cli.h"

namespace licensed {

// `store`: the --store options, read when the command runs.
void add_lease_commands(CLI::App& license, const AdminStore* store, const ChosenCommand& chosen);

}  // namespace licensed
