// The C++ spec mirror (model/arch.h) against docs/architecture.md: configuration loading and its
// errors, the command validation order of section 4, and the timing and layout formulas of sections
// 6 and 7 checked against the numbers written in the spec text (not recomputed from the code under
// test).
#include "model/arch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>

#include "sim/build_paths.h"

namespace qacc::arch {
namespace {

std::string ConfigPath(const std::string& name) {
  return std::string(QACC_SOURCE_DIR) + "/configs/" + name + ".json";
}

// Expects ParseArchConfig to throw std::invalid_argument whose message contains every fragment.
void ExpectConfigError(const std::string& json, const std::string& key,
                       const std::string& fragment) {
  try {
    ParseArchConfig(json, "test.json");
    ADD_FAILURE() << "no error for " << json;
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(key), std::string::npos) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
    EXPECT_NE(what.find("test.json"), std::string::npos) << what;
  }
}

TEST(ArchConfig, LoadsDefault) {
  const ArchConfig c = LoadArchConfig(ConfigPath("default"));
  EXPECT_EQ(c.name, "default");
  EXPECT_EQ(c.rows, 8);
  EXPECT_EQ(c.cols, 8);
  EXPECT_EQ(c.a_depth, 8192u);
  EXPECT_EQ(c.b_depth, 8192u);
  EXPECT_EQ(c.bias_depth, 256u);
  EXPECT_EQ(c.rq_depth, 256u);
  EXPECT_EQ(c.out_depth, 8192u);
  EXPECT_EQ(c.addr_bits, 24);
  EXPECT_EQ(c.acc_bits, 32);
  EXPECT_EQ(c.latency.cmd_setup, 1);
  EXPECT_EQ(c.latency.sram_read, 1);
  EXPECT_EQ(c.latency.mac_edge, 1);
  EXPECT_EQ(c.latency.requant, 4);
  EXPECT_EQ(c.latency.out_write, 1);
  EXPECT_EQ(c.latency.lut, 2);
  EXPECT_EQ(c.lut_slots, 4);
  EXPECT_FALSE(c.description.empty());
}

TEST(ArchConfig, DefaultStructEqualsDefaultJson) {
  const ArchConfig file = LoadArchConfig(ConfigPath("default"));
  const ArchConfig def;
  EXPECT_EQ(DescribeArchConfig(file), DescribeArchConfig(def));
}

TEST(ArchConfig, LoadsRect4x16) {
  const ArchConfig c = LoadArchConfig(ConfigPath("rect_4x16"));
  EXPECT_EQ(c.name, "rect_4x16");
  EXPECT_EQ(c.rows, 4);
  EXPECT_EQ(c.cols, 16);
  EXPECT_EQ(c.a_depth, 16384u);
  EXPECT_EQ(c.b_depth, 4096u);
  EXPECT_EQ(c.out_word_bytes(), 64u);
  EXPECT_EQ(c.rq_word_bytes(), 128u);
}

TEST(ArchConfig, MissingKeysKeepDefaults) {
  const ArchConfig c = ParseArchConfig(R"({"array": {"rows": 16}})");
  EXPECT_EQ(c.rows, 16);
  EXPECT_EQ(c.cols, 8);
  EXPECT_EQ(c.a_depth, 8192u);
}

TEST(ArchConfig, Errors) {
  ExpectConfigError(R"({"array": {"rows": 6}})", "array.rows", "4, 8, 16, 32");
  ExpectConfigError(R"({"array": {"cols": 64}})", "array.cols", "4, 8, 16, 32");
  ExpectConfigError(R"({"array": {"cols": "8"}})", "array.cols", "integer");
  ExpectConfigError(R"({"sram": {"a_depth": 1000}})", "sram.a_depth", "power of 2");
  // 2^20 bytes is the window: 8 rows x 2^17 words fits, 2^18 does not.
  EXPECT_NO_THROW(ParseArchConfig(R"({"sram": {"a_depth": 131072}})"));
  ExpectConfigError(R"({"sram": {"a_depth": 262144}})", "sram.a_depth", "<= 2^20");
  ExpectConfigError(R"({"sram": {"out_depth": 65536}})", "sram.out_depth", "<= 2^20");
  ExpectConfigError(R"({"sram": {"rq_depth": 0}})", "sram.rq_depth", "power of 2");
  ExpectConfigError(R"({"sram": {"b_depth": -4}})", "sram.b_depth",
                    "-4 is illegal: must be a power of 2 with b_depth * cols <= 2^20");
  ExpectConfigError(R"({"bus": {"addr_bits": 32}})", "bus.addr_bits", "allowed: 24");
  ExpectConfigError(R"({"acc_bits": 16})", "acc_bits", "allowed: 32");
  ExpectConfigError(R"({"latency": {"requant": 3}})", "latency.requant", "allowed: 4");
  ExpectConfigError(R"({"latency": {"sram_read": 2}})", "latency.sram_read", "allowed: 1");
  // The memory port (RTL) and the testbench memory (data_movement.md 15), at their boundaries.
  EXPECT_NO_THROW(ParseArchConfig(R"({"mem": {"data_bytes": 64, "max_outstanding": 8}})"));
  EXPECT_NO_THROW(ParseArchConfig(R"({"mem": {"data_bytes": 8, "max_outstanding": 1}})"));
  ExpectConfigError(R"({"mem": {"data_bytes": 4}})", "mem.data_bytes", "8, 16, 32, 64");
  ExpectConfigError(R"({"mem": {"max_outstanding": 0}})", "mem.max_outstanding", "1..8");
  ExpectConfigError(R"({"mem": {"max_outstanding": 9}})", "mem.max_outstanding", "1..8");
  EXPECT_NO_THROW(ParseArchConfig(
      R"({"ext_mem": {"size_bytes": 4294967296, "latency": 1024, "interval": 64}})"));
  EXPECT_NO_THROW(
      ParseArchConfig(R"({"ext_mem": {"size_bytes": 4096, "latency": 1, "interval": 1}})"));
  ExpectConfigError(R"({"ext_mem": {"size_bytes": 4095}})", "ext_mem.size_bytes",
                    "multiple of 4096");
  ExpectConfigError(R"({"ext_mem": {"size_bytes": 4294971392}})", "ext_mem.size_bytes",
                    "4096..4294967296");
  ExpectConfigError(R"({"ext_mem": {"size_bytes": -4096}})", "ext_mem.size_bytes", "-4096 is not");
  ExpectConfigError(R"({"ext_mem": {"latency": 0}})", "ext_mem.latency", "1..1024");
  ExpectConfigError(R"({"ext_mem": {"latency": 1025}})", "ext_mem.latency", "1..1024");
  ExpectConfigError(R"({"ext_mem": {"interval": 65}})", "ext_mem.interval", "1..64");
  EXPECT_EQ(ParseArchConfig(R"({"ext_mem": {"ready_gaps": 90, "gap_seed": 2147483647}})")
                .ext_mem_ready_gaps,
            90);
  ExpectConfigError(R"({"ext_mem": {"ready_gaps": 91}})", "ext_mem.ready_gaps", "0..90");
  ExpectConfigError(R"({"ext_mem": {"ready_gaps": -1}})", "ext_mem.ready_gaps", "0..90");
  ExpectConfigError(R"({"ext_mem": {"gap_seed": -1}})", "ext_mem.gap_seed", "0..2147483647");
  EXPECT_EQ(ParseArchConfig(R"({"lut": {"slots": 1}})").lut_slots, 1);
  EXPECT_EQ(ParseArchConfig(R"({"lut": {"slots": 16}})").lut_slots, 16);
  ExpectConfigError(R"({"lut": {"slots": 0}})", "lut.slots", "0 is out of range, allowed 1..16");
  ExpectConfigError(R"({"lut": {"slots": 17}})", "lut.slots", "17 is out of range, allowed 1..16");
  ExpectConfigError(R"({"latency": {"lut": 3}})", "latency.lut", "not the spec's value 2");
  ExpectConfigError(R"({"mem": {"width": 8}})", "mem.width", "unknown key");
  ExpectConfigError(R"({"array": {"rows": 8, "colz": 8}})", "array.colz", "unknown key");
  ExpectConfigError(R"({"arrays": {}})", "arrays", "unknown key");
  ExpectConfigError(R"({"array": 8})", "array", "object");
  ExpectConfigError(R"({"array": )", "<document>", "parse error");
  EXPECT_THROW(LoadArchConfig(ConfigPath("no_such_config")), std::invalid_argument);
  // A directory opened as a file reads as empty: it was "JSON parse error ... unexpected end of
  // input".
  try {
    LoadArchConfig(std::string(QACC_SOURCE_DIR) + "/configs");
    ADD_FAILURE() << "a directory was read as a config";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("configs is a directory, expected a configuration file"),
              std::string::npos)
        << e.what();
  }
}

