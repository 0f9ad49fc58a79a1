// The SDK's concurrent-seat session (docs/protocol.md §27): one lease per process and
// configuration, shared by every plugin instance in it (30 instances in a DAW take one
// seat). The first instance to join starts the session's own thread, which checks out,
// renews every leaseTtl / 3, and reports a lost seat (1710, or a renewal that finds the
// lease gone) to every callback. A lost seat never stops anything: the callbacks let a
// plugin lock its editor and new instances, and the thread keeps trying to get a seat
// back. When the last instance leaves, the thread checks in and ends. While this
// computer has a borrowed seat (a valid installed lease file, borrowed_lease.cpp), that is
// the process's seat: the session holds it with no network and takes none of its own.
//
// Threads: join and leave never wait for the network (a plugin's constructor and
// destructor call them); the network runs on the session's detached thread only.
// Callbacks run on that thread. Once a handle is gone its callback is never called, and
// a leave that finds its handle's callback running waits for that callback to return
// (the plugin frees what the callback uses right after): a callback may leave, itself
// included, without waiting for itself.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "core/mutex.h"
#include "license_client.h"

namespace licensed::client {

enum class SeatState { kPending = 0, kHeld = 1, kLost = 2 };
const char* seat_state_name(SeatState state);

class SeatSession : public std::enable_shared_from_this<SeatSession> {
 public:
  using LostSeat = std::function<void(const Answer& why)>;

  // One instance's hold on the process's session of `client`'s configuration. Starts the
  // session when it is the first; never touches the network itself.
  class Handle {
   public:
    Handle(std::shared_ptr<SeatSession> session, int id) : session_(std::move(session)), id_(id) {}
    ~Handle();
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    SeatSession& session() const { return *session_; }

   private:
    std::shared_ptr<SeatSession> session_;
    int id_;
  };

  // `on_lost` (may be empty) is called on the session's thread each time the seat is lost.
  static std::unique_ptr<Handle> join(const std::shared_ptr<Client>& client, LostSeat on_lost = {});

  SeatState state() const EXCLUDES(mu_);
  // The last checkout's answer (nullopt before the first).
  std::optional<Answer> last_answer() const EXCLUDES(mu_);
  // This process's session id: "p" + 16 random hex digits.
  const std::string& session_id() const { return session_id_; }
  // How many instances hold the session.
  int holders() const EXCLUDES(mu_);
  // Waits (tests, and a host that can wait) until the state is not kPending.
  bool wait_until_decided(std::chrono::milliseconds timeout) const EXCLUDES(mu_);

  SeatSession(std::shared_ptr<Client> client, std::string session_id);

 private:
  friend class Handle;
  int add(LostSeat on_lost) EXCLUDES(mu_);
  void remove(int id) EXCLUDES(mu_);
  void run() EXCLUDES(mu_);
  // One checkout; returns how long to wait before the next.
  std::chrono::milliseconds checkout_once() EXCLUDES(mu_);
  void report_lost(const Answer& why) EXCLUDES(mu_);
  // A valid lease file of a borrowed seat is installed: the session holds that seat.
  std::chrono::milliseconds borrowed_seat(const Answer& lease) EXCLUDES(mu_);

  std::shared_ptr<Client> client_;
  const std::string session_id_;
  mutable Mutex mu_;
  mutable std::condition_variable cv_;
  std::vector<std::pair<int, LostSeat>> callbacks_ GUARDED_BY(mu_);
  // The handle whose callback the session's thread is running (0: none), and that thread.
  int calling_ GUARDED_BY(mu_) = 0;
  std::thread::id session_thread_ GUARDED_BY(mu_);
  int next_id_ GUARDED_BY(mu_) = 0;
  bool ending_ GUARDED_BY(mu_) = false;
  bool started_ GUARDED_BY(mu_) = false;
  SeatState state_ GUARDED_BY(mu_) = SeatState::kPending;
  std::optional<Answer> last_ GUARDED_BY(mu_);
  // This session checked a lease of its own out (and has not given it back): only the
  // session's thread reads or writes it.
  bool own_lease_ = false;
};

}  // namespace licensed::client
