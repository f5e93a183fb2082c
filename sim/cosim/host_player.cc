#include "sim/cosim/host_player.h"

namespace qacc::cosim {

void PlayHostProgram(const sim::Program& program, HostSteps& steps) {
  using Kind = sim::HostOp::Kind;
  for (const sim::HostOp& op : program.ops) {
    switch (op.kind) {
      case Kind::kWrite:
      case Kind::kStart:
      case Kind::kRead:
      case Kind::kReadOut:
        steps.Transfer(op);
        break;
      case Kind::kWaitDone:
        steps.WaitDone();
        break;
      case Kind::kIdle:
        steps.Idle(op.cycles);
        break;
      case Kind::kCheckOutput:
        steps.CheckOutput(op.index);
        break;
      case Kind::kCheckSrams:
        steps.CheckSrams();
        break;
      case Kind::kExtWrite:
        steps.ExtWrite(program.ext_blobs[size_t(op.index)]);
        break;
      case Kind::kCheckProgram:
        steps.CheckProgram(op.index);
        break;
    }
  }
}

}  // namespace qacc::cosim
