// What qacc writes while a long command runs (issue 37, items 10 and 12): on a terminal a progress
// line on standard error, redrawn in place and erased at the end; in a file or a pipe nothing but
// whole lines, never a progress line torn into a row of a table on the other stream. The terminal
// is a pseudo-terminal (tests/cli/pty_runner.h) whose line is redrawn every 10 ms; the commands are
// sized to run a few tenths of a second.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_runner.h"
#include "tests/cli/pty_runner.h"
#include "tests/cli/regress_fake.h"
#include "tests/qacc_binary.h"

namespace qacc::testing {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A terminal's line as it finally reads: the text after its last "\r", the blanks that erased a
// progress line removed.
std::string AsShown(const std::string& line) {
  std::string shown = line.substr(line.rfind('\r') == std::string::npos ? 0 : line.rfind('\r') + 1);
  while (!shown.empty() && (shown.back() == ' ' || shown.back() == '\b')) shown.pop_back();
  return shown;
}

// The progress line was drawn (after a "\r") with `text` at some point, and the line's last
// drawing, whatever stage it showed (a slow build may show the final golden check after the
// lockstep), was erased at the end: what follows it is blanks and "\r" up to the command's own
// output, if any.
void ExpectDrawnAndErased(const std::string& terminal, const std::string& text) {
  ASSERT_NE(terminal.rfind("\r" + text), std::string::npos)
      << "no progress line with '" << text << "':\n"
      << terminal;
  const std::string title = text.substr(0, text.find(": ") + 2);  // "qacc cosim: "
  const size_t drawn = terminal.rfind("\r" + title);
  const size_t erase = terminal.find('\r', drawn + 1);
  ASSERT_NE(erase, std::string::npos) << terminal;
  const size_t end = terminal.find('\r', erase + 1);
  ASSERT_NE(end, std::string::npos) << "the line was not erased:\n" << terminal;
  EXPECT_EQ(terminal.substr(erase + 1, end - erase - 1).find_first_not_of(' '), std::string::npos)
      << terminal;
}

constexpr const char* kLongSoftmax =
    "softmax-tables --n 65536 --in-bits 8 --in-amax 8 --out-bits 8 --error-rows 300 --json";

TEST(Progress, SoftmaxTablesShowsItsErrorRowsOnATerminalOnly) {
  const TerminalResult t = RunQaccOnTerminal(kLongSoftmax);
  ASSERT_EQ(t.exit_code, 0) << t.terminal;
  ExpectDrawnAndErased(t.terminal, "qacc softmax-tables: error rows ");
  EXPECT_TRUE(std::regex_search(t.terminal,
                                std::regex(R"(error rows \d+/1575 rows \(\d+\.\d %\), \d+\.\d s)")))
      << t.terminal;
  // Standard output is as without a terminal, and in a file standard error gets nothing.
  const CliResult plain = RunQacc(kLongSoftmax);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err, "");
  EXPECT_EQ(t.out, plain.out);
}

TEST(Progress, CosimGemmShowsTheLockstepDescriptors) {
  const TerminalResult t = RunQaccOnTerminal("cosim --gemm 192,192,192 --seed 1");
  ASSERT_EQ(t.exit_code, 0) << t.terminal;
  ExpectDrawnAndErased(t.terminal, "qacc cosim: lockstep ");
  EXPECT_TRUE(std::regex_search(t.terminal, std::regex(R"(lockstep \d+/\d+ descriptors \()")))
      << t.terminal;
  EXPECT_NE(t.out.find("  PASS\n"), std::string::npos) << t.out;
}

