// The block a per-client cap counts by: an IPv4 address alone, an IPv6 address's /64.
#include "http/client_address.h"

#include <gtest/gtest.h>

namespace licensed {
namespace {

boost::asio::ip::address ip(const char* text) {
  return boost::asio::ip::make_address(text);
}

TEST(ClientBlock, AnIpv4AddressIsItsOwnBlock) {
  EXPECT_EQ(client_block(ip("203.0.113.7")), ip("203.0.113.7"));
  EXPECT_NE(client_block(ip("203.0.113.7")), client_block(ip("203.0.113.8")));
}

TEST(ClientBlock, AnIpv4MappedAddressCountsAsTheIpv4One) {
  EXPECT_EQ(client_block(ip("::ffff:203.0.113.7")), ip("203.0.113.7"));
}

TEST(ClientBlock, Ipv6AddressesOfOneSlash64AreOneClient) {
  EXPECT_EQ(client_block(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd")), ip("2001:db8:1:2::"));
  EXPECT_EQ(client_block(ip("2001:db8:1:2::1")), client_block(ip("2001:db8:1:2:ffff::9")));
  EXPECT_NE(client_block(ip("2001:db8:1:2::1")), client_block(ip("2001:db8:1:3::1")));
  EXPECT_EQ(client_block(ip("::1")), ip("::"));
}

TEST(IpBucketKey, AnIpv6ClientsWholeSlash64SharesOneBucketAndIpv4StaysAsItIs) {
  EXPECT_EQ(ip_bucket_key("203.0.113.7"), "203.0.113.7");
  EXPECT_EQ(ip_bucket_key("2001:db8:1:2::1"), "2001:db8:1:2::");
  EXPECT_EQ(ip_bucket_key("2001:db8:1:2::1"), ip_bucket_key("2001:db8:1:2:ffff::9"));
  EXPECT_NE(ip_bucket_key("2001:db8:1:2::1"), ip_bucket_key("2001:db8:1:3::1"));
  EXPECT_EQ(ip_bucket_key("not an address"), "not an address");
}

}  // namespace
}  // namespace licensed

namespace licensed {
namespace {

// SIGHUP replaces the trusted proxies of the copy the server holds through main's.
TEST(TrustedProxies, ACopySeesTheBlocksReplacedThroughTheOriginal) {
  const TrustedProxies original;
  const TrustedProxies copy = original;  // NOLINT(performance-unnecessary-copy-initialization)
  const auto proxy = boost::asio::ip::make_address("10.0.0.1");
  EXPECT_FALSE(copy.trusts(proxy));
  EXPECT_EQ(copy.client_address(proxy, "203.0.113.9"), "10.0.0.1");
  original.replace({CidrBlock::parse("10.0.0.0/8").value()});
  EXPECT_TRUE(copy.trusts(proxy));
  EXPECT_EQ(copy.client_address(proxy, "203.0.113.9"), "203.0.113.9");
}

}  // namespace
}  // namespace licensed
