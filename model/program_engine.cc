#include "model/program_engine.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "golden/progress.h"
#include "model/perf.h"

namespace qacc::model {

namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr uint32_t kQBaseMask = ~(kDescriptorBytes - 1);  // Q_BASE [5:0] read 0
constexpr uint32_t kQCountMask = 0xFFFF;                  // Q_COUNT [15:0]

Descriptor WordsOf(const std::array<uint8_t, kDescriptorBytes>& bytes) {
  Descriptor d{};
  for (int w = 0; w < kDescriptorWords; ++w) {
    for (int b = 0; b < 4; ++b) d[w] |= uint32_t{bytes[size_t(4 * w + b)]} << (8 * b);
  }
  return d;
}

}  // namespace

bool ProgramPerf::operator==(const ProgramPerf& o) const {
  return cycles == o.cycles && busy == o.busy && out_writes == o.out_writes &&
         feed_stall == o.feed_stall && dma_busy == o.dma_busy && compute_busy == o.compute_busy &&
         dma_wait == o.dma_wait && compute_wait == o.compute_wait && port_stall == o.port_stall &&
         rd_beats == o.rd_beats && wr_beats == o.wr_beats && overlap == o.overlap;
}

ProgramEngine::ProgramEngine(const arch::ArchConfig& config, ExtMemory& memory, Srams& srams,
                             uint32_t q_base, uint32_t q_count, const arch::Command& initial_cmd)
    : config_(config),
      memory_(memory),
      q_base_(q_base & kQBaseMask),
      q_count_(q_count & kQCountMask),
      memory_base_(memory.cycle()),
      dma_(config, srams),
      compute_(config, srams),
      mon_cmd_(initial_cmd),
      slope_regs_(initial_cmd.slope_regs) {
  if (!memory.Quiet()) {
    throw std::invalid_argument("ProgramEngine: the external memory has transfers in flight");
  }
}

// ---- Conditions on the state at the start of cycle c (17.3, 17.7) ---------------------------

bool ProgramEngine::CanStart(Engine e, uint64_t c) const {
  const Slot& s = slots_[e];
  if (s.state != EngineState::kIdle || s.queue.empty() || stopped_) return false;
  const Entry& head = s.queue.front();
  return head.pushed < c && (!head.header.wait || tokens_to_[e] > 0);
}

bool ProgramEngine::CanRetire(Engine e) const {
  return slots_[e].state == EngineState::kCompleted && tokens_to_[Other(e)] < kMaxTokens;
}

bool ProgramEngine::WaitsForToken(Engine e, uint64_t c) const {
  const Slot& s = slots_[e];
  // 17.8: whether or not the engines are stopped (an engine stopped by an EXT_FAULT whose head
  // waits for a token counts as waiting).
  if (s.state == EngineState::kCompleted) return tokens_to_[Other(e)] >= kMaxTokens;
  if (s.state != EngineState::kIdle || s.queue.empty()) return false;
  const Entry& head = s.queue.front();
  return head.pushed < c && head.header.wait && tokens_to_[e] == 0;
}

bool ProgramEngine::DmaRunning() const {
  return slots_[kDma].state == EngineState::kRunning;
}

bool ProgramEngine::SlopeOk() const {
  return slope_set_seen_ || arch::SlopeRegistersLegal(slope_regs_);
}

bool ProgramEngine::ComputeRunning(uint64_t c) const {
  return slots_[kCompute].state == EngineState::kRunning && c <= compute_.end_cycle();
}

bool ProgramEngine::FetcherQuiet() const {
  switch (fetch_) {
    case FetchState::kDone:
    case FetchState::kStopped:
      return true;
    case FetchState::kHold:
      return slots_[IsDmaOp(DecodeDescHeader(fetched_).op) ? kDma : kCompute].queue.size() >=
             size_t{kQueueDepth};
    case FetchState::kValidate:
      // At r + 1 a legal descriptor whose queue is full is already held (17.7): only an illegal one
      // (or a faulted fetch) still does something, its error, at the end of the cycle.
      return !fetch_error_ &&
             ValidateDescriptor(config_, fetched_, SlopeOk()) == ProgramError::kNone &&
             slots_[IsDmaOp(DecodeDescHeader(fetched_).op) ? kDma : kCompute].queue.size() >=
                 size_t{kQueueDepth};
    default:  // it issues or waits for its beats (in flight)
      return false;
  }
}

