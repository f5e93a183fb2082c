// One co-simulation run of one test program (sim/testgen/program.h, docs/cosim.md):
//   * RunLockstep: the Verilated qacc_top and the SystemC TLM model (model/qacc_tlm.h) in one
//     process under one clock, driven by the same host program, checked every cycle by the
//     scoreboard (scoreboard.h), every bus response compared, whole SRAMs compared and outputs
//     checked against golden where the program says;
//   * RunModelOnly: the model alone (model/model_only.h) against the golden;
//   * RunRtlOnly: the bare Verilated loop on the same host program (benchmark; waves re-run).
// A SystemC kernel elaborates once per process: call RunLockstep at most once per process.
#ifndef QACC_SIM_COSIM_COSIM_H_
#define QACC_SIM_COSIM_COSIM_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/arch.h"
#include "model/gemm_job.h"
#include "model/program_engine.h"
#include "sim/testgen/program.h"
#include "sim/cosim/scoreboard.h"

namespace qacc::cosim {

// Test-only faults that check the checker (docs/cosim.md "Self-check"). Value and timing faults
// perturb what the monitors report, start-lost perturbs the stimulus: the RTL never sees START;
// requant-latency builds the model's requant unit module one stage longer (Lq + 1), which only the
// simulated units, not the closed-form timing, see.
enum class Fault : uint8_t {
  kNone,
  kMacValue,
  kMacLate,
  kRequantValue,
  kLutValue,
  kEltValue,
  kStartLost,
  kRequantLatency
};
inline constexpr Fault kAllFaults[] = {
    Fault::kNone,     Fault::kMacValue, Fault::kMacLate,   Fault::kRequantValue,
    Fault::kLutValue, Fault::kEltValue, Fault::kStartLost, Fault::kRequantLatency};
// "none", "mac-value", "mac-late", "requant-value", "lut-value", "elt-value", "start-lost",
// "requant-latency"
const char* FaultName(Fault fault);
// Every fault name, comma separated.
std::string FaultNames();
std::optional<Fault> ParseFault(const std::string& name);

struct CosimOptions {
  arch::ArchConfig config;
  Fault fault = Fault::kNone;
  // The watchdog ends the run when the RTL has not completed this many cycles after the predicted
  // done cycle (or an APB transfer has no pready for kApbTimeout cycles).
  int64_t watchdog_cycles = 1000;
  // Cycles the host thread runs ahead of SystemC time before it synchronises (TLM-2.0 temporal
  // decoupling); 1 = a SystemC wait every clock cycle.
  int64_t quantum_cycles = 1024;
  // 1: one thread. 2: the RTL runs ahead on a second thread while the engine waits for DONE
  // (sim/cosim/rtl_runahead.h); the results are the same, the wall time shorter on an idle core.
  int threads = 1;
  // Mutant N of a mutant-schemata RTL build (qacc validate, docs/validate.md); 0: the design as written.
  int64_t mutant = 0;
  // Seeds the power-on values of the RTL's flops (spec 10; 0: zeros). The ones reset does not clear
  // keep theirs, so a datapath value that leaves a unit without its valid bit shows as a mismatch.
  uint64_t power_on_seed = 0;
  // The power-on reset pulsed with the clock stopped (spec 10: rst_ni is asynchronous), instead of
  // held over clock cycles: a flop that reset misses keeps its power-on value.
  bool reset_without_clock = false;
  // When not empty, the RTL build's Verilator coverage (line and toggle) is written here after the run.
  std::string coverage_path;
};

struct CosimResult {
  bool pass = false;
  int64_t cycles = 0;          // the whole run, reset and loading included
  int64_t command_cycles = 0;  // cycles with BUSY, summed over the commands: E of each (model)
  int64_t launch_cycle = 0;    // of the first command
  // Of `cycles`, those the RTL ran on the second thread (--threads 2).
  int64_t rtl_thread_cycles = 0;
  double wall_seconds = 0;
  double check_seconds = 0;  // part of wall_seconds spent on the final golden comparison
  std::array<int64_t, kNumCheckUnits> mismatches{};
  std::optional<Mismatch> first;
  std::array<std::optional<Mismatch>, kNumCheckUnits> first_of;
  std::string error;  // watchdog / bus protocol failure, empty otherwise
  // Functional coverage (coverage.h), lockstep only: hits per bin, every bin listed.
  std::map<std::string, int64_t> coverage;
  // The model's outcome of the last program (CTRL.RUN) that ended: error, Q_RETIRED and the
  // counters of data_movement.md 17.8 (in lockstep equal to the RTL's, which the bus reads check).
  std::optional<model::ProgramRunResult> program;
  // Every program that ended, in launch order, with the absolute cycle of its cycle 0: a compiled
  // program longer than one launch (data_movement.md 14.4) is several.
  struct ProgramEnd {
    int64_t launch_cycle = 0;
    model::ProgramRunResult result;
  };
  std::vector<ProgramEnd> programs;
};

CosimResult RunLockstep(const CosimOptions& options, const sim::Program& program);
CosimResult RunModelOnly(const CosimOptions& options, const sim::Program& program);

// The RTL alone on the host program. With `trace_path`, a traced build dumps cycles
// [trace_begin, trace_end] into an FST file and the run stops after trace_end.
struct RtlOnlyOptions {
  bool traced_build = false;  // run the --trace-fst build (also without trace_path: benchmark)
  std::string trace_path;
  int64_t trace_begin = 0, trace_end = -1;
};
struct RtlOnlyResult {
  int64_t cycles = 0;
  double wall_seconds = 0;
  bool done = false;  // the RTL completed the last command (DONE rose)
};
RtlOnlyResult RunRtlOnly(const CosimOptions& options, const sim::Program& program,
                         const RtlOnlyOptions& rtl_options = {});

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_COSIM_H_
