// The fake `qacc cosim` that the tests of qacc regress run instead of the real one (the hidden
// option
// --child-command), and the helpers those tests share: a fixture with a scratch directory holding
// the fake, and a regression started in the background to be signalled.
#ifndef QACC_TESTS_CLI_REGRESS_FAKE_H_
#define QACC_TESTS_CLI_REGRESS_FAKE_H_

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli/cli_runner.h"
#include "tests/qacc_binary.h"

extern char** environ;

namespace qacc::testing {

// Arguments: cosim --test NAME --seed N --config FILE --json [--model-only]. Each call appends
// its arguments to calls.log next to the script, then sleeps for the seconds in the file `delay`
// if there is one. The check run before the regression (--dry-run) passes and is not logged.
// By test name: gemm_k1 crashes, gemm_m1 hangs after writing its pid (its process group) to
// hung.<seed>, gemm_n1 fails with mismatches, prog_corners writes its memory limit (ulimit -v, KB)
// to limit.<seed> and allocates until the limit stops it (without a limit, or with one above 1 GB,
// it fails at once instead), every other test passes with three coverage bins: one always hit, one
// hit by odd seeds, one never.
constexpr const char* kFakeCosim = R"sh(#!/bin/sh
dir=$(dirname "$0")
case " $* " in *" --dry-run "*) exit 0 ;; esac
echo "$@" >> "$dir/calls.log"
test=$3
seed=$5
if [ -f "$dir/delay" ]; then sleep "$(cat "$dir/delay")"; fi
case "$seed" in *[13579]) odd=1 ;; *) odd=0 ;; esac
case "$test" in
  gemm_k1) kill -SEGV $$ ;;
  gemm_m1) echo $$ > "$dir/hung.$seed"; sleep 30 ;;
  gemm_n1)
    echo "{\"test\":\"$test\",\"seed\":$seed,\"config\":\"default\",\"mode\":\"lockstep\",\"pass\":false,\"m\":1,\"n\":1,\"k\":1,\"cycles\":500,\"command_cycles\":400,\"wall_seconds\":0.01,\"cycles_per_second\":50000.0,\"mismatches\":{\"mac\":0,\"requant\":3,\"out_write\":1,\"done\":0,\"output\":2},\"first_mismatch\":{\"cycle\":42,\"unit\":\"requant\"},\"reproduce\":\"qacc cosim --test $test --seed $seed\",\"error\":null}"
    exit 1 ;;
  prog_corners)
    limit=$(ulimit -v)
    echo "$limit" > "$dir/limit.$seed"
    if [ "$limit" = unlimited ] || [ "$limit" -gt 1048576 ]; then
      echo "memory limit $limit KB: not allocating" >&2; exit 3
    fi
    exec tail -n 1 /dev/zero ;;
  gemm_k1_usage) echo "qacc: error: bad" >&2; exit 2 ;;
  *)
    echo "{\"test\":\"$test\",\"seed\":$seed,\"config\":\"default\",\"mode\":\"lockstep\",\"pass\":true,\"m\":4,\"n\":4,\"k\":4,\"cycles\":1000,\"command_cycles\":900,\"wall_seconds\":0.001,\"cycles_per_second\":1000000.0,\"mismatches\":{\"mac\":0,\"requant\":0,\"out_write\":0,\"done\":0,\"output\":0},\"first_mismatch\":null,\"coverage\":{\"bin.always\":1,\"bin.odd_seed\":$odd,\"bin.never\":0},\"reproduce\":\"qacc cosim --test $test --seed $seed\",\"error\":null}" ;;
esac
)sh";

// A scratch directory per test holding the fake child.
class RegressFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ScratchDir(std::string("regress_") +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fake_ = dir_ / "fake_cosim.sh";
    std::ofstream(fake_) << kFakeCosim;
    std::filesystem::permissions(fake_, std::filesystem::perms::owner_all);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  CliResult Regress(const std::string& args) {
    return RunQacc("regress --child-command " + fake_.string() + " " + args);
  }
  nlohmann::json Json(const std::filesystem::path& path) {
    return nlohmann::json::parse(ReadWholeFile(path));
  }
  // Every child sleeps this long before it answers (0: the file is removed).
  void SetDelay(double seconds) {
    if (seconds == 0) {
      std::filesystem::remove(dir_ / "delay");
    } else {
      std::ofstream(dir_ / "delay") << seconds;
    }
  }

  std::filesystem::path dir_, fake_;
};

inline size_t Count(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) {
    ++count;
  }
  return count;
}

// Starts `qacc regress ARGS` (`binary`: a copy of qacc) in the background with stdout to /dev/null
// and stderr to `err`; returns its pid. SIGINT, SIGTERM and SIGHUP reach it with their default
// dispositions, whatever this process inherited, but for SIGHUP with `nohup`: ignored, as `nohup`
// starts it.
inline pid_t StartRegress(const std::vector<std::string>& args, const std::filesystem::path& err,
                          bool nohup = false, const std::string& binary = QACC_BINARY) {
  std::vector<std::string> argv = {binary, "regress"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> c_argv;
  for (std::string& arg : argv) c_argv.push_back(arg.data());
  c_argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  if (!nohup) sigaddset(&defaults, SIGHUP);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  // An ignored signal is inherited as ignored: nohup's way.
  struct sigaction ignore = {}, old = {};
  ignore.sa_handler = SIG_IGN;
  if (nohup) sigaction(SIGHUP, &ignore, &old);
  pid_t pid = -1;
  posix_spawn(&pid, c_argv[0], &actions, &attr, c_argv.data(), environ);
  if (nohup) sigaction(SIGHUP, &old, nullptr);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// Waits up to `seconds` for `text` to appear in the file at `path`.
inline bool WaitForText(const std::filesystem::path& path, const std::string& text,
                        double seconds = 10) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (ReadWholeFile(path).find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// The exit code of `pid` once it has exited (128 + N when killed by signal N).
inline int WaitExitCode(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

inline bool GroupAlive(pid_t pgid) { return kill(-pgid, 0) == 0; }

// A killed process stays in its group until its new parent reaps it: wait a little for that.
inline bool GroupGone(pid_t pgid) {
  for (int i = 0; i < 100 && GroupAlive(pgid); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return !GroupAlive(pgid);
}

// The files in `dir` whose names contain ".tmp": what an interrupted atomic write would leave.
inline std::vector<std::string> TemporaryFiles(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".tmp") != std::string::npos) names.push_back(name);
  }
  return names;
}

}  // namespace qacc::testing

#endif  // QACC_TESTS_CLI_REGRESS_FAKE_H_
