#include "golden/npy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace qacc::golden {

// The element bytes are copied straight into float/double, which is right only on a little-endian
// host.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "npy.cc assumes a little-endian host");

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
// Magic (6) + major (1) + minor (1); the header length follows (2 bytes in 1.0, 4 in 2.0 and 3.0).
constexpr size_t kPreambleBytes = 8;
// numpy aligns the start of the data to this many bytes.
constexpr size_t kDataAlignment = 64;

[[noreturn]] void Fail(std::string_view name, std::string_view problem) {
  throw NpyError(fmt::format("{}: {}", name, problem));
}

uint32_t LoadLittleEndian(std::string_view bytes, size_t offset, size_t width) {
  uint32_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    value |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  }
  return value;
}

// The parsed header dict. Only the three keys numpy writes are allowed.
struct Header {
  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<int64_t>> shape;
};

// Recursive-descent parser for the one Python literal numpy writes: a dict of string keys whose
// values are a string, True/False, or a tuple of non-negative integers. Anything else is a
// malformed header.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view name) : text_(text), name_(name) {}

  Header Parse() {
    Header header;
    Expect('{');
    SkipSpace();
    while (Peek() != '}') {
      const std::string key = ParseString();
      Expect(':');
      if (key == "descr") {
        SetOnce(&header.descr, ParseString(), key);
      } else if (key == "fortran_order") {
        SetOnce(&header.fortran_order, ParseBool(), key);
      } else if (key == "shape") {
        SetOnce(&header.shape, ParseShape(), key);
      } else {
        Error(fmt::format("unexpected key '{}' (expected 'descr', 'fortran_order', 'shape')", key));
      }
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        SkipSpace();
      } else if (Peek() != '}') {
        Error("expected ',' or '}' after a value");
      }
    }
    ++pos_;
    SkipSpace();
    if (pos_ != text_.size()) Error("unexpected text after the closing '}'");
    if (!header.descr) Error("missing key 'descr'");
    if (!header.fortran_order) Error("missing key 'fortran_order'");
    if (!header.shape) Error("missing key 'shape'");
    return header;
  }

 private:
  [[noreturn]] void Error(std::string_view problem) const {
    Fail(name_, fmt::format("malformed header at character {}: {} (header: {})", pos_, problem,
                            std::string(text_)));
  }

  template <typename T>
  void SetOnce(std::optional<T>* slot, T value, std::string_view key) {
    if (slot->has_value()) Error(fmt::format("duplicate key '{}'", key));
    *slot = std::move(value);
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void Expect(char c) {
    SkipSpace();
    if (Peek() != c) Error(fmt::format("expected '{}'", c));
    ++pos_;
  }

  std::string ParseString() {
    SkipSpace();
    const char quote = Peek();
    if (quote != '\'' && quote != '"') Error("expected a quoted string");
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) Error("unterminated string");
    std::string value(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return value;
  }

  bool ParseBool() {
    SkipSpace();
    constexpr std::string_view kTrue = "True";
    constexpr std::string_view kFalse = "False";
    if (text_.substr(pos_, kTrue.size()) == kTrue) {
      pos_ += kTrue.size();
      return true;
    }
    if (text_.substr(pos_, kFalse.size()) == kFalse) {
      pos_ += kFalse.size();
      return false;
    }
    Error("expected True or False");
  }

  std::vector<int64_t> ParseShape() {
    Expect('(');
    std::vector<int64_t> shape;
    SkipSpace();
    bool trailing_comma = false;
    while (Peek() != ')') {
      shape.push_back(ParseDimension());
      SkipSpace();
      trailing_comma = Peek() == ',';
      if (trailing_comma) {
        ++pos_;
        SkipSpace();
      } else if (Peek() != ')') {
        Error("expected ',' or ')' in the shape");
      }
    }
    // Python spells a 1-tuple "(5,)"; "(5)" is the integer 5, not a shape.
    if (shape.size() == 1 && !trailing_comma) Error("a 1-d shape must be written (n,)");
    ++pos_;
    return shape;
  }

  int64_t ParseDimension() {
    if (!std::isdigit(static_cast<unsigned char>(Peek()))) {
      Error("expected a non-negative integer dimension");
    }
    int64_t value = 0;
    while (std::isdigit(static_cast<unsigned char>(Peek()))) {
      const int digit = Peek() - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) Error("dimension overflows");
      value = value * 10 + digit;
      ++pos_;
    }
    if (Peek() == 'L') ++pos_;  // Python 2 long literal, written by old numpy versions
    return value;
  }

  std::string_view text_;
  std::string_view name_;
  size_t pos_ = 0;
};

// Every supported dtype: its header descr, numpy name, item size and range.
struct DtypeInfo {
  NpyDtype dtype;
  std::string_view descr, name;
  size_t size;
  bool integer, is_signed;
};
constexpr DtypeInfo kDtypes[] = {
    {NpyDtype::kFloat32, "<f4", "float32", 4, false, true},
    {NpyDtype::kFloat64, "<f8", "float64", 8, false, true},
    {NpyDtype::kInt8, "|i1", "int8", 1, true, true},
    {NpyDtype::kUint8, "|u1", "uint8", 1, true, false},
    {NpyDtype::kInt16, "<i2", "int16", 2, true, true},
    {NpyDtype::kUint16, "<u2", "uint16", 2, true, false},
    {NpyDtype::kInt32, "<i4", "int32", 4, true, true},
};

