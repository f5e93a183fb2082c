// The lockstep engine: one loop steps the Verilated RTL a clock cycle at a time and, in the same
// cycle, hands each bus access to the SystemC model's target socket; the scoreboard checks every
// cycle. The engine runs inside one SC_THREAD of the SystemC kernel (clocking choice:
// docs/cosim.md).
#include <fmt/format.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <systemc>
#include <tlm>

#include "golden/gemm.h"
#include "model/accel_state.h"
#include "model/model_only.h"
#include "model/qacc_tlm.h"
#include "sim/cosim/cosim.h"
#include "sim/cosim/dut.h"
#include "sim/cosim/transactor.h"

// libsystemc's main() refers to sc_main; qacc has its own main() and starts the kernel itself, so
// this one is never called.
int sc_main(int /*argc*/, char** /*argv*/) { return 1; }

namespace qacc::cosim {

namespace {

constexpr int kResetCycles = 2;  // rst_ni low, then one cycle high before the first access
constexpr int kApbTimeout = 16;  // access cycles without pready before the bus watchdog fires

// The model half of a bus transfer, as seen by the engine.
struct ModelTransfer {
  int64_t complete_cycle = 0;  // cycle in which the access phase completes (pready)
  model::BusStatus status = model::BusStatus::kOk;
  uint32_t rdata = 0;
};

class ModelPort {
 public:
  virtual ~ModelPort() = default;
  // A transfer whose setup phase is in cycle `setup`.
  virtual ModelTransfer Transfer(bool is_read, uint32_t addr, uint32_t data, uint8_t strobe,
                                 int64_t setup) = 0;
  // Called after each clock cycle: `cycle` is the next cycle to run.
  virtual void Advance(int64_t cycle) = 0;
  virtual model::BeatPredictor MakePredictor() = 0;
};

struct EngineStop {
  std::string error;
};

class Engine {
 public:
  Engine(const CosimOptions& options, const model::GemmJob& job, Dut& dut, ModelPort* model,
         Scoreboard* scoreboard)
      : options_(options),
        job_(job),
        dut_(dut),
        model_(model),
        scoreboard_(scoreboard),
        timing_(options.config.rows, options.config.cols, job.m, job.n, job.k),
        range_(OutputRange(options.config, job)),
        rtl_out_(size_t(options.config.out_depth) * options.config.out_word_bytes()),
        model_out_(rtl_out_.size()),
        read_cycles_(range_.bytes / 4) {}

  void set_trace(int64_t begin, int64_t end) {
    trace_begin_ = begin;
    trace_end_ = end;
  }

  // Plays the host program; returns normally, or throws EngineStop (watchdog, bus failure, end of
  // the trace window).
  void Run(const std::vector<BusOp>& program) {
    dut_.SetReset(true);
    for (int i = 0; i < kResetCycles; ++i) Tick();
    dut_.SetReset(false);
    Tick();
    for (const BusOp& op : program) {
      switch (op.kind) {
        case BusOp::Kind::kWrite:
        case BusOp::Kind::kStart:
        case BusOp::Kind::kRead:
        case BusOp::Kind::kReadOut:
          Transfer(op);
          break;
        case BusOp::Kind::kWaitDone:
          WaitDone();
          break;
      }
    }
  }

  int64_t cycle() const { return cycle_; }
  int64_t launch_cycle() const { return launch_cycle_; }
  bool rtl_done() const { return rtl_done_cycle_ >= 0; }
  const std::vector<uint8_t>& rtl_out() const { return rtl_out_; }
  const std::vector<uint8_t>& model_out() const { return model_out_; }
  // Cycle of the read that returned output-window byte `byte` (offset inside the window).
  int64_t ReadCycleOf(int64_t byte) const {
    const int64_t word = (byte - range_.first_byte) / 4;
    return word >= 0 && word < int64_t(read_cycles_.size()) ? read_cycles_[size_t(word)] : -1;
  }
  const std::string& bus_error() const { return bus_error_; }

 private:
  // One clock cycle of everything.
  void Tick() {
    if (cycle_ == trace_begin_) dut_.SetTracing(true);
    dut_.SetApb(pins_);
    dut_.Cycle(cycle_, sample_);
    if (options_.fault != Fault::kNone) InjectFault();
    if (launch_cycle_ >= 0 && rtl_done_cycle_ < 0 && sample_.done) rtl_done_cycle_ = cycle_;
    if (scoreboard_ != nullptr) scoreboard_->Check(cycle_, sample_);
    if (cycle_ == trace_end_) {
      dut_.SetTracing(false);
      throw EngineStop{};
    }
    ++cycle_;
    if (model_ != nullptr) model_->Advance(cycle_);
  }

