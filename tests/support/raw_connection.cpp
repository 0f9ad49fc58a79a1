#include "support/raw_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http.hpp>

namespace bb {

namespace http = boost::beast::http;

RawConnection::RawConnection(std::uint16_t port) : RawConnection(port, nullptr) {}

RawConnection::RawConnection(std::uint16_t port, const char* from_address) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return;
  sockaddr_in from{};
  from.sin_family = AF_INET;
  if (from_address != nullptr &&
      (::inet_pton(AF_INET, from_address, &from.sin_addr) != 1 ||
       ::bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0)) {
    ::close(fd_);
    fd_ = -1;
    return;
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

RawConnection::~RawConnection() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawConnection::Write(std::string_view bytes) const {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

long RawConnection::Fill(std::chrono::milliseconds timeout) {
  pollfd p{fd_, POLLIN, 0};
  const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
  if (ready == 0) return -1;
  if (ready < 0) return 0;
  char chunk[8192];
  const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
  if (n <= 0) return 0;
  buffer_.append(chunk, static_cast<size_t>(n));
  return n;
}

HttpResponse RawConnection::Read(std::chrono::milliseconds timeout) {
  HttpResponse out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  http::response_parser<http::string_body> parser;
  parser.eager(true);
  for (;;) {
    boost::beast::error_code ec;
    size_t used = 0;
    if (!buffer_.empty()) {
      used = parser.put(boost::asio::buffer(buffer_.data(), buffer_.size()), ec);
      buffer_.erase(0, used);
    }
    if (ec && ec != http::error::need_more) {
      out.error = "parse: " + ec.message();
      return out;
    }
    if (parser.is_done()) break;
    if (!ec && used > 0) continue;  // the parser may take the rest in a second step
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      out.error = "read: timed out";
      return out;
    }
    const long n = Fill(left);
    if (n < 0) {
      out.error = "read: timed out";
      return out;
    }
    if (n == 0) {
      out.error = "read: connection closed";
      return out;
    }
  }
  const auto& res = parser.get();
  out.status = static_cast<int>(res.result_int());
  for (const auto& field : res) {
    out.headers.push_back({std::string(field.name_string()), std::string(field.value())});
  }
  out.body = res.body();
  return out;
}

bool RawConnection::ClosedByPeer(std::chrono::milliseconds timeout) {
  const size_t before = buffer_.size();
  const long n = Fill(timeout);
  return n == 0 && buffer_.size() == before;
}

}  // namespace bb
