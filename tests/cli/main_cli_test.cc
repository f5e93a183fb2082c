// Top-level behaviour of the qacc binary: help, version, and the exit code of bad invocations.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sim/build_paths.h"
#include "tests/cli/cli_runner.h"
#include "tests/qacc_binary.h"

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

// Every file of `dir` (not recursive) with its bytes.
std::map<std::string, std::string> Contents(const std::filesystem::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    files[entry.path().filename().string()] =
        entry.is_directory() ? "<dir>" : ReadWholeFile(entry.path());
  }
  return files;
}

// An output that names an input or another output of the same command is refused before anything
// is written (issue 37: `compile NET.json -o NET.json` replaced the network by the report, exit 0),
// whether the names are equal, differ by ./ or dir/.., or are a symbolic or a hard link. The inputs
// keep their bytes and no file appears.
TEST(QaccMain, AnOutputThatNamesAnInputOrAnotherOutputIsRefused) {
  namespace fs = std::filesystem;
  const fs::path dir = ScratchDir("same_file");
  const fs::path source = QACC_SOURCE_DIR;
  fs::copy_file(source / "configs" / "default.json", dir / "C.json");
  fs::copy_file(source / "docs" / "examples" / "codes_3x4_int8.npy", dir / "ACC.npy");
  fs::copy_file(source / "docs" / "examples" / "codes_3x4_int8.npy", dir / "B.npy");
  fs::copy_file(source / "tests" / "fuzz" / "corpus" / "npy" / "seed-float32_2x2x2.npy",
                dir / "X.npy");
  std::ofstream(dir / "NET.json") << R"({"layers": [{"name": "l1", "m": 8, "n": 8, "k": 8}]})";
  fs::create_symlink("NET.json", dir / "link.json");
  fs::create_hard_link(dir / "X.npy", dir / "hard.npy");
  fs::create_directory(dir / "sub");
  const std::map<std::string, std::string> before = Contents(dir);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"compile NET.json --program NET.json",
       "--program: NET.json is also read as NETWORK (NET.json): writing it would destroy that "
       "input; give another file"},
      {"compile NET.json -o ./NET.json", "--output: ./NET.json is also read as NETWORK (NET.json)"},
      {"compile NET.json -o sub/../NET.json", "--output: sub/../NET.json is also read as NETWORK"},
      {"compile link.json -o NET.json", "--output: NET.json is also read as NETWORK (link.json)"},
      {"compile --gemm 8,8,8 --config C.json -o C.json",
       "--output: C.json is also read as --config"},
      {"calibrate X.npy --method minmax -o hard.npy",
       "--output: hard.npy is also read as FILE (X.npy)"},
      {"calibrate X.npy --method minmax -o X.npy", "--output: X.npy is also read as FILE (X.npy)"},
      {"apply requant ACC.npy -o ACC.npy --scale 0.001", "--output: ACC.npy is also read as input"},
      {"apply add ACC.npy B.npy -o ./B.npy --a-amax 1 --b-amax 1 --out-amax 1",
       "--output: ./B.npy is also read as input2 (B.npy)"},
      {"cosim --test gemm_k1 --seed 1 --config C.json -o C.json",
       "--output: C.json is also read as --config"},
      {"cosim --test gemm_k1 --seed 1 --waves F.fst -o F.fst",
       "--waves and --output: both write F.fst; give each output its own file"},
      {"cosim --test gemm_k1 --seed 1 --waves F.fst --coverage sub/../F.fst",
       "--waves and --coverage: both write sub/../F.fst"},
      {"compile --gemm 8,8,8 --program new.bin -o ./new.bin", "--program and --output: both write"},
      {"bench --config C.json -o ./C.json", "--output: ./C.json is also read as --config"},
      {"regress --suite gemm --seeds 1 --config C.json --junit C.json",
       "--junit: C.json is also read as --config"},
      {"lut --func tanh --in-bits 4 --in-amax 1 --out-bits 8 --hex t.hex -o ./t.hex",
       "--hex and --output: both write ./t.hex"},
      {"softmax-tables --n 4 --in-bits 4 --in-amax 1 --out-bits 8 --hex-prefix p -o p_exp.hex",
       "--hex-prefix and --output: both write p_exp.hex"},
  };
  for (const auto& [args, message] : cases) {
    if (args.rfind("cosim", 0) == 0 || args.rfind("bench", 0) == 0) {
      if (RunQacc("cosim --help").exit_code != 0) continue;  // built without the co-simulation
    }
    const CliResult r = RunQacc(args, dir.string());
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << args << "\n" << r.out;
    EXPECT_EQ(Contents(dir), before) << args << ": a file was changed or left behind";
  }
  // Different files in one directory are fine.
  const CliResult ok = RunQacc("compile NET.json --program net.bin -o net.txt", dir.string());
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(fs::exists(dir / "net.bin") && fs::exists(dir / "net.txt"));
  EXPECT_EQ(ReadWholeFile(dir / "NET.json"), before.at("NET.json"));
  fs::remove_all(dir);
}

