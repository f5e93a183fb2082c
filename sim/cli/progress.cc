#include "sim/cli/progress.h"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <utility>

namespace qacc::cli {

namespace {

// Often enough to look alive, rarely enough to cost nothing (a drawing is one write of a line).
constexpr std::chrono::milliseconds kDrawInterval{200};

// kDrawInterval, or QACC_PROGRESS_INTERVAL_MS (1..10000) from the environment: the tests draw
// every few milliseconds, so that runs of a fraction of a second show their stages, also in the
// slower sanitizer builds.
std::chrono::milliseconds DrawInterval() {
  const char* text = std::getenv("QACC_PROGRESS_INTERVAL_MS");
  if (text == nullptr) return kDrawInterval;
  char* end = nullptr;
  const long ms = std::strtol(text, &end, 10);
  return *text != '\0' && *end == '\0' && ms >= 1 && ms <= 10000 ? std::chrono::milliseconds(ms)
                                                                 : kDrawInterval;
}

// The terminal's width: a longer line would wrap, and "\r" would return to its last part only.
size_t TerminalColumns() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

void WriteToTerminal(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

bool StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

TerminalProgress::TerminalProgress(std::string title)
    : title_(std::move(title)),
      enabled_(StderrIsTerminal()),
      start_(Clock::now()),
      scope_(enabled_ ? this : nullptr) {
  if (!enabled_) return;
  // The ticker takes no signal: they stay with the thread that waits for them (qacc regress's
  // poll ends on SIGINT with EINTR).
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  ticker_ = std::thread([this] { Tick(); });
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

TerminalProgress::~TerminalProgress() { Done(); }

void TerminalProgress::OnProgress(const char* what, const char* unit, uint64_t done,
                                  uint64_t total) {
  std::lock_guard<std::mutex> lock(mutex_);
  status_.clear();
  what_ = what;
  unit_ = unit;
  done_ = done;
  total_ = total;
}

void TerminalProgress::Status(const std::string& text, bool now) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  status_ = text;
  paused_ = false;
  if (now && !stopped_) DrawLocked();
}

void TerminalProgress::Print(std::FILE* stream, const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  const bool was_shown = shown_ > 0;
  EraseLocked();
  std::fwrite(text.data(), 1, text.size(), stream);
  std::fflush(stream);
  if (was_shown) DrawLocked();
}

void TerminalProgress::Hide() {
  std::lock_guard<std::mutex> lock(mutex_);
  EraseLocked();
  paused_ = true;
}

void TerminalProgress::Done() {
  if (!enabled_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    EraseLocked();
  }
  wake_.notify_all();
  ticker_.join();
}

pid_t TerminalProgress::Fork() {
  std::lock_guard<std::mutex> lock(mutex_);
  return fork();
}

void TerminalProgress::Tick() {
  std::unique_lock<std::mutex> lock(mutex_);
  const std::chrono::milliseconds interval = DrawInterval();
  while (!wake_.wait_for(lock, interval, [this] { return stopped_; })) {
    if (!paused_) DrawLocked();
  }
}

void TerminalProgress::DrawLocked() {
  const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  std::string status = status_;
  if (status.empty() && what_ != nullptr) {  // the loops' report, unless a Status() came after
    status = total_ == 0 ? fmt::format("{} {} {}", what_, done_, unit_)
                         : fmt::format("{} {}/{} {} ({:.1f} %)", what_, done_, total_, unit_,
                                       100.0 * double(done_) / double(total_));
  }
  std::string line =
      fmt::format("{}: {}{}{:.1f} s", title_, status, status.empty() ? "" : ", ", seconds);
  const size_t width = TerminalColumns() - 1;  // room for the cursor
  if (line.size() > width) line.resize(width);
  // Blanks over the rest of a longer previous line, then the cursor back after the text.
  const size_t pad = shown_ > line.size() ? shown_ - line.size() : 0;
  WriteToTerminal("\r" + line + std::string(pad, ' ') + std::string(pad, '\b'));
  shown_ = line.size();
}

void TerminalProgress::EraseLocked() {
  if (shown_ == 0) return;
  WriteToTerminal("\r" + std::string(shown_, ' ') + "\r");
  shown_ = 0;
}

}  // namespace qacc::cli
