// The host bus of AccelState (docs/architecture.md 3): register map, SRAM windows, pslverr rules,
// BUSY/DONE/irq timeline and perf counters as the host reads them.
#include "model/accel_state.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "model/arch.h"
#include "tests/model/model_test_util.h"

namespace qacc::model {
namespace {

using testing::BusHost;
using testing::Config;
namespace reg = arch::reg;

class AccelStateTest : public ::testing::TestWithParam<std::string> {
 protected:
  AccelStateTest() : config_(Config(GetParam())), state_(config_), host_(state_) {}

  uint32_t ReadOk(uint32_t addr) {
    const BusResponse response = host_.Read(addr);
    EXPECT_EQ(response.status, BusStatus::kOk) << std::hex << addr;
    return response.data;
  }

  arch::ArchConfig config_;
  AccelState state_;
  BusHost host_;
};

TEST_P(AccelStateTest, IdentificationRegisters) {
  EXPECT_EQ(ReadOk(reg::kId), 0x51414343u);
  EXPECT_EQ(ReadOk(reg::kVersion), 0x00020001u);  // spec 2.1
  EXPECT_EQ(ReadOk(reg::kHwRows), uint32_t(config_.rows));
  EXPECT_EQ(ReadOk(reg::kHwCols), uint32_t(config_.cols));
  EXPECT_EQ(ReadOk(reg::kHwADepth), config_.a_depth);
  EXPECT_EQ(ReadOk(reg::kHwBDepth), config_.b_depth);
  EXPECT_EQ(ReadOk(reg::kHwBiasDepth), config_.bias_depth);
  EXPECT_EQ(ReadOk(reg::kHwRqDepth), config_.rq_depth);
  EXPECT_EQ(ReadOk(reg::kHwOutDepth), config_.out_depth);
  EXPECT_EQ(ReadOk(reg::kHwUnits), 0x37u);          // MAC, requant, LUT, ELTWISE, slope stage
  EXPECT_EQ(ReadOk(reg::kHwLatency), 0x01010104u);  // Lr=1, Ls=1, Lw=1, Lq=4
}

TEST_P(AccelStateTest, ReadOnlyRegistersRefuseWrites) {
  int read_only = 0;
  for (const arch::RegisterInfo& info : arch::kRegisters) {
    if (info.access != arch::Access::kRO) continue;
    ++read_only;
    const uint32_t before = ReadOk(info.offset);
    EXPECT_EQ(host_.Write(info.offset, 0xFFFFFFFF), BusStatus::kGenericError) << info.name;
    EXPECT_EQ(ReadOk(info.offset), before) << info.name;
  }
  EXPECT_EQ(read_only,
            31);  // ID .. HW_LUT_SLOTS, the 16 PERF_* registers, Q_RETIRED, Q_ERR_INDEX, Q_TOKENS
}

// Every register of the spec's table but CMD_*, read after reset: its reset value, or the
// configuration parameter it reports. CMD_* are left out: the model's register file starts from
// arch::Command's defaults (M = N = K = 1, a legal requant), not from the spec's 0.
TEST_P(AccelStateTest, EveryRegisterReadsItsResetValue) {
  for (const arch::RegisterInfo& info : arch::kRegisters) {
    if (info.reset_param != nullptr) continue;  // HW_* sizes: IdentificationRegisters
    if (std::string(info.name).rfind("CMD_", 0) == 0) continue;
    EXPECT_EQ(ReadOk(info.offset), info.reset) << info.name;
  }
}

// Writing all ones to each RW register stores exactly its RW fields (CMD_SHIFT reads back
// sign-extended; CTRL is left out: bit 0 would launch).
TEST_P(AccelStateTest, RwRegistersStoreTheirFields) {
  int rw = 0;
  for (const arch::RegisterInfo& info : arch::kRegisters) {
    if (info.access != arch::Access::kRW || info.offset == reg::kCtrl) continue;
    ++rw;
    EXPECT_EQ(host_.Write(info.offset, 0xFFFFFFFF), BusStatus::kOk) << info.name;
    const uint32_t expected = info.offset == reg::kCmdShift ? 0xFFFFFFFF : info.rw_mask;
    EXPECT_EQ(ReadOk(info.offset), expected) << info.name;
    EXPECT_EQ(host_.Write(info.offset, 0), BusStatus::kOk) << info.name;
    EXPECT_EQ(ReadOk(info.offset), 0u) << info.name;
  }
  EXPECT_EQ(rw, 28);  // CMD_M .. CMD_OP, Q_BASE, Q_COUNT, the slope stage's ten (requant.md 6.2)
}

TEST_P(AccelStateTest, CommandRegistersKeepTheirFieldBits) {
  struct Case {
    uint32_t offset, written, read;
  };
  const Case cases[] = {
      {reg::kCmdM, 0xFFFF1234, 0x1234},
      {reg::kCmdN, 0x0001FFFF, 0xFFFF},
      {reg::kCmdK, 0x00000007, 0x7},
      {reg::kCmdABase, 0xFFFFFFFF, 0xFFFFF},
      {reg::kCmdBBase, 0x00012345, 0x12345},
      {reg::kCmdBiasBase, 0x00100001, 0x00001},
      {reg::kCmdRqBase, 0x3, 0x3},
      {reg::kCmdOutBase, 0xABCDE, 0xABCDE},
      {reg::kCmdMode, 0xFFFFFFFF, 0x3FFFFFFF},
      {reg::kCmdZpAb, 0xFFFFFFFF, 0x01FF01FF},
      {reg::kCmdZpOut, 0x80000001, 0x80000001},
      {reg::kCmdClampMin, 0xFFFFFF80, 0xFFFFFF80},
      {reg::kCmdClampMax, 0x7F, 0x7F},
      {reg::kCmdMult, 0x7FFFFFFF, 0x7FFFFFFF},
      {reg::kCmdShift, 0xE1, 0xFFFFFFE1},  // 8-bit two's complement, read sign-extended: -31
      {reg::kCmdShift, 0x121, 0x21},       // 33 (bits [7:0])
      {reg::kCmdShift, 0xFFFFFF1E, 0x1E},  // +30
      {reg::kCmdOp, 0xFFFFFFF1, 0x1},      // [3:0]
      {reg::kCmdOp, 0x10, 0x0},
      {reg::kCtrl, 0xFFFFFFFA,
       arch::kCtrlIrqEn},  // START, RUN not set (no launch); IRQ_EN reads back
  };
  for (const Case& c : cases) {
    EXPECT_EQ(host_.Write(c.offset, c.written), BusStatus::kOk);
    EXPECT_EQ(ReadOk(c.offset), c.read) << std::hex << c.offset;
  }
}

TEST_P(AccelStateTest, ReservedOffsetsReadZeroAndIgnoreWrites) {
  for (uint32_t offset : {0x030u, 0x03Cu, 0x048u, 0x07Cu, 0x0C0u, 0x0FCu, 0x140u, 0x1FCu, 0x228u,
                          0x2FCu, 0x300u, 0x3FCu, 0x400u, 0xA00u, 0xFFCu}) {
    EXPECT_EQ(host_.Write(offset, 0xFFFFFFFF), BusStatus::kOk) << std::hex << offset;
    EXPECT_EQ(ReadOk(offset), 0u) << std::hex << offset;
  }
}

TEST_P(AccelStateTest, UnmappedAddressesAreAddressErrors) {
  for (uint64_t addr : {0x1000ull, 0x0FFFFCull, 0x700000ull, 0x7FFFFCull, 0x800000ull, 0xFFFFFCull,
                        0x1000000ull, 0x100000000ull}) {
    EXPECT_EQ(state_.Write(addr, 1, 0xF, host_.cycle()), BusStatus::kAddressError)
        << std::hex << addr;
    const BusResponse response = state_.Read(addr, host_.cycle());
    EXPECT_EQ(response.status, BusStatus::kAddressError) << std::hex << addr;
    EXPECT_EQ(response.data, 0u);
  }
}

TEST_P(AccelStateTest, SramWindowsRoundTripWithStrobes) {
  const arch::Region regions[] = {arch::Region::kA, arch::Region::kB, arch::Region::kBias,
                                  arch::Region::kRq, arch::Region::kOut};
  for (arch::Region region : regions) {
    const uint32_t base = arch::WindowBase(region);
    const uint32_t size = state_.srams().WindowBytes(region);
    const uint32_t last = size - 4;
    const uint32_t offset = region == arch::Region::kRq ? 8 : 4;  // an rq multiplier word
    for (uint32_t off : {0u, offset, last - (region == arch::Region::kRq ? 4 : 0)}) {
      EXPECT_EQ(host_.Write(base + off, 0x11223344), BusStatus::kOk);
      EXPECT_EQ(ReadOk(base + off), 0x11223344u);
      EXPECT_EQ(host_.Write(base + off + 2, 0xAABBCCDD, 0b0101),
                BusStatus::kOk);  // bits [1:0] ignored
      EXPECT_EQ(ReadOk(base + off), 0x11BB33DDu) << std::hex << base + off;
    }
    EXPECT_EQ(host_.Write(base + size, 1), BusStatus::kGenericError) << "beyond depth";
    EXPECT_EQ(host_.Read(base + size).status, BusStatus::kGenericError);
    EXPECT_EQ(host_.Read(base + arch::kWindowSize - 4).status, BusStatus::kGenericError);
  }
}

TEST_P(AccelStateTest, RqShiftIsEightBitsSignExtended) {
  const uint32_t shift_addr = arch::kRqBase + 8 * uint32_t(config_.cols) + 4;  // word 1, lane 0
  EXPECT_EQ(host_.Write(shift_addr, 0xFFFFFFE1), BusStatus::kOk);
  EXPECT_EQ(ReadOk(shift_addr), 0xFFFFFFE1u);  // -31
  EXPECT_EQ(state_.srams().rq_shift(1, 0), -31);
  EXPECT_EQ(host_.Write(shift_addr, 0xFFFFFF3F), BusStatus::kOk);
  EXPECT_EQ(ReadOk(shift_addr), 0x3Fu);  // 63 (a TPU-MLIR rshift): bit 7 clear
  EXPECT_EQ(host_.Write(shift_addr, 0xFF, 0b1110),
            BusStatus::kOk);  // byte 0 not enabled: unchanged
  EXPECT_EQ(ReadOk(shift_addr), 0x3Fu);
  EXPECT_EQ(host_.Write(shift_addr, 0xFF, 0b0001), BusStatus::kOk);
  EXPECT_EQ(ReadOk(shift_addr), 0xFFFFFFFFu);  // -1
  EXPECT_EQ(host_.Write(shift_addr, 0x80), BusStatus::kOk);
  EXPECT_EQ(ReadOk(shift_addr), 0xFFFFFF80u);  // -128: bit 7 is the sign
}

// An M = N = K = 8 command (E = 32 on 8x8) launched through the bus: BUSY exactly in command cycles
// 0..E-1, refusals while BUSY, DONE/irq from cycle E, W1C, perf counters and PERF_CMD_COUNT.
TEST_P(AccelStateTest, CommandTimelineAndBusyRules) {
  GemmJob job;
  job.m = job.n = job.k = 8;
  job.a.assign(64, 3);
  job.b.assign(64, 0xFB);  // -5
  job.a_zp = 1;
  job.requant.shift = -2;
  const int64_t launch = host_.Launch(config_, job, /*irq_en=*/true);
  const arch::Timing timing(config_.rows, config_.cols, 8, 8, 8);
  const int64_t done = launch + timing.E();
  ASSERT_EQ(state_.last_launch()->launch_cycle, launch);
  ASSERT_EQ(state_.last_launch()->done_cycle, done);
  // The next transfer's setup phase is command cycle 0: its access completes in cycle 1.
  EXPECT_EQ(host_.cycle(), launch);
  EXPECT_EQ(state_.Read(reg::kStatus, launch - 1).data, 0u)
      << "not yet BUSY in the START write's cycle";
  EXPECT_EQ(state_.Read(reg::kStatus, launch).data, arch::kStatusBusy)
      << "BUSY from command cycle 0";
  EXPECT_EQ(ReadOk(reg::kStatus), arch::kStatusBusy);
  EXPECT_EQ(host_.last_complete(), launch + 1);
  EXPECT_EQ(ReadOk(reg::kPerfCycles),
            3u);  // read completes in command cycle 3: cycles 0..2 counted
  EXPECT_EQ(host_.Read(arch::kABase).status, BusStatus::kGenericError);
  EXPECT_EQ(host_.Write(arch::kOutBase, 1), BusStatus::kGenericError);
  EXPECT_EQ(host_.Write(reg::kCmdM, 3), BusStatus::kGenericError);
  EXPECT_EQ(host_.Write(reg::kCmdOp, 1), BusStatus::kGenericError);
  EXPECT_EQ(host_.Write(reg::kCtrl, arch::kCtrlStart), BusStatus::kGenericError);
  EXPECT_EQ(host_.Write(0x0C0, 1), BusStatus::kOk);           // reserved: ignored, no error
  EXPECT_EQ(host_.Write(reg::kStatus, 0x6), BusStatus::kOk);  // W1C while BUSY: nothing to clear
  EXPECT_EQ(ReadOk(reg::kCmdM), 8u);
  EXPECT_FALSE(state_.Irq(done - 1));
  // Last BUSY cycle, then DONE.
  host_.IdleUntil(done - 2);
  EXPECT_EQ(ReadOk(reg::kStatus), arch::kStatusBusy);
  EXPECT_EQ(host_.last_complete(), done - 1);
  EXPECT_EQ(ReadOk(reg::kStatus), arch::kStatusDone);
  EXPECT_TRUE(state_.Irq(done));
  EXPECT_EQ(ReadOk(reg::kPerfCycles), uint32_t(timing.E()));
  EXPECT_EQ(ReadOk(reg::kPerfMacBusy), uint32_t(timing.Busy(arch::BeatUnit::kMac)));
  EXPECT_EQ(ReadOk(reg::kPerfRqBusy), uint32_t(timing.Busy(arch::BeatUnit::kRequant)));
  EXPECT_EQ(ReadOk(reg::kPerfOutWrites), uint32_t(timing.OutWrites()));
  EXPECT_EQ(ReadOk(reg::kPerfFeedStall), uint32_t(timing.FeedStall()));
  EXPECT_EQ(ReadOk(reg::kPerfCmdCount), 1u);
  EXPECT_EQ(host_.Write(reg::kStatus, arch::kStatusDone), BusStatus::kOk);
  EXPECT_EQ(ReadOk(reg::kStatus), 0u);
  EXPECT_FALSE(state_.Irq(host_.cycle()));
  // The output is readable again and equals the golden result.
  EXPECT_EQ(host_.Read(arch::kOutBase).status, BusStatus::kOk);
  EXPECT_EQ(UnpackOutput(config_, job, state_.srams().image(arch::Region::kOut)).data,
            GoldenOutput(job).data);
}

TEST_P(AccelStateTest, RejectedCommandReportsItsCodeAtCycleOne) {
  EXPECT_EQ(host_.Write(reg::kCmdM, 0), BusStatus::kOk);  // BAD_SHAPE
  EXPECT_EQ(host_.Write(arch::kOutBase, 0xDEADBEEF), BusStatus::kOk);
  EXPECT_EQ(host_.Write(reg::kCtrl, arch::kCtrlStart), BusStatus::kOk);
  const int64_t launch = host_.last_complete() + 1;
  EXPECT_TRUE(state_.Busy(launch));
  EXPECT_FALSE(state_.Busy(launch + 1));
  EXPECT_EQ(state_.last_launch()->done_cycle, launch + 1);
  EXPECT_EQ(ReadOk(reg::kStatus), arch::kStatusDone | arch::kStatusError | 1u << 8);
  EXPECT_EQ(ReadOk(reg::kPerfCycles), 1u);
  EXPECT_EQ(ReadOk(reg::kPerfMacBusy), 0u);
  EXPECT_EQ(ReadOk(reg::kPerfCmdCount), 1u);
  EXPECT_EQ(ReadOk(arch::kOutBase), 0xDEADBEEFu) << "no SRAM touched";
  EXPECT_EQ(host_.Write(reg::kStatus, arch::kStatusError), BusStatus::kOk);
  EXPECT_EQ(ReadOk(reg::kStatus), arch::kStatusDone) << "ERROR W1C also clears ERR_CODE";
  // A second command counts too.
  EXPECT_EQ(host_.Write(reg::kCtrl, arch::kCtrlStart), BusStatus::kOk);
  EXPECT_EQ(ReadOk(reg::kStatus), arch::kStatusDone | arch::kStatusError | 1u << 8);
  EXPECT_EQ(ReadOk(reg::kPerfCmdCount), 2u);
}

// CMD_OP (spec 1.1): anything but GEMM is BAD_OPCODE (10), checked before the shape (here M = 0
// as well); the register keeps [3:0], so 0x10 is GEMM again.
TEST_P(AccelStateTest, BadOpcodeIsCheckedFirst) {
  EXPECT_EQ(host_.Write(reg::kCmdM, 0), BusStatus::kOk);
  for (uint32_t op : {1u, 15u}) {
    EXPECT_EQ(host_.Write(reg::kCmdOp, op), BusStatus::kOk);
    EXPECT_EQ(host_.Write(reg::kCtrl, arch::kCtrlStart), BusStatus::kOk);
    EXPECT_EQ(ReadOk(reg::kStatus), arch::kStatusDone | arch::kStatusError | 10u << 8) << op;
    EXPECT_EQ(ReadOk(reg::kPerfCycles), 1u);
  }
  EXPECT_EQ(host_.Write(reg::kCmdOp, 0x10), BusStatus::kOk);
  EXPECT_EQ(host_.Write(reg::kCtrl, arch::kCtrlStart), BusStatus::kOk);
  EXPECT_EQ(ReadOk(reg::kStatus), arch::kStatusDone | arch::kStatusError | 1u << 8)
      << "GEMM with M = 0: BAD_SHAPE";
}

TEST(AccelStateTiming, TransferCycles) {
  EXPECT_EQ(AccelState::TransferCycles(arch::reg::kStatus, true), 2);
  EXPECT_EQ(AccelState::TransferCycles(arch::reg::kStatus, false), 2);
  EXPECT_EQ(AccelState::TransferCycles(arch::kABase, true), 3);  // one wait state
  EXPECT_EQ(AccelState::TransferCycles(arch::kOutBase + 4, true), 3);
  EXPECT_EQ(AccelState::TransferCycles(arch::kOutBase, false), 2);
  EXPECT_EQ(AccelState::TransferCycles(arch::kLutBase, true), 3);  // the LUT table window
  EXPECT_EQ(AccelState::TransferCycles(arch::kSmxBase, true), 2);  // reserved: unmapped
}

INSTANTIATE_TEST_SUITE_P(Configs, AccelStateTest, ::testing::Values("default", "rect_4x16"));

}  // namespace
}  // namespace qacc::model
