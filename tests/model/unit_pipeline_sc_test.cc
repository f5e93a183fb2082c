// The two timing paths of the model agree (docs/model.md "Two timing paths"): the SystemC unit
// modules simulating each command (UnitPipeline, inside QaccTlm) produce exactly the closed-form
// beats (BeatPredictor) of random commands on every configuration, taken cycle by cycle as the
// lockstep scoreboard takes them, with the same done cycle and perf counts; a unit built with a
// wrong latency makes them differ. The MAC array module alone shows the structural hazards the spec
// states (section 7, tile period). A SystemC kernel elaborates once per process: CTest runs every
// case in its own process (tests/model/sc_test_util.h).
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "model/beat_predictor.h"
#include "model/command.h"
#include "model/mac_array_tlm.h"
#include "model/qacc_tlm.h"
#include "tests/model/model_test_util.h"
#include "tests/model/sc_test_util.h"

namespace qacc::model {
namespace {

using testing::Config;
using testing::Host;

// A command's beats, every stream in order, and its done cycle.
struct Streams {
  std::vector<MacInRun> mac_in;
  std::vector<RowBeat> mac;
  std::vector<RowBeat> requant;
  std::vector<RowBeat> lut;
  std::vector<OutWriteBeat> out;
  int64_t done_cycle = -1;
  int64_t late = 0;  // beats found only after their cycle (a broken Advance contract)
};

// Takes the beats of `source` as the lockstep scoreboard does: Advance(c), then the beats due in c.
Streams Collect(BeatSource& source) {
  Streams got;
  const int64_t limit = source.launch_cycle() + (int64_t{1} << 24);
  for (int64_t c = source.launch_cycle();; ++c) {
    source.Advance(c);
    for (const MacInRun* run; (run = source.PeekMacIn()) && run->first_cycle <= c;) {
      got.late += run->first_cycle < c;
      got.mac_in.push_back(*run);
      source.PopMacIn();
    }
    for (const RowBeat* beat; (beat = source.PeekBeat(arch::BeatUnit::kMac)) && beat->cycle <= c;) {
      got.late += beat->cycle < c;
      got.mac.push_back(*beat);
      source.PopBeat(arch::BeatUnit::kMac);
    }
    for (const RowBeat* beat;
         (beat = source.PeekBeat(arch::BeatUnit::kRequant)) && beat->cycle <= c;) {
      got.late += beat->cycle < c;
      got.requant.push_back(*beat);
      source.PopBeat(arch::BeatUnit::kRequant);
    }
    for (const RowBeat* beat; (beat = source.PeekBeat(arch::BeatUnit::kLut)) && beat->cycle <= c;) {
      got.late += beat->cycle < c;
      got.lut.push_back(*beat);
      source.PopBeat(arch::BeatUnit::kLut);
    }
    for (const OutWriteBeat* beat; (beat = source.PeekOutWrite()) && beat->cycle <= c;) {
      got.late += beat->cycle < c;
      got.out.push_back(*beat);
      source.PopOutWrite();
    }
    if (c == source.done_cycle() || c == limit) {
      got.done_cycle = c;
      return got;
    }
  }
}

// The streams where `got` differs from `want` (field by field), by name.
std::vector<std::string> Differences(const Streams& got, const Streams& want) {
  std::vector<std::string> diff;
  auto same = [](const auto& a, const auto& b, auto key) {
    if (a.size() != b.size()) return false;
    for (size_t j = 0; j < a.size(); ++j) {
      if (key(a[j]) != key(b[j])) return false;
    }
    return true;
  };
  if (!same(got.mac_in, want.mac_in,
            [](const MacInRun& r) { return std::tie(r.tile, r.first_cycle, r.beats); })) {
    diff.push_back("mac_in");
  }
  if (!same(got.mac, want.mac,
            [](const RowBeat& b) { return std::tie(b.cycle, b.tile, b.row, b.last, b.lanes); })) {
    diff.push_back("mac");
  }
  if (!same(got.requant, want.requant, [](const RowBeat& b) {
        return std::tie(b.cycle, b.tile, b.row, b.last, b.lanes, b.known_lanes);
      })) {
    diff.push_back("requant");
  }
  if (!same(got.lut, want.lut, [](const RowBeat& b) {
        return std::tie(b.cycle, b.tile, b.row, b.last, b.lanes, b.known_lanes);
      })) {
    diff.push_back("lut");
  }
  if (!same(got.out, want.out, [](const OutWriteBeat& b) {
        return std::tie(b.cycle, b.tile, b.row, b.addr, b.be, b.data, b.known);
      })) {
    diff.push_back("out_write");
  }
  if (got.done_cycle != want.done_cycle) diff.push_back("done");
  if (got.late != 0) diff.push_back("late beats");
  return diff;
}

// A table of `function` over int8 codes with 8- or 16-bit entries, for a fused LUT stage.
golden::Lut Table(const std::string& function, int entry_bits) {
  golden::LutSpec spec;
  spec.in.scale = 0.05;
  spec.out.bits = entry_bits;
  spec.derive_out = true;
  return golden::BuildLut(golden::GetElementwise(function), spec);
}

// Random legal jobs: small shapes (partial tiles, K below and above the array's size) and a few
// with a long K (P = K, more than the units' lookahead); a few per-channel ones with an undefined
// shift (31) in lane 0; every fourth (job 0 among them) with the LUT stage fused, in slot j mod 4.
std::vector<GemmJob> RandomJobs(uint32_t seed, int count) {
  std::mt19937 rng(seed);
  std::vector<GemmJob> jobs;
  for (int j = 0; j < count; ++j) {
    GemmJob job = testing::RandomJob(rng, 40);
    if (j % 4 == 0) {
      job.out_raw = false;
      job.requant.clamp_min = -128;
      job.requant.clamp_max = 127;
      job.lut = Table(j % 8 == 0 ? "gelu" : "sigmoid", j % 8 == 0 ? 8 : 16);
      job.lut_slot = uint32_t(j / 4 % 4);
    }
    if (j % 7 == 3) {
      job = testing::RandomJob(rng, 12);
      job.k = 300 + j;
      job.a.assign(size_t(job.m) * job.k, uint8_t(j));
      job.b.assign(size_t(job.k) * job.n, uint8_t(3 * j));
    }
    if (job.per_channel && !job.out_raw && j % 3 == 0) job.channel_shift[0] = 31;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

struct Comparison {
  int commands = 0;
  int64_t beats = 0;  // simulated beats compared
  std::vector<std::string> differences;  // "command j: stream", over every command
};

// Random commands (one of them rejected) through QaccTlm's socket, one after the other with gaps:
// for each, the units' streams (QaccTlm::units) vs BeatPredictor's and the closed-form perf
// counters vs the units' counts.
Comparison CompareTimingPaths(const std::string& config_name, uint32_t seed,
                              const UnitLatencies& latencies) {
  const arch::ArchConfig config = Config(config_name);
  const sc_core::sc_time period(1, sc_core::SC_NS);
  QaccTlm dut("dut", config, period, latencies);
  sc_core::sc_signal<bool> irq("irq");
  dut.irq(irq);
  std::vector<GemmJob> jobs = RandomJobs(seed, 22);
  jobs[5].n = 0;  // BAD_SHAPE: no beats, done one cycle after launch
  Comparison result;
  Host host("host", [&](Host& bus) {
    for (size_t j = 0; j < jobs.size(); ++j) {
      const GemmJob& job = jobs[j];
      if (job.n > 0) {
        for (const BusWrite& write : PackOperands(config, job))
          bus.Write(write.addr, write.data, write.strobe);
      }
      for (const BusWrite& write : CommandWrites(job)) bus.Write(write.addr, write.data);
      bus.Write(arch::reg::kCtrl, arch::kCtrlStart);
      const Launch& launch = *dut.state().last_launch();
      BeatPredictor closed_form = dut.state().MakePredictor();
      const Streams want = Collect(closed_form);
      const Streams got = Collect(dut.units());
      const UnitCounts counts = dut.units().counts();
      std::vector<std::string> diff = Differences(got, want);
      if (counts.cycles != int64_t{launch.perf.cycles}) diff.push_back("perf cycles");
      if (launch.engine) {
        const PerfCounters& perf = launch.perf;
        for (const arch::BeatUnitInfo& unit : arch::kBeatUnits) {
          if (counts.busy[size_t(unit.beat)] != int64_t{perf.Busy(unit.beat)}) {
            diff.push_back(std::string("perf ") + unit.busy);
          }
        }
        if (counts.out_writes != perf.out_writes) diff.push_back("perf out_writes");
        if (counts.feed_stall != perf.feed_stall) diff.push_back("perf feed_stall");
      }
      for (const std::string& d : diff) {
        result.differences.push_back("command " + std::to_string(j) + ": " + d);
      }
      ++result.commands;
      result.beats += int64_t(got.mac_in.size() + got.mac.size() + got.requant.size() +
                              got.lut.size() + got.out.size());
      // Idle 0..2 cycles after the (closed-form) done before the next command's writes.
      sc_core::wait(dut.TimeOfCycle(launch.done_cycle + int64_t(j % 3)) -
                    sc_core::sc_time_stamp());
    }
  });
  host.initiator_socket.bind(dut.target_socket);
  sc_core::sc_start();
  return result;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

TEST(TimingPaths, SimulatedUnitsEqualClosedFormDefault) {
  REQUIRE_FRESH_KERNEL();
  const Comparison result = CompareTimingPaths("default", 11, {});
  EXPECT_EQ(result.commands, 22);
  EXPECT_GT(result.beats, 2000);
  EXPECT_TRUE(result.differences.empty()) << Join(result.differences);
}

TEST(TimingPaths, SimulatedUnitsEqualClosedFormRect4x16) {
  REQUIRE_FRESH_KERNEL();
  const Comparison result = CompareTimingPaths("rect_4x16", 12, {});
  EXPECT_EQ(result.commands, 22);
  EXPECT_GT(result.beats, 2000);
  EXPECT_TRUE(result.differences.empty()) << Join(result.differences);
}

// One unit module built with a latency one cycle off: the comparison must fail, in the streams at
// and after that unit (and the done cycle), and nowhere before it.
struct WrongLatency {
  const char* name;
  int64_t UnitLatencies::*latency;
  std::vector<std::string> differ;  // streams that must differ in every legal command
  std::vector<std::string> agree;   // streams that must not differ in any
};

void PrintTo(const WrongLatency& wrong, std::ostream* os) { *os << wrong.name; }

class WrongLatencyTest : public ::testing::TestWithParam<WrongLatency> {};

TEST_P(WrongLatencyTest, ComparisonFails) {
  REQUIRE_FRESH_KERNEL();
  const WrongLatency& wrong = GetParam();
  UnitLatencies latencies;
  latencies.*wrong.latency += 1;
  const Comparison result = CompareTimingPaths("default", 13, latencies);
  const std::string all = Join(result.differences);
  for (const std::string& stream : wrong.differ) {
    EXPECT_NE(all.find("command 0: " + stream + "\n"), std::string::npos)
        << stream << " should differ; differences:\n"
        << all;
  }
  for (const std::string& stream : wrong.agree) {
    EXPECT_EQ(all.find(": " + stream + "\n"), std::string::npos)
        << stream << " should agree; differences:\n"
        << all;
  }
}

INSTANTIATE_TEST_SUITE_P(
    EachUnit, WrongLatencyTest,
    ::testing::Values(
        WrongLatency{"setup", &UnitLatencies::setup, {"mac_in", "mac", "requant", "done"}, {}},
        WrongLatency{"sram_read", &UnitLatencies::sram_read, {"mac_in", "mac", "out_write"}, {}},
        WrongLatency{"mac_edge",
                     &UnitLatencies::mac_edge,
                     {"mac", "requant", "out_write", "done"},
                     {"mac_in"}},
        WrongLatency{"requant",
                     &UnitLatencies::requant,
                     {"requant", "out_write", "done"},
                     {"mac_in", "mac"}},
        WrongLatency{
            "lut", &UnitLatencies::lut, {"lut", "out_write", "done"}, {"mac_in", "mac", "requant"}},
        WrongLatency{"out_write",
                     &UnitLatencies::out_write,
                     {"out_write", "done"},
                     {"mac_in", "mac", "requant", "lut"}},
        WrongLatency{"status",
                     &UnitLatencies::status,
                     {"done", "perf cycles"},
                     {"mac_in", "mac", "requant", "lut", "out_write"}}),
    [](const ::testing::TestParamInfo<WrongLatency>& param) {
      return std::string(param.param.name);
    });

// The MAC array module alone: tiles fed as early as the controller asks are moved to the first
// hazard-free cycle, which section 7 states in closed form: I(t+1,0) >= I(t,0) + max(K_t,
// K_t - K_{t+1} + max(R, C)). Checked here against that statement for pairs of K on both sides of
// R and C, on a square and a rectangular array.
class TileSink : public sc_core::sc_module, public tlm::tlm_blocking_put_if<RowTile> {
 public:
  sc_core::sc_export<tlm::tlm_blocking_put_if<RowTile>> in;
  explicit TileSink(sc_core::sc_module_name name) : sc_core::sc_module(name), in("in") {
    in.bind(*this);
  }
  void put(const RowTile& tile) override { tiles.push_back(tile); }
  std::vector<RowTile> tiles;
};

TEST(MacArrayModule, AcceptsTheNextTileAtTheSpecsEarliestCycle) {
  REQUIRE_FRESH_KERNEL();
  const arch::ArchConfig config = Config("rect_4x16");  // R = 4, C = 16
  const int64_t rows = config.rows, cols = config.cols;
  MacArrayTlm array("array", config.rows, config.cols, UnitLatencies{});
  TileSink sink("sink");
  array.beat_out.bind(sink.in);
  // Any legal command: only its values depend on it.
  GemmJob job;
  job.m = job.n = job.k = 1;
  job.a = job.b = {1};
  Srams srams(config);
  const LaunchDecision decision = DecodeCommand(config, ToCommand(job));
  auto engine = std::make_shared<GemmEngine>(config, decision.command, srams);
  const int64_t ks[] = {1, 3, 4, 5, 15, 16, 17, 40};
  int64_t x = 100;
  int checked = 0;
  for (int64_t k1 : ks) {
    for (int64_t k2 : ks) {
      TileFeed first{engine, 0, false, x, k1};
      array.Feed(first);
      ASSERT_EQ(first.first_cycle, x) << "an idle array accepts at once";
      // The next tile asked for as early as the input port allows.
      TileFeed second{engine, 0, false, x + k1, k2};
      array.Feed(second);
      const int64_t gap = std::max(k1, k1 - k2 + std::max(rows, cols));
      ASSERT_EQ(second.first_cycle, x + gap) << "K " << k1 << " then " << k2;
      // Each output row leaves I(0) + K + C + 1 + i (section 7, O(t,i)).
      const RowTile& out = sink.tiles.back();
      for (int i = 0; i < rows; ++i) {
        ASSERT_EQ(out.rows[size_t(i)].cycle, second.first_cycle + k2 + cols + 1 + i);
      }
      x = second.first_cycle + 1000;  // the next pair starts on an idle array
      ++checked;
    }
  }
  EXPECT_EQ(checked, 64);
}

}  // namespace
}  // namespace qacc::model

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
