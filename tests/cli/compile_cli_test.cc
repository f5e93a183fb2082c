// qacc compile as a user runs it: a program that passes its golden check, the files it writes,
// and the errors a careless user meets (a layer that cannot fit: exit 2 naming the layer, the
// dimension and the limit; missing or conflicting inputs; a bad network file) with no file left.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/build_paths.h"
#include "tests/cli/cli_runner.h"

namespace qacc::testing {
namespace {

TEST(CompileCli, OneGemmPassesItsGoldenCheckAndWritesTheProgram) {
  const auto dir = ScratchDir("compile");
  const auto program = dir / "p.bin";
  const CliResult r =
      RunQacc("compile --gemm 40,50,60 --check --json --program " + program.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["check"]["pass"].get<bool>());
  EXPECT_EQ(j["check"]["mismatches"].get<int>(), 0);
  EXPECT_EQ(j["check"]["retired"], j["descriptors"]);
  EXPECT_EQ(std::filesystem::file_size(program), 64u * j["descriptors"].get<uint64_t>());
  std::filesystem::remove_all(dir);
}

TEST(CompileCli, ChainFromANetworkFileStaysOnChip) {
  const auto dir = ScratchDir("compile_net");
  const auto net = dir / "mlp.json";
  {
    std::ofstream out(net);
    out << R"({"name": "mlp", "layers": [
      {"name": "fc1", "m": 24, "n": 40, "k": 33, "bias": true, "clamp_min": 0, "clamp_max": 255,
       "scale": 0.001},
      {"name": "fc2", "n": 10, "a_unsigned": true, "per_channel": true, "out_int32": true}]})";
  }
  const CliResult r = RunQacc("compile " + net.string() + " --check");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("layer fc1: 1 GEMM commands"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kept on chip (MOVE)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("golden check (seed 1): PASS"), std::string::npos) << r.out;
  const CliResult no_chain = RunQacc("compile " + net.string() + " --check --no-chain");
  ASSERT_EQ(no_chain.exit_code, 0) << no_chain.err;
  EXPECT_NE(no_chain.out.find("fc1.y (intermediate"), std::string::npos) << no_chain.out;
  std::filesystem::remove_all(dir);
}

// docs/compiler.md's example network `name` is the file it links to (the ```json block after the
// link), and compiles into a program that passes its golden check, with the output the page shows,
// and its check on the model.
void ExpectDocumentedExample(const std::string& name) {
  const std::string path = "docs/examples/networks/" + name;
  const std::string doc = ReadWholeFile(std::string(QACC_SOURCE_DIR) + "/docs/compiler.md");
  const std::string link = "(examples/networks/" + name + ")";
  const size_t linked = doc.find(link);
  ASSERT_NE(linked, std::string::npos) << "docs/compiler.md does not link " << link;
  const size_t open = doc.find("```json\n", linked);
  ASSERT_NE(open, std::string::npos) << "docs/compiler.md has no ```json block after " << link;
  const size_t close = doc.find("```", open + 8);
  ASSERT_NE(close, std::string::npos);
  EXPECT_EQ(doc.substr(open + 8, close - open - 8),
            ReadWholeFile(std::string(QACC_SOURCE_DIR) + "/" + path));
  // The output the page shows is a real run's.
  const std::string shown = "$ qacc compile " + path + " --check\n";
  const size_t output = doc.find(shown);
  ASSERT_NE(output, std::string::npos) << "docs/compiler.md does not show: " << shown;
  const size_t output_end = doc.find("```", output);
  const CliResult check = RunQacc("compile " + path + " --check", QACC_SOURCE_DIR);
  ASSERT_EQ(check.exit_code, 0) << check.err;
  EXPECT_EQ(doc.substr(output + shown.size(), output_end - output - shown.size()), check.out);
  EXPECT_NE(check.out.find("golden check (seed 1): PASS"), std::string::npos) << check.out;
  const CliResult r = RunQacc("compile " + path + " --timing --check", QACC_SOURCE_DIR);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("model check: PASS"), std::string::npos) << r.out;
}

TEST(CompileCli, TheDocumentedExampleNetworkCompilesAndPassesItsCheck) {
  ExpectDocumentedExample("mlp.json");
}

// The TPU-MLIR example (docs/compiler.md "TPU-MLIR's requantization"): its plan names the form.
TEST(CompileCli, TheDocumentedTpuMlirNetworkCompilesAndPassesItsCheck) {
  ExpectDocumentedExample("tpu_mlir.json");
  const nlohmann::json j = nlohmann::json::parse(
      RunQacc("compile docs/examples/networks/tpu_mlir.json --json", QACC_SOURCE_DIR).out);
  EXPECT_EQ(j["layers"][0]["requant"], "tpu-mlir");
  EXPECT_EQ(j["layers"][2]["requant"], nullptr);  // out_int32: no requantization
}

