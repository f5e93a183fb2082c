// The "gemm" test suite of sim/testgen: every job legal on both configs, deterministic, each
// directed test has the property its name promises, conv_im2col equals a direct convolution, and
// the model-only runner reproduces GoldenOutput for every test. The program tests (the "dma"
// suite and prog_layers): deterministic, race free, and golden's verdict is the generator's.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "compiler/compiler.h"
#include "golden/gemm.h"
#include "golden/program.h"
#include "golden/requant.h"
#include "model/model_only.h"
#include "model/srams.h"
#include "sim/build_paths.h"
#include "sim/testgen/dma_tests.h"
#include "sim/testgen/gemm_tests.h"
#include "sim/testgen/suites.h"

namespace qacc::sim {
namespace {

constexpr uint64_t kValiditySeeds = 100;

// configs/<name>.json, loaded once.
const arch::ArchConfig& Config(const std::string& name) {
  static std::map<std::string, arch::ArchConfig> configs;
  auto it = configs.find(name);
  if (it == configs.end()) {
    it = configs.emplace(name, arch::LoadArchConfig(std::string(QACC_SOURCE_DIR) + "/configs/" + name + ".json"))
             .first;
  }
  return it->second;
}
const std::vector<std::string> kConfigs = {"default", "rect_4x16", "tall_16x4"};

std::string Where(const std::string& test, uint64_t seed, const arch::ArchConfig& config) {
  return test + " seed " + std::to_string(seed) + " on " + config.name;
}

bool SameJob(const model::GemmJob& x, const model::GemmJob& y) {
  return x.m == y.m && x.n == y.n && x.k == y.k && x.a_unsigned == y.a_unsigned &&
         x.b_unsigned == y.b_unsigned && x.a == y.a && x.b == y.b && x.a_zp == y.a_zp &&
         x.b_zp == y.b_zp && x.bias == y.bias && x.out_raw == y.out_raw &&
         x.per_channel == y.per_channel && x.requant.multiplier == y.requant.multiplier &&
         x.requant.shift == y.requant.shift && x.requant.rounding == y.requant.rounding &&
         x.requant.output_zero_point == y.requant.output_zero_point &&
         x.requant.clamp_min == y.requant.clamp_min && x.requant.clamp_max == y.requant.clamp_max &&
         x.channel_mult == y.channel_mult && x.channel_shift == y.channel_shift &&
         x.a_base == y.a_base && x.b_base == y.b_base && x.bias_base == y.bias_base &&
         x.rq_base == y.rq_base && x.out_base == y.out_base && x.pad_byte == y.pad_byte;
}

template <typename T>
golden::Matrix<T> ToMatrix(int rows, int cols, const std::vector<uint8_t>& codes) {
  golden::Matrix<T> matrix(rows, cols);
  for (size_t i = 0; i < codes.size(); ++i) {
    matrix.data[i] = static_cast<T>(std::is_signed_v<T> && codes[i] >= 128 ? int{codes[i]} - 256
                                                                           : int{codes[i]});
  }
  return matrix;
}

std::optional<golden::GemmOverflow> Overflow(const model::GemmJob& job) {
  // The generator's overflow test uses uint8 operands only.
  EXPECT_TRUE(job.a_unsigned && job.b_unsigned);
  return golden::CheckGemmOverflow(ToMatrix<uint8_t>(job.m, job.k, job.a),
                                   ToMatrix<uint8_t>(job.k, job.n, job.b), job.bias, job.a_zp,
                                   job.b_zp, golden::OverflowCheck::kFinalValue);
}

// SRAM words the job uses, per section 4.
struct Usage {
  int64_t a, b, bias, rq, out;
};
Usage UsageOf(const arch::ArchConfig& config, const model::GemmJob& job) {
  const arch::Timing t(config.rows, config.cols, job.m, job.n, job.k);
  return {job.a_base + t.MB() * job.k, job.b_base + t.NB() * job.k,
          job.bias.empty() ? 0 : job.bias_base + t.NB(), job.per_channel ? job.rq_base + t.NB() : 0,
          job.out_base + arch::OutWords(t.T(), config.rows, job.out_raw)};
}

TEST(GemmSuite, NamesAreUniqueAndDescribed) {
  std::set<std::string> names;
  for (const GemmTestInfo& info : GemmTests()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_FALSE(info.description.empty()) << info.name;
  }
  for (const char* required : {"gemm_random",
                               "gemm_k1",
                               "gemm_m1",
                               "gemm_n1",
                               "gemm_edges",
                               "gemm_fill_sram",
                               "gemm_all_min",
                               "gemm_all_max",
                               "gemm_sparse",
                               "gemm_bimodal",
                               "gemm_overflow",
                               "gemm_shift_extremes",
                               "gemm_mult_extremes",
                               "gemm_requant_ties",
                               "gemm_requant_saturation",
                               "gemm_per_channel",
                               "gemm_single_rounding",
                               "gemm_raw_int32",
                               "gemm_relu",
                               "gemm_relu6",
                               "gemm_zero_points",
                               "conv_im2col"}) {
    EXPECT_EQ(names.count(required), 1u) << required;
  }
}

TEST(GemmSuite, UnknownNameThrowsListingValidNames) {
  try {
    MakeGemmTest("gemm_nope", 1, Config("default"));
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("gemm_nope"), std::string::npos) << what;
    EXPECT_NE(what.find("gemm_random"), std::string::npos) << what;
    EXPECT_NE(what.find("conv_im2col"), std::string::npos) << what;
  }
}

TEST(GemmSuite, Deterministic) {
  for (const GemmTestInfo& info : GemmTests()) {
    for (const std::string& cfg : kConfigs) {
      const arch::ArchConfig& config = Config(cfg);
      for (uint64_t seed : {0ull, 1ull, 12345ull}) {
        EXPECT_TRUE(
            SameJob(MakeGemmTest(info.name, seed, config), MakeGemmTest(info.name, seed, config)))
            << Where(info.name, seed, config);
      }
      EXPECT_FALSE(SameJob(MakeGemmTest(info.name, 1, config), MakeGemmTest(info.name, 2, config)))
          << Where(info.name, 1, config) << " equals seed 2";
    }
  }
}

TEST(GemmSuite, EveryJobIsLegal) {
  for (const GemmTestInfo& info : GemmTests()) {
    for (const std::string& cfg : kConfigs) {
      const arch::ArchConfig& config = Config(cfg);
      for (uint64_t seed = 0; seed < kValiditySeeds; ++seed) {
        const model::GemmJob job = MakeGemmTest(info.name, seed, config);
        const std::string where = Where(info.name, seed, config);
        ASSERT_EQ(arch::ValidateCommand(config, model::ToCommand(job)), arch::ErrCode::kNone)
            << where;
        ASSERT_EQ(job.a.size(), size_t(job.m) * size_t(job.k)) << where;
        ASSERT_EQ(job.b.size(), size_t(job.k) * size_t(job.n)) << where;
        ASSERT_TRUE(job.bias.empty() || job.bias.size() == size_t(job.n)) << where;
        if (job.out_raw) continue;
        // The stored byte reads back unambiguously: the clamp range (the slope stage's with one) is
        // int8 or uint8.
        const int32_t lo = job.slope ? job.slope->clamp_min : job.requant.clamp_min;
        const int32_t hi = job.slope ? job.slope->clamp_max : job.requant.clamp_max;
        EXPECT_TRUE((lo >= -128 && hi <= 127) || (lo >= 0 && hi <= 255)) << where;
        if (job.per_channel) {
          ASSERT_EQ(job.channel_mult.size(), size_t(job.n)) << where;
          ASSERT_EQ(job.channel_shift.size(), size_t(job.n)) << where;
          for (int n = 0; n < job.n; ++n) {
            golden::RequantParams params = job.requant;
            params.multiplier = job.channel_mult[size_t(n)];
            params.shift = job.channel_shift[size_t(n)];
            EXPECT_NO_THROW(golden::ValidateRequantParams(params)) << where << " lane " << n;
          }
        }
      }
    }
  }
}

// Runs `check` on every (config, seed) job of `test`.
template <typename Check>
void ForEachJob(const std::string& test, Check check) {
  for (const std::string& cfg : kConfigs) {
    const arch::ArchConfig& config = Config(cfg);
    for (uint64_t seed = 0; seed < kValiditySeeds; ++seed) {
      check(config, MakeGemmTest(test, seed, config), Where(test, seed, config));
    }
  }
}

TEST(GemmSuite, DirectedDimensions) {
  ForEachJob("gemm_k1",
             [](const auto&, const auto& job, const auto& where) { EXPECT_EQ(job.k, 1) << where; });
  ForEachJob("gemm_m1",
             [](const auto&, const auto& job, const auto& where) { EXPECT_EQ(job.m, 1) << where; });
  ForEachJob("gemm_n1",
             [](const auto&, const auto& job, const auto& where) { EXPECT_EQ(job.n, 1) << where; });
  int non_multiples = 0, short_k = 0;
  ForEachJob("gemm_edges", [&](const auto& config, const auto& job, const auto&) {
    non_multiples += job.m % config.rows != 0 || job.n % config.cols != 0;
    short_k += job.k < std::max(config.rows, config.cols);
  });
  EXPECT_GT(non_multiples, 0);
  EXPECT_GT(short_k, 0);
}

TEST(GemmSuite, FillSramEndsAtTheTopWord) {
  std::set<std::string> filled;
  ForEachJob("gemm_fill_sram", [&](const auto& config, const auto& job, const auto& where) {
    const Usage u = UsageOf(config, job);
    bool any = false;
    if (u.a == config.a_depth) any = true, filled.insert("a");
    if (u.b == config.b_depth) any = true, filled.insert("b");
    if (u.bias == config.bias_depth) any = true, filled.insert("bias");
    if (u.rq == config.rq_depth) any = true, filled.insert("rq");
    if (u.out == config.out_depth) any = true, filled.insert("out");
    EXPECT_TRUE(any) << where;
  });
  EXPECT_EQ(filled, (std::set<std::string>{"a", "b", "bias", "rq", "out"}));
}

TEST(GemmSuite, DistributionsHoldTheirCodes) {
  ForEachJob("gemm_all_min", [](const auto&, const auto& job, const auto& where) {
    EXPECT_TRUE(std::all_of(job.a.begin(), job.a.end(), [&](uint8_t c) {
      return c == (job.a_unsigned ? 0 : 0x80);
    })) << where;
    EXPECT_TRUE(std::all_of(job.b.begin(), job.b.end(), [&](uint8_t c) {
      return c == (job.b_unsigned ? 0 : 0x80);
    })) << where;
  });
  ForEachJob("gemm_all_max", [](const auto&, const auto& job, const auto& where) {
    EXPECT_TRUE(std::all_of(job.a.begin(), job.a.end(), [&](uint8_t c) {
      return c == (job.a_unsigned ? 0xFF : 0x7F);
    })) << where;
    EXPECT_TRUE(std::all_of(job.b.begin(), job.b.end(), [&](uint8_t c) {
      return c == (job.b_unsigned ? 0xFF : 0x7F);
    })) << where;
  });
  size_t zeros = 0, total = 0;
  ForEachJob("gemm_sparse", [&](const auto&, const auto& job, const auto&) {
    const uint8_t zero =
        uint8_t(std::clamp(job.a_zp, job.a_unsigned ? 0 : -128, job.a_unsigned ? 255 : 127));
    zeros += size_t(std::count(job.a.begin(), job.a.end(), zero));
    total += job.a.size();
  });
  EXPECT_GT(zeros * 100, total * 80);
  ForEachJob("gemm_bimodal", [](const auto&, const auto& job, const auto& where) {
    for (uint8_t c : job.a) {
      const int v = job.a_unsigned || c < 128 ? int{c} : int{c} - 256;
      const int lo = job.a_unsigned ? 0 : -128, hi = job.a_unsigned ? 255 : 127;
      ASSERT_TRUE(v <= lo + 7 || v >= hi - 7) << where << " code " << v;
    }
  });
}

TEST(GemmSuite, OverflowReallyOverflows) {
  int raw = 0;
  ForEachJob("gemm_overflow", [&](const auto&, const auto& job, const auto& where) {
    const auto overflow = Overflow(job);
    ASSERT_TRUE(overflow.has_value()) << where;
    raw += job.out_raw;
    EXPECT_GE(job.k, 256) << where;
  });
  EXPECT_GT(raw, 0);
}

TEST(GemmSuite, ShiftAndMultiplierExtremes) {
  std::set<int> shifts;
  ForEachJob("gemm_shift_extremes", [&](const auto&, const auto& job, const auto& where) {
    ASSERT_FALSE(job.out_raw) << where;
    if (job.per_channel) {
      const std::set<int> lanes(job.channel_shift.begin(), job.channel_shift.end());
      for (int s : {-31, -30, 0, 29, 30}) EXPECT_EQ(lanes.count(s), 1u) << where << " shift " << s;
      shifts.insert(lanes.begin(), lanes.end());
    } else {
      EXPECT_TRUE(job.requant.shift == -31 || job.requant.shift == 0 || job.requant.shift == 30)
          << where;
      shifts.insert(job.requant.shift);
    }
  });
  EXPECT_EQ(shifts.count(-31) + shifts.count(0) + shifts.count(30), 3u);
  std::set<int32_t> mults;
  ForEachJob("gemm_mult_extremes", [&](const auto&, const auto& job, const auto& where) {
    ASSERT_FALSE(job.out_raw) << where;
    if (job.per_channel) {
      const std::set<int32_t> lanes(job.channel_mult.begin(), job.channel_mult.end());
      for (int32_t m : {int32_t{1} << 30, int32_t{0x7FFF'FFFF}}) {
        EXPECT_EQ(lanes.count(m), 1u) << where << " mult " << m;
      }
      mults.insert(lanes.begin(), lanes.end());
    } else {
      mults.insert(job.requant.multiplier);
    }
  });
  for (int32_t m : {0, int32_t{1} << 30, (int32_t{1} << 30) + 1, 0x7FFF'FFFE, 0x7FFF'FFFF}) {
    EXPECT_EQ(mults.count(m), 1u) << m;
  }
}

// The requant corner tests reach their corner (checked with the golden's own SRDHM and rounding, an
// oracle independent of the generator's search) and the int8 output shows it, not a clamp bound.
TEST(GemmSuite, RequantCornersAreReachedAndVisible) {
  std::set<bool> tie_signs, sat_signs;
  int ties = 0, saturated = 0;
  ForEachJob("gemm_requant_ties", [&](const auto&, const auto& job, const auto& where) {
    ASSERT_EQ(job.requant.rounding, golden::RequantRounding::kDoubleRounding) << where;
    ASSERT_LT(job.requant.shift, 0) << where;
    ASSERT_FALSE(job.per_channel || job.out_raw) << where;
    const int sh2 = -job.requant.shift;
    for (int n = 0; n < job.n; ++n) {
      const int32_t x = job.bias[size_t(n)];  // A is all 0
      const int64_t t = golden::SaturatingRoundingDoublingHighMul(x, job.requant.multiplier);
      EXPECT_GT(t < 0 ? -t : t, int64_t{1} << 30) << where << " lane " << n;
      EXPECT_EQ(t & ((int64_t{1} << sh2) - 1), int64_t{1} << (sh2 - 1)) << where << " lane " << n;
      const int32_t y = golden::RequantizeAccumulator(x, job.requant);
      EXPECT_TRUE(y > -128 && y < 127) << where << " lane " << n << " y " << y;
      tie_signs.insert(t < 0);
      ++ties;
    }
  });
  ForEachJob("gemm_requant_saturation", [&](const auto&, const auto& job, const auto& where) {
    ASSERT_EQ(job.requant.shift, arch::kMaxShift) << where;
    for (int n = 0; n < job.n; ++n) {
      const int32_t x = job.bias[size_t(n)];
      const int32_t v = job.requant.rounding == golden::RequantRounding::kSingleRounding
                            ? golden::MultiplyByQuantizedMultiplierSingleRounding(
                                  x, job.requant.multiplier, arch::kMaxShift)
                            : golden::MultiplyByQuantizedMultiplierDoubleRounding(
                                  x, job.requant.multiplier, arch::kMaxShift);
      if (v != INT32_MAX && v != INT32_MIN) continue;
      const int32_t y = golden::RequantizeAccumulator(x, job.requant);
      EXPECT_TRUE(y > -128 && y < 127) << where << " lane " << n << " y " << y;
      sat_signs.insert(v < 0);
      ++saturated;
    }
  });
  EXPECT_GT(ties, 100);
  EXPECT_GT(saturated, 100);
  EXPECT_EQ(tie_signs.size(), 2u);
  EXPECT_EQ(sat_signs.size(), 2u);
}

TEST(GemmSuite, ModeTestsHaveTheirMode) {
  ForEachJob("gemm_per_channel", [](const auto&, const auto& job, const auto& where) {
    EXPECT_TRUE(job.per_channel && !job.out_raw && !job.bias.empty()) << where;
  });
  ForEachJob("gemm_single_rounding", [](const auto&, const auto& job, const auto& where) {
    EXPECT_EQ(job.requant.rounding, golden::RequantRounding::kSingleRounding) << where;
    EXPECT_FALSE(job.out_raw) << where;
  });
  ForEachJob("gemm_double_rounding", [](const auto&, const auto& job, const auto& where) {
    EXPECT_EQ(job.requant.rounding, golden::RequantRounding::kDoubleRounding) << where;
  });
  ForEachJob("gemm_raw_int32", [](const auto&, const auto& job, const auto& where) {
    EXPECT_TRUE(job.out_raw) << where;
  });
  ForEachJob("gemm_relu", [](const auto&, const auto& job, const auto& where) {
    // ReLU keeps [max(qmin, Z), qmax].
    EXPECT_EQ(job.requant.clamp_min, job.requant.output_zero_point) << where;
    EXPECT_TRUE(job.requant.clamp_max == 127 || job.requant.clamp_max == 255) << where;
  });
  ForEachJob("gemm_relu6", [](const auto&, const auto& job, const auto& where) {
    EXPECT_EQ(job.requant.clamp_min, job.requant.output_zero_point) << where;
    EXPECT_GT(job.requant.clamp_max, job.requant.clamp_min) << where;
  });
  std::set<int32_t> zps;
  ForEachJob("gemm_zero_points", [&](const auto&, const auto& job, const auto&) {
    zps.insert(job.a_zp);
    zps.insert(job.b_zp);
  });
  EXPECT_EQ(zps.count(-128), 1u);
  EXPECT_EQ(zps.count(255), 1u);
  int nonzero_bases = 0;
  ForEachJob("gemm_bases", [&](const auto&, const auto& job, const auto&) {
    nonzero_bases += job.a_base != 0 && job.b_base != 0 && job.out_base != 0;
  });
  EXPECT_GT(nonzero_bases, 0);
}

// Direct convolution, independent of golden Im2Col/Conv2d.
golden::Matrix<int32_t> DirectConv(const ConvTestCase& conv) {
  const auto& in = conv.input;
  const auto& w = conv.filter;
  const auto& p = conv.params;
  const int batch = in.dims[0], h = in.dims[1], wi = in.dims[2], c_in = in.dims[3];
  const int kh = w.dims[0], kw = w.dims[1], c_out = w.dims[3];
  const int oh = (h + p.pad_top + p.pad_bottom - kh) / p.stride_h + 1;
  const int ow = (wi + p.pad_left + p.pad_right - kw) / p.stride_w + 1;
  golden::Matrix<int32_t> out(batch * oh * ow, c_out);
  for (int b = 0; b < batch; ++b) {
    for (int y = 0; y < oh; ++y) {
      for (int x = 0; x < ow; ++x) {
        for (int co = 0; co < c_out; ++co) {
          int64_t acc = conv.job.bias.empty() ? 0 : conv.job.bias[size_t(co)];
          for (int i = 0; i < kh; ++i) {
            for (int j = 0; j < kw; ++j) {
              const int iy = y * p.stride_h - p.pad_top + i, ix = x * p.stride_w - p.pad_left + j;
              if (iy < 0 || iy >= h || ix < 0 || ix >= wi) continue;  // padding: factor 0
              for (int ci = 0; ci < c_in; ++ci) {
                acc += int64_t(in.at(b, iy, ix, ci) - p.input_zero_point) *
                       (w.at(i, j, ci, co) - p.filter_zero_point);
              }
            }
          }
          out.at((b * oh + y) * ow + x, co) = int32_t(acc);
        }
      }
    }
  }
  return out;
}

TEST(GemmSuite, ConvIm2colEqualsDirectConvolution) {
  for (const std::string& cfg : kConfigs) {
    const arch::ArchConfig& config = Config(cfg);
    for (uint64_t seed = 0; seed < kValiditySeeds; ++seed) {
      const ConvTestCase conv = MakeConvTestCase(seed, config);
      const std::string where = Where("conv_im2col", seed, config);
      ASSERT_TRUE(SameJob(conv.job, MakeGemmTest("conv_im2col", seed, config))) << where;
      model::GemmJob raw = conv.job;
      raw.out_raw = true;
      EXPECT_EQ(model::GoldenOutput(raw).data, DirectConv(conv).data) << where;
    }
  }
}

TEST(GemmSuite, ModelOnlyMatchesGolden) {
  for (const GemmTestInfo& info : GemmTests()) {
    for (const std::string& cfg : kConfigs) {
      const arch::ArchConfig& config = Config(cfg);
      for (uint64_t seed = 0; seed < 3; ++seed) {
        const model::GemmJob job = MakeGemmTest(info.name, seed, config);
        const std::string where = Where(info.name, seed, config);
        model::Srams srams(config);
        for (const model::BusWrite& write : model::PackOperands(config, job)) {
          const auto region = static_cast<arch::Region>(arch::RegionBits(write.addr));
          srams.HostWrite(region, arch::WindowOffset(write.addr), write.data, write.strobe);
        }
        const arch::Command cmd = model::ToCommand(job);
        const model::RunResult result = model::RunCommand(config, cmd, srams);
        ASSERT_EQ(result.error, arch::ErrCode::kNone) << where;
        // E, plus L_slope with the slope stage (requant.md 6.2).
        EXPECT_EQ(result.cycles, arch::Timing(config.rows, config.cols, job.m, job.n, job.k).E() +
                                     (cmd.slope() ? arch::kSlopeLatency : 0))
            << where;
        const auto out = model::UnpackOutput(config, job, srams.image(arch::Region::kOut));
        ASSERT_EQ(out.data, model::GoldenOutput(job).data) << where;
      }
    }
  }
}

// ---- Programs launched with CTRL.RUN (the dma suite, prog_layers)

std::vector<std::string> ProgramTestNames() {
  std::vector<std::string> names;
  for (const TestInfo& info : DmaTests()) names.push_back(info.name);
  names.push_back("prog_layers");
  return names;
}

bool SameOps(const Program& x, const Program& y) {
  if (x.ops.size() != y.ops.size() || x.ext_blobs.size() != y.ext_blobs.size() ||
      x.commands.size() != y.commands.size()) {
    return false;
  }
  for (size_t i = 0; i < x.ops.size(); ++i) {
    const HostOp &a = x.ops[i], &b = y.ops[i];
    if (a.kind != b.kind || a.addr != b.addr || a.data != b.data || a.strobe != b.strobe ||
        a.cycles != b.cycles || a.index != b.index) {
      return false;
    }
  }
  for (size_t i = 0; i < x.ext_blobs.size(); ++i) {
    if (x.ext_blobs[i].addr != y.ext_blobs[i].addr ||
        x.ext_blobs[i].bytes != y.ext_blobs[i].bytes) {
      return false;
    }
  }
  for (size_t i = 0; i < x.commands.size(); ++i) {
    const ProgramCommand &a = x.commands[i], &b = y.commands[i];
    if (a.expected_error != b.expected_error || a.is_program != b.is_program ||
        a.q_base != b.q_base || a.q_count != b.q_count || a.description != b.description) {
      return false;
    }
  }
  return true;
}

// Plays a program's external writes and RUNs on the golden executor (the SRAMs start at zero, as
// after reset; the only SRAM window these programs write is the rq SRAM's, dma_slope's PReLU
// words): per program, its verdict and its races.
struct GoldenRun {
  golden::ProgramResult result;
  std::vector<golden::Race> races;
};
std::vector<GoldenRun> ReplayOnGolden(const Program& program, const arch::ArchConfig& config) {
  const golden::AccelGeometry g = compiler::GeometryOf(config);
  golden::MachineState state(g, config.ext_mem_size_bytes);
  std::vector<GoldenRun> runs;
  for (const HostOp& op : program.ops) {
    if (op.kind == HostOp::Kind::kExtWrite) {
      const ExtBlob& blob = program.ext_blobs[size_t(op.index)];
      EXPECT_LE(blob.addr + blob.bytes.size(), state.ext.size());
      state.ext.Write(blob.addr, blob.bytes);
    }
    // The host's writes of the slope registers (requant.md 6.2), each keeping its fields.
    if (op.kind == HostOp::Kind::kWrite && op.addr >= arch::kRegsBase + arch::reg::kSlopePosMult &&
        op.addr <= arch::kRegsBase + arch::reg::kSlopeClampMax) {
      const uint32_t offset = op.addr - arch::kRegsBase;
      state.unit_registers[offset] = op.data & arch::FindRegister(offset)->rw_mask;
    }
    // The host's rq SRAM words (dma_slope's PReLU, requant.md 6.3), whole 32-bit writes.
    if (op.kind == HostOp::Kind::kWrite && op.addr >= arch::kRqBase &&
        op.addr < arch::kRqBase + state.rq.size()) {
      for (uint32_t b = 0; b < 4; ++b)
        state.rq[op.addr - arch::kRqBase + b] = uint8_t(op.data >> (8 * b));
    }
    if (op.kind != HostOp::Kind::kStart || !program.commands[size_t(op.index)].is_program) {
      continue;
    }
    const ProgramCommand& cmd = program.commands[size_t(op.index)];
    std::vector<golden::Descriptor> descriptors;
    for (uint32_t i = 0; i < cmd.q_count; ++i) {
      const uint64_t at = uint64_t(cmd.q_base) + uint64_t(i) * golden::kDescriptorBytes;
      if (at + golden::kDescriptorBytes > state.ext.size()) break;
      golden::Descriptor d{};
      for (int w = 0; w < golden::kDescriptorWords; ++w) {
        for (int b = 0; b < 4; ++b) d[size_t(w)] |= uint32_t(state.ext[at + 4 * w + b]) << (8 * b);
      }
      descriptors.push_back(d);
    }
    GoldenRun run;
    run.result = golden::RunQueue(g, cmd.q_base, cmd.q_count, state);
    // The descriptors that were fetched and run: all, or those before a failing one (a validation
    // error or a fault; a DEADLOCK's are all fetched).
    size_t ran = descriptors.size();
    if (run.result.error != golden::ProgramError::kNone &&
        run.result.error != golden::ProgramError::kDeadlock) {
      ran = std::min(ran, size_t(std::max(run.result.error_index, 0)));
    }
    descriptors.resize(ran);
    run.races = golden::RaceCheck(g, descriptors, cmd.q_base);
    runs.push_back(run);
  }
  return runs;
}

TEST(ProgramSuites, DmaSuiteIsRegistered) {
  const Suite* suite = FindSuite("dma");
  ASSERT_NE(suite, nullptr);
  EXPECT_EQ(suite->tests.size(), DmaTests().size());
  std::set<std::string> names;
  for (const Suite& s : Suites()) {
    for (const TestInfo& info : s.tests) {
      EXPECT_TRUE(names.insert(info.name).second) << "duplicate test " << info.name;
      EXPECT_FALSE(info.description.empty()) << info.name;
    }
  }
  EXPECT_NE(FindSuiteOfTest("prog_layers"), nullptr);
  EXPECT_THROW(MakeDmaTest("dma_nonexistent", 1, Config("default")), std::invalid_argument);
}

TEST(ProgramSuites, Deterministic) {
  for (const std::string& name : ProgramTestNames()) {
    const arch::ArchConfig& config = Config("default");
    const Program a = MakeTest(name, 1, config);
    const Program b = MakeTest(name, 1, config);
    EXPECT_TRUE(SameOps(a, b)) << name;
    const Program c = MakeTest(name, 2, config);
    EXPECT_FALSE(SameOps(a, c)) << name << ": seeds 1 and 2 give the same program";
  }
}

// Every program of every test: race free (golden::RaceCheck over the descriptors it fetched) and
// ending with the error its generator meant, on the golden executor.
TEST(ProgramSuites, RaceFreeAndGoldenVerdictAsMeant) {
  for (const std::string& cfg : kConfigs) {
    const arch::ArchConfig& config = Config(cfg);
    for (const std::string& name : ProgramTestNames()) {
      for (uint64_t seed = 1; seed <= 3; ++seed) {
        const std::string where = Where(name, seed, config);
        const Program program = MakeTest(name, seed, config);
        std::vector<const ProgramCommand*> runs;
        for (const ProgramCommand& cmd : program.commands) {
          if (cmd.is_program) runs.push_back(&cmd);
        }
        ASSERT_FALSE(runs.empty()) << where;
        const std::vector<GoldenRun> golden = ReplayOnGolden(program, config);
        ASSERT_EQ(golden.size(), runs.size()) << where;
        for (size_t i = 0; i < runs.size(); ++i) {
          EXPECT_EQ(uint32_t(golden[i].result.error), uint32_t(runs[i]->expected_error))
              << where << " program " << i << " (" << runs[i]->description << "): golden "
              << golden::ProgramErrorName(golden[i].result.error) << " at "
              << golden[i].result.error_index;
          EXPECT_TRUE(golden[i].races.empty())
              << where << " program " << i << ": descriptors " << golden[i].races[0].first
              << " and " << golden[i].races[0].second << " race";
        }
      }
    }
  }
}

// prog_layers reaches what it is for over the default seeds: a chained intermediate (a MOVE with
// chaining on) and weights streamed through the B SRAM in chunks with double buffering on, on
// every config, and residual adds (ELTWISE) on some.
TEST(ProgramSuites, LayersChainAndStream) {
  int residual = 0;
  for (const std::string& cfg : kConfigs) {
    const arch::ArchConfig& config = Config(cfg);
    int chained = 0, streamed = 0;
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      for (const ProgramCommand& cmd : MakeTest("prog_layers", seed, config).commands) {
        const std::string& d = cmd.description;
        const bool chain_on = d.find("chaining on") != std::string::npos;
        const bool db_on = d.find("double buffering on") != std::string::npos;
        chained += chain_on && d.find(", 0 MOVE)") == std::string::npos;
        streamed += db_on && d.find("B in up to 1 chunks") == std::string::npos;
        residual += d.find("ELTWISE (residual adds)") != std::string::npos;
      }
    }
    EXPECT_GT(chained, 0) << cfg;
    EXPECT_GT(streamed, 0) << cfg;
  }
  EXPECT_GT(residual, 0);
}

}  // namespace
}  // namespace qacc::sim
