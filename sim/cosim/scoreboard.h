// The lockstep scoreboard: every cycle it compares what the RTL monitors saw (RtlSample) with the
// beats the model predicts for exactly that cycle (a BeatSource: in co-simulation the SystemC unit
// modules simulating the command). Rules (docs/cosim.md):
//   * a beat the model predicts for cycle c must be on the RTL monitor in cycle c: one cycle early
//     or late is a mismatch (reported as "missing" at the predicted cycle and "unexpected" at the
//     RTL's);
//   * MAC input beats: valid and last;
//   * MAC beats: row, last and all C lanes; requant beats: row, last and the lanes in known_lanes;
//     output writes: word address, every byte enable, and data bytes with known[j] = 1 (enabled
//     bytes of known lanes);
//   * DONE must rise in the predicted done cycle.
// Mismatches are counted per unit; the first one overall and the first per unit are kept in full.
#ifndef QACC_SIM_COSIM_SCOREBOARD_H_
#define QACC_SIM_COSIM_SCOREBOARD_H_

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "golden/gemm.h"
#include "model/accel_state.h"
#include "model/arch.h"
#include "model/beat_source.h"
#include "model/gemm_job.h"
#include "model/program_engine.h"
#include "sim/cosim/dut.h"

namespace qacc::cosim {

// What the co-simulation compares, one row per unit of comparison: a new unit adds a row here (and its
// check), nothing else. Counts, first mismatches, the text report and the JSON follow this table.
enum class CheckUnit : uint8_t {
  kMacIn,     // MAC array input beats: valid and last in their cycle I(t, k) (spec 7)
  kMac,       // MAC array output beats (spec 8), every lane
  kRequant,   // requant output beats, every lane
  kLut,       // LUT unit output beats (lut.md 10.4), every lane
  kSlope,     // slope stage output beats (requant.md 6.2), every lane
  kOutWrite,  // output SRAM writes: address, byte enables, data
  kDone,      // DONE rises in the predicted cycle
  kStatus,    // BUSY and irq_o, every cycle
  kCommand,   // the CMD_* registers as the controller sees them (mon_cmd_o), every cycle
  kBus,       // every bus response: completion cycle (wait states), pslverr, read data
  kMemPort,   // the memory port's master outputs (data_movement.md 15.1), every cycle
  kQueue,     // mon_q_o: token counters, queue occupancies, Q_RETIRED, start/retire pulses
  kDmaSram,   // mon_dma_*: the DMA's SRAM access of each cycle
  kMove,      // mon_move_*: MOVE's out read and destination write of each cycle
  kEltwise,   // mon_out_acc_*: ELTWISE's out reads and writes of each cycle (lut.md 10.5)
  kSram,      // every SRAM of RTL and model, whole, after each command
  kOutput,    // the result read back vs golden (RTL and model)
  kExtMem,    // the external memory image of RTL and model, whole, after each program
  kProgram,   // a program's end (error, Q_ERR_INDEX, Q_RETIRED, memories) vs the golden executor
  kCount
};
inline constexpr int kNumCheckUnits = static_cast<int>(CheckUnit::kCount);
struct CheckUnitInfo {
  CheckUnit unit;
  const char* name;
};
inline constexpr CheckUnitInfo kCheckUnits[kNumCheckUnits] = {
    {CheckUnit::kMacIn, "mac_in"},     {CheckUnit::kMac, "mac"},
    {CheckUnit::kRequant, "requant"},  {CheckUnit::kLut, "lut"},
    {CheckUnit::kSlope, "slope"},      {CheckUnit::kOutWrite, "out_write"},
    {CheckUnit::kDone, "done"},        {CheckUnit::kStatus, "status"},
    {CheckUnit::kCommand, "command"},  {CheckUnit::kBus, "bus"},
    {CheckUnit::kMemPort, "mem_port"}, {CheckUnit::kQueue, "queue"},
    {CheckUnit::kDmaSram, "dma_sram"}, {CheckUnit::kMove, "move"},
    {CheckUnit::kEltwise, "eltwise"},  {CheckUnit::kSram, "sram"},
    {CheckUnit::kOutput, "output"},    {CheckUnit::kExtMem, "ext_mem"},
    {CheckUnit::kProgram, "program"},
};
// The check of each beat unit's row beats (arch::kBeatUnits).
inline CheckUnit BeatCheckUnit(arch::BeatUnit unit) {
  switch (unit) {
    case arch::BeatUnit::kMac:
      return CheckUnit::kMac;
    case arch::BeatUnit::kRequant:
      return CheckUnit::kRequant;
    case arch::BeatUnit::kLut:
      return CheckUnit::kLut;
    case arch::BeatUnit::kSlope:
      return CheckUnit::kSlope;
  }
  return CheckUnit::kCount;
}
inline const char* CheckUnitName(CheckUnit unit) {
  return kCheckUnits[static_cast<int>(unit)].name;
}

struct Mismatch {
  int64_t cycle = 0;
  std::string unit;  // CheckUnitName, or "model-output" for the model's output buffer vs golden
  int lane = -1;     // lane c (column inside the tile); -1: the beat as a whole (timing, row, addr)
  int64_t tile = -1;  // t = mb * NB + nb
  int tile_row = -1;  // i, the row inside the tile
  int row = -1;       // output matrix row m = mb * R + i
  int col = -1;       // output matrix column n = nb * C + c (-1 without a lane)
  std::string expected;
  std::string actual;
  std::string what;  // e.g. "value", "missing beat", "unexpected beat", "row"
  int command = -1;  // the program's command in flight or last launched (-1: before the first)
};

class Scoreboard {
 public:
  explicit Scoreboard(const arch::ArchConfig& config);

