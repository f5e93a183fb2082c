#include "model/srams.h"

#include <stdexcept>
#include <string>

namespace qacc::model {

namespace {

constexpr uint32_t kRqEntryBytes = 8;  // (multiplier, shift) per lane
constexpr uint32_t kRqShiftByte = 4;   // the shift's host word inside an entry
constexpr uint32_t kShiftMask = (uint32_t{1} << arch::kShiftBits) - 1;

}  // namespace

Srams::Srams(const arch::ArchConfig& config)
    : rows_(config.rows),
      cols_(config.cols),
      a_(size_t(config.a_depth) * config.a_word_bytes()),
      b_(size_t(config.b_depth) * config.b_word_bytes()),
      bias_(size_t(config.bias_depth) * config.bias_word_bytes()),
      rq_(size_t(config.rq_depth) * config.rq_word_bytes()),
      out_(size_t(config.out_depth) * config.out_word_bytes()),
      lut_(size_t(config.depth(arch::Region::kLut)) * config.lut_word_bytes()) {}

bool Srams::IsSramRegion(arch::Region region) {
  switch (region) {
    case arch::Region::kA:
    case arch::Region::kB:
    case arch::Region::kBias:
    case arch::Region::kRq:
    case arch::Region::kOut:
    case arch::Region::kLut:
      return true;
    default:
      return false;
  }
}

const std::vector<uint8_t>& Srams::image(arch::Region region) const {
  switch (region) {
    case arch::Region::kA:
      return a_;
    case arch::Region::kB:
      return b_;
    case arch::Region::kBias:
      return bias_;
    case arch::Region::kRq:
      return rq_;
    case arch::Region::kOut:
      return out_;
    case arch::Region::kLut:
      return lut_;
    default:
      return none_;
  }
}

std::vector<uint8_t>& Srams::image(arch::Region region) {
  return const_cast<std::vector<uint8_t>&>(static_cast<const Srams&>(*this).image(region));
}

uint32_t Srams::WindowBytes(arch::Region region) const {
  return static_cast<uint32_t>(image(region).size());
}

uint32_t Srams::Load32(const std::vector<uint8_t>& bytes, size_t offset) const {
  return uint32_t{bytes[offset]} | uint32_t{bytes[offset + 1]} << 8 |
         uint32_t{bytes[offset + 2]} << 16 | uint32_t{bytes[offset + 3]} << 24;
}

// A host access outside the SRAM is the caller's bug (the bus answers it with an error and never
// reaches the array): fail loudly instead of touching memory past the image.
void Srams::CheckHostAccess(arch::Region region, uint32_t offset) const {
  if (!IsSramRegion(region) || !InRange(region, offset)) {
    throw std::out_of_range("Srams: host access at window offset " + std::to_string(offset) +
                            " outside the SRAM (" + std::to_string(WindowBytes(region)) +
                            " bytes)");
  }
}

uint32_t Srams::HostRead(arch::Region region, uint32_t offset) const {
  CheckHostAccess(region, offset);
  offset &= ~uint32_t{3};
  const uint32_t value = Load32(image(region), offset);
  if (region == arch::Region::kRq && offset % kRqEntryBytes == kRqShiftByte) {
    return static_cast<uint32_t>(arch::SignExtend(value, arch::kShiftBits));
  }
  return value;
}

void Srams::HostWrite(arch::Region region, uint32_t offset, uint32_t data, uint8_t strobe) {
  CheckHostAccess(region, offset);
  offset &= ~uint32_t{3};
  std::vector<uint8_t>& bytes = image(region);
  if (region == arch::Region::kRq && offset % kRqEntryBytes == kRqShiftByte) {
    // Only bits [5:0] exist; the other bytes of the host word are not storage.
    if (strobe & 1u) bytes[offset] = static_cast<uint8_t>(data & kShiftMask);
    return;
  }
  for (int byte = 0; byte < 4; ++byte) {
    if (strobe & (1u << byte)) bytes[offset + byte] = static_cast<uint8_t>(data >> (8 * byte));
  }
}

int32_t Srams::bias(uint32_t word, int lane) const {
  return static_cast<int32_t>(Load32(bias_, (size_t(word) * cols_ + lane) * 4));
}

int32_t Srams::rq_mult(uint32_t word, int lane) const {
  return static_cast<int32_t>(Load32(rq_, (size_t(word) * cols_ + lane) * kRqEntryBytes));
}

int32_t Srams::rq_shift(uint32_t word, int lane) const {
  return arch::SignExtend(rq_[(size_t(word) * cols_ + lane) * kRqEntryBytes + kRqShiftByte],
                          arch::kShiftBits);
}

void Srams::WriteOutWord(uint32_t word, const std::vector<uint8_t>& data,
                         const std::vector<uint8_t>& be) {
  const size_t word_bytes = size_t(4) * cols_;
  if (data.size() != word_bytes || be.size() != word_bytes) {
    throw std::invalid_argument("WriteOutWord: data and be must have 4 * Cols bytes");
  }
  uint8_t* dst = &out_.at(size_t(word) * word_bytes + word_bytes - 1) - (word_bytes - 1);
  for (size_t j = 0; j < word_bytes; ++j) {
    if (be[j]) dst[j] = data[j];
  }
}

}  // namespace qacc::model
