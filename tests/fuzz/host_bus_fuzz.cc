// Harness `host_bus`: the host bus of the SystemC TLM-2.0 model (model/qacc_tlm.cc b_transport on
// AccelState) under any sequence of transactions: any 64-bit address, data length 0..16, any
// streaming width, byte enables of any length and value, reads, writes and ignores, at any time,
// with commands launched whenever the fuzzer writes CTRL.START.
//
// The harness is the initiator and keeps its own model of the device, written from
// docs/architecture.md sections 3, 4 and 7 (nothing of model/ is used to compute an expectation):
//  * every transaction gets exactly the spec's response status: TLM_BURST_ERROR_RESPONSE for a
//    payload that is not one 32-bit word (data length != 4 or streaming width < 4), OK for
//    TLM_IGNORE_COMMAND, TLM_ADDRESS_ERROR_RESPONSE for an unmapped address (>= 2^24, region 0 at
//    or above 0x1000, the reserved windows, regions 7-15), TLM_GENERIC_ERROR_RESPONSE
//    for an SRAM window offset beyond the SRAM, any window access or CMD_*/CTRL write while BUSY,
//    and a write to a read-only register; OK otherwise;
//  * the annotated delay ends the transfer's last cycle: setup in cycle ceil(t / period), 2 cycles
//    (3 for an SRAM window read) on a mapped or unmapped address;
//  * read data: the register values of 3.2 (ID, VERSION, HW_*, CTRL, STATUS with BUSY / DONE /
//    ERROR / ERR_CODE on the command timeline, CMD_* as stored with their field masks, the perf
//    counters of the last command), SRAM bytes as written with the byte enables (rq shift words:
//    bits [7:0], read back sign-extended), 0 for reserved offsets and for every refused read;
//  * the model stays consistent: a refused access changes nothing, a command rejected by section
//    4's checks (computed here, in their order) touches no SRAM, a legal one writes only its output
//    words, BUSY lasts E cycles (section 7), DONE / ERROR / ERR_CODE and PERF_CMD_COUNT follow, and
//    the irq signal equals DONE & IRQ_EN at every synchronisation.
//
// One SystemC kernel serves every input: four devices are elaborated once (a tiny config whose
// windows end within a few words, and configs/default, rect_4x16, tall_16x4); the first byte of an
// input picks one. Each input starts by waiting for the device's last command, clearing STATUS,
// CTRL and CMD_* through the bus and zeroing the SRAMs, so that the outcome of an input does not
// depend on the ones before it (PERF_* and PERF_CMD_COUNT carry over; the harness's model carries
// them too).
#include <tlm_utils/simple_initiator_socket.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/arch.h"
#include "model/qacc_tlm.h"
#include "sim/build_paths.h"
#include "tests/fuzz/fuzz_check.h"

int sc_main(int, char**) { return 0; }  // SystemC's main is libFuzzer's here; the library needs one

// At exit after -runs (not during fuzzing), LeakSanitizer reports one string of libFuzzer's driver as
// leaked once the SystemC kernel has run (its coroutine stacks hide the driver's reference); not ours.
extern "C" const char* __lsan_default_suppressions() { return "leak:fuzzer::FuzzerDriver\n"; }

