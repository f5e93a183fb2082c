// Top-level behaviour of the qacc binary: help, version, and the exit code of bad invocations.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <utility>

#include "tests/cli/cli_runner.h"

namespace qacc::testing {
namespace {

TEST(QaccMain, HelpListsEverySubcommandAndExitsZero) {
  const CliResult r = RunQacc("--help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* name :
       {"lut", "softmax-tables", "table-memory", "multiplier", "calibrate", "compile"}) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  }
}

TEST(QaccMain, VersionNamesTheCommit) {
  const CliResult r = RunQacc("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("qacc ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(" ("), std::string::npos) << r.out;  // "qacc 0.1.0 (<commit>)"
}

// -o files get the mode of any new file (0666 minus the umask), not mkstemp's 0600.
TEST(QaccMain, OutputFilesRespectTheUmask) {
  const auto dir = ScratchDir("umask");
  const auto file = dir / "m.txt";
  for (const auto& [mask, mode] :
       {std::pair{"022", 0644}, std::pair{"077", 0600}, std::pair{"002", 0664}}) {
    const std::string command = std::string("umask ") + mask + "; " + QACC_BINARY +
                                " multiplier --scale 0.5 -o " + file.string();
    ASSERT_EQ(std::system(command.c_str()), 0);
    struct stat st {};
    ASSERT_EQ(stat(file.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, unsigned(mode)) << "umask " << mask;
    std::filesystem::remove(file);
  }
  std::filesystem::remove_all(dir);
}

TEST(QaccMain, DashOIsStandardOutputAndEmptyIsAnError) {
  const CliResult dash = RunQacc("multiplier --scale 0.5 -o -");
  EXPECT_EQ(dash.exit_code, 0) << dash.err;
  EXPECT_NE(dash.out.find("scale 0.5"), std::string::npos) << dash.out;
  EXPECT_FALSE(std::filesystem::exists("-"));
  const CliResult empty = RunQacc("multiplier --scale 0.5 -o ''");
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("the file name is empty"), std::string::npos) << empty.err;
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
  for (const char* name :
       {"lut", "softmax-tables", "table-memory", "multiplier", "calibrate", "regress"}) {
    const CliResult r = RunQacc(std::string(name) + " --help");
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace qacc::testing
