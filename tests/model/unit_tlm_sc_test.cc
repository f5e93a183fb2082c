// The SystemC unit modules (mac_array_tlm.h, requant_tlm.h, out_writer_tlm.h): standalone, chained
// by sc_fifos as in QaccTlm, they emit every beat at its section 7 cycle (O, Q = O + Lq,
// W = Q + Lw) with BeatPredictor's values; inside QaccTlm, the BeatObserver sees exactly
// BeatPredictor's stream, at the start of each beat's cycle, in unit order within a cycle. Random
// commands on both configurations. A SystemC kernel elaborates once per process: CTest runs every
// case in its own process; run directly, only the first case of the process runs.
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
#include "model/out_writer_tlm.h"
#include "model/qacc_tlm.h"
#include "model/requant_tlm.h"
#include "tests/model/model_test_util.h"

namespace qacc::model {
namespace {

using testing::Config;

bool kernel_used = false;

#define REQUIRE_FRESH_KERNEL()                                                                 \
  do {                                                                                         \
    if (kernel_used) GTEST_SKIP() << "one SystemC elaboration per process: run through ctest"; \
    kernel_used = true;                                                                        \
  } while (false)

// Runs `body` in a thread.
class Thread : public sc_core::sc_module {
 public:
  Thread(sc_core::sc_module_name name, std::function<void()> body)
      : sc_core::sc_module(name), body_(std::move(body)) {
    SC_HAS_PROCESS(Thread);
    SC_THREAD(Run);
  }

 private:
  void Run() { body_(); }
  std::function<void()> body_;
};

// A bus master for a Thread's body.
class Host : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Host> initiator_socket;

  explicit Host(sc_core::sc_module_name name)
      : sc_core::sc_module(name), initiator_socket("initiator_socket") {}

