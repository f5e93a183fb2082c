// `qacc cosim` as the regression runner and a user run it: a smoke set in lockstep on both shipped
// configurations (pass, exit code 0, the JSON schema of docs/cosim.md), model-only agreement, and
// the self-checks of the checker: injected faults are caught with a precise first-mismatch report
// and a reproduce line that reproduces them, --waves writes an FST of the window around the first
// mismatch only on a mismatch, and the watchdog ends a hung run.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "model/arch.h"
#include "sim/build_paths.h"
#include "sim/cosim/scoreboard.h"
#include "tests/cli/cli_runner.h"

namespace qacc {
namespace {

using testing::RunQacc;
using Json = nlohmann::json;

std::string ConfigPath(const std::string& name) {
  return std::string(QACC_SOURCE_DIR) + "/configs/" + name + ".json";
}

// Runs `qacc cosim ... --json` and parses stdout.
Json RunCosimJson(const std::string& args, int expected_exit) {
  const testing::CliResult r = RunQacc("cosim " + args + " --json");
  EXPECT_EQ(r.exit_code, expected_exit) << args << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err;
  try {
    return Json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "no JSON on stdout for " << args << ": " << e.what() << "\n" << r.out;
    return Json::object();
  }
}

// The schema the regression runner and dashboards parse (docs/cosim.md).
void ExpectMismatchSchema(const Json& m) {
  for (const char* key : {"cycle", "lane", "tile", "tile_row", "row", "col", "command_index"}) {
    EXPECT_TRUE(m[key].is_number_integer()) << key;
  }
  for (const char* key : {"unit", "what", "command"}) EXPECT_TRUE(m[key].is_string()) << key;
  // Numbers where the value is one; a text only for what is not (e.g. "no beat").
  for (const char* key : {"expected", "actual"}) {
    ASSERT_TRUE(m.contains(key)) << key;
    if (m[key].is_string()) {
      const std::string text = m[key];
      EXPECT_TRUE(text.find_first_not_of("-0123456789") != std::string::npos &&
                  text.rfind("0x", 0) != 0)
          << key << " is a number written as a string: " << text;
    } else {
      EXPECT_TRUE(m[key].is_number_integer()) << key;
    }
  }
  EXPECT_EQ(m.size(), 12u) << m.dump();
}

void ExpectSchema(const Json& j) {
  const std::vector<std::pair<std::string, Json::value_t>> fields = {
      {"test", Json::value_t::string},
      {"suite", Json::value_t::string},
      {"seed", Json::value_t::number_unsigned},
      {"config", Json::value_t::string},
      {"config_name", Json::value_t::string},
      {"mode", Json::value_t::string},
      {"threads", Json::value_t::number_integer},
      {"rtl_thread_cycles", Json::value_t::number_integer},
      {"tool", Json::value_t::object},
      {"pass", Json::value_t::boolean},
      {"m", Json::value_t::number_integer},
      {"n", Json::value_t::number_integer},
      {"k", Json::value_t::number_integer},
      {"command", Json::value_t::string},
      {"commands", Json::value_t::number_integer},
      {"launches", Json::value_t::number_integer},
      {"launch_cycle", Json::value_t::number_integer},
      {"cycles", Json::value_t::number_integer},
      {"command_cycles", Json::value_t::number_integer},
      {"wall_seconds", Json::value_t::number_float},
      {"cycles_per_second", Json::value_t::number_float},
      {"mismatches", Json::value_t::object},
      {"first_mismatches", Json::value_t::object},
      {"reproduce", Json::value_t::string}};
  for (const auto& [key, type] : fields) {
    ASSERT_TRUE(j.contains(key)) << key;
    if (type == Json::value_t::number_integer) {
      EXPECT_TRUE(j[key].is_number_integer()) << key;
    } else if (type == Json::value_t::number_unsigned) {
      EXPECT_TRUE(j[key].is_number_integer()) << key;
    } else if (type == Json::value_t::number_float) {
      EXPECT_TRUE(j[key].is_number()) << key;
    } else {
      EXPECT_EQ(j[key].type(), type) << key;
    }
  }
  EXPECT_TRUE(j["tool"]["version"].is_string());
  EXPECT_TRUE(j["tool"]["commit"].is_string());
  for (const char* key : {"first_mismatch", "error", "waves", "coverage"}) {
    ASSERT_TRUE(j.contains(key)) << key;
  }
  // Coverage: every bin of the model in lockstep (hit or not), none with --model-only.
  if (j["mode"] == "lockstep") {
    ASSERT_TRUE(j["coverage"].is_object());
    EXPECT_TRUE(j["coverage"].contains("rule.BAD_SHAPE.first_illegal"));
    EXPECT_TRUE(j["coverage"].contains("shift.-31"));
  } else {
    EXPECT_TRUE(j["coverage"].is_null());
  }
  EXPECT_TRUE(j["error"].is_null() || j["error"].is_string());
  // The last program's outcome and counters (data_movement.md 17.8), null without a program.
  ASSERT_TRUE(j.contains("program"));
  EXPECT_TRUE(j["program"].is_null() || j["program"].is_object());
  EXPECT_EQ(j.size(), fields.size() + 5) << j.dump();
  for (const char* unit :
       {"mac_in", "mac", "requant", "out_write", "done", "status", "command", "bus", "mem_port",
        "queue", "dma_sram", "move", "sram", "output", "ext_mem", "program"}) {
    ASSERT_TRUE(j["mismatches"].contains(unit)) << unit;
    EXPECT_TRUE(j["mismatches"][unit].is_number_integer());
    // The first mismatch of each unit, as the text report prints it.
    ASSERT_TRUE(j["first_mismatches"].contains(unit)) << unit;
    const Json& first = j["first_mismatches"][unit];
    EXPECT_EQ(first.is_null(), j["mismatches"][unit] == 0) << unit;
    if (!first.is_null()) ExpectMismatchSchema(first);
  }
  EXPECT_EQ(j["mismatches"].size(), size_t(cosim::kNumCheckUnits));
  EXPECT_EQ(j["first_mismatches"].size(), size_t(cosim::kNumCheckUnits));
  if (!j["first_mismatch"].is_null()) ExpectMismatchSchema(j["first_mismatch"]);
}

// The (first) command's cycle 0.
int64_t LaunchCycle(const Json& j) { return j["launch_cycle"]; }

// ---- Smoke: lockstep passes on every configuration ----------------------------------------------
using SmokeParam = std::tuple<std::string, std::string, int>;  // config, test, seed
class CosimSmoke : public ::testing::TestWithParam<SmokeParam> {};

TEST_P(CosimSmoke, LockstepPasses) {
  const auto& [config, test, seed] = GetParam();
  const Json j = RunCosimJson(
      fmt::format("--test {} --seed {} --config {}", test, seed, ConfigPath(config)), 0);
  ExpectSchema(j);
  EXPECT_EQ(j["test"], test);
  EXPECT_EQ(j["seed"], seed);
  EXPECT_EQ(j["mode"], "lockstep");
  EXPECT_TRUE(j["pass"].get<bool>());
  EXPECT_TRUE(j["first_mismatch"].is_null());
  EXPECT_TRUE(j["error"].is_null());
  const arch::ArchConfig arch = arch::LoadArchConfig(ConfigPath(config));
  const arch::Timing timing(arch.rows, arch.cols, j["m"], j["n"], j["k"]);
  EXPECT_EQ(j["command_cycles"].get<int64_t>(), timing.E());
  EXPECT_GT(j["cycles"].get<int64_t>(), timing.E());
}

INSTANTIATE_TEST_SUITE_P(Gemm, CosimSmoke,
                         ::testing::Combine(::testing::Values("default", "rect_4x16", "tall_16x4"),
                                            ::testing::Values("gemm_random", "gemm_k1", "gemm_m1",
                                                              "gemm_n1", "gemm_edges",
                                                              "gemm_per_channel", "gemm_raw_int32",
                                                              "gemm_relu6"),
                                            ::testing::Values(1, 2)),
                         [](const ::testing::TestParamInfo<SmokeParam>& param_info) {
                           return fmt::format("{}_{}_seed{}", std::get<0>(param_info.param),
                                              std::get<1>(param_info.param),
                                              std::get<2>(param_info.param));
                         });

TEST(CosimCli, ModelOnlyAgreesWithLockstep) {
  const std::string args = "--test gemm_edges --seed 3 --config " + ConfigPath("rect_4x16");
  const Json lockstep = RunCosimJson(args, 0);
  const Json model = RunCosimJson(args + " --model-only", 0);
  ExpectSchema(model);
  EXPECT_EQ(model["mode"], "model-only");
  EXPECT_TRUE(model["pass"].get<bool>());
  EXPECT_EQ(model["cycles"], lockstep["cycles"]);
  EXPECT_EQ(model["command_cycles"], lockstep["command_cycles"]);
}

TEST(CosimCli, SameSeedSameResult) {
  const std::string args = "--test gemm_random --seed 7";
  Json a = RunCosimJson(args, 0), b = RunCosimJson(args, 0);
  for (Json* j : {&a, &b}) {
    j->erase("wall_seconds");
    j->erase("cycles_per_second");
  }
  EXPECT_EQ(a, b);
}

// --threads 2 runs the RTL ahead on a second thread while a command runs: every result but the
// timing is that of one thread, for passing runs of each suite and shipped config, runs that fail
// (a monitor fault, a late beat, a model one stage long) and a run the watchdog ends.
TEST(CosimThreads, TwoThreadsGiveTheResultsOfOne) {
  const std::vector<std::string> cases = {
      "--test gemm_random --seed 7",
      "--test gemm_edges --seed 3 --config " + ConfigPath("rect_4x16"),
      "--test prog_layers --seed 2",
      "--test dma_overlap --seed 3 --config " + ConfigPath("tall_16x4"),
      "--test dma_errors --seed 1",
      "--test dma_ext_fault --seed 2",
      "--test gemm_relu6 --seed 1 --inject-fault mac-value",
      "--test gemm_relu6 --seed 1 --inject-fault mac-late",
      "--test gemm_random --seed 2 --inject-fault requant-latency",
      "--test gemm_edges --seed 1 --inject-fault start-lost --watchdog-cycles 200",
  };
  for (const std::string& args : cases) {
    SCOPED_TRACE(args);
    const int exit = args.find("--inject-fault") == std::string::npos ? 0 : 1;
    Json one = RunCosimJson(args, exit), two = RunCosimJson(args + " --threads 2", exit);
    EXPECT_EQ(one["threads"], 1);
    EXPECT_EQ(two["threads"], 2);
    EXPECT_EQ(one["rtl_thread_cycles"], 0);
    // The second thread ran the cycles of the waits for DONE (of a GEMM test's few hundred
    // cycles, most load operands over APB: those stay on the engine's thread).
    EXPECT_GT(two["rtl_thread_cycles"].get<int64_t>(), 0);
    EXPECT_LE(two["rtl_thread_cycles"].get<int64_t>(), two["cycles"].get<int64_t>());
    for (Json* j : {&one, &two}) {
      for (const char* key :
           {"wall_seconds", "cycles_per_second", "threads", "rtl_thread_cycles"}) {
        j->erase(key);
      }
    }
    EXPECT_EQ(one, two);
  }
  const testing::CliResult bad = RunQacc("cosim --test gemm_random --seed 1 --threads 3");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--threads"), std::string::npos) << bad.err;
  const testing::CliResult model =
      RunQacc("cosim --test gemm_random --seed 1 --threads 2 --model-only");
  EXPECT_EQ(model.exit_code, 2);
  EXPECT_NE(model.err.find("--threads 2: --model-only"), std::string::npos) << model.err;
}

// ---- Self-check of the checker: injected faults -------------------------------------------------
TEST(CosimFault, MacValueReportedPrecisely) {
  const std::string args = "--test gemm_relu6 --seed 1 --inject-fault mac-value";
  const Json j = RunCosimJson(args, 1);
  ExpectSchema(j);
  EXPECT_FALSE(j["pass"].get<bool>());
  EXPECT_EQ(j["mismatches"]["mac"], 1);
  EXPECT_EQ(j["mismatches"]["requant"], 0);
  EXPECT_EQ(j["mismatches"]["output"], 0);
  const Json& f = j["first_mismatch"];
  EXPECT_EQ(f["unit"], "mac");
  EXPECT_EQ(f["lane"], 1);
  EXPECT_EQ(f["tile"], 0);
  EXPECT_EQ(f["row"], 1);  // output row of tile 0, row 1
  EXPECT_EQ(f["col"], 1);
  // Values are JSON numbers (they were strings before).
  ASSERT_TRUE(f["expected"].is_number_integer()) << f.dump();
  ASSERT_TRUE(f["actual"].is_number_integer()) << f.dump();
  EXPECT_EQ(f["expected"].get<int64_t>() ^ 1, f["actual"].get<int64_t>());
  EXPECT_EQ(j["first_mismatches"]["mac"], f);
  const arch::Timing timing(8, 8, j["m"], j["n"], j["k"]);
  EXPECT_EQ(f["cycle"].get<int64_t>(), LaunchCycle(j) + timing.O(0, 1));
  EXPECT_NE(f["command"].get<std::string>().find("GEMM M="), std::string::npos);
  EXPECT_EQ(j["reproduce"], "qacc cosim --test gemm_relu6 --seed 1 --config " +
                                ConfigPath("default") + " --inject-fault mac-value");
}

TEST(CosimFault, HumanReportAndReproduceLine) {
  const testing::CliResult r =
      RunQacc("cosim --test gemm_relu6 --seed 1 --inject-fault requant-value");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("FAIL: 1 mismatches (mac_in 0, mac 0, requant 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("first mismatch: cycle "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unit requant, lane 2, tile 0 row 1"), std::string::npos) << r.out;
  const auto pos = r.out.find("reproduce: qacc ");
  ASSERT_NE(pos, std::string::npos) << r.out;
  // The reproduce line, run as printed, gives the same first mismatch.
  std::string line = r.out.substr(pos + 16);
  line = line.substr(0, line.find('\n'));
  const testing::CliResult again = RunQacc(line);
  EXPECT_EQ(again.exit_code, 1);
  const auto first = [](const std::string& out) {
    const auto p = out.find("first mismatch:");
    return out.substr(p, out.find('\n', p) - p);
  };
  EXPECT_EQ(first(again.out), first(r.out));
}

// The LUT unit's beats are checked lane by lane (lut.md 10.4): one flipped bit of one lane of the
// LUT beat of row 1 is one mismatch of unit lut, at that beat's cycle L(0, 1), and nothing else.
TEST(CosimFault, LutBeatValue) {
  const Json j = RunCosimJson("--test lut_fused --seed 1 --inject-fault lut-value", 1);
  const Json& f = j["first_mismatch"];
  EXPECT_EQ(f["unit"], "lut");
  EXPECT_EQ(f["lane"], 3);
  EXPECT_EQ(f["tile"], 0);
  EXPECT_EQ(f["row"], 1);
  const arch::Timing timing(8, 8, j["m"], j["n"], j["k"], /*with_lut=*/true);
  EXPECT_EQ(f["cycle"].get<int64_t>(), LaunchCycle(j) + timing.L(0, 1));
  EXPECT_EQ(j["mismatches"]["lut"], 1);
  EXPECT_EQ(j["mismatches"]["requant"], 0);
  EXPECT_EQ(j["mismatches"]["out_write"], 0);
}

// ELTWISE's writes are checked byte by byte on mon_out_acc_* (lut.md 10.5): one flipped bit of the
// first one is one mismatch of unit eltwise, naming byte 5, and nothing else (the SRAM holds what
// the RTL wrote, which the model also wrote).
TEST(CosimFault, EltwiseWriteValue) {
  const Json j = RunCosimJson("--test lut_eltwise_chain --seed 1 --inject-fault elt-value", 1);
  const Json& f = j["first_mismatch"];
  EXPECT_EQ(f["unit"], "eltwise");
  EXPECT_EQ(f["what"], "ELTWISE write data byte 5");
  EXPECT_EQ(j["mismatches"]["eltwise"], 1);
  EXPECT_EQ(j["mismatches"]["sram"], 0);
  EXPECT_EQ(j["mismatches"]["program"], 0);
}

TEST(CosimFault, MacBeatOneCycleLate) {
  const Json j = RunCosimJson("--test gemm_relu6 --seed 1 --inject-fault mac-late", 1);
  const Json& f = j["first_mismatch"];
  EXPECT_EQ(f["unit"], "mac");
  EXPECT_EQ(f["lane"], -1);
  EXPECT_EQ(f["tile"], 0);
  EXPECT_EQ(f["row"], 7);
  EXPECT_EQ(f["expected"], "beat tile 0 row 7");
  EXPECT_EQ(f["actual"], "no beat");
  const arch::Timing timing(8, 8, j["m"], j["n"], j["k"]);
  EXPECT_EQ(f["cycle"].get<int64_t>(), LaunchCycle(j) + timing.O(0, 7));
  EXPECT_EQ(j["mismatches"]["mac"], 2);  // missing at O(0,7), unexpected at O(0,7) + 1
  EXPECT_EQ(j["mismatches"]["requant"], 0);
}

// The model's requant unit module one stage too long: the beats the scoreboard checks come from the
// simulated units, so the RTL's requant beats (and everything after them) no longer match, while
// the MAC array's still do and the closed-form register model (BUSY, perf counters) still agrees.
TEST(CosimFault, RequantUnitModuleOneStageLong) {
  const Json j = RunCosimJson("--test gemm_relu6 --seed 1 --inject-fault requant-latency", 1);
  const Json& f = j["first_mismatch"];
  EXPECT_EQ(f["unit"], "requant");
  EXPECT_EQ(f["what"], "unexpected beat");
  const arch::Timing timing(8, 8, j["m"], j["n"], j["k"]);
  EXPECT_EQ(f["cycle"].get<int64_t>(), LaunchCycle(j) + timing.Q(0, 0));
  EXPECT_GT(j["mismatches"]["requant"].get<int64_t>(), 0);
  EXPECT_GT(j["mismatches"]["out_write"].get<int64_t>(), 0);
  EXPECT_EQ(j["mismatches"]["done"], 2);  // unexpected in the RTL's cycle, missing in the units' one later
  EXPECT_EQ(j["mismatches"]["mac"], 0);
  EXPECT_EQ(j["mismatches"]["mac_in"], 0);
  EXPECT_EQ(j["mismatches"]["status"], 0);
  EXPECT_EQ(j["mismatches"]["bus"], 0);
}

TEST(CosimFault, WatchdogEndsHungRun) {
  const Json j =
      RunCosimJson("--test gemm_edges --seed 1 --inject-fault start-lost --watchdog-cycles 200", 1);
  ExpectSchema(j);
  ASSERT_TRUE(j["error"].is_string());
  const std::string error = j["error"];
  EXPECT_NE(error.find("watchdog: cycle "), std::string::npos) << error;
  EXPECT_NE(error.find("200 cycles after its predicted completion"), std::string::npos) << error;
  EXPECT_NE(error.find("unit mac_in stopped"), std::string::npos) << error;
  // The first sign: BUSY stays 0 in the command's cycle 0; then the MAC array's first beat is
  // missing.
  EXPECT_EQ(j["first_mismatch"]["unit"], "status");
  EXPECT_EQ(j["first_mismatch"]["what"], "STATUS.BUSY");
  EXPECT_EQ(j["first_mismatch"]["cycle"], j["launch_cycle"]);
  EXPECT_EQ(j["first_mismatches"]["mac"]["actual"], "no beat");
}

// ---- Waves: an FST of the window around the first mismatch, only on a mismatch ------------------
uint64_t BigEndian64(const std::string& bytes, size_t at) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v = v << 8 | static_cast<uint8_t>(bytes[at + i]);
  return v;
}