// Fuzzing findings (tests/fuzz/corpus/arch_config/regression-*, docs/fuzzing.md): each was a crash,
// an exception other than std::invalid_argument (qacc would exit 1 with "internal error"), or a
// message naming no key or the wrong value.
TEST(ArchConfig, FuzzFindings) {
  // A number beyond double: nlohmann throws out_of_range, not parse_error.
  ExpectConfigError(R"({"name": 5e555555555555555555})", "<document>", "JSON parse error");
  // Not an object: the message named the empty key ("test.json: : must be an object").
  ExpectConfigError("[]", "test.json: <document>: must be an object, got an array of 0 elements",
                    "");
  ExpectConfigError("17", "test.json: <document>: must be an object, got 17", "");
  // nlohmann stops at a NUL byte: what followed it was ignored.
  constexpr char kNulThenMore[] = "{}\0{\"array\": 7}";
  ExpectConfigError(std::string(kNulThenMore, sizeof kNulThenMore - 1), "<document>",
                    "a NUL byte at offset 2");
  // The empty key was named as nothing.
  ExpectConfigError(R"({"": 1})", "test.json: \"\": unknown key", "");
  ExpectConfigError(R"({"array": {"": 1}})", "test.json: array.\"\": unknown key", "");
  // Above INT64_MAX the value wrapped: "-1 is out of range". A value beyond the field's C++ type
  // named the type's range ("allowed -2147483648..2147483647"), which no field allows (issue 37).
  ExpectConfigError(R"({"array": {"rows": 18446744073709551615}})", "array.rows",
                    "18446744073709551615 is not one of 4, 8, 16, 32");
  ExpectConfigError(R"({"array": {"rows": 1099511627776}})", "array.rows",
                    "1099511627776 is not one of 4, 8, 16, 32");
  ExpectConfigError(R"({"sram": {"a_depth": 4294967296}})", "sram.a_depth",
                    "4294967296 is illegal: must be a power of 2 with a_depth * rows <= 2^20");
  ExpectConfigError(R"({"mem": {"max_outstanding": -3000000000}})", "mem.max_outstanding",
                    "-3000000000 is out of range, allowed 1..8");
  ExpectConfigError(R"({"latency": {"requant": 4294967296}})", "latency.requant",
                    "4294967296 is not the spec's value 4 (allowed: 4)");
  // A deeply nested value was serialised whole into the message: stack overflow.
  const int depth = 1000000;
  ExpectConfigError("{\"name\": " + std::string(depth, '[') + std::string(depth, ']') + "}", "name",
                    "must be a string, got an array of 1 elements");
  ExpectConfigError(
      "{\"array\": {\"rows\": " + std::string(depth, '[') + std::string(depth, ']') + "}}",
      "array.rows", "must be an integer, got an array of 1 elements");
}

