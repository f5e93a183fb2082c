// Tensors in and out of a compiled program's external memory image, in the layouts of
// docs/data_movement.md 16.1: what a host driver does before and after it runs the program.
#ifndef QACC_COMPILER_EXT_IMAGE_H_
#define QACC_COMPILER_EXT_IMAGE_H_

#include <cstdint>
#include <vector>

#include "compiler/compiler.h"
#include "golden/program.h"

namespace qacc::compiler {

// The values of one layer: weights K x N row-major codes (two's complement bytes when signed),
// bias (N, with GemmLayer::bias), per-channel multipliers and shifts (N each, with per_channel).
struct LayerData {
  std::vector<uint8_t> w;
  std::vector<int32_t> bias;
  std::vector<int32_t> channel_mult;
  std::vector<int> channel_shift;
};

// Writes the input (M x K row-major codes), every layer's tensors and the program's descriptors
// into `state.ext`, which must be at least program.ext_bytes long. Throws std::invalid_argument
// naming the tensor when a size does not match the network.
void WriteInputs(const CompiledProgram& program, const Network& network,
                 const std::vector<uint8_t>& x, const std::vector<LayerData>& layers,
                 golden::MachineState& state);

// The last layer's M x N result: int32 values with out_int32; else the stored bytes read as uint8
// or int8 (GemmLayer::out_unsigned).
std::vector<int32_t> ReadOutput(const CompiledProgram& program, const Network& network,
                                const golden::MachineState& state);

}  // namespace qacc::compiler

#endif  // QACC_COMPILER_EXT_IMAGE_H_