namespace qacc::fuzz {
namespace {

constexpr int64_t kPeriodNs = 10;
const sc_core::sc_time kPeriod(kPeriodNs, sc_core::SC_NS);

// ---- The spec, written out (docs/architecture.md 3.1 - 3.3, 4, 7)
constexpr uint64_t kAddrLimit = uint64_t{1} << 24;
constexpr uint32_t kRegsMapped = 0x1000;  // region 0: registers, reserved and unit blocks below
constexpr int kLastWindow = 6;            // regions 1..6: A, B, bias, rq, out, LUT table
enum Reg : uint32_t {
  kId = 0x000,
  kVersion = 0x004,
  kHwRows = 0x008,
  kHwCols = 0x00C,
  kHwADepth = 0x010,
  kHwBDepth = 0x014,
  kHwBiasDepth = 0x018,
  kHwRqDepth = 0x01C,
  kHwOutDepth = 0x020,
  kHwUnits = 0x024,
  kHwLatency = 0x028,
  kHwLutSlots = 0x02C,
  kCtrl = 0x040,
  kStatus = 0x044,
  kCmdM = 0x080,
  kCmdN = 0x084,
  kCmdK = 0x088,
  kCmdABase = 0x08C,
  kCmdBBase = 0x090,
  kCmdBiasBase = 0x094,
  kCmdRqBase = 0x098,
  kCmdOutBase = 0x09C,
  kCmdMode = 0x0A0,
  kCmdZpAb = 0x0A4,
  kCmdZpOut = 0x0A8,
  kCmdClampMin = 0x0AC,
  kCmdClampMax = 0x0B0,
  kCmdMult = 0x0B4,
  kCmdShift = 0x0B8,
  kCmdOp = 0x0BC,
  kPerfCycles = 0x100,
  kPerfMacBusy = 0x104,
  kPerfRqBusy = 0x108,
  kPerfOutWrites = 0x10C,
  kPerfFeedStall = 0x110,
  kPerfLutBusy = 0x114,
  kPerfSmxBusy = 0x118,
  kPerfCmdCount = 0x11C,
  // Programs (data_movement.md 14.1, 17.8): the only program run here has Q_COUNT = 0 (BAD_SHAPE at
  // launch, DONE a cycle later: an illegal command's timing), so the program counters and Q_RETIRED
  // .. Q_TOKENS read 0. A RUN with Q_COUNT > 0 would fetch from the external memory, whose timing
  // this harness does not model: its RUN bit is cleared before the write goes out (programs are
  // checked cycle by cycle by the lockstep suites dma and program).
  kPerfDmaBusy = 0x120,
  kPerfWrBeats = 0x138,
  kQBase = 0x180,
  kQCount = 0x184,
  kQRetired = 0x188,
  kQTokens = 0x190,
  kPerfSlopeBusy = 0x13C,
  // The slope stage's registers (block 2, requant.md 6.2): POS MULT, SHIFT, ZP, CFG; NEG likewise;
  // CLAMP_MIN, CLAMP_MAX. Command state: busy-locked like CMD_*, each keeping its fields.
  kSlopeFirst = 0x200,
  kSlopeLast = 0x224,
};
bool IsSlope(uint32_t offset) { return offset >= kSlopeFirst && offset <= kSlopeLast; }
uint32_t SlopeMask(uint32_t offset) {
  switch ((offset - kSlopeFirst) / 4 % 4) {
    case 1:
      return offset < 0x220 ? 0xFF : 0xFFFFFFFF;  // SHIFT [7:0]
    case 3:
      return offset < 0x220 ? 0x01FF0373 : 0xFFFFFFFF;  // CFG: [0], [1], [6:4], [9:8], K [24:16]
    default:
      return 0xFFFFFFFF;  // MULT, ZP, the clamp
  }
}
constexpr uint32_t kCtrlRunBit = 4;  // CTRL.RUN wins over START
// Bits each CMD_* register keeps (3.2).
uint32_t CmdMask(uint32_t offset) {
  switch (offset) {
    case kCmdM: case kCmdN: case kCmdK: return 0xFFFF;
    case kCmdABase: case kCmdBBase: case kCmdBiasBase: case kCmdRqBase: case kCmdOutBase:
      return 0xFFFFF;
    case kCmdMode:
      return 0x3FFFFFFF;                  // bits 0..7, ACT [11:8], LUT fields [24:12], [29:25]
    case kCmdZpAb: return 0x01FF01FF;     // ZP_A [8:0], ZP_B [24:16]
    case kCmdShift:
      return 0xFF;  // [7:0], read back sign-extended
    case kCmdOp: return 0xF;
    default: return 0xFFFFFFFF;           // ZP_OUT, CLAMP_MIN, CLAMP_MAX, MULT
  }
}
bool IsCmd(uint32_t offset) { return offset >= kCmdM && offset <= kCmdOp; }
bool IsReadOnly(uint32_t offset) {
  return offset <= kHwLutSlots || (offset >= kPerfCycles && offset <= kPerfSlopeBusy) ||
         (offset >= kQRetired && offset <= kQTokens);
}
bool IsQueueSetup(uint32_t offset) { return offset == kQBase || offset == kQCount; }
int64_t SignExtend(uint32_t value, int bits) {
  const uint32_t sign = uint32_t{1} << (bits - 1);
  return int64_t((value & ((sign << 1) - 1)) ^ sign) - int64_t(sign);
}
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

const char* StatusName(tlm::tlm_response_status status) {
  switch (status) {
    case tlm::TLM_OK_RESPONSE: return "OK";
    case tlm::TLM_ADDRESS_ERROR_RESPONSE: return "ADDRESS_ERROR";
    case tlm::TLM_GENERIC_ERROR_RESPONSE: return "GENERIC_ERROR";
    case tlm::TLM_BURST_ERROR_RESPONSE: return "BURST_ERROR";
    case tlm::TLM_INCOMPLETE_RESPONSE: return "INCOMPLETE";
    default: return "another status";
  }
}

struct Perf {
  uint32_t cycles = 0, mac_busy = 0, rq_busy = 0, out_writes = 0, feed_stall = 0, lut_busy = 0,
           slope_busy = 0;
};

// CMD_MODE's activation fields (lut.md 10.3): ACT [11:8], LUT_SLOT [15:12], LUT_IN_BITS [19:16],
// LUT_ENTRY_BITS [24:20].
bool ModeLut(uint32_t mode) { return ((mode >> 8) & 0xF) == 1; }
bool ModeLut16(uint32_t mode) { return ModeLut(mode) && ((mode >> 20) & 0x1F) == 16; }
bool ModeSlope(uint32_t mode) { return ((mode >> 8) & 0xF) == 3; }  // ACT = SLOPE

// A legal slope (requant.md 6.2), written here from the spec's text: per side (MULT, SHIFT, ZP,
// CFG) its form's multiplier and shift, then the clamp ordered within -128..255.
bool SlopeLegal(const uint32_t* s) {
  for (int side = 0; side < 2; ++side) {
    const uint32_t* w = s + 4 * side;
    const auto mult = int32_t(w[0]);
    if (w[3] & 1) {  // TPU-MLIR: a width of 8, 16 or 32 bits, a mode 0..6, an rshift 0..63
      const uint32_t width = (w[3] >> 8) & 3, mode = (w[3] >> 4) & 7;
      if (width == 3 || mode == 7 || (w[1] & 0xFF) > 63) return false;
      const int64_t limit = int64_t{1} << ((8 << width) - 1);
      if (mult < -limit || mult >= limit) return false;
    } else {  // TFLite: Q31 0 or 2^30..2^31-1, a shift -31..30
      const int64_t shift = SignExtend(w[1], 8);
      if ((mult != 0 && mult < (int32_t{1} << 30)) || shift < -31 || shift > 30) return false;
    }
  }
  const auto lo = int32_t(s[8]), hi = int32_t(s[9]);
  return lo <= hi && lo >= -128 && hi <= 255;
}

// The harness's own model of one device.
struct Expected {
  explicit Expected(const arch::ArchConfig& c) : config(c) {
    for (int r = 1; r <= kLastWindow; ++r) {
      sram[r].assign(WindowBytes(r), 0), known[r].assign(WindowBytes(r), 1);
    }
  }
  arch::ArchConfig config;
  uint32_t cmd[16] = {};  // CMD_M .. CMD_OP as stored
  bool irq_en = false, done = false, error = false;
  uint32_t err_code = 0;
  uint32_t cmd_count = 0;
  uint32_t q_base = 0, q_count = 0;
  bool pending = false;  // a launched command has not reached its done cycle
  bool launched = false;
  bool legal = false;
  int64_t launch_cycle = 0, done_cycle = 0;
  Perf perf;  // final values of the last command
  std::vector<uint8_t> sram[kLastWindow + 1];
  std::vector<uint8_t> known[kLastWindow + 1];  // out: bytes a command wrote are unknown until read

