// The standalone accelerator (model/accelerator.h): the bus through the facade (register map,
// pslverr as BusError or status, transfer cycles), memory load and dump with partial words, GEMMs
// run to completion against the golden result and the closed-form cycles and perf counters,
// BUSY refusals, a rejected command, and the one-per-process rule. A SystemC kernel elaborates once
// per process: CTest runs every case in its own process; run directly, only the first case runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

#include "golden/program.h"
#include "model/accelerator.h"
#include "model/ext_memory.h"
#include "model/gemm_job.h"
#include "model/program_engine.h"
#include "model/qacc_tlm.h"
#include "model/srams.h"
#include "sim/build_paths.h"
#include "tests/model/model_test_util.h"
#include "tests/model/program_test_util.h"
#include "tests/model/sc_test_util.h"

namespace qacc::model {
namespace {

using testing::Config;
namespace reg = arch::reg;

TEST(Accelerator, RegistersAndBusErrors) {
  REQUIRE_FRESH_KERNEL();
  Accelerator acc(Config("rect_4x16"));
  EXPECT_EQ(acc.cycle(), 0);
  EXPECT_EQ(acc.ReadRegister(reg::kId), arch::kId);
  EXPECT_EQ(acc.cycle(), 2) << "a register read: setup and access cycle";
  EXPECT_EQ(acc.ReadRegister(reg::kVersion), arch::kVersion);
  EXPECT_EQ(acc.ReadRegister(reg::kHwRows), 4u);
  EXPECT_EQ(acc.ReadRegister(reg::kHwCols), 16u);
  EXPECT_EQ(acc.config().cols, 16);

  try {
    acc.WriteRegister(reg::kPerfCycles, 1);
    ADD_FAILURE() << "a write to a read-only register";
  } catch (const BusError& e) {
    EXPECT_TRUE(e.is_write());
    EXPECT_EQ(e.addr(), reg::kPerfCycles);
    EXPECT_EQ(e.status(), BusStatus::kGenericError);
  }
  EXPECT_THROW(acc.ReadRegister(0x1000), BusError) << "region 0 above 0xFFF is unmapped";
  const BusResponse unmapped = acc.Read(arch::kSmxBase);
  EXPECT_EQ(unmapped.status, BusStatus::kAddressError);
  EXPECT_EQ(unmapped.data, 0u);

  acc.WriteRegister(0x0C0, 5);  // reserved: ignored without error
  EXPECT_EQ(acc.ReadRegister(0x0C0), 0u);
  acc.WriteRegister(reg::kCmdShift, 0x1FF);
  EXPECT_EQ(acc.ReadRegister(reg::kCmdShift), 0xFFFFFFFFu) << "read back sign-extended";
  acc.WriteRegister(reg::kCmdShift, 0x13F);
  EXPECT_EQ(acc.ReadRegister(reg::kCmdShift), 0x3Fu) << "bits [7:0] only";
  const int64_t before_idle = acc.cycle();
  acc.Idle(10);
  EXPECT_EQ(acc.cycle(), before_idle + 10);
}

TEST(Accelerator, MemoryLoadAndDump) {
  REQUIRE_FRESH_KERNEL();
  const arch::ArchConfig config = Config("default");
  Accelerator acc(config);
  EXPECT_EQ(acc.MemoryBytes(arch::Region::kA), config.a_depth * config.a_word_bytes());
  EXPECT_EQ(acc.MemoryBytes(arch::Region::kOut), config.out_depth * config.out_word_bytes());

  // Bytes 3..9: three host words, the first and last with partial strobes.
  acc.LoadMemory(arch::Region::kB, 3, {1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(acc.cycle(), 3 * 2);
  EXPECT_EQ(acc.DumpMemory(arch::Region::kB, 2, 10),
            (std::vector<uint8_t>{0, 1, 2, 3, 4, 5, 6, 7, 0, 0}));
  EXPECT_EQ(acc.cycle(), 3 * 2 + 3 * 3) << "an SRAM read: one wait state";
  EXPECT_EQ(acc.Read(arch::kBBase + 4).data, 0x05040302u);

  // The rq window keeps bits [7:0] of a shift word and reads them back sign-extended.
  acc.LoadMemory(arch::Region::kRq, 4, {0xFE, 0x12, 0x34, 0x56});
  EXPECT_EQ(acc.DumpMemory(arch::Region::kRq, 4, 4),
            (std::vector<uint8_t>{0xFE, 0xFF, 0xFF, 0xFF}));

  const uint32_t top = acc.MemoryBytes(arch::Region::kBias);
  const int64_t before = acc.cycle();
  EXPECT_THROW(acc.LoadMemory(arch::Region::kBias, top - 2, {1, 2, 3}), std::out_of_range);
  EXPECT_THROW(acc.DumpMemory(arch::Region::kRegs, 0, 4), std::invalid_argument);
  EXPECT_THROW(acc.MemoryBytes(arch::Region::kSmx), std::invalid_argument);
  EXPECT_EQ(acc.cycle(), before) << "refused before any transfer";
  EXPECT_EQ(acc.DumpMemory(arch::Region::kBias).size(), top);
}

// Random GEMMs loaded through the bus (the driver's packing, model/gemm_job.h), run to completion:
// the outputs equal the golden result, the cycles and perf counters the section 7 formulas.
TEST(Accelerator, GemmsMatchGoldenAndTheClosedFormTiming) {
  REQUIRE_FRESH_KERNEL();
  const arch::ArchConfig config = Config("tall_16x4");
  Accelerator acc(config);
  std::mt19937 rng(7);
  for (uint32_t run = 1; run <= 6; ++run) {
    const GemmJob job = testing::RandomJob(rng, 40);
    for (const BusWrite& write : PackOperands(config, job)) {
      ASSERT_EQ(acc.Write(write.addr, write.data, write.strobe), BusStatus::kOk);
    }
    for (const BusWrite& write : CommandWrites(job)) acc.WriteRegister(write.addr, write.data);
    const int64_t start_write = acc.cycle();
    const CommandResult result = acc.RunToCompletion();
    const arch::Timing timing(config.rows, config.cols, job.m, job.n, job.k);
    ASSERT_TRUE(result.ok()) << arch::ErrCodeName(result.error);
    EXPECT_EQ(result.launch_cycle, start_write + 2) << "cycle 0 follows the START write";
    EXPECT_EQ(result.done_cycle, result.launch_cycle + timing.E());
    EXPECT_EQ(result.status, arch::kStatusDone);
    EXPECT_EQ(result.perf.cycles, uint32_t(timing.E()));
    EXPECT_EQ(result.perf.Busy(arch::BeatUnit::kMac), uint32_t(timing.Busy(arch::BeatUnit::kMac)));
    EXPECT_EQ(result.perf.Busy(arch::BeatUnit::kRequant),
              uint32_t(timing.Busy(arch::BeatUnit::kRequant)));
    EXPECT_EQ(result.perf.out_writes, uint32_t(timing.OutWrites()));
    EXPECT_EQ(result.perf.feed_stall, uint32_t(timing.FeedStall()));
    EXPECT_EQ(result.command_count, run);
    EXPECT_GE(acc.cycle(), result.done_cycle);
    const golden::Matrix<int32_t> out =
        UnpackOutput(config, job, acc.DumpMemory(arch::Region::kOut));
    EXPECT_EQ(out.data, GoldenOutput(job).data) << "run " << run;
  }
}

TEST(Accelerator, BusyRefusalsAndARejectedCommand) {
  REQUIRE_FRESH_KERNEL();
  Accelerator acc(Config("default"));
  EXPECT_THROW(acc.WaitForCompletion(), std::logic_error) << "nothing started";
  acc.WriteRegister(reg::kCmdM, 64);
  acc.WriteRegister(reg::kCmdN, 64);
  acc.WriteRegister(reg::kCmdK, 64);
  acc.WriteRegister(reg::kCmdMode, arch::kModeOutRaw);
  acc.Start();
  EXPECT_EQ(acc.ReadRegister(reg::kStatus), arch::kStatusBusy);
  EXPECT_THROW(acc.LoadMemory(arch::Region::kA, 0, {1}), BusError) << "SRAM windows while BUSY";
  EXPECT_THROW(acc.DumpMemory(arch::Region::kOut, 0, 4), BusError);
  EXPECT_THROW(acc.WriteRegister(reg::kCmdM, 1), BusError) << "CMD_* locked while BUSY";
  EXPECT_THROW(acc.Start(), BusError) << "CTRL locked while BUSY";
  const CommandResult done = acc.WaitForCompletion();
  EXPECT_TRUE(done.ok());
  EXPECT_EQ(done.perf.cycles, uint32_t(arch::Timing(8, 8, 64, 64, 64).E()));
  EXPECT_EQ(acc.ReadRegister(reg::kCmdM), 64u);

  acc.WriteRegister(reg::kCmdM, 0);
  const CommandResult rejected = acc.RunToCompletion();
  EXPECT_EQ(rejected.error, arch::ErrCode::kBadShape);
  EXPECT_EQ(rejected.status, arch::kStatusDone | arch::kStatusError |
                                 uint32_t(arch::ErrCode::kBadShape) << arch::kStatusErrCodeLsb);
  EXPECT_EQ(rejected.perf.cycles, uint32_t(arch::kErrorCycles));
  EXPECT_EQ(rejected.done_cycle, rejected.launch_cycle + arch::kErrorCycles);
  EXPECT_EQ(rejected.command_count, 2u);
  EXPECT_TRUE(acc.tlm().irq.read()) << "START sets IRQ_EN: irq = DONE";
}

// A program through the facade (data_movement.md 14): LOAD A, LOAD B (SIGNAL), GEMM (WAIT, SIGNAL),
// STORE (WAIT) put into the external memory, launched with RUN, read mid-way while BUSY, and after
// its end compared with the golden executor (the external image whole, the out SRAM, the error and
// Q_RETIRED) and with the program engine run alone (the cycles and every counter).
TEST(Accelerator, ProgramMatchesGoldenAndTheProgramEngine) {
  REQUIRE_FRESH_KERNEL();
  const arch::ArchConfig config = Config("default");
  Accelerator acc(config);
  const uint64_t size = config.ext_mem_size_bytes;
  std::mt19937 rng(5);
  std::vector<uint8_t> data(8192);
  for (uint8_t& byte : data) byte = uint8_t(rng());
  golden::DmaFields load_a, load_b, store;
  load_a.sram = 1, load_a.count0 = 16, load_a.ext_addr = 0x10000;
  load_b.sram = 2, load_b.count0 = 16, load_b.ext_addr = 0x11000;
  store.sram = 5, store.count0 = 8, store.ext_addr = 0x20000, store.out_int32 = true;
  golden::GemmFields gemm;
  gemm.m = 8, gemm.n = 8, gemm.k = 16, gemm.mode = arch::kModeOutRaw;
  const std::vector<golden::Descriptor> program = {
      golden::EncodeDma(golden::Op::kLoad, load_a, {}),
      golden::EncodeDma(golden::Op::kLoad, load_b, {0, false, true}),
      golden::EncodeGemm(gemm, {0, true, true}),
      golden::EncodeDma(golden::Op::kStore, store, {0, true, false}),
  };
  constexpr uint32_t kQBase = 0x1000;
  golden::MachineState want(testing::GeometryOf(config), size);
  want.ext.Write(0x10000, data);
  golden::StoreProgram(program, kQBase, want);
  acc.WriteExternal(0, want.ext.Bytes(0, size));
  const golden::ProgramResult golden_result =
      golden::RunQueue(testing::GeometryOf(config), kQBase, uint32_t(program.size()), want);

  acc.StartProgram(kQBase, uint32_t(program.size()));
  acc.Idle(40);
  EXPECT_NE(acc.ReadRegister(reg::kStatus) & arch::kStatusBusy, 0u) << "BUSY while it runs";
  EXPECT_THROW(acc.WriteRegister(reg::kQBase, 0), BusError) << "Q_BASE is locked while BUSY";
  const ProgramResult result = acc.WaitForProgram();
  EXPECT_TRUE(result.ok());
  EXPECT_EQ(golden_result.error, golden::ProgramError::kNone);
  EXPECT_EQ(result.retired, 4u);
  EXPECT_EQ(result.done_cycle - result.launch_cycle, int64_t(result.cycles));
  EXPECT_EQ(acc.ReadExternal(0, uint32_t(size)), want.ext.Bytes(0, size));
  EXPECT_EQ(acc.DumpMemory(arch::Region::kOut), want.out);

  // The program engine alone on the same memories: the same cycles and counters.
  ExtMemory memory(size, {config.mem_data_bytes, config.ext_mem_latency, config.ext_mem_interval});
  memory.Write(0, want.ext.data(), 0x12000);  // descriptors and operands; the result is at 0x20000
  Srams srams(config);
  const ProgramRunResult alone = model::RunProgram(config, memory, srams, kQBase, 4);
  EXPECT_EQ(result.cycles, alone.perf.cycles);
  for (size_t u = 0; u < result.busy.size(); ++u) EXPECT_EQ(result.busy[u], alone.perf.busy[u]);
  EXPECT_EQ(result.dma_busy, alone.perf.dma_busy);
  EXPECT_EQ(result.compute_busy, alone.perf.compute_busy);
  EXPECT_EQ(result.dma_wait, alone.perf.dma_wait);
  EXPECT_EQ(result.compute_wait, alone.perf.compute_wait);
  EXPECT_EQ(result.rd_beats, alone.perf.rd_beats);
  EXPECT_EQ(result.wr_beats, alone.perf.wr_beats);
  EXPECT_GT(result.rd_beats, 0u);
  EXPECT_THROW(acc.ReadExternal(uint32_t(size - 4), 8), std::out_of_range);
}

TEST(Accelerator, OnePerProcess) {
  REQUIRE_FRESH_KERNEL();
  EXPECT_THROW(Accelerator("/nonexistent/config.json"), std::invalid_argument);
  arch::ArchConfig bad;
  bad.rows = 6;
  EXPECT_THROW(Accelerator{bad}, std::invalid_argument);
  Accelerator first(std::string(QACC_SOURCE_DIR) + "/configs/default.json");
  EXPECT_EQ(first.ReadRegister(reg::kId), arch::kId);
  EXPECT_THROW(Accelerator{arch::ArchConfig{}}, std::logic_error);
}

}  // namespace
}  // namespace qacc::model

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
