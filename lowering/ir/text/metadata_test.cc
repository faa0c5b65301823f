// TVM's metadata section: NDArray bytes both ways, the section found only on a line of its own,
// and every way a damaged section is refused.
#include "lowering/ir/text/metadata.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace relay::ir {
namespace {

using ::testing::HasSubstr;

// An NDArray's bytes, field by field, so a test can break any one of them.
struct RawArray {
  uint64_t magic = 0xDD5E40F096B4A13Full;
  int32_t ndim = 1;
  uint8_t code = 2, bits = 32;
  uint16_t lanes = 1;
  std::vector<int64_t> shape = {2};
  int64_t data_bytes = 8;
  std::string data = std::string(8, '\0');

  std::string Bytes() const {
    std::string out;
    auto put = [&](const void* p, size_t n) { out.append(static_cast<const char*>(p), n); };
    const uint64_t reserved = 0;
    const int32_t device[2] = {1, 0};
    put(&magic, 8);
    put(&reserved, 8);
    put(device, 8);
    put(&ndim, 4);
    put(&code, 1);
    put(&bits, 1);
    put(&lanes, 2);
    for (int64_t d : shape) put(&d, 8);
    put(&data_bytes, 8);
    return out + data;
  }
};

TEST(MetadataTest, NDArraysRoundTripInEveryDType) {
  const std::vector<Tensor> tensors = {
      Tensor::FromDoubles({2, 2}, DType::kFloat32, {0.5, -1, 3, 1e-7}),
      Tensor::FromDoubles({3}, DType::kFloat16, {1, -2, 0.25}),
      Tensor::FromDoubles({2}, DType::kInt32, {7, -8}),
      Tensor::FromDoubles({1, 2}, DType::kInt64, {40000000000.0, -1}),
      Tensor::FromDoubles({3}, DType::kBool, {1, 0, 1}),
      Tensor({0, 4}, DType::kFloat32),
  };
  for (const Tensor& t : tensors) {
    absl::StatusOr<Tensor> back = DecodeNDArray(EncodeNDArray(t));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(back->BitwiseEqual(t)) << TypeToString(t.type());
  }
  // The layout itself: 40 bytes of header for rank 1, then the data.
  EXPECT_EQ(EncodeNDArray(tensors[2]).size(), 8u + 8 + 8 + 4 + 4 + 8 + 8 + 8);
}

TEST(MetadataTest, DamagedNDArraysAreRefusedWithTheReason) {
  auto decode = [](const RawArray& raw) { return DecodeNDArray(raw.Bytes()).status(); };
  RawArray ok;
  EXPECT_TRUE(decode(ok).ok());

  RawArray magic;
  magic.magic = 1;
  EXPECT_THAT(decode(magic).message(), HasSubstr("magic number is wrong"));
  RawArray size;
  size.data_bytes = 12;
  EXPECT_THAT(decode(size).message(), HasSubstr("declares 12 data bytes for 2 elements"));
  RawArray trailing;
  trailing.data += "xx";
  EXPECT_THAT(decode(trailing).message(), HasSubstr("holds 10 data bytes, not the 8"));
  RawArray huge;
  huge.shape = {int64_t{1} << 40};
  EXPECT_EQ(decode(huge).code(), absl::StatusCode::kInvalidArgument);
  RawArray negative;
  negative.shape = {-2};
  EXPECT_THAT(decode(negative).message(), HasSubstr("dimension 0 is -2"));
  EXPECT_THAT(DecodeNDArray(ok.Bytes().substr(0, 30)).status().message(), HasSubstr("truncated"));

  RawArray f64;
  f64.bits = 64;
  f64.data_bytes = 16;
  f64.data = std::string(16, '\0');
  EXPECT_EQ(decode(f64).code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(decode(f64).message(), HasSubstr("dtype float64 is not supported"));
  RawArray vector;
  vector.lanes = 4;
  EXPECT_THAT(decode(vector).message(), HasSubstr("dtype float32x4 is not supported"));
}

TEST(MetadataTest, TheSectionStartsOnALineOfItsOwn) {
  EXPECT_EQ(FindMetadataSection("def @main() {}\n\n#[metadata]\n{}\n"), 16u);
  EXPECT_EQ(FindMetadataSection("x\n  #[metadata]  \r\n{}"), 4u);
  EXPECT_EQ(FindMetadataSection("} #[metadata]\n{}"), std::string::npos);
  EXPECT_EQ(FindMetadataSection("#[metadata] {}"), std::string::npos);
  EXPECT_EQ(FindMetadataSection("no section"), std::string::npos);
}

// What the printer writes, the parser of the section reads back, in order.
TEST(MetadataTest, PrintedSectionsParseBack) {
  const std::vector<Tensor> constants = {
      Tensor::FromDoubles({2}, DType::kFloat32, {1, 2}),
      Tensor::FromDoubles({2, 1}, DType::kInt64, {3, 4}),
  };
  const std::string text = "def @main() {}\n" + PrintMetadataSection(constants);
  EXPECT_THAT(text, HasSubstr("\n#[metadata]\n{\n  \"root\": 1,\n  \"nodes\": [\n"));
  EXPECT_THAT(text, HasSubstr("\"attrs\": {\"tvm_version\": \"0.12.0\"}\n}\n"));
  absl::StatusOr<std::vector<Tensor>> back =
      ParseMetadataSection(text, FindMetadataSection(text), "m.relay");
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_TRUE((*back)[0].BitwiseEqual(constants[0]));
  EXPECT_TRUE((*back)[1].BitwiseEqual(constants[1]));
  // No constants: an empty Array, still TVM's layout.
  const std::string empty = "def @main() {}\n" + PrintMetadataSection({});
  absl::StatusOr<std::vector<Tensor>> none =
      ParseMetadataSection(empty, FindMetadataSection(empty), "m.relay");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
}

// Malformed JSON is located at the bad character; a graph in another layout at the header.
TEST(MetadataTest, BadSectionsGiveLocatedErrors) {
  auto error = [](const std::string& section) {
    const std::string text = "def @main() {}\n\n" + section;
    return ParseMetadataSection(text, FindMetadataSection(text), "m.relay").status();
  };
  EXPECT_THAT(error("#[metadata]\n{\n  \"root\": 1,\n  nodes\n}\n").message(),
              HasSubstr("m.relay:6:3: error: metadata: syntax error"));
  EXPECT_EQ(error("#[metadata]\n[]\n").message(),
            "m.relay:3:1: error: metadata: the section is not a JSON object");
  EXPECT_EQ(
      error("#[metadata]\n{\"root\": 1, \"nodes\": [{}, {\"type_key\": \"Array\"}]}\n").message(),
      "m.relay:3:1: error: metadata: the root node is not a Map");
  const std::string b64 = absl::Base64Escape(EncodeNDArray(Tensor({2}, DType::kFloat32)));
  const std::string graph = absl::StrCat(
      "#[metadata]\n{\"root\": 1, \"nodes\": [{}, {\"type_key\": \"Map\", \"keys\": "
      "[\"relay.Constant\"], \"data\": [2]}, {\"type_key\": \"Array\", \"data\": [3]}, "
      "{\"type_key\": \"relay.Constant\", \"attrs\": {\"data\": \"DATA\"}}], \"b64ndarrays\": "
      "[\"",
      b64, "\"]}\n");
  auto with_data = [&](const std::string& data) {
    std::string g = graph;
    g.replace(g.find("DATA"), 4, data);
    return g;
  };
  EXPECT_TRUE(error(with_data("0")).ok());
  EXPECT_EQ(error(with_data("1")).message(),
            "m.relay:3:1: error: metadata: relay.Constant 0 names b64ndarrays[1], which does "
            "not exist");
  EXPECT_EQ(error(with_data("x")).message(),
            "m.relay:3:1: error: metadata: relay.Constant 0 has no \"data\" attribute");
  std::string bad_b64 = with_data("0");
  bad_b64.replace(bad_b64.find(b64), 4, "!!!!");
  EXPECT_EQ(error(bad_b64).message(), "m.relay:3:1: error: metadata: b64ndarrays[0] is not base64");
}

}  // namespace
}  // namespace relay::ir