  // Monitor-side faults: what the scoreboard sees differs from what the RTL did, once.
  void InjectFault() {
    const int rows = options_.config.rows;
    const int cols = options_.config.cols;
    switch (options_.fault) {
      case Fault::kMacValue:  // lane 1 of the first MAC beat of row 1 (tile 0) off by one
        if (!injected_ && sample_.mac_valid && sample_.mac_row == std::min(1, rows - 1)) {
          sample_.mac_acc[1 % cols] ^= 1;
          injected_ = true;
        }
        break;
      case Fault::kRequantValue:  // lane 2 of the first requant beat of row 1 off by one
        if (!injected_ && sample_.rq_valid && sample_.rq_row == std::min(1, rows - 1)) {
          sample_.rq_data[2 % cols] ^= 1;
          injected_ = true;
        }
        break;
      case Fault::kMacLate:  // the last MAC beat of tile 0 one cycle late
        if (delayed_) {
          sample_.mac_valid = true;
          sample_.mac_row = delayed_sample_.mac_row;
          sample_.mac_last = delayed_sample_.mac_last;
          std::copy(std::begin(delayed_sample_.mac_acc), std::end(delayed_sample_.mac_acc),
                    std::begin(sample_.mac_acc));
          delayed_ = false;
        } else if (!injected_ && sample_.mac_valid && sample_.mac_row == rows - 1) {
          delayed_sample_ = sample_;
          sample_.mac_valid = false;
          delayed_ = injected_ = true;
        }
        break;
      case Fault::kNone:
      case Fault::kStartLost:
        break;
    }
  }

  void Transfer(const BusOp& op) {
    const bool is_read = op.kind == BusOp::Kind::kRead || op.kind == BusOp::Kind::kReadOut;
    const int64_t setup = cycle_;
    ModelTransfer expected;
    if (model_ != nullptr) expected = model_->Transfer(is_read, op.addr, op.data, op.strobe, setup);
    // Stimulus fault: the RTL's CTRL write carries no START.
    const uint32_t rtl_data =
        op.kind == BusOp::Kind::kStart && options_.fault == Fault::kStartLost ? 0 : op.data;
    pins_ = ApbPins{true,
                    false,
                    !is_read,
                    op.addr,
                    is_read ? 0 : rtl_data,
                    static_cast<uint8_t>(is_read ? 0 : op.strobe)};
    Tick();
    pins_.penable = true;
    for (int access = 1;; ++access) {
      Tick();
      if (sample_.pready) break;
      if (access >= kApbTimeout) {
        throw EngineStop{fmt::format(
            "watchdog: cycle {}: unit bus stopped: APB {} of {:#08x} has no pready after {} access "
            "cycles",
            cycle_ - 1, is_read ? "read" : "write", op.addr, access)};
      }
    }
    const int64_t complete = cycle_ - 1;
    const uint32_t rdata = sample_.prdata;
    const bool slverr = sample_.pslverr;
    pins_ = ApbPins{};
    if (model_ != nullptr) {
      const bool model_err = expected.status != model::BusStatus::kOk;
      if (expected.complete_cycle != complete || model_err != slverr) {
        if (bus_error_.empty()) {
          bus_error_ = fmt::format(
              "bus: {} of {:#08x} set up in cycle {}: RTL completes in cycle {} pslverr {}, model "
              "in cycle {} {}",
              is_read ? "read" : "write", op.addr, setup, complete, int(slverr),
              expected.complete_cycle, model::BusStatusName(expected.status));
        }
      }
    }
    if (op.kind == BusOp::Kind::kStart) {
      launch_cycle_ = complete + 1;
      if (model_ != nullptr) {
        predictor_ = std::make_unique<model::BeatPredictor>(model_->MakePredictor());
        if (scoreboard_ != nullptr) scoreboard_->SetCommand(predictor_.get());
      }
    } else if (op.kind == BusOp::Kind::kRead && model_ != nullptr && scoreboard_ != nullptr &&
               rdata != expected.rdata) {
      Mismatch m;
      m.cycle = complete;
      m.unit = CheckUnitName(CheckUnit::kDone);
      m.what = ReadRegisterName(op.addr) + " read";
      m.expected = fmt::format("{:#x}", expected.rdata);
      m.actual = fmt::format("{:#x}", rdata);
      scoreboard_->Record(CheckUnit::kDone, m);
    } else if (op.kind == BusOp::Kind::kReadOut) {
      const uint32_t off = arch::WindowOffset(op.addr);
      for (int b = 0; b < 4; ++b) {
        rtl_out_[off + uint32_t(b)] = static_cast<uint8_t>(rdata >> (8 * b));
        model_out_[off + uint32_t(b)] = static_cast<uint8_t>(expected.rdata >> (8 * b));
      }
      read_cycles_[(off - range_.first_byte) / 4] = complete;
    }
  }

