#include "sim/cli/apply_tensor.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/cli/common.h"

namespace qacc::cli {

std::string MultiIndex(const std::vector<int64_t>& shape, int64_t index) {
  std::vector<int64_t> at(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    at[d] = shape[d] == 0 ? 0 : index % shape[d];
    index = shape[d] == 0 ? 0 : index / shape[d];
  }
  return fmt::format("[{}]", fmt::join(at, ", "));
}

CodeTensor ReadCodes(const std::string& path, const std::string& option, int64_t lo, int64_t hi,
                     const std::string& range) {
  golden::NpyArray array;
  try {
    array = golden::ReadNpy(path);
  } catch (const golden::NpyDtypeError& e) {
    // Its message lists float32 and float64 too, which apply refuses.
    throw UsageError(fmt::format(
        "{}: {}: unsupported dtype '{}'; expected integer codes: int8, uint8, int16, uint16 or "
        "int32 (little-endian)",
        option, path, e.descr));
  } catch (const golden::NpyError& e) {
    throw UsageError(fmt::format("{}: {}", option, e.what()));
  }
  if (!golden::IsIntegerDtype(array.dtype)) {
    throw UsageError(fmt::format(
        "{}: {}: dtype {} is not integer codes; expected int8, uint8, int16, uint16 or int32 "
        "(quantize the tensor first)",
        option, path, golden::NpyDtypeName(array.dtype)));
  }
  if (array.fortran_order) {
    throw UsageError(
        fmt::format("{}: {}: Fortran-ordered array; save it in C order "
                    "(numpy.ascontiguousarray)",
                    option, path));
  }
  CodeTensor tensor;
  tensor.shape = array.shape;
  tensor.dtype = array.dtype;
  tensor.codes.reserve(array.values.size());
  for (size_t i = 0; i < array.values.size(); ++i) {
    const auto code = static_cast<int64_t>(array.values[i]);
    if (code < lo || code > hi) {
      throw UsageError(
          fmt::format("{}: {}: element {} = {} is outside {}, {}..{} (shape {}, dtype {})", option,
                      path, MultiIndex(array.shape, static_cast<int64_t>(i)), code, range, lo, hi,
                      golden::ShapeString(array.shape), golden::NpyDtypeName(array.dtype)));
    }
    tensor.codes.push_back(code);
  }
  return tensor;
}

golden::NpyDtype DtypeFor(int64_t lo, int64_t hi) {
  using golden::NpyDtype;
  if (lo >= -128 && hi <= 127) return NpyDtype::kInt8;
  if (lo >= 0 && hi <= 255) return NpyDtype::kUint8;
  if (lo >= -32768 && hi <= 32767) return NpyDtype::kInt16;
  if (lo >= 0 && hi <= 65535) return NpyDtype::kUint16;
  return NpyDtype::kInt32;
}

std::string SerializeCodes(const std::vector<int64_t>& shape, const std::vector<int64_t>& codes,
                           int64_t lo, int64_t hi) {
  const std::vector<double> values(codes.begin(), codes.end());
  return golden::SerializeNpy(values, shape, DtypeFor(lo, hi), "--output");
}

}  // namespace qacc::cli
