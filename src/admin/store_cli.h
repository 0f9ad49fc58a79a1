// The admin command line's commands for the stores a vendor sells through (docs/protocol.md §22.1):
// `licensed admin store create|list|delete`, over admin/storefront_operations.h as the
// admin API is, so both refuse the same bodies with the same messages; and
// `store send-sample` (admin/store_sample_cli.h), which talks to a running server.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>

#include "admin/cli_store.h"

namespace licensed {

// `store`: the --store value, read when the command runs; `chosen` receives the command.
void add_store_commands(CLI::App& admin, const AdminStore* store,
                        const std::shared_ptr<std::function<int()>>& chosen);

}  // namespace licensed
