// A compiled network as a co-simulation program (sim::Program): the host compiler (compiler)
// lowers it for the config, random values (a seed) fill its tensors, the whole image goes into the
// external memory by backdoor, one CTRL.RUN per launch runs it (one launch unless it is longer than
// Q_COUNT holds, data_movement.md 14.4), and the end-of-program checks of data_movement.md 18
// follow each launch (the external images of RTL and model, golden), with every register and
// every SRAM after the last. The golden executor's result is checked against the layers computed
// on whole matrices (compiler::ReferenceOutput) here, when the program is made: so a passing run
// chains RTL = model = golden = reference.
#ifndef QACC_SIM_TESTGEN_COMPILED_PROGRAM_H_
#define QACC_SIM_TESTGEN_COMPILED_PROGRAM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/network.h"
#include "compiler/reference.h"
#include "model/arch.h"
#include "model/program_engine.h"
#include "sim/testgen/program.h"

namespace qacc::sim {

// A compiled network with its tensors filled: the program and its external memory image (the first
// ext_bytes bytes).
struct CheckedProgram {
  compiler::CompiledProgram compiled;
  std::vector<uint8_t> image;
};

// Compiles `network` and fills its tensors with `values`; checks that the program is race free
// (golden::RaceCheck) and that golden::RunQueue's output equals `reference` (the layers on whole
// matrices). Throws compiler::CompileError / std::invalid_argument as compiler::Compile does,
// std::invalid_argument when the image does not fit the config's external memory, and
// std::logic_error when a check fails (a compiler or golden bug).
CheckedProgram CompileChecked(const arch::ArchConfig& config, const compiler::Network& network,
                              const compiler::CompileOptions& options,
                              const compiler::RandomValues& values,
                              const std::vector<int32_t>& reference);

// The launches of a compiled program as the model runs them (model::RunLaunches, 14.4).
std::vector<model::ProgramLaunchSpec> ModelLaunches(const compiler::CompiledProgram& compiled);

// The host's run of a compiled program whose image is in place: one RUN per launch
// (data_movement.md 14.4), each checked against golden when it is DONE (CheckProgram), the driver's
// STATUS read between launches, and every register and SRAM after the last (RunAndCheck).
void RunCompiled(ProgramBuilder& builder, const compiler::CompiledProgram& compiled,
                 const std::string& description, bool irq_enable);

// The program of CompileChecked with the values of `seed`: its image by backdoor, then
// RunCompiled with IRQ_EN. Throws as CompileChecked.
Program CompiledNetworkProgram(const arch::ArchConfig& config, const compiler::Network& network,
                               const compiler::CompileOptions& options, uint64_t seed);

}  // namespace qacc::sim

#endif  // QACC_SIM_TESTGEN_COMPILED_PROGRAM_H_