bool ProgramEngine::Quiet(uint64_t c) const {
  return reads_.empty() && writes_in_flight_ == 0 && FetcherQuiet() && !ComputeRunning(c) &&
         !DmaRunning() && !CanStart(kCompute, c) && !CanStart(kDma, c) && !CanRetire(kCompute) &&
         !CanRetire(kDma);
}

void ProgramEngine::Record(ProgramError error, uint32_t index) {
  // The lowest index wins; at equal indices the first recorded (17.7).
  if (!have_error_ || index < error_index_) {
    have_error_ = true;
    error_ = error;
    error_index_ = index;
  }
}

// ---- One cycle ------------------------------------------------------------------------------

void ProgramEngine::LaunchCycle(ProgramCycle* observed) {
  // 17.1: cycle 0 checks Q_COUNT; everything else is reset for cycle 1.
  if (q_count_ == 0) {
    Record(ProgramError::kBadShape, 0);
    finished_ = true;
    perf_.cycles = 1;
  }
  memory_.Commit(AxiMasterOut{});
  if (observed) {
    *observed = ProgramCycle{};
    observed->last = finished_;
    observed->mon_cmd = mon_cmd_;
  }
  cycle_ = 1;
}

void ProgramEngine::StartCommand(Engine e, uint64_t c, ProgramCycle* observed) {
  Slot& s = slots_[e];
  const Entry& head = s.queue.front();
  s.state = EngineState::kRunning;
  if (e == kDma) {
    dma_.Start(DecodeDmaDesc(head.d));
    return;
  }
  if (head.header.op == uint32_t(DescOp::kMove)) {
    compute_.StartMove(DecodeMoveDesc(head.d), c);
    return;
  }
  if (head.header.op == uint32_t(DescOp::kEltwise)) {
    compute_.StartEltwise(DecodeEltwiseDesc(head.d), c);
    return;
  }
  if (head.header.op == uint32_t(DescOp::kSet)) {
    // Validation passes a SET only of exactly the slope stage's registers: it writes them at the
    // end of c, each as it stores a word, and completes at c (units.md 19.4).
    for (size_t i = 0; i < slope_regs_.size(); ++i) {
      slope_regs_[i] =
          head.d[i] & arch::FindRegister(arch::reg::kSlopePosMult + 4 * uint32_t(i))->rw_mask;
    }
    compute_.StartSet(c);
    return;
  }
  arch::Command command = GemmCommandOf(head.d);
  command.slope_regs = slope_regs_;  // command state, read at its start (units.md 19.3)
  const arch::Timing timing = compute_.StartGemm(command, c);
  for (const arch::BeatUnitInfo& unit : arch::kBeatUnits) {
    perf_.busy[size_t(unit.beat)] += uint64_t(timing.Busy(unit.beat));
  }
  perf_.out_writes += uint64_t(timing.OutWrites());
  perf_.feed_stall += uint64_t(timing.FeedStall());
  gemm_active_ = true;
  gemm_timing_ = timing;
  gemm_start_ = c;
  mon_cmd_ = command;
  if (observed) observed->gemm_start = {true, head.index, command};
}