// --dry-run of a large layer runs the golden executor on the compiled program (2 s at 2048^3, 0.2 s
// at 1024^3).
TEST(Progress, CosimDryRunShowsTheGoldenProgram) {
  const std::string args = "cosim --gemm 1024,1024,1024 --seed 1 --dry-run";
  const TerminalResult t = RunQaccOnTerminal(args);
  ASSERT_EQ(t.exit_code, 0) << t.terminal;
  ExpectDrawnAndErased(t.terminal, "qacc cosim: golden program ");
  EXPECT_TRUE(std::regex_search(t.terminal, std::regex(R"(golden program \d+/\d+ descriptors)")))
      << t.terminal;
  const CliResult plain = RunQacc(args);
  EXPECT_EQ(plain.exit_code, 0);
  EXPECT_EQ(plain.err, "");
}

TEST(Progress, CompileCheckShowsTheGoldenProgram) {
  const TerminalResult t = RunQaccOnTerminal("compile --gemm 1024,1024,1024 --check");
  ASSERT_EQ(t.exit_code, 0) << t.terminal;
  ExpectDrawnAndErased(t.terminal, "qacc compile: golden program ");
  EXPECT_NE(t.out.find("golden check (seed 1): PASS"), std::string::npos) << t.out;
}

// A million float32 activations in an .npy file: the MSE search over them takes 0.2 s.
TEST(Progress, CalibrateShowsItsSearch) {
  const auto dir = ScratchDir("calibrate_progress");
  const auto path = dir / "act.npy";
  {
    constexpr size_t kValues = 1'000'000;
    std::string header =
        "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(kValues) + ",), }";
    header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
    std::ofstream out(path, std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    const uint16_t size = uint16_t(header.size());
    out.put(char(size & 0xff)).put(char(size >> 8)) << header;
    std::mt19937 rng(1);
    std::normal_distribution<float> normal;
    std::vector<float> values(kValues);
    for (float& v : values) v = normal(rng);
    out.write(reinterpret_cast<const char*>(values.data()), std::streamsize(kValues * 4));
  }
  const std::string args = "calibrate " + path.string() + " --method mse";
  const TerminalResult t = RunQaccOnTerminal(args);
  ASSERT_EQ(t.exit_code, 0) << t.terminal;
  ExpectDrawnAndErased(t.terminal, "qacc calibrate: ");
  EXPECT_NE(t.terminal.find("qacc calibrate: mse over 1000000 values, "), std::string::npos)
      << t.terminal;
  const CliResult plain = RunQacc(args);
  EXPECT_EQ(plain.err, "");
  EXPECT_EQ(t.out, plain.out);
  std::filesystem::remove_all(dir);
}

// qacc bench names the mode it measures as it starts it.
TEST(Progress, BenchNamesEachMode) {
  const TerminalResult t = RunQaccOnTerminal("bench -m 64 -n 64 -k 64 --repeat 1");
  ASSERT_EQ(t.exit_code, 0) << t.terminal;
  for (const char* mode : {"RTL only", "model only", "lockstep", "lockstep, --threads 2"}) {
    EXPECT_NE(t.terminal.find(std::string("\rqacc bench: run 1 of 1: ") + mode + ", "),
              std::string::npos)
        << mode << "\n"
        << t.terminal;
  }
  ExpectDrawnAndErased(t.terminal, "qacc bench: run 1 of 1: lockstep, --threads 2");
  EXPECT_NE(t.out.find("lockstep (quantum 1024)"), std::string::npos) << t.out;
}

// A terminal narrower than the line: the line is cut to it (a wrapped line cannot be redrawn).
TEST(Progress, TheLineFitsTheTerminal) {
  const TerminalResult t = RunQaccOnTerminal(kLongSoftmax, false, 30);
  ASSERT_EQ(t.exit_code, 0) << t.terminal;
  for (const std::string& line : Lines(t.terminal)) {
    std::stringstream parts(line);
    for (std::string part; std::getline(parts, part, '\r');) {
      EXPECT_LT(AsShown(part).size(), 30u) << "'" << part << "'";
    }
  }
}

class RegressOutput : public RegressFixture {};

