// Tests of the safetensors reader and writer. Expected bytes (kTwoTensorsHex) are printed by
// testdata/safetensors_golden.py from the format description (huggingface/safetensors README)
// with only `json` and `struct`, never by the code under test;
// //lowering/io:safetensors_golden_test fails when they differ.
#include "lowering/io/safetensors.h"

#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/io/file.h"

namespace relay::io {
namespace {

using ir::DType;
using ir::Tensor;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string FromHex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

// A safetensors file from a header text (padded as given) and data bytes.
std::string File(const std::string& header, const std::string& data) {
  std::string out;
  const uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  return out + header + data;
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

// {"a": F32 [1, -2.5], "b": I64 scalar -7}, from testdata/safetensors_golden.py:
//   h = json.dumps({...}, separators=(',', ':'), sort_keys=True), padded with spaces to 8.
const char kTwoTensorsHex[] =
    "7000000000000000"
    "7b2261223a7b22646174615f6f666673657473223a5b302c385d2c226474797065223a22463332222c2273686170"
    "65223a5b325d7d2c2262223a7b22646174615f6f666673657473223a5b382c31365d2c226474797065223a224936"
    "34222c227368617065223a5b5d7d7d2020202020"
    "0000803f000020c0"
    "f9ffffffffffffff";

TEST(SafetensorsTest, SerializesToTheReferenceBytes) {
  std::map<std::string, Tensor> tensors;
  tensors["b"] = Tensor::Scalar(DType::kInt64, -7);
  tensors["a"] = Tensor::FromDoubles({2}, DType::kFloat32, {1.0, -2.5});
  absl::StatusOr<std::string> bytes = SerializeSafetensors(tensors);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, FromHex(kTwoTensorsHex));
}

TEST(SafetensorsTest, ParsesTheReferenceBytes) {
  absl::StatusOr<std::map<std::string, Tensor>> tensors =
      ParseSafetensors(FromHex(kTwoTensorsHex), "w.safetensors");
  ASSERT_TRUE(tensors.ok()) << tensors.status();
  ASSERT_EQ(tensors->size(), 2u);
  const Tensor& a = tensors->at("a");
  EXPECT_EQ(a.dtype(), DType::kFloat32);
  EXPECT_THAT(a.shape(), ElementsAre(2));
  EXPECT_THAT(a.ToDoubles(), ElementsAre(1.0, -2.5));
  const Tensor& b = tensors->at("b");
  EXPECT_EQ(b.dtype(), DType::kInt64);
  EXPECT_TRUE(b.shape().empty());
  EXPECT_EQ(b.data<int64_t>()[0], -7);
}

TEST(SafetensorsTest, RoundTripsEveryDTypeThroughAFile) {
  std::map<std::string, Tensor> tensors;
  tensors["f32"] = Tensor::FromDoubles({2, 3}, DType::kFloat32, {1, 2, 3, 4, 5, 6.5});
  tensors["f16"] = Tensor::FromDoubles({3}, DType::kFloat16, {0.5, -1, 65504});
  tensors["i32"] = Tensor::FromDoubles({1, 2}, DType::kInt32, {-2147483648.0, 7});
  Tensor i64({2}, DType::kInt64);
  i64.data<int64_t>()[0] = INT64_MIN;
  i64.data<int64_t>()[1] = INT64_MAX;
  tensors["i64"] = i64;
  tensors["bool"] = Tensor::FromDoubles({3}, DType::kBool, {1, 0, 1});
  tensors["empty"] = Tensor({0, 4}, DType::kFloat32);
  tensors["scalar"] = Tensor::Scalar(DType::kFloat32, 3.25);

  const std::string path = TempPath("round_trip.safetensors");
  ASSERT_TRUE(WriteSafetensors(path, tensors).ok());
  absl::StatusOr<std::map<std::string, Tensor>> read = ReadSafetensors(path);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), tensors.size());
  for (const auto& [name, tensor] : tensors) {
    ASSERT_EQ(read->count(name), 1u) << name;
    EXPECT_TRUE(read->at(name).BitwiseEqual(tensor)) << name;
  }
  // The data section starts 8-byte aligned.
  absl::StatusOr<std::string> bytes = ReadFile(path);
  ASSERT_TRUE(bytes.ok());
  uint64_t header_size = 0;
  std::memcpy(&header_size, bytes->data(), 8);
  EXPECT_EQ((8 + header_size) % 8, 0u);
  EXPECT_EQ(bytes->at(8 + header_size - 1) == ' ' || bytes->at(8 + header_size - 1) == '}', true);
}

TEST(SafetensorsTest, WriteIsDeterministic) {
  std::map<std::string, Tensor> tensors;
  tensors["z"] = Tensor::FromDoubles({2}, DType::kFloat32, {1, 2});
  tensors["a"] = Tensor::FromDoubles({1}, DType::kInt32, {3});
  EXPECT_EQ(*SerializeSafetensors(tensors), *SerializeSafetensors(tensors));
}

TEST(SafetensorsTest, WriteRejectsReservedAndEmptyNames) {
  std::map<std::string, Tensor> tensors;
  tensors["__metadata__"] = Tensor();
  EXPECT_THAT(SerializeSafetensors(tensors).status().message(), HasSubstr("reserved"));
  tensors.clear();
  tensors[""] = Tensor();
  EXPECT_THAT(SerializeSafetensors(tensors).status().message(), HasSubstr("empty name"));
  tensors.clear();
  tensors["\xff"] = Tensor();
  EXPECT_THAT(SerializeSafetensors(tensors).status().message(), HasSubstr("UTF-8"));
}

