// The ranges of docs/protocol.md §24, edge by edge: the first and last address of each is
// refused, the addresses just outside are not (unless another range holds them), and
// every IPv4 range is refused again in its IPv4-mapped, NAT64 and 6to4 forms.
#include "outgoing/address_policy.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <cstdio>
#include <vector>

namespace licensed {
namespace {

struct RangeCase {
  std::string_view cidr;
  std::string_view first;
  std::string_view last;
  std::string_view before;  // empty: no public address just below
  std::string_view after;   // empty: no public address just above
};

const std::vector<RangeCase> kIpv4Cases = {
    {"0.0.0.0/8", "0.0.0.0", "0.255.255.255", "", "1.0.0.0"},
    {"10.0.0.0/8", "10.0.0.0", "10.255.255.255", "9.255.255.255", "11.0.0.0"},
    {"100.64.0.0/10", "100.64.0.0", "100.127.255.255", "100.63.255.255", "100.128.0.0"},
    {"127.0.0.0/8", "127.0.0.0", "127.255.255.255", "126.255.255.255", "128.0.0.0"},
    {"169.254.0.0/16", "169.254.0.0", "169.254.255.255", "169.253.255.255", "169.255.0.0"},
    {"172.16.0.0/12", "172.16.0.0", "172.31.255.255", "172.15.255.255", "172.32.0.0"},
    {"192.0.0.0/24", "192.0.0.0", "192.0.0.255", "191.255.255.255", "192.0.1.0"},
    {"192.168.0.0/16", "192.168.0.0", "192.168.255.255", "192.167.255.255", "192.169.0.0"},
    {"198.18.0.0/15", "198.18.0.0", "198.19.255.255", "198.17.255.255", "198.20.0.0"},
    {"224.0.0.0/4", "224.0.0.0", "239.255.255.255", "223.255.255.255", ""},
    {"240.0.0.0/4", "240.0.0.0", "255.255.255.255", "", ""},
};

const std::vector<RangeCase> kIpv6Cases = {
    {"::/128", "::", "::", "", ""},
    {"::1/128", "::1", "::1", "", ""},
    {"::/96", "::2", "::ffff:ffff", "", ""},
    {"fc00::/7", "fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
     "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fe00::"},
    {"fe80::/10", "fe80::", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
     "fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ""},
    {"fec0::/10", "fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "", ""},
    {"ff00::/8", "ff00::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "", ""},
    {"64:ff9b:1::/48", "64:ff9b:1::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
     "64:ff9b:0:ffff:ffff:ffff:ffff:ffff", "64:ff9b:2::"},
};

IpAddress Parse(std::string_view text) {
  const auto a = IpAddress::parse(text);
  EXPECT_TRUE(a.has_value()) << text;
  return a.value_or(IpAddress{});
}

std::optional<RefusedRange> Refused(std::string_view text) {
  return refused_range(Parse(text));
}

// The IPv6 forms that carry an IPv4 address.
std::string Mapped(std::string_view v4) {
  return "::ffff:" + std::string(v4);
}
std::string Nat64(std::string_view v4) {
  return "64:ff9b::" + std::string(v4);
}
std::string SixToFour(std::string_view v4) {
  const IpAddress a = Parse(v4);
  char out[64];
  std::snprintf(out, sizeof out, "2002:%02x%02x:%02x%02x::1", a.bytes[0], a.bytes[1], a.bytes[2],
                a.bytes[3]);
  return out;
}

void ExpectRefusedIn(std::string_view address, std::string_view cidr,
                     std::string_view embedded_as = {}) {
  const auto r = Refused(address);
  ASSERT_TRUE(r.has_value()) << address << " should be refused";
  EXPECT_EQ(r->cidr, cidr) << address;
  EXPECT_NE(r->embedded_as.find(embedded_as), std::string_view::npos) << address;
  if (embedded_as.empty()) {
    EXPECT_TRUE(r->embedded_as.empty()) << address;
  }
}

void ExpectAllowed(std::string_view address) {
  const auto r = Refused(address);
  EXPECT_FALSE(r.has_value()) << address << " refused as " << (r ? r->cidr : "");
}

TEST(AddressPolicy, EveryIpv4RangeIsRefusedFromItsFirstToItsLastAddress) {
  for (const auto& c : kIpv4Cases) {
    ExpectRefusedIn(c.first, c.cidr);
    ExpectRefusedIn(c.last, c.cidr);
  }
}

TEST(AddressPolicy, TheAddressesJustOutsideEachIpv4RangeAreAllowed) {
  for (const auto& c : kIpv4Cases) {
    if (!c.before.empty()) ExpectAllowed(c.before);
    if (!c.after.empty()) ExpectAllowed(c.after);
  }
}

TEST(AddressPolicy, EveryIpv6RangeIsRefusedFromItsFirstToItsLastAddress) {
  for (const auto& c : kIpv6Cases) {
    ExpectRefusedIn(c.first, c.cidr);
    ExpectRefusedIn(c.last, c.cidr);
  }
}

TEST(AddressPolicy, TheAddressesJustOutsideEachIpv6RangeAreAllowedUnlessTheNextRangeStarts) {
  for (const auto& c : kIpv6Cases) {
    if (!c.before.empty()) ExpectAllowed(c.before);
    if (!c.after.empty()) ExpectAllowed(c.after);
  }
  // Ranges that touch: each edge belongs to its neighbour.
  ExpectRefusedIn("::2", "::/96");
  ExpectRefusedIn("fec0::", "fec0::/10");
  ExpectRefusedIn("ff00::", "ff00::/8");
}

TEST(AddressPolicy, EveryIpv4RangeIsRefusedAsIpv4MappedNat64And6to4) {
  for (const auto& c : kIpv4Cases) {
    for (const auto v4 : {c.first, c.last}) {
      ExpectRefusedIn(Mapped(v4), c.cidr, "IPv4-mapped");
      ExpectRefusedIn(Nat64(v4), c.cidr, "NAT64");
      ExpectRefusedIn(SixToFour(v4), c.cidr, "6to4");
    }
  }
}

TEST(AddressPolicy, APublicIpv4AddressIsAllowedInEveryForm) {
  for (const auto v4 : {"8.8.8.8", "1.1.1.1", "93.184.216.34", "223.255.255.255"}) {
    ExpectAllowed(v4);
    ExpectAllowed(Mapped(v4));
    ExpectAllowed(Nat64(v4));
    ExpectAllowed(SixToFour(v4));
  }
}

TEST(AddressPolicy, PublicIpv6AddressesAreAllowed) {
  ExpectAllowed("2606:4700:4700::1111");
  ExpectAllowed("2001:4860:4860::8888");
  ExpectAllowed("2a00:1450:4001:82a::200e");
}

TEST(AddressPolicy, TheDescriptionNamesTheAddressTheRangeAndTheEmbedding) {
  EXPECT_EQ(Refused("127.0.0.1")->describe(Parse("127.0.0.1")),
            "127.0.0.1 is in 127.0.0.0/8 (loopback)");
  EXPECT_EQ(Refused("::ffff:10.1.2.3")->describe(Parse("::ffff:10.1.2.3")),
            "::ffff:10.1.2.3 is in 10.0.0.0/8 (private) as IPv4-mapped (::ffff:0:0/96)");
  EXPECT_EQ(Refused("::1")->describe(Parse("::1")), "::1 is in ::1/128 (loopback)");
}

TEST(AddressPolicy, OnlyAnAddressParsesAsOne) {
  for (const auto text :
       {"localhost", "1.2.3", "1.2.3.4.5", "[::1]", "::1%lo", "", "256.0.0.1", " 1.2.3.4"}) {
    EXPECT_FALSE(IpAddress::parse(text).has_value()) << text;
  }
}

TEST(AddressPolicy, ASocketAddressIsJudgedByItsAddress) {
  sockaddr_in in{};
  in.sin_family = AF_INET;
  in.sin_port = htons(443);
  inet_pton(AF_INET, "169.254.169.254", &in.sin_addr);
  const auto v4 = IpAddress::from_sockaddr(reinterpret_cast<const sockaddr*>(&in), sizeof in);
  ASSERT_TRUE(v4.has_value());
  EXPECT_EQ(refused_range(*v4)->cidr, "169.254.0.0/16");

  sockaddr_in6 in6{};
  in6.sin6_family = AF_INET6;
  inet_pton(AF_INET6, "64:ff9b::a00:1", &in6.sin6_addr);
  const auto v6 = IpAddress::from_sockaddr(reinterpret_cast<const sockaddr*>(&in6), sizeof in6);
  ASSERT_TRUE(v6.has_value());
  EXPECT_EQ(refused_range(*v6)->cidr, "10.0.0.0/8");

  sockaddr_un un{};
  un.sun_family = AF_UNIX;
  EXPECT_FALSE(IpAddress::from_sockaddr(reinterpret_cast<const sockaddr*>(&un), sizeof un));
  // A length too short for its family is not read past.
  EXPECT_FALSE(IpAddress::from_sockaddr(reinterpret_cast<const sockaddr*>(&in6), 8));
}

}  // namespace
}  // namespace licensed
