#include "sim/cli/regress_child.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace qacc::cli {

namespace {

void SetNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Reads what is available; closes the fd at EOF (fd = -1).
void Drain(int& fd, std::string& sink) {
  char buffer[65536];
  while (fd >= 0) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      sink.append(buffer, size_t(n));
    } else if (n == 0) {
      close(fd);
      fd = -1;
    } else if (errno == EINTR) {
      continue;
    } else {
      break;  // EAGAIN: nothing more for now
    }
  }
}

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

int ExecWithMemoryLimit(int argc, char** argv) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long mb = argc > 3 ? std::strtoull(argv[2], &end, 10) : 0;
  if (argc <= 3 || end == argv[2] || *end != '\0' || errno != 0 || mb == 0 ||
      mb > (RLIM_INFINITY >> 20)) {
    std::fprintf(stderr, "qacc: error: usage: qacc %s MB EXE [ARGS...] (MB >= 1)\n",
                 kMemoryLimitWrapperFlag);
    return 127;
  }
  const rlimit limit = {rlim_t(mb) << 20, rlim_t(mb) << 20};
  if (setrlimit(RLIMIT_AS, &limit) != 0) {
    std::fprintf(stderr, "qacc: error: cannot set a memory limit of %llu MB: %s\n", mb,
                 std::strerror(errno));
    return 127;
  }
  execv(argv[3], argv + 3);
  std::fprintf(stderr, "qacc: error: cannot run %s under a memory limit of %llu MB: %s\n", argv[3],
               mb, std::strerror(errno));
  return 127;
}

std::vector<std::string> WithMemoryLimit(const std::string& self, int64_t limit_mb,
                                         std::vector<std::string> args) {
  if (limit_mb == 0) return args;
  args.insert(args.begin(), {self, kMemoryLimitWrapperFlag, std::to_string(limit_mb)});
  return args;
}

Child Spawn(const std::vector<std::string>& args, size_t run_index) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    throw std::runtime_error("pipe2 failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group, so that a timeout kills the child and anything it started.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  Child child;
  child.run_index = run_index;
  const int rc = posix_spawn(&child.pid, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    throw std::runtime_error(fmt::format("cannot run {}: {}", args[0], std::strerror(rc)));
  }
  child.out_fd = out_pipe[0];
  child.err_fd = err_pipe[0];
  // A child's exit wakes the poll below at once, instead of at its next timeout.
  // (The syscall itself: Debian 12's <sys/pidfd.h> is not usable from C++.)
  child.pid_fd = static_cast<int>(syscall(SYS_pidfd_open, child.pid, 0));
  if (child.pid_fd >= 0) fcntl(child.pid_fd, F_SETFD, FD_CLOEXEC);
  SetNonBlocking(child.out_fd);
  SetNonBlocking(child.err_fd);
  child.start = std::chrono::steady_clock::now();
  return child;
}

void DrainOutput(Child& child) {
  Drain(child.out_fd, child.out);
  Drain(child.err_fd, child.err);
}

void CloseFds(Child& child) {
  CloseFd(child.out_fd);
  CloseFd(child.err_fd);
  CloseFd(child.pid_fd);
}

void KillGroup(pid_t pid) {
  kill(-pid, SIGKILL);  // the child's own process group (see Spawn)
  kill(pid, SIGKILL);
}

std::string SignalName(int sig) {
  const char* name = nullptr;
  switch (sig) {
    case SIGSEGV:
      name = "SIGSEGV";
      break;
    case SIGABRT:
      name = "SIGABRT";
      break;
    case SIGBUS:
      name = "SIGBUS";
      break;
    case SIGFPE:
      name = "SIGFPE";
      break;
    case SIGILL:
      name = "SIGILL";
      break;
    case SIGKILL:
      name = "SIGKILL";
      break;
    case SIGTERM:
      name = "SIGTERM";
      break;
    case SIGINT:
      name = "SIGINT";
      break;
    case SIGHUP:
      name = "SIGHUP";
      break;
    case SIGPIPE:
      name = "SIGPIPE";
      break;
    default:
      break;
  }
  return name ? fmt::format("{} ({})", name, sig) : fmt::format("signal {}", sig);
}

std::string SelfExecutable() {
  // A descriptor of the running binary, held for the process's life: a rebuild during a long
  // regression unlinks the file, and a path to it would then run the new binary or nothing.
  static const std::string path = [] {
    const int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      throw std::runtime_error(fmt::format("cannot open /proc/self/exe: {}", std::strerror(errno)));
    return fmt::format("/proc/{}/fd/{}", getpid(), fd);
  }();
  return path;
}

}  // namespace qacc::cli