// FST header block: type 0, length, then start and end time (1 cycle = 1000 ps).
std::pair<int64_t, int64_t> FstCycles(const std::filesystem::path& fst) {
  const std::string bytes = testing::ReadWholeFile(fst);
  if (bytes.size() <= 33u || bytes[0] != 0) return {-1, -1};
  return {int64_t(BigEndian64(bytes, 9) / 1000), int64_t(BigEndian64(bytes, 17) / 1000)};
}

TEST(CosimWaves, WindowAroundFirstMismatch) {
  const auto dir = testing::ScratchDir("waves");
  const auto fst = dir / "fail.fst";
  const Json j = RunCosimJson("--test gemm_relu6 --seed 1 --inject-fault mac-value --waves " +
                                  fst.string() + " --waves-window 20",
                              1);
  ASSERT_TRUE(std::filesystem::exists(fst));
  const int64_t first = j["first_mismatch"]["cycle"];
  EXPECT_EQ(FstCycles(fst), std::make_pair(first - 20, first + 20));
  EXPECT_EQ(j["waves"], (Json{{"path", fst.string()},
                              {"written", true},
                              {"first_cycle", first - 20},
                              {"last_cycle", first + 20}}));
  std::filesystem::remove_all(dir);
}

// A passing run writes no waves unless asked to, says so, and removes a stale file at the path.
TEST(CosimWaves, PassingRunSaysWhyAndLeavesNoStaleFile) {
  const auto dir = testing::ScratchDir("waves_pass");
  const auto fst = dir / "w.fst";
  std::ofstream(fst) << "an FST from an earlier failing run";
  const testing::CliResult r = RunQacc("cosim --test gemm_relu6 --seed 1 --waves " + fst.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("waves: not written: the run passed"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(fst));
  const Json j = RunCosimJson("--test gemm_relu6 --seed 1 --waves " + fst.string(), 0);
  EXPECT_FALSE(j["waves"]["written"].get<bool>());
  EXPECT_NE(j["waves"]["reason"].get<std::string>().find("passed"), std::string::npos);
  EXPECT_TRUE(RunCosimJson("--test gemm_relu6 --seed 1", 0)["waves"].is_null());
  std::filesystem::remove_all(dir);
}

TEST(CosimWaves, PassingRunOnRequest) {
  const auto dir = testing::ScratchDir("waves_all");
  const auto fst = dir / "all.fst";
  const Json all = RunCosimJson("--test gemm_k1 --seed 2 --waves-all --waves " + fst.string(), 0);
  EXPECT_TRUE(all["waves"]["written"].get<bool>());
  EXPECT_EQ(FstCycles(fst), std::make_pair(int64_t{0}, all["cycles"].get<int64_t>() - 1));
  // The mode of any new file (0666 minus the umask), not the temporary file's 0600.
  const mode_t mask = umask(0);
  umask(mask);
  struct stat st {};
  ASSERT_EQ(stat(fst.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666u & ~mask);
  EXPECT_EQ(all["waves"]["last_cycle"], all["cycles"].get<int64_t>() - 1);
  const Json window =
      RunCosimJson("--test gemm_k1 --seed 2 --waves-cycles 100..150 --waves " + fst.string(), 0);
  EXPECT_EQ(FstCycles(fst), std::make_pair(int64_t{100}, int64_t{150}));
  EXPECT_EQ(window["waves"]["first_cycle"], 100);
  // A window after the end of the run: nothing written, and why.
  const Json late = RunCosimJson(
      "--test gemm_k1 --seed 2 --waves-cycles 1000000..1000001 --waves " + fst.string(), 0);
  EXPECT_FALSE(late["waves"]["written"].get<bool>());
  EXPECT_FALSE(std::filesystem::exists(fst));
  std::filesystem::remove_all(dir);
}

TEST(CosimWaves, BadPathsAreUsageErrorsBeforeTheRun) {
  const auto dir = testing::ScratchDir("waves_bad");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--waves /nonexistent/dir/w.fst", "--waves: directory /nonexistent/dir does not exist"},
      {"--waves ''", "--waves: the file name is empty"},
      {"--waves " + dir.string(), "is a directory"},
      {"--waves /proc/w.fst", "--waves: cannot create a file in /proc"},
      {"--waves-all", "--waves-all needs --waves FILE"},
      {"--waves-cycles 5..2 --waves " + (dir / "w.fst").string(), "FIRST must be <= LAST"},
      {"--waves-cycles x --waves " + (dir / "w.fst").string(), "--waves-cycles: 'x'"},
      {"--waves-all --waves-cycles 1..2 --waves " + (dir / "w.fst").string(), "give one of them"},
  };
  for (const auto& [args, message] : cases) {
    const testing::CliResult r =
        RunQacc("cosim --test gemm_k1 --seed 2 --inject-fault start-lost " + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out << r.err;
    EXPECT_TRUE(r.out.empty()) << args << ": the run started\n" << r.out;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}

// ---- Seeds: the seed that runs is the seed given, or an error naming the range
// ----------------
TEST(CosimSeed, OutOfRangeSeedsAreErrors) {
  for (const std::string seed : {"-1", "abc", "18446744073709551616", "+1", "1e3", "''", "0x10"}) {
    const testing::CliResult r = RunQacc("cosim --test gemm_k1 --seed " + seed);
    EXPECT_EQ(r.exit_code, 2) << seed << "\n" << r.out;
    EXPECT_NE(r.err.find("--seed: "), std::string::npos) << seed << "\n" << r.err;
    EXPECT_NE(r.err.find("0..18446744073709551615"), std::string::npos) << seed << "\n" << r.err;
  }
}

TEST(CosimSeed, LargestSeedRunsAsGiven) {
  const Json j = RunCosimJson("--test gemm_k1 --seed 18446744073709551615 --model-only", 0);
  EXPECT_EQ(j["seed"].get<uint64_t>(), 18446744073709551615u);
  EXPECT_NE(j["reproduce"].get<std::string>().find("--seed 18446744073709551615 "),
            std::string::npos);
}

// ---- Compiled programs (--gemm: CTRL.RUN, data_movement.md 14-18) -------------------------------

// A compiled GEMM layer runs in lockstep and in the model alone with the same program outcome; its
// counters split the cycles (17.8).
TEST(CosimCompiled, GemmLayerPassesWithItsCycleSplit) {
  for (const char* buffering : {"", " --no-double-buffer"}) {
    const std::string args = std::string("--gemm 20,30,40 --seed 2") + buffering;
    const Json j = RunCosimJson(args, 0);
    EXPECT_EQ(j["pass"], true) << j.dump();
    EXPECT_EQ(j["suite"], "compiled");
    const Json& p = j["program"];
    ASSERT_TRUE(p.is_object()) << j.dump();
    EXPECT_EQ(p["error"], "NONE");
    const int64_t cycles = p["cycles"];
    EXPECT_GT(cycles, 0);
    EXPECT_EQ(int64_t(p["compute_only"]) + int64_t(p["dma_only"]) + int64_t(p["overlap"]) +
                  int64_t(p["idle"]),
              cycles);
    // The model alone runs the same program to the same end.
    const Json m = RunCosimJson(args + " --model-only", 0);
    EXPECT_EQ(m["program"], p) << m.dump();
    EXPECT_EQ(m["reproduce"].get<std::string>().find("--gemm 20,30,40"),
              std::string("qacc cosim ").size());
  }
}

// A program longer than one launch (data_movement.md 14.4) runs as several CTRL.RUNs in lockstep,
// each checked against golden, and its cycles, from the first launch to the last DONE, are those
// compile --timing gives with the spec's relaunch cost: the host driver's bus accesses between
// two launches take kRelaunchCycles. On a memory of latency 1 that gives a beat every 64 cycles,
// launches of one descriptor each end right after their last read beat, so when the next
// launch's first beat may come depends on the relaunch's length to the cycle.
TEST(CosimCompiled, LongProgramsRunAsSeveralLaunches) {
  const auto dir = testing::ScratchDir("launches");
  Json config = Json::parse(testing::ReadWholeFile(ConfigPath("default")));
  config["name"] = "slow_memory";
  config["ext_mem"]["latency"] = 1;
  config["ext_mem"]["interval"] = 64;
  const std::string slow = (dir / "slow.json").string();
  std::ofstream(slow) << config.dump(2);
  struct Case {
    std::string config;
    int max_launch, launches;
  };
  for (const Case& c : {Case{ConfigPath("default"), 7, 2}, Case{slow, 1, 11}}) {
    const std::string layer = fmt::format("--gemm 64,64,64 --seed 3 --max-launch {} --config {}",
                                          c.max_launch, c.config);
    const std::string& config_path = c.config;
    const Json j = RunCosimJson(layer, 0);
    EXPECT_EQ(j["pass"], true) << j.dump();
    EXPECT_EQ(j["launches"], c.launches) << j.dump();  // 11 descriptors
    const Json& p = j["program"];
    EXPECT_EQ(p["retired"], 11);
    const testing::CliResult timing = RunQacc("compile " + layer + " --timing --check --json");
    ASSERT_EQ(timing.exit_code, 0) << timing.err;
    const Json t = Json::parse(timing.out)["timing"];
    EXPECT_EQ(t["launches"], c.launches);
    EXPECT_EQ(t["relaunch_cycles"], (c.launches - 1) * arch::kRelaunchCycles);
    EXPECT_EQ(p["cycles"], t["cycles"]) << config_path;
    EXPECT_EQ(p["dma_busy"], t["dma_busy"]) << config_path;
    EXPECT_EQ(RunCosimJson(layer + " --model-only", 0)["program"], p) << config_path;
  }
  std::filesystem::remove_all(dir);
  const testing::CliResult r = RunQacc("cosim --test gemm_k1 --seed 1 --max-launch 7");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--max-launch: only with --gemm"), std::string::npos) << r.err;
}

// At the limit of Q_COUNT: 65 536 descriptors run as a launch of 65 535 (Q_RETIRED reaches its
// largest value) and one of 1, in lockstep.
TEST(CosimCompiled, ProgramOfQCountPlusOneDescriptors) {
  // M = 8 p rows, N = K = 8: p STOREs, 2 ceil(p / 512) + 1 LOADs and GEMMs (compiler_test.cc).
  const Json j = RunCosimJson("--gemm 522232,8,8 --seed 1", 0);
  EXPECT_EQ(j["pass"], true);
  EXPECT_EQ(j["launches"], 2);
  EXPECT_EQ(j["program"]["retired"], 65536);
}

TEST(CosimCompiled, TestOrGemmIsRequiredAndExclusive) {
  for (const char* args : {"cosim --seed 1", "cosim --test gemm_k1 --gemm 8,8,8 --seed 1"}) {
    const testing::CliResult r = RunQacc(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find("give either --test NAME or --gemm M,N,K"), std::string::npos) << r.err;
  }
  // A layer the compiler cannot split names the dimension and the limit.
  const testing::CliResult r = RunQacc("cosim --gemm 8,8,9000 --seed 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--gemm: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("K = 9000"), std::string::npos) << r.err;
}

// ---- Usage errors -------------------------------------------------------------------------------
TEST(CosimCli, UnknownTestIsUsageError) {
  const testing::CliResult r = RunQacc("cosim --test no_such_test --seed 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no_such_test"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("gemm_random"), std::string::npos) << r.err;
}

TEST(CosimCli, ConfigWithoutRtlBuildIsUsageError) {
  const auto dir = testing::ScratchDir("cfg");
  const auto path = dir / "big.json";
  std::ofstream(path) << R"({"name": "big", "array": {"rows": 16, "cols": 16}})";
  const testing::CliResult r =
      RunQacc("cosim --test gemm_random --seed 1 --config " + path.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'big' (16x16"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("available builds: default (8x8"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rect_4x16 (4x16"), std::string::npos) << r.err;
  // The model alone runs any legal config.
  EXPECT_EQ(
      RunQacc("cosim --test gemm_random --seed 1 --model-only --config " + path.string()).exit_code,
      0);
  std::filesystem::remove_all(dir);
}

TEST(CosimCli, FaultNeedsRtl) {
  EXPECT_EQ(
      RunQacc("cosim --test gemm_random --seed 1 --model-only --inject-fault mac-value").exit_code,
      2);
  EXPECT_EQ(RunQacc("cosim --test gemm_random --seed 1 --inject-fault bogus").exit_code, 2);
}

}  // namespace
}  // namespace qacc
