// Top-level behaviour of the qacc binary: help, version, and the exit code of bad invocations.
#include <gtest/gtest.h>

#include "tests/cli/cli_runner.h"

namespace qacc::testing {
namespace {

TEST(QaccMain, HelpListsEverySubcommandAndExitsZero) {
  const CliResult r = RunQacc("--help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"lut", "softmax-tables", "table-memory", "multiplier", "calibrate"}) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  }
}

TEST(QaccMain, VersionExitsZero) {
  const CliResult r = RunQacc("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("qacc "), std::string::npos);
}

TEST(QaccMain, NoSubcommandIsAUsageError) {
  const CliResult r = RunQacc("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("qacc: error:"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(QaccMain, UnknownSubcommandIsAUsageError) {
  const CliResult r = RunQacc("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("frobnicate"), std::string::npos) << r.err;
}

TEST(QaccMain, SubcommandHelpExitsZero) {
  for (const char* name : {"lut", "softmax-tables", "table-memory", "multiplier", "calibrate"}) {
    const CliResult r = RunQacc(std::string(name) + " --help");
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace qacc::testing
