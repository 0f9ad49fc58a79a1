// `licensed admin license offline-activate KEY REQUEST_FILE --out FILE` (docs/protocol.md
// §21.7): support turns a customer's request file into an activation file on the vendor's
// machine, against the store directly. The file is checked and the activation made by
// admin/admin_offline.h, as the admin API does; the request signing keys come from
// `--signing-key ID=SECRET` (or LICENSED_SIGNING_KEYS, as `serve` reads them) and the
// response key from `--response-key FILE` or, without one, the store's own Ed25519 key
// (the one `serve` signs with when it is given none).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "admin/cli_store.h"
#include "admin/plan_cli.h"

namespace licensed {

// `store`: the --store value, read when the command runs.
void add_offline_commands(CLI::App& license, const AdminStore* store, const ChosenCommand& chosen);

}  // namespace licensed
