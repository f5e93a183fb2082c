#include "sim/testgen/compiled_program.h"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "compiler/ext_image.h"
#include "compiler/launches.h"
#include "golden/program.h"

namespace qacc::sim {

CheckedProgram CompileChecked(const arch::ArchConfig& config, const compiler::Network& network,
                              const compiler::CompileOptions& options,
                              const compiler::RandomValues& values,
                              const std::vector<int32_t>& reference) {
  CheckedProgram out{compiler::Compile(config, network, options), {}};
  const compiler::CompiledProgram& compiled = out.compiled;
  if (uint64_t{compiled.ext_bytes} > config.ext_mem_size_bytes) {
    throw std::invalid_argument(fmt::format(
        "network '{}' needs {} bytes of external memory; the config's ext_mem.size_bytes is {}",
        network.name, compiled.ext_bytes, config.ext_mem_size_bytes));
  }
  const golden::AccelGeometry geometry = compiler::GeometryOf(config);
  if (!compiler::RaceCheckLaunches(geometry, compiled.descriptors, compiled.q_base,
                                   compiled.launches)
           .empty()) {
    throw std::logic_error(
        fmt::format("network '{}': the compiled program has a data race (14.2)", network.name));
  }
  const std::vector<bool> cut = compiler::CutPoints(compiled.descriptors);
  for (const compiler::Launch& launch : compiled.launches) {
    if (launch.count > arch::kMaxQCount || !cut[launch.first]) {
      throw std::logic_error(fmt::format(
          "network '{}': launch at descriptor {} ({} descriptors) is longer than Q_COUNT holds or "
          "starts with a token outstanding (14.4)",
          network.name, launch.first, launch.count));
    }
  }
  golden::MachineState state(geometry, compiled.ext_bytes);
  compiler::WriteInputs(compiled, network, values.x, values.layers, state);
  out.image = state.ext.Bytes(0, state.ext.size());

  // Golden against the layers on whole matrices: the last link of the chain a lockstep run checks.
  const compiler::LaunchesResult result =
      compiler::RunLaunches(geometry, compiled.q_base, compiled.launches, state);
  if (result.error != golden::ProgramError::kNone ||
      compiler::ReadOutput(compiled, network, state) != reference) {
    throw std::logic_error(fmt::format(
        "network '{}': the golden executor's run of the compiled program ({}) differs from the "
        "layers computed on whole matrices",
        network.name, golden::ProgramErrorName(result.error)));
  }
  return out;
}

std::vector<model::ProgramLaunchSpec> ModelLaunches(const compiler::CompiledProgram& compiled) {
  std::vector<model::ProgramLaunchSpec> launches;
  for (const compiler::Launch& l : compiled.launches) {
    launches.push_back({compiled.q_base + l.first * golden::kDescriptorBytes, l.count, l.first});
  }
  return launches;
}

void RunCompiled(ProgramBuilder& builder, const compiler::CompiledProgram& compiled,
                 const std::string& description, bool irq_enable) {
  const size_t launches = compiled.launches.size();
  for (size_t l = 0; l < launches; ++l) {
    const compiler::Launch& launch = compiled.launches[l];
    const uint32_t q_base = compiled.q_base + launch.first * golden::kDescriptorBytes;
    const std::string what =
        launches == 1 ? description
                      : fmt::format("{}; launch {} of {} (descriptors {}..{})", description, l + 1,
                                    launches, launch.first, launch.first + launch.count - 1);
    if (l + 1 == launches) {
      builder.RunAndCheck(q_base, launch.count, arch::ErrCode::kNone, what, irq_enable);
    } else {
      const int command = builder.Run(q_base, launch.count, arch::ErrCode::kNone, what, irq_enable);
      builder.WaitDone();
      builder.CheckProgram(command);
      builder.ReadStatusBeforeRelaunch();
    }
  }
}

Program CompiledNetworkProgram(const arch::ArchConfig& config, const compiler::Network& network,
                               const compiler::CompileOptions& options, uint64_t seed) {
  const compiler::RandomValues values = compiler::MakeRandomValues(network, seed);
  CheckedProgram p = CompileChecked(config, network, options, values,
                                    compiler::ReferenceOutput(network, values.x, values.layers));
  const compiler::CompiledProgram& compiled = p.compiled;
  ProgramBuilder builder(config);
  builder.WriteExt(0, std::move(p.image));
  RunCompiled(builder, compiled,
              fmt::format("program '{}': {} descriptors ({} LOAD, {} GEMM, {} MOVE, {} STORE); "
                          "double buffering {}, chaining {}",
                          network.name, compiled.descriptors.size(), compiled.loads, compiled.gemms,
                          compiled.moves, compiled.stores, options.double_buffer ? "on" : "off",
                          options.chain_on_chip ? "on" : "off"),
              /*irq_enable=*/true);
  return builder.Take();
}

}  // namespace qacc::sim
