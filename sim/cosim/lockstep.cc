// The lockstep and RTL-only runs: the lockstep engine (lockstep_engine.h) inside one SC_THREAD of
// the SystemC kernel, its bus transfers going to the model's target socket (clocking choice:
// docs/cosim.md); or the engine on the RTL alone.
#include <fmt/format.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <systemc>
#include <tlm>

#include "golden/gemm.h"
#include "model/model_only.h"
#include "model/qacc_tlm.h"
#include "sim/cosim/cosim.h"
#include "sim/cosim/lockstep_engine.h"
#include "sim/cosim/run_common.h"
#include "sim/testgen/program.h"

// libsystemc's main() refers to sc_main; qacc has its own main() and starts the kernel itself, so
// this one is never called.
int sc_main(int /*argc*/, char** /*argv*/) { return 1; }

namespace qacc::cosim {

namespace {

// The host: one SC_THREAD runs the engine; its bus transfers go to the model's target socket with
// the local time offset of the cycle they are set up in (TLM-2.0 temporal decoupling, quantum
// `quantum_cycles`).
class LockstepHost : public sc_core::sc_module, public ModelPort {
 public:
  tlm_utils::simple_initiator_socket<LockstepHost> initiator_socket;

  LockstepHost(sc_core::sc_module_name name, model::QaccTlm& tlm, int64_t quantum_cycles,
               std::function<void(ModelPort&)> body)
      : sc_core::sc_module(name),
        initiator_socket("initiator_socket"),
        tlm_(tlm),
        quantum_(quantum_cycles),
        body_(std::move(body)) {
    SC_HAS_PROCESS(LockstepHost);
    SC_THREAD(Run);
  }

  ModelTransfer Transfer(bool is_read, uint32_t addr, uint32_t data, uint8_t strobe,
                         int64_t setup) override {
    unsigned char bytes[4];
    unsigned char enables[4];
    for (int b = 0; b < 4; ++b) {
      bytes[b] = static_cast<unsigned char>(data >> (8 * b));
      enables[b] = (strobe >> b) & 1 ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED;
    }
    payload_.set_command(is_read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
    payload_.set_address(addr);
    payload_.set_data_ptr(bytes);
    payload_.set_data_length(4);
    payload_.set_streaming_width(4);
    payload_.set_byte_enable_ptr(enables);
    payload_.set_byte_enable_length(4);
    payload_.set_dmi_allowed(false);
    payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = tlm_.TimeOfCycle(setup) - sc_core::sc_time_stamp();
    initiator_socket->b_transport(payload_, delay);
    ModelTransfer result;
    result.complete_cycle = tlm_.CycleAt(sc_core::sc_time_stamp() + delay) - 1;
    switch (payload_.get_response_status()) {
      case tlm::TLM_OK_RESPONSE:
        result.status = model::BusStatus::kOk;
        break;
      case tlm::TLM_ADDRESS_ERROR_RESPONSE:
        result.status = model::BusStatus::kAddressError;
        break;
      default:
        result.status = model::BusStatus::kGenericError;
        break;
    }
    if (is_read) {
      result.rdata = uint32_t{bytes[0]} | uint32_t{bytes[1]} << 8 | uint32_t{bytes[2]} << 16 |
                     uint32_t{bytes[3]} << 24;
    }
    payload_.set_data_ptr(nullptr);
    payload_.set_byte_enable_ptr(nullptr);
    return result;
  }

  void Advance(int64_t cycle) override {
    if (cycle - synced_cycle_ >= quantum_) {
      sc_core::wait(tlm_.TimeOfCycle(cycle) - sc_core::sc_time_stamp());
      synced_cycle_ = cycle;
    }
  }

  bool LaunchedAt(int64_t complete_cycle) const override {
    const auto& launch = tlm_.state().last_launch();
    return launch && launch->launch_cycle == complete_cycle + 1;
  }
  arch::ErrCode LaunchError() const override { return tlm_.state().last_launch()->error; }
  int64_t LaunchDoneCycle() const override { return tlm_.state().last_launch()->done_cycle; }
  model::BeatSource& Beats() override { return tlm_.units(); }
  bool Busy(int64_t cycle) override { return tlm_.state().Busy(cycle); }
  bool Irq(int64_t cycle) override { return tlm_.state().Irq(cycle); }
  model::AccelState& state() override { return tlm_.state(); }
  const arch::Command& CommandRegisters() const override { return tlm_.state().command_registers(); }
  const model::Srams& srams() const override { return tlm_.state().srams(); }

 private:
  void Run() {
    body_(*this);
    sc_core::sc_stop();
  }

  model::QaccTlm& tlm_;
  int64_t quantum_;
  int64_t synced_cycle_ = 0;
  std::function<void(ModelPort&)> body_;
  tlm::tlm_generic_payload payload_;
};

}  // namespace

CosimResult RunLockstep(const CosimOptions& options, const sim::Program& program) {
  const DutVariant& variant = FindVariant(options.config, /*traced=*/false);
  // The SystemC banner and the sc_stop() note would mix with --json output on stdout.
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0);
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  std::unique_ptr<Dut> dut =
      MakeDut(variant, options.mutant, options.power_on_seed, ExtMemSettingsOf(options.config));
  Scoreboard scoreboard(options.config);
  Coverage coverage(options.config);