  uint32_t WordBytes(int region) const {
    switch (region) {
      case 1: return uint32_t(config.rows);
      case 2: return uint32_t(config.cols);
      case 3: return 4u * config.cols;
      case 4: return 8u * config.cols;
      case 6:
        return 16;  // the LUT table: 8 entries of 16 bits (lut.md 10.1)
      default: return 4u * config.cols;
    }
  }
  uint32_t Depth(int region) const {
    const uint32_t depths[] = {0,
                               config.a_depth,
                               config.b_depth,
                               config.bias_depth,
                               config.rq_depth,
                               config.out_depth,
                               32u * uint32_t(config.lut_slots)};  // 32 words per LUT slot
    return depths[region];
  }
  uint32_t WindowBytes(int region) const { return Depth(region) * WordBytes(region); }
  uint32_t& Cmd(uint32_t offset) { return cmd[(offset - kCmdM) / 4]; }
  uint32_t slope[10] = {};  // the slope stage's registers as stored
  uint32_t& Slope(uint32_t offset) { return slope[(offset - kSlopeFirst) / 4]; }

  // Completion is applied before an access in or after the done cycle.
  void AdvanceTo(int64_t cycle) {
    if (pending && cycle >= done_cycle) {
      pending = false;
      done = true;
      error = !legal;
      err_code = legal ? 0 : err_code_pending;
      ++cmd_count;
    }
  }
  bool Busy(int64_t cycle) const { return pending && cycle >= launch_cycle && cycle < done_cycle; }
  bool Irq(int64_t cycle) const { return irq_en && (done || (pending && cycle >= done_cycle)); }