// Section 7, "Example, default 8x8, M = N = K = 8, one tile: reads at 1..8, array inputs at 2..9,
// MAC beats at 19..26, requant beats at 23..30, writes at 24..31, done at 32."
TEST(ArchTiming, SpecExample8x8OneTile) {
  const Timing t(8, 8, 8, 8, 8);
  EXPECT_EQ(t.E(), 32);
  EXPECT_EQ(t.T(), 1);
  EXPECT_EQ(t.P(), 8);
  EXPECT_EQ(t.F(0, 0), 1);
  EXPECT_EQ(t.F(0, 7), 8);
  EXPECT_EQ(t.I(0, 0), 2);
  EXPECT_EQ(t.I(0, 7), 9);
  EXPECT_EQ(t.O(0, 0), 19);
  EXPECT_EQ(t.O(0, 7), 26);
  EXPECT_EQ(t.BiasRead(0), 18);
  EXPECT_EQ(t.Q(0, 0), 23);
  EXPECT_EQ(t.Q(0, 7), 30);
  EXPECT_EQ(t.W(0, 0), 24);
  EXPECT_EQ(t.W(0, 7), 31);
  EXPECT_EQ(t.E(), 32);
}

// The same GEMM with the LUT stage fused (lut.md 10.4): LUT beats at Q + 2 = 25..32, writes at
// 26..33, done at 34; the LUT unit takes requant's 8 beats from 23. Without ACT = LUT it has no
// beats and counts none.
TEST(ArchTiming, SpecExample8x8OneTileWithLut) {
  const Timing t(8, 8, 8, 8, 8, /*with_lut=*/true);
  EXPECT_EQ(t.L(0, 0), 25);
  EXPECT_EQ(t.L(0, 7), 32);
  EXPECT_EQ(t.Beat(BeatUnit::kLut, 0, 7), 32);
  EXPECT_EQ(t.W(0, 0), 26);
  EXPECT_EQ(t.W(0, 7), 33);
  EXPECT_EQ(t.E(), 34);
  EXPECT_TRUE(t.Beats(BeatUnit::kLut));
  EXPECT_EQ(t.In(BeatUnit::kLut).first, 23);
  EXPECT_EQ(t.Busy(BeatUnit::kLut), 8);
  const Timing plain(8, 8, 8, 8, 8);
  EXPECT_FALSE(plain.Beats(BeatUnit::kLut));
  EXPECT_EQ(plain.Busy(BeatUnit::kLut), 0);
  EXPECT_EQ(plain.E(), 32);
}

