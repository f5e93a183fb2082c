// The byte image of an external memory (up to 4 GiB, mostly untouched by any one program): zero
// until written, and it costs only for the pages that are written. The bytes are one anonymous
// mapping, which the kernel backs with zero pages until a page is stored to; a bitmap marks every
// 4 KiB page that a mutable access of this class reached. Copies and comparisons visit only marked
// pages: an unmarked page holds zeros. Three 16 MiB images per co-simulation run (RTL side, model,
// golden) otherwise cost as much as a short program's simulation (docs/cosim.md, "Speed").
#ifndef QACC_GOLDEN_MEMORY_IMAGE_H_
#define QACC_GOLDEN_MEMORY_IMAGE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace qacc::golden {

class MemoryImage {
 public:
  static constexpr uint64_t kPageBytes = 4096;

  MemoryImage() = default;  // size 0
  // `size` bytes, all zero. Throws std::bad_alloc when the address space cannot be reserved.
  explicit MemoryImage(uint64_t size);
  MemoryImage(const MemoryImage& other);
  MemoryImage(MemoryImage&& other) noexcept;
  MemoryImage& operator=(const MemoryImage& other);
  MemoryImage& operator=(MemoryImage&& other) noexcept;
  ~MemoryImage();

  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // ---- Reading (no page is marked).
  uint8_t operator[](uint64_t offset) const { return bytes_[offset]; }
  const uint8_t* data() const { return bytes_; }
  const uint8_t* begin() const { return bytes_; }
  const uint8_t* end() const { return bytes_ + size_; }
  // Throws std::out_of_range past the end.
  uint8_t at(uint64_t offset) const;
  std::vector<uint8_t> Bytes(uint64_t offset, uint64_t n) const;

  // ---- Writing: every call marks the pages it reaches. Unchecked, like std::vector's.
  uint8_t& operator[](uint64_t offset) {
    Mark(offset, 1);
    return bytes_[offset];
  }
  // The bytes [offset, offset + n) for writing.
  uint8_t* Span(uint64_t offset, uint64_t n) {
    Mark(offset, n);
    return bytes_ + offset;
  }
  // Checked: throw std::out_of_range past the end.
  uint8_t& at(uint64_t offset);
  void Write(uint64_t offset, const uint8_t* data, uint64_t n);
  void Write(uint64_t offset, const std::vector<uint8_t>& data) {
    Write(offset, data.data(), data.size());
  }
  void Fill(uint8_t value);

  // Pages marked written (for tests).
  uint64_t marked_pages() const;

  bool operator==(const MemoryImage& other) const;
  bool operator!=(const MemoryImage& other) const { return !(*this == other); }

 private:
  void Mark(uint64_t offset, uint64_t n) {
    if (n == 0) return;
    const uint64_t last = (offset + n - 1) / kPageBytes;
    for (uint64_t page = offset / kPageBytes; page <= last; ++page) {
      marked_[page / 64] |= uint64_t{1} << (page % 64);
    }
  }
  // Calls visit(offset, bytes) for every page marked in this image or in `other` (same size).
  template <typename Visit>
  bool EveryMarkedPage(const MemoryImage& other, Visit&& visit) const;
  void Release();

  uint64_t size_ = 0;
  uint8_t* bytes_ = nullptr;      // the mapping, size_ rounded up to whole pages
  std::vector<uint64_t> marked_;  // one bit per page

  friend std::optional<uint64_t> FirstDifference(const MemoryImage& a, const MemoryImage& b,
                                                 uint64_t* count);
};

// The first offset at which two images differ, nullopt when they are equal, and in `count` (when
// given) how many bytes differ. The bytes past the end of the shorter image count as differing.
std::optional<uint64_t> FirstDifference(const MemoryImage& a, const MemoryImage& b,
                                        uint64_t* count = nullptr);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_MEMORY_IMAGE_H_
