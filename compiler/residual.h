// The residual add of a layer (docs/compiler.md "A residual", lut.md 10.5): which earlier layer it
// reads, its checks, golden's parameters of its add and of its table (what the reference computes
// and the compiler writes into the ELTWISE), and the fields of the descriptors it is lowered to.
#ifndef QACC_COMPILER_RESIDUAL_H_
#define QACC_COMPILER_RESIDUAL_H_

#include <cstddef>
#include <cstdint>

#include "compiler/network.h"
#include "golden/add.h"
#include "golden/lut.h"
#include "golden/lut_unit.h"
#include "golden/program.h"

namespace qacc::compiler {

// The index of the earlier layer whose output layer `layer`'s residual adds; -1 without a
// residual. Throws std::invalid_argument naming the layer and residual.from when that is not an
// earlier layer of the network.
int ResidualFrom(const Network& network, size_t layer);

// Whether a later layer's residual adds layer `layer`'s output.
bool IsResidualSource(const Network& network, size_t layer);

// Checks layer `layer`'s residual (ValidateNetwork, after the layer's own fields): `from` an
// earlier layer of the same M x N with int8 output codes, this layer's output int8 too, the scales
// positive, every zero point inside its codes' range (0 with seed-symmetric), the form able to
// hold the scales' ratios, and the table. Throws std::invalid_argument naming the layer and the
// field: "layer 'fc3': residual.from = 'fc9' is not a layer of the network".
void ValidateResidual(const Network& network, size_t layer);

// golden's parameters of the add (golden::MakeAddParams, 8-bit specs): a = this layer's codes
// (residual.scale, its zero point and signedness), b = `from`'s output codes (from_scale, its own),
// y = the sum's (out_scale, out_zp, out_unsigned); with seed-symmetric, its rounding and overflow.
// The sum's code is clamp(golden::Add(q, q_from, params), y.qmin(), y.qmax()). Throws as
// golden::MakeAddParams (std::invalid_argument) for a layer ValidateResidual refuses.
golden::AddParams ResidualAddParams(const Network& network, size_t layer);

// The table after the add (residual.activation), read by the sum's 8-bit codes. Throws
// std::invalid_argument naming the field.
golden::Lut ResidualActivationTable(const GemmLayer& layer);

// ---- Lowering (docs/data_movement.md 16.4)

// A block of output tiles as one GEMM leaves them in the out SRAM (int8 layout): row panels
// mb0 .. mb0 + ma - 1 by tile columns nb0 .. nb0 + nbc - 1, tile (p, t) in the R / 4 words from
// out_word + (p * nbc + t) * R / 4.
struct TileBlock {
  int mb0 = 0, ma = 1, nb0 = 0, nbc = 1;
  uint32_t out_word = 0;
};

// The LOAD or STORE fields that copy a block's tiles between the out SRAM and a tensor of tiles
// (TensorPlacement::Layout::kTiles: tile (mb, nb) of a layer of `nb_count` tile columns is the
// R * C bytes at base + (mb * nb_count + nb) * R * C). Units are whole out words (OUT_INT32's unit
// of 4C bytes), copied as they lie: each int8 row of a tile is C bytes, so a tile is row-major.
golden::DmaFields ResidualTileCopy(int rows, int cols, int nb_count, const TileBlock& block,
                                   uint32_t base);

// The ELTWISE of a block of `words` out words: ADD (ADD_LUT through `lut_slot` with `lookup`) of
// the block at `out_word` and the earlier layer's tiles at `from_word`, in place at `out_word`.
golden::EltwiseFields ResidualEltwise(const golden::AddParams& params, bool lookup,
                                      uint32_t lut_slot, uint32_t out_word, uint32_t from_word,
                                      uint32_t words);

}  // namespace qacc::compiler

#endif  // QACC_COMPILER_RESIDUAL_H_
