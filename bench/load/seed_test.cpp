// Seeding against a real SQLite file: --seed-activations makes exactly the machines it
// was asked for, each with the audit record the activate operation writes.
#include "load/seed.h"

#include <gtest/gtest.h>

#include <set>

#include "core/license.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace licensed::bench {
namespace {

struct Counted {
  size_t licenses = 0;
  int64_t activations = 0;
  size_t activate_records = 0;
  std::set<int64_t> caps;
  std::set<std::string> machines;
};

Counted count_seeded(const std::string& url) {
  auto store = open_store(url);
  EXPECT_TRUE(store.ok());
  auto counted = run_blocking(*store.value(), TxKind::kRead, [](StoreTx& tx) -> Result<Counted> {
    Counted c;
    ASSIGN_OR_RETURN(auto licenses, tx.list_licenses(LicenseFilter{}, 0, 1000));
    for (const License& l : licenses) {
      ++c.licenses;
      c.caps.insert(l.max);
      ASSIGN_OR_RETURN(const int64_t n, tx.count_activations(l.id, Freshness{}));
      c.activations += n;
      ASSIGN_OR_RETURN(auto machines, tx.list_activations(l.id));
      for (const Activation& a : machines) c.machines.insert(a.machine_id);
      ASSIGN_OR_RETURN(auto audit, tx.list_audit(l.key, AuditOrder::kOldestFirst, 0, 1000));
      for (const AuditEntry& e : audit) {
        if (e.action == audit_action::kActivate && e.actor == Actor::kClient) ++c.activate_records;
      }
    }
    return c;
  });
  EXPECT_TRUE(counted.ok());
  return counted.ok() ? counted.value() : Counted{};
}

TEST(SeedActivations, MakesExactlyTheMachinesAskedForWithTheirAuditRecords) {
  bb::TempDir dir;
  const std::string url = "sqlite:" + (dir.path() / "seed.db").string();
  std::vector<SeededActivations> steps;
  // 25 machines, 10 a license, two licenses a transaction: 10 + 10, then 5.
  const SeededActivations done =
      seed_activations(url, ActivationSeed{25, 10, 20},
                       [&](const SeededActivations& so_far) { steps.push_back(so_far); });
  EXPECT_EQ(done.activations, 25u);
  EXPECT_EQ(done.licenses, 3u);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].activations, 20u);
  EXPECT_EQ(steps[1].activations, 25u);

  const Counted c = count_seeded(url);
  EXPECT_EQ(c.licenses, 3u);
  EXPECT_EQ(c.activations, 25);
  EXPECT_EQ(c.machines.size(), 25u);  // no machine id drawn twice
  EXPECT_EQ(c.activate_records, 25u);
  EXPECT_EQ(c.caps, (std::set<int64_t>{5, 10}));  // each license full, none over its cap
}

TEST(SeedActivations, AddsToWhatTheStoreHolds) {
  bb::TempDir dir;
  const std::string url = "sqlite:" + (dir.path() / "seed.db").string();
  (void)seed_licenses(url, 2, 1);
  seed_activations(url, ActivationSeed{7, 3, 100});
  const Counted c = count_seeded(url);
  EXPECT_EQ(c.licenses, 2u + 3u);
  EXPECT_EQ(c.activations, 7);
}

}  // namespace
}  // namespace licensed::bench
