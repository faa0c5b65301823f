// Tests of the .npy reader and writer. Expected bytes are written out by hand from the format
// description (numpy/lib/format.py), never produced by the code under test.
#include "lowering/io/npy.h"

#include <dirent.h>
#include <stdlib.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/io/file.h"

namespace relay::io {
namespace {

using ir::DType;
using ir::Tensor;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Assembles a .npy file: magic, version, little-endian header length (2 bytes for 1.0, 4 for
// 2.0/3.0), the header text as given, then the data bytes.
std::string Npy(int major, const std::string& header, const std::string& data) {
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  size_t n = header.size();
  int len_bytes = major == 1 ? 2 : 4;
  for (int i = 0; i < len_bytes; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  return out + header + data;
}

std::string Bytes(std::initializer_list<uint8_t> bytes) {
  return std::string(bytes.begin(), bytes.end());
}

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      names.push_back(e->d_name);
    }
  }
  closedir(d);
  return names;
}

TEST(ParseNpy, Float32Version1) {
  // 1.0, -2.5, 0.5, 4.0 as little-endian IEEE single: 3f800000, c0200000, 3f000000, 40800000.
  std::string data = Bytes({0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0, 0x00, 0x00, 0x00, 0x3f,
                            0x00, 0x00, 0x80, 0x40});
  auto t = ParseNpy(
      Npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }          \n", data),
      "a.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DType::kFloat32);
  EXPECT_THAT(t->shape(), ElementsAre(2, 2));
  EXPECT_THAT(t->ToDoubles(), ElementsAre(1.0, -2.5, 0.5, 4.0));
}

TEST(ParseNpy, Versions2And3HaveFourByteHeaderLength) {
  std::string data = Bytes({0xff, 0xff, 0xff, 0xff, 0x07, 0x00, 0x00, 0x00});  // -1, 7
  for (int major : {2, 3}) {
    auto t = ParseNpy(
        Npy(major, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }\n", data), "v.npy");
    ASSERT_TRUE(t.ok()) << major << ": " << t.status();
    EXPECT_EQ(t->dtype(), DType::kInt32);
    EXPECT_THAT(t->ToDoubles(), ElementsAre(-1, 7));
  }
}

TEST(ParseNpy, OtherDTypes) {
  // float16: 1.0 = 0x3c00, -2.0 = 0xc000.
  auto f16 = ParseNpy(Npy(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }\n",
                          Bytes({0x00, 0x3c, 0x00, 0xc0})),
                      "h.npy");
  ASSERT_TRUE(f16.ok()) << f16.status();
  EXPECT_EQ(f16->dtype(), DType::kFloat16);
  EXPECT_THAT(f16->ToDoubles(), ElementsAre(1.0, -2.0));

  // int64: -3 and 2^40.
  auto i64 = ParseNpy(Npy(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }\n",
                          Bytes({0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00,
                                 0x00, 0x00, 0x01, 0x00, 0x00})),
                      "l.npy");
  ASSERT_TRUE(i64.ok()) << i64.status();
  EXPECT_EQ(i64->dtype(), DType::kInt64);
  EXPECT_EQ(i64->data<int64_t>()[0], -3);
  EXPECT_EQ(i64->data<int64_t>()[1], int64_t{1} << 40);

  auto b1 = ParseNpy(
      Npy(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }\n", Bytes({1, 0, 1})),
      "b.npy");
  ASSERT_TRUE(b1.ok()) << b1.status();
  EXPECT_EQ(b1->dtype(), DType::kBool);
  EXPECT_THAT(b1->ToDoubles(), ElementsAre(1, 0, 1));

  auto u1 = ParseNpy(
      Npy(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }\n", Bytes({0, 1, 1})),
      "u.npy");
  ASSERT_TRUE(u1.ok()) << u1.status();
  EXPECT_EQ(u1->dtype(), DType::kBool);
  EXPECT_THAT(u1->ToDoubles(), ElementsAre(0, 1, 1));
}

TEST(ParseNpy, ZeroDimensionalAndEmpty) {
  auto scalar = ParseNpy(Npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }\n",
                             Bytes({0x00, 0x00, 0x20, 0xc0})),
                         "s.npy");
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->ndim(), 0);
  EXPECT_THAT(scalar->ToDoubles(), ElementsAre(-2.5));

  auto empty = ParseNpy(Npy(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (0, 3), }\n", ""),
                        "e.npy");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_THAT(empty->shape(), ElementsAre(0, 3));
  EXPECT_EQ(empty->NumElements(), 0);
}

TEST(ParseNpy, AcceptsOtherSpellingsOfTheDict) {
  // Double quotes, any key order, no trailing comma, no padding: what other writers produce.
  auto t = ParseNpy(Npy(1, "{\"shape\": (1,1),\"fortran_order\":False,\"descr\":\"<f4\"}",
                        Bytes({0x00, 0x00, 0x80, 0x3f})),
                    "q.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(t->shape(), ElementsAre(1, 1));
  EXPECT_THAT(t->ToDoubles(), ElementsAre(1.0));
}

// The error for `bytes`, which must name the file and contain `what`.
void ExpectError(const std::string& bytes, const std::string& what) {
  auto t = ParseNpy(bytes, "dir/bad.npy");
  ASSERT_FALSE(t.ok()) << "expected an error containing: " << what;
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("dir/bad.npy: "));
  EXPECT_THAT(std::string(t.status().message()), HasSubstr(what));
}

