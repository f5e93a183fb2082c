#include "compiler/launches.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "model/arch.h"

namespace qacc::compiler {

std::vector<bool> CutPoints(const std::vector<golden::Descriptor>& program) {
  // Tokens given minus tokens taken, per direction (DMA -> compute, compute -> DMA), before i.
  int64_t d2c = 0, c2d = 0;
  std::vector<bool> cut(program.size() + 1, false);
  cut[0] = true;
  for (size_t i = 0; i < program.size(); ++i) {
    const golden::Header h = golden::DecodeHeader(program[i]);
    const bool dma = golden::EngineOf(static_cast<golden::Op>(h.op)) == golden::Engine::kDma;
    if (h.wait) --(dma ? c2d : d2c);
    if (h.signal) ++(dma ? d2c : c2d);
    cut[i + 1] = d2c == 0 && c2d == 0;
  }
  cut[program.size()] = true;  // the end of the program ends its last launch
  return cut;
}

LaunchesResult RunLaunches(const golden::AccelGeometry& geometry, uint32_t q_base,
                           const std::vector<Launch>& launches, golden::MachineState& state) {
  LaunchesResult out;
  for (size_t l = 0; l < launches.size(); ++l) {
    const Launch& launch = launches[l];
    if (launch.count > arch::kMaxQCount) {
      throw std::invalid_argument(fmt::format("launch {}: {} descriptors, Q_COUNT holds at most {}",
                                              l, launch.count, arch::kMaxQCount));
    }
    const golden::ProgramResult r = golden::RunQueue(
        geometry, q_base + launch.first * golden::kDescriptorBytes, launch.count, state);
    ++out.launches_run;
    out.retired += r.retired;
    if (r.error != golden::ProgramError::kNone) {
      out.error = r.error;
      out.launch = int(l);
      out.error_index = int64_t(launch.first) + r.error_index;
      break;
    }
  }
  return out;
}

std::vector<golden::Race> RaceCheckLaunches(const golden::AccelGeometry& geometry,
                                            const std::vector<golden::Descriptor>& program,
                                            uint32_t q_base, const std::vector<Launch>& launches) {
  std::vector<golden::Race> races;
  for (const Launch& launch : launches) {
    const auto first = program.begin() + launch.first;
    const std::vector<golden::Descriptor> part(first, first + launch.count);
    for (golden::Race race :
         golden::RaceCheck(geometry, part, q_base + launch.first * golden::kDescriptorBytes)) {
      race.first += int(launch.first);
      if (race.second >= 0) race.second += int(launch.first);
      races.push_back(race);
    }
  }
  return races;
}

}  // namespace qacc::compiler