  CosimResult result;
  const auto start = std::chrono::steady_clock::now();
  double check_seconds = 0;
  std::unique_ptr<LockstepEngine> engine;
  {
    model::UnitLatencies latencies;
    if (options.fault == Fault::kRequantLatency) ++latencies.requant;
    model::QaccTlm tlm("qacc", options.config, sc_core::sc_time(1, sc_core::SC_NS), latencies);
    sc_core::sc_signal<bool> irq("irq");
    tlm.irq(irq);
    LockstepHost host(
        "host", tlm, std::max<int64_t>(1, options.quantum_cycles), [&](ModelPort& port) {
          engine = std::make_unique<LockstepEngine>(options, program, *dut, &port, &scoreboard);
          engine->set_coverage(&coverage);
          engine->set_output_check([&](int job_index, const LockstepEngine& e) {
            const auto check_start = std::chrono::steady_clock::now();
            const model::GemmJob& job = program.jobs[size_t(job_index)];
            const golden::Matrix<int32_t> golden = model::GoldenOutput(job);
            const int command = CommandOfJob(program, job_index);
            const auto read_cycle = [&e](int64_t byte) { return e.ReadCycleOf(byte); };
            CompareOutputs(options.config, job, golden, e.rtl_out(), "output", read_cycle, command,
                           scoreboard);
            CompareOutputs(options.config, job, golden, e.model_out(), "model-output", read_cycle,
                           command, scoreboard);
            check_seconds += Seconds(check_start);
          });
          try {
            engine->Run();
          } catch (const EngineStop& stop) {
            result.error = stop.error;
          } catch (const std::exception& e) {
            result.error = fmt::format("internal error in cycle {}: {}", engine->cycle(), e.what());
          }
          const auto& last = tlm.state().last_program();
          if (last && last->ended) result.program = last->result;
        });
    host.initiator_socket.bind(tlm.target_socket);
    sc_core::sc_start();
  }
  result.cycles = engine->cycle();
  result.launch_cycle = engine->first_launch_cycle();
  result.programs = engine->programs();
  result.command_cycles = engine->busy_cycles();
  result.rtl_thread_cycles = engine->runahead_cycles();
  result.check_seconds = check_seconds;
  result.coverage = coverage.bins();
  if (!options.coverage_path.empty()) dut->WriteCoverage(options.coverage_path);
  result.wall_seconds = Seconds(start);
  FillCounts(scoreboard, result);
  result.pass = result.error.empty() && scoreboard.total() == 0;
  return result;
}

RtlOnlyResult RunRtlOnly(const CosimOptions& options, const sim::Program& program,
                         const RtlOnlyOptions& rtl_options) {
  const bool traced = !rtl_options.trace_path.empty();
  std::unique_ptr<Dut> dut =
      MakeDut(FindVariant(options.config, traced || rtl_options.traced_build), options.mutant,
              options.power_on_seed, ExtMemSettingsOf(options.config));
  if (traced) dut->OpenTrace(rtl_options.trace_path);
  LockstepEngine engine(options, program, *dut, nullptr, nullptr);
  if (traced) engine.set_trace(rtl_options.trace_begin, rtl_options.trace_end);
  RtlOnlyResult result;
  const auto start = std::chrono::steady_clock::now();
  try {
    engine.Run();
  } catch (const EngineStop&) {
  }
  result.wall_seconds = Seconds(start);
  result.cycles = engine.cycle();
  result.done = engine.rtl_done();
  if (traced) dut->CloseTrace();
  return result;
}

}  // namespace qacc::cosim