  // Section 4, in its order; 0 for a legal command.
  uint32_t Validate() const {
    const int64_t m = cmd[0], n = cmd[1], k = cmd[2];
    const int64_t a_base = cmd[3], b_base = cmd[4], bias_base = cmd[5], rq_base = cmd[6],
                  out_base = cmd[7];
    const uint32_t mode = cmd[8];
    const bool per_channel = mode & 2, out_raw = mode & 4, bias_en = mode & 8;
    if (cmd[15] != 0) return 10;
    if (m == 0 || n == 0 || k == 0 || ((ModeLut(mode) || ModeSlope(mode)) && out_raw)) return 1;
    const int64_t mb = CeilDiv(m, config.rows), nb = CeilDiv(n, config.cols), t = mb * nb;
    if (a_base + mb * k > config.a_depth) return 2;
    if (b_base + nb * k > config.b_depth) return 3;
    if (bias_en && bias_base + nb > config.bias_depth) return 4;
    // Bit 7 with ACT = SLOPE: the slope's rq word, after the first stage's (requant.md 6.3).
    const int64_t rq_words = (per_channel ? 1 : 0) + (ModeSlope(mode) && (mode & 0x80) ? 1 : 0);
    if (rq_words > 0 && rq_base + rq_words * nb > config.rq_depth) return 5;
    const int64_t out_words = out_raw           ? t * config.rows
                              : ModeLut16(mode) ? t * config.rows / 2
                                                : t * config.rows / 4;
    if (out_base + out_words > config.out_depth) return 6;
    if (!out_raw) {
      // Bit 6: the TPU-MLIR form (requant.md 6.1), its rounding [27:25] and width [29:28].
      const bool tpu = mode & 0x40;
      const uint32_t round = (mode >> 25) & 7, width = (mode >> 28) & 3;
      const int64_t shift = SignExtend(cmd[14], 8);
      const auto mult = int32_t(cmd[13]), lo = int32_t(cmd[11]), hi = int32_t(cmd[12]);
      const bool bad_mult = !per_channel && mult != 0 && mult < (int32_t{1} << 30);
      const bool bad_form = tpu ? width == 3 || round == 7 : shift < -31 || shift > 30 || bad_mult;
      if (bad_form || lo > hi || lo < -128 || lo > 255 || hi < -128 || hi > 255) return 7;
      if (tpu && !per_channel) {
        const int64_t limit = int64_t{1} << ((8 << width) - 1);
        if (mult < -limit || mult >= limit) return 38;
        if ((cmd[14] & 0xFF) > 63) return 39;
      }
    }
    const int64_t a_zp = SignExtend(cmd[9], 9), b_zp = SignExtend(cmd[9] >> 16, 9);
    if (a_zp < -128 || a_zp > 255 || b_zp < -128 || b_zp > 255) return 8;
    if (ModeSlope(mode)) {  // BAD_SLOPE: ZP_OUT (the codes' zero point) -128..255, the registers
      const auto zp_out = int32_t(cmd[10]);
      return zp_out < -128 || zp_out > 255 || !SlopeLegal(slope) ? 40 : 0;
    }
    if (!ModeLut(mode)) return ((mode >> 8) & 0xF) != 0 ? 9 : 0;
    const uint32_t slot = (mode >> 12) & 0xF, in_bits = (mode >> 16) & 0xF,
                   entry_bits = (mode >> 20) & 0x1F;
    if (slot >= uint32_t(config.lut_slots)) return 32;
    if (in_bits < 2 || in_bits > 8) return 33;
    if (entry_bits != 8 && entry_bits != 16) return 34;
    return 0;
  }

  // The START write completed in `cycle`: command cycle 0 is the next one. `forced_code`: a RUN of
  // an empty program (BAD_SHAPE at launch, data_movement.md 17.1).
  void Launch(int64_t cycle, int forced_code = -1) {
    const uint32_t code = forced_code >= 0 ? uint32_t(forced_code) : Validate();
    launched = pending = true;
    legal = code == 0;
    err_code_pending = code;
    done = error = false;
    err_code = 0;
    launch_cycle = cycle + 1;
    if (!legal) {
      done_cycle = launch_cycle + 1;
      perf = Perf{1, 0, 0, 0, 0};
      return;
    }
    const int64_t m = cmd[0], n = cmd[1], k = cmd[2], r = config.rows, c = config.cols;
    const int64_t mb = CeilDiv(m, r), nb = CeilDiv(n, c), t = mb * nb, p = std::max({k, r, c});
    const bool lut = ModeLut(cmd[8]), slope_stage = ModeSlope(cmd[8]);
    // The LUT stage: L_lut = 2; the slope stage: L_slope = 5.
    const int64_t e = (t - 1) * p + k + r + c + 8 + (lut ? 2 : 0) + (slope_stage ? 5 : 0);
    done_cycle = launch_cycle + e;
    perf = Perf{uint32_t(e),
                uint32_t(t * k),
                uint32_t(t * r),
                uint32_t(nb * m),
                uint32_t((t - 1) * (p - k)),
                uint32_t(lut ? t * r : 0),
                uint32_t(slope_stage ? t * r : 0)};
    // The output words the command writes (6.3, lut.md 10.6) become unknown; nothing else changes.
    const bool out_raw = cmd[8] & 4;
    const int64_t words = out_raw ? t * r : ModeLut16(cmd[8]) ? t * r / 2 : t * r / 4;
    const int64_t first = int64_t(cmd[7]) * WordBytes(5), last = first + words * WordBytes(5);
    for (int64_t b = first; b < last; ++b) known[5][size_t(b)] = 0;
  }