  // Idle bus until both the RTL and the model have completed the command.
  void WaitDone() {
    const int64_t predicted = predictor_ ? predictor_->done_cycle() : launch_cycle_ + timing_.E();
    for (;;) {
      if (rtl_done() && cycle_ > predicted) return;
      if (cycle_ >= predicted + options_.watchdog_cycles)
        throw EngineStop{WatchdogMessage(predicted)};
      Tick();
    }
  }

  std::string WatchdogMessage(int64_t predicted) const {
    std::string text = fmt::format(
        "watchdog: cycle {}: the RTL has not completed the command {} cycles after its predicted "
        "completion (cycle {}; STATUS.BUSY {})",
        cycle_, cycle_ - predicted, predicted, int(sample_.busy));
    if (scoreboard_ == nullptr) return text;
    for (CheckUnit unit :
         {CheckUnit::kMac, CheckUnit::kRequant, CheckUnit::kOutWrite, CheckUnit::kDone}) {
      const int64_t seen = scoreboard_->seen(unit), want = scoreboard_->predicted(unit);
      if (seen >= want) continue;
      const int64_t last = scoreboard_->last_seen_cycle(unit);
      text += fmt::format("; unit {} stopped: {} of {} predicted {} seen, last at {}",
                          CheckUnitName(unit), seen, want,
                          unit == CheckUnit::kDone ? "completions" : "beats",
                          last < 0 ? std::string("none") : fmt::format("cycle {}", last));
      break;
    }
    return text;
  }

  const CosimOptions& options_;
  const model::GemmJob& job_;
  Dut& dut_;
  ModelPort* model_;
  Scoreboard* scoreboard_;
  arch::Timing timing_;
  OutRange range_;
  ApbPins pins_;
  RtlSample sample_;
  int64_t cycle_ = 0;
  int64_t launch_cycle_ = -1;
  int64_t rtl_done_cycle_ = -1;
  int64_t trace_begin_ = -1, trace_end_ = -1;
  std::unique_ptr<model::BeatPredictor> predictor_;
  std::vector<uint8_t> rtl_out_, model_out_;
  std::vector<int64_t> read_cycles_;
  std::string bus_error_;
  bool injected_ = false;
  bool delayed_ = false;
  RtlSample delayed_sample_;
};

// ---- SystemC side
// --------------------------------------------------------------------------------

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

  model::BeatPredictor MakePredictor() override { return tlm_.state().MakePredictor(); }

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

void CompareOutputs(const CosimOptions& options, const model::GemmJob& job,
                    const golden::Matrix<int32_t>& golden, const Engine* engine,
                    const std::vector<uint8_t>& image, const char* unit, int64_t end_cycle,
                    Scoreboard& scoreboard) {
  const golden::Matrix<int32_t> got = model::UnpackOutput(options.config, job, image);
  const int rows = options.config.rows, cols = options.config.cols;
  const int64_t nb_count = arch::CeilDiv(job.n, cols);
  for (int m = 0; m < job.m; ++m) {
    for (int n = 0; n < job.n; ++n) {
      if (got.at(m, n) == golden.at(m, n)) continue;
      const int64_t entry = arch::OutEntryOf(m, n, rows, cols, nb_count);
      Mismatch mm;
      mm.unit = unit;
      mm.what = "output element vs golden";
      mm.lane = n % cols;
      mm.tile = entry / rows;
      mm.tile_row = static_cast<int>(entry % rows);
      mm.row = m;
      mm.col = n;
      mm.expected = std::to_string(golden.at(m, n));
      mm.actual = std::to_string(got.at(m, n));
      const int64_t byte = arch::OutWindowByte(job.out_base, entry, n % cols, cols, job.out_raw);
      mm.cycle = engine ? engine->ReadCycleOf(byte) : end_cycle;
      scoreboard.Record(CheckUnit::kOutput, mm);
    }
  }
}

void FillCounts(const Scoreboard& scoreboard, CosimResult& result) {
  for (int u = 0; u < kNumCheckUnits; ++u) {
    result.mismatches[size_t(u)] = scoreboard.count(static_cast<CheckUnit>(u));
    result.first_of[size_t(u)] = scoreboard.first_of(static_cast<CheckUnit>(u));
  }
  result.first = scoreboard.first();
}

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

CosimResult RunLockstep(const CosimOptions& options, const model::GemmJob& job) {
  const DutVariant& variant = FindVariant(options.config, /*traced=*/false);
  // The SystemC banner and the sc_stop() note would mix with --json output on stdout.
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0);
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  const std::vector<BusOp> program = HostProgram(options.config, job);
  std::unique_ptr<Dut> dut = MakeDut(variant);
  Scoreboard scoreboard(options.config, job.m, job.n, job.k, job.out_raw, job.out_base);

