// A co-simulation test is a program: the host's bus accesses and waits, with the commands they
// launch. The lockstep engine plays it on the RTL's APB pins and on the model's target socket in
// the same cycles; the model-only runner plays it on the model alone. Between and during commands a
// program may read and write anything (registers at any cycle, SRAM windows while busy, illegal
// commands), and it names the points where the engine compares outputs with golden and whole SRAMs
// of RTL and model.
#ifndef QACC_SIM_TESTGEN_PROGRAM_H_
#define QACC_SIM_TESTGEN_PROGRAM_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/arch.h"
#include "model/gemm_job.h"

namespace qacc::sim {

struct HostOp {
  enum class Kind : uint8_t {
    kWrite,        // one APB write; its response (pslverr, wait states) is compared
    kRead,         // one APB read; data, pslverr and wait states are compared
    kStart,        // the CTRL write with START (data holds IRQ_EN too); `index` names the command
    kWaitDone,     // idle bus until the command in flight has completed on both sides
    kIdle,         // idle bus for `cycles` cycles (places the next access at a chosen cycle)
    kReadOut,      // an output-window read kept for the golden comparison of job `index`
    kCheckOutput,  // compare the output read back (RTL and model) with the golden of job `index`
    kCheckSrams,   // compare every SRAM of RTL and model, whole (a backdoor, no bus cycles)
    // Programs (docs/data_movement.md 14, 18):
    kExtWrite,      // backdoor write of ext_blobs[index] into the external memory of both sides
    kCheckProgram,  // after program command `index` ended: the external memory images of RTL and
                    // model whole, and the model vs the golden executor run on the memories of
                    // its launch (error, Q_ERR_INDEX, Q_RETIRED, every SRAM, the external image)
  };
  Kind kind = Kind::kWrite;
  uint32_t addr = 0;
  uint32_t data = 0;
  uint8_t strobe = 0xF;
  int64_t cycles = 0;  // kIdle
  int index = -1;      // kStart / kCheckProgram: the command; kReadOut / kCheckOutput: the job;
                       // kExtWrite: the blob
};

// Bytes the host puts into the external memory by backdoor (programs, tensors).
struct ExtBlob {
  uint32_t addr = 0;
  std::vector<uint8_t> bytes;
};

// One command the program launches (in launch order).
struct ProgramCommand {
  int job = -1;  // index into Program::jobs of a legal command; -1: an illegal one or a program
  arch::ErrCode expected_error = arch::ErrCode::kNone;  // what the generator meant
  std::string description;                              // "GEMM M=.. N=.." or "illegal: A_RANGE .."
  // A program launched with CTRL.RUN (data_movement.md 14.1): the Q_BASE and Q_COUNT it was
  // launched with. expected_error is the error the generator aims at (kNone for a program meant to
  // retire every descriptor); the lockstep checks it against the golden executor.
  bool is_program = false;
  uint32_t q_base = 0, q_count = 0;
};

struct Program {
  std::vector<model::GemmJob> jobs;  // the legal commands' jobs (golden results, report locations)
  std::vector<ProgramCommand> commands;
  std::vector<HostOp> ops;
  std::vector<ExtBlob> ext_blobs;  // kExtWrite data
  // A test that needs a stalling memory (15.2, ext_mem.ready_gaps and gap_seed) sets them here;
  // they replace the config's for its run (TestbenchConfig).
  int ext_mem_ready_gaps = -1;  // -1: the config's
  int64_t ext_mem_gap_seed = 1;
};

// The config a program runs on: `config` with the program's testbench settings.
arch::ArchConfig TestbenchConfig(const arch::ArchConfig& config, const Program& program);

// The registers a host reads after a command (each read is compared with the model's): every
// register of section 3.2 (arch::kRegisters, generated from the spec; command registers read back
// as stored).
struct NamedRegister {
  uint32_t offset;
  const char* name;
};
const std::vector<NamedRegister>& ReadableRegisters();
// "PERF_MAC_BUSY" for its address (kRegsBase + offset); "register 0x..." for another address.
std::string RegisterName(uint32_t addr);

// Byte range of the output window that job's command writes (section 6.3), clipped to the SRAM.
struct OutRange {
  uint32_t first_byte = 0;
  uint32_t bytes = 0;
};
OutRange OutputRange(const arch::ArchConfig& config, const model::GemmJob& job);

// "GEMM M=13 N=11 K=9 mode=0x8 (T=4 tiles, P=9, E=60; int8 out, ...)".
std::string DescribeCommand(const arch::ArchConfig& config, const model::GemmJob& job);

// Appends host operations to a program, the way a driver would issue them.
class ProgramBuilder {
 public:
  explicit ProgramBuilder(const arch::ArchConfig& config) : config_(config) {}