void ProgramEngine::Step(ProgramCycle* observed) {
  if (finished_) throw std::logic_error("ProgramEngine::Step: the program has ended");
  if (cycle_ == 0) {
    LaunchCycle(observed);
    return;
  }
  CycleWork w;
  w.c = cycle_;
  w.observed = observed;
  // Every other field of `observed` is written at the end of the cycle (not cleared here: Step
  // runs every cycle of a lockstep program).
  if (observed) observed->gemm_start.valid = false;
  // After an EXT_FAULT the fetcher does nothing more (it still takes the beats in flight).
  if (stopped_ && (fetch_ == FetchState::kIssue || fetch_ == FetchState::kValidate ||
                   fetch_ == FetchState::kHold)) {
    fetch_ = FetchState::kStopped;
  }
  if ((!reads_.empty() || writes_in_flight_ > 0) && memory_.Quiet() && !ar_pending_ &&
      !dma_.aw_pending()) {
    throw std::logic_error("ProgramEngine: cycle " + std::to_string(w.c) +
                           ": bursts in flight that the memory never accepted");
  }
  w.quiet = Quiet(w.c);
  w.in = memory_.Outputs();
  w.outstanding = int(reads_.size());
  w.occupancy[kDma] = slots_[kDma].queue.size();
  w.occupancy[kCompute] = slots_[kCompute].queue.size();
  w.tokens[kDma] = tokens_to_[kDma];
  w.tokens[kCompute] = tokens_to_[kCompute];
  w.retired_at_start = retired_;

  // The parts of the cycle, each defined `inline` below: called once per cycle, they are compiled
  // into Step (out of line they cost 0.2 % of a lockstep run's instructions).
  FetcherCycle(w);
  ComputeCycle(w);  // first: a MOVE started now uses the out read port in this cycle
  DmaCycle(w);
  PortCycle(w);
  EndOfCycle(w);
  if (observed) Observe(w, *observed);
  ++cycle_;
}

// Fetcher (17.2): the next address, the validation at r + 1, the push decision.
inline void ProgramEngine::FetcherCycle(CycleWork& w) {
  w.fetch_issue =
      fetch_ == FetchState::kIssue && w.outstanding < config_.mem_max_outstanding && !ar_pending_;
  if (w.fetch_issue) {
    w.m.ar_valid = true;
    w.m.ar_addr = q_base_ + next_ * kDescriptorBytes;  // mod 2^32
    w.m.ar_len = uint8_t(BeatsPerDescriptor() - 1);
  }
  if (fetch_ == FetchState::kValidate) {
    const ProgramError error =
        fetch_error_ ? ProgramError::kExtFault : ValidateDescriptor(config_, fetched_, SlopeOk());
    if (error != ProgramError::kNone) {
      Record(error, next_);
      w.fetch_error = true;
      w.fault = error == ProgramError::kExtFault;
      fetch_ = FetchState::kStopped;
    } else {
      fetch_ = FetchState::kHold;
    }
  }
  if (fetch_ == FetchState::kHold) {
    w.push_engine = IsDmaOp(DecodeDescHeader(fetched_).op) ? kDma : kCompute;
    w.push = w.occupancy[w.push_engine] < size_t{kQueueDepth};
  }
}

// Engines (17.3): completion, retirement and start on start-of-cycle counters. A retiring engine
// starts its next command in the next cycle; a command starts in the cycle after its push at the
// earliest.
void ProgramEngine::RetireOrWait(Engine e, CycleWork& w) {
  Slot& s = slots_[e];
  const Entry& head = s.queue.front();
  if (!head.header.signal || w.tokens[Other(e)] < kMaxTokens) {
    if (head.header.signal) ++w.token_delta[Other(e)];
    w.retire[e] = true;
    w.retire_pulse[e] = {true, head.index};
    s.state = EngineState::kIdle;
  } else {
    s.state = EngineState::kCompleted;
    w.waits[e] = true;
  }
}

void ProgramEngine::MaybeStart(Engine e, CycleWork& w) {
  if (CanStart(e, w.c)) {
    const Entry& head = slots_[e].queue.front();
    if (head.header.wait) --w.token_delta[e];
    w.start_pulse[e] = {true, head.index};
    StartCommand(e, w.c, w.observed);
    return;
  }
  w.waits[e] = WaitsForToken(e, w.c);
}