// Section 7: "M = N = K = 256: T = 1024, P = 256, E = 262168".
TEST(ArchTiming, SpecExample256Cubed) {
  constexpr Timing t(8, 8, 256, 256, 256);
  EXPECT_EQ(t.MB(), 32);
  EXPECT_EQ(t.NB(), 32);
  EXPECT_EQ(t.T(), 1024);
  EXPECT_EQ(t.P(), 256);
  EXPECT_EQ(t.E(), 262168);
  EXPECT_EQ(t.Busy(BeatUnit::kMac), 1024 * 256);
  EXPECT_EQ(t.FeedStall(), 0);
}

// The closed forms of the section 7 table, written out by hand for a few shapes, including P = Rows
// or Cols.
// The widest SRAM word (the DMA's SRAM port) from the spec's SRAM list, by hand: rq's 8 * Cols, or
// A's Rows when that is wider.
TEST(ArchSpecTables, WidestSramWord) {
  EXPECT_EQ(MaxSramWordBytes(8, 8), 64);
  EXPECT_EQ(MaxSramWordBytes(4, 16), 128);
  EXPECT_EQ(MaxSramWordBytes(32, 4), 32);
  EXPECT_EQ(MaxSramWordBytes(32, 2), 32);  // not a legal array: A's word is the widest
  EXPECT_EQ(SramWordBytes(kSrams[0], 16, 4), 16);
  EXPECT_EQ(SramWordBytes(kSrams[3], 16, 4), 32);
}

TEST(ArchTiming, ClosedForms) {
  struct Case {
    int r, c, m, n, k;
  };
  for (const Case& s : {Case{8, 8, 1, 1, 1}, Case{4, 16, 70, 33, 5}, Case{32, 4, 65, 9, 100},
                        Case{16, 32, 16, 32, 20}, Case{8, 8, 9, 17, 3}}) {
    const Timing t(s.r, s.c, s.m, s.n, s.k);
    const int64_t mb = (s.m + s.r - 1) / s.r, nb = (s.n + s.c - 1) / s.c, tiles = mb * nb;
    const int64_t p = std::max(s.k, std::max(s.r, s.c));
    ASSERT_EQ(t.T(), tiles);
    ASSERT_EQ(t.P(), p);
    for (int64_t tile = 0; tile < tiles; ++tile) {
      EXPECT_EQ(t.F(tile, s.k - 1), 1 + tile * p + s.k - 1);
      EXPECT_EQ(t.I(tile, 0), 2 + tile * p);
      for (int64_t i = 0; i < s.r; ++i) {
        EXPECT_EQ(t.O(tile, i), 3 + tile * p + s.k + s.c + i);
        EXPECT_EQ(t.Q(tile, i), 7 + tile * p + s.k + s.c + i);
        EXPECT_EQ(t.W(tile, i), 8 + tile * p + s.k + s.c + i);
      }
    }
    EXPECT_EQ(t.E(), (tiles - 1) * p + s.k + s.r + s.c + 8);
    EXPECT_EQ(t.Busy(BeatUnit::kRequant), tiles * s.r);
    EXPECT_EQ(t.OutWrites(), nb * s.m);
    EXPECT_EQ(t.FeedStall(), (tiles - 1) * (p - s.k));
  }
}

TEST(ArchTiming, NonMultiples) {
  const Timing t(8, 8, 19, 10, 4);  // MB 3, NB 2
  EXPECT_EQ(t.MValid(0), 8);
  EXPECT_EQ(t.MValid(2), 3);
  EXPECT_EQ(t.NValid(1), 2);
  EXPECT_EQ(t.TileMb(5), 2);
  EXPECT_EQ(t.TileNb(5), 1);
}

