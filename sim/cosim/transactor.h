// The host side of a co-simulation run: the bus accesses a driver makes for one GEMM job (operand
// and command writes, START, wait for DONE, STATUS and PERF_CYCLES reads, the output window
// read-back), as one list that the lockstep engine plays on the RTL pins (APB cycles) and on the
// model's target socket (b_transport) in the same cycle.
#ifndef QACC_SIM_COSIM_TRANSACTOR_H_
#define QACC_SIM_COSIM_TRANSACTOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "model/arch.h"
#include "model/gemm_job.h"

namespace qacc::cosim {

struct BusOp {
  enum class Kind : uint8_t {
    kWrite,     // one APB write (operands, CMD_*, CTRL)
    kStart,     // the CTRL.START write that launches the command
    kWaitDone,  // idle bus until the command completes (the driver waits for irq)
    kRead,      // one APB read (STATUS, PERF_CYCLES)
    kReadOut,   // one APB read of the output window, kept for the output comparison
  };
  Kind kind = Kind::kWrite;
  uint32_t addr = 0;
  uint32_t data = 0;
  uint8_t strobe = 0xF;
};

// The registers the host reads after a command (each read is compared with the model's): their
// offsets and names, for mismatch reports.
struct ReadRegister {
  uint32_t offset;
  const char* name;
};
const std::vector<ReadRegister>& ReadRegisters();
// "PERF_MAC_BUSY" for its address (kRegsBase + offset); "register" for another address.
std::string ReadRegisterName(uint32_t addr);

// The whole host program of `job`: PackOperands, CommandWrites, START, wait, the ReadRegisters,
// then every output word the command writes (section 6.3), 32 bits at a time.
std::vector<BusOp> HostProgram(const arch::ArchConfig& config, const model::GemmJob& job);

// Byte offset inside the output window of the first word read back, and its length in bytes: the
// command's output words (section 6.3), clipped to the output SRAM.
struct OutRange {
  uint32_t first_byte = 0;
  uint32_t bytes = 0;
};
OutRange OutputRange(const arch::ArchConfig& config, const model::GemmJob& job);

}  // namespace qacc::cosim

#endif  // QACC_SIM_COSIM_TRANSACTOR_H_
