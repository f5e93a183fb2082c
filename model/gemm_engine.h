// The datapath of one command, a tile at a time (docs/architecture.md 5, 6): the MAC array
// (MacArrayModel: operand panels of tile t from the SRAMs -> R x C accumulators) followed by the
// requant unit (RequantUnitModel: each accumulator row + the tile's bias/rq words -> one output
// row). No timing here: beats.h turns a TileResult into timed beats; the SystemC unit modules
// (mac_array_tlm.h, requant_tlm.h) drive the same two unit models beat by beat.
#ifndef QACC_MODEL_GEMM_ENGINE_H_
#define QACC_MODEL_GEMM_ENGINE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "model/arch.h"
#include "model/command.h"
#include "model/lut_unit_model.h"
#include "model/mac_array_model.h"
#include "model/requant_unit_model.h"
#include "model/slope_unit_model.h"
#include "model/srams.h"

namespace qacc::model {

// Everything the MAC array, the requant unit and the LUT unit produce for one tile.
struct TileResult {
  int64_t tile = 0;  // t = mb * NB + nb
  int64_t mb = 0, nb = 0;
  int m_valid = 0, n_valid = 0;  // 6.2
  // R x C row-major. Row i is MAC array output beat i: the accumulators without bias (5.1); padded
  // rows and lanes are exactly 0.
  std::vector<int32_t> acc;
  // R x C row-major. Row i is requant output beat i (5.2): x = acc + bias with OUT_RAW, else y.
  // Padded rows and lanes are computed like the RTL does, from acc = 0 and whatever the bias/rq
  // SRAM words hold there.
  std::vector<int32_t> out;
  // Bit c set when lane c of `out` is predicted. Clear only with PER_CHANNEL, the TFLite form and
  // an rq shift outside -31..30 in lane c (the 8-bit field allows them; section 5.2 defines no
  // result): the value then stored is 0.
  uint64_t known_lanes = 0;
  // R x C row-major, with ACT = LUT only (empty otherwise). Row i is LUT output beat i (lut.md
  // 10.4): the entries the codes of `out` address, zero-extended; lanes outside known_lanes 0.
  std::vector<int32_t> lut;
  // R x C row-major, with ACT = SLOPE only (empty otherwise): slope output beat i (requant.md 6.2).
  std::vector<int32_t> slope;
  // The known lanes of `lut` or `slope`: known_lanes, less the lanes whose slope word holds no
  // legal NEG side (SLOPE_PER_CHANNEL, requant.md 6.3: not checked at fetch).
  uint64_t stage_known_lanes = 0;

  // The lanes the out writer takes: `lut` with ACT = LUT, `slope` with ACT = SLOPE, `out`
  // otherwise.
  const std::vector<int32_t>& written() const {
    return !lut.empty() ? lut : !slope.empty() ? slope : out;
  }
  uint64_t written_known_lanes() const {
    return lut.empty() && slope.empty() ? known_lanes : stage_known_lanes;
  }
};

// Holds references: `srams` must outlive the engine and its A, B, bias and rq contents, and the
// slot of a LUT command, must not change while tiles are computed (the hardware guarantees it:
// every SRAM window access is refused while BUSY; a LOAD into the slot is a race, lut.md 10.1).
class GemmEngine {
 public:
  GemmEngine(const arch::ArchConfig& config, const DecodedCommand& command, const Srams& srams);

  const DecodedCommand& command() const { return command_; }
  const arch::Timing& timing() const { return command_.timing; }
  int64_t num_tiles() const { return command_.timing.T(); }
  int rows() const { return rows_; }
  int cols() const { return cols_; }

  TileResult ComputeTile(int64_t t) const;

  // Every tile in order t = 0..T-1, each equal to ComputeTile(t), computed a row block (NB tiles)
  // at a time from one read of the B panels: the fast path of model-only mode. `visit` gets each
  // tile; the reference is valid only during the call.
  void ForEachTile(const std::function<void(const TileResult&)>& visit) const;

  // The units this engine composes, for a caller that steps them beat by beat; lut_unit() is null
  // without ACT = LUT.
  const MacArrayModel& mac_array() const { return mac_array_; }
  const RequantUnitModel& requant_unit() const { return requant_unit_; }
  const LutUnitModel* lut_unit() const { return lut_unit_ ? &*lut_unit_ : nullptr; }
  const SlopeUnitModel* slope_unit() const { return slope_unit_ ? &*slope_unit_ : nullptr; }

 private:
  // The requant unit on every row of tile.acc -> tile.out and tile.known_lanes.
  void Requantize(const RequantLaneInputs& inputs, TileResult& tile) const;
  // The LUT unit on every row of tile.out -> tile.lut (ACT = LUT only).
  void LookUp(TileResult& tile) const;
  // The slope stage on every row of tile.out -> tile.slope (ACT = SLOPE only).
  void Slope(TileResult& tile) const;
  // A stage after requant (null: the command does not use it) on every row of tile.out -> lanes.
  void RunStage(const BeatStageModel* unit, TileResult& tile, std::vector<int32_t>& lanes) const;

  int rows_;
  int cols_;
  DecodedCommand command_;
  MacArrayModel mac_array_;
  RequantUnitModel requant_unit_;
  std::optional<LutUnitModel> lut_unit_;
  std::optional<SlopeUnitModel> slope_unit_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_GEMM_ENGINE_H_