// Section 6.3: e = ((m / R) * NB + n / C) * R + m mod R; int8 word e / 4, byte (e mod 4) * C + c.
TEST(ArchLayout, OutputEntries) {
  // 8x8, N = 20 -> NB = 3. Element (m = 10, n = 17): tile (1, 2) = 5, row 2 -> e = 42, lane 1.
  EXPECT_EQ(OutEntryOf(10, 17, 8, 8, 3), 42);
  EXPECT_EQ(OutEntry(5, 2, 8), 42);
  EXPECT_EQ(OutWordAddr(100, 42, /*out_raw=*/false), 110);
  EXPECT_EQ(OutByteInWord(42, 1, 8, false), 2 * 8 + 1);
  EXPECT_EQ(OutWordAddr(100, 42, /*out_raw=*/true), 142);
  EXPECT_EQ(OutByteInWord(42, 1, 8, true), 4);
  EXPECT_EQ(OutWindowByte(100, 42, 1, 8, false), 110 * 32 + 17);
  EXPECT_EQ(OutWords(6, 8, false), 12);
  EXPECT_EQ(OutWords(6, 8, true), 48);
}

TEST(ArchMap, Constants) {
  EXPECT_EQ(kABase, 0x100000u);
  EXPECT_EQ(kOutBase, 0x500000u);
  EXPECT_EQ(kSmxBase, 0x700000u);
  EXPECT_EQ(reg::kPerfCmdCount, 0x11Cu);
  EXPECT_EQ(reg::kCmdShift, 0x0B8u);
  EXPECT_EQ(reg::kCmdOp, 0x0BCu);
  EXPECT_EQ(kVersion, 0x00020001u);       // spec 2.1
  EXPECT_EQ(kHwUnitsValue, 0x37u);        // MAC, requant, LUT and ELTWISE
  EXPECT_EQ(kStatusErrCodeMask, 0xFF00u);  // [15:8] (units.md 19.5)
  EXPECT_EQ(kModeActMask, 0xF00u);
  EXPECT_EQ(kHwLatencyV1, 0x01010104u);  // Lr 1, Ls 1, Lw 1, Lq 4
  EXPECT_EQ(ZpA(PackZpAb(-128, 255)), -128);
  EXPECT_EQ(ZpB(PackZpAb(-128, 255)), 255);
  EXPECT_EQ(ShiftValue(0xFF), -1);
  EXPECT_EQ(ShiftValue(0xE0), -32);
  EXPECT_EQ(ShiftValue(0x3F), 63);  // 8 bits since version 2.1
  EXPECT_EQ(RshiftValue(0xFF), 255u);
  EXPECT_EQ(LowBitsSigned(0x80, 8), -128);
  EXPECT_EQ(LowBitsSigned(0x1234807F, 8), 127);
  EXPECT_EQ(LowBitsSigned(0xFFFF8000u, 16), -32768);
  EXPECT_EQ(LowBitsSigned(0x80000000u, 32), std::numeric_limits<int32_t>::min());
  EXPECT_STREQ(ErrCodeName(ErrCode::kUnitAbsent), "UNIT_ABSENT");
  EXPECT_STREQ(UnitName(Unit::kRequant), "requant");
}

