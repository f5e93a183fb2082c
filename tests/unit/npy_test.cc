// .npy reading and writing against files assembled byte by byte from the format description
// (numpy.lib.format), and, when available, against files numpy itself writes and reads.
#include "golden/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace qacc::golden {
namespace {

using namespace std::string_literals;  // "..."s keeps embedded NUL bytes

// Little-endian bit patterns, written out by hand (IEEE 754):
const std::string kF4One = "\x00\x00\x80\x3f"s;                         //  1.0f
const std::string kF4MinusTwoHalf = "\x00\x00\x20\xc0"s;                // -2.5f
const std::string kF4Tenth = "\xcd\xcc\xcc\x3d"s;                       //  0.1f = 0x3dcccccd
const std::string kF8Half = "\x00\x00\x00\x00\x00\x00\xe0\x3f"s;        //  0.5
const std::string kF8MinusThree = "\x00\x00\x00\x00\x00\x00\x08\xc0"s;  // -3.0
const std::string kF8One = "\x00\x00\x00\x00\x00\x00\xf0\x3f"s;         //  1.0

// Magic + version + header length + `dict` padded with spaces and '\n' to a 64-byte boundary.
// Version 1.0 has a 2-byte length, 2.0 and 3.0 a 4-byte one.
std::string File(int major, const std::string& dict, const std::string& data) {
  const size_t length_bytes = major == 1 ? 2 : 4;
  std::string header = dict;
  while ((8 + length_bytes + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY"s;
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < length_bytes; ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string V1(const std::string& dict, const std::string& data) { return File(1, dict, data); }

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// Expects ParseNpy to throw NpyError whose message names the file and contains `problem`.
void ExpectError(const std::string& bytes, const std::string& problem) {
  try {
    ParseNpy(bytes, "bad.npy");
    ADD_FAILURE() << "no error, expected: " << problem;
  } catch (const NpyError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("bad.npy: ", 0), 0u) << what;
    EXPECT_NE(what.find(problem), std::string::npos) << what;
  }
}

class TempDir {
 public:
  TempDir()
      : path_(std::filesystem::temp_directory_path() /
              ("qacc_npy_test_" + std::to_string(getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& bytes) const {
    const auto file = path_ / name;
    std::ofstream(file, std::ios::binary) << bytes;
    return file.string();
  }
  std::string Path(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(ParseNpy, Float32Vector) {
  const NpyArray a = ParseNpy(V1("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                                 kF4One + kF4MinusTwoHalf + kF4Tenth),
                              "a.npy");
  EXPECT_EQ(a.dtype, NpyDtype::kFloat32);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{3}));
  EXPECT_FALSE(a.fortran_order);
  ASSERT_EQ(a.values.size(), 3u);
  EXPECT_EQ(a.values[0], 1.0);
  EXPECT_EQ(a.values[1], -2.5);
  EXPECT_EQ(a.values[2], 0.100000001490116119384765625);  // 0x3dcccccd exactly
}

TEST(ParseNpy, Float64Matrix3x4) {
  // Twelve elements: 0.5, -3.0, 1.0 repeated; C order is file order.
  const NpyArray a = ParseNpy(V1("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }",
                                 Repeat(kF8Half + kF8MinusThree + kF8One, 4)),
                              "m.npy");
  EXPECT_EQ(a.dtype, NpyDtype::kFloat64);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{3, 4}));
  ASSERT_EQ(a.values.size(), 12u);
  for (size_t i = 0; i < 12; i += 3) {
    EXPECT_EQ(a.values[i], 0.5);
    EXPECT_EQ(a.values[i + 1], -3.0);
    EXPECT_EQ(a.values[i + 2], 1.0);
  }
}

TEST(ParseNpy, ZeroDimensionalHoldsOneElement) {
  const NpyArray a = ParseNpy(
      V1("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", kF8MinusThree), "s.npy");
  EXPECT_TRUE(a.shape.empty());
  ASSERT_EQ(a.values.size(), 1u);
  EXPECT_EQ(a.values[0], -3.0);
}

TEST(ParseNpy, EmptyShapes) {
  for (const char* shape : {"(0,)", "(3, 0)", "(0, 5, 2)"}) {
    const NpyArray a = ParseNpy(
        V1(std::string("{'descr': '<f4', 'fortran_order': False, 'shape': ") + shape + ", }", ""),
        "e.npy");
    EXPECT_TRUE(a.values.empty()) << shape;
    EXPECT_EQ(ShapeElementCount(a.shape), 0) << shape;
  }
}

TEST(ParseNpy, FortranOrderIsAcceptedAndReportedValuesInFileOrder) {
  const NpyArray a = ParseNpy(
      V1("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 1), }", kF4MinusTwoHalf + kF4One),
      "f.npy");
  EXPECT_TRUE(a.fortran_order);
  EXPECT_EQ(a.values, (std::vector<double>{-2.5, 1.0}));
}

TEST(ParseNpy, Versions2And3HaveFourByteHeaderLength) {
  for (int major : {2, 3}) {
    const NpyArray a = ParseNpy(
        File(major, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", kF4One + kF4Tenth),
        "v.npy");
    EXPECT_EQ(a.values.size(), 2u) << major;
    EXPECT_EQ(a.values[0], 1.0) << major;
  }
}

TEST(ParseNpy, HeaderSpellingVariants) {
  // Double quotes, key order, no trailing comma, extra spaces, Python 2 long suffix, no padding.
  std::string bytes = "\x93NUMPY\x01\x00"s;
  const std::string dict = "{ \"shape\" : (1L, 2L) , \"fortran_order\":False,\"descr\":\"<f4\"}";
  bytes += static_cast<char>(dict.size());
  bytes += '\0';
  bytes += dict + kF4One + kF4MinusTwoHalf;
  const NpyArray a = ParseNpy(bytes, "q.npy");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(a.values, (std::vector<double>{1.0, -2.5}));
}

TEST(ParseNpy, MalformedInputsNameTheProblem) {
  const std::string f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
  ExpectError("", "bad magic");
  ExpectError("PK\x03\x04 zip file", "bad magic");
  ExpectError("\x93NUMPX\x01\x00"s, "bad magic");
  ExpectError("\x93NUMPY"s, "truncated header");
  ExpectError("\x93NUMPY\x01\x00\x40"s, "truncated header");  // one of two length bytes
  ExpectError(V1(f4, kF4One).substr(0, 40), "truncated header");
  ExpectError(File(4, f4, kF4One), "version 4.0");
  std::string minor = V1(f4, kF4One);
  minor[7] = 1;
  ExpectError(minor, "version 1.1");
  ExpectError(V1("{'descr': '<f4', 'fortran_order': False}", ""), "missing key 'shape'");
  ExpectError(V1("{'descr': '<f4', 'shape': (1,)}", kF4One), "missing key 'fortran_order'");
  ExpectError(V1("{'fortran_order': False, 'shape': (1,)}", kF4One), "missing key 'descr'");
  ExpectError(V1("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", kF4One),
              "duplicate key 'descr'");
  ExpectError(V1("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", kF4One),
              "unexpected key 'x'");
  ExpectError(V1("['descr', '<f4']", kF4One), "expected '{'");
  ExpectError(V1("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,)}", kF4One),
              "expected True or False");
  ExpectError(V1("{'descr': '<f4', 'fortran_order': False, 'shape': (1)}", kF4One), "1-d shape");
  ExpectError(V1("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", kF4One),
              "non-negative integer");
  ExpectError(V1("{'descr': '<f4', 'fortran_order': False, 'shape': (1,) junk", kF4One),
              "malformed header");
  ExpectError(V1("{'descr': '<i8', 'fortran_order': False, 'shape': (1,)}", kF8One),
              "unsupported dtype '<i8'");
  ExpectError(V1("{'descr': '<u4', 'fortran_order': False, 'shape': (1,)}", kF4One),
              "unsupported dtype '<u4'");
  ExpectError(V1("{'descr': '>i2', 'fortran_order': False, 'shape': (1,)}", "ab"),
              "big-endian dtype '>i2'");
  ExpectError(V1("{'descr': '|f4', 'fortran_order': False, 'shape': (1,)}", kF4One),
              "unsupported dtype '|f4'");
  ExpectError(V1("{'descr': '<f2', 'fortran_order': False, 'shape': (1,)}", kF4One),
              "unsupported dtype '<f2'");
  ExpectError(V1("{'descr': '>f4', 'fortran_order': False, 'shape': (1,)}", kF4One),
              "big-endian dtype '>f4'");
  ExpectError(V1("{'descr': '>f8', 'fortran_order': False, 'shape': (1,)}", kF8One),
              "big-endian dtype '>f8'");
  ExpectError(V1("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}", kF4One + kF4One),
              "data is truncated: shape (3,) of <f4 needs 12 bytes, the file has 8");
  ExpectError(V1("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2)}", kF8One),
              "needs 32 bytes");
  ExpectError(V1(f4, kF4One + "x"), "1 unexpected bytes after the data");
  ExpectError(V1("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 8)}", ""),
              "too large");
}

// Fuzzing finding (tests/fuzz/corpus/npy/regression-zero-dim-overflow, docs/fuzzing.md): a zero
// dimension before huge ones hid their overflow, so (0, 2^62, 4) was accepted and every product of
// its dimensions a caller forms overflows. As numpy, the nonzero dimensions must fit in bytes.
TEST(ParseNpy, ZeroDimensionDoesNotHideAnOverflowingShape) {
  ExpectError(V1("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4611686018427387904, 4), }",
                 ""),
              "shape (0, 4611686018427387904, 4) is too large: more than 2^63 - 1 bytes of <f4");
  ExpectError(V1("{'descr': '|u1', 'fortran_order': False, 'shape': (9223372036854775807, 0, 2), }",
                 ""),
              "too large");
  const NpyArray empty =
      ParseNpy(V1("{'descr': '|u1', 'fortran_order': False, 'shape': (0, 9223372036854775807), }", ""),
               "ok.npy");
  EXPECT_EQ(empty.values.size(), 0u);
  EXPECT_EQ(ShapeElementCount(empty.shape), 0);
}

TEST(ReadNpy, ReadsFilesAndNamesUnreadableOnes) {
  const TempDir dir;
  const std::string path = dir.Write(
      "ok.npy",
      V1("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", kF4One + kF4MinusTwoHalf));
  EXPECT_EQ(ReadNpy(path).values, (std::vector<double>{1.0, -2.5}));

  const std::string missing = dir.Path("missing.npy");
  try {
    ReadNpy(missing);
    ADD_FAILURE() << "no error";
  } catch (const NpyError& e) {
    EXPECT_NE(std::string(e.what()).find(missing + ": cannot open"), std::string::npos) << e.what();
  }
  // A directory opens but cannot be read.
  EXPECT_THROW(ReadNpy(dir.Path("")), NpyError);
  // NpyError is a std::invalid_argument, which the CLI maps to exit code 2.
  EXPECT_THROW(ReadNpy(missing), std::invalid_argument);
}

TEST(ReadRawFloat32, SizeMustBeAMultipleOfFour) {
  const TempDir dir;
  EXPECT_EQ(ReadRawFloat32(dir.Write("two.f32", kF4MinusTwoHalf + kF4One)),
            (std::vector<double>{-2.5, 1.0}));
  EXPECT_TRUE(ReadRawFloat32(dir.Write("empty.f32", "")).empty());
  const std::string odd = dir.Write("odd.f32", kF4One + "ab");
  try {
    ReadRawFloat32(odd);
    ADD_FAILURE() << "no error";
  } catch (const NpyError& e) {
    EXPECT_NE(
        std::string(e.what()).find(odd + ": raw float32 file size 6 bytes is not a multiple of 4"),
        std::string::npos)
        << e.what();
  }
  EXPECT_THROW(ReadRawFloat32(dir.Path("missing.f32")), NpyError);
}

TEST(WriteNpy, WritesTheHeaderNumpyWrites) {
  const TempDir dir;
  const std::string path = dir.Path("w.npy");
  WriteNpy(path, {0.5, -3.0, 1.0, 0.5, -3.0, 1.0}, {2, 3}, NpyDtype::kFloat64);
  const std::string bytes = ReadBytes(path);
  // numpy 1.x: 10-byte preamble, the 59-byte dict, spaces and '\n' up to the next multiple of 64
  // (128), so the header length is 118 = 0x76; numpy.save writes exactly these 128 bytes.
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
  ASSERT_EQ(dict.size(), 59u);
  std::string expected = "\x93NUMPY\x01\x00\x76\x00"s + dict + std::string(58, ' ') + "\n";
  expected += Repeat(kF8Half + kF8MinusThree + kF8One, 2);
  EXPECT_EQ(bytes, expected);
}

TEST(WriteNpy, RoundTripsFloat32AndShapes) {
  const TempDir dir;
  const std::string path = dir.Path("r.npy");
  WriteNpy(path, {1.0, -2.5, 0.1}, {3}, NpyDtype::kFloat32);
  const NpyArray a = ReadNpy(path);
  EXPECT_EQ(a.dtype, NpyDtype::kFloat32);
  EXPECT_EQ(a.values, (std::vector<double>{1.0, -2.5, 0.100000001490116119384765625}));
  EXPECT_EQ(ReadBytes(path).size() % 64, 12u);  // 64-byte header + 3 * 4 data bytes

  WriteNpy(path, {7.0}, {}, NpyDtype::kFloat64);
  EXPECT_TRUE(ReadNpy(path).shape.empty());
  WriteNpy(path, {}, {0, 4}, NpyDtype::kFloat32);
  EXPECT_EQ(ReadNpy(path).shape, (std::vector<int64_t>{0, 4}));

  EXPECT_THROW(WriteNpy(path, {1.0, 2.0}, {3}, NpyDtype::kFloat32), NpyError);
  EXPECT_THROW(WriteNpy(dir.Path("no/such/dir.npy"), {1.0}, {1}, NpyDtype::kFloat32), NpyError);
}

TEST(ShapeString, PythonTupleSpelling) {
  EXPECT_EQ(ShapeString({}), "()");
  EXPECT_EQ(ShapeString({5}), "(5,)");
  EXPECT_EQ(ShapeString({3, 4}), "(3, 4)");
}

// Every integer dtype: the extremes survive a write and a read, byte for byte as numpy lays them
// out (little endian, two's complement), and values a dtype cannot hold are refused.
TEST(Npy, IntegerDtypesRoundTrip) {
  const TempDir dir;
  const std::vector<std::tuple<NpyDtype, std::string, std::vector<double>, std::string>> cases = {
      {NpyDtype::kInt8, "|i1", {-128, -1, 0, 127}, std::string("\x80\xff\x00\x7f", 4)},
      {NpyDtype::kUint8, "|u1", {0, 1, 128, 255}, std::string("\x00\x01\x80\xff", 4)},
      {NpyDtype::kInt16, "<i2", {-32768, -2, 0, 32767},
       std::string("\x00\x80\xfe\xff\x00\x00\xff\x7f", 8)},
      {NpyDtype::kUint16, "<u2", {0, 1, 256, 65535},
       std::string("\x00\x00\x01\x00\x00\x01\xff\xff", 8)},
      {NpyDtype::kInt32, "<i4", {-2147483648.0, -1, 1, 2147483647.0},
       std::string("\x00\x00\x00\x80\xff\xff\xff\xff\x01\x00\x00\x00\xff\xff\xff\x7f", 16)},
  };
  for (const auto& [dtype, descr, values, data] : cases) {
    const std::string path = dir.Path(descr.substr(1) + ".npy");
    WriteNpy(path, values, {2, 2}, dtype);
    const std::string bytes = ReadBytes(path);
    EXPECT_EQ(bytes.substr(bytes.size() - data.size()), data) << descr;
    EXPECT_NE(bytes.find("'descr': '" + descr + "'"), std::string::npos) << descr;
    const NpyArray a = ReadNpy(path);
    EXPECT_EQ(a.dtype, dtype);
    EXPECT_EQ(NpyDtypeDescr(a.dtype), descr);
    EXPECT_TRUE(IsIntegerDtype(a.dtype));
    EXPECT_EQ(a.values, values) << descr;
  }
  EXPECT_FALSE(IsIntegerDtype(NpyDtype::kFloat32));
  EXPECT_THROW(SerializeNpy({128}, {1}, NpyDtype::kInt8, "x"), NpyError);
  EXPECT_THROW(SerializeNpy({-1}, {1}, NpyDtype::kUint16, "x"), NpyError);
  EXPECT_THROW(SerializeNpy({0.5}, {1}, NpyDtype::kInt32, "x"), NpyError);
  // numpy also writes one-byte types with '<'.
  const NpyArray lt = ParseNpy(V1("{'descr': '<i1', 'fortran_order': False, 'shape': (1,)}",
                                  std::string("\xfe", 1)),
                               "x");
  EXPECT_EQ(lt.values, (std::vector<double>{-2}));
}

// Cross-check with numpy itself: numpy writes files we read, and reads a file we write.
bool HaveNumpy() { return std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0; }

TEST(NumpyCrossCheck, ReadsNumpyFilesAndNumpyReadsOurs) {
  if (!HaveNumpy()) GTEST_SKIP() << "/usr/bin/python3 with numpy is not available";
  const TempDir dir;
  const std::string script = dir.Write("make.py", R"(import sys, numpy as np
d = sys.argv[1]
x = np.arange(24, dtype=np.float64).reshape(2, 3, 4) * 0.25 - 1
np.save(d + '/c8.npy', x)
np.save(d + '/c4.npy', x.astype(np.float32))
np.save(d + '/fortran.npy', np.asfortranarray(x))
np.save(d + '/scalar.npy', np.float32(-1.5))
np.save(d + '/empty.npy', np.zeros((0, 3), np.float32))
np.lib.format.write_array(open(d + '/v2.npy', 'wb'), x, version=(2, 0))
for t in ('i1', 'u1', 'i2', 'u2', 'i4'):
    np.save(d + '/int_' + t + '.npy', (np.arange(6).reshape(2, 3) * 3 - (5 if t[0] == 'i' else 0)).astype(t))
    z = np.load(d + '/ours_' + t + '.npy')
    assert z.dtype == np.dtype(t) and z.shape == (3,) and z.tolist() == [0, 1, 2], t
y = np.load(d + '/ours.npy')
print(y.dtype.str, y.shape, repr(float(y.sum())), int(y.flags['C_CONTIGUOUS']))
)");
  WriteNpy(dir.Path("ours.npy"), {1.5, -2.0, 4.25, 8.0}, {2, 2}, NpyDtype::kFloat32);
  for (auto [dtype, name] : {std::pair{NpyDtype::kInt8, "i1"}, std::pair{NpyDtype::kUint8, "u1"},
                             std::pair{NpyDtype::kInt16, "i2"}, std::pair{NpyDtype::kUint16, "u2"},
                             std::pair{NpyDtype::kInt32, "i4"}}) {
    WriteNpy(dir.Path(std::string("ours_") + name + ".npy"), {0, 1, 2}, {3}, dtype);
  }
  const std::string command =
      "/usr/bin/python3 " + script + " " + dir.Path("") + " > " + dir.Path("out.txt");
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(ReadBytes(dir.Path("out.txt")), "<f4 (2, 2) 11.75 1\n");

  std::vector<double> expected(24);
  for (int i = 0; i < 24; ++i) expected[i] = i * 0.25 - 1;
  for (const char* name : {"c8.npy", "c4.npy", "v2.npy"}) {
    const NpyArray a = ReadNpy(dir.Path(name));
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3, 4})) << name;
    EXPECT_FALSE(a.fortran_order) << name;
    EXPECT_EQ(a.values, expected) << name;
  }
  for (const char* t : {"i1", "u1", "i2", "u2", "i4"}) {
    const NpyArray a = ReadNpy(dir.Path(std::string("int_") + t + ".npy"));
    std::vector<double> want;
    for (int i = 0; i < 6; ++i) want.push_back(i * 3 - (t[0] == 'i' ? 5 : 0));
    EXPECT_EQ(a.values, want) << t;
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3})) << t;
  }
  const NpyArray f = ReadNpy(dir.Path("fortran.npy"));
  EXPECT_TRUE(f.fortran_order);
  // Column-major file order: element (i, j, k) is at i + 2 j + 6 k.
  EXPECT_EQ(f.values[1], expected[12]);  // (1, 0, 0)
  EXPECT_EQ(f.values[2], expected[4]);   // (0, 1, 0)
  EXPECT_EQ(f.values[6], expected[1]);   // (0, 0, 1)
  const NpyArray s = ReadNpy(dir.Path("scalar.npy"));
  EXPECT_TRUE(s.shape.empty());
  EXPECT_EQ(s.values, (std::vector<double>{-1.5}));
  EXPECT_EQ(ReadNpy(dir.Path("empty.npy")).shape, (std::vector<int64_t>{0, 3}));
}

}  // namespace
}  // namespace qacc::golden
