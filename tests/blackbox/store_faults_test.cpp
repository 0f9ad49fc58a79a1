// Store faults (docs/protocol.md §5, code 1708): a database locked by another process, a full
// disk and a read-only file answer 503 1708 with Retry-After, log the fault by name
// (without license keys or secrets), never crash the server, and pass by themselves when
// the fault clears; a corrupt or unreadable file at start-up is refused with a clear
// message and a non-zero exit by `serve` and `admin` alike.
//
// Needs root for two tests: the full disk is a small tmpfs the test mounts, and the
// read-only and no-permission files need a server that runs as an unprivileged user
// (root ignores file modes). Both skip with the reason when that is not possible.
#include <fcntl.h>
#include <pwd.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "support/db_lock.h"
#include "support/fixture.h"

namespace bb {
namespace {

namespace fs = std::filesystem;

class StoreFaults : public BlackboxTest {
 protected:
  void SetUp() override {
    BlackboxTest::SetUp();
    SKIP_UNLESS_SQLITE();
  }

  // What a client does after a 1708: waits Retry-After and tries again, a bounded number
  // of times. Returns the first answer that is not a 503 (or the last 503).
  HttpResponse RetryWhileUnavailable(std::string_view endpoint, const std::string& body) {
    HttpResponse r;
    for (int attempt = 0; attempt < 30; ++attempt) {
      r = Call(endpoint, body);
      if (r.status != 503) return r;
      const auto wait = r.header("Retry-After");
      std::this_thread::sleep_for(std::chrono::seconds(wait ? std::stoi(*wait) : 1));
    }
    return r;
  }