  // The value of a perf register at `cycle`; false while a command is counting, with *value its
  // final value.
  bool PerfAt(uint32_t offset, int64_t cycle, uint32_t* value) const {
    *value = 0;
    if (offset == kPerfSmxBusy) return true;
    if (offset == kPerfCmdCount) {
      *value = cmd_count;
      return true;
    }
    if (!launched) return true;
    if (cycle < launch_cycle + (legal ? 0 : 1)) return true;  // cleared at launch
    const uint32_t values[] = {perf.cycles,     perf.mac_busy,   perf.rq_busy,
                               perf.out_writes, perf.feed_stall, perf.lut_busy};
    *value = offset == kPerfSlopeBusy ? perf.slope_busy : values[(offset - kPerfCycles) / 4];
    return !(legal && cycle < done_cycle);
  }

  uint32_t err_code_pending = 0;
};

// A device and the harness's view of it.
struct Device {
  std::unique_ptr<model::QaccTlm> dut;
  std::unique_ptr<sc_core::sc_signal<bool>> irq;
  std::unique_ptr<Expected> expected;
};

class Initiator : public sc_core::sc_module {
 public:
  explicit Initiator(sc_core::sc_module_name name) : sc_core::sc_module(name), socket("socket") {}
  tlm_utils::simple_initiator_socket<Initiator> socket;
};

std::vector<Device>* devices = nullptr;
std::vector<std::unique_ptr<Initiator>>* initiators = nullptr;

// Reads the fuzzer's bytes; 0 past the end.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint64_t Take(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(pos_ < size_ ? data_[pos_++] : 0) << (8 * i);
    return v;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

class Session {
 public:
  Session(Device& device, Initiator& initiator)
      : dut_(*device.dut), irq_(*device.irq), x_(*device.expected), socket_(initiator.socket) {}

  int64_t Cycle(const sc_core::sc_time& t) const {
    return int64_t((t.value() + kPeriod.value() - 1) / kPeriod.value());
  }
  int64_t Now() const { return Cycle(sc_core::sc_time_stamp() + local_); }

  // One transaction; checks the response, the delay and the read data against the spec.
  void Transfer(tlm::tlm_command command, uint64_t addr, uint32_t data, unsigned length,
                unsigned streaming, const std::vector<unsigned char>* enables) {
    std::unique_ptr<unsigned char[]> buffer(new unsigned char[length]);
    for (unsigned i = 0; i < length; ++i) buffer[i] = static_cast<unsigned char>(data >> (8 * (i % 4)));
    tlm::tlm_generic_payload payload;
    payload.set_command(command);
    payload.set_address(addr);
    payload.set_data_ptr(buffer.get());
    payload.set_data_length(length);
    payload.set_streaming_width(streaming);
    if (enables) {
      payload.set_byte_enable_ptr(const_cast<unsigned char*>(enables->data()));
      payload.set_byte_enable_length(unsigned(enables->size()));
    }
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    sc_core::sc_time delay = local_;
    socket_->b_transport(payload, delay);
    const tlm::tlm_response_status status = payload.get_response_status();
    const std::string what = fmt::format("{} 0x{:x} length {} width {} at cycle {}",
                                         command == tlm::TLM_READ_COMMAND    ? "read"
                                         : command == tlm::TLM_WRITE_COMMAND ? "write"
                                                                             : "ignore",
                                         addr, length, streaming, Now());

    if (length != 4 || streaming < 4) {
      FUZZ_CHECK(status == tlm::TLM_BURST_ERROR_RESPONSE, "{}: {}, expected a burst error", what,
                 StatusName(status));
      FUZZ_CHECK(delay == local_, "{}: a refused payload took time", what);
      return;
    }
    if (command == tlm::TLM_IGNORE_COMMAND) {
      FUZZ_CHECK(status == tlm::TLM_OK_RESPONSE, "{}: {}", what, StatusName(status));
      return;
    }
    const bool read = command == tlm::TLM_READ_COMMAND;
    const int region = addr < kAddrLimit ? int((addr >> 20) & 0xF) : -1;
    const bool window = region >= 1 && region <= kLastWindow;
    const int64_t setup = Cycle(now + local_);
    const int64_t complete = setup + (read && window ? 2 : 1);
    x_.AdvanceTo(complete);
    const auto offset = uint32_t(addr & 0xFFFFC);

    tlm::tlm_response_status expected = tlm::TLM_OK_RESPONSE;
    if (region < 0 || (region == 0 && offset >= kRegsMapped) || region > kLastWindow) {
      expected = tlm::TLM_ADDRESS_ERROR_RESPONSE;
    } else if (window) {
      if (offset >= x_.WindowBytes(region) || x_.Busy(complete)) {
        expected = tlm::TLM_GENERIC_ERROR_RESPONSE;
      }
    } else if (!read && (IsReadOnly(offset) || ((IsCmd(offset) || IsSlope(offset) ||
                                                 offset == kCtrl || IsQueueSetup(offset)) &&
                                                x_.Busy(complete)))) {
      expected = tlm::TLM_GENERIC_ERROR_RESPONSE;
    }
    FUZZ_CHECK(status == expected, "{}: {}, expected {}", what, StatusName(status),
               StatusName(expected));
    FUZZ_CHECK(delay == kPeriod * double(complete + 1) - now, "{}: delay {} ends at {}, expected "
               "the end of cycle {}", what, delay.to_string(), (now + delay).to_string(), complete);
    local_ = delay;

    uint32_t value = 0;
    if (read) {
      for (int b = 0; b < 4; ++b) value |= uint32_t{buffer[b]} << (8 * b);
    }
    if (expected != tlm::TLM_OK_RESPONSE) {
      FUZZ_CHECK(!read || value == 0, "{}: a refused read returned 0x{:x}", what, value);
      return;
    }
    const uint8_t strobe = Strobe(enables);
    if (window) {
      Window(read, region, offset, value, data, strobe, what);
    } else if (read) {
      ReadRegister(offset, complete, value, what);
    } else {
      WriteRegister(offset, data, complete);
    }
  }