// The table's rows: test, seed, result, cycles, cycles/s, wall seconds.
const std::regex kRow(R"(\S+ +\d+  (pass|fail|crash|timeout|oom|usage) +\d+ +\d+ +\d+\.\d\d)");

// `qacc regress ... > log 2>&1`, as CI and scripts/run.sh run it: every line of the log is whole,
// and says each run once (the table), not twice (a progress line and a row).
TEST_F(RegressOutput, OneLogForBothStreamsHoldsWholeLinesEachRunOnce) {
  const auto log = dir_ / "log";
  // 2 x 60 runs: the table (about 9 KB) is longer than a stdio buffer.
  const std::string command = std::string(QACC_BINARY) + " regress --child-command " +
                              fake_.string() +
                              " --suite gemm --tests gemm_random,gemm_n1 --seeds 60 -j 2 --json " +
                              (dir_ / "r.json").string() + " >" + log.string() + " 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);  // gemm_n1 fails
  const std::vector<std::string> lines = Lines(ReadWholeFile(log));
  int rows = 0;
  const std::regex other(
      R"((|test +seed +result +cycles +cycles/s +wall s|\d+ runs: \d+ passed, \d+ failed; .*)"
      R"(|coverage: .*|  hole: .*|FAIL gemm_n1 seed \d+: .*|  reproduce: qacc cosim .*))");
  for (const std::string& line : lines) {
    if (std::regex_match(line, kRow)) {
      ++rows;
    } else {
      EXPECT_TRUE(std::regex_match(line, other)) << "a torn or unexpected line: '" << line << "'";
    }
  }
  EXPECT_EQ(rows, 120);
}

// Standard output and standard error in two files: the table in one, a line per finished run in
// the other, both whole.
TEST_F(RegressOutput, TwoFilesGetTheTableAndTheRunLines) {
  const CliResult r = Regress("--suite gemm --tests gemm_random,gemm_n1 --seeds 3");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  int rows = 0;
  for (const std::string& line : Lines(r.out)) rows += std::regex_match(line, kRow);
  EXPECT_EQ(rows, 6) << r.out;
  const std::vector<std::string> err = Lines(r.err);
  ASSERT_EQ(err.size(), 6u) << r.err;
  for (const std::string& line : err) {
    EXPECT_TRUE(std::regex_match(line, std::regex(R"(\[\d/6\] (PASS|FAIL) +gemm_\S+ seed \d .*)")))
        << line;
  }
}

// On a terminal: a status line redrawn in place, each failure's line above it, the table's rows
// written past it; at the end the line is erased and every line reads whole.
TEST_F(RegressOutput, ATerminalGetsALiveStatusLine) {
  SetDelay(0.15);
  const TerminalResult t =
      RunQaccOnTerminal("regress --child-command " + fake_.string() +
                            " --suite gemm --tests gemm_random,gemm_n1 --seeds 4",
                        /*stdout_on_terminal=*/true);
  EXPECT_EQ(t.exit_code, 1) << t.terminal;
  EXPECT_TRUE(std::regex_search(
      t.terminal,
      std::regex(R"(\rqacc regress: \d/8 runs \(\d+\.\d %\), \d passed, \d failed, \d running, )"
                 R"(\d+\.\d s)")))
      << t.terminal;
  int rows = 0, failures = 0;
  for (const std::string& line : Lines(t.terminal)) {
    const std::string shown = AsShown(line);
    rows += std::regex_match(shown, kRow);
    failures += std::regex_match(shown, std::regex(R"(\[\d/8\] FAIL +gemm_n1 seed \d .*)"));
    EXPECT_EQ(shown.find("qacc regress:"), std::string::npos) << "not erased: " << line;
    EXPECT_EQ(shown.find("] PASS"), std::string::npos) << "a passing run told twice: " << line;
  }
  EXPECT_EQ(rows, 8) << t.terminal;
  EXPECT_EQ(failures, 4) << t.terminal;
}

}  // namespace
}  // namespace qacc::testing