TEST(ParseNpy, Errors) {
  const std::string four_bytes = Bytes({0, 0, 0x80, 0x3f});
  ExpectError("PK\x03\x04 not numpy", "bad magic");
  ExpectError("", "bad magic");
  ExpectError("\x93NUMPY", "truncated");
  ExpectError(Bytes({0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0x50}), "truncated");
  ExpectError(
      Npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", four_bytes).substr(0, 30),
      "truncated .npy header");
  ExpectError(Npy(4, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", four_bytes),
              "unsupported .npy format version 4.0");
  ExpectError(Npy(1, "{'descr': '<f4', 'fortran_order': False}", four_bytes),
              "missing key 'shape'");
  ExpectError(Npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", four_bytes),
              "bad .npy header dict");
  ExpectError(
      Npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 'x'}", four_bytes),
      "unexpected key 'extra'");
  ExpectError(Npy(1, "not a dict", four_bytes), "bad .npy header dict");
  ExpectError(Npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", four_bytes),
              "bad .npy header dict");
  ExpectError(Npy(1, "{'descr': '<f4', 'fortran_order': 'no', 'shape': (1,), }", four_bytes),
              "'fortran_order' must be True or False");
  ExpectError(Npy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", four_bytes),
              "fortran_order");
  ExpectError(Npy(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", four_bytes),
              "big-endian");
  ExpectError(
      Npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", four_bytes + four_bytes),
      "unsupported dtype '<f8'");
  ExpectError(
      Npy(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", four_bytes),
      "structured dtypes");
  ExpectError(Npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", four_bytes),
              "data size mismatch: shape (2) of <f4 needs 8 bytes, the file has 4");
  ExpectError(Npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", four_bytes + "x"),
              "needs 4 bytes, the file has 5");
  ExpectError(Npy(1,
                  "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, "
                  "4294967296, 4294967296), }",
                  four_bytes),
              "too large");
  ExpectError(Npy(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", Bytes({1, 7})),
              "must be 0 or 1, found 7 at element 1");
}

TEST(SerializeNpy, ExactBytes) {
  // The header NumPy writes for a float32 vector of 3, padded with spaces so that
  // 10 (magic, version, length) + 118 = 128 bytes precede the data.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
  header += std::string(60, ' ') + "\n";
  ASSERT_EQ(header.size(), 118u);
  std::string expected =
      std::string("\x93NUMPY\x01\x00", 8) + Bytes({118, 0}) + header +
      Bytes({0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0, 0x00, 0x00, 0x00, 0x3f});
  Tensor t = Tensor::FromDoubles({3}, DType::kFloat32, {1.0, -2.5, 0.5});
  EXPECT_EQ(SerializeNpy(t), expected);
}

TEST(SerializeNpy, ScalarBoolAndMatrixHeaders) {
  // 0-d: shape "()"; 10 + 55 + 1 = 66 bytes round up to 128 (62 spaces of padding).
  std::string header = "{'descr': '|b1', 'fortran_order': False, 'shape': (), }";
  ASSERT_EQ(header.size(), 55u);
  header += std::string(62, ' ') + "\n";
  EXPECT_EQ(SerializeNpy(Tensor::Scalar(DType::kBool, 1)),
            std::string("\x93NUMPY\x01\x00", 8) + Bytes({118, 0}) + header + Bytes({1}));

  // 2-d int64: "(1, 2)"; 10 + 59 + 1 = 70 round up to 128 (58 spaces).
  header = "{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2), }";
  ASSERT_EQ(header.size(), 59u);
  header += std::string(58, ' ') + "\n";
  EXPECT_EQ(SerializeNpy(Tensor::FromDoubles({1, 2}, DType::kInt64, {-3, 1})),
            std::string("\x93NUMPY\x01\x00", 8) + Bytes({118, 0}) + header +
                Bytes({0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(WriteNpy, RoundTripsEveryDType) {
  std::string dir = TempDir() + "/npy_round_trip";
  ASSERT_TRUE(MakeDirectories(dir).ok());
  std::vector<Tensor> tensors = {
      Tensor::FromDoubles({2, 3}, DType::kFloat32, {0, 1.5, -2, 3.25, 1e-7, -1e30}),
      Tensor::FromDoubles({4}, DType::kFloat16, {0.5, -1, 65504, 0.099975586}),
      Tensor::FromDoubles({2, 1, 2}, DType::kInt32, {-2147483648.0, 2147483647, 0, -5}),
      Tensor::FromDoubles({3}, DType::kInt64, {-1, 1e15, 42}),
      Tensor::FromDoubles({2, 2}, DType::kBool, {1, 0, 0, 1}),
      Tensor::Scalar(DType::kFloat32, 3.5),
      Tensor({0}, DType::kFloat32),
      Tensor({2, 0, 5}, DType::kInt64),
  };
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::string path = dir + "/t" + std::to_string(i) + ".npy";
    ASSERT_TRUE(WriteNpy(path, tensors[i]).ok());
    auto back = ReadNpy(path);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(back->BitwiseEqual(tensors[i])) << "tensor " << i;
  }
  // Nothing but the outputs: every temporary was renamed.
  EXPECT_EQ(ListDir(dir).size(), tensors.size());
}

TEST(WriteNpy, MissingDirectoryIsAnErrorNamingThePath) {
  std::string dir = TempDir() + "/npy_missing_dir_parent";
  absl::Status status = WriteNpy(dir + "/no/such/dir/out.npy", Tensor());
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("out.npy"));
}

TEST(ReadNpy, MissingFileIsNotFound) {
  auto t = ReadNpy(TempDir() + "/does_not_exist.npy");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("does_not_exist.npy"));
}

}  // namespace
}  // namespace relay::io
