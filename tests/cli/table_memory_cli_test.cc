// qacc table-memory run as a user would: the article's memory table, one row against the formula
// 2^in x bits computed here, the accepted widths and their limits, and the help text.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/build_paths.h"
#include "tests/cli/cli_runner.h"

namespace qacc::testing {
namespace {

nlohmann::json ParseJson(const CliResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);  // throws (and fails the test) on malformed output
}

TEST(TableMemoryCli, SeedTableWithoutArguments) {
  const CliResult text = RunQacc("table-memory");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* figure : {"1280", "2304", "72", "512", "768", "1024", "40"}) {
    EXPECT_NE(text.out.find(figure), std::string::npos) << figure << "\n" << text.out;
  }
  const nlohmann::json j = ParseJson(RunQacc("table-memory --json"));
  ASSERT_EQ(j.at("rows").size(), 3u);
  // The article's memory table: (8, 16, 8) 512 + 768 = 1280; (8, 32, 8) 1024 + 1280 = 2304;
  // (4, 16, 4) 32 + 40.
  const struct {
    int in, acc, out;
    int64_t t, p, total, lut;
  } seed[] = {{8, 16, 8, 512, 768, 1280, 256},
              {8, 32, 8, 1024, 1280, 2304, 256},
              {4, 16, 4, 32, 40, 72, 8}};
  for (int i = 0; i < 3; ++i) {
    const nlohmann::json& row = j.at("rows").at(i);
    EXPECT_EQ(row.at("in_bits"), seed[i].in);
    EXPECT_EQ(row.at("acc_bits"), seed[i].acc);
    EXPECT_EQ(row.at("out_bits"), seed[i].out);
    EXPECT_EQ(row.at("exp_table_bytes"), seed[i].t);
    EXPECT_EQ(row.at("numerator_table_bytes"), seed[i].p);
    EXPECT_EQ(row.at("total_bytes"), seed[i].total);
    EXPECT_EQ(row.at("lut_bytes"), seed[i].lut);  // 2^in * out / 8
  }
}

TEST(TableMemoryCli, OneRow) {
  // 2^6 * 20 bits = 160 B; 2^6 * (20 + 7) = 1728 bits = 216 B; LUT 2^6 * 7 = 448 bits = 56 B.
  const nlohmann::json j =
      ParseJson(RunQacc("table-memory --in-bits 6 --acc-bits 20 --out-bits 7 --json"));
  ASSERT_EQ(j.at("rows").size(), 1u);
  EXPECT_EQ(j.at("rows")[0].at("exp_table_bytes"), 160);
  EXPECT_EQ(j.at("rows")[0].at("numerator_table_bytes"), 216);
  EXPECT_EQ(j.at("rows")[0].at("total_bytes"), 376);
  EXPECT_EQ(j.at("rows")[0].at("lut_bytes"), 56);
  // Partial bytes round up: 4 addresses x 1 bit, 4 x 3 bits.
  const nlohmann::json small =
      ParseJson(RunQacc("table-memory --in-bits 2 --acc-bits 1 --out-bits 3 --json"));
  EXPECT_EQ(small.at("rows")[0].at("exp_table_bytes"), 1);  // 4 bits -> 1 byte
  EXPECT_EQ(small.at("rows")[0].at("lut_bytes"), 2);        // 12 bits -> 2 bytes
}

// Issue 20 D: input and output bits are 2..16 (any quantized width) here, 2..8 input bits in lut
// and softmax-tables; the limits are accepted, one beyond is rejected naming the option and range.
TEST(TableMemoryCli, WidthLimits) {
  const nlohmann::json wide =
      ParseJson(RunQacc("table-memory --in-bits 16 --acc-bits 48 --out-bits 16 --json"));
  EXPECT_EQ(wide.at("rows")[0].at("exp_table_bytes"), (int64_t{1} << 16) * 48 / 8);
  EXPECT_EQ(wide.at("rows")[0].at("numerator_table_bytes"), (int64_t{1} << 16) * 64 / 8);
  EXPECT_EQ(wide.at("rows")[0].at("lut_bytes"), (int64_t{1} << 16) * 16 / 8);
  const nlohmann::json narrow =
      ParseJson(RunQacc("table-memory --in-bits 2 --acc-bits 1 --out-bits 2 --json"));
  EXPECT_EQ(narrow.at("rows")[0].at("lut_bytes"), 1);  // 4 x 2 bits

  const struct {
    const char* args;
    const char* option;
    const char* range;
  } cases[] = {
      {"table-memory --in-bits 1 --acc-bits 16 --out-bits 8", "--in-bits", "2 to 16"},
      {"table-memory --in-bits 17 --acc-bits 16 --out-bits 8", "--in-bits", "2 to 16"},
      {"table-memory --in-bits 8 --acc-bits 16 --out-bits 1", "--out-bits", "2 to 16"},
      {"table-memory --in-bits 8 --acc-bits 16 --out-bits 17", "--out-bits", "2 to 16"},
      {"lut --func relu --in-bits 1 --in-amax 1 --out-bits 8", "--in-bits", "2..8"},
      {"lut --func relu --in-bits 9 --in-amax 1 --out-bits 8", "--in-bits", "2..8"},
      {"softmax-tables --n 4 --in-bits 1 --in-amax 1 --out-bits 8", "--in-bits", "2 to 8"},
      {"softmax-tables --n 4 --in-bits 9 --in-amax 1 --out-bits 8", "--in-bits", "2 to 8"},
  };
  for (const auto& c : cases) {
    const CliResult r = RunQacc(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_NE(r.err.find(c.option), std::string::npos) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.range), std::string::npos) << c.args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args;
  }
  // The limits of lut and softmax-tables.
  for (const char* args : {"lut --func relu --in-bits 2 --in-amax 1 --out-bits 8",
                           "lut --func relu --in-bits 8 --in-amax 1 --out-bits 8",
                           "softmax-tables --n 4 --in-bits 2 --in-amax 1 --out-bits 8",
                           "softmax-tables --n 4 --in-bits 8 --in-amax 1 --out-bits 8"}) {
    EXPECT_EQ(RunQacc(args).exit_code, 0) << args;
  }
}