inline void ProgramEngine::ComputeCycle(CycleWork& w) {
  Slot& cs = slots_[kCompute];
  const EngineState state = cs.state;
  if (state == EngineState::kIdle) MaybeStart(kCompute, w);
  w.busy[kCompute] = cs.state == EngineState::kRunning;
  if (w.busy[kCompute]) {
    w.ports = compute_.PortsAt(w.c);
    compute_.Cycle(w.c, w.move_read, w.move_write, w.out_access);
  }
  // A SET completes in its start cycle (units.md 19.4), the others at their e (after their start).
  const bool set_started =
      state == EngineState::kIdle && cs.state == EngineState::kRunning && compute_.is_set();
  if ((state == EngineState::kRunning && w.c == compute_.end_cycle()) || set_started ||
      state == EngineState::kCompleted) {
    RetireOrWait(kCompute, w);
  }
}

inline void ProgramEngine::DmaCycle(CycleWork& w) {
  Slot& ds = slots_[kDma];
  // A command stopped by an EXT_FAULT that has drained runs this cycle, its last: it neither
  // completes nor retires (17.7).
  const bool drained = ds.state == EngineState::kRunning && dma_.Drained(stopped_);
  const EngineState state = ds.state;
  if (state == EngineState::kIdle) MaybeStart(kDma, w);
  w.busy[kDma] = ds.state == EngineState::kRunning;
  if (w.busy[kDma]) {
    DmaEngine::CycleIn din;
    din.cycle = w.c;
    din.stopped = stopped_;
    din.may_issue_read =
        !w.fetch_issue && !stopped_ && !ar_pending_ && w.outstanding < config_.mem_max_outstanding;
    din.compute = w.ports;
    din.aw_ready = w.in.aw_ready;
    din.w_ready = w.in.w_ready;
    din.b_valid = w.in.b_valid;
    din.b_error = w.in.b_resp != kAxiOkay;
    dma_.Cycle(din, w.dout);
    if (w.dout.fault) {
      Record(ProgramError::kExtFault, ds.queue.front().index);
      w.fault = true;
      w.dma_error = true;
    }
    if (w.dout.completed) RetireOrWait(kDma, w);
  } else if (w.in.b_valid) {
    throw std::logic_error("ProgramEngine: a write response without a STORE");
  }
  if (state == EngineState::kCompleted) RetireOrWait(kDma, w);
  if (drained) {
    dma_.Clear();
    ds.state = EngineState::kIdle;
  }
}

// The memory port (15): the master's channels of this cycle, then the read data and responses the
// memory gives in it.
inline void ProgramEngine::PortCycle(CycleWork& w) {
  const DmaEngine::CycleOut& dout = w.dout;
  AxiMasterOut& m = w.m;
  if (dout.ar_valid) {
    m.ar_valid = true;
    m.ar_addr = dout.ar_addr;
    m.ar_len = uint8_t(dout.ar_beats - 1);
  }
  if (dout.aw_valid) {
    m.aw_valid = true;
    m.aw_addr = dout.aw_addr;
    m.aw_len = uint8_t(dout.aw_beats - 1);
  }
  if (dout.w_valid) {
    m.w_valid = true;
    m.w_data = dout.w_data;
    m.w_strb = dout.w_strb;
    m.w_last = dout.w_last;
  }
  if (ar_pending_) {  // held until its handshake; nothing else was issued (15.1)
    m.ar_valid = true;
    m.ar_addr = ar_pending_addr_;
    m.ar_len = ar_pending_len_;
  }
  const AxiSlaveOut& in = w.in;
  ar_pending_ = m.ar_valid && !in.ar_ready;
  ar_pending_addr_ = m.ar_addr;
  ar_pending_len_ = m.ar_len;
  memory_.Commit(m);

  // Read data of this cycle, in burst order: usable from the next cycle.
  if (in.r_valid) {
    if (reads_.empty()) throw std::logic_error("ProgramEngine: read data without a burst");
    ReadBurst& burst = reads_.front();
    const bool last = --burst.beats_left == 0;
    const bool error = in.r_resp != kAxiOkay;
    ++perf_.rd_beats;
    if (burst.fetch) {
      const int d = config_.mem_data_bytes;
      std::copy_n(in.r_data.begin(), d, fetch_bytes_.begin() + fetched_beats_ * d);
      ++fetched_beats_;
      fetch_error_ = fetch_error_ || error;
      if (last) {
        fetched_ = WordsOf(fetch_bytes_);
        fetch_ = stopped_ ? FetchState::kStopped : FetchState::kValidate;
      }
    } else {
      if (!dma_.has_command()) throw std::logic_error("ProgramEngine: a read beat without a LOAD");
      dma_.OnReadBeat(in.r_data, last);
      if (error) {
        Record(ProgramError::kExtFault, slots_[kDma].queue.front().index);
        w.fault = true;
        w.dma_error = true;
      }
    }
    if (last) reads_.pop_front();
  }
  if (dout.w_handshake) ++perf_.wr_beats;
  if (dout.aw_issue) ++writes_in_flight_;
  if (in.b_valid) --writes_in_flight_;
}