  // pstrb: byte b enabled when enables[b % length] is TLM_BYTE_ENABLED; all without enables.
  static uint8_t Strobe(const std::vector<unsigned char>* enables) {
    if (enables == nullptr || enables->empty()) return 0xF;
    uint8_t strobe = 0;
    for (unsigned b = 0; b < 4; ++b) {
      if ((*enables)[b % enables->size()] == TLM_BYTE_ENABLED) strobe |= uint8_t(1u << b);
    }
    return strobe;
  }

  void Window(bool read, int region, uint32_t offset, uint32_t value, uint32_t data,
              uint8_t strobe, const std::string& what) {
    std::vector<uint8_t>& bytes = x_.sram[region];
    std::vector<uint8_t>& known = x_.known[region];
    const bool shift_word = region == 4 && offset % 8 == 4;
    if (!read) {
      if (shift_word) {
        if (strobe & 1) bytes[offset] = uint8_t(data & 0xFF), known[offset] = 1;
        return;
      }
      for (int b = 0; b < 4; ++b) {
        if (strobe & (1u << b)) bytes[offset + b] = uint8_t(data >> (8 * b)), known[offset + b] = 1;
      }
      return;
    }
    if (shift_word) {
      FUZZ_CHECK(value == uint32_t(SignExtend(bytes[offset], 8)),
                 "{}: shift word 0x{:x}, expected 0x{:x}", what, value,
                 uint32_t(SignExtend(bytes[offset], 8)));
      return;
    }
    for (int b = 0; b < 4; ++b) {
      const auto byte = uint8_t(value >> (8 * b));
      if (!known[offset + b]) {  // written by a command: learnt here, checked from now on
        bytes[offset + b] = byte;
        known[offset + b] = 1;
      }
      FUZZ_CHECK(byte == bytes[offset + b], "{}: byte {} is 0x{:x}, expected 0x{:x}", what, b,
                 byte, bytes[offset + b]);
    }
  }

  void ReadRegister(uint32_t offset, int64_t cycle, uint32_t value, const std::string& what) {
    const arch::ArchConfig& c = x_.config;
    uint32_t expected = 0;
    switch (offset) {
      case kId: expected = 0x51414343; break;
      case kVersion:
        expected = 0x00020001;
        break;  // 2.1
      case kHwRows: expected = uint32_t(c.rows); break;
      case kHwCols: expected = uint32_t(c.cols); break;
      case kHwADepth: expected = c.a_depth; break;
      case kHwBDepth: expected = c.b_depth; break;
      case kHwBiasDepth: expected = c.bias_depth; break;
      case kHwRqDepth: expected = c.rq_depth; break;
      case kHwOutDepth: expected = c.out_depth; break;
      case kHwUnits:
        expected = 0x37;
        break;  // MAC, requant, LUT, ELTWISE, the slope stage
      case kHwLatency: expected = 0x01010104; break;
      case kHwLutSlots:
        expected = uint32_t(c.lut_slots);
        break;
      case kCtrl: expected = x_.irq_en ? 0x2 : 0; break;
      case kQBase: expected = x_.q_base; break;
      case kQCount: expected = x_.q_count; break;
      case kStatus:
        expected = (x_.Busy(cycle) ? 1u : 0u) | (x_.done ? 2u : 0u) | (x_.error ? 4u : 0u) |
                   x_.err_code << 8;
        break;
      default:
        if (IsCmd(offset)) {
          expected = x_.Cmd(offset);
          if (offset == kCmdShift) expected = uint32_t(SignExtend(expected, 8));
        } else if (IsSlope(offset)) {
          expected = x_.Slope(offset);
        } else if ((offset >= kPerfCycles && offset <= kPerfCmdCount) || offset == kPerfSlopeBusy) {
          if (!x_.PerfAt(offset, cycle, &expected)) {  // counting: up to its final value
            FUZZ_CHECK(value <= expected, "{}: perf counter {} while counting, final {}", what,
                       value, expected);
            return;
          }
        }
        break;  // reserved: 0
    }
    FUZZ_CHECK(value == expected, "{}: register 0x{:03x} reads 0x{:x}, expected 0x{:x}", what,
               offset, value, expected);
  }

