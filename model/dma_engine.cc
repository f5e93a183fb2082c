#include "model/dma_engine.h"

namespace qacc::model {

namespace {

// rq SRAM lanes (architecture.md 3.1): 8 bytes, the shift word at +4 keeps bits [5:0] in its first
// byte; its other bytes are 0.
constexpr uint64_t kRqLaneBytes = 8;
constexpr uint64_t kRqShiftByte = 4;
constexpr uint8_t kShiftMask = (1u << arch::kShiftBits) - 1;
constexpr uint8_t kShiftSign = 1u << (arch::kShiftBits - 1);

// The byte a LOAD stores at rq window offset `offset` for the external byte `value` (17.4: as a
// window write).
uint8_t RqStoredByte(uint64_t offset, uint8_t value) {
  const uint64_t in_lane = offset % kRqLaneBytes;
  if (in_lane == kRqShiftByte) return value & kShiftMask;
  return in_lane > kRqShiftByte ? 0 : value;
}

// The byte a STORE sends for rq window offset `offset` (17.5: as a window read, the shift word
// sign-extended from bit 5). `lane` points at the lane's first byte in the image.
uint8_t RqReadByte(uint64_t offset, const uint8_t* lane) {
  const uint64_t in_lane = offset % kRqLaneBytes;
  if (in_lane < kRqShiftByte) return lane[in_lane];
  const bool negative = lane[kRqShiftByte] & kShiftSign;
  if (in_lane > kRqShiftByte) return negative ? 0xFF : 0x00;
  return uint8_t((lane[kRqShiftByte] & kShiftMask) | (negative ? ~kShiftMask : 0));
}

}  // namespace

DmaEngine::DmaEngine(const arch::ArchConfig& config, Srams& srams)
    : config_(config), srams_(srams) {}

void DmaEngine::Start(const DmaDesc& desc) {
  pattern_.emplace(config_, desc);
  completed_ = false;
  step_row_ = step_k_ = 0;
  req_row_ = req_beat_ = 0;
  read_credit_ = kMaxBurstBeats * config_.mem_max_outstanding;
  read_buffer_.clear();
  reads_in_flight_ = 0;
  aw_next_beat_ = 0;
  aw_pending_ = false;
  burst_left_ = 0;
  staging_strb_ = 0;
  write_credit_ = kWriteBufferBeats;
  write_buffer_.clear();
  bursts_issued_ = responses_ = 0;
}

bool DmaEngine::Drained(bool stopped) const {
  if (!pattern_ || completed_ || !stopped) return false;
  if (pattern_->desc().load) return reads_in_flight_ == 0;
  return burst_left_ == 0 && write_buffer_.empty() && responses_ == bursts_issued_;
}

void DmaEngine::AdvanceStep() {
  if (++step_k_ < pattern_->steps_per_row()) return;
  step_k_ = 0;
  ++step_row_;
  aw_next_beat_ = 0;
}

bool DmaEngine::CanRequest(bool read_slot_free) const {
  return read_slot_free && req_row_ < pattern_->rows() &&
         read_credit_ >= int(pattern_->BurstBeats(req_row_, req_beat_));
}

DmaSramAccess DmaEngine::Access(const DmaPattern::Step& step, bool write) const {
  DmaSramAccess access;
  const uint8_t sram = pattern_->desc().sram;
  const uint32_t word_bytes = SramWordBytes(config_, sram);
  access.valid = true;
  access.write = write;
  access.sram = sram;
  access.word = uint32_t(step.window_offset / word_bytes);
  access.offset = uint16_t(step.window_offset % word_bytes);
  access.bytes = uint16_t(step.bytes);
  return access;
}

void DmaEngine::Cycle(const CycleIn& in, CycleOut& out) {
  out = CycleOut{};
  if (!pattern_) return;
  if (pattern_->desc().load) {
    LoadCycle(in, out);
    return;
  }
  const bool held = aw_pending_;
  if (held) {
    out.aw_valid = true;
    out.aw_addr = aw_pending_addr_;
    out.aw_beats = aw_pending_beats_;
  }
  StoreCycle(in, out);
  aw_pending_ = out.aw_valid && !in.aw_ready;
  if (aw_pending_ && !held) {
    aw_pending_addr_ = out.aw_addr;
    aw_pending_beats_ = out.aw_beats;
  }
}

void DmaEngine::LoadCycle(const CycleIn& in, CycleOut& out) {
  const DmaPattern& p = *pattern_;
  const uint8_t sram = p.desc().sram;
  // Requests (17.4): one burst per cycle, in order, when its beats fit the credit.
  if (in.may_issue_read && CanRequest(true)) {
    const uint32_t beats = p.BurstBeats(req_row_, req_beat_);
    out.ar_valid = true;
    out.ar_addr = uint32_t((p.RowFirstBeat(req_row_) + req_beat_) * p.beat_bytes());
    out.ar_beats = beats;
    read_credit_ -= int(beats);
    ++reads_in_flight_;
    req_beat_ += beats;
    if (req_beat_ == p.RowBeats(req_row_)) {
      ++req_row_;
      req_beat_ = 0;
    }
  }
  // Writes: the next step, once its beat has arrived (the buffer holds only beats of earlier
  // cycles) and the compute engine leaves the write port free. Nothing more after a stop.
  if (in.stopped || !StepsLeft() || read_buffer_.empty()) return;
  if (in.compute.Writes(sram)) {
    out.port_stall = true;
    return;
  }
  const DmaPattern::Step step = p.StepAt(step_row_, step_k_);
  const Beat& beat = read_buffer_.front();
  std::vector<uint8_t>& image = srams_.image(static_cast<arch::Region>(sram));
  out.access = Access(step, /*write=*/true);
  for (uint32_t j = 0; j < step.bytes; ++j) {
    const uint64_t offset = step.window_offset + j;
    uint8_t value = beat[step.beat_offset + j];
    if (sram == kSramRq) value = RqStoredByte(offset, value);
    image[offset] = value;
    out.access.data[j] = value;
  }
  if (step.last_of_beat) {
    read_buffer_.pop_front();
    ++read_credit_;
  }
  AdvanceStep();
  if (!StepsLeft()) completed_ = out.completed = true;
}

void DmaEngine::StoreCycle(const CycleIn& in, CycleOut& out) {
  const DmaPattern& p = *pattern_;
  const uint8_t sram = p.desc().sram;
  const int credit_at_start = write_credit_;
  // Write data: the head beat, from the cycle after it entered the buffer.
  if (!write_buffer_.empty() && write_buffer_.front().ready <= in.cycle) {
    const TxBeat& head = write_buffer_.front();
    out.w_valid = true;
    out.w_data = head.data;
    out.w_strb = head.strb;
    out.w_last = head.last;
    if (in.w_ready) {
      out.w_handshake = true;
      write_buffer_.pop_front();
      ++write_credit_;
    }
  }
  // Write responses, in burst order; the last one completes the command (17.5), an error one
  // is EXT_FAULT (17.7) and completes nothing.
  if (in.b_valid) {
    ++responses_;
    if (in.b_error) {
      out.fault = true;
    } else if (!in.stopped && !StepsLeft() && responses_ == bursts_issued_) {
      completed_ = out.completed = true;
    }
  }
  // Reads: the next step, when the write port of the buffer has a credit for a completed beat and
  // the compute engine leaves the read port free. After a stop, only the open burst's steps.
  if (!StepsLeft() || (in.stopped && burst_left_ == 0)) return;
  const DmaPattern::Step step = p.StepAt(step_row_, step_k_);
  if (step.last_of_beat && credit_at_start < 1) return;
  const bool first_of_burst = step.first_of_beat && step.beat == aw_next_beat_;
  if (first_of_burst && aw_pending_) return;  // the previous burst's address is still held
  if (in.compute.Reads(sram)) {
    out.port_stall = true;
    return;
  }
  if (step.first_of_beat) {
    staging_.fill(0);
    staging_strb_ = 0;
    if (first_of_burst) {  // the first step of a burst issues its address
      const uint32_t beats = p.BurstBeats(step_row_, step.beat);
      out.aw_valid = true;
      out.aw_issue = true;
      out.aw_addr = uint32_t((p.RowFirstBeat(step_row_) + step.beat) * p.beat_bytes());
      out.aw_beats = beats;
      aw_next_beat_ += beats;
      burst_left_ = beats;
      ++bursts_issued_;
    }
  }
  const std::vector<uint8_t>& image = srams_.image(static_cast<arch::Region>(sram));
  out.access = Access(step, /*write=*/false);
  for (uint32_t j = 0; j < step.bytes; ++j) {
    const uint64_t offset = step.window_offset + j;
    staging_[step.beat_offset + j] =
        sram == kSramRq ? RqReadByte(offset, &image[offset - offset % kRqLaneBytes])
                        : image[offset];
    staging_strb_ |= uint64_t{1} << (step.beat_offset + j);
  }
  if (step.last_of_beat) {
    // Data at c + 1, the beat complete then; it enters the buffer at the end of c + 1.
    --write_credit_;
    write_buffer_.push_back({in.cycle + 2, staging_, staging_strb_, --burst_left_ == 0});
  }
  AdvanceStep();
}

void DmaEngine::OnReadBeat(const Beat& data, bool last_of_burst) {
  read_buffer_.push_back(data);
  if (last_of_burst) --reads_in_flight_;
}

bool DmaEngine::WaitsForMemory(bool stopped, bool read_slot_free) const {
  if (!pattern_ || completed_) return true;
  if (pattern_->desc().load) {
    const bool writes = !stopped && StepsLeft() && !read_buffer_.empty();
    return !writes && (stopped || !CanRequest(read_slot_free));
  }
  const bool reads = StepsLeft() && (!stopped || burst_left_ > 0);
  return !reads && write_buffer_.empty();
}

}  // namespace qacc::model