// End of the cycle: the flops' next values, token counters (17.3) and counters (17.8).
inline void ProgramEngine::EndOfCycle(CycleWork& w) {
  if (w.fetch_issue) {
    reads_.push_back({true, uint32_t(BeatsPerDescriptor())});
    fetch_ = FetchState::kAwait;
    fetched_beats_ = 0;
    fetch_error_ = false;
  }
  if (w.dout.ar_valid) reads_.push_back({false, w.dout.ar_beats});
  if (w.push) {
    Entry pushed;
    pushed.index = next_;
    pushed.d = fetched_;
    pushed.header = DecodeDescHeader(fetched_);
    pushed.pushed = w.c;
    slots_[w.push_engine].queue.push_back(pushed);
    slope_set_seen_ = slope_set_seen_ || SetsSlopeRegisters(fetched_);
    ++next_;
    fetch_ = next_ == q_count_ ? FetchState::kDone : FetchState::kIssue;
  }
  for (Engine e : {kDma, kCompute}) {
    if (w.retire[e]) {
      slots_[e].queue.pop_front();
      ++retired_;
    }
    tokens_to_[e] += w.token_delta[e];
  }
  perf_.dma_busy += w.busy[kDma];
  perf_.compute_busy += w.busy[kCompute];
  perf_.overlap += w.busy[kDma] && w.busy[kCompute];
  perf_.dma_wait += w.waits[kDma];
  perf_.compute_wait += w.waits[kCompute];
  perf_.port_stall += w.dout.port_stall;
  stopped_ = stopped_ || w.fault;
  if (w.quiet) {
    finished_ = true;
    perf_.cycles = w.c + 1;
  }
}

// The observables of the cycle (data_movement.md 18).
inline void ProgramEngine::Observe(const CycleWork& w, ProgramCycle& o) const {
  o.cycle = w.c;
  o.last = w.quiet;
  o.axi = w.m;
  o.d2c = uint8_t(w.tokens[kCompute]);
  o.c2d = uint8_t(w.tokens[kDma]);
  o.dma_queue = uint8_t(w.occupancy[kDma]);
  o.compute_queue = uint8_t(w.occupancy[kCompute]);
  o.retired = w.retired_at_start;
  o.dma_start = w.start_pulse[kDma];
  o.dma_retire = w.retire_pulse[kDma];
  o.compute_start = w.start_pulse[kCompute];
  o.compute_retire = w.retire_pulse[kCompute];
  o.dma_wait = w.waits[kDma];
  o.compute_wait = w.waits[kCompute];
  o.port_stall = w.dout.port_stall;
  o.dma_sram = w.dout.access;
  o.move_read = w.move_read;
  o.move_write = w.move_write;
  o.out_access = w.out_access;
  o.mon_cmd = mon_cmd_;
  o.dma_error = w.dma_error;
  o.fetch_error = w.fetch_error;
}