// Section 4: each check, and the order (the first failing check wins).
TEST(ArchValidate, EachCodeInOrder) {
  const ArchConfig cfg;  // 8x8, A/B 8192, bias/rq 256, out 8192
  Command ok;
  ok.m = 20;
  ok.n = 20;
  ok.k = 30;
  EXPECT_EQ(ValidateCommand(cfg, ok), ErrCode::kNone);
  auto with = [&](auto change) {
    Command c = ok;
    change(c);
    return ValidateCommand(cfg, c);
  };
  EXPECT_EQ(with([](Command& c) { c.k = 0; }), ErrCode::kBadShape);
  EXPECT_EQ(with([](Command& c) { c.m = 0x10000; }), ErrCode::kBadShape);  // [15:0] only
  EXPECT_EQ(with([](Command& c) { c.a_base = 8192 - 90; }),
            ErrCode::kNone);  // MB*K = 90 fits exactly
  EXPECT_EQ(with([](Command& c) { c.a_base = 8192 - 89; }), ErrCode::kARange);
  EXPECT_EQ(with([](Command& c) { c.b_base = 8192 - 89; }), ErrCode::kBRange);
  EXPECT_EQ(with([](Command& c) { c.bias_base = 255; }), ErrCode::kNone);  // BIAS_EN off
  EXPECT_EQ(with([](Command& c) {
              c.bias_base = 254;
              c.mode = kModeBiasEn;
            }),
            ErrCode::kBiasRange);
  EXPECT_EQ(with([](Command& c) {
              c.rq_base = 254;
              c.mode = kModePerChannel;
            }),
            ErrCode::kRqRange);
  EXPECT_EQ(with([](Command& c) { c.out_base = 8192 - 5; }),
            ErrCode::kOutRange);  // 9 tiles * 8 / 4 = 18
  EXPECT_EQ(with([](Command& c) { c.out_base = 8192 - 18; }), ErrCode::kNone);
  EXPECT_EQ(with([](Command& c) {
              c.out_base = 8192 - 71;
              c.mode = kModeOutRaw;
            }),
            ErrCode::kOutRange);
  // 16-bit entries: the int16 layout, 9 tiles * 8 / 2 = 36 words, whatever the other LUT fields.
  constexpr uint32_t kLut16 = 1u << kModeActLsb | 16u << kModeLutEntryBitsLsb;
  EXPECT_EQ(with([](Command& c) {
              c.out_base = 8192 - 36;
              c.mode = kLut16 | 8u << kModeLutInBitsLsb;
            }),
            ErrCode::kNone);
  EXPECT_EQ(with([](Command& c) {
              c.out_base = 8192 - 35;
              c.mode = kLut16;  // LUT_IN_BITS 0 fails later
            }),
            ErrCode::kOutRange);
  EXPECT_EQ(with([](Command& c) { c.shift = 31; }), ErrCode::kBadRequant);
  EXPECT_EQ(with([](Command& c) { c.shift = 0xE0; }), ErrCode::kBadRequant);  // -32
  EXPECT_EQ(with([](Command& c) { c.shift = 0xE1; }), ErrCode::kNone);        // -31
  EXPECT_EQ(with([](Command& c) { c.mult = (1 << 30) - 1; }), ErrCode::kBadRequant);
  EXPECT_EQ(with([](Command& c) { c.mult = 0; }), ErrCode::kNone);
  EXPECT_EQ(with([](Command& c) {
              c.mult = -5;
              c.mode = kModePerChannel;
            }),
            ErrCode::kNone);
  EXPECT_EQ(with([](Command& c) {
              c.clamp_min = 5;
              c.clamp_max = 4;
            }),
            ErrCode::kBadRequant);
  EXPECT_EQ(with([](Command& c) { c.clamp_max = 256; }), ErrCode::kBadRequant);
  EXPECT_EQ(with([](Command& c) {
              c.clamp_max = 256;
              c.mode = kModeOutRaw;
            }),
            ErrCode::kNone);
  EXPECT_EQ(with([](Command& c) { c.zp_ab = PackZpAb(-129, 0); }), ErrCode::kBadZp);
  EXPECT_EQ(with([](Command& c) { c.zp_ab = PackZpAb(0, -129); }), ErrCode::kBadZp);
  EXPECT_EQ(with([](Command& c) { c.zp_ab = PackZpAb(255, -128); }), ErrCode::kNone);
  EXPECT_EQ(with([](Command& c) { c.mode = 2u << kModeActLsb; }), ErrCode::kUnitAbsent);
  EXPECT_EQ(with([](Command& c) { c.mode = 15u << kModeActLsb; }), ErrCode::kUnitAbsent);
  // ACT = LUT (lut.md 10.4): its fields at both ends, OUT_RAW refused, the int16 layout's words.
  auto lut = [](uint32_t slot, uint32_t in_bits, uint32_t entry_bits) {
    return 1u << kModeActLsb | slot << kModeLutSlotLsb | in_bits << kModeLutInBitsLsb |
           entry_bits << kModeLutEntryBitsLsb;
  };
  EXPECT_EQ(with([&](Command& c) { c.mode = lut(3, 2, 8); }), ErrCode::kNone);  // 4 slots
  EXPECT_EQ(with([&](Command& c) { c.mode = lut(4, 2, 8); }), ErrCode::kLutSlot);
  EXPECT_EQ(with([&](Command& c) { c.mode = lut(0, 8, 16); }), ErrCode::kNone);
  EXPECT_EQ(with([&](Command& c) { c.mode = lut(0, 1, 16); }), ErrCode::kLutInBits);
  EXPECT_EQ(with([&](Command& c) { c.mode = lut(0, 9, 16); }), ErrCode::kLutInBits);
  for (uint32_t bits : {0u, 7u, 9u, 15u, 17u, 31u}) {
    EXPECT_EQ(with([&](Command& c) { c.mode = lut(0, 8, bits); }), ErrCode::kLutEntryBits) << bits;
  }
  EXPECT_EQ(with([&](Command& c) { c.mode = lut(0, 8, 8) | kModeOutRaw; }), ErrCode::kBadShape);
  EXPECT_EQ(with([&](Command& c) { c.mode = lut(4, 1, 7); }), ErrCode::kLutSlot);  // in order
  EXPECT_EQ(with([&](Command& c) { c.mode = lut(0, 1, 7); }), ErrCode::kLutInBits);
  EXPECT_EQ(with([&](Command& c) {
              c.mode = lut(4, 8, 8);
              c.zp_ab = PackZpAb(-200, 0);
            }),
            ErrCode::kBadZp);
  // CMD_OP [3:0]: 0 is GEMM, 1..15 are reserved; bits above 3 are not part of the field.
  EXPECT_EQ(with([](Command& c) { c.op = 1; }), ErrCode::kBadOpcode);
  EXPECT_EQ(with([](Command& c) { c.op = 15; }), ErrCode::kBadOpcode);
  EXPECT_EQ(with([](Command& c) { c.op = 0x10; }), ErrCode::kNone);
  // Order: opcode before shape before range before requant before zp before unit.
  EXPECT_EQ(with([](Command& c) {
              c.op = 2;
              c.m = 0;
              c.mode = 1u << kModeActLsb;
            }),
            ErrCode::kBadOpcode);
  EXPECT_EQ(with([](Command& c) {
              c.k = 0;
              c.a_base = 9000;
            }),
            ErrCode::kBadShape);
  EXPECT_EQ(with([](Command& c) {
              c.a_base = 9000;
              c.b_base = 9000;
            }),
            ErrCode::kARange);
  EXPECT_EQ(with([](Command& c) {
              c.shift = 31;
              c.zp_ab = PackZpAb(-200, 0);
            }),
            ErrCode::kBadRequant);
  EXPECT_EQ(with([](Command& c) {
              c.zp_ab = PackZpAb(-200, 0);
              c.mode = 2u << kModeActLsb;
            }),
            ErrCode::kBadZp);
}

