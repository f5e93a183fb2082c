// Runs the qacc binary as at a terminal: standard input and standard error on a pseudo-terminal
// (forkpty), standard output to a file or on the terminal too. What the terminal received is
// returned as written, "\r" and all, with the terminal's "\r\n" for each "\n" made "\n" again.
#ifndef QACC_TESTS_CLI_PTY_RUNNER_H_
#define QACC_TESTS_CLI_PTY_RUNNER_H_

#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "tests/cli/cli_runner.h"
#include "tests/qacc_binary.h"

namespace qacc::testing {

struct TerminalResult {
  int exit_code = -1;
  std::string terminal;  // standard error (and standard output with stdout_on_terminal)
  std::string out;       // standard output, when it went to a file
};

// `args` as for RunQacc. The terminal is `columns` wide; a progress line is redrawn every 10 ms
// (QACC_PROGRESS_INTERVAL_MS), so that runs of a few tenths of a second show their stages.
inline TerminalResult RunQaccOnTerminal(const std::string& args, bool stdout_on_terminal = false,
                                        unsigned short columns = 200) {
  const auto dir = ScratchDir("pty");
  const auto out_path = dir / "stdout";
  const std::string command = "QACC_PROGRESS_INTERVAL_MS=10 " + std::string(QACC_BINARY) + " " +
                              args + (stdout_on_terminal ? "" : " >" + out_path.string());
  winsize size{};
  size.ws_row = 40;
  size.ws_col = columns;
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, &size);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  TerminalResult result;
  if (pid < 0) return result;
  std::string raw;
  char buffer[4096];
  for (;;) {  // read() fails with EIO once the child's side is closed
    const ssize_t n = read(master, buffer, sizeof buffer);
    if (n > 0) {
      raw.append(buffer, size_t(n));
    } else if (!(n < 0 && errno == EINTR)) {
      break;
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  close(master);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\r' && i + 1 < raw.size() && raw[i + 1] == '\n') continue;
    result.terminal.push_back(raw[i]);
  }
  if (!stdout_on_terminal) result.out = ReadWholeFile(out_path);
  std::filesystem::remove_all(dir);
  return result;
}

}  // namespace qacc::testing

#endif  // QACC_TESTS_CLI_PTY_RUNNER_H_
