// Command validation (docs/architecture.md 4): every error code, the order of the checks, the
// boundaries of each range check, and the decoding of a valid command.
#include "model/command.h"

#include <gtest/gtest.h>

#include <tuple>

#include "model/descriptor.h"
#include "tests/model/model_test_util.h"

namespace qacc::model {
namespace {

using arch::ErrCode;

arch::Command Legal() {
  arch::Command cmd;
  cmd.m = 20, cmd.n = 12, cmd.k = 5;  // 8x8: MB = 3, NB = 2, T = 6
  return cmd;
}

ErrCode Check(const arch::Command& cmd) {
  return DecodeCommand(testing::Config("default"), cmd).error;
}

TEST(CommandValidation, LegalCommandDecodes) {
  arch::Command cmd = Legal();
  cmd.mode = arch::kModeRounding | arch::kModeBiasEn | arch::kModeAUnsigned;
  cmd.zp_ab = arch::PackZpAb(-128, 255);
  cmd.shift = 0xE1;  // -31
  cmd.a_base = 7;
  const LaunchDecision decision = DecodeCommand(testing::Config("default"), cmd);
  ASSERT_EQ(decision.error, ErrCode::kNone);
  EXPECT_EQ(decision.cycles, (6 - 1) * 8 + 5 + 8 + 8 + 8);
  EXPECT_EQ(decision.command.a_zp, -128);
  EXPECT_EQ(decision.command.b_zp, 255);
  EXPECT_EQ(decision.command.requant.shift, -31);
  EXPECT_EQ(decision.command.requant.rounding, golden::RequantRounding::kSingleRounding);
  EXPECT_TRUE(decision.command.a_unsigned);
  EXPECT_FALSE(decision.command.b_unsigned);
  EXPECT_TRUE(decision.command.bias_en);
  EXPECT_EQ(decision.command.a_base, 7u);
}

TEST(CommandValidation, EachErrorCode) {
  const auto with = [](auto edit) {
    arch::Command cmd = Legal();
    edit(cmd);
    return Check(cmd);
  };
  EXPECT_EQ(with([](arch::Command& c) { c.m = 0; }), ErrCode::kBadShape);
  EXPECT_EQ(with([](arch::Command& c) { c.n = 0x10000; }), ErrCode::kBadShape);  // field [15:0] = 0
  EXPECT_EQ(with([](arch::Command& c) { c.k = 0; }), ErrCode::kBadShape);
  // A: MB * K = 15 words. B: NB * K = 10 words. Depths 8192.
  EXPECT_EQ(with([](arch::Command& c) { c.a_base = 8192 - 15; }), ErrCode::kNone);
  EXPECT_EQ(with([](arch::Command& c) { c.a_base = 8192 - 14; }), ErrCode::kARange);
  EXPECT_EQ(with([](arch::Command& c) { c.b_base = 8192 - 10; }), ErrCode::kNone);
  EXPECT_EQ(with([](arch::Command& c) { c.b_base = 8192 - 9; }), ErrCode::kBRange);
  // Bias and rq: NB = 2 words of 256, checked only when used.
  EXPECT_EQ(with([](arch::Command& c) { c.bias_base = 255; }), ErrCode::kNone);
  EXPECT_EQ(with([](arch::Command& c) { c.bias_base = 255, c.mode = arch::kModeBiasEn; }),
            ErrCode::kBiasRange);
  EXPECT_EQ(with([](arch::Command& c) { c.bias_base = 254, c.mode = arch::kModeBiasEn; }),
            ErrCode::kNone);
  EXPECT_EQ(with([](arch::Command& c) { c.rq_base = 255; }), ErrCode::kNone);
  EXPECT_EQ(with([](arch::Command& c) { c.rq_base = 255, c.mode = arch::kModePerChannel; }),
            ErrCode::kRqRange);
  // Out: T * R / 4 = 12 words (int8), T * R = 48 (raw).
  EXPECT_EQ(with([](arch::Command& c) { c.out_base = 8192 - 12; }), ErrCode::kNone);
  EXPECT_EQ(with([](arch::Command& c) { c.out_base = 8192 - 11; }), ErrCode::kOutRange);
  EXPECT_EQ(with([](arch::Command& c) { c.out_base = 8192 - 12, c.mode = arch::kModeOutRaw; }),
            ErrCode::kOutRange);
  EXPECT_EQ(with([](arch::Command& c) { c.out_base = 8192 - 48, c.mode = arch::kModeOutRaw; }),
            ErrCode::kNone);
  // Requant: shift, per-tensor multiplier, clamp order and int8 clamp range; none checked with
  // OUT_RAW.
  EXPECT_EQ(with([](arch::Command& c) { c.shift = 0x1F; }), ErrCode::kBadRequant);  // 31
  EXPECT_EQ(with([](arch::Command& c) { c.shift = 0xE0; }), ErrCode::kBadRequant);  // -32
  EXPECT_EQ(with([](arch::Command& c) { c.shift = 0xE1; }), ErrCode::kNone);        // -31
  EXPECT_EQ(with([](arch::Command& c) { c.shift = 0x20; }), ErrCode::kBadRequant);  // 32
  EXPECT_EQ(with([](arch::Command& c) { c.shift = 0x1E; }), ErrCode::kNone);        // 30
  EXPECT_EQ(with([](arch::Command& c) { c.mult = (1 << 30) - 1; }), ErrCode::kBadRequant);
  EXPECT_EQ(with([](arch::Command& c) { c.mult = -5; }), ErrCode::kBadRequant);
  EXPECT_EQ(with([](arch::Command& c) { c.mult = 0; }), ErrCode::kNone);
  EXPECT_EQ(with([](arch::Command& c) { c.mult = 5, c.mode = arch::kModePerChannel; }),
            ErrCode::kNone);
  EXPECT_EQ(with([](arch::Command& c) { c.clamp_min = 10, c.clamp_max = 9; }),
            ErrCode::kBadRequant);
  EXPECT_EQ(with([](arch::Command& c) { c.clamp_min = -129; }), ErrCode::kBadRequant);
  EXPECT_EQ(with([](arch::Command& c) { c.clamp_max = 256; }), ErrCode::kBadRequant);
  EXPECT_EQ(with([](arch::Command& c) { c.clamp_min = 0, c.clamp_max = 255; }), ErrCode::kNone);
  EXPECT_EQ(with([](arch::Command& c) {
              c.clamp_max = 256, c.mult = 3, c.shift = 0x20, c.mode = arch::kModeOutRaw;
            }),
            ErrCode::kNone);
  // The TPU-MLIR form (requant.md 6.1): the width's and the mode's encodings, the multiplier in its
  // width and the rshift 0..63 per tensor; the TFLite form's shift and multiplier rules do not
  // apply.
  auto tpu = [&](uint32_t width, uint32_t round, int32_t mult, uint32_t shift, uint32_t more = 0) {
    return with([=](arch::Command& c) {
      c.mode = arch::kModeRqForm | width << arch::kModeMultWidthLsb |
               round << arch::kModeRshiftRoundLsb | more;
      c.mult = mult;
      c.shift = shift;
    });
  };
  EXPECT_EQ(tpu(0, 0, 127, 63), ErrCode::kNone);
  EXPECT_EQ(tpu(0, 6, -128, 0), ErrCode::kNone);
  EXPECT_EQ(tpu(0, 0, 128, 0), ErrCode::kMultWidth);
  EXPECT_EQ(tpu(0, 0, -129, 0), ErrCode::kMultWidth);
  EXPECT_EQ(tpu(1, 0, 32767, 0), ErrCode::kNone);
  EXPECT_EQ(tpu(1, 0, -32769, 0), ErrCode::kMultWidth);
  EXPECT_EQ(tpu(2, 0, std::numeric_limits<int32_t>::min(), 0), ErrCode::kNone);
  EXPECT_EQ(tpu(2, 0, 5, 64), ErrCode::kRshiftRange);
  EXPECT_EQ(tpu(2, 0, 5, 255), ErrCode::kRshiftRange);
  EXPECT_EQ(tpu(3, 0, 5, 0), ErrCode::kBadRequant);
  EXPECT_EQ(tpu(2, 7, 5, 0), ErrCode::kBadRequant);
  // BAD_REQUANT before MULT_WIDTH before RSHIFT_RANGE.
  EXPECT_EQ(tpu(0, 7, 128, 64), ErrCode::kBadRequant);
  EXPECT_EQ(tpu(0, 0, 128, 64), ErrCode::kMultWidth);
  // Per channel the registers are not checked; with OUT_RAW nothing of the form is.
  EXPECT_EQ(tpu(0, 0, 128, 64, arch::kModePerChannel), ErrCode::kNone);
  EXPECT_EQ(tpu(3, 7, 128, 64, arch::kModeOutRaw), ErrCode::kNone);
  // Zero points: 9-bit fields, legal -128..255.
  EXPECT_EQ(with([](arch::Command& c) { c.zp_ab = arch::PackZpAb(-129, 0); }), ErrCode::kBadZp);
  EXPECT_EQ(with([](arch::Command& c) { c.zp_ab = arch::PackZpAb(0, -256); }), ErrCode::kBadZp);
  EXPECT_EQ(with([](arch::Command& c) { c.zp_ab = arch::PackZpAb(255, -128); }), ErrCode::kNone);
  // ACT: LUT (1) is present; softmax (2) and the reserved values are not.
  EXPECT_EQ(with([](arch::Command& c) { c.mode = 2u << arch::kModeActLsb; }), ErrCode::kUnitAbsent);
  EXPECT_EQ(with([](arch::Command& c) { c.mode = 15u << arch::kModeActLsb; }),
            ErrCode::kUnitAbsent);
  // ACT = LUT with its fields at 0: slot 0 is legal, 0 input bits are not (lut.md 10.4).
  EXPECT_EQ(with([](arch::Command& c) { c.mode = 1u << arch::kModeActLsb; }), ErrCode::kLutInBits);
}

TEST(CommandValidation, FirstFailingCheckWins) {
  arch::Command cmd = Legal();
  cmd.mode = 2u << arch::kModeActLsb;   // 9
  cmd.zp_ab = arch::PackZpAb(-200, 0);  // 8
  EXPECT_EQ(Check(cmd), ErrCode::kBadZp);
  cmd.clamp_min = 200, cmd.clamp_max = 100;  // 7
  EXPECT_EQ(Check(cmd), ErrCode::kBadRequant);
  cmd.out_base = 8191;  // 6
  EXPECT_EQ(Check(cmd), ErrCode::kOutRange);
  cmd.mode |= arch::kModePerChannel, cmd.rq_base = 256;  // 5
  EXPECT_EQ(Check(cmd), ErrCode::kRqRange);
  cmd.mode |= arch::kModeBiasEn, cmd.bias_base = 256;  // 4
  EXPECT_EQ(Check(cmd), ErrCode::kBiasRange);
  cmd.b_base = 8190;  // 3
  EXPECT_EQ(Check(cmd), ErrCode::kBRange);
  cmd.a_base = 8190;  // 2
  EXPECT_EQ(Check(cmd), ErrCode::kARange);
  cmd.k = 0;  // 1
  EXPECT_EQ(Check(cmd), ErrCode::kBadShape);
  cmd.op = 1;  // 10: BAD_OPCODE is checked first
  EXPECT_EQ(Check(cmd), ErrCode::kBadOpcode);
  const LaunchDecision decision = DecodeCommand(testing::Config("default"), cmd);
  EXPECT_EQ(decision.cycles, 1);
}

TEST(CommandValidation, RectConfigRanges) {
  // rect_4x16: MB = ceil(20/4) = 5, NB = 1; A needs 25 words of 16384, B 5 of 4096, out 5*4/4 = 5
  // words.
  const arch::ArchConfig config = testing::Config("rect_4x16");
  arch::Command cmd = Legal();
  cmd.a_base = 16384 - 25;
  cmd.b_base = 4096 - 5;
  cmd.out_base = 8192 - 5;
  EXPECT_EQ(DecodeCommand(config, cmd).error, ErrCode::kNone);
  cmd.a_base += 1;
  EXPECT_EQ(DecodeCommand(config, cmd).error, ErrCode::kARange);
}

// SET (units.md 19.4) at fetch: a COUNT of 0 or above 14 is BAD_SHAPE; the one present unit with
// registers is the slope stage, and a SET is legal only of exactly its ten registers (REG 0x80,
// COUNT 10; their zero values are a legal slope), every other SET is BAD_SET. Exhaustive.
TEST(DescriptorValidation, SetOnlyOfTheSlopeRegisters) {
  const arch::ArchConfig config;  // the default configuration
  for (uint32_t reg = 0; reg < 1024; ++reg) {
    for (uint32_t count = 0; count < 16; ++count) {
      Descriptor d{};
      d[14] = reg << 2 | count << 16;
      d[15] = uint32_t(DescOp::kSet);
      const ErrCode expected = count == 0 || count > 14     ? ErrCode::kBadShape
                               : reg == 0x80 && count == 10 ? ErrCode::kNone
                                                            : ErrCode::kBadSet;
      ASSERT_EQ(ValidateDescriptor(config, d, true), expected) << reg << " " << count;
    }
  }
}

// A SET's values must be a legal slope (requant.md 6.2): each side's form rules and the clamp.
TEST(DescriptorValidation, SetOfAnIllegalSlopeIsBadSlope) {
  const arch::ArchConfig config;
  Descriptor base{};
  base[14] = 0x80u << 2 | 10u << 16;
  base[15] = uint32_t(DescOp::kSet);
  base[9] = 127;  // clamp [0, 127]
  ASSERT_EQ(ValidateDescriptor(config, base, true), ErrCode::kNone);
  const struct {
    int word;
    uint32_t value;
    ErrCode expected;
  } cases[] = {
      {0, 1u << 30, ErrCode::kNone},            // POS Q31 multiplier 2^30
      {0, (1u << 30) - 1, ErrCode::kBadSlope},  // below 2^30, not 0
      {1, 30, ErrCode::kNone},                  // POS shift 30
      {1, 31, ErrCode::kBadSlope},
      {1, 0xE1, ErrCode::kNone},              // -31
      {1, 0xE0, ErrCode::kBadSlope},          // -32
      {7, 1u | 3u << 8, ErrCode::kBadSlope},  // NEG TPU-MLIR, MULT_WIDTH 3
      {7, 1u | 7u << 4, ErrCode::kBadSlope},  // NEG TPU-MLIR, RSHIFT_ROUND 7
      {7, 1u | 6u << 4 | 2u << 8, ErrCode::kNone},
      {7, 0x1FFu << 16, ErrCode::kNone},  // K = -1
      {8, uint32_t(-128), ErrCode::kNone},
      {8, uint32_t(-129), ErrCode::kBadSlope},
      {8, 128, ErrCode::kBadSlope},  // min above max
      {9, 256, ErrCode::kBadSlope},
      {9, 255, ErrCode::kNone},
  };
  for (const auto& c : cases) {
    Descriptor d = base;
    d[size_t(c.word)] = c.value;
    EXPECT_EQ(ValidateDescriptor(config, d, true), c.expected) << c.word << " " << c.value;
  }
  // TPU-MLIR on the NEG side: an 8-bit multiplier of -128 fits, 128 does not; the rshift 63, 64.
  Descriptor tpu = base;
  tpu[7] = 1u;  // MULT_WIDTH 0: 8 bits
  for (const auto& [mult, shift, expected] :
       {std::tuple{uint32_t(-128), 63u, ErrCode::kNone}, std::tuple{128u, 0u, ErrCode::kBadSlope},
        std::tuple{0u, 64u, ErrCode::kBadSlope}}) {
    tpu[4] = mult;
    tpu[5] = shift;
    EXPECT_EQ(ValidateDescriptor(config, tpu, true), expected) << mult << " " << shift;
  }
}

}  // namespace
}  // namespace qacc::model