  void WriteRegister(uint32_t offset, uint32_t data, int64_t cycle) {
    if (offset == kCtrl) {
      x_.irq_en = data & 2;
      if (data & kCtrlRunBit) {
        x_.Launch(cycle, /*BAD_SHAPE*/ 1);  // Q_COUNT = 0 (Op clears RUN otherwise)
      } else if (data & 1) {
        x_.Launch(cycle);
      }
    } else if (offset == kQBase) {
      x_.q_base = data & ~0x3Fu;
    } else if (offset == kQCount) {
      x_.q_count = data & 0xFFFFu;
    } else if (offset == kStatus) {
      if (data & 2) x_.done = false;
      if (data & 4) x_.error = false, x_.err_code = 0;
    } else if (IsCmd(offset)) {
      x_.Cmd(offset) = data & CmdMask(offset);
    } else if (IsSlope(offset)) {
      x_.Slope(offset) = data & SlopeMask(offset);
    }
  }

  // Runs the kernel to the middle of the next cycle and checks irq there.
  void Sync() {
    const int64_t cycle = Now() + 1;
    const sc_core::sc_time target = kPeriod * double(cycle) + kPeriod / 2;
    sc_core::sc_start(target - sc_core::sc_time_stamp());
    local_ = sc_core::SC_ZERO_TIME;
    x_.AdvanceTo(cycle);
    FUZZ_CHECK(irq_.read() == x_.Irq(cycle), "irq is {} in cycle {}, expected {}", irq_.read(),
               cycle, x_.Irq(cycle));
  }

  void Idle(int64_t cycles) { local_ += kPeriod * double(cycles); }
  void WaitDone() {
    if (x_.pending && x_.done_cycle > Now()) Idle(x_.done_cycle - Now());
    Sync();
  }

  // The start of every input: no command running, STATUS, CTRL and CMD_* cleared, SRAMs zeroed.
  void Reset() {
    WaitDone();
    Transfer(tlm::TLM_WRITE_COMMAND, kStatus, 0x6, 4, 4, nullptr);
    Transfer(tlm::TLM_WRITE_COMMAND, kCtrl, 0, 4, 4, nullptr);
    for (uint32_t offset = kCmdM; offset <= kCmdOp; offset += 4) {
      Transfer(tlm::TLM_WRITE_COMMAND, offset, 0, 4, 4, nullptr);
    }
    for (uint32_t offset : {uint32_t{kQBase}, uint32_t{kQCount}}) {
      Transfer(tlm::TLM_WRITE_COMMAND, offset, 0, 4, 4, nullptr);
    }
    for (int r = 1; r <= kLastWindow; ++r) {
      auto& image = dut_.state().srams().image(static_cast<arch::Region>(r));
      std::fill(image.begin(), image.end(), 0);
      std::fill(x_.sram[r].begin(), x_.sram[r].end(), 0);
      std::fill(x_.known[r].begin(), x_.known[r].end(), 1);
    }
    Sync();
  }