// The residual example (docs/compiler.md "A residual"): ELTWISE in the summary, the tensors of
// tiles and the residual's table in external memory.
TEST(CompileCli, TheDocumentedResidualNetworkCompilesAndPassesItsCheck) {
  ExpectDocumentedExample("residual.json");
  const nlohmann::json j = nlohmann::json::parse(
      RunQacc("compile docs/examples/networks/residual.json --json", QACC_SOURCE_DIR).out);
  EXPECT_EQ(j["eltwises"], 2);
  EXPECT_EQ(nlohmann::json::parse(
                RunQacc("compile docs/examples/networks/mlp.json --json", QACC_SOURCE_DIR)
                    .out)["eltwises"],
            0);
}

// A residual that names no earlier layer is exit 2 naming the layer and the field, and no file.
TEST(CompileCli, ABadResidualIsExitTwoNamingTheField) {
  const auto dir = ScratchDir("compile_residual");
  const auto net = dir / "net.json";
  const auto program = dir / "p.bin";
  {
    std::ofstream out(net);
    out << R"({"layers": [
      {"name": "fc1", "m": 8, "n": 8, "k": 8,
       "residual": {"from": "fc2", "scale": 0.1, "from_scale": 0.1, "out_scale": 0.2}},
      {"name": "fc2", "n": 8}]})";
  }
  const CliResult r = RunQacc("compile " + net.string() + " --program " + program.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("layer 'fc1': residual.from = 'fc2' is a later layer: a residual adds an "
                       "earlier layer's output"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(program));
  std::filesystem::remove_all(dir);
}

// Issue 37, item 1: a program longer than Q_COUNT holds (67 765 descriptors) ran its count
// modulo 2^16 and failed its check with error NONE. It runs as two launches (data_movement.md
// 14.4) on golden and on the model, and the program file holds every descriptor.
TEST(CompileCli, ALongProgramRunsAsSeveralLaunches) {
  const auto dir = ScratchDir("compile_long");
  const auto program = dir / "p.bin";
  const CliResult r =
      RunQacc("compile --gemm 540000,8,8 --check --timing --json --program " + program.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["descriptors"], 67765);
  ASSERT_EQ(j["launches"].size(), 2u);
  EXPECT_EQ(j["launches"][0]["count"], 65535);
  EXPECT_EQ(j["launches"][1]["first"], 65535);
  EXPECT_EQ(j["launches"][1]["count"], 2230);
  EXPECT_EQ(j["launches"][1]["q_base"].get<uint64_t>(), j["q_base"].get<uint64_t>() + 64u * 65535);
  EXPECT_TRUE(j["check"]["pass"].get<bool>()) << j["check"].dump();
  EXPECT_EQ(j["check"]["retired"], 67765);
  EXPECT_EQ(j["check"]["launches_run"], 2);
  EXPECT_EQ(j["timing"]["error"], "NONE");
  EXPECT_EQ(j["timing"]["retired"], 67765);
  EXPECT_TRUE(j["timing"]["check"]["pass"].get<bool>());
  EXPECT_EQ(std::filesystem::file_size(program), 64u * 67765);
  const CliResult human = RunQacc("compile --gemm 540000,8,8");
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("launches: 2 (at most 65535 descriptors each; 9 cycles per relaunch)"),
            std::string::npos)
      << human.out;
  for (const char* bad : {"0", "65536"}) {
    const CliResult b = RunQacc(std::string("compile --gemm 8,8,8 --max-launch ") + bad);
    EXPECT_EQ(b.exit_code, 2) << bad;
    EXPECT_NE(b.err.find("--max-launch: Value " + std::string(bad) + " not in range 1 to 65535"),
              std::string::npos)
        << b.err;
  }
  std::filesystem::remove_all(dir);
}

// Issue 37, item 5: K at the SRAM depth was refused with a message blaming the output SRAM or
// "B words per slot"; such a layer fits with one slot per operand, and compiles so, saying why.
TEST(CompileCli, KAtTheDepthCompilesSingleBuffered) {
  for (const char* gemm : {"9,8,8192", "8,9,8192"}) {
    const CliResult r = RunQacc(std::string("compile --check --gemm ") + gemm);
    ASSERT_EQ(r.exit_code, 0) << gemm << ": " << r.err;
    EXPECT_NE(r.out.find("double buffering off for this layer: it fits only with one slot per "
                         "operand (2 "),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("golden check (seed 1): PASS"), std::string::npos) << r.out;
    const nlohmann::json j =
        nlohmann::json::parse(RunQacc(std::string("compile --json --gemm ") + gemm).out);
    EXPECT_EQ(j["layers"][0]["double_buffer"], false);
    EXPECT_TRUE(j["layers"][0]["single_buffered_because"].is_string());
  }
  const nlohmann::json j = nlohmann::json::parse(RunQacc("compile --json --gemm 9,8,4096").out);
  EXPECT_EQ(j["layers"][0]["double_buffer"], true);
  EXPECT_TRUE(j["layers"][0]["single_buffered_because"].is_null());
}

