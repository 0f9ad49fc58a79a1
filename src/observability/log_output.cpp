#include "observability/log_output.h"

#include <spdlog/details/file_helper.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <mutex>

#include "observability/log_format.h"

namespace licensed {
namespace {

// A file sink whose file can be opened again by its path while the process runs.
class ReopenableFileSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit ReopenableFileSink(std::string path) : path_(std::move(path)) {}

  // spdlog reports a file it cannot open by exception; this is one of the boundaries.
  Status open() {
    std::lock_guard lock(mutex_);
    try {
      file_.close();
      file_.open(path_, false);
      return Ok{};
    } catch (const spdlog::spdlog_ex& e) {
      return Error::unavailable("cannot open log file " + path_ + ": " + e.what());
    }
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    file_.write(formatted);
  }
  void flush_() override { file_.flush(); }

 private:
  std::string path_;
  spdlog::details::file_helper file_;
};

// Set once at start-up, before any thread logs; read by reopen_log_file on SIGHUP.
std::shared_ptr<ReopenableFileSink>& current_file_sink() {
  static std::shared_ptr<ReopenableFileSink> sink;
  return sink;
}

// A new default logger writing to `sink`, at the level and with the format of the old.
void use_sink(spdlog::sink_ptr sink) {
  const auto level = spdlog::default_logger()->level();
  auto logger = std::make_shared<spdlog::logger>("", std::move(sink));
  logger->set_level(level);
  // Lines are written as they are logged: a crash or SIGKILL loses none.
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(std::move(logger));
  use_log_format(current_log_format());
}

}  // namespace

void log_to_stderr() {
  use_sink(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
}

Status log_to_file(const std::string& path) {
  auto sink = std::make_shared<ReopenableFileSink>(path);
  RETURN_IF_ERROR(sink->open());
  use_sink(sink);
  current_file_sink() = std::move(sink);
  return Ok{};
}

Status reopen_log_file() {
  const auto& sink = current_file_sink();
  if (!sink) return Ok{};
  return sink->open();
}

}  // namespace licensed
