// A tiny HTTP/1.1 server on 127.0.0.1:0 inside the test process, standing in for a
// service the server under test calls out to (an error tracker): it records every
// request and answers each with a fixed status, or never answers at all.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/http_client.h"

namespace bb {

struct ReceivedRequest {
  std::string method;
  std::string target;
  std::vector<Header> headers;
  std::string body;

  std::optional<std::string> header(std::string_view name) const;  // case-insensitive
  std::string Describe() const;
};

class HttpReceiver {
 public:
  // `status` 0: read requests but never answer (a hung service).
  explicit HttpReceiver(unsigned status = 200);
  ~HttpReceiver();
  HttpReceiver(const HttpReceiver&) = delete;
  HttpReceiver& operator=(const HttpReceiver&) = delete;

  std::uint16_t port() const;
  // Waits until at least `n` requests arrived, at most `deadline` (a failure bound, not
  // a measurement); returns everything received so far.
  std::vector<ReceivedRequest> WaitFor(std::size_t n,
                                       std::chrono::seconds deadline = std::chrono::seconds(30));
  std::vector<ReceivedRequest> Received() const;

  struct State;  // defined in the .cpp, where its sessions need it

 private:
  std::unique_ptr<State> state_;
};

}  // namespace bb
