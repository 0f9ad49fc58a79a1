// docs/protocol.md §18: what tests rely on from the admin CLI (JSON output, exit statuses).
#include <gtest/gtest.h>

#include "support/fixture.h"

namespace bb {
namespace {

class AdminCli : public BlackboxTest {};

TEST_F(AdminCli, LicenseCreatePrintsALowercaseUuidV4Key) {
  const std::string license = NewLicense(5);
  EXPECT_TRUE(IsLowercaseUuidV4(license)) << license;
  EXPECT_NE(NewLicense(5), license);
}

TEST_F(AdminCli, LicenseShowPrintsTheLicenseFields) {
  const std::string license = NewLicense(5);
  const json::value v = admin().Show(license);
  EXPECT_EQ(Str(v, "licenseKey"), license);
  EXPECT_EQ(Str(v, "product.slug"), kProduct);
  EXPECT_EQ(Str(v, "product.name"), kProductName);
  EXPECT_EQ(Str(v, "status"), "ACTIVE");
  EXPECT_TRUE(IsNull(v, "expiresAt")) << Dump(v);
  EXPECT_EQ(Int(v, "max"), 5);
  EXPECT_TRUE(Has(v, "machineTtl")) << Dump(v);
  EXPECT_TRUE(IsTimestamp(Str(v, "createdAt"))) << Dump(v);
  EXPECT_TRUE(IsNull(v, "deletedAt")) << Dump(v);
  EXPECT_TRUE(Arr(v, "activations").empty());
}

TEST_F(AdminCli, ShowWhileTheServerRunsListsActivations) {
  Start();
  const std::string license = NewLicense(5);
  ASSERT_OK(Activate(license, "machine-0001", "Studio PC"));
  const json::array list = Arr(admin().Show(license), "activations");
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(Str(list[0], "id"), "machine-0001");
  EXPECT_EQ(Str(list[0], "name"), "Studio PC");
  EXPECT_TRUE(IsTimestamp(Str(list[0], "activatedAt")));
  EXPECT_TRUE(IsTimestamp(Str(list[0], "lastSeenAt")));
}

TEST_F(AdminCli, StoreFromTheEnvironment) {
  const std::string license = NewLicense(2);
  const CommandResult r =
      RunCommand({LicensedBinary(), "admin", "license", "show", license, "--json"},
                 {{"LICENSED_STORE", store()}});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_EQ(Str(ParseJson(r.out), "licenseKey"), license);
}

TEST_F(AdminCli, UnknownKeyExitsOne) {
  const std::string unknown = RandomUuidV4();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"license", "show", unknown, "--json"},
        {"license", "set-status", unknown, "SUSPENDED"},
        {"license", "set-max", unknown, "3"},
        {"license", "delete", unknown},
        {"audit", unknown, "--json"}}) {
    const CommandResult r = admin().Run(args);
    EXPECT_EQ(r.exit_code, 1) << r.Describe();
  }
}

TEST_F(AdminCli, UnknownProductExitsOne) {
  const CommandResult r =
      admin().Run({"license", "create", "--product", "no-such-product", "--max", "1", "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.Describe();
}

// docs/protocol.md §18: "1 operation refused (unknown key, bad input), 2 usage error". A value
// the command cannot take is bad input; nothing is changed.
TEST_F(AdminCli, ABadValueIsBadInputAndExitsOne) {
  const std::string license = NewLicense(3);
  const std::vector<std::vector<std::string>> bad = {
      {"license", "set-status", license, "BOGUS"},
      {"license", "set-status", license, "active"},
      {"license", "set-max", license, "-1"},
      {"license", "set-max", license, "three"},
      {"license", "set-machine-ttl", license, "0s"},
      {"license", "set-machine-ttl", license, "10 minutes"},
      {"license", "create", "--product", "reverb", "--max", "-1"},
      {"license", "create", "--product", "reverb", "--max", "1.5"},
      {"license", "create", "--product", "reverb", "--max", "1", "--expires-at", "garbage"},
      {"license", "create", "--product", "reverb", "--max", "1", "--status", "GONE"},
      {"license", "create", "--product", "reverb", "--max", "1", "--machine-ttl", "5y"},
  };
  for (const auto& args : bad) {
    const CommandResult r = admin().Run(args);
    EXPECT_EQ(r.exit_code, 1) << r.Describe();
    EXPECT_FALSE(r.err.empty()) << "a refusal says why\n" << r.Describe();
  }
  const json::value shown = admin().Show(license);
  EXPECT_EQ(Str(shown, "status"), "ACTIVE");
  EXPECT_EQ(Int(shown, "max"), 3);
  // A missing value is a usage error.
  EXPECT_EQ(admin().Run({"license", "set-max", license}).exit_code, 2);
  EXPECT_EQ(admin().Run({"license", "create", "--product", "reverb"}).exit_code, 2);
}

TEST_F(AdminCli, UsageErrorExitsTwo) {
  EXPECT_EQ(admin().Run({"license", "frobnicate"}).exit_code, 2);
  EXPECT_EQ(admin().Run({"no-such-command"}).exit_code, 2);
  EXPECT_EQ(RunCommand({LicensedBinary(), "no-such-command"}).exit_code, 2);
}

TEST_F(AdminCli, SetStatusKeepsItsReasonAndWhatChangedInTheAuditRecord) {
  const std::string license = admin().CreateLicense("reverb", 1);
  CommandResult r =
      admin().Run({"license", "set-status", license, "SUSPENDED", "--reason", "fraud check"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  const json::value record = Arr(admin().Audit(license), "").back();
  EXPECT_EQ(Str(record, "action"), "license.status");
  EXPECT_EQ(Str(record, "reason"), "fraud check");
  EXPECT_EQ(Dump(At(record, "changes")), R"({"status":{"from":"ACTIVE","to":"SUSPENDED"}})");
  // Longer than 500 characters: refused as bad input, nothing changed.
  r = admin().Run({"license", "set-status", license, "REVOKED", "--reason", std::string(501, 'x')});
  EXPECT_EQ(r.exit_code, 1) << r.Describe();
  EXPECT_NE(r.err.find("reason"), std::string::npos) << r.Describe();
  // A control character (here a terminal escape) would reach whoever reads the audit.
  r = admin().Run({"license", "set-status", license, "REVOKED", "--reason", "\x1b[2Jgone"});
  EXPECT_EQ(r.exit_code, 1) << r.Describe();
  EXPECT_NE(r.err.find("control"), std::string::npos) << r.Describe();
  EXPECT_EQ(Str(admin().Show(license), "status"), "SUSPENDED");
}

TEST_F(AdminCli, DeletedLicenseIsShownButChangesAreRefused) {
  const std::string license = NewLicense(1);
  admin().Delete(license);
  const json::value v = admin().Show(license);
  EXPECT_TRUE(IsTimestamp(Str(v, "deletedAt"))) << Dump(v);
  EXPECT_EQ(admin().Run({"license", "set-max", license, "3"}).exit_code, 1);
  EXPECT_EQ(admin().Run({"license", "set-status", license, "SUSPENDED"}).exit_code, 1);
  EXPECT_EQ(admin().Run({"audit", license, "--json"}).exit_code, 0);
}

}  // namespace
}  // namespace bb