  CosimResult result;
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<Engine> engine;
  {
    model::QaccTlm tlm("qacc", options.config);
    sc_core::sc_signal<bool> irq("irq");
    tlm.irq(irq);
    LockstepHost host(
        "host", tlm, std::max<int64_t>(1, options.quantum_cycles), [&](ModelPort& port) {
          engine = std::make_unique<Engine>(options, job, *dut, &port, &scoreboard);
          try {
            engine->Run(program);
          } catch (const EngineStop& stop) {
            result.error = stop.error;
          } catch (const std::exception& e) {
            result.error = fmt::format("internal error in cycle {}: {}", engine->cycle(), e.what());
          }
        });
    host.initiator_socket.bind(tlm.target_socket);
    sc_core::sc_start();
    if (tlm.state().last_launch()) {
      result.command_cycles =
          tlm.state().last_launch()->done_cycle - tlm.state().last_launch()->launch_cycle;
    }
  }
  result.cycles = engine->cycle();
  result.launch_cycle = engine->launch_cycle();
  if (result.error.empty()) {
    if (!engine->bus_error().empty()) result.error = engine->bus_error();
    const auto check_start = std::chrono::steady_clock::now();
    const golden::Matrix<int32_t> golden = model::GoldenOutput(job);
    CompareOutputs(options, job, golden, engine.get(), engine->rtl_out(), "output", engine->cycle(),
                   scoreboard);
    CompareOutputs(options, job, golden, engine.get(), engine->model_out(), "model-output",
                   engine->cycle(), scoreboard);
    result.check_seconds = Seconds(check_start);
  }
  result.wall_seconds = Seconds(start);
  FillCounts(scoreboard, result);
  result.pass = result.error.empty() && scoreboard.total() == 0;
  return result;
}

CosimResult RunModelOnly(const CosimOptions& options, const model::GemmJob& job) {
  CosimResult result;
  const auto start = std::chrono::steady_clock::now();
  model::Srams srams(options.config);
  // The same host program as the lockstep run, for the same cycle count: reset, one transfer per
  // access (2 cycles, 3 for an SRAM read), the command's E cycles and the cycle DONE is seen.
  int64_t cycles = kResetCycles + 1;
  for (const BusOp& op : HostProgram(options.config, job)) {
    if (op.kind == BusOp::Kind::kWaitDone) continue;
    const bool is_read = op.kind == BusOp::Kind::kRead || op.kind == BusOp::Kind::kReadOut;
    cycles += model::AccelState::TransferCycles(op.addr, is_read);
    if (op.kind == BusOp::Kind::kWrite) {
      const auto region = static_cast<arch::Region>(arch::RegionBits(op.addr));
      // The bus rule of section 3.1: a write outside the SRAM has no effect (pslverr).
      const uint32_t offset = arch::WindowOffset(op.addr);
      if (model::Srams::IsSramRegion(region) && srams.InRange(region, offset)) {
        srams.HostWrite(region, offset, op.data, op.strobe);
      }
    }
  }
  const model::RunResult run = model::RunCommand(options.config, model::ToCommand(job), srams);
  result.command_cycles = run.cycles;
  result.cycles = cycles + run.cycles + 1;
  Scoreboard scoreboard(options.config, job.m, job.n, job.k, job.out_raw, job.out_base);
  if (run.error != arch::ErrCode::kNone) {
    result.error = fmt::format("model rejected the command: {}", arch::ErrCodeName(run.error));
  } else {
    const auto check_start = std::chrono::steady_clock::now();
    CompareOutputs(options, job, model::GoldenOutput(job), nullptr, srams.image(arch::Region::kOut),
                   "model-output", result.cycles, scoreboard);
    result.check_seconds = Seconds(check_start);
  }
  result.wall_seconds = Seconds(start);
  FillCounts(scoreboard, result);
  result.pass = result.error.empty() && scoreboard.total() == 0;
  return result;
}

RtlOnlyResult RunRtlOnly(const CosimOptions& options, const model::GemmJob& job,
                         const RtlOnlyOptions& rtl_options) {
  const bool traced = !rtl_options.trace_path.empty();
  std::unique_ptr<Dut> dut =
      MakeDut(FindVariant(options.config, traced || rtl_options.traced_build));
  if (traced) dut->OpenTrace(rtl_options.trace_path);
  const std::vector<BusOp> program = HostProgram(options.config, job);
  Engine engine(options, job, *dut, nullptr, nullptr);
  if (traced) engine.set_trace(rtl_options.trace_begin, rtl_options.trace_end);
  RtlOnlyResult result;
  const auto start = std::chrono::steady_clock::now();
  try {
    engine.Run(program);
  } catch (const EngineStop&) {
  }
  result.wall_seconds = Seconds(start);
  result.cycles = engine.cycle();
  result.done = engine.rtl_done();
  if (traced) dut->CloseTrace();
  return result;
}

}  // namespace qacc::cosim
