// Reading and writing NumPy .npy files and raw float32 dumps, the inputs of calibration.
//
// .npy layout (numpy.lib.format): "\x93NUMPY", major, minor, a little-endian header length (uint16
// for version 1.0, uint32 for 2.0 and 3.0), then an ASCII (3.0: UTF-8) Python dict literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded with spaces and ended by '\n',
// then the raw element bytes. Only little-endian float32 ('<f4') and float64 ('<f8') are read: this
// is a little-endian machine and calibration needs real values; every other dtype is rejected by
// name.
#ifndef QACC_GOLDEN_NPY_H_
#define QACC_GOLDEN_NPY_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qacc::golden {

// Every malformed or unreadable input. Derives from std::invalid_argument so callers that map bad
// input to a usage error (the qacc CLI exits with 2) need no extra case. The message starts with
// the file name.
struct NpyError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A dtype that is not read at all ('<i8', '<c8', ...). `descr` is the header's spelling: a caller
// that takes only some of the supported dtypes names its own list instead of the message's.
struct NpyDtypeError : NpyError {
  NpyDtypeError(const std::string& message, std::string dtype_descr)
      : NpyError(message), descr(std::move(dtype_descr)) {}
  std::string descr;
};

enum class NpyDtype {
  kFloat32,  // '<f4'
  kFloat64,  // '<f8'
  kInt8,     // '|i1'
  kUint8,    // '|u1'
  kInt16,    // '<i2'
  kUint16,   // '<u2'
  kInt32,    // '<i4'
};

// "<f4", "|i1", ...: as written in the header.
std::string_view NpyDtypeDescr(NpyDtype dtype);
// "float32", "int8", ...: numpy's name.
std::string_view NpyDtypeName(NpyDtype dtype);
bool IsIntegerDtype(NpyDtype dtype);

struct NpyArray {
  NpyDtype dtype = NpyDtype::kFloat32;
  std::vector<int64_t> shape;  // empty for a 0-d array (one element)
  // True when the file stores the array in Fortran (column-major) order. The values are returned in
  // file order, not transposed: calibration only needs the multiset of values, for which order does
  // not matter. A caller that needs C-order indexing must check this flag.
  bool fortran_order = false;
  std::vector<double> values;  // every element converted to double (exact for every dtype)
};

// Product of the dimensions; 1 for a 0-d shape, 0 when any dimension is 0.
int64_t ShapeElementCount(const std::vector<int64_t>& shape);

// "(3, 4)", "(5,)", "()": the Python tuple spelling, used in headers and messages.
std::string ShapeString(const std::vector<int64_t>& shape);

// Parses the bytes of a whole .npy file. `name` prefixes every error message (normally the path).
// Throws NpyError for: bad magic, unsupported version, truncated header, a header that is not the
// expected dict, a missing/extra key, an unsupported or big-endian dtype, a negative or overflowing
// shape, and data shorter or longer than the shape requires.
NpyArray ParseNpy(std::string_view bytes, std::string_view name);

// Reads and parses `path`; an unreadable file throws NpyError naming it and the OS reason.
NpyArray ReadNpy(const std::string& path);

// Reads a headerless file of little-endian float32 values. Its size must be a multiple of 4 bytes.
std::vector<double> ReadRawFloat32(const std::string& path);

// The bytes of a version 1.0 .npy file in C order; the header is padded so the data starts at a
// multiple of 64 bytes, as numpy does. `values.size()` must equal the shape's element count. With
// kFloat32 every value is rounded to float (round to nearest even); an integer dtype requires
// integer values inside its range. Throws NpyError (prefixed with `name`) otherwise.
std::string SerializeNpy(const std::vector<double>& values, const std::vector<int64_t>& shape,
                         NpyDtype dtype, std::string_view name);

// Writes SerializeNpy(...) to `path`. Throws NpyError when the file cannot be written.
void WriteNpy(const std::string& path, const std::vector<double>& values,
              const std::vector<int64_t>& shape, NpyDtype dtype);

}  // namespace qacc::golden

#endif  // QACC_GOLDEN_NPY_H_