// ---- The generated tables (model/arch_spec.h) against the spec data file they come from

nlohmann::json SpecJson() {
  std::ifstream in(std::string(QACC_SOURCE_DIR) + "/docs/spec/qacc_spec.json");
  return nlohmann::json::parse(in);
}

const char* AccessName(Access access) {
  switch (access) {
    case Access::kRO:
      return "RO";
    case Access::kRW:
      return "RW";
    case Access::kWO:
      return "WO";
    case Access::kW1C:
      return "W1C";
  }
  return "?";
}

TEST(ArchSpecTables, RegistersMatchTheSpecInOffsetOrder) {
  const nlohmann::json spec = SpecJson();
  ASSERT_EQ(std::size(kRegisters), spec["registers"].size());
  std::set<std::string> names;
  uint32_t previous = 0;
  for (const RegisterInfo& info : kRegisters) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_EQ(info.offset % 4, 0u) << info.name;
    // Blocks 0..1, or a unit's block (units.md 19.3: the slope stage's is block 2).
    const bool unit_register =
        (*std::find_if(spec["registers"].begin(), spec["registers"].end(), [&](const auto& r) {
          return r["name"] == info.name;
        })).contains("unit");
    EXPECT_LT(info.offset, unit_register ? kRegsReservedEnd : kRegsSize) << info.name;
    if (&info != kRegisters) {
      EXPECT_GT(info.offset, previous) << info.name;
    }
    previous = info.offset;
    EXPECT_EQ(FindRegister(info.offset), &info);
    const auto it = std::find_if(spec["registers"].begin(), spec["registers"].end(),
                                 [&](const auto& r) { return r["name"] == info.name; });
    ASSERT_NE(it, spec["registers"].end()) << info.name;
    EXPECT_EQ(std::stoul((*it)["offset"].get<std::string>(), nullptr, 16), info.offset);
    EXPECT_EQ((*it)["access"], AccessName(info.access)) << info.name;
    EXPECT_EQ((*it).value("busy_locked", false), info.busy_locked) << info.name;
  }
  EXPECT_EQ(FindRegister(0x0C0), nullptr);  // reserved
  EXPECT_STREQ(FindRegister(reg::kCmdOp)->name, "CMD_OP");
  EXPECT_EQ(FindRegister(reg::kCmdOp)->rw_mask, 0xFu);
  // With RQ_FORM (bit 6), the LUT fields [24:12], RSHIFT_ROUND and MULT_WIDTH [29:25].
  EXPECT_EQ(FindRegister(reg::kCmdMode)->rw_mask, 0x3FFFFFFFu);
  EXPECT_EQ(FindRegister(reg::kCtrl)->rw_mask, kCtrlIrqEn);  // START is write-only
  EXPECT_STREQ(FindRegister(reg::kHwADepth)->reset_param, "ADepth");
}

