// Runs the qacc binary as a user would and captures its exit code, stdout and stderr.
#ifndef QACC_TESTS_CLI_CLI_RUNNER_H_
#define QACC_TESTS_CLI_CLI_RUNNER_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/qacc_binary.h"

namespace qacc::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A fresh, empty scratch directory under the system temp directory, unique per process and name.
inline std::filesystem::path ScratchDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("qacc_cli_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// `args` is appended to the binary path as is, so quote arguments with spaces. With `cwd`, the binary runs
// in that directory (relative paths in `args` are taken from there).
inline CliResult RunQacc(const std::string& args, const std::string& cwd = "") {
  const auto dir = ScratchDir("run");
  const auto out_path = dir / "stdout";
  const auto err_path = dir / "stderr";
  const std::string command = (cwd.empty() ? std::string() : "cd " + cwd + " && ") + QACC_BINARY + " " +
                              args + " >" + out_path.string() + " 2>" + err_path.string() + " </dev/null";
  const int status = std::system(command.c_str());
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = ReadWholeFile(out_path);
  result.err = ReadWholeFile(err_path);
  std::filesystem::remove_all(dir);
  return result;
}

}  // namespace qacc::testing

#endif  // QACC_TESTS_CLI_CLI_RUNNER_H_
