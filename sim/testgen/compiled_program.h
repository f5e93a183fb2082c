// A compiled network as a co-simulation program (sim::Program): the host compiler (sim/compiler)
// lowers it for the config, random values (a seed) fill its tensors, the whole image goes into the
// external memory by backdoor, one CTRL.RUN launches it, and the end-of-program checks of
// data_movement.md 18 follow (every register, the external images of RTL and model, golden, every
// SRAM). The golden executor's result is checked against the layers computed on whole matrices
// (compiler::ReferenceOutput) here, when the program is made: so a passing run chains RTL = model =
// golden = reference.
#ifndef QACC_SIM_TESTGEN_COMPILED_PROGRAM_H_
#define QACC_SIM_TESTGEN_COMPILED_PROGRAM_H_

#include <cstdint>

#include "model/arch.h"
#include "sim/compiler/compiler.h"
#include "sim/compiler/network.h"
#include "sim/testgen/program.h"

namespace qacc::sim {

// Throws compiler::CompileError / std::invalid_argument as compiler::Compile does, std::logic_error
// when golden's output differs from the reference (a compiler or golden bug), and
// std::invalid_argument when the image does not fit the config's external memory.
Program CompiledNetworkProgram(const arch::ArchConfig& config, const compiler::Network& network,
                               const compiler::CompileOptions& options, uint64_t seed);

}  // namespace qacc::sim

#endif  // QACC_SIM_TESTGEN_COMPILED_PROGRAM_H_