  // Run's CTRL write sets START as well as RUN (architecture.md 3.2: writing both is RUN).
  bool run_with_start = false;

  // Adds a legal job; returns its index.
  int AddJob(const model::GemmJob& job);
  // The SRAM writes that load job's operands (section 6.1) and its CMD_* writes.
  void LoadOperands(int job);
  void WriteCommand(int job);
  // Every CMD_* register from raw values (illegal commands included).
  void WriteCommandRegisters(const arch::Command& cmd);
  // START (with IRQ_EN = irq_enable), then wait for DONE.
  void Launch(int job, bool irq_enable = false);
  // START of whatever the CMD_* registers hold, described as an illegal command expected to fail
  // with `error`; then wait for DONE.
  void LaunchIllegal(arch::ErrCode error, const std::string& description, bool irq_enable = false);
  // The START write alone, for a command the generator knows the registers of (`job` >= 0) or
  // not; returns the command index. WaitDone() completes it.
  int Start(int job, arch::ErrCode error, const std::string& description, bool irq_enable);
  void WaitDone();
  void ReadRegisters();   // every ReadableRegisters() entry
  void ReadBackOutput(int job);  // the job's output words, then kCheckOutput
  void CheckSrams();
  // ---- Programs (data_movement.md 14): backdoor bytes into the external memory (both sides).
  void WriteExt(uint32_t addr, std::vector<uint8_t> bytes);
  // Q_BASE, Q_COUNT, then CTRL = RUN (| IRQ_EN): a program the generator expects to end with
  // `error` (kNone: every descriptor retires). Returns the command index; WaitDone() completes it.
  int Run(uint32_t q_base, uint32_t q_count, arch::ErrCode error, const std::string& description,
          bool irq_enable = false);
  // The host driver between two launches of one program (data_movement.md 14.4): once DONE, it
  // reads STATUS (an error ends the program) before it writes Q_BASE, Q_COUNT and CTRL.RUN (Run).
  void ReadStatusBeforeRelaunch();
  // The end-of-program checks of data_movement.md 18 for command `command`: the external memory
  // images and golden (kCheckProgram); RunAndCheck adds every register read and every SRAM.
  void CheckProgram(int command);
  // Run, WaitDone, ReadRegisters, CheckProgram, CheckSrams.
  int RunAndCheck(uint32_t q_base, uint32_t q_count, arch::ErrCode error,
                  const std::string& description, bool irq_enable = false);

  void Write(uint32_t addr, uint32_t data, uint8_t strobe = 0xF);
  void Read(uint32_t addr);
  void Idle(int64_t cycles);

  const arch::ArchConfig& config() const { return config_; }
  Program Take() { return std::move(program_); }
  const Program& program() const { return program_; }

 private:
  // Appends `command` and its CTRL write (`ctrl`: START or RUN, with IRQ_EN); returns its index.
  int AddLaunch(ProgramCommand command, uint32_t ctrl, bool irq_enable);

  arch::ArchConfig config_;
  Program program_;
};

// The program of one GEMM job: load, command, START, wait, every register, read back, SRAMs.
Program SingleJobProgram(const arch::ArchConfig& config, const model::GemmJob& job);

}  // namespace qacc::sim

#endif  // QACC_SIM_TESTGEN_PROGRAM_H_
