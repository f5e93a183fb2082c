#include "golden/memory_image.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace qacc::golden {

namespace {

uint64_t Pages(uint64_t size) {
  return (size + MemoryImage::kPageBytes - 1) / MemoryImage::kPageBytes;
}

// Adds the bytes in [begin, end) where a and b differ to `count`, keeping the first in `first`.
void CountDifferences(const uint8_t* a, const uint8_t* b, uint64_t begin, uint64_t end,
                      std::optional<uint64_t>& first, uint64_t& count) {
  for (uint64_t i = begin; i < end; ++i) {
    if (a[i] == b[i]) continue;
    if (!first) first = i;
    ++count;
  }
}

// Private and anonymous: zero pages until written; MAP_NORESERVE because a 4 GiB image is mostly
// never touched.
uint8_t* Map(uint64_t size) {
  if (size == 0) return nullptr;
  void* p = mmap(nullptr, Pages(size) * MemoryImage::kPageBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return static_cast<uint8_t*>(p);
}

}  // namespace

template <typename Visit>
bool MemoryImage::EveryMarkedPage(const MemoryImage& other, Visit&& visit) const {
  for (size_t w = 0; w < marked_.size(); ++w) {
    for (uint64_t bits = marked_[w] | other.marked_[w]; bits != 0; bits &= bits - 1) {
      const uint64_t offset = (w * 64 + uint64_t(__builtin_ctzll(bits))) * kPageBytes;
      if (!visit(offset, std::min(kPageBytes, size_ - offset))) return false;
    }
  }
  return true;
}

MemoryImage::MemoryImage(uint64_t size)
    : size_(size), bytes_(Map(size)), marked_((Pages(size) + 63) / 64, 0) {}

MemoryImage::MemoryImage(const MemoryImage& other)
    : size_(other.size_), bytes_(Map(other.size_)), marked_(other.marked_) {
  other.EveryMarkedPage(other, [&](uint64_t offset, uint64_t n) {
    std::memcpy(bytes_ + offset, other.bytes_ + offset, n);
    return true;
  });
}

MemoryImage::MemoryImage(MemoryImage&& other) noexcept
    : size_(std::exchange(other.size_, 0)),
      bytes_(std::exchange(other.bytes_, nullptr)),
      marked_(std::move(other.marked_)) {
  other.marked_.clear();
}

MemoryImage& MemoryImage::operator=(const MemoryImage& other) {
  if (this != &other) *this = MemoryImage(other);
  return *this;
}

MemoryImage& MemoryImage::operator=(MemoryImage&& other) noexcept {
  if (this != &other) {
    Release();
    size_ = std::exchange(other.size_, 0);
    bytes_ = std::exchange(other.bytes_, nullptr);
    marked_ = std::move(other.marked_);
    other.marked_.clear();
  }
  return *this;
}

MemoryImage::~MemoryImage() { Release(); }

void MemoryImage::Release() {
  if (bytes_ != nullptr) munmap(bytes_, Pages(size_) * kPageBytes);
  bytes_ = nullptr;
  size_ = 0;
  marked_.clear();
}

uint8_t MemoryImage::at(uint64_t offset) const {
  if (offset >= size_) {
    throw std::out_of_range("memory image: offset " + std::to_string(offset) + " past its " +
                            std::to_string(size_) + " bytes");
  }
  return bytes_[offset];
}

uint8_t& MemoryImage::at(uint64_t offset) {
  static_cast<const MemoryImage&>(*this).at(offset);  // the check
  return (*this)[offset];
}

std::vector<uint8_t> MemoryImage::Bytes(uint64_t offset, uint64_t n) const {
  if (offset > size_ || n > size_ - offset) {
    throw std::out_of_range("memory image: bytes " + std::to_string(offset) + ".." +
                            std::to_string(offset + n) + " past its " + std::to_string(size_));
  }
  return std::vector<uint8_t>(bytes_ + offset, bytes_ + offset + n);
}

void MemoryImage::Write(uint64_t offset, const uint8_t* data, uint64_t n) {
  if (offset > size_ || n > size_ - offset) {
    throw std::out_of_range("memory image: write of " + std::to_string(n) + " bytes at " +
                            std::to_string(offset) + " past its " + std::to_string(size_));
  }
  if (n != 0) std::memcpy(Span(offset, n), data, n);
}

void MemoryImage::Fill(uint8_t value) {
  if (size_ == 0) return;
  std::memset(Span(0, size_), value, size_);
}

uint64_t MemoryImage::marked_pages() const {
  uint64_t n = 0;
  for (uint64_t w : marked_) n += uint64_t(__builtin_popcountll(w));
  return n;
}

bool MemoryImage::operator==(const MemoryImage& other) const {
  if (size_ != other.size_) return false;
  return EveryMarkedPage(other, [&](uint64_t offset, uint64_t n) {
    return std::memcmp(bytes_ + offset, other.bytes_ + offset, n) == 0;
  });
}

std::optional<uint64_t> FirstDifference(const MemoryImage& a, const MemoryImage& b,
                                        uint64_t* count) {
  if (a.size_ != b.size_) {
    // Compare the common bytes as images of the shorter size would be compared.
    const MemoryImage& shorter = a.size_ < b.size_ ? a : b;
    const MemoryImage& longer = a.size_ < b.size_ ? b : a;
    std::optional<uint64_t> first;
    uint64_t n = 0;
    CountDifferences(shorter.bytes_, longer.bytes_, 0, shorter.size_, first, n);
    if (!first) first = shorter.size_;
    if (count != nullptr) *count = n + (longer.size_ - shorter.size_);
    return first;
  }
  std::optional<uint64_t> first;
  uint64_t n = 0;
  a.EveryMarkedPage(b, [&](uint64_t offset, uint64_t bytes) {
    if (std::memcmp(a.bytes_ + offset, b.bytes_ + offset, bytes) != 0) {
      CountDifferences(a.bytes_, b.bytes_, offset, offset + bytes, first, n);
    }
    return true;
  });
  if (count != nullptr) *count = n;
  return first;
}

}  // namespace qacc::golden
