// The MAC array's accumulators (docs/architecture.md 5.1) read straight from a command's operand
// panels in the A and B SRAMs (6.1), for one tile or a whole row block of tiles at once. Each
// operand byte becomes its int16 factor once (a' - a_zp or b' - b_zp; padded lanes, which the
// feeder forces to factor 0, become 0), and GemmInt16Wrapping forms the 32-bit wrapping sums.
// MacArrayModel uses it one tile at a time (the beats of the lockstep path), GemmEngine one row
// block at a time over every column block (model-only), so both compute with the same code.
#ifndef QACC_MODEL_PANEL_GEMM_H_
#define QACC_MODEL_PANEL_GEMM_H_

#include <array>
#include <cstdint>
#include <vector>

#include "model/command.h"
#include "model/srams.h"

namespace qacc::model {

// The factor of each of the 256 operand codes: the byte read as int8 or uint8, minus the zero
// point.
using FactorTable = std::array<int16_t, 256>;
FactorTable MakeFactorTable(bool is_unsigned, int32_t zero_point);

// Reads the SRAMs only in its constructor (B) and in ComputeRowBlock (A); their A and B contents
// must not change in between (every SRAM window access is refused while BUSY).
class PanelGemm {
 public:
  // Reads the B factors of column blocks nb_first .. nb_first + nb_count - 1 (all within 0..NB-1).
  PanelGemm(const DecodedCommand& command, const Srams& srams, int rows, int cols, int64_t nb_first,
            int64_t nb_count);

  // Accumulator columns: nb_count * C.
  int num_cols() const { return num_cols_; }

  // The accumulators of row block mb (rows mb*R .. mb*R + R-1) against the column blocks of the
  // constructor into `acc`, resized to R x num_cols() row-major: acc[i * num_cols() + j] is output
  // element (mb*R + i, nb_first*C + j), i.e. row i, lane j mod C of tile (mb, nb_first + j / C).
  // Padded rows and lanes are exactly 0.
  void ComputeRowBlock(int64_t mb, std::vector<int32_t>& acc) const;

 private:
  const Srams& srams_;
  arch::Timing timing_;
  uint32_t a_base_;
  int rows_;
  int cols_;
  int num_cols_;
  int depth_;  // K
  FactorTable a_factor_;
  // B transposed: the K factors of accumulator column j at [j * K, (j + 1) * K).
  std::vector<int16_t> b_factors_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_PANEL_GEMM_H_
