// What the compiler lowers (docs/data_movement.md 16): a chain of GEMM / fully connected layers,
// each with an optional activation fused after its requant (lut.md 10.4) and an optional residual
// add of an earlier layer's output (ELTWISE, lut.md 10.5). Layer i + 1 takes layer i's int8 output
// as its A operand (its M is layer i's M, its K layer i's N). Shapes and quantization parameters
// only; the tensors' values live in LayerData.
#ifndef QACC_COMPILER_NETWORK_H_
#define QACC_COMPILER_NETWORK_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "golden/activation.h"
#include "golden/add.h"
#include "golden/elementwise.h"
#include "golden/lut.h"
#include "golden/quant.h"
#include "golden/requant.h"
#include "golden/slope_stage.h"
#include "golden/tpu_mlir.h"
#include "model/arch.h"

namespace qacc::compiler {

// Largest M and N of a layer: the compiler splits them over commands; bounded by the 32-bit
// external addresses of the tensors. K is one command's CMD_K field (arch::kMaxDim).
inline constexpr int kMaxRowsOrCols = 1 << 20;

// An activation of the LUT unit after requant (lut.md 10.4): a table from the requant code (8 bits,
// signed when clamp_min < 0, zero point zp_out, real scale in_scale) to an 8-bit code.
struct Activation {
  std::string function;  // a built-in function (golden::ElementwiseNames); empty: none
  double alpha = golden::kDefaultLeakyReluAlpha;  // leaky_relu's negative slope
  double in_scale = 0;                            // the requant code's real scale, > 0
  double out_scale = 0;  // the output code's scale; 0: derived, max |f| / qmax (symmetric)
  int32_t out_zp = 0;
  bool out_unsigned = false;
  int out_bits = 8;  // 8, or 16 on the last layer: int16 codes in the int16 layout (lut.md 10.6)
  // Which unit computes it (a layer's activation only): "lut", "slope" (leaky_relu only: the slope
  // stage after requant, requant.md 6.2) or "auto": the slope stage where its Q31 form holds the
  // layer's scales (it needs no table in external memory, no LOAD and no LUT slot), else the LUT.
  std::string unit = "auto";
  // leaky_relu's form on the slope stage: "q31", golden's LeakyRelu (a Q31 multiplier per side, any
  // output scale); "int8_slope", seed 002's form (Int8SlopeLeakyRelu: the input's scale kept, an
  // 8-bit slope multiplier and rshift, half-up rounding), slope stage only.
  std::string form = "q31";
};

// A residual (skip) connection (lut.md 10.5): y = clamp(golden::Add(q, q_from)) of the layer's
// output code q and the output code q_from of an earlier layer of the same M x N, then optionally
// a table. The codes' zero points and signedness are the layers' own; the real scales are given
// here, as the add needs them and the layers do not carry them.
struct Residual {
  std::string from;       // the earlier layer's name; empty: no residual
  double scale = 0;       // real scale of this layer's output codes (the add's a), > 0
  double from_scale = 0;  // real scale of `from`'s output codes (b), > 0
  double out_scale = 0;   // real scale of the sum's codes (y), > 0
  int32_t out_zp = 0;     // the sum's zero point
  bool out_unsigned = false;
  golden::AddForm form = golden::AddForm::kTfliteAsymmetric;
  golden::RoundingMode rounding = golden::RoundingMode::kHalfUp;  // seed-symmetric's final shift
  golden::IntermediateOverflow overflow = golden::IntermediateOverflow::kSaturate;  // seed's sum
  // A table after the add (ELTWISE ADD_LUT), 8-bit output only; function empty: none. Its input is
  // the sum's code, so its in_scale is out_scale (the field is not used).
  Activation activation;

  bool has_activation() const { return !activation.function.empty(); }
};

struct GemmLayer {
  std::string name = "gemm";
  int m = 1, n = 1, k = 1;  // M x K input times K x N weights
  bool a_unsigned = false, b_unsigned = false;
  int32_t a_zp = 0, b_zp = 0;
  bool bias = false;
  bool per_channel = false;  // multipliers and shifts per output column (rq SRAM)
  bool out_int32 = false;    // store the int32 biased accumulators (last layer only)
  // The requantization's form (requant.md 6.1, CMD_MODE.RQ_FORM): TFLite's Q31 multiplier and
  // signed shift, or TPU-MLIR's multiplier of mult_bits bits and rshift (`--compat tpu-mlir`).
  golden::RequantForm requant = golden::RequantForm::kTflite;
  bool single_rounding = false;  // TFLite form: CMD_MODE.ROUNDING
  int mult_bits = 8;             // TPU-MLIR form: 8, 16 or 32 (CMD_MODE.MULT_WIDTH)
  golden::tpu_mlir::Rounding rshift_rounding = golden::tpu_mlir::Rounding::kHalfUp;
  int32_t mult = 1 << 30;  // per tensor: TFLite a Q31 multiplier, TPU-MLIR signed in mult_bits
  int shift = 0;           // per tensor: TFLite the shift -31..30, TPU-MLIR the rshift 0..63
  int32_t zp_out = 0;
  int32_t clamp_min = -128, clamp_max = 127;
  Activation activation;  // function empty: the requant code is the output
  Residual residual;      // from empty: none

