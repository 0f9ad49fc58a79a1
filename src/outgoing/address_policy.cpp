#include "outgoing/address_policy.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>
#include <span>

namespace licensed {
namespace {

struct Range {
  std::array<uint8_t, 16> prefix;
  int bits;
  std::string_view cidr;
  std::string_view kind;
};

// The IPv4 ranges of docs/protocol.md §24.
constexpr Range kIpv4Ranges[] = {
    {{0}, 8, "0.0.0.0/8", "unspecified"},
    {{10}, 8, "10.0.0.0/8", "private"},
    {{100, 64}, 10, "100.64.0.0/10", "shared address space (carrier-grade NAT)"},
    {{127}, 8, "127.0.0.0/8", "loopback"},
    {{169, 254}, 16, "169.254.0.0/16", "link-local"},
    {{172, 16}, 12, "172.16.0.0/12", "private"},
    {{192, 0, 0}, 24, "192.0.0.0/24", "reserved (IETF protocol assignments)"},
    {{192, 168}, 16, "192.168.0.0/16", "private"},
    {{198, 18}, 15, "198.18.0.0/15", "reserved (benchmarking)"},
    {{224}, 4, "224.0.0.0/4", "multicast"},
    {{240}, 4, "240.0.0.0/4", "reserved (and broadcast)"},
};

// The IPv6 ranges of docs/protocol.md §24. Beside the usual ones, two "reserved" forms a
// resolver could still hand out: the deprecated IPv4-compatible form (::a.b.c.d, which would
// otherwise pass as ::127.0.0.1) and site-local addresses; and the local-use NAT64 prefix, whose
// translator is the operator's own network. The first match names the address.
constexpr Range kIpv6Ranges[] = {
    {{}, 128, "::/128", "unspecified"},
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 128, "::1/128", "loopback"},
    {{}, 96, "::/96", "reserved (deprecated IPv4-compatible)"},
    {{0xfc}, 7, "fc00::/7", "private (unique local)"},
    {{0xfe, 0x80}, 10, "fe80::/10", "link-local"},
    {{0xfe, 0xc0}, 10, "fec0::/10", "reserved (deprecated site-local)"},
    {{0xff}, 8, "ff00::/8", "multicast"},
    {{0, 0x64, 0xff, 0x9b, 0, 1}, 48, "64:ff9b:1::/48", "reserved (local-use NAT64)"},
};

// IPv6 prefixes that carry an IPv4 address, and where: the IPv4 address is judged.
struct Embedding {
  std::array<uint8_t, 16> prefix;
  int bits;
  std::string_view name;
  size_t offset;  // of the IPv4 address's first byte
};

constexpr Embedding kEmbeddings[] = {
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, 96, "IPv4-mapped (::ffff:0:0/96)", 12},
    {{0, 0x64, 0xff, 0x9b}, 96, "NAT64 (64:ff9b::/96)", 12},
    {{0x20, 0x02}, 16, "6to4 (2002::/16)", 2},
};

bool has_prefix(const std::array<uint8_t, 16>& bytes, const std::array<uint8_t, 16>& prefix,
                int bits) {
  for (int i = 0; i < bits / 8; ++i) {
    if (bytes[i] != prefix[i]) return false;
  }
  const int rest = bits % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (bytes[bits / 8] & mask) == (prefix[bits / 8] & mask);
}

std::optional<RefusedRange> first_match(std::span<const Range> ranges,
                                        const std::array<uint8_t, 16>& bytes) {
  for (const auto& r : ranges) {
    if (has_prefix(bytes, r.prefix, r.bits)) return RefusedRange{r.cidr, r.kind, {}};
  }
  return std::nullopt;
}

}  // namespace

std::optional<IpAddress> IpAddress::parse(std::string_view text) {
  const std::string s(text);
  IpAddress a;
  if (inet_pton(AF_INET, s.c_str(), a.bytes.data()) == 1) return a;
  a.v6 = true;
  if (inet_pton(AF_INET6, s.c_str(), a.bytes.data()) == 1) return a;
  return std::nullopt;
}

std::optional<IpAddress> IpAddress::from_sockaddr(const sockaddr* address, size_t length) {
  IpAddress a;
  if (address->sa_family == AF_INET && length >= sizeof(sockaddr_in)) {
    sockaddr_in in{};
    std::memcpy(&in, address, sizeof in);
    std::memcpy(a.bytes.data(), &in.sin_addr, 4);
    return a;
  }
  if (address->sa_family == AF_INET6 && length >= sizeof(sockaddr_in6)) {
    sockaddr_in6 in6{};
    std::memcpy(&in6, address, sizeof in6);
    a.v6 = true;
    std::memcpy(a.bytes.data(), &in6.sin6_addr, 16);
    return a;
  }
  return std::nullopt;
}

std::string IpAddress::text() const {
  char out[INET6_ADDRSTRLEN] = {};
  inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), out, sizeof out);
  return out;
}

std::string RefusedRange::describe(const IpAddress& address) const {
  std::string out = address.text() + " is in " + std::string(cidr) + " (" + std::string(kind) + ")";
  if (!embedded_as.empty()) out += " as " + std::string(embedded_as);
  return out;
}

std::optional<RefusedRange> refused_range(const IpAddress& address) {
  if (!address.v6) return first_match(kIpv4Ranges, address.bytes);
  for (const auto& e : kEmbeddings) {
    if (!has_prefix(address.bytes, e.prefix, e.bits)) continue;
    std::array<uint8_t, 16> v4{};
    std::memcpy(v4.data(), address.bytes.data() + e.offset, 4);
    auto range = first_match(kIpv4Ranges, v4);
    if (range) range->embedded_as = e.name;
    return range;
  }
  return first_match(kIpv6Ranges, address.bytes);
}

}  // namespace licensed
