// sim/cli/path_identity.h: when two names of a command line are one file, and the messages that
// refuse an output naming an input or another output. The commands that use it are tested through
// the binary in tests/cli/main_cli_test.cc.
#include "sim/cli/path_identity.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/cli/common.h"

namespace qacc::cli {
namespace {

namespace fs = std::filesystem;

class PathIdentity : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("qacc_path_identity_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "sub");
    std::ofstream(dir_ / "a") << "a";
    std::ofstream(dir_ / "b") << "b";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string P(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST_F(PathIdentity, ExistingFilesAreTheSameByDeviceAndInode) {
  fs::create_symlink(P("a"), P("link"));
  fs::create_hard_link(P("a"), P("hard"));
  EXPECT_TRUE(SameFile(P("a"), P("a")));
  EXPECT_TRUE(SameFile(P("a"), P("sub/../a")));
  EXPECT_TRUE(SameFile(P("a"), P("link")));
  EXPECT_TRUE(SameFile(P("hard"), P("link")));
  EXPECT_FALSE(SameFile(P("a"), P("b")));
  EXPECT_FALSE(SameFile(P("a"), P("sub")));
}

TEST_F(PathIdentity, NewFilesAreTheSameByParentDirectoryAndName) {
  EXPECT_TRUE(SameFile(P("new"), P("sub/../new")));
  EXPECT_TRUE(SameFile(P("sub/new"), P("./sub/new")));
  EXPECT_FALSE(SameFile(P("new"), P("sub/new")));
  EXPECT_FALSE(SameFile(P("new"), P("a")));  // one exists, the other not
  // Parents that do not exist either: by their normalized names.
  EXPECT_TRUE(SameFile(P("missing/x"), P("missing/./x")));
  EXPECT_FALSE(SameFile(P("missing/x"), P("other/x")));
  // A link to a directory is that directory.
  fs::create_directory_symlink(P("sub"), P("sublink"));
  EXPECT_TRUE(SameFile(P("sub/new"), P("sublink/new")));
}

TEST_F(PathIdentity, DashIsStandardOutputAndOnlyItself) {
  EXPECT_TRUE(SameFile("-", "-"));
  EXPECT_FALSE(SameFile("-", P("a")));
}

std::string Refusal(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  try {
    CheckOutputsDistinct(inputs, outputs);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST_F(PathIdentity, AnOutputNamingAnInputOrAnEarlierOutputIsRefused) {
  EXPECT_EQ(Refusal({{"NETWORK", P("a")}}, {{"--output", P("sub/../a")}}),
            "--output: " + P("sub/../a") + " is also read as NETWORK (" + P("a") +
                "): writing it would destroy that input; give another file");
  EXPECT_EQ(Refusal({}, {{"--waves", P("w")}, {"--output", P("./w")}}),
            "--waves and --output: both write " + P("./w") + "; give each output its own file");
  EXPECT_EQ(Refusal({}, {{"--json", "-"}, {"--junit", "-"}}),
            "--json and --junit: both write standard output; give each output its own "
            "destination");
  // Not given (empty), standard output against an input, distinct files: accepted.
  EXPECT_EQ(Refusal({{"NETWORK", P("a")}, {"--config", ""}},
                    {{"--program", ""}, {"--output", "-"}, {"--coverage", P("b")}}),
            "");
  EXPECT_EQ(Refusal({{"input", P("a")}}, {{"--output", P("new")}, {"--hex", P("sub/new")}}), "");
}

}  // namespace
}  // namespace qacc::cli
