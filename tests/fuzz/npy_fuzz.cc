// Harness `npy`: the .npy reader (golden/npy.cc) on any bytes, as `qacc calibrate` and `qacc apply`
// read their input files.
//
// Contract (golden/npy.h):
//  * ParseNpy either returns an array or throws NpyError whose message starts with the name;
//    no other exception, no crash.
//  * An accepted array: every dimension >= 0, the product of the nonzero dimensions times the item
//    size fits in int64 (numpy's own limit, so that no caller's product of dimensions can
//    overflow), the element count equals the shape's product, every value equals the element
//    decoded here from the file's last count * itemsize bytes (an independent decoder), and
//    SerializeNpy of it parses back to the same array.
//  * Through a file (a memfd, read by path): ReadNpy agrees with ParseNpy; ReadCodes (qacc apply)
//    either returns C-order integer codes inside its range, equal to the values, or throws
//    UsageError starting with its option; ReadRawFloat32 (calibrate --raw-f32) returns size / 4
//    floats equal to the bytes, or throws NpyError when the size is not a multiple of 4.
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "golden/npy.h"
#include "sim/cli/apply_tensor.h"
#include "sim/cli/common.h"
#include "tests/fuzz/fuzz_check.h"

namespace qacc::fuzz {
namespace {

using golden::NpyArray;
using golden::NpyDtype;
using golden::NpyError;

constexpr std::string_view kName = "fuzz.npy";

size_t ItemBytes(NpyDtype dtype) {
  switch (dtype) {
    case NpyDtype::kInt8:
    case NpyDtype::kUint8:
      return 1;
    case NpyDtype::kInt16:
    case NpyDtype::kUint16:
      return 2;
    case NpyDtype::kFloat32:
    case NpyDtype::kInt32:
      return 4;
    case NpyDtype::kFloat64:
      return 8;
  }
  FUZZ_CHECK(false, "unknown dtype {}", static_cast<int>(dtype));
}

// Little-endian element decoding, written independently of npy.cc.
double Decode(const unsigned char* p, NpyDtype dtype) {
  uint64_t raw = 0;
  const size_t n = ItemBytes(dtype);
  for (size_t i = 0; i < n; ++i) raw |= uint64_t{p[i]} << (8 * i);
  switch (dtype) {
    case NpyDtype::kInt8:
      return static_cast<int8_t>(raw);
    case NpyDtype::kUint8:
      return static_cast<uint8_t>(raw);
    case NpyDtype::kInt16:
      return static_cast<int16_t>(raw);
    case NpyDtype::kUint16:
      return static_cast<uint16_t>(raw);
    case NpyDtype::kInt32:
      return static_cast<int32_t>(raw);
    case NpyDtype::kFloat32: {
      const auto bits = static_cast<uint32_t>(raw);
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return f;
    }
    case NpyDtype::kFloat64: {
      double d;
      std::memcpy(&d, &raw, sizeof d);
      return d;
    }
  }
  return 0;
}

bool SameValue(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

void CheckSameArray(const NpyArray& a, const NpyArray& b, std::string_view what) {
  FUZZ_CHECK(a.dtype == b.dtype && a.shape == b.shape && a.values.size() == b.values.size(),
             "{}: dtype/shape/size differ", what);
  for (size_t i = 0; i < a.values.size(); ++i) {
    FUZZ_CHECK(SameValue(a.values[i], b.values[i]), "{}: element {}: {} vs {}", what, i,
               a.values[i], b.values[i]);
  }
}

// The accepted array against the bytes it came from.
void CheckAccepted(std::string_view bytes, const NpyArray& array) {
  const size_t item = ItemBytes(array.dtype);
  // numpy's limit: the nonzero dimensions' product, in bytes, fits (npy_mul_sizes_with_overflow).
  uint64_t nonzero_bytes = item;
  bool empty = false;
  for (int64_t dim : array.shape) {
    FUZZ_CHECK(dim >= 0, "negative dimension {} accepted", dim);
    if (dim == 0) {
      empty = true;
      continue;
    }
    FUZZ_CHECK(nonzero_bytes <= uint64_t(std::numeric_limits<int64_t>::max()) / uint64_t(dim),
               "shape {} accepted: its nonzero dimensions overflow int64 bytes",
               golden::ShapeString(array.shape));
    nonzero_bytes *= uint64_t(dim);
  }
  const uint64_t count = empty ? 0 : nonzero_bytes / item;
  FUZZ_CHECK(array.values.size() == count, "shape {} has {} elements, {} values returned",
             golden::ShapeString(array.shape), count, array.values.size());
  FUZZ_CHECK(golden::ShapeElementCount(array.shape) == int64_t(count),
             "ShapeElementCount {} != {}", golden::ShapeElementCount(array.shape), count);
  FUZZ_CHECK(bytes.size() >= count * item + 10, "{} data bytes in a file of {}", count * item,
             bytes.size());
  const auto* data =
      reinterpret_cast<const unsigned char*>(bytes.data()) + bytes.size() - count * item;
  for (size_t i = 0; i < count; ++i) {
    const double expected = Decode(data + i * item, array.dtype);
    FUZZ_CHECK(SameValue(array.values[i], expected), "element {}: read {}, the bytes say {}", i,
               array.values[i], expected);
  }
  // The writer's header for a long shape may exceed 64 KiB (a 1.0 header); that shape is not
  // written back.
  if (golden::ShapeString(array.shape).size() < 60000) {
    const std::string written =
        golden::SerializeNpy(array.values, array.shape, array.dtype, "written");
    CheckSameArray(golden::ParseNpy(written, "written"), array, "written back");
  }
}

// A file holding the input, readable by path, rewritten for every input.
class InputFile {
 public:
  InputFile() : fd_(memfd_create("qacc-fuzz-npy", 0)) {
    FUZZ_CHECK(fd_ >= 0, "memfd_create failed");
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  const std::string& Write(std::string_view bytes) {
    FUZZ_CHECK(ftruncate(fd_, 0) == 0, "ftruncate");
    FUZZ_CHECK(pwrite(fd_, bytes.data(), bytes.size(), 0) == ssize_t(bytes.size()), "pwrite");
    return path_;
  }

 private:
  int fd_;
  std::string path_;
};

void CheckFileReaders(std::string_view bytes, const NpyArray* parsed) {
  static InputFile file;
  const std::string& path = file.Write(bytes);

  try {
    const NpyArray array = golden::ReadNpy(path);
    FUZZ_CHECK(parsed != nullptr, "ReadNpy accepted what ParseNpy refused");
    CheckSameArray(array, *parsed, "ReadNpy");
  } catch (const NpyError& e) {
    FUZZ_CHECK(parsed == nullptr, "ReadNpy refused what ParseNpy accepted: {}", e.what());
    FUZZ_CHECK(StartsWith(e.what(), path + ": "), "message does not start with the path: {}",
               e.what());
  }

  // qacc apply's input: int8 codes for an odd size, int32 accumulators for an even one.
  const bool int8 = bytes.size() % 2 == 1;
  const int64_t lo = int8 ? -128 : INT32_MIN, hi = int8 ? 127 : INT32_MAX;
  try {
    const cli::CodeTensor tensor = cli::ReadCodes(path, "input", lo, hi, "the codes");
    FUZZ_CHECK(parsed != nullptr, "ReadCodes accepted what ParseNpy refused");
    FUZZ_CHECK(golden::IsIntegerDtype(parsed->dtype) && !parsed->fortran_order,
               "ReadCodes accepted a float or Fortran-ordered array");
    FUZZ_CHECK(tensor.shape == parsed->shape && tensor.codes.size() == parsed->values.size(),
               "ReadCodes: shape or size differs");
    for (size_t i = 0; i < tensor.codes.size(); ++i) {
      FUZZ_CHECK(tensor.codes[i] >= lo && tensor.codes[i] <= hi &&
                     double(tensor.codes[i]) == parsed->values[i],
                 "ReadCodes: element {} = {} (value {}) outside {}..{} or changed", i,
                 tensor.codes[i], parsed->values[i], lo, hi);
    }
  } catch (const cli::UsageError& e) {
    FUZZ_CHECK(StartsWith(e.what(), "input: "), "ReadCodes message does not name the option: {}",
               e.what());
  }

  try {
    const std::vector<double> values = golden::ReadRawFloat32(path);
    FUZZ_CHECK(bytes.size() % 4 == 0 && values.size() == bytes.size() / 4,
               "ReadRawFloat32: {} values from {} bytes", values.size(), bytes.size());
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    for (size_t i = 0; i < values.size(); ++i) {
      FUZZ_CHECK(SameValue(values[i], Decode(p + 4 * i, NpyDtype::kFloat32)),
                 "ReadRawFloat32: element {}", i);
    }
  } catch (const NpyError& e) {
    FUZZ_CHECK(bytes.size() % 4 != 0, "ReadRawFloat32 refused {} bytes: {}", bytes.size(),
               e.what());
    FUZZ_CHECK(StartsWith(e.what(), path + ": "), "message does not start with the path: {}",
               e.what());
  }
}

}  // namespace
}  // namespace qacc::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qacc::fuzz;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  NpyArray array;
  bool accepted = false;
  try {
    array = qacc::golden::ParseNpy(bytes, kName);
    accepted = true;
  } catch (const NpyError& e) {
    FUZZ_CHECK(StartsWith(e.what(), std::string(kName) + ": "),
               "NpyError message does not start with the name: {}", e.what());
  }
  if (accepted) CheckAccepted(bytes, array);
  CheckFileReaders(bytes, accepted ? &array : nullptr);
  return 0;
}