// ---- Skipping idle cycles -------------------------------------------------------------------

ProgramEngine::RegisterState ProgramEngine::register_state() const {
  RegisterState r;
  r.cycle = cycle_;
  r.finished = finished_;
  r.retired = retired_;
  r.d2c = tokens_to_[kCompute];
  r.c2d = tokens_to_[kDma];
  r.perf = perf_;
  r.gemm_active = gemm_active_;
  r.gemm_timing = gemm_timing_;
  r.gemm_start = gemm_start_;
  r.slope_regs = slope_regs_;
  return r;
}

ProgramRegisters ProgramEngine::VisibleRegisters(const RegisterState& s) {
  ProgramRegisters r;
  r.retired = s.retired;
  r.d2c = s.d2c;
  r.c2d = s.c2d;
  r.perf = s.perf;
  r.slope_regs = s.slope_regs;
  if (!s.finished) r.perf.cycles = s.cycle;
  // The GEMM in flight has added its final counts at its start; the registers count its events
  // cycle by cycle (perf.h: an event of cycle x from x + 1 on).
  const int64_t rel = int64_t(s.cycle) - int64_t(s.gemm_start);
  if (s.gemm_active && rel < s.gemm_timing.E()) {
    const PerfCounters now = PerfAt(s.gemm_timing, rel);
    const PerfCounters end = PerfAt(s.gemm_timing, s.gemm_timing.E());
    for (size_t u = 0; u < r.perf.busy.size(); ++u) r.perf.busy[u] -= end.busy[u] - now.busy[u];
    r.perf.out_writes -= end.out_writes - now.out_writes;
    r.perf.feed_stall -= end.feed_stall - now.feed_stall;
  }
  return r;
}

uint64_t ProgramEngine::SkipIdle(uint64_t limit) {
  if (finished_ || cycle_ == 0) return 0;
  const uint64_t c = cycle_;
  if (stopped_ && (fetch_ == FetchState::kIssue || fetch_ == FetchState::kValidate ||
                   fetch_ == FetchState::kHold)) {
    fetch_ = FetchState::kStopped;
  }
  if (Quiet(c) || ar_pending_ || dma_.aw_pending()) return 0;
  const bool read_slot_free = int(reads_.size()) < config_.mem_max_outstanding;
  switch (fetch_) {
    case FetchState::kIssue:
      if (read_slot_free) return 0;
      break;
    case FetchState::kValidate:
      return 0;
    case FetchState::kHold:
      if (!FetcherQuiet()) return 0;  // it pushes now
      break;
    default:  // waits for its beats, or has ended
      break;
  }
  const Slot& cs = slots_[kCompute];
  if (cs.state == EngineState::kRunning &&
      (compute_.steps_each_cycle() || c >= compute_.end_cycle())) {
    return 0;
  }
  if (CanStart(kCompute, c) || CanRetire(kCompute)) return 0;
  const Slot& ds = slots_[kDma];
  if (ds.state == EngineState::kRunning &&
      (dma_.Drained(stopped_) || !dma_.WaitsForMemory(stopped_, read_slot_free))) {
    return 0;
  }
  if (CanStart(kDma, c) || CanRetire(kDma)) return 0;

  const uint64_t memory_event = memory_.NextEventCycle();
  uint64_t target = memory_event == kNever ? kNever : memory_event - memory_base_;
  if (cs.state == EngineState::kRunning) target = std::min(target, compute_.end_cycle());
  if (target == kNever) {
    throw std::logic_error("ProgramEngine: cycle " + std::to_string(c) +
                           ": nothing can happen, yet the program is not quiet");
  }
  target = std::min(target, limit);
  if (target <= c) return 0;
  const uint64_t n = target - c;
  const bool dma_busy = DmaRunning(), compute_busy = ComputeRunning(c);
  perf_.dma_busy += dma_busy ? n : 0;
  perf_.compute_busy += compute_busy ? n : 0;
  perf_.overlap += dma_busy && compute_busy ? n : 0;
  perf_.dma_wait += WaitsForToken(kDma, c) ? n : 0;
  perf_.compute_wait += WaitsForToken(kCompute, c) ? n : 0;
  memory_.Idle(n);
  cycle_ += n;
  return n;
}

