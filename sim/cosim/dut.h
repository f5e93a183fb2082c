// The Verilated qacc_top behind one small interface, so that the co-simulation selects at run time
// the build whose parameters match the --config file. RTL parameters are fixed at Verilation time:
// sim/cosim/CMakeLists.txt Verilates qacc_top once per configs/*.json (and once more with
// --trace-fst) and generates one Dut implementation per build from rtl_variant.cc.in.
#ifndef QACC_SIM_COSIM_DUT_H_
#define QACC_SIM_COSIM_DUT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/arch.h"
#include "model/ext_memory.h"

namespace qacc::cosim {

inline constexpr int kMaxRows = 32, kMaxCols = 32;  // spec 1: NumRows, NumCols <= 32
// mon_cmd_o: $bits(cmd_t) of qacc_pkg (spec 8), in 32-bit words.
inline constexpr int kCommandPortWords = (arch::desc::kCmdBits + 31) / 32;

// The queue monitor mon_q_o of a program (data_movement.md 18), decoded: the generated struct of
// the spec's mon_q_t.
using QueueSample = arch::MonQ;
inline constexpr int kQueuePortWords = (arch::kMonQBits + 31) / 32;
inline constexpr int kMaxSramWordBytes = arch::MaxSramWordBytes(kMaxRows, kMaxCols);
// The DMA SRAM monitor's width in bytes for an array of rows x cols: the widest SRAM word (qacc_top
// WordBytesMax, both from the spec's SRAM list).
inline constexpr int DmaPortBytes(int rows, int cols) { return arch::MaxSramWordBytes(rows, cols); }

// The DMA's SRAM access of one cycle (mon_dma_*_o). Bytes are filled only with re or we.
struct DmaSramSample {
  bool re = false, we = false;
  int sram = 0;       // 1..5: A, B, bias, rq, out
  uint32_t addr = 0;  // word address
  uint8_t be[kMaxSramWordBytes] = {};
  uint8_t wdata[kMaxSramWordBytes] = {};  // 0 for a read
  bool idle_zero = true;  // without an access: the SRAM id, address, byte enables and data are 0 (18)
};

// MOVE's accesses of one cycle (mon_move_*_o).
struct MoveSample {
  bool re = false;
  uint32_t raddr = 0;
  bool we = false;
  int dst = 0;  // 1 A, 2 B
  uint32_t waddr = 0;
  uint8_t wdata[kMaxRows > kMaxCols ? kMaxRows : kMaxCols] = {};  // R bytes into A, C bytes into B
  bool idle_zero = true;         // the fields of an access the cycle does not have are 0 (18)
};

// A command unit's out SRAM accesses of one cycle (mon_out_acc_*_o: ELTWISE's).
struct OutAccessSample {
  bool re = false;
  uint32_t raddr = 0;
  bool we = false;
  uint32_t waddr = 0;
  uint8_t wdata[4 * kMaxCols] = {};  // a whole out word
  bool idle_zero = true;             // the fields of an access the cycle does not have are 0 (18)
};

// The row beat of one beat unit in one cycle (mon_beat_*_o[u], units.md 21.2). Lanes are filled
// only with valid.
struct BeatSample {
  bool valid = false, last = false;
  int row = 0;
  int32_t lanes[kMaxCols] = {};
};

// APB inputs of qacc_top for one cycle (spec 3).
struct ApbPins {
  bool psel = false;
  bool penable = false;
  bool pwrite = false;
  uint32_t paddr = 0;
  uint32_t pwdata = 0;
  uint8_t pstrb = 0;
};

// The outputs of one cycle, sampled after evaluating it with the clock low (spec 8). Lane arrays
// are filled only when their valid bit is 1 (no copy in idle cycles).
struct RtlSample {
  bool pready = false, pslverr = false;
  uint32_t prdata = 0;
  bool busy = false, done = false, irq = false;
  bool mac_in_valid = false, mac_in_last = false;
  BeatSample beats[arch::kNumBeatUnits];  // mon_beat_*_o, by arch::BeatUnit (units.md 21.2)
  bool out_we = false;
  uint32_t out_addr = 0;
  uint8_t out_be[4 * kMaxCols] = {};  // 0/1 per byte
  uint8_t out_wdata[4 * kMaxCols] = {};
  uint32_t cmd[kCommandPortWords] = {};  // mon_cmd_o, every cycle
  // Programs (data_movement.md 18).
  QueueSample queue;
  uint32_t queue_port[kQueuePortWords] = {};  // mon_q_o's words, of which `queue` is the decoding
  DmaSramSample dma;
  MoveSample move;
  OutAccessSample out_acc;
  model::AxiMasterOut axi;    // the memory port's master outputs (15.1)
  model::AxiSlaveOut axi_in;  // and its inputs: the testbench memory's outputs the RTL received
};

// One Verilated build of qacc_top.
struct DutVariant {
  std::string name;     // "default", "default_fst", ...
  std::string config;   // configs/<config>.json it was built from
  bool traced = false;  // Verilated with --trace-fst
  bool coverage = false;  // Verilated with --coverage (line and toggle points)
  int64_t mutants = 0;    // a mutant schemata of that many mutants (qacc validate), 0 for the design itself
  int rows = 0, cols = 0;
  uint32_t a_depth = 0, b_depth = 0, bias_depth = 0, rq_depth = 0, out_depth = 0;
  int lut_slots = 0;                        // lut.slots
  int data_bytes = 0, max_outstanding = 0;  // memory port (mem.*)
  // "default (8x8, A 8192, B 8192, bias 256, rq 256, out 8192, 4 LUT slots, D 16, 4 reads)"
  std::string Describe() const;
};

class Dut {
 public:
  virtual ~Dut() = default;
  virtual const DutVariant& variant() const = 0;