TEST(SafetensorsTest, FailedWriteLeavesNothing) {
  const std::string path = TempPath("no_such_dir/w.safetensors");
  std::map<std::string, Tensor> tensors;
  tensors["a"] = Tensor();
  absl::Status status = WriteSafetensors(path, tensors);
  EXPECT_FALSE(status.ok());
  struct stat st;
  EXPECT_NE(stat(path.c_str(), &st), 0);
}

TEST(SafetensorsTest, MissingFileIsNotFoundNamingThePath) {
  absl::Status status = ReadSafetensors(TempPath("missing.safetensors")).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("missing.safetensors"));
}

TEST(SafetensorsTest, AcceptsMetadataAndEmptyHeader) {
  absl::StatusOr<std::map<std::string, Tensor>> tensors =
      ParseSafetensors(File(R"({"__metadata__":{"format":"pt"},"x":{"dtype":"I32","shape":[1],)"
                            R"("data_offsets":[0,4]}})",
                            std::string("\x05\x00\x00\x00", 4)),
                       "m.safetensors");
  ASSERT_TRUE(tensors.ok()) << tensors.status();
  EXPECT_EQ(tensors->at("x").data<int32_t>()[0], 5);
  EXPECT_TRUE(ParseSafetensors(File("{}      ", ""), "e.safetensors")->empty());
}

// Each malformed file and a fragment of its error message.
struct BadCase {
  const char* what;
  std::string bytes;
  const char* message;
};

TEST(SafetensorsTest, RejectsMalformedFilesNamingTheFile) {
  const std::string four(4, '\0');
  const BadCase cases[] = {
      {"too short", std::string("\x01\x02", 2), "shorter than the 8-byte header length"},
      {"header past end", File("{}", "").substr(0, 9), "runs past the end"},
      {"huge header", std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8), "exceeds the limit"},
      {"not an object", File("[1, 2]", ""), "not a JSON object"},
      {"invalid json", File("{\"a\":", ""), "not valid JSON"},
      {"duplicate key",
       File(R"({"a":{"dtype":"I32","shape":[1],"data_offsets":[0,4]},)"
            R"("a":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}})",
            four),
       "\"a\" twice"},
      {"offsets past the data",
       File(R"({"a":{"dtype":"I32","shape":[2],"data_offsets":[0,8]}})", four),
       "outside the data section"},
      {"begin after end", File(R"({"a":{"dtype":"I32","shape":[1],"data_offsets":[4,0]}})", four),
       "outside the data section"},
      {"size mismatch", File(R"({"a":{"dtype":"I32","shape":[2],"data_offsets":[0,4]}})", four),
       "does not match"},
      {"overflowing shape",
       File(R"({"a":{"dtype":"I64","shape":[4294967296,4294967296],"data_offsets":[0,4]}})", four),
       "does not match"},
      {"overlap",
       File(R"({"a":{"dtype":"I32","shape":[1],"data_offsets":[0,4]},)"
            R"("b":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}})",
            four),
       "overlap"},
      {"hole", File(R"({"a":{"dtype":"I32","shape":[1],"data_offsets":[4,8]}})", four + four),
       "belong to no tensor"},
      {"trailing bytes",
       File(R"({"a":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}})", four + "xx"),
       "belong to no tensor"},
      {"unknown dtype", File(R"({"a":{"dtype":"Q7","shape":[1],"data_offsets":[0,4]}})", four),
       "unknown dtype \"Q7\""},
      {"negative dim", File(R"({"a":{"dtype":"I32","shape":[-1],"data_offsets":[0,4]}})", four),
       "not a non-negative integer"},
      {"unknown field",
       File(R"({"a":{"dtype":"I32","shape":[1],"data_offsets":[0,4],"x":1}})", four),
       "unknown field \"x\""},
      {"missing offsets", File(R"({"a":{"dtype":"I32","shape":[1]}})", four), "data_offsets"},
      {"bad bool", File(R"({"a":{"dtype":"BOOL","shape":[1],"data_offsets":[0,1]}})", "\x02"),
       "neither 0 nor 1"},
      {"metadata value", File(R"({"__metadata__":{"k":1}})", ""), "is not a string"},
      {"empty name", File(R"({"":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}})", four),
       "a tensor has an empty name"},
  };
  for (const BadCase& c : cases) {
    absl::Status status = ParseSafetensors(c.bytes, "bad.safetensors").status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.what << ": " << status;
    EXPECT_THAT(status.message(), HasSubstr("bad.safetensors")) << c.what;
    EXPECT_THAT(status.message(), HasSubstr(c.message)) << c.what << ": " << status;
  }
}

TEST(SafetensorsTest, UnsupportedDTypeIsUnimplemented) {
  absl::Status status =
      ParseSafetensors(
          File(R"({"a":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}})", std::string(4, '\0')),
          "bf.safetensors")
          .status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(), HasSubstr("BF16"));
  EXPECT_THAT(status.message(), HasSubstr("bf.safetensors"));
}

}  // namespace
}  // namespace relay::io