TEST(ArchSpecTables, ErrorCodesInValidationOrder) {
  const nlohmann::json order = SpecJson()["error_codes"]["in_validation_order"];
  ASSERT_EQ(std::size(kErrCodes), order.size());
  std::set<int> codes;
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(static_cast<int>(kErrCodes[i].code), order[i]["code"].get<int>());
    EXPECT_EQ(kErrCodes[i].name, order[i]["name"].get<std::string>());
    EXPECT_STREQ(ErrCodeName(kErrCodes[i].code), kErrCodes[i].name);
    codes.insert(static_cast<int>(kErrCodes[i].code));
  }
  EXPECT_EQ(codes, (std::set<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 32, 33, 34, 38, 39, 40}));
  EXPECT_EQ(kErrCodes[0].code, ErrCode::kBadOpcode);  // checked first
  EXPECT_EQ(static_cast<int>(ErrCode::kBadOpcode), 10);
  EXPECT_STREQ(ErrCodeName(ErrCode::kNone), "NONE");
  EXPECT_LE(static_cast<uint32_t>(ErrCode::kBadOpcode), kStatusErrCodeMask >> kStatusErrCodeLsb);
}

// The codes only programs raise (data_movement.md 11): the spec's "program" list, after the
// command's.
TEST(ArchSpecTables, ProgramErrorCodesAndOpcodes) {
  const nlohmann::json program = SpecJson()["error_codes"]["program"];
  ASSERT_EQ(std::size(kProgramErrCodes), program.size());
  for (size_t i = 0; i < program.size(); ++i) {
    EXPECT_EQ(static_cast<int>(kProgramErrCodes[i].code), program[i]["code"].get<int>());
    EXPECT_STREQ(ErrCodeName(kProgramErrCodes[i].code),
                 program[i]["name"].get<std::string>().c_str());
  }
  EXPECT_EQ(static_cast<int>(ErrCode::kBadSram), 11);
  EXPECT_EQ(static_cast<int>(ErrCode::kDeadlock), 15);
  EXPECT_LE(static_cast<uint32_t>(ErrCode::kDeadlock), kStatusErrCodeMask >> kStatusErrCodeLsb);
  // Descriptor opcodes exist in the enum; CMD_OP's table keeps GEMM alone (START runs only a GEMM).
  EXPECT_EQ(static_cast<int>(Opcode::kLoad), 1);
  EXPECT_EQ(static_cast<int>(Opcode::kStore), 2);
  EXPECT_EQ(static_cast<int>(Opcode::kMove), 3);
  EXPECT_EQ(FindRegister(reg::kQBase)->rw_mask, 0xFFFF'FFC0u);
  EXPECT_TRUE(FindRegister(reg::kQCount)->busy_locked);
  EXPECT_EQ(FindRegister(reg::kPerfDmaBusy)->access, Access::kRO);
}

TEST(ArchSpecTables, UnitsAndOpcodes) {
  const nlohmann::json spec = SpecJson();
  ASSERT_EQ(std::size(kUnits), spec["units"].size());
  for (size_t i = 0; i < std::size(kUnits); ++i) {
    EXPECT_EQ(static_cast<int>(kUnits[i].id), spec["units"][i]["id"].get<int>());
    EXPECT_STREQ(UnitName(kUnits[i].id), spec["units"][i]["name"].get<std::string>().c_str());
    EXPECT_EQ(kUnits[i].present, spec["units"][i]["present"].get<bool>());
  }
  ASSERT_EQ(std::size(kOpcodes), 1u);
  EXPECT_EQ(kOpcodes[0].op, Opcode::kGemm);
  EXPECT_EQ(static_cast<int>(Opcode::kGemm), 0);
  EXPECT_STREQ(kOpcodes[0].name, "GEMM");
}

}  // namespace
}  // namespace qacc::arch
