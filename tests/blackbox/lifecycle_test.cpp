// Spec section 10: the ready line and SIGTERM.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <regex>

#include "support/fixture.h"

namespace bb {
namespace {

class Lifecycle : public BlackboxTest {};

TEST_F(Lifecycle, ReadyLineNamesThePort) {
  Start();
  const std::string line = server().ready_line();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(line, m, std::regex(R"(listening on 127\.0\.0\.1:(\d+))"))) << line;
  const int port_in_line = std::stoi(m[1].str());
  EXPECT_NE(port_in_line, 0);
  EXPECT_EQ(port_in_line, port());
  const std::string license = NewLicense(1);
  EXPECT_OK(Status(license));
}

TEST_F(Lifecycle, SigtermExitsZero) {
  Start();
  const std::string license = NewLicense(1);
  EXPECT_OK(Activate(license, "machine-0001"));
  const int status = Stop();
  ASSERT_TRUE(WIFEXITED(status)) << "wait status " << status << " (signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : 0) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST_F(Lifecycle, SigtermRightAfterStartExitsZero) {
  Start();
  const int status = Stop();
  ASSERT_TRUE(WIFEXITED(status)) << "wait status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace bb
