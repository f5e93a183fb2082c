// docs/bad_input.md is the table of bad inputs; this test runs every row of it. Each command runs
// from the repository root with OUT in an empty scratch directory and must exit 2, say the row's
// text on standard error, print nothing on standard output and leave the scratch directory empty.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/build_paths.h"
#include "tests/cli/cli_runner.h"

namespace qacc::testing {
namespace {

struct Row {
  int line = 0;
  std::string command;  // as a user types it, starting with "qacc "
  std::string error;    // what standard error must contain
};

// The text between the first pair of backticks from `from` on; npos-safe.
std::string Quoted(const std::string& text, size_t& from) {
  const size_t open = text.find('`', from);
  const size_t close = open == std::string::npos ? open : text.find('`', open + 1);
  if (close == std::string::npos) {
    from = std::string::npos;
    return {};
  }
  from = close + 1;
  return text.substr(open + 1, close - open - 1);
}

std::vector<Row> ReadTable() {
  std::ifstream in(std::string(QACC_SOURCE_DIR) + "/docs/bad_input.md");
  std::vector<Row> rows;
  bool inside = false;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.rfind("<!-- BEGIN bad inputs", 0) == 0) inside = true;
    if (line.rfind("<!-- END bad inputs", 0) == 0) inside = false;
    if (!inside || line.rfind("| ", 0) != 0 || line.find('`') == std::string::npos) continue;
    size_t at = 0;
    Row row{n, Quoted(line, at), Quoted(line, at)};
    rows.push_back(row);
  }
  return rows;
}

TEST(BadInput, EveryRowOfTheTableExitsTwoNamesTheFieldAndLeavesNothing) {
  const std::vector<Row> rows = ReadTable();
  ASSERT_GE(rows.size(), 40u) << "docs/bad_input.md should list at least 40 bad inputs";
  const auto scratch = ScratchDir("bad_input");
  for (const Row& row : rows) {
    const std::string where = "docs/bad_input.md:" + std::to_string(row.line) + ": " + row.command;
    ASSERT_EQ(row.command.rfind("qacc ", 0), 0u) << where;
    ASSERT_FALSE(row.error.empty()) << where;
    std::filesystem::remove_all(scratch / "out");
    std::filesystem::create_directories(scratch / "out");
    std::string args = row.command.substr(5);
    for (size_t at; (at = args.find("OUT")) != std::string::npos;) {
      args.replace(at, 3, (scratch / "out" / "out.file").string());
    }
    const CliResult r = RunQacc(args, QACC_SOURCE_DIR);
    EXPECT_EQ(r.exit_code, 2) << where << "\n" << r.err;
    EXPECT_NE(r.err.find(row.error), std::string::npos)
        << where << "\nwant: " << row.error << "\ngot:  " << r.err;
    EXPECT_TRUE(r.out.empty()) << where << "\n" << r.out;
    EXPECT_TRUE(std::filesystem::is_empty(scratch / "out")) << where << ": a file was left behind";
  }
  std::filesystem::remove_all(scratch);
}

}  // namespace
}  // namespace qacc::testing