  // The command now in flight: the beats of its START and its index in the program.
  void SetCommand(model::BeatSource* source, int command);
  // A program (CTRL.RUN) launched as command `command`: its GEMMs' beats are checked as they come
  // (SetProgramGemm at each start), DONE only at the program's end (ExpectDone).
  void StartProgram(int command);
  void SetProgramGemm(model::BeatSource* source);
  void ExpectDone(int64_t cycle);
  // The program observables of `cycle` (data_movement.md 18): the memory port's master outputs,
  // mon_q_o, mon_dma_*, mon_move_*, against the model's.
  void CheckProgramCycle(int64_t cycle, const RtlSample& sample, const model::ProgramCycle& model);
  // Checks the beats and DONE of cycle `cycle`.
  void Check(int64_t cycle, const RtlSample& sample);
  // Checks BUSY and irq_o in cycle `cycle` against the model's.
  void CheckStatus(int64_t cycle, const RtlSample& sample, bool busy, bool irq);
  // Checks the RTL's mon_cmd_o in cycle `cycle` against the model's CMD_* registers.
  void CheckCommand(int64_t cycle, const RtlSample& sample, const arch::Command& model);
  // One bus transfer, `access` naming it ("read of STATUS"): the RTL's completion cycle, pslverr
  // and (reads) data against the model's response.
  void CheckBusResponse(const std::string& access, bool is_read, int64_t complete, bool slverr,
                        uint32_t rdata, int64_t expected_complete, model::BusStatus expected_status,
                        uint32_t expected_rdata);
  // Records a mismatch (its command defaults to the one in flight).
  void Record(CheckUnit unit, Mismatch mismatch);

  int64_t count(CheckUnit unit) const { return counts_[static_cast<int>(unit)]; }
  int64_t total() const;
  const std::optional<Mismatch>& first() const { return first_; }
  const std::optional<Mismatch>& first_of(CheckUnit unit) const {
    return first_of_[static_cast<int>(unit)];
  }
  // Beats (or DONE) the RTL delivered / the model predicted so far, per unit, and the cycle of the
  // RTL's last beat (-1: none). For the watchdog.
  int64_t seen(CheckUnit unit) const { return seen_[static_cast<int>(unit)]; }
  int64_t predicted(CheckUnit unit) const { return predicted_[static_cast<int>(unit)]; }
  int64_t last_seen_cycle(CheckUnit unit) const { return last_seen_[static_cast<int>(unit)]; }

  // For a watchdog's message: "; unit U stopped: ..." for the first beat stream, in pipeline order,
  // whose RTL beats fell short of the model's; empty when none did.
  std::string StoppedStream() const;

  // Fills tile / tile_row / row / col of `m` from a tile and row (and m.lane).
  void Locate(Mismatch& m, int64_t tile, int tile_row) const;