  // Nothing a client sent in confidence reaches the log.
  void ExpectNoSecretsInLog(const std::vector<std::string>& licenses) {
    const std::string log = server().log();
    EXPECT_EQ(log.find(kPluginKey.secret), std::string::npos) << "the signing secret is logged";
    for (const auto& license : licenses) {
      EXPECT_EQ(log.find(license), std::string::npos) << "license key " << license << " is logged";
    }
  }
};

// 503, code 1708, and a Retry-After header that is a whole number of seconds >= 1.
void ExpectUnavailable(const HttpResponse& r) {
  SCOPED_TRACE("ExpectUnavailable");
  ExpectApiError(r, 503, 1708, "LICENSE_API_UNAVAILABLE");
  const auto retry = r.header("Retry-After");
  ASSERT_TRUE(retry.has_value()) << "no Retry-After on a 503\n" << r.Describe();
  ASSERT_FALSE(retry->empty()) << r.Describe();
  EXPECT_TRUE(std::all_of(retry->begin(), retry->end(), ::isdigit)) << r.Describe();
  EXPECT_GE(std::stoll(*retry), 1) << r.Describe();
}

std::set<std::string> ActivatedMachines(const Admin& admin, const std::string& license) {
  const json::value shown = admin.Show(license);
  std::set<std::string> out;
  for (const auto& m : Arr(shown, "activations")) out.insert(Str(m, "id"));
  return out;
}

std::multiset<std::string> AuditedActivations(const Admin& admin, const std::string& license) {
  const json::value audit = admin.Audit(license);
  std::multiset<std::string> out;
  for (const auto& rec : Arr(audit, "")) {
    if (Str(rec, "action") == "license.activate") out.insert(Str(rec, "machineId"));
  }
  return out;
}

std::string IntegrityCheck(const fs::path& db) {
  sqlite3* conn = nullptr;
  std::string out;
  if (sqlite3_open_v2(db.c_str(), &conn, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(conn, 10'000);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(conn, "PRAGMA integrity_check", -1, &stmt, nullptr) == SQLITE_OK) {
      while (sqlite3_step(stmt) == SQLITE_ROW) {
        out += reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
      }
    }
    sqlite3_finalize(stmt);
  }
  if (out.empty()) out = std::string("cannot check: ") + sqlite3_errmsg(conn);
  sqlite3_close_v2(conn);
  return out;
}

// ---- a database locked by another process ----------------------------------------------

TEST_F(StoreFaults, LockedDatabaseAnswers503WithRetryAfterAndResumesWhenReleased) {
  Start();
  const std::string license = NewLicense(100);
  ASSERT_OK(Activate(license, "before-the-lock"));
  {
    DbLock lock(db_path());
    // Writes wait for the busy timeout, then answer 1708: answered, never hung (the
    // client's own timeout, 60 s, is far above the server's 5 s busy timeout).
    constexpr int kConcurrent = 24;
    std::vector<HttpResponse> answers(kConcurrent);
    std::vector<std::thread> clients;
    const std::uint16_t p = port();
    for (int i = 0; i < kConcurrent; ++i) {
      clients.emplace_back([&, i] {
        const std::string body = Body(license, "during-the-lock-" + std::to_string(i));
        answers[i] = bb::Send(p,
                              SignedRequest(kPluginKey, Endpoint(i % 2 ? "heartbeat" : "activate"),
                                            i % 2 ? Body(license, "before-the-lock") : body),
                              std::chrono::seconds(60));
      });
    }
    for (auto& c : clients) c.join();
    for (const auto& r : answers) ExpectUnavailable(r);
    // WAL lets reads run beside a writer's lock: status keeps answering.
    const HttpResponse status = Status(license, "before-the-lock");
    ASSERT_OK(status);
    EXPECT_TRUE(Bool(BodyJson(status), "valid"));
    EXPECT_TRUE(server().LogEventually("store locked")) << server().log();
  }
  // Released: the very next write goes through, with no restart.
  ASSERT_OK(Activate(license, "after-the-lock"));
  ASSERT_OK(Heartbeat(license, "before-the-lock"));
  EXPECT_TRUE(server().LogEventually("store recovered")) << server().log();

  const std::set<std::string> expected = {"after-the-lock", "before-the-lock"};
  EXPECT_EQ(ActivatedMachines(admin(), license), expected);
  EXPECT_EQ(AuditedActivations(admin(), license),
            std::multiset<std::string>(expected.begin(), expected.end()));
  ExpectNoSecretsInLog({license});
}

// ---- a full disk -------------------------------------------------------------------------

// A tmpfs of a few MiB mounted for one test; unmounted (lazily, should a file still be
// open) when the test ends.
class Tmpfs {
 public:
  explicit Tmpfs(fs::path where) : path_(std::move(where)) {
    fs::create_directories(path_);
    if (::mount("tmpfs", path_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=8m,mode=0755") != 0) {
      error_ = std::strerror(errno);
    }
  }
  ~Tmpfs() {
    if (!error_.empty()) return;
    if (::umount2(path_.c_str(), 0) != 0) ::umount2(path_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  std::string error_;
};

// Fills the file system holding `file` until the kernel says ENOSPC, down to the byte.
void FillDisk(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  const std::string chunk(1 << 16, 'x');
  for (std::size_t size : {std::size_t{1} << 16, std::size_t{4096}, std::size_t{1}}) {
    for (;;) {
      const ssize_t n = ::write(fd, chunk.data(), size);
      if (n > 0) continue;
      ASSERT_TRUE(n < 0 && errno == ENOSPC) << std::strerror(errno);
      break;
    }
  }
  ::close(fd);
}

TEST_F(StoreFaults, FullDiskAnswers503AndResumesWhenSpaceIsFreed) {
  Tmpfs disk(dir().path() / "disk");
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root): " << disk.error();
  const fs::path db = disk.path() / "licensed.db";
  InitStore("sqlite:" + db.string());
  const Admin on_disk("sqlite:" + db.string());
  on_disk.CreateProduct(std::string(kProduct), std::string(kProductName));
  const std::string license = on_disk.CreateLicense(std::string(kProduct), 1000);

  ServerOptions options;
  options.store_flag = false;
  options.args = {"--store", "sqlite:" + db.string()};
  Start(options);
  ASSERT_OK(Activate(license, "before-the-disk-filled"));

  const fs::path filler = disk.path() / "filler";
  FillDisk(filler);
  if (HasFatalFailure()) return;

  // Every write now needs a new page of the WAL, which the full disk refuses; each answer
  // is 200 (it fit) or 503, and every 503 must leave nothing behind.
  std::set<std::string> answered_ok = {"before-the-disk-filled"};
  std::set<std::string> answered_unavailable;
  for (int i = 0; i < 200 && answered_unavailable.empty(); ++i) {
    const std::string machine = "while-full-" + std::to_string(i);
    const HttpResponse r = Activate(license, machine);
    if (r.status == 200) {
      answered_ok.insert(machine);
    } else {
      ExpectUnavailable(r);
      answered_unavailable.insert(machine);
    }
  }
  ASSERT_FALSE(answered_unavailable.empty()) << "the full disk never showed";
  ExpectUnavailable(Heartbeat(license, "before-the-disk-filled"));
  // Reads need no space.
  ASSERT_OK(Status(license, "before-the-disk-filled"));
  EXPECT_TRUE(server().LogEventually("store disk full")) << server().log();

  fs::remove(filler);
  const HttpResponse after = RetryWhileUnavailable("activate", Body(license, "after-space-freed"));
  ASSERT_OK(after);
  answered_ok.insert("after-space-freed");
  ASSERT_OK(Heartbeat(license, "before-the-disk-filled"));
  const HttpResponse status = Status(license, "after-space-freed");
  ASSERT_OK(status);
  EXPECT_TRUE(Bool(BodyJson(status), "valid")) << status.Describe();

  const std::set<std::string> activated = ActivatedMachines(on_disk, license);
  EXPECT_EQ(activated, answered_ok) << "a 200 was lost or a 503 was kept";
  EXPECT_EQ(AuditedActivations(on_disk, license),
            std::multiset<std::string>(activated.begin(), activated.end()));
  ExpectNoSecretsInLog({license});

  // The server must let go of the tmpfs before it is unmounted.
  const int stopped = Stop();
  EXPECT_TRUE(WIFEXITED(stopped) && WEXITSTATUS(stopped) == 0) << "wait status " << stopped;
  EXPECT_EQ(IntegrityCheck(db), "ok");
}

// ---- files this process may not write or read -------------------------------------------

// root ignores file modes, so these tests run the server (and the admin CLI) as the
// unprivileged user `nobody` via setpriv(1). A chmod does not reach a server that already
// has the file open (the kernel checks permissions at open(2) only), and a read-only
// remount is refused while it holds the file open for writing (EBUSY); so "the file
// became read-only" is tested as it reaches a server in practice: at its next start
// (after a restore, a deploy or a crash), with the server then left running until the
// operator fixes the mode.
class UnprivilegedStoreFaults : public StoreFaults {
 protected:
  void SetUp() override {
    StoreFaults::SetUp();
    if (IsSkipped()) return;
    const passwd* pw = ::getpwnam("nobody");
    if (::geteuid() != 0 || pw == nullptr || ::access("/usr/bin/setpriv", X_OK) != 0) {
      GTEST_SKIP() << "needs root, the user nobody and /usr/bin/setpriv";
    }
    uid_ = pw->pw_uid;
    gid_ = pw->pw_gid;
    // The temp dir is 0700 root; nobody needs to create the -wal and -shm files in it.
    fs::permissions(dir().path(), fs::perms::all);
    // A checkout or TMPDIR under a private directory (/root) is out of nobody's reach.
    std::vector<std::string> probe = AsNobody();
    probe.insert(probe.end(), {"/bin/sh", "-c", "test -x \"$0\" && test -w \"$1\"",
                               LicensedBinary(), dir().path().string()});
    if (const CommandResult r = RunCommand(probe); r.exit_code != 0) {
      GTEST_SKIP() << "nobody cannot run " << LicensedBinary() << " or write in " << dir().path()
                   << " (a parent directory is private)";
    }
  }

  std::vector<std::string> AsNobody() const {
    return {"/usr/bin/setpriv", "--reuid=" + std::to_string(uid_),
            "--regid=" + std::to_string(gid_), "--clear-groups", "--"};
  }
  void GiveToNobody(const fs::path& file) const {
    ASSERT_EQ(::chown(file.c_str(), uid_, gid_), 0) << file << ": " << std::strerror(errno);
  }
  ServerOptions NobodyServer() const {
    ServerOptions options;
    options.command_prefix = AsNobody();
    return options;
  }

 private:
  uid_t uid_ = 0;
  gid_t gid_ = 0;
};

TEST_F(UnprivilegedStoreFaults, ReadOnlyFileServesReadsAnswers503ForWritesAndResumes) {
  const std::string license = NewLicense(100);
  GiveToNobody(db_path());
  Start(NobodyServer());
  ASSERT_OK(Activate(license, "before-read-only"));
  ASSERT_EQ(WEXITSTATUS(Stop()), 0);

  fs::permissions(db_path(),
                  fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  Start(NobodyServer());
  EXPECT_TRUE(server().LogEventually("store read-only")) << server().log();
  const HttpResponse status = Status(license, "before-read-only");
  ASSERT_OK(status);
  EXPECT_TRUE(Bool(BodyJson(status), "valid")) << status.Describe();
  ExpectUnavailable(Activate(license, "while-read-only"));
  ExpectUnavailable(Heartbeat(license, "before-read-only"));
  ExpectUnavailable(Deactivate(license, "before-read-only"));

  // The operator fixes the mode of the database and of the -wal and -shm files SQLite
  // made beside it (with the database's mode); the server notices by itself.
  for (const char* suffix : {"", "-wal", "-shm"}) {
    const fs::path f = db_path().string() + suffix;
    if (fs::exists(f)) {
      fs::permissions(f, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                             fs::perms::others_read);
    }
  }
  ASSERT_OK(RetryWhileUnavailable("activate", Body(license, "after-read-only")));
  EXPECT_TRUE(server().LogEventually("store writable")) << server().log();
  ASSERT_OK(Heartbeat(license, "before-read-only"));
  // The readers see the writer's new rows (they were opened read-only too).
  const HttpResponse after = Status(license, "after-read-only");
  ASSERT_OK(after);
  EXPECT_TRUE(Bool(BodyJson(after), "valid")) << after.Describe();
  EXPECT_EQ(Int(BodyJson(after), "activations"), 2);

  const std::set<std::string> expected = {"after-read-only", "before-read-only"};
  EXPECT_EQ(ActivatedMachines(admin(), license), expected);
  EXPECT_EQ(AuditedActivations(admin(), license),
            std::multiset<std::string>(expected.begin(), expected.end()));
  ExpectNoSecretsInLog({license});
}

// ---- corrupt and unreadable files at start-up --------------------------------------------

struct Refusal {
  CommandResult serve;
  CommandResult admin;
};

// `licensed serve` and `licensed admin` on `store`, as `prefix` (empty: root).
Refusal RunBoth(const std::string& store, const std::vector<std::string>& prefix = {}) {
  std::vector<std::string> serve = prefix;
  serve.insert(serve.end(), {LicensedBinary(), "serve", "--listen", "127.0.0.1:0", "--store", store,
                             "--signing-key", kPluginKey.id + "=" + kPluginKey.secret});
  std::vector<std::string> admin = prefix;
  admin.insert(admin.end(), {LicensedBinary(), "admin", "--store", store, "license", "show",
                             "3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2c", "--json"});
  return {RunCommand(serve), RunCommand(admin)};
}

// Refused: exit 1, nothing listening, and stderr names the file and `reason`.
void ExpectRefused(const Refusal& r, const fs::path& db, std::string_view reason) {
  for (const CommandResult* c : {&r.serve, &r.admin}) {
    SCOPED_TRACE(c == &r.serve ? "licensed serve" : "licensed admin");
    EXPECT_EQ(c->exit_code, 1) << c->Describe();
    EXPECT_EQ(c->out.find("listening on"), std::string::npos) << c->Describe();
    EXPECT_NE(c->err.find("cannot use database " + db.string()), std::string::npos)
        << c->Describe();
    EXPECT_NE(c->err.find(reason), std::string::npos) << "expected '" << reason << "'\n"
                                                      << c->Describe();
  }
}

std::string ReadAll(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_F(StoreFaults, RandomBytesInsteadOfADatabaseAreRefusedAndLeftAlone) {
  std::mt19937_64 rng(20261121);
  std::string junk(64 * 1024, '\0');
  for (char& c : junk) c = static_cast<char>(rng());
  const fs::path db = dir().WriteFile("junk.db", junk);
  ExpectRefused(RunBoth("sqlite:" + db.string()), db, "not a database");
  EXPECT_EQ(ReadAll(db), junk) << "a refused file must not be changed";
}

TEST_F(StoreFaults, TruncatedDatabaseHeaderIsRefused) {
  // The fixture's database, cut inside its 100-byte header.
  const std::string header = ReadAll(db_path()).substr(0, 60);
  ASSERT_EQ(header.rfind("SQLite format 3", 0), 0u);
  const fs::path db = dir().WriteFile("truncated.db", header);
  ExpectRefused(RunBoth("sqlite:" + db.string()), db, "malformed");
  EXPECT_EQ(ReadAll(db), header);
}

TEST_F(StoreFaults, DirectoryInPlaceOfTheDatabaseIsRefused) {
  const fs::path db = dir().path() / "a-directory.db";
  fs::create_directory(db);
  ExpectRefused(RunBoth("sqlite:" + db.string()), db, "Is a directory");
}

TEST_F(UnprivilegedStoreFaults, DatabaseTheServerMayNotReadIsRefused) {
  fs::permissions(db_path(), fs::perms::owner_read | fs::perms::owner_write);  // 0600 root
  ExpectRefused(RunBoth(store(), AsNobody()), db_path(), "Permission denied");
}

}  // namespace
}  // namespace bb
