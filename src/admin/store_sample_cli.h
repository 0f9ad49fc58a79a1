// `licensed admin store send-sample`: sends a correctly signed sample event (a sale of an
// item, or the refund of an order) to a store's inbound URL on a running server, and says
// what the server answered (docs/stores.md, "Testing a store end to end before going
// live"). The payload and its signature are admin/store_sample.h's; the request goes
// through the outgoing client, allowed http and private addresses, since it targets the
// operator's own server.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>

namespace licensed {

// Adds `send-sample` under the `store` command group; `chosen` receives the command.
void add_store_sample_command(CLI::App& store_group,
                              const std::shared_ptr<std::function<int()>>& chosen);

}  // namespace licensed