 private:
  // A row beat of a beat unit (units.md 21.2): row i of a tile, C int32 lanes.
  struct RowBeat {
    bool valid = false;
    int64_t tile = 0;
    int row = 0;
    bool last = false;
    const int32_t* lanes = nullptr;
    uint64_t known_lanes = ~uint64_t{0};  // lanes the model predicts (see model::RowBeat)
  };
  void CheckMacIn(int64_t cycle, const RtlSample& s);
  void CheckBeat(arch::BeatUnit unit, int64_t cycle, const RtlSample& s);
  // Compares the RTL's row beat of `unit` in `cycle` with the predicted one (valid only when one is due in
  // this very cycle).
  void CheckRowBeat(arch::BeatUnit unit, int64_t cycle, const RowBeat& actual, const RowBeat& expected);
  void CheckOutWrite(int64_t cycle, const RtlSample& s);
  void CheckDone(int64_t cycle, const RtlSample& s);
  void CheckMemPort(int64_t cycle, const model::AxiMasterOut& rtl,
                    const model::AxiMasterOut& model);
  void CheckQueue(int64_t cycle, const QueueSample& rtl, const model::ProgramCycle& model);
  void CheckDmaSram(int64_t cycle, const DmaSramSample& rtl, const model::DmaSramAccess& model);
  void CheckMove(int64_t cycle, const MoveSample& rtl, const model::MoveRead& read,
                 const model::MoveWrite& write);
  void CheckOutAccess(int64_t cycle, const OutAccessSample& rtl, const model::OutAccess& expected);
  // Records a mismatch of `unit` in `cycle` (built only when there is one: the checks run every
  // cycle).
  void Report(CheckUnit unit, int64_t cycle, std::string what, std::string expected,
              std::string actual);
  // The tile of an RTL beat at `cycle` with row `row`, whose row 0 of tile 0 comes at `first`.
  int64_t TileOf(int64_t cycle, int row, int64_t first) const;

  arch::ArchConfig config_;
  arch::Timing timing_;
  bool out_raw_ = false;
  uint32_t out_base_ = 0;
  bool has_command_ = false;  // a legal command (timing_ and the layout are its)
  int command_ = -1;
  model::BeatSource* source_ = nullptr;
  std::array<int64_t, kNumCheckUnits> counts_{};
  std::array<int64_t, kNumCheckUnits> seen_{};
  std::array<int64_t, kNumCheckUnits> predicted_{};
  std::array<int64_t, kNumCheckUnits> last_seen_ = [] {
    std::array<int64_t, kNumCheckUnits> a{};
    a.fill(-1);
    return a;
  }();
  std::optional<Mismatch> first_;
  std::array<std::optional<Mismatch>, kNumCheckUnits> first_of_;
  bool prev_done_ = false;
  // CheckCommand's last cycle: mon_cmd_o's words, the model's registers, and whether they matched.
  uint32_t cmd_words_[kCommandPortWords] = {};
  arch::Command cmd_model_;
  bool cmd_matched_ = false;
  bool program_ = false;  // a program runs: DONE at program_done_ only
  int64_t program_done_ = std::numeric_limits<int64_t>::max();
};

// Defined bits of byte `j` of an SRAM image (or word): all but the rq shift words, whose 6-bit
// field is all the datapath and the host read-back use (spec 3.1). What whole-SRAM comparisons
// mask.
inline uint8_t SramDefinedBits(arch::Region region, size_t j) {
  if (region != arch::Region::kRq) return 0xFF;
  const size_t in_lane = j % arch::kRqLaneBytes;
  if (in_lane < arch::kRqShiftOffset) return 0xFF;
  return in_lane == arch::kRqShiftOffset ? uint8_t((1u << arch::kShiftBits) - 1) : uint8_t{0};
}

// The fields of mon_cmd_o (cmd_t of qacc_pkg, spec 8) as CMD_* register values (fields masked to
// their width, as the model stores them).
arch::Command DecodeCommandPort(const uint32_t (&words)[kCommandPortWords]);

// The M x N result of `job` in an output-window image (`image`, as read back over the bus) vs
// `golden`, element by element, recorded under check unit `unit` (or the name `unit_name`); the
// cycle of each mismatch is `cycle_of(window byte)` (the read that returned it).
void CompareOutputs(const arch::ArchConfig& config, const model::GemmJob& job,
                    const golden::Matrix<int32_t>& golden, const std::vector<uint8_t>& image,
                    const char* unit_name, const std::function<int64_t(int64_t)>& cycle_of,
                    int command, Scoreboard& scoreboard);

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_SCOREBOARD_H_