const DtypeInfo& Info(NpyDtype dtype) {
  for (const DtypeInfo& info : kDtypes) {
    if (info.dtype == dtype) return info;
  }
  throw std::logic_error("npy: unknown dtype");
}

NpyDtype ParseDtype(const std::string& descr, std::string_view name) {
  for (const DtypeInfo& info : kDtypes) {
    // numpy writes one-byte types with '|', and accepts '<' and '=' for them too.
    const bool one_byte_alias = info.size == 1 && descr.size() == 3 &&
                                (descr[0] == '<' || descr[0] == '=') &&
                                descr.substr(1) == info.descr.substr(1);
    if (descr == info.descr || one_byte_alias) return info.dtype;
  }
  if (!descr.empty() && descr[0] == '>') {
    Fail(name, fmt::format("big-endian dtype '{}' is not supported; save it little-endian, e.g. "
                           "arr.astype('<{}')",
                           descr, descr.substr(1)));
  }
  std::string supported;
  for (const DtypeInfo& info : kDtypes) {
    supported += fmt::format("{}'{}' ({})", supported.empty() ? "" : ", ", info.descr, info.name);
  }
  throw NpyDtypeError(
      fmt::format("{}: unsupported dtype '{}'; supported: {}", name, descr, supported), descr);
}

size_t ItemSize(NpyDtype dtype) { return Info(dtype).size; }

// Element i of little-endian data of `dtype`, as a double (exact).
double LoadElement(const char* data, NpyDtype dtype) {
  switch (dtype) {
    case NpyDtype::kFloat32: {
      float v;
      std::memcpy(&v, data, sizeof v);
      return v;
    }
    case NpyDtype::kFloat64: {
      double v;
      std::memcpy(&v, data, sizeof v);
      return v;
    }
    case NpyDtype::kInt8:
      return static_cast<int8_t>(data[0]);
    case NpyDtype::kUint8:
      return static_cast<uint8_t>(data[0]);
    case NpyDtype::kInt16: {
      int16_t v;
      std::memcpy(&v, data, sizeof v);
      return v;
    }
    case NpyDtype::kUint16: {
      uint16_t v;
      std::memcpy(&v, data, sizeof v);
      return v;
    }
    case NpyDtype::kInt32: {
      int32_t v;
      std::memcpy(&v, data, sizeof v);
      return v;
    }
  }
  return 0;
}

void StoreElement(double value, NpyDtype dtype, std::string& bytes) {
  auto append = [&bytes](auto v) { bytes.append(reinterpret_cast<const char*>(&v), sizeof v); };
  switch (dtype) {
    case NpyDtype::kFloat32:
      return append(static_cast<float>(value));
    case NpyDtype::kFloat64:
      return append(value);
    case NpyDtype::kInt8:
      return append(static_cast<int8_t>(value));
    case NpyDtype::kUint8:
      return append(static_cast<uint8_t>(value));
    case NpyDtype::kInt16:
      return append(static_cast<int16_t>(value));
    case NpyDtype::kUint16:
      return append(static_cast<uint16_t>(value));
    case NpyDtype::kInt32:
      return append(static_cast<int32_t>(value));
  }
}

std::string ReadFileBytes(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) Fail(path, fmt::format("cannot open: {}", std::strerror(errno)));
  std::string bytes;
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) bytes.append(buffer, n);
  const bool failed = std::ferror(file) != 0;
  const int error = errno;
  std::fclose(file);
  if (failed) Fail(path, fmt::format("cannot read: {}", std::strerror(error)));
  return bytes;
}

}  // namespace

std::string_view NpyDtypeDescr(NpyDtype dtype) { return Info(dtype).descr; }
std::string_view NpyDtypeName(NpyDtype dtype) { return Info(dtype).name; }
bool IsIntegerDtype(NpyDtype dtype) { return Info(dtype).integer; }

