#include "compiler/residual.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "model/arch.h"

namespace qacc::compiler {

namespace {

[[noreturn]] void Fail(const GemmLayer& l, const std::string& what) {
  throw std::invalid_argument(fmt::format("layer '{}': {}", l.name, what));
}

// An 8-bit code of the add (golden::MakeAddParams checks the zero point against the range).
golden::QuantSpec Codes(bool is_unsigned, double scale, int32_t zero_point) {
  golden::QuantSpec spec;
  spec.bits = 8;
  spec.is_signed = !is_unsigned;
  spec.scale = scale;
  spec.zero_point = zero_point;
  return spec;
}

std::string CodeRange(bool is_unsigned) {
  return is_unsigned ? "uint8 codes' 0..255" : "int8 codes' -128..127";
}

bool InRange(int32_t v, bool is_unsigned) {
  return is_unsigned ? v >= 0 && v <= 255 : v >= -128 && v <= 127;
}

}  // namespace

int ResidualFrom(const Network& network, size_t layer) {
  const GemmLayer& l = network.layers.at(layer);
  if (!l.has_residual()) return -1;
  for (size_t j = 0; j < network.layers.size(); ++j) {
    if (network.layers[j].name != l.residual.from) continue;
    if (j < layer) return int(j);
    Fail(l, fmt::format("residual.from = '{}' is {}: a residual adds an earlier layer's output",
                        l.residual.from, j == layer ? "this layer" : "a later layer"));
  }
  Fail(l, fmt::format("residual.from = '{}' is not a layer of the network", l.residual.from));
}

bool IsResidualSource(const Network& network, size_t layer) {
  for (size_t j = layer + 1; j < network.layers.size(); ++j) {
    if (network.layers[j].residual.from == network.layers[layer].name) return true;
  }
  return false;
}

void ValidateResidual(const Network& network, size_t layer) {
  const GemmLayer& l = network.layers.at(layer);
  const Residual& r = l.residual;
  const GemmLayer& from = network.layers[size_t(ResidualFrom(network, layer))];
  if (from.m != l.m || from.n != l.n) {
    Fail(l, fmt::format("residual.from = '{}': its output is {} x {}, this layer's {} x {} (the "
                        "add is elementwise)",
                        r.from, from.m, from.n, l.m, l.n));
  }
  if (from.out_layout() != arch::OutLayout::kInt8) {
    Fail(l, fmt::format("residual.from = '{}': its output is not int8 codes", r.from));
  }
  if (l.out_int32) Fail(l, "residual: not with out_int32 (the add takes int8 codes)");
  if (l.out_layout() != arch::OutLayout::kInt8) {
    Fail(l, "residual: not with activation.out_bits = 16 (the add takes int8 codes)");
  }
  for (const auto& [field, value] :
       {std::pair{"scale", r.scale}, std::pair{"from_scale", r.from_scale},
        std::pair{"out_scale", r.out_scale}}) {
    if (!(value > 0) || !std::isfinite(value)) {
      Fail(l, fmt::format("residual.{} = {} must be positive and finite", field, value));
    }
  }
  if (!InRange(r.out_zp, r.out_unsigned)) {
    Fail(l, fmt::format("residual.out_zp = {} is outside the sum's {}", r.out_zp,
                        CodeRange(r.out_unsigned)));
  }
  // The operands' zero points are the layers' own; the add reads them in their codes' range.
  if (!InRange(l.code_zero_point(), l.code_unsigned())) {
    Fail(l, fmt::format("residual: this layer's output zero point {} = {} is outside its {}",
                        l.has_activation() ? "activation.out_zp" : "zp_out", l.code_zero_point(),
                        CodeRange(l.code_unsigned())));
  }
  if (!InRange(from.out_zero_point(), from.out_unsigned())) {
    Fail(l, fmt::format("residual.from = '{}': its output zero point {} is outside its {}", r.from,
                        from.out_zero_point(), CodeRange(from.out_unsigned())));
  }
  if (r.form == golden::AddForm::kSeedSymmetric) {
    const std::string form = fmt::format("residual.form = {}", golden::AddFormName(r.form));
    if (l.code_zero_point() != 0) {
      Fail(l,
           fmt::format("{} needs zero points 0: this layer's output zero point ({}) is {}", form,
                       l.has_activation() ? "activation.out_zp" : "zp_out", l.code_zero_point()));
    }
    if (from.out_zero_point() != 0) {
      Fail(l, fmt::format("{} needs zero points 0: the output zero point of '{}' is {}", form,
                          r.from, from.out_zero_point()));
    }
    if (r.out_zp != 0) Fail(l, fmt::format("{} needs residual.out_zp = 0, not {}", form, r.out_zp));
  }
  try {
    ResidualAddParams(network, layer);
  } catch (const std::invalid_argument& e) {
    Fail(l, fmt::format("residual: {} (a: this layer's codes, residual.scale; b: those of '{}', "
                        "residual.from_scale; y: the sum's, residual.out_scale)",
                        e.what(), r.from));
  }
  if (r.has_activation()) {
    if (r.activation.out_bits != 8) {
      Fail(l, fmt::format("residual.activation.out_bits = {} is not 8: the table's codes replace "
                          "the sum in place (int8)",
                          r.activation.out_bits));
    }
    ResidualActivationTable(l);  // throws for illegal fields
  }
}

golden::AddParams ResidualAddParams(const Network& network, size_t layer) {
  const GemmLayer& l = network.layers.at(layer);
  const int j = ResidualFrom(network, layer);
  if (j < 0) Fail(l, "has no residual");
  const GemmLayer& from = network.layers[size_t(j)];
  const Residual& r = l.residual;
  golden::AddParams p =
      golden::MakeAddParams(Codes(l.code_unsigned(), r.scale, l.code_zero_point()),
                            Codes(from.out_unsigned(), r.from_scale, from.out_zero_point()),
                            Codes(r.out_unsigned, r.out_scale, r.out_zp), r.form);
  p.seed.rounding = r.rounding;
  p.seed.overflow = r.overflow;
  return p;
}

golden::Lut ResidualActivationTable(const GemmLayer& l) {
  const Residual& r = l.residual;
  if (!l.has_residual() || !r.has_activation()) Fail(l, "has no residual activation");
  return ActivationTable(l, r.activation, "residual.activation",
                         Codes(r.out_unsigned, r.out_scale, r.out_zp));
}

golden::DmaFields ResidualTileCopy(int rows, int cols, int nb_count, const TileBlock& b,
                                   uint32_t base) {
  const uint32_t tile_words = uint32_t(arch::OutWords(1, rows, arch::OutLayout::kInt8));
  const uint32_t tile_bytes = uint32_t(rows * cols);
  const uint32_t row_words = uint32_t(b.nbc) * tile_words;
  // A row panel's tiles are contiguous on both sides: one DMA row each, unless that is more units
  // than COUNT0 holds (then one row per tile).
  const bool whole_rows = row_words <= arch::kMaxDim;
  golden::DmaFields f;
  f.sram = uint32_t(golden::Sram::kOut);
  f.out_int32 = true;  // units of whole out words
  f.count0 = whole_rows ? row_words : tile_words;
  f.count1 = whole_rows ? 1 : uint32_t(b.nbc);
  f.sram_stride1 = tile_words;
  f.ext_stride1 = tile_bytes;
  f.count2 = uint32_t(b.ma);
  f.sram_stride2 = row_words;
  f.ext_stride2 = uint32_t(nb_count) * tile_bytes;
  f.sram_base = b.out_word;
  f.ext_addr = base + (uint32_t(b.mb0) * uint32_t(nb_count) + uint32_t(b.nb0)) * tile_bytes;
  return f;
}

golden::EltwiseFields ResidualEltwise(const golden::AddParams& params, bool lookup,
                                      uint32_t lut_slot, uint32_t out_word, uint32_t from_word,
                                      uint32_t words) {
  golden::EltwiseFields f = golden::EltwiseAddFields(
      params, lookup ? golden::EltwiseOp::kAddLut : golden::EltwiseOp::kAdd);
  f.count = words;
  f.src_a = out_word;
  f.src_b = from_word;
  f.dst = out_word;  // in place (10.5): the block is then stored or moved on as without a residual
  if (lookup) {
    f.lut.slot = lut_slot;
    f.lut.in_bits =
        uint32_t(arch::kLutMaxInBits);  // the sum's 8-bit code, as ResidualActivationTable
    f.lut.entry_bits = 8;
  }
  return f;
}

}  // namespace qacc::compiler
