// The admin command line's webhook commands (docs/protocol.md §25): `licensed admin webhook create
// --url URL [--event TYPE]... [--json]`, `webhook list`, `webhook delete ID`, over
// admin/webhook_operations.h as the admin API is, so both refuse the same bodies alike.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>

#include "admin/cli_store.h"

namespace licensed {

// `store`: the --store options, read when the command runs; `chosen` receives the command.
void add_webhook_commands(CLI::App& admin, const AdminStore* store,
                          const std::shared_ptr<std::function<int()>>& chosen);

}  // namespace licensed