TEST(TableMemoryCli, BadArguments) {
  const struct {
    const char* args;
    const char* needle;
  } cases[] = {{"table-memory --in-bits 8", "--acc-bits"},
               {"table-memory --in-bits 8 --acc-bits 49 --out-bits 8", "--acc-bits"},
               {"table-memory --in-bits 8 --acc-bits 16 --out-bits 0", "--out-bits"},
               {"table-memory --in-bits x --acc-bits 16 --out-bits 8", "--in-bits"}};
  for (const auto& c : cases) {
    const CliResult r = RunQacc(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args;
  }
}

TEST(TableMemoryCli, HelpSaysWhyItsWidthsDifferFromLut) {
  const CliResult r = RunQacc("table-memory --help");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("seed 000"), std::string::npos) << r.out;
  for (const char* text : {"Input (address) bits, 2..16", "2..8 bits only",
                           "addressed by an int8 code", "article qacc's design follows"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  }
}

// docs/lut.md 10.2: the LUT unit's table SRAM is ceil(C / 2) dual-port copies of S x 256 x 16 bits.
// The figures are written out here for each config, and for a config of its own at the extremes of
// lut.slots.
TEST(TableMemoryCli, LutUnitOfAConfig) {
  const std::string configs = std::string(QACC_SOURCE_DIR) + "/configs/";
  const struct {
    const char* config;
    int lanes, copies;
    int64_t unreplicated_bits, bits;
  } cases[] = {{"default", 8, 4, 16384, 65536},  // the note's figure: 8 KiB, 2 KiB unreplicated
               {"rect_4x16", 16, 8, 16384, 131072},
               {"tall_16x4", 4, 2, 16384, 32768}};
  for (const auto& c : cases) {
    const nlohmann::json j = ParseJson(
        RunQacc(std::string("table-memory --json --config ") + configs + c.config + ".json"));
    const nlohmann::json& unit = j.at("lut_unit");
    EXPECT_EQ(unit.at("config"), c.config);
    EXPECT_EQ(unit.at("lanes"), c.lanes);
    EXPECT_EQ(unit.at("slots"), 4);
    EXPECT_EQ(unit.at("copies"), c.copies);
    EXPECT_EQ(unit.at("unreplicated_bits"), c.unreplicated_bits);
    EXPECT_EQ(unit.at("unreplicated_bytes"), c.unreplicated_bits / 8);
    EXPECT_EQ(unit.at("bits"), c.bits);
    EXPECT_EQ(unit.at("bytes"), c.bits / 8);
    EXPECT_EQ(j.at("rows").size(), 3u);  // the article's table as well
  }
  const CliResult text = RunQacc("table-memory --config " + configs + "default.json");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("4 dual-port copies for 8 lanes = 65536 bits (8192 B)"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(RunQacc("table-memory --json").out.find("lut_unit"), std::string::npos);

  const std::filesystem::path dir = ScratchDir("table_memory_lut");
  const auto write = [&dir](const std::string& name, const std::string& content) {
    std::ofstream(dir / name) << content;
    return (dir / name).string();
  };
  const nlohmann::json most =
      ParseJson(RunQacc("table-memory --json --config " +
                        write("most.json", R"({"array": {"cols": 32}, "lut": {"slots": 16}})")));
  EXPECT_EQ(most.at("lut_unit").at("bits"), int64_t{16} * 16 * 256 * 16);  // 16 copies of 16 slots
  for (const char* slots : {"0", "17"}) {
    const CliResult r =
        RunQacc("table-memory --config " +
                write("bad.json", std::string(R"({"lut": {"slots": )") + slots + "}}"));
    EXPECT_EQ(r.exit_code, 2) << slots;
    EXPECT_NE(r.err.find("lut.slots"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("1..16"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  const CliResult missing = RunQacc("table-memory --config " + (dir / "none.json").string());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--config"), std::string::npos) << missing.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace qacc::testing