int64_t ShapeElementCount(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

NpyArray ParseNpy(std::string_view bytes, std::string_view name) {
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    Fail(name, "not a .npy file: bad magic (expected the 6 bytes \\x93NUMPY)");
  }
  if (bytes.size() < kPreambleBytes) Fail(name, "truncated header: the version bytes are missing");
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if (minor != 0 || major < 1 || major > 3) {
    Fail(name, fmt::format("unsupported .npy format version {}.{} (supported: 1.0, 2.0, 3.0)",
                           major, minor));
  }
  const size_t length_bytes = major == 1 ? 2 : 4;
  const size_t header_start = kPreambleBytes + length_bytes;
  if (bytes.size() < header_start) {
    Fail(name, "truncated header: the header length field is incomplete");
  }
  const size_t header_length = LoadLittleEndian(bytes, kPreambleBytes, length_bytes);
  if (bytes.size() - header_start < header_length) {
    Fail(name, fmt::format("truncated header: {} header bytes announced, only {} present",
                           header_length, bytes.size() - header_start));
  }
  std::string_view text = bytes.substr(header_start, header_length);
  // numpy pads with spaces and ends the header with '\n'; trailing whitespace is not part of the
  // dict.
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  const Header header = HeaderParser(text, name).Parse();

  NpyArray array;
  array.dtype = ParseDtype(*header.descr, name);
  array.fortran_order = *header.fortran_order;
  array.shape = *header.shape;

  // Element count and byte size with overflow checks: a corrupt header must not wrap around. As numpy
  // does, the nonzero dimensions' product in bytes must fit in int64 even when another dimension is 0,
  // so that no product of dimensions a caller forms ((0, 2^62, 4) has one) can overflow.
  const size_t item = ItemSize(array.dtype);
  constexpr auto kMaxBytes = static_cast<size_t>(std::numeric_limits<int64_t>::max());
  size_t nonzero_bytes = item;
  bool empty = false;
  for (int64_t dim : array.shape) {
    const auto udim = static_cast<size_t>(dim);
    if (udim == 0) {
      empty = true;
    } else if (udim > kMaxBytes / nonzero_bytes) {
      Fail(name, fmt::format("shape {} is too large: more than 2^63 - 1 bytes of {}",
                             ShapeString(array.shape), *header.descr));
    } else {
      nonzero_bytes *= udim;
    }
  }
  const size_t count = empty ? 0 : nonzero_bytes / item;
  const size_t data_start = header_start + header_length;
  const size_t need = count * item;
  const size_t have = bytes.size() - data_start;
  if (have < need) {
    Fail(name, fmt::format("data is truncated: shape {} of {} needs {} bytes, the file has {}",
                           ShapeString(array.shape), *header.descr, need, have));
  }
  if (have > need) {
    Fail(name, fmt::format("{} unexpected bytes after the data of shape {} of {}", have - need,
                           ShapeString(array.shape), *header.descr));
  }

  array.values.resize(count);
  const char* data = bytes.data() + data_start;
  for (size_t i = 0; i < count; ++i) array.values[i] = LoadElement(data + i * item, array.dtype);
  return array;
}

NpyArray ReadNpy(const std::string& path) { return ParseNpy(ReadFileBytes(path), path); }

std::vector<double> ReadRawFloat32(const std::string& path) {
  const std::string bytes = ReadFileBytes(path);
  if (bytes.size() % sizeof(float) != 0) {
    Fail(path, fmt::format("raw float32 file size {} bytes is not a multiple of 4", bytes.size()));
  }
  std::vector<double> values(bytes.size() / sizeof(float));
  for (size_t i = 0; i < values.size(); ++i) {
    float v;
    std::memcpy(&v, bytes.data() + i * sizeof(float), sizeof(v));
    values[i] = v;
  }
  return values;
}

std::string SerializeNpy(const std::vector<double>& values, const std::vector<int64_t>& shape,
                         NpyDtype dtype, std::string_view name) {
  for (int64_t dim : shape) {
    if (dim < 0)
      Fail(name, fmt::format("cannot write shape {}: negative dimension", ShapeString(shape)));
  }
  if (ShapeElementCount(shape) != static_cast<int64_t>(values.size())) {
    Fail(name,
         fmt::format("cannot write shape {} with {} values", ShapeString(shape), values.size()));
  }
  const DtypeInfo& info = Info(dtype);
  if (info.integer) {
    const int bits = static_cast<int>(info.size) * 8;
    const double lo = info.is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
    const double hi = info.is_signed ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
    for (size_t i = 0; i < values.size(); ++i) {
      if (!(values[i] >= lo && values[i] <= hi) || values[i] != std::trunc(values[i])) {
        Fail(name, fmt::format("cannot write element {} = {} as {}: not an integer in {}..{}", i,
                               values[i], info.name, lo, hi));
      }
    }
  }
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                   info.descr, ShapeString(shape));
  // Pad with spaces so that magic + version + uint16 length + header + '\n' is a multiple of 64.
  const size_t unpadded = kPreambleBytes + 2 + header.size() + 1;
  header.append((kDataAlignment - unpadded % kDataAlignment) % kDataAlignment, ' ');
  header += '\n';
  if (header.size() > 0xffff) Fail(name, "cannot write: header longer than 65535 bytes");

  std::string bytes(kMagic);
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  bytes.reserve(bytes.size() + values.size() * info.size);
  for (double value : values) StoreElement(value, dtype, bytes);
  return bytes;
}

void WriteNpy(const std::string& path, const std::vector<double>& values,
              const std::vector<int64_t>& shape, NpyDtype dtype) {
  const std::string bytes = SerializeNpy(values, shape, dtype, path);
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) Fail(path, fmt::format("cannot create: {}", std::strerror(errno)));
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) Fail(path, fmt::format("cannot write: {}", std::strerror(errno)));
}

}  // namespace qacc::golden