  // One operation from the bytes. Op byte: bits [1:0] 0 read, 1 write, 2 ignore, 3 other; bits
  // [3:2] the address: 0 a register (1 byte: offset / 4), 1 a window (region nibble, 20-bit
  // offset), 2 32 bits, 3 64 bits; bit 4: an odd payload (length, streaming width); bit 5: byte
  // enables (length, values); bits [7:6]: idle before it (0, 1 byte of cycles, 1 byte of ns, or
  // a synchronisation). "Other": 0 wait for the command's end, 1 synchronise, 2-3 idle 2 bytes of
  // cycles.
  void Op(Bytes& in) {
    const auto op = uint8_t(in.Take(1));
    const int kind = op & 3, mode = (op >> 2) & 3, before = op >> 6;
    if (before == 1) Idle(int64_t(in.Take(1)));
    if (before == 2) local_ += sc_core::sc_time(double(in.Take(1)), sc_core::SC_NS);
    if (before == 3) Sync();
    if (kind == 3) {
      if (mode == 0) WaitDone();
      else if (mode == 1) Sync();
      else Idle(int64_t(in.Take(2)));
      return;
    }
    uint64_t addr = 0;
    switch (mode) {
      case 0: addr = in.Take(2) & 0x7FF; break;
      case 1: addr = (in.Take(1) & 0xF) << 20 | (in.Take(3) & 0xFFFFF); break;
      case 2: addr = in.Take(4); break;
      default: addr = in.Take(8); break;
    }
    unsigned length = 4, streaming = 4;
    if (op & 0x10) {
      const auto shape = uint8_t(in.Take(1));
      length = shape & 0xF;
      if (length == 15) length = 16;
      streaming = (shape >> 4) == 0 ? length : (shape >> 4);
    }
    std::vector<unsigned char> enables;
    const bool with_enables = op & 0x20;
    if (with_enables) {
      const auto bits = uint8_t(in.Take(1));
      const unsigned n = bits >> 5;  // 0..7 enables
      for (unsigned i = 0; i < n; ++i) {
        const auto e = uint8_t(in.Take(1));
        enables.push_back(e < 0x80 ? TLM_BYTE_DISABLED : e < 0xF0 ? TLM_BYTE_ENABLED : e);
      }
      if (n == 0) {
        for (unsigned b = 0; b < 4; ++b) {
          enables.push_back((bits >> b) & 1 ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED);
        }
      }
    }
    const tlm::tlm_command command = kind == 0   ? tlm::TLM_READ_COMMAND
                                     : kind == 1 ? tlm::TLM_WRITE_COMMAND
                                                 : tlm::TLM_IGNORE_COMMAND;
    auto data = uint32_t(kind == 1 ? in.Take(4) : 0);
    // Only empty programs run (see kPerfDmaBusy): a RUN to CTRL with Q_COUNT > 0 goes out without
    // its RUN bit (the address's bits [1:0] are ignored, as the bus does).
    const bool to_ctrl = addr < (uint64_t{1} << 24) && (addr & ~uint64_t{3}) == kCtrl;
    if (kind == 1 && to_ctrl && x_.q_count != 0) data &= ~kCtrlRunBit;
    Transfer(command, addr, data, length, streaming, with_enables ? &enables : nullptr);
  }

 private:
  model::QaccTlm& dut_;
  sc_core::sc_signal<bool>& irq_;
  Expected& x_;
  tlm_utils::simple_initiator_socket<Initiator>& socket_;
  sc_core::sc_time local_ = sc_core::SC_ZERO_TIME;  // the initiator's time ahead of the kernel
};

arch::ArchConfig TinyConfig() {
  arch::ArchConfig c;
  c.name = "tiny";
  c.rows = 4;
  c.cols = 4;
  c.a_depth = 4;
  c.b_depth = 8;
  c.bias_depth = 2;
  c.rq_depth = 1;
  c.out_depth = 4;
  c.lut_slots = 1;  // a 512-byte LUT table window
  return c;
}

}  // namespace
}  // namespace qacc::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  using namespace qacc::fuzz;
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);
  devices = new std::vector<Device>;
  initiators = new std::vector<std::unique_ptr<Initiator>>;
  std::vector<qacc::arch::ArchConfig> configs = {TinyConfig()};
  for (const char* name : {"default", "rect_4x16", "tall_16x4"}) {
    configs.push_back(qacc::arch::LoadArchConfig(std::string(QACC_SOURCE_DIR) + "/configs/" + name +
                                                 ".json"));
  }
  for (size_t i = 0; i < configs.size(); ++i) {
    Device d;
    d.dut = std::make_unique<qacc::model::QaccTlm>(("dut_" + configs[i].name).c_str(), configs[i],
                                                   kPeriod);
    d.irq = std::make_unique<sc_core::sc_signal<bool>>(("irq_" + configs[i].name).c_str());
    d.dut->irq(*d.irq);
    d.expected = std::make_unique<Expected>(configs[i]);
    initiators->push_back(std::make_unique<Initiator>(("host_" + configs[i].name).c_str()));
    initiators->back()->socket.bind(d.dut->target_socket);
    devices->push_back(std::move(d));
  }
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaboration
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qacc::fuzz;
  Bytes in(data, size);
  const size_t index = size_t(in.Take(1)) % devices->size();
  Session session((*devices)[index], *(*initiators)[index]);
  session.Reset();
  while (!in.empty()) session.Op(in);
  session.WaitDone();
  return 0;
}