// The line of `option` in a --help text (with its continuation lines), or "".
std::string HelpLine(const std::string& help, const std::string& option) {
  std::istringstream in(help);
  std::string line, found;
  bool inside = false;
  while (std::getline(in, line)) {
    const bool starts =
        line.rfind("  " + option + " ", 0) == 0 || line.rfind("  " + option + ",", 0) == 0;
    if (starts) {
      inside = true;
      found = line;
    } else if (inside && line.rfind("      ", 0) == 0) {
      found += "\n" + line;
    } else {
      inside = false;
      if (!found.empty()) break;
    }
  }
  return found;
}

// --help shows the ranges and defaults the options enforce, and says which are required (issue
// 37: `apply lut --in-bits [2 - 16]` enforced 2..8, --gemm showed 1..1048576 for K).
TEST(QaccMain, HelpShowsTheEnforcedRangesAndDefaults) {
  for (const char* op : {"lut", "softmax"}) {
    const std::string help = RunQacc(std::string("apply ") + op + " --help").out;
    EXPECT_NE(HelpLine(help, "--in-bits").find("[2 - 8]"), std::string::npos) << help;
    EXPECT_NE(HelpLine(help, "--out-bits").find("[2 - 16]"), std::string::npos) << help;
  }
  const std::string softmax = RunQacc("apply softmax --help").out;
  EXPECT_NE(HelpLine(softmax, "--out-scale").find("this or --out-amax is required"),
            std::string::npos)
      << softmax;
  const std::string compile = RunQacc("compile --help").out;
  EXPECT_NE(HelpLine(compile, "--config").find("=" + std::string(QACC_SOURCE_DIR)),
            std::string::npos)
      << compile;
  EXPECT_NE(HelpLine(compile, "--seed").find("=1"), std::string::npos) << compile;
  EXPECT_NE(HelpLine(compile, "--gemm").find("M and N 1..1048576, K 1..65535"), std::string::npos)
      << compile;
  const std::string timeout = HelpLine(RunQacc("regress --help").out, "--timeout");
  EXPECT_NE(timeout.find("FLOAT in (0, 1000000]"), std::string::npos) << timeout;
  EXPECT_EQ(timeout.find(">0"), std::string::npos) << timeout;
  EXPECT_EQ(timeout.find("[0 - "), std::string::npos) << timeout;
  if (RunQacc("cosim --help").exit_code == 0) {
    const std::string cosim = RunQacc("cosim --help").out;
    EXPECT_NE(HelpLine(cosim, "--gemm").find("K 1..65535"), std::string::npos) << cosim;
    EXPECT_NE(HelpLine(cosim, "--waves-window").find("With --waves"), std::string::npos) << cosim;
  }
}

// An unknown subcommand of a subcommand is named, as an unknown first word is (issue 37: `apply
// sotfmax` said "A subcommand is required").
TEST(QaccMain, UnknownNestedSubcommandIsNamed) {
  const CliResult r = RunQacc("apply sotfmax x.npy -o y.npy");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown subcommand 'sotfmax' of apply, expected one of: lut, softmax"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(RunQacc("apply --help").exit_code, 0);
}

}  // namespace
}  // namespace qacc::testing
