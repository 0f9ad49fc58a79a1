#include "http/client_address.h"

#include <charconv>

#include "core/text.h"

namespace licensed {
namespace {

std::array<uint8_t, 16> to_bytes16(const boost::asio::ip::address& a, bool& v6) {
  std::array<uint8_t, 16> out{};
  if (a.is_v4()) {
    const auto b = a.to_v4().to_bytes();
    std::copy(b.begin(), b.end(), out.begin());
    v6 = false;
  } else {
    const auto v = a.to_v6();
    if (v.is_v4_mapped()) {
      const auto b = boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, v).to_bytes();
      std::copy(b.begin(), b.end(), out.begin());
      v6 = false;
    } else {
      out = v.to_bytes();
      v6 = true;
    }
  }
  return out;
}

}  // namespace

boost::asio::ip::address client_block(const boost::asio::ip::address& address) {
  bool v6 = false;
  auto bytes = to_bytes16(address, v6);
  if (!v6) {
    return boost::asio::ip::address_v4({bytes[0], bytes[1], bytes[2], bytes[3]});
  }
  std::fill(bytes.begin() + 8, bytes.end(), uint8_t{0});
  return boost::asio::ip::address_v6(bytes);
}

std::string ip_bucket_key(std::string_view client_ip) {
  if (client_ip.find(':') == std::string_view::npos) return std::string(client_ip);
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(std::string(client_ip), ec);
  if (ec) return std::string(client_ip);
  return client_block(address).to_string();
}

Result<CidrBlock> CidrBlock::parse(std::string_view text) {
  const auto slash = text.find('/');
  boost::system::error_code ec;
  const auto addr = boost::asio::ip::make_address(std::string(text.substr(0, slash)), ec);
  if (ec) return Error::invalid_argument("trusted_proxies", "not an address: " + std::string(text));
  CidrBlock block;
  block.bytes_ = to_bytes16(addr, block.v6_);
  const int max_prefix = block.v6_ ? 128 : 32;
  block.prefix_ = max_prefix;
  if (slash != std::string_view::npos) {
    const auto p = text.substr(slash + 1);
    int prefix = -1;
    const auto [ptr, err] = std::from_chars(p.data(), p.data() + p.size(), prefix);
    if (err != std::errc() || ptr != p.data() + p.size() || prefix < 0 || prefix > max_prefix) {
      return Error::invalid_argument("trusted_proxies",
                                     "bad prefix length in " + std::string(text));
    }
    block.prefix_ = prefix;
  }
  return block;
}

bool CidrBlock::contains(const boost::asio::ip::address& address) const {
  bool v6 = false;
  const auto b = to_bytes16(address, v6);
  if (v6 != v6_) return false;
  int bits = prefix_;
  for (size_t i = 0; i < b.size() && bits > 0; ++i, bits -= 8) {
    const uint8_t mask = bits >= 8 ? 0xff : static_cast<uint8_t>(0xff << (8 - bits));
    if ((b[i] & mask) != (bytes_[i] & mask)) return false;
  }
  return true;
}

TrustedProxies::TrustedProxies(std::vector<CidrBlock> blocks)
    : shared_(std::make_shared<Shared>()) {
  replace(std::move(blocks));
}

void TrustedProxies::replace(std::vector<CidrBlock> blocks) const {
  auto next = std::make_shared<const Blocks>(std::move(blocks));
  MutexLock lock(shared_->mu);
  shared_->blocks = std::move(next);
}

std::shared_ptr<const TrustedProxies::Blocks> TrustedProxies::blocks() const {
  MutexLock lock(shared_->mu);
  return shared_->blocks;
}

bool TrustedProxies::any_contains(const Blocks& blocks, const boost::asio::ip::address& address) {
  for (const auto& b : blocks) {
    if (b.contains(address)) return true;
  }
  return false;
}

bool TrustedProxies::trusts(const boost::asio::ip::address& address) const {
  return any_contains(*blocks(), address);
}

std::string TrustedProxies::client_address(const boost::asio::ip::address& peer,
                                           std::string_view forwarded_for) const {
  const auto in_force = blocks();
  const auto trusts = [&in_force](const boost::asio::ip::address& a) {
    return any_contains(*in_force, a);
  };
  if (!trusts(peer) || forwarded_for.empty()) return peer.to_string();
  // Walk from the right: each hop appended by a trusted proxy is skipped, the first
  // untrusted one is the client. A malformed hop ends the walk there.
  std::string_view rest = forwarded_for;
  std::string client = peer.to_string();
  while (!rest.empty()) {
    const auto comma = rest.rfind(',');
    const std::string_view hop =
        trim_blanks(comma == std::string_view::npos ? rest : rest.substr(comma + 1));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(0, comma);
    boost::system::error_code ec;
    const auto addr = boost::asio::ip::make_address(std::string(hop), ec);
    if (ec) return client;
    client = addr.to_string();
    if (!trusts(addr)) return client;
  }
  return client;
}

}  // namespace licensed
