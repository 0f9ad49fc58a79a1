// Which addresses an outgoing connection (store API calls, webhooks) may reach
// (docs/protocol.md §24): none in the loopback, private, link-local, unspecified, multicast or
// reserved ranges, nor those ranges written as IPv6 (IPv4-mapped, NAT64, 6to4), unless
// the operator allows private addresses (--webhook-allow-private). Pure: no resolution,
// no sockets; the outgoing client applies it to the very address it connects to.
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace licensed {

// An IPv4 or IPv6 address, bytes in network order (an IPv4 one uses the first 4).
struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};

  // Dotted quad or RFC 4291 text (no brackets, no zone); nullopt for anything else.
  static std::optional<IpAddress> parse(std::string_view text);
  // The address of a socket address of family AF_INET or AF_INET6; nullopt otherwise.
  static std::optional<IpAddress> from_sockaddr(const sockaddr* address, size_t length);
  std::string text() const;
};

// A range outgoing connections may not reach, and what it is.
struct RefusedRange {
  std::string_view cidr;  // "127.0.0.0/8"
  std::string_view kind;  // "loopback"
  // For an IPv6 address that embeds an IPv4 one: how ("IPv4-mapped", "NAT64", "6to4");
  // empty otherwise.
  std::string_view embedded_as;

  // "127.0.0.1 is in 127.0.0.0/8 (loopback)", "... as NAT64 (64:ff9b::/96)": for the
  // operator, naming the setting that would allow it is the caller's part.
  std::string describe(const IpAddress& address) const;
};

// The range `address` falls in, or nullopt when it is a public address.
std::optional<RefusedRange> refused_range(const IpAddress& address);

}  // namespace licensed