  bool has_activation() const { return !activation.function.empty(); }
  bool has_residual() const { return !residual.from.empty(); }
  // The codes the layer's GEMMs write, before a residual: unsigned (else signed) as the
  // activation's output or the clamp's range, and their zero point.
  bool code_unsigned() const { return has_activation() ? activation.out_unsigned : clamp_min >= 0; }
  int32_t code_zero_point() const { return has_activation() ? activation.out_zp : zp_out; }
  // The output codes (what the next layer reads and the network outputs): the residual's sum or
  // its table's when the layer has one, else the GEMMs' codes.
  bool out_unsigned() const {
    if (!has_residual()) return code_unsigned();
    return residual.has_activation() ? residual.activation.out_unsigned : residual.out_unsigned;
  }
  int32_t out_zero_point() const {
    if (!has_residual()) return code_zero_point();
    return residual.has_activation() ? residual.activation.out_zp : residual.out_zp;
  }
  // The out SRAM layout the layer's GEMMs write (6.3, lut.md 10.6), and the bytes of one stored
  // output element in it: 4 (out_int32), 2 (a 16-bit activation), 1.
  arch::OutLayout out_layout() const {
    if (out_int32) return arch::OutLayout::kInt32;
    return has_activation() && activation.out_bits == 16 ? arch::OutLayout::kInt16
                                                         : arch::OutLayout::kInt8;
  }
  int out_bytes() const { return out_int32 ? 4 : out_layout() == arch::OutLayout::kInt16 ? 2 : 1; }
};

// The layer's requantization as golden's parameters: its form, per-tensor multiplier and shift,
// roundings, zero point and clamp. A per-channel layer's multiplier and shift of column n are its
// rq tensor's (LayerData), in place of the per-tensor ones.
golden::RequantParams LayerRequant(const GemmLayer& layer);

// The per-tensor multiplier and shift of a real scale >= 0 in the layer's form: TFLite's
// QuantizeMultiplier, or TPU-MLIR's getRShiftAndMultiplierFromQScale with the largest multiplier of
// mult_bits bits (2^(mult_bits - 1) - 1: 127 for 8 bits, TPU-MLIR's default). Throws
// std::invalid_argument for a scale either cannot hold.
void SetLayerScale(GemmLayer& layer, double scale);

// Whether the layer's activation runs on the slope stage (Activation::unit; requant.md 6.2): its
// function is leaky_relu with 8-bit output and unit "slope", or "auto" and its slope fits the form.
// Throws std::invalid_argument naming the layer for unit "slope" on an activation the stage cannot
// compute.
bool UsesSlopeStage(const GemmLayer& layer);
// golden's LeakyReLU of the layer (MakeLeakyReluParams, the layer's rounding): the requant code
// (in_scale, zp_out, the clamp's signedness) to the activation's output spec (given, or derived as
// the table derives it). Throws std::invalid_argument naming the layer when no Q31 form holds it.
golden::LeakyReluParams LayerLeakyRelu(const GemmLayer& layer);

// seed 002's LeakyReLU of the layer (MakeInt8SlopeLeakyReluParams): the requant code to 8-bit codes
// of the same scale (out_scale 0 or in_scale), out_zp and out_unsigned. Throws
// std::invalid_argument naming the layer for another function, another scale or an alpha of 127.5
// or more.
golden::Int8SlopeParams LayerInt8Slope(const GemmLayer& layer);
// The slope stage's parameters of the layer's activation in its form (the SET's registers).
golden::SlopeStageParams LayerSlope(const GemmLayer& layer);

// The table of a layer's activation (golden::BuildLut, exact mode, half-to-even rounding). Throws
// std::invalid_argument naming the field for a layer without one or with illegal fields.
golden::Lut ActivationTable(const GemmLayer& layer);
// The table of `activation` read by 8-bit codes of `in` (its signedness, scale and zero point), as
// above; the messages name `layer` and the activation's key as `field` ("residual.activation").
golden::Lut ActivationTable(const GemmLayer& layer, const Activation& activation,
                            const std::string& field, const golden::QuantSpec& in);

struct Network {
  std::string name = "network";
  std::vector<GemmLayer> layers;
};

// One GEMM layer M x K times K x N named "gemm_MxNxK", with a per-tensor scale of 2^-11 (int8
// outputs that are neither all 0 nor all saturated for random operands): `qacc compile --gemm`,
// `qacc cosim --gemm`, `qacc bench --program`. Throws std::invalid_argument as ValidateNetwork.
Network GemmNetwork(int m, int n, int k);

// Checks the chain (shapes agree, dimensions and quantization fields in their legal ranges, only
// the last layer in int32, residuals from earlier layers of the same shape: residual.h). Throws
// std::invalid_argument naming the layer and the field: "layer 'fc2': k = 700 does not match the
// previous layer's n = 768".
void ValidateNetwork(const Network& network);

// Parses the JSON form (docs/compiler.md):
//   {"name": "ffn", "layers": [{"name": "fc1", "m": 128, "n": 3072, "k": 768, "bias": true, ...},
//                              {"name": "fc2", "n": 768, ...}]}
// Dimensions are never guessed: the first layer must give m, n and k, every later one its n (its m
// and k are the previous layer's m and n). Unknown keys are errors. Throws std::invalid_argument
// naming `source`, the layer and the key.
Network ParseNetwork(std::string_view json_text, std::string_view source = "<json>");

}  // namespace qacc::compiler

#endif  // QACC_COMPILER_NETWORK_H_
