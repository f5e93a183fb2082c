// The MAC array (unit 1, docs/architecture.md 2.1, 5.1) as plain C++: tile t's operand panels from
// the A and B SRAMs -> the R x C accumulators it drains as output beats 0..R-1. The arithmetic is
// golden::Gemm without bias (the requant lane adds the bias), computed by PanelGemm, the kernel the
// model-only path also uses (tests/model/panel_gemm_test.cc checks it against golden::Gemm). No
// timing: the SystemC shell (mac_array_tlm.h) emits row i at O(t,i).
#ifndef QACC_MODEL_MAC_ARRAY_MODEL_H_
#define QACC_MODEL_MAC_ARRAY_MODEL_H_

#include <cstdint>
#include <vector>

#include "model/command.h"
#include "model/panel_gemm.h"
#include "model/srams.h"

namespace qacc::model {

// Holds a copy of the command and a reference to the SRAMs: `srams` must outlive the model and its
// A and B contents must not change while tiles are computed (every SRAM window access is refused
// while BUSY).
class MacArrayModel {
 public:
  MacArrayModel(const arch::ArchConfig& config, const DecodedCommand& command, const Srams& srams);

  int rows() const { return rows_; }
  int cols() const { return cols_; }

  // The accumulators of tile t (t = mb * NB + nb, 0 <= t < T) into `acc`, resized to R x C
  // row-major: row i is output beat i (out_acc[C]). acc = sum_k (a' - a_zp) * (b' - b_zp) mod 2^32
  // over the m_valid x n_valid valid elements; padded rows and lanes enter as factor 0 and are
  // exactly 0.
  void ComputeTile(int64_t t, std::vector<int32_t>& acc) const;
  std::vector<int32_t> ComputeTile(int64_t t) const;

  // For a whole command at once (model-only): the B factors of every column block, read once;
  // ComputeRowBlock(mb) of the result gives the accumulators of tiles mb*NB .. mb*NB + NB-1.
  PanelGemm AllColumnBlocks() const;

 private:
  int rows_;
  int cols_;
  DecodedCommand command_;
  const Srams& srams_;
};

}  // namespace qacc::model

#endif  // QACC_MODEL_MAC_ARRAY_MODEL_H_
