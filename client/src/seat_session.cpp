#include "seat_session.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <map>

#include "auth/crypto_primitives.h"
#include "core/hex.h"
#include "detached_thread.h"

namespace licensed::client {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// A lost seat is retried no sooner than this, and a wait from retryAfter is capped at an
// hour (docs/protocol.md §21); a transient failure is retried after kRetryTransient.
constexpr milliseconds kMinRetry{5000};
constexpr milliseconds kMaxRetry{3'600'000};
constexpr milliseconds kRetryTransient{10'000};
// While a borrowed seat's lease file holds, the session looks at it again this often (a
// small file read): when it ends or goes, the session takes a seat of its own.
constexpr milliseconds kRecheckBorrowed{60'000};

struct Registry {
  Mutex mu;
  std::map<std::string, std::weak_ptr<SeatSession>> sessions GUARDED_BY(mu);
};

Registry& registry() {
  static auto* r = new Registry;  // never destroyed: detached threads may outlive statics
  return *r;
}

std::string new_session_id() {
  uint8_t bytes[8] = {};
  if (!crypto::random_bytes(bytes, sizeof(bytes))) return "";
  return "p" + to_hex(bytes, sizeof(bytes));
}

// leaseTtl from a checkout's 200 (seconds), or the contract's default.
int64_t lease_ttl_of(const Answer& a) {
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(a.body, ec);
  const boost::json::value* ttl =
      !ec && v.is_object() ? v.as_object().if_contains("leaseTtl") : nullptr;
  return ttl != nullptr && ttl->is_int64() && ttl->as_int64() >= 60 ? ttl->as_int64() : 900;
}

}  // namespace

const char* seat_state_name(SeatState state) {
  switch (state) {
    case SeatState::kPending:
      return "pending";
    case SeatState::kHeld:
      return "held";
    case SeatState::kLost:
      return "lost";
  }
  return "pending";
}

SeatSession::SeatSession(std::shared_ptr<Client> client, std::string session_id)
    : client_(std::move(client)), session_id_(std::move(session_id)) {}

std::unique_ptr<SeatSession::Handle> SeatSession::join(const std::shared_ptr<Client>& client,
                                                       LostSeat on_lost) {
  Registry& r = registry();
  std::shared_ptr<SeatSession> session;
  {
    MutexLock lock(r.mu);
    auto& slot = r.sessions[client->identity()];
    session = slot.lock();
    if (!session) {
      session = std::make_shared<SeatSession>(client, new_session_id());
      slot = session;
    }
  }
  const int id = session->add(std::move(on_lost));
  return std::make_unique<Handle>(session, id);
}

SeatSession::Handle::~Handle() {
  session_->remove(id_);
}

int SeatSession::add(LostSeat on_lost) {
  bool start = false;
  int id = 0;
  {
    MutexLock lock(mu_);
    id = ++next_id_;
    callbacks_.emplace_back(id, std::move(on_lost));
    start = !std::exchange(started_, true);
  }
  if (start) {
    // The thread holds the session: it checks in after the last instance has gone.
    std::shared_ptr<SeatSession> self = shared_from_this();
    start_detached([self] { self->run(); });
  }
  return id;
}

void SeatSession::remove(int id) {
  bool last = false;
  {
    MutexLock lock(mu_);
    std::erase_if(callbacks_, [id](const auto& entry) { return entry.first == id; });
    last = callbacks_.empty();
    if (last) ending_ = true;
    // This handle's callback under way: return only after it, unless this is that callback.
    while (calling_ == id && std::this_thread::get_id() != session_thread_) lock.wait(cv_);
  }
  if (!last) return;
  {
    Registry& r = registry();
    MutexLock lock(r.mu);
    auto it = r.sessions.find(client_->identity());
    if (it != r.sessions.end() && it->second.lock().get() == this) r.sessions.erase(it);
  }
  cv_.notify_all();
}

SeatState SeatSession::state() const {
  MutexLock lock(mu_);
  return state_;
}

std::optional<Answer> SeatSession::last_answer() const {
  MutexLock lock(mu_);
  return last_;
}

int SeatSession::holders() const {
  MutexLock lock(mu_);
  return static_cast<int>(callbacks_.size());
}

bool SeatSession::wait_until_decided(milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MutexLock lock(mu_);
  while (state_ == SeatState::kPending) {
    if (lock.wait_until(cv_, deadline) == std::cv_status::timeout) break;
  }
  return state_ != SeatState::kPending;
}

void SeatSession::report_lost(const Answer& why) {
  std::vector<int> ids;
  {
    MutexLock lock(mu_);
    for (const auto& [id, callback] : callbacks_) {
      if (callback) ids.push_back(id);
    }
  }
  for (const int id : ids) {
    LostSeat callback;
    {
      MutexLock lock(mu_);
      const auto it = std::find_if(callbacks_.begin(), callbacks_.end(),
                                   [id](const auto& entry) { return entry.first == id; });
      if (it == callbacks_.end()) continue;  // left meanwhile: never called after that
      callback = it->second;
      calling_ = id;
    }
    callback(why);
    {
      MutexLock lock(mu_);
      calling_ = 0;
    }
    cv_.notify_all();
  }
}

milliseconds SeatSession::borrowed_seat(const Answer& lease) {
  // This computer's borrowed seat is the process's seat: a second one is neither taken
  // nor kept (the session's own lease, if it had one, is given back).
  if (std::exchange(own_lease_, false)) client_->checkin(session_id_);
  {
    MutexLock lock(mu_);
    last_ = lease;
    state_ = SeatState::kHeld;
  }
  cv_.notify_all();
  return kRecheckBorrowed;
}

milliseconds SeatSession::checkout_once() {
  if (auto lease = client_->lease_answer()) return borrowed_seat(*lease);
  const Answer a = client_->checkout(session_id_);
  if (a.ok()) own_lease_ = true;
  bool lost_now = false;
  milliseconds wait = kRetryTransient;
  {
    MutexLock lock(mu_);
    last_ = a;
    if (a.ok()) {
      state_ = SeatState::kHeld;
      wait = milliseconds(lease_ttl_of(a) * 1000 / 3);
    } else if (a.outcome == Outcome::kLimitReached || a.outcome == Outcome::kNotUsable) {
      lost_now = state_ != SeatState::kLost;
      state_ = SeatState::kLost;
      wait = std::clamp(milliseconds(a.retry_after_seconds * 1000), kMinRetry, kMaxRetry);
    }
    // A transient failure changes nothing: a held lease stays live until its end, and the
    // next renewal comes sooner.
  }
  cv_.notify_all();
  if (lost_now) report_lost(a);
  return wait;
}

void SeatSession::run() {
  {
    MutexLock lock(mu_);
    session_thread_ = std::this_thread::get_id();
  }
  for (;;) {
    const milliseconds wait = checkout_once();
    MutexLock lock(mu_);
    const auto until = std::chrono::steady_clock::now() + wait;
    while (!ending_ && !process_exiting()) {
      if (lock.wait_until(cv_, until) == std::cv_status::timeout) break;
    }
    if (ending_ || process_exiting()) break;
  }
  if (own_lease_ && !process_exiting()) client_->checkin(session_id_);
}

}  // namespace licensed::client