ProgramRunResult ProgramEngine::result() const {
  if (!finished_) throw std::logic_error("ProgramEngine::result: the program has not ended");
  ProgramRunResult r;
  r.retired = retired_;
  r.perf = perf_;
  if (have_error_) {
    r.error = error_;
    r.error_index = error_index_;
  } else if (retired_ != q_count_) {
    // DEADLOCK: the lowest index at the head of a queue (17.7).
    r.error = ProgramError::kDeadlock;
    r.error_index = next_;
    for (const Slot& s : slots_) {
      if (!s.queue.empty()) r.error_index = std::min<int64_t>(r.error_index, s.queue.front().index);
    }
  }
  return r;
}

ProgramRunResult RunProgram(const arch::ArchConfig& config, ExtMemory& memory, Srams& srams,
                            uint32_t q_base, uint32_t q_count, const ProgramRunOptions& options) {
  ProgramEngine engine(config, memory, srams, q_base, q_count, options.initial_cmd);
  const bool skip = options.skip_idle && !options.observer;
  ProgramCycle cycle;
  for (uint64_t step = 0; !engine.finished(); ++step) {
    // A sign of life for a terminal (golden/progress.h).
    if (step % 4096 == 0) {
      golden::ReportProgress("model", "descriptors", engine.register_state().retired, q_count);
    }
    if (skip) engine.SkipIdle();
    if (options.observer) {
      engine.Step(&cycle);
      options.observer(cycle);
    } else {
      engine.Step(nullptr);
    }
  }
  return engine.result();
}

void AddPerf(ProgramPerf& sum, const ProgramPerf& part) {
  sum.cycles += part.cycles;
  for (size_t u = 0; u < sum.busy.size(); ++u) sum.busy[u] += part.busy[u];
  sum.out_writes += part.out_writes;
  sum.feed_stall += part.feed_stall;
  sum.dma_busy += part.dma_busy;
  sum.compute_busy += part.compute_busy;
  sum.dma_wait += part.dma_wait;
  sum.compute_wait += part.compute_wait;
  sum.port_stall += part.port_stall;
  sum.rd_beats += part.rd_beats;
  sum.wr_beats += part.wr_beats;
  sum.overlap += part.overlap;
}

ProgramRunResult RunLaunches(const arch::ArchConfig& config, ExtMemory& memory, Srams& srams,
                             const std::vector<ProgramLaunchSpec>& launches,
                             const ProgramRunOptions& options) {
  ProgramRunResult total;
  for (size_t l = 0; l < launches.size(); ++l) {
    if (l > 0) {
      // The memory is at the cycle DONE became visible (the one after the program's last); the
      // driver's accesses (STATUS read, Q_BASE, Q_COUNT, CTRL.RUN) keep the port idle.
      memory.Idle(uint64_t(arch::kRelaunchCycles));
      total.perf.cycles += uint64_t(arch::kRelaunchCycles);
    }
    const ProgramLaunchSpec& launch = launches[l];
    if (launch.q_count > arch::kMaxQCount) {
      throw std::invalid_argument("RunLaunches: launch " + std::to_string(l) + " has " +
                                  std::to_string(launch.q_count) + " descriptors, Q_COUNT holds " +
                                  std::to_string(arch::kMaxQCount));
    }
    const ProgramRunResult r =
        RunProgram(config, memory, srams, launch.q_base, launch.q_count, options);
    AddPerf(total.perf, r.perf);
    total.retired += r.retired;
    if (r.error != ProgramError::kNone) {
      total.error = r.error;
      total.error_index = r.error_index + int64_t(launch.first);
      break;
    }
  }
  return total;
}

}  // namespace qacc::model
