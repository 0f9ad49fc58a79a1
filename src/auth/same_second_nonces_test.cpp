#include "auth/same_second_nonces.h"

#include <gtest/gtest.h>

namespace licensed {
namespace {

std::vector<std::string> NoncesOf(const std::vector<SameSecondNonces::Entry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.key_id + "/" + e.nonce);
  return out;
}

TEST(SameSecondNonces, KeepsOnlyTheCurrentSecondsNonces) {
  SameSecondNonces nonces;
  nonces.record(100, "k", "a", 5);
  nonces.record(101, "k", "b", 6);
  nonces.record(101, "k2", "c", 7);
  nonces.record(100, "k", "late", 8);  // an earlier second: the restart rule covers it
  EXPECT_TRUE(nonces.take(100).empty());
  const auto taken = nonces.take(101);
  EXPECT_EQ(NoncesOf(taken), (std::vector<std::string>{"k/b", "k2/c"}));
  EXPECT_EQ(taken[1].expires_at, 7);
  EXPECT_TRUE(nonces.take(101).empty()) << "taken once";
}

TEST(SameSecondNonces, TakingAtALaterSecondGivesNothing) {
  SameSecondNonces nonces;
  nonces.record(100, "k", "a", 5);
  EXPECT_TRUE(nonces.take(101).empty());
  nonces.record(102, "k", "b", 6);
  EXPECT_EQ(NoncesOf(nonces.take(102)), std::vector<std::string>{"k/b"});
}

}  // namespace
}  // namespace licensed
