// KeyRing::replace (SIGHUP): the new set is in force at once, and a key found before
// stays usable, so a request in flight during a reload finishes with the key it found.
#include "auth/key_ring.h"

#include <gtest/gtest.h>

namespace licensed {
namespace {

TEST(KeyRing, ReplaceBringsTheNewSetAndKeepsAKeyFoundBeforeUsable) {
  KeyRing ring(std::vector<SigningKeyConfig>{{"old", "s1", {}}});
  const SigningKey* old_key = ring.find("old");
  ASSERT_NE(old_key, nullptr);
  Sha256Digest before{};
  ASSERT_TRUE(old_key->mac->compute("message", before));

  ring.replace(std::vector<SigningKeyConfig>{{"old", "s1", {}}, {"new", "s2", {"reverb"}}});
  EXPECT_EQ(ring.size(), 2u);
  ASSERT_NE(ring.find("new"), nullptr);
  EXPECT_TRUE(ring.find("new")->allows_product("reverb"));

  ring.replace(std::vector<SigningKeyConfig>{{"new", "s2", {}}});
  EXPECT_EQ(ring.find("old"), nullptr);
  EXPECT_EQ(ring.size(), 1u);
  EXPECT_EQ(old_key->id, "old");
  Sha256Digest after{};
  ASSERT_TRUE(old_key->mac->compute("message", after));
  EXPECT_EQ(after, before) << "the key found before is still whole";
}

}  // namespace
}  // namespace licensed
