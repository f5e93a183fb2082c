// The lockstep scoreboard: every cycle it compares what the RTL monitors saw (RtlSample) with the
// beats the model predicts for exactly that cycle (BeatPredictor). Rules (docs/cosim.md):
//   * a beat the model predicts for cycle c must be on the RTL monitor in cycle c: one cycle early
//     or late is a mismatch (reported as "missing" at the predicted cycle and "unexpected" at the
//     RTL's);
//   * MAC beats: row, last and all C lanes; requant beats: row, last and the lanes in known_lanes;
//     output writes: word address, every byte enable, and data bytes with known[j] = 1 (enabled
//     bytes of known lanes);
//   * DONE must rise in the predicted done cycle.
// Mismatches are counted per unit; the first one overall and the first per unit are kept in full.
#ifndef QACC_SIM_COSIM_SCOREBOARD_H_
#define QACC_SIM_COSIM_SCOREBOARD_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "model/arch.h"
#include "model/beat_predictor.h"
#include "sim/cosim/dut.h"

namespace qacc::cosim {

enum class CheckUnit : uint8_t { kMac, kRequant, kOutWrite, kDone, kOutput, kCount };
inline constexpr int kNumCheckUnits = static_cast<int>(CheckUnit::kCount);
const char* CheckUnitName(CheckUnit unit);  // "mac", "requant", "out_write", "done", "output"

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
};

class Scoreboard {
 public:
  Scoreboard(const arch::ArchConfig& config, int m, int n, int k, bool out_raw, uint32_t out_base);

  // The command now in flight (the predictor of its START); nullptr before the first START.
  void SetCommand(model::BeatPredictor* predictor) { predictor_ = predictor; }
  // Checks cycle `cycle`.
  void Check(int64_t cycle, const RtlSample& sample);
  void Record(CheckUnit unit, const Mismatch& mismatch);

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
  std::optional<int64_t> rtl_done_cycle() const { return rtl_done_cycle_; }

  // Fills tile / tile_row / row / col of `m` from a tile and row (and m.lane).
  void Locate(Mismatch& m, int64_t tile, int tile_row) const;

 private:
  // A row beat of the MAC array or the requant unit: row i of a tile, C int32 lanes.
  struct RowBeat {
    bool valid = false;
    int64_t tile = 0;
    int row = 0;
    bool last = false;
    const int32_t* lanes = nullptr;
    uint64_t known_lanes = ~uint64_t{0};  // lanes the model predicts (requant: see RequantBeat)
  };
  void CheckMac(int64_t cycle, const RtlSample& s);
  void CheckRequant(int64_t cycle, const RtlSample& s);
  // Compares the RTL's row beat of `unit` in `cycle` with the predicted one (valid only when one is due in
  // this very cycle); `first` is the unit's beat cycle for tile 0, row 0 (to name the tile of an unexpected
  // beat).
  void CheckRowBeat(CheckUnit unit, int64_t cycle, int64_t first, const RowBeat& actual,
                    const RowBeat& expected);
  void CheckOutWrite(int64_t cycle, const RtlSample& s);
  void CheckDone(int64_t cycle, const RtlSample& s);
  // The tile of an RTL beat at `cycle` with row `row`, whose row 0 of tile 0 comes at `first`.
  int64_t TileOf(int64_t cycle, int row, int64_t first) const;

  arch::ArchConfig config_;
  arch::Timing timing_;
  bool out_raw_;
  uint32_t out_base_;
  model::BeatPredictor* predictor_ = nullptr;
  std::array<int64_t, kNumCheckUnits> counts_{};
  std::array<int64_t, kNumCheckUnits> seen_{};
  std::array<int64_t, kNumCheckUnits> predicted_{};
  std::array<int64_t, kNumCheckUnits> last_seen_{-1, -1, -1, -1, -1};
  std::optional<Mismatch> first_;
  std::array<std::optional<Mismatch>, kNumCheckUnits> first_of_;
  bool prev_done_ = false;
  std::optional<int64_t> rtl_done_cycle_;
};

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_SCOREBOARD_H_