  virtual void SetReset(bool asserted) = 0;  // rst_ni = !asserted
  // rst_ni pulsed low and back high with clk_i held low: only the asynchronous reset clears the flops
  // (no clock edge loads them from their inputs meanwhile).
  virtual void PulseResetWithoutClock() = 0;
  virtual void SetApb(const ApbPins& pins) = 0;
  // Evaluates cycle `cycle` with clk_i low and the current inputs, fills `sample`, then applies the
  // rising edge that ends the cycle. With tracing on, dumps both half cycles (cycle n at n ns).
  // The memory port is bridged to ext_memory() in every cycle (sim/cosim/axi_bridge.h).
  virtual void Cycle(int64_t cycle, RtlSample& sample) = 0;
  // Makes the calling thread the one that runs Cycle from now on (Verilator's per-thread context:
  // the RTL's assertions report through it). The constructing thread is bound at first.
  virtual void BindThread() = 0;

  // The testbench's external memory on the RTL's memory port (docs/data_movement.md 15.2), and the
  // port's master outputs of the last cycle.
  virtual model::ExtMemory& ext_memory() = 0;
  virtual const model::AxiMasterOut& axi_master() const = 0;

  // Backdoor: the whole content of an SRAM (A, B, bias, rq, out, LUT table) as its window image,
  // resized by the caller to depth * word bytes (the rq SRAM holds each shift word as written; only
  // bits [5:0] are defined, spec 3.1). An SRAM stored in several copies (the LUT table's
  // ceil(C / 2) dual-port copies, lut.md 10.2) has SramCopies of them, each read by `copy`.
  virtual int SramCopies(arch::Region region) const = 0;
  virtual void ReadSram(arch::Region region, int copy, std::vector<uint8_t>& image) const = 0;

  // Traced variants only (throws std::logic_error otherwise): opens an FST file; the cycles between
  // SetTracing(true) and SetTracing(false) are dumped.
  virtual void OpenTrace(const std::string& path) = 0;
  virtual void SetTracing(bool on) = 0;
  virtual void CloseTrace() = 0;

  // Builds with coverage only (throws std::logic_error otherwise): writes the coverage points hit so far
  // (Verilator's coverage.dat format, merged by verilator_coverage).
  virtual void WriteCoverage(const std::string& path) const = 0;
};

// The testbench memory of a config (its ext_mem.* keys and mem.data_bytes).
struct ExtMemSettings {
  uint64_t size_bytes = uint64_t{16} << 20;
  model::ExtMemoryTiming timing;
};
ExtMemSettings ExtMemSettingsOf(const arch::ArchConfig& config);

// Every build linked into this binary.
const std::vector<DutVariant>& DutVariants();
// The build whose rows, cols and SRAM depths equal `config`'s (traced or not). Throws
// std::invalid_argument naming the config's values and the available builds.
const DutVariant& FindVariant(const arch::ArchConfig& config, bool traced);
// `mutant` selects a mutant of a mutant-schemata build (+qacc_mutant=N); 0 runs the design as written.
// `power_on_seed` seeds the power-on value of every RTL variable (--x-initial unique, spec 10): reset
// then clears the control flops, the datapath flops keep theirs; 0 powers on with zeros, and so do the
// coverage builds (toggle coverage). The SRAM arrays power on with zeros either way, like the model's.
// `ext` sizes and times the Dut's external memory (its data_bytes must be the build's).
std::unique_ptr<Dut> MakeDut(const DutVariant& variant, int64_t mutant = 0, uint64_t power_on_seed = 0,
                             const ExtMemSettings& ext = {});
// Throws std::invalid_argument unless `variant` can run mutant `mutant` (0 always can).
void CheckMutant(const DutVariant& variant, int64_t mutant);

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_DUT_H_
