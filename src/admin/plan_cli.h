// The admin command line's commands for plans, entitlements and trials (docs/protocol.md
// §20): `plan ...`, `product set-trial|set-default-plan|show`, `license entitle|unentitle|
// set-offline-grace|set`, `trial reset`, and the flags `license create` adds for them.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "admin/cli_store.h"
#include "core/entitlement.h"
#include "core/result.h"

namespace licensed {

using ChosenCommand = std::shared_ptr<std::function<int()>>;

// `store`: the --store value, read when the command runs.
void add_plan_commands(CLI::App& admin, CLI::App& product, CLI::App& license,
                       const AdminStore* store, const ChosenCommand& chosen);

// `--entitlement CODE[@TS][=VALUE]` of `license create`: kInvalidArgument ("entitlements")
// when one is out of grammar.
Result<std::vector<Entitlement>> parse_license_entitlement_flags(
    const std::vector<std::string>& flags);

}  // namespace licensed
