// Which address a request comes from (docs/protocol.md §11): the socket peer, unless the peer
// is a trusted proxy, in which case the last untrusted hop of X-Forwarded-For.
#pragma once

#include <array>
#include <boost/asio/ip/address.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/mutex.h"
#include "core/result.h"

namespace licensed {

class CidrBlock {
 public:
  // "10.0.0.0/8", "::1/128", or a bare address (a single host).
  static Result<CidrBlock> parse(std::string_view text);
  bool contains(const boost::asio::ip::address& address) const;

 private:
  std::array<uint8_t, 16> bytes_{};
  int prefix_ = 0;
  bool v6_ = false;
};

// The block one client holds: an IPv4 address (an IPv4-mapped IPv6 one as IPv4), or
// the /64 of an IPv6 address, which an ordinary customer line hands out whole. Per-client
// caps count by it, so 2^64 addresses are one client (docs/protocol.md §11).
boost::asio::ip::address client_block(const boost::asio::ip::address& address);

// The key a per-IP rate-limit bucket counts `client_ip` under (docs/protocol.md §11): the text of
// its client_block, so an IPv6 client's whole /64 shares one bucket; an IPv4 address, or a text
// that is no address, stays as it is.
std::string ip_bucket_key(std::string_view client_ip);

// The proxies whose X-Forwarded-For is believed. Copies share one set of blocks, so that
// replace() (a reload on SIGHUP) reaches the copy the server holds; readers take the set
// in force when they begin, so a request is judged by one set throughout.
class TrustedProxies {
 public:
  TrustedProxies() : TrustedProxies(std::vector<CidrBlock>{}) {}
  explicit TrustedProxies(std::vector<CidrBlock> blocks);
  bool trusts(const boost::asio::ip::address& address) const;
  std::string client_address(const boost::asio::ip::address& peer,
                             std::string_view forwarded_for) const;
  // The blocks for this object and every copy of it from now on.
  void replace(std::vector<CidrBlock> blocks) const;

 private:
  using Blocks = std::vector<CidrBlock>;
  struct Shared {
    mutable Mutex mu;
    std::shared_ptr<const Blocks> blocks GUARDED_BY(mu);
  };
  std::shared_ptr<const Blocks> blocks() const;
  static bool any_contains(const Blocks& blocks, const boost::asio::ip::address& address);

  std::shared_ptr<Shared> shared_;
};

}  // namespace licensed