  // One blocking 32-bit bus transfer (all bytes enabled), synchronised after it.
  uint32_t Transfer(tlm::tlm_command command, uint64_t addr, uint32_t data = 0) {
    unsigned char bytes[4];
    for (int b = 0; b < 4; ++b) bytes[b] = static_cast<unsigned char>(data >> (8 * b));
    tlm::tlm_generic_payload payload;
    payload.set_command(command);
    payload.set_address(addr);
    payload.set_data_ptr(bytes);
    payload.set_data_length(4);
    payload.set_streaming_width(4);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    initiator_socket->b_transport(payload, delay);
    EXPECT_EQ(payload.get_response_status(), tlm::TLM_OK_RESPONSE) << "address " << addr;
    sc_core::wait(delay);
    return uint32_t{bytes[0]} | uint32_t{bytes[1]} << 8 | uint32_t{bytes[2]} << 16 |
           uint32_t{bytes[3]} << 24;
  }
  void Write(const BusWrite& write) { Transfer(tlm::TLM_WRITE_COMMAND, write.addr, write.data); }
};

// 0 MAC, 1 requant, 2 out write, 3 done: the order of the observer calls within a cycle.
struct Event {
  sc_core::sc_time time;
  int unit = 0;
  int64_t cycle = 0;
};

// Records every beat (with its arrival time) from the monitor ports or the BeatObserver.
class Recorder : public BeatObserver,
                 public tlm::tlm_analysis_if<MacBeat>,
                 public tlm::tlm_analysis_if<RequantBeat>,
                 public tlm::tlm_analysis_if<OutWriteBeat> {
 public:
  void write(const MacBeat& beat) override { OnMacBeat(beat); }
  void write(const RequantBeat& beat) override { OnRequantBeat(beat); }
  void write(const OutWriteBeat& beat) override { OnOutWrite(beat); }
  void OnMacBeat(const MacBeat& beat) override {
    mac.push_back(beat);
    events.push_back({sc_core::sc_time_stamp(), 0, beat.cycle});
  }
  void OnRequantBeat(const RequantBeat& beat) override {
    requant.push_back(beat);
    events.push_back({sc_core::sc_time_stamp(), 1, beat.cycle});
  }
  void OnOutWrite(const OutWriteBeat& beat) override {
    out.push_back(beat);
    events.push_back({sc_core::sc_time_stamp(), 2, beat.cycle});
  }
  void OnDone(int64_t cycle, arch::ErrCode error) override {
    done.emplace_back(cycle, error);
    events.push_back({sc_core::sc_time_stamp(), 3, cycle});
  }

  std::vector<MacBeat> mac;
  std::vector<RequantBeat> requant;
  std::vector<OutWriteBeat> out;
  std::vector<std::pair<int64_t, arch::ErrCode>> done;
  std::vector<Event> events;
};

// A command's whole predicted stream, taken from BeatPredictor while its SRAMs are intact.
struct Predicted {
  std::vector<MacBeat> mac;
  std::vector<RequantBeat> requant;
  std::vector<OutWriteBeat> out;
  int64_t done_cycle = 0;
};

Predicted Drain(BeatPredictor predictor) {
  Predicted predicted;
  for (; predictor.PeekMac(); predictor.PopMac()) predicted.mac.push_back(*predictor.PeekMac());
  for (; predictor.PeekRequant(); predictor.PopRequant())
    predicted.requant.push_back(*predictor.PeekRequant());
  for (; predictor.PeekOutWrite(); predictor.PopOutWrite())
    predicted.out.push_back(*predictor.PeekOutWrite());
  predicted.done_cycle = predictor.done_cycle();
  return predicted;
}

// Concatenated streams of several commands.
Predicted Append(Predicted all, const Predicted& next) {
  all.mac.insert(all.mac.end(), next.mac.begin(), next.mac.end());
  all.requant.insert(all.requant.end(), next.requant.begin(), next.requant.end());
  all.out.insert(all.out.end(), next.out.begin(), next.out.end());
  return all;
}

// The recorded beats equal the predicted ones field by field.
void ExpectSameBeats(const Recorder& got, const Predicted& want) {
  ASSERT_EQ(got.mac.size(), want.mac.size());
  for (size_t j = 0; j < want.mac.size(); ++j) {
    const MacBeat &g = got.mac[j], &w = want.mac[j];
    ASSERT_EQ(std::tie(g.cycle, g.tile, g.row, g.last, g.acc),
              std::tie(w.cycle, w.tile, w.row, w.last, w.acc))
        << "mac beat " << j << " (cycle " << w.cycle << ")";
  }
  ASSERT_EQ(got.requant.size(), want.requant.size());
  for (size_t j = 0; j < want.requant.size(); ++j) {
    const RequantBeat &g = got.requant[j], &w = want.requant[j];
    ASSERT_EQ(std::tie(g.cycle, g.tile, g.row, g.last, g.data, g.known_lanes),
              std::tie(w.cycle, w.tile, w.row, w.last, w.data, w.known_lanes))
        << "requant beat " << j << " (cycle " << w.cycle << ")";
  }
  ASSERT_EQ(got.out.size(), want.out.size());
  for (size_t j = 0; j < want.out.size(); ++j) {
    const OutWriteBeat &g = got.out[j], &w = want.out[j];
    ASSERT_EQ(std::tie(g.cycle, g.tile, g.row, g.addr, g.be, g.data, g.known),
              std::tie(w.cycle, w.tile, w.row, w.addr, w.be, w.data, w.known))
        << "out write " << j << " (cycle " << w.cycle << ")";
  }
}

// Every event arrived at the start of its cycle; with `unit_order`, events within a cycle come in
// unit order (QaccTlm's observer guarantees it; the bare modules are separate processes).
void ExpectTimedAndOrdered(const std::vector<Event>& events, const sc_core::sc_time& period,
                           bool unit_order) {
  for (size_t j = 0; j < events.size(); ++j) {
    ASSERT_EQ(events[j].time, period * static_cast<double>(events[j].cycle)) << "event " << j;
    if (j > 0 && unit_order) {
      ASSERT_TRUE(events[j - 1].time < events[j].time ||
                  (events[j - 1].time == events[j].time && events[j - 1].unit <= events[j].unit))
          << "event " << j << " (unit " << events[j].unit << ", cycle " << events[j].cycle
          << ") after unit " << events[j - 1].unit << " of cycle " << events[j - 1].cycle;
    }
  }
}

// Random legal jobs; a few per-channel ones get an undefined shift (31) in lane 0.
std::vector<GemmJob> RandomJobs(uint32_t seed, int count, int max_dim) {
  std::mt19937 rng(seed);
  std::vector<GemmJob> jobs;
  for (int j = 0; j < count; ++j) {
    GemmJob job = testing::RandomJob(rng, max_dim);
    if (job.per_channel && !job.out_raw && j % 3 == 0) job.channel_shift[0] = 31;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// The three unit modules without QaccTlm, chained like inside it, started directly on commands
// launched back to back: every beat at launch + O(t,i), + Q(t,i), + W(t,i), valued as predicted.
void UnitsStandalone(const std::string& config_name, uint32_t seed) {
  const arch::ArchConfig config = Config(config_name);
  const sc_core::sc_time period(3, sc_core::SC_NS);
  MacArrayTlm mac_array("mac_array", period);
  RequantTlm requant("requant", period);
  OutWriterTlm out_writer("out_writer", period);
  sc_core::sc_fifo<MacTransfer> mac_to_requant("mac_to_requant", 2 * (arch::kRequantLatency + 1));
  sc_core::sc_fifo<RequantTransfer> requant_to_out("requant_to_out",
                                                   2 * (arch::kOutWriteLatency + 1));
  mac_array.beat_out(mac_to_requant);
  requant.beat_in(mac_to_requant);
  requant.beat_out(requant_to_out);
  out_writer.beat_in(requant_to_out);
  Recorder recorder;
  mac_array.monitor.bind(recorder);
  requant.monitor.bind(recorder);
  out_writer.monitor.bind(recorder);

  // Each command reads its own SRAMs, so all can be queued at once.
  struct Launched {
    std::unique_ptr<Srams> srams;
    std::shared_ptr<const GemmEngine> engine;
    int64_t launch_cycle = 0;
  };
  std::vector<Launched> launched;
  int64_t next_launch = 7;
  for (const GemmJob& job : RandomJobs(seed, 25, 40)) {
    Launched command;
    command.srams = std::make_unique<Srams>(config);
    for (const BusWrite& write : PackOperands(config, job)) {
      command.srams->HostWrite(static_cast<arch::Region>(arch::RegionBits(write.addr)),
                               arch::WindowOffset(write.addr), write.data, write.strobe);
    }
    const LaunchDecision decision = DecodeCommand(config, ToCommand(job));
    ASSERT_EQ(decision.error, arch::ErrCode::kNone);
    command.engine = std::make_shared<GemmEngine>(config, decision.command, *command.srams);
    command.launch_cycle = next_launch;
    next_launch += decision.cycles + static_cast<int64_t>(launched.size() % 3);  // gaps 0..2
    launched.push_back(std::move(command));
  }
  Thread driver("driver", [&] {
    for (const Launched& command : launched) mac_array.Start(command.engine, command.launch_cycle);
  });
  sc_core::sc_start();

  Predicted want;
  for (const Launched& command : launched) {
    want = Append(std::move(want), Drain(BeatPredictor(command.engine, command.launch_cycle)));
  }
  ExpectSameBeats(recorder, want);
  ExpectTimedAndOrdered(recorder.events, period, /*unit_order=*/false);
  // The section 7 formulas, explicitly, for every beat.
  size_t mac = 0, rq = 0, out = 0;
  for (const Launched& command : launched) {
    const arch::Timing& timing = command.engine->timing();
    for (int64_t t = 0; t < timing.T(); ++t) {
      for (int i = 0; i < config.rows; ++i) {
        ASSERT_EQ(recorder.mac[mac++].cycle, command.launch_cycle + timing.O(t, i));
        ASSERT_EQ(recorder.requant[rq++].cycle, command.launch_cycle + timing.Q(t, i));
        if (i < timing.MValid(timing.TileMb(t))) {
          ASSERT_EQ(recorder.out[out++].cycle, command.launch_cycle + timing.W(t, i));
        }
      }
    }
  }
  EXPECT_EQ(mac, recorder.mac.size());
  EXPECT_EQ(out, recorder.out.size());
}

TEST(UnitModules, EmitAtSpecCyclesDefault) {
  REQUIRE_FRESH_KERNEL();
  UnitsStandalone("default", 1);
}

TEST(UnitModules, EmitAtSpecCyclesRect4x16) {
  REQUIRE_FRESH_KERNEL();
  UnitsStandalone("rect_4x16", 2);
}

// Random commands (and a rejected one) through QaccTlm's socket, each started once the previous is
// done: the observer sees exactly BeatPredictor's stream of each command, at the start of each
// beat's cycle, in unit order within a cycle, and OnDone at launch + E.
void ObserverThroughSocket(const std::string& config_name, uint32_t seed) {
  const arch::ArchConfig config = Config(config_name);
  const sc_core::sc_time period(2, sc_core::SC_NS);
  QaccTlm dut("dut", config, period);
  sc_core::sc_signal<bool> irq("irq");
  dut.irq(irq);
  Recorder recorder;
  dut.set_beat_observer(&recorder);
  std::vector<GemmJob> jobs = RandomJobs(seed, 12, 30);
  jobs[4].n = 0;  // BAD_SHAPE: no beats, done one cycle after launch
  Predicted want;
  std::vector<std::pair<int64_t, arch::ErrCode>> want_done;
  Host host("host");
  host.initiator_socket.bind(dut.target_socket);
  Thread driver("driver", [&] {
    for (const GemmJob& job : jobs) {
      if (job.n > 0) {
        for (const BusWrite& write : PackOperands(config, job)) host.Write(write);
      }
      for (const BusWrite& write : CommandWrites(job)) host.Write(write);
      host.Transfer(tlm::TLM_WRITE_COMMAND, arch::reg::kCtrl, arch::kCtrlStart);
      const Predicted predicted = Drain(dut.state().MakePredictor());
      want = Append(std::move(want), predicted);
      want_done.emplace_back(predicted.done_cycle, dut.state().last_launch()->error);
      sc_core::wait(dut.TimeOfCycle(predicted.done_cycle) - sc_core::sc_time_stamp());
      EXPECT_EQ(host.Transfer(tlm::TLM_READ_COMMAND, arch::reg::kStatus) & arch::kStatusBusy, 0u);
    }
    sc_core::wait(3 * period);
    sc_core::sc_stop();
  });
  sc_core::sc_start();

  EXPECT_GT(want.mac.size(), 100u);
  ExpectSameBeats(recorder, want);
  ExpectTimedAndOrdered(recorder.events, period, /*unit_order=*/true);
  EXPECT_EQ(recorder.done, want_done);
  EXPECT_EQ(want_done[4].second, arch::ErrCode::kBadShape);
}

TEST(QaccTlmUnits, ObserverSeesPredictorStreamDefault) {
  REQUIRE_FRESH_KERNEL();
  ObserverThroughSocket("default", 3);
}

TEST(QaccTlmUnits, ObserverSeesPredictorStreamRect4x16) {
  REQUIRE_FRESH_KERNEL();
  ObserverThroughSocket("rect_4x16", 4);
}

}  // namespace
}  // namespace qacc::model

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