TEST(CompileCli, ALayerThatCannotFitIsExitTwoAndNoFile) {
  const auto dir = ScratchDir("compile_bad");
  const auto program = dir / "p.bin";
  const CliResult r = RunQacc("compile --gemm 8,8,9000 --program " + program.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("layer 'gemm': K = 9000 exceeds the 8192 A SRAM words available"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_FALSE(std::filesystem::exists(program));
  std::filesystem::remove_all(dir);
}

TEST(CompileCli, CarelessInputsNameTheProblem) {
  struct Case {
    std::string args, message;
  };
  for (const Case& c : std::vector<Case>{
           {"compile", "NETWORK: missing; give a network JSON file or --gemm M,N,K"},
           {"compile /nonexistent.json", "NETWORK: cannot read /nonexistent.json"},
           {"compile --gemm 0,1,1", "--gemm"},
           {"compile --gemm 1,2", "--gemm"},
           {"compile --gemm 4,4,4 --config /nonexistent.json", "--config"},
           {"compile --gemm 4,4,4 --seed -1", "--seed"},
       }) {
    const CliResult r = RunQacc(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << ": " << r.err;
  }
}

// --timing: the model's cycles and counters add up, its external memory passes the same check as
// golden's, and a slower memory never makes the program faster.
TEST(CompileCli, TimingReportsCyclesAndUtilization) {
  auto run = [](const std::string& extra) {
    const CliResult r = RunQacc("compile --gemm 40,48,64 --timing --check --json" + extra);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out)["timing"];
  };
  const nlohmann::json t = run("");
  ASSERT_TRUE(t.is_object());
  EXPECT_EQ(t["error"], "NONE");
  EXPECT_TRUE(t["check"]["pass"].get<bool>());
  EXPECT_TRUE(t["check"]["ext_equals_golden"].get<bool>());
  EXPECT_EQ(t["mem_latency"].get<int>(), 20);  // configs/default.json
  EXPECT_EQ(t["mem_interval"].get<int>(), 1);
  const uint64_t cycles = t["cycles"].get<uint64_t>();
  // 5 x 6 tiles of K = 64: MAC busy T * K whatever the split into commands.
  EXPECT_EQ(t["mac_busy"].get<uint64_t>(), 30u * 64);
  EXPECT_DOUBLE_EQ(t["mac_utilization"].get<double>(), 1920.0 / double(cycles));
  EXPECT_EQ(t["compute_only"].get<uint64_t>() + t["dma_only"].get<uint64_t>() +
                t["overlap"].get<uint64_t>() + t["idle"].get<uint64_t>(),
            cycles);
  EXPECT_LE(t["compute_busy"].get<uint64_t>(), cycles);
  EXPECT_EQ(t["read_bytes"].get<uint64_t>(), 16 * t["rd_beats"].get<uint64_t>());
  EXPECT_GE(t["write_bytes"].get<uint64_t>(), 40u * 48);  // the int8 output at least
  uint64_t previous = cycles;
  for (const char* interval : {"2", "4"}) {
    const nlohmann::json slower = run(std::string(" --mem-interval ") + interval);
    EXPECT_EQ(slower["mem_interval"].get<int>(), std::stoi(interval));
    EXPECT_TRUE(slower["check"]["pass"].get<bool>());
    EXPECT_GE(slower["cycles"].get<uint64_t>(), previous) << interval;
    previous = slower["cycles"].get<uint64_t>();
  }
  EXPECT_GT(previous, cycles);
  const CliResult human = RunQacc("compile --gemm 40,48,64 --timing --mem-latency 5");
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("timing (model; memory latency 5, interval 1"), std::string::npos)
      << human.out;
  EXPECT_NE(human.out.find("MAC utilization"), std::string::npos) << human.out;
}

TEST(CompileCli, BadMemoryTimingIsExitTwo) {
  struct Case {
    std::string args, message;
  };
  for (const Case& c : std::vector<Case>{
           {"--timing --mem-interval 0", "--mem-interval: 0 is out of range, allowed 1..64"},
           {"--timing --mem-interval 65", "--mem-interval: 65 is out of range, allowed 1..64"},
           {"--timing --mem-latency 2000", "--mem-latency: 2000 is out of range, allowed 1..1024"},
           {"--mem-interval 2", "--mem-latency and --mem-interval: only with --timing"},
       }) {
    const CliResult r = RunQacc("compile --gemm 8,8,8 " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args;
  }
}

}  // namespace
}  // namespace qacc::testing
