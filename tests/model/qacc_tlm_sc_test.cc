// The SystemC TLM-2.0 shell (model/qacc_tlm.h) driven through its target socket: register map and
// error responses, APB timing annotation, a command's BUSY/DONE/irq timeline and outputs, and the
// unit modules' beats of the spec's example. A SystemC kernel elaborates once per
// process: CTest runs every case in its own process; run directly, only the first case of the
// process runs and the others skip.
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "model/model_only.h"
#include "model/qacc_tlm.h"
#include "tests/model/model_test_util.h"
#include "tests/model/sc_test_util.h"

namespace qacc::model {
namespace {

using testing::Config;
using testing::Host;
namespace reg = arch::reg;

// Records the times irq changes.
class IrqProbe : public sc_core::sc_module {
 public:
  sc_core::sc_in<bool> irq;
  std::vector<std::pair<sc_core::sc_time, bool>> changes;

  explicit IrqProbe(sc_core::sc_module_name name) : sc_core::sc_module(name), irq("irq") {
    SC_HAS_PROCESS(IrqProbe);
    SC_METHOD(Sample);
    sensitive << irq;
    dont_initialize();
  }

 private:
  void Sample() { changes.emplace_back(sc_core::sc_time_stamp(), irq.read()); }
};

// The device, a host running `body`, and irq wired to a probe.
struct Bench {
  Bench(const arch::ArchConfig& config, sc_core::sc_time period, std::function<void(Host&)> body)
      : dut("dut", config, period), host("host", std::move(body)), probe("probe"), irq("irq") {
    host.initiator_socket.bind(dut.target_socket);
    dut.irq(irq);
    probe.irq(irq);
  }
  QaccTlm dut;
  Host host;
  IrqProbe probe;
  sc_core::sc_signal<bool> irq;
};

TEST(QaccTlm, RegisterMapAndErrorResponses) {
  REQUIRE_FRESH_KERNEL();
  const arch::ArchConfig config = Config("default");
  const sc_core::sc_time period(10, sc_core::SC_NS);
  std::vector<std::string> failures;
  Bench bench(config, period, [&](Host& host) {
    tlm::tlm_response_status status;
    EXPECT_EQ(host.Read(reg::kId, &status), arch::kId);
    EXPECT_EQ(status, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(host.last_delay, 2 * period) << "register access: setup + access cycle";
    EXPECT_EQ(host.Read(reg::kHwCols), uint32_t(config.cols));
    EXPECT_EQ(host.Write(reg::kId, 0), tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_EQ(host.Write(reg::kPerfCycles, 0), tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_EQ(host.Write(0x1000, 0), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(host.Read(0x700000, &status), 0u);  // region 7: reserved
    EXPECT_EQ(status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(host.Write(0x2000000, 0), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(host.Write(0x0C0, 5), tlm::TLM_OK_RESPONSE);  // reserved
    EXPECT_EQ(host.Write(arch::kBBase + 8, 0x01020304), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(host.last_delay, 2 * period);
    EXPECT_EQ(host.Write(arch::kBBase + 8, 0xA0B0C0D0, 0b1001), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(host.Read(arch::kBBase + 8, &status), 0xA00203D0u);
    EXPECT_EQ(host.last_delay, 3 * period) << "SRAM read: one wait state";
    EXPECT_EQ(host.Read(arch::kBBase + config.b_depth * config.cols, &status), 0u);
    EXPECT_EQ(status, tlm::TLM_GENERIC_ERROR_RESPONSE) << "beyond the SRAM depth";
    EXPECT_EQ(host.Write(reg::kCmdShift, 0x1FF), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(host.Read(reg::kCmdShift), 0xFFFFFFFFu);
    uint32_t data = 0;
    EXPECT_EQ(host.Transfer(tlm::TLM_READ_COMMAND, reg::kId, data, 0xF, 8),
              tlm::TLM_BURST_ERROR_RESPONSE);
    // A transaction annotated half a cycle late starts at the next clock edge.
    tlm::tlm_generic_payload payload;
    unsigned char bytes[4] = {};
    payload.set_command(tlm::TLM_READ_COMMAND);
    payload.set_address(reg::kVersion);
    payload.set_data_ptr(bytes);
    payload.set_data_length(4);
    payload.set_streaming_width(4);
    sc_core::sc_time delay = period / 2;
    host.initiator_socket->b_transport(payload, delay);
    EXPECT_EQ(delay, 3 * period);
    EXPECT_EQ(bytes[2], arch::kVersionMajor);  // VERSION[23:16], little endian
  });
  sc_core::sc_start();
}

// Loads a random job through the socket, launches it with IRQ_EN and checks: BUSY up to the last
// cycle before launch + E, irq rising exactly at the start of that cycle, perf counters, and
// outputs equal to the golden result and to the model-only mode.
void RunCommandOverSocket(const std::string& config_name, uint32_t seed) {
  const arch::ArchConfig config = Config(config_name);
  const sc_core::sc_time period(2, sc_core::SC_NS);
  std::mt19937 rng(seed);
  GemmJob job = testing::RandomJob(rng, 45);
  job.per_channel = false;
  job.channel_mult.clear();
  job.channel_shift.clear();
  const arch::Timing timing(config.rows, config.cols, job.m, job.n, job.k);
  int64_t done_cycle = -1;
  std::vector<uint8_t> out_image(size_t(config.out_depth) * config.out_word_bytes());
  std::unique_ptr<Bench> bench;
  bench = std::make_unique<Bench>(config, period, [&](Host& host) {
    for (const BusWrite& write : PackOperands(config, job)) {
      ASSERT_EQ(host.Write(write.addr, write.data, write.strobe), tlm::TLM_OK_RESPONSE);
    }
    for (const BusWrite& write : CommandWrites(job))
      ASSERT_EQ(host.Write(write.addr, write.data), tlm::TLM_OK_RESPONSE);
    ASSERT_EQ(host.Write(reg::kCtrl, arch::kCtrlStart | arch::kCtrlIrqEn), tlm::TLM_OK_RESPONSE);
    const int64_t launch = bench->dut.CycleAt(sc_core::sc_time_stamp());
    done_cycle = launch + timing.E();
    EXPECT_EQ(bench->dut.state().last_launch()->launch_cycle, launch);
    EXPECT_EQ(host.Read(reg::kStatus), arch::kStatusBusy);
    tlm::tlm_response_status status;
    host.Read(arch::kOutBase, &status);
    EXPECT_EQ(status, tlm::TLM_GENERIC_ERROR_RESPONSE) << "SRAM window while BUSY";
    EXPECT_EQ(host.Write(reg::kCmdK, 1), tlm::TLM_GENERIC_ERROR_RESPONSE) << "CMD_* while BUSY";
    // A read whose access phase is the last BUSY cycle, then one in the done cycle.
    sc_core::wait(bench->dut.TimeOfCycle(done_cycle - 2) - sc_core::sc_time_stamp());
    EXPECT_EQ(host.Read(reg::kStatus), arch::kStatusBusy);
    EXPECT_EQ(host.Read(reg::kStatus), arch::kStatusDone);
    EXPECT_EQ(host.Read(reg::kPerfCycles), uint32_t(timing.E()));
    EXPECT_EQ(host.Read(reg::kPerfMacBusy), uint32_t(timing.Busy(arch::BeatUnit::kMac)));
    EXPECT_EQ(host.Read(reg::kPerfRqBusy), uint32_t(timing.Busy(arch::BeatUnit::kRequant)));
    EXPECT_EQ(host.Read(reg::kPerfOutWrites), uint32_t(timing.OutWrites()));
    EXPECT_EQ(host.Read(reg::kPerfFeedStall), uint32_t(timing.FeedStall()));
    EXPECT_EQ(host.Read(reg::kPerfCmdCount), 1u);
    const uint32_t used =
        static_cast<uint32_t>(arch::OutWords(timing.T(), config.rows, job.out_raw)) *
        config.out_word_bytes();
    for (uint32_t offset = 0; offset < used; offset += 4) {
      const uint32_t word = host.Read(arch::kOutBase + offset);
      for (int b = 0; b < 4; ++b) out_image[offset + b] = static_cast<uint8_t>(word >> (8 * b));
    }
    EXPECT_EQ(host.Write(reg::kStatus, arch::kStatusDone), tlm::TLM_OK_RESPONSE);
    sc_core::wait(2 * period);
  });
  sc_core::sc_start();
  EXPECT_EQ(UnpackOutput(config, job, out_image).data, GoldenOutput(job).data);
  // Model-only mode on the same operands gives the same output SRAM.
  Srams srams(config);
  for (const BusWrite& write : PackOperands(config, job)) {
    srams.HostWrite(static_cast<arch::Region>(arch::RegionBits(write.addr)),
                    arch::WindowOffset(write.addr), write.data, write.strobe);
  }
  const RunResult result = RunCommand(config, ToCommand(job), srams);
  EXPECT_EQ(result.cycles, timing.E());
  EXPECT_EQ(srams.image(arch::Region::kOut), bench->dut.state().srams().image(arch::Region::kOut));
  // irq: rises at the start of the done cycle, falls in the cycle after the W1C write.
  ASSERT_GE(bench->probe.changes.size(), 2u);
  EXPECT_EQ(bench->probe.changes[0].first, bench->dut.TimeOfCycle(done_cycle));
  EXPECT_TRUE(bench->probe.changes[0].second);
  EXPECT_FALSE(bench->probe.changes[1].second);
}

TEST(QaccTlm, CommandTimingAndOutputsDefault) {
  REQUIRE_FRESH_KERNEL();
  RunCommandOverSocket("default", 1);
}

TEST(QaccTlm, CommandTimingAndOutputsRect4x16) {
  REQUIRE_FRESH_KERNEL();
  RunCommandOverSocket("rect_4x16", 2);
}

// Two commands (8x8 M = N = K = 8, then a rejected one) through the socket: the unit modules
// simulate the spec's example (section 7): array inputs at 2..9, MAC beats at 19..26, requant beats
// at 23..30, writes at 24..31, done at 32 relative to launch; the rejected command has no beat and
// is done one cycle after its launch.
TEST(QaccTlm, UnitsSimulateTheSpecExample) {
  REQUIRE_FRESH_KERNEL();
  const arch::ArchConfig config = Config("default");
  const sc_core::sc_time period(1, sc_core::SC_NS);
  GemmJob job;
  job.m = job.n = job.k = 8;
  job.a.assign(64, 1);
  job.b.assign(64, 2);
  std::vector<int64_t> mac_in, mac, requant, out, launches, dones;
  std::unique_ptr<Bench> bench;
  bench = std::make_unique<Bench>(config, period, [&](Host& host) {
    UnitPipeline& units = bench->dut.units();
    for (const BusWrite& write : PackOperands(config, job))
      host.Write(write.addr, write.data, write.strobe);
    for (const BusWrite& write : CommandWrites(job)) host.Write(write.addr, write.data);
    for (int command = 0; command < 2; ++command) {
      if (command == 1) host.Write(reg::kCmdN, 0);  // BAD_SHAPE
      host.Write(reg::kCtrl, arch::kCtrlStart);
      const int64_t launch = units.launch_cycle();
      launches.push_back(launch);
      for (int64_t c = launch; c < launch + 100; ++c) {
        units.Advance(c);
        for (; units.PeekMacIn(); units.PopMacIn()) {
          for (int64_t k = 0; k < units.PeekMacIn()->beats; ++k)
            mac_in.push_back(units.PeekMacIn()->first_cycle + k - launch);
        }
        for (; units.PeekBeat(arch::BeatUnit::kMac); units.PopBeat(arch::BeatUnit::kMac))
          mac.push_back(units.PeekBeat(arch::BeatUnit::kMac)->cycle - launch);
        for (; units.PeekBeat(arch::BeatUnit::kRequant); units.PopBeat(arch::BeatUnit::kRequant))
          requant.push_back(units.PeekBeat(arch::BeatUnit::kRequant)->cycle - launch);
        for (; units.PeekOutWrite(); units.PopOutWrite())
          out.push_back(units.PeekOutWrite()->cycle - launch);
        if (units.done_cycle() == c) break;
      }
      dones.push_back(units.done_cycle() - launch);
      while (host.Read(reg::kStatus) & arch::kStatusBusy) {
      }
    }
  });
  sc_core::sc_start();
  auto range = [](int64_t first, int64_t last) {
    std::vector<int64_t> cycles;
    for (int64_t c = first; c <= last; ++c) cycles.push_back(c);
    return cycles;
  };
  EXPECT_EQ(mac_in, range(2, 9));
  EXPECT_EQ(mac, range(19, 26));
  EXPECT_EQ(requant, range(23, 30));
  EXPECT_EQ(out, range(24, 31));
  EXPECT_EQ(dones, (std::vector<int64_t>{32, 1}));
  EXPECT_LT(launches[0], launches[1]);
}

}  // namespace
}  // namespace qacc::model

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
