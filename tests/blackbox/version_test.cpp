// Versions (issue 24 item 4): `licensed --version` names the release, and /metrics says
// which release runs (licensed_build_info), so a rolling upgrade can be followed.
#include <gtest/gtest.h>

#include <regex>

#include "support/fixture.h"

namespace bb {
namespace {

class Version : public BlackboxTest {};

TEST_F(Version, VersionFlagNamesTheReleaseAndMetricsPublishTheSame) {
  const CommandResult r = RunCommand({LicensedBinary(), "--version"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(^licensed (\d+\.\d+\.\d+)\n$)"))) << r.out;
  const std::string version = m[1];

  Start();
  const HttpResponse metrics = AdminGet("/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find("# TYPE licensed_build_info gauge\n"
                              "licensed_build_info{version=\"" +
                              version + "\"} 1\n"),
            std::string::npos)
      << metrics.body;
}

}  // namespace
}  // namespace bb
