// Tests of TensorProto <-> ir::Tensor: every storage form ONNX writes, and the malformed ones.
#include "lowering/frontend/onnx/tensor_proto.h"

#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace relay::frontend::onnx {
namespace {

using ir::DType;
using ::onnx::TensorProto;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(TensorProtoTest, ReadsTypedFields) {
  TensorProto f;
  f.set_name("f");
  f.set_data_type(TensorProto::FLOAT);
  f.add_dims(2);
  f.add_float_data(1.5f);
  f.add_float_data(-2.0f);
  absl::StatusOr<ir::Tensor> t = TensorFromProto(f);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DType::kFloat32);
  EXPECT_THAT(t->ToDoubles(), ElementsAre(1.5, -2.0));

  TensorProto i;
  i.set_data_type(TensorProto::INT64);
  i.add_dims(1);
  i.add_dims(2);
  i.add_int64_data(INT64_MIN);
  i.add_int64_data(7);
  t = TensorFromProto(i);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(t->shape(), ElementsAre(1, 2));
  EXPECT_EQ(t->data<int64_t>()[0], INT64_MIN);

  // float16 is stored as bit patterns in int32_data: 0x3C00 is 1.0, 0xC000 is -2.0.
  TensorProto h;
  h.set_data_type(TensorProto::FLOAT16);
  h.add_dims(2);
  h.add_int32_data(0x3C00);
  h.add_int32_data(0xC000);
  t = TensorFromProto(h);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(t->ToDoubles(), ElementsAre(1.0, -2.0));

  TensorProto b;
  b.set_data_type(TensorProto::BOOL);
  b.add_dims(3);
  b.add_int32_data(1);
  b.add_int32_data(0);
  b.add_int32_data(1);
  t = TensorFromProto(b);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(t->ToDoubles(), ElementsAre(1, 0, 1));

  TensorProto scalar;
  scalar.set_data_type(TensorProto::INT32);
  scalar.add_int32_data(-5);
  t = TensorFromProto(scalar);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->shape().empty());
  EXPECT_EQ(t->data<int32_t>()[0], -5);
}

TEST(TensorProtoTest, ReadsRawData) {
  TensorProto p;
  p.set_data_type(TensorProto::INT32);
  p.add_dims(2);
  // Little-endian 3 and -1.
  p.set_raw_data(std::string("\x03\x00\x00\x00\xff\xff\xff\xff", 8));
  absl::StatusOr<ir::Tensor> t = TensorFromProto(p);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(t->ToDoubles(), ElementsAre(3, -1));
}

TEST(TensorProtoTest, RoundTripsThroughRawData) {
  ir::Tensor t = ir::Tensor::FromDoubles({2, 2}, DType::kFloat16, {0.5, 1, -3, 65504});
  absl::StatusOr<ir::Tensor> back = TensorFromProto(TensorToProto(t, "w"));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->BitwiseEqual(t));
  EXPECT_EQ(TensorToProto(t, "w").name(), "w");
}

TEST(TensorProtoTest, RejectsMalformedTensorsNamingThem) {
  TensorProto short_raw;
  short_raw.set_name("w1");
  short_raw.set_data_type(TensorProto::FLOAT);
  short_raw.add_dims(3);
  short_raw.set_raw_data(std::string(8, '\0'));
  absl::Status s = TensorFromProto(short_raw).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("tensor 'w1'"));
  EXPECT_THAT(s.message(), HasSubstr("raw_data has 8 bytes"));

  TensorProto few;
  few.set_name("w2");
  few.set_data_type(TensorProto::INT64);
  few.add_dims(2);
  few.add_int64_data(1);
  EXPECT_THAT(TensorFromProto(few).status().message(), HasSubstr("int64_data has 1 values"));

  TensorProto negative;
  negative.set_name("w3");
  negative.set_data_type(TensorProto::FLOAT);
  negative.add_dims(-2);
  EXPECT_THAT(TensorFromProto(negative).status().message(), HasSubstr("negative"));

  TensorProto huge;
  huge.set_name("w4");
  huge.set_data_type(TensorProto::FLOAT);
  huge.add_dims(int64_t{1} << 40);
  huge.add_dims(int64_t{1} << 40);
  EXPECT_THAT(TensorFromProto(huge).status().message(), HasSubstr("more elements"));

  TensorProto bad_bool;
  bad_bool.set_name("w5");
  bad_bool.set_data_type(TensorProto::BOOL);
  bad_bool.add_dims(1);
  bad_bool.set_raw_data("\x07");
  EXPECT_THAT(TensorFromProto(bad_bool).status().message(), HasSubstr("neither 0 nor 1"));

  TensorProto undefined;
  undefined.set_name("w6");
  EXPECT_EQ(TensorFromProto(undefined).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(TensorProtoTest, UnsupportedStorageIsUnimplemented) {
  TensorProto d;
  d.set_name("d");
  d.set_data_type(TensorProto::DOUBLE);
  d.add_double_data(1.0);
  absl::Status s = TensorFromProto(d).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("DOUBLE"));
  EXPECT_THAT(s.message(), HasSubstr("tensor 'd'"));

  TensorProto ext;
  ext.set_name("e");
  ext.set_data_type(TensorProto::FLOAT);
  ext.set_data_location(TensorProto::EXTERNAL);
  s = TensorFromProto(ext).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("external"));
}

TEST(TensorProtoTest, DTypeNames) {
  EXPECT_EQ(OnnxDTypeName(TensorProto::UINT8), "UINT8");
  EXPECT_EQ(OnnxDTypeName(99), "type 99");
  EXPECT_EQ(*DTypeFromOnnx(TensorProto::BOOL), DType::kBool);
  EXPECT_EQ(OnnxFromDType(DType::kInt32), TensorProto::INT32);
}

}  // namespace
}  // namespace relay::frontend::onnx
