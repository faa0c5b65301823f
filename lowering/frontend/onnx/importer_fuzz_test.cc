// Randomized robustness test of the ONNX importer: mutated bytes and mutated protos of a few
// seeded models must give either a model or an error, never a crash, a CHECK failure or (under
// `bazel test --config=asan --platform_suffix=asan`) a memory error. When the importer accepts a
// mutant, type inference must accept the module too (the importer types every call with the
// same relations), and printing it must work.
//
// Bounded by count (kIterations), not by clock, so that every machine and build runs the same
// mutants.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lowering/frontend/onnx/importer.h"
#include "lowering/frontend/onnx/test_util.h"
#include "lowering/ir/dim_binding.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/specialize_dims.h"

namespace relay::frontend::onnx {
namespace {

using ir::DType;
using ir::Tensor;
using testing::AttrFloat;
using testing::AttrInt;
using testing::AttrInts;
using testing::AttrString;
using testing::AttrTensor;
using testing::Int64s;
using testing::ModelBuilder;
using testing::Random;

// Each iteration tries one byte mutant and one proto mutant.
constexpr int kIterations = 400;

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n).
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : Next() % n; }
  bool OneIn(uint64_t n) { return Below(n) == 0; }

 private:
  uint64_t state_;
};

ModelBuilder ConvModel() {
  ModelBuilder m(13);
  m.Input("x", DType::kFloat32, {1, 2, 6, 6});
  m.Initializer("w", Random({4, 2, 3, 3}, 1)).Initializer("b", Random({4}, 2));
  for (const char* n : {"s", "o", "mu"}) m.Initializer(n, Random({4}, 3));
  m.Initializer("var", Random({4}, 4, 0.5, 1.5));
  m.Initializer("fc", Random({3, 4}, 5));
  AttrInts(m.Node("Conv", {"x", "w", "b"}, {"c"}, "conv"), "pads", {1, 1, 1, 1});
  m.Node("BatchNormalization", {"c", "s", "o", "mu", "var"}, {"n"}, "bn");
  m.Node("Relu", {"n"}, {"r"});
  auto& pool = m.Node("MaxPool", {"r"}, {"p"}, "pool");
  AttrInts(pool, "kernel_shape", {2, 2});
  AttrInts(pool, "strides", {2, 2});
  m.Node("Add", {"p", "p"}, {"sum"});
  m.Node("GlobalAveragePool", {"sum"}, {"g"});
  AttrInt(m.Node("Flatten", {"g"}, {"f"}), "axis", 1);
  AttrInt(m.Node("Gemm", {"f", "fc"}, {"y"}), "transB", 1);
  m.Output("y");
  return m;
}

ModelBuilder AttentionModel() {
  ModelBuilder m(17);
  m.Input("x", DType::kFloat32, {1, 4, 8});
  m.Initializer("g", Random({8}, 1)).Initializer("bb", Random({8}, 2));
  m.Initializer("wqkv", Random({8, 24}, 3));
  m.Initializer("split", Int64s({8, 8, 8}));
  m.Initializer("hs", Int64s({1, 4, 2, 4}));
  m.Initializer("merged", Int64s({0, 0, -1}));
  m.Initializer("zero", Int64s({0}));
  m.Initializer("two", Int64s({2}));
  m.Initializer("d", Tensor::Scalar(DType::kFloat32, 2));
  m.Node("LayerNormalization", {"x", "g", "bb"}, {"h"});
  m.Node("MatMul", {"h", "wqkv"}, {"qkv"});
  AttrInt(m.Node("Split", {"qkv", "split"}, {"q0", "k0", "v0"}), "axis", -1);
  m.Node("Shape", {"x"}, {"xs"});
  m.Node("Slice", {"xs", "zero", "two"}, {"bs"});
  m.Node("Reshape", {"q0", "hs"}, {"q1"});
  m.Node("Reshape", {"k0", "hs"}, {"k1"});
  m.Node("Reshape", {"v0", "hs"}, {"v1"});
  AttrInts(m.Node("Transpose", {"q1"}, {"q"}), "perm", {0, 2, 1, 3});
  AttrInts(m.Node("Transpose", {"k1"}, {"kt"}), "perm", {0, 2, 3, 1});
  AttrInts(m.Node("Transpose", {"v1"}, {"v"}), "perm", {0, 2, 1, 3});
  m.Node("MatMul", {"q", "kt"}, {"s0"});
  m.Node("Div", {"s0", "d"}, {"s"});
  AttrInt(m.Node("Softmax", {"s"}, {"p"}), "axis", -1);
  m.Node("MatMul", {"p", "v"}, {"c0"});
  AttrInts(m.Node("Transpose", {"c0"}, {"c1"}), "perm", {0, 2, 1, 3});
  m.Node("Reshape", {"c1", "merged"}, {"c"});
  m.Node("Gelu", {"c"}, {"y"});
  m.Output("y");
  return m;
}

// Many small ops with attributes and constant inputs, for the structured mutations to poke at.
ModelBuilder MiscModel() {
  ModelBuilder m(13);
  m.Input("x", DType::kFloat32, {1, 2, 4, 4});
  m.Input("i", DType::kInt64, {3});
  m.Initializer("pads", Int64s({0, 0, 1, 1, 0, 0, 1, 1}));
  m.Initializer("scales", Tensor::FromDoubles({4}, DType::kFloat32, {1, 1, 2, 2}));
  m.Initializer("starts", Int64s({1}));
  m.Initializer("ends", Int64s({-1}));
  m.Initializer("axes", Int64s({3}));
  m.Initializer("shape", Int64s({2, 3}));
  m.Initializer("reps", Int64s({2, 1}));
  m.Initializer("wt", Random({2, 3, 2, 2}, 9));
  m.Initializer("lo", Tensor::Scalar(DType::kFloat32, -0.5));
  AttrString(m.Node("Pad", {"x", "pads"}, {"a"}), "mode", "reflect");
  m.Node("Resize", {"a", "", "scales"}, {"b"});
  auto& avg = m.Node("AveragePool", {"b"}, {"c"});
  AttrInts(avg, "kernel_shape", {3, 3});
  AttrString(avg, "auto_pad", "SAME_UPPER");
  AttrInt(avg, "ceil_mode", 1);
  m.Node("Slice", {"c", "starts", "ends", "axes"}, {"d"});
  m.Node("Clip", {"d", "lo"}, {"e"});
  auto& ct = m.Node("ConvTranspose", {"e", "wt"}, {"f"});
  AttrInts(ct, "strides", {2, 2});
  AttrInts(ct, "output_padding", {1, 1});
  AttrInt(m.Node("ReduceMean", {"f"}, {"g"}), "keepdims", 0);
  AttrInt(m.Node("Softmax", {"f"}, {"h"}), "axis", 1);
  AttrTensor(m.Node("ConstantOfShape", {"shape"}, {"k"}), "value",
             Tensor::FromDoubles({1}, DType::kFloat32, {1}));
  m.Node("Tile", {"k", "reps"}, {"l"});
  m.Node("Gather", {"l", "i"}, {"n"});
  AttrFloat(m.Node("LeakyRelu", {"n"}, {"o"}), "alpha", 0.1f);
  AttrInt(m.Node("Cast", {"o"}, {"q"}), "to", 7);
  m.Output("g").Output("h").Output("q");
  return m;
}

// Imports `bytes`; on success the module must type-check and print.
// With symbolic dims (the mutations name input dims "N"): what imports must type-check, and
// specialized at N = 4 must type-check again, as relayc interpret runs it.
void CheckSymbolic(const std::string& bytes, int* accepted) {
  ImportOptions options;
  options.symbolic_dims = true;
  options.dim_bounds["N"] = *ir::MakeDimVar("N", 2, 8, 2);
  absl::StatusOr<ImportedModel> imported = ImportOnnxFromBytes(bytes, options, "fuzz.onnx");
  if (!imported.ok()) return;
  const bool symbolic = std::any_of(imported->inputs.begin(), imported->inputs.end(),
                                    [](const auto& in) { return !in.type.is_static(); });
  if (symbolic) ++*accepted;
  absl::Status typed = ir::InferTypes(imported->module);
  ASSERT_TRUE(typed.ok()) << "the importer accepted a module type inference rejects: " << typed;
  EXPECT_FALSE(ir::PrintModule(imported->module).empty());
  std::map<std::string, ir::Shape> shapes;
  for (const ImportedModel::Input& in : imported->inputs) {
    absl::StatusOr<ir::Type> at = ir::SpecializeType(in.type, {{"N", 4}});
    ASSERT_TRUE(at.ok()) << at.status();
    if (at->is_tensor()) shapes[in.name] = at->shape();
  }
  absl::StatusOr<ir::Module> specialized = passes::SpecializeToShapes(imported->module, shapes);
  ASSERT_TRUE(specialized.ok()) << specialized.status();
  absl::Status retyped = ir::InferTypes(*specialized);
  ASSERT_TRUE(retyped.ok()) << "a symbolic module that type-checks does not at N = 4: " << retyped
                            << "\n"
                            << ir::PrintModule(imported->module);
}

void CheckOne(const std::string& bytes, int* accepted, int* symbolic_accepted) {
  CheckSymbolic(bytes, symbolic_accepted);
  absl::StatusOr<ImportedModel> imported = ImportOnnxFromBytes(bytes, {}, "fuzz.onnx");
  if (!imported.ok()) return;
  ++*accepted;
  absl::Status typed = ir::InferTypes(imported->module);
  ASSERT_TRUE(typed.ok()) << "the importer accepted a module type inference rejects: " << typed;
  EXPECT_FALSE(ir::PrintModule(imported->module).empty());
}

std::string MutateBytes(std::string s, Rng& rng) {
  const int n = 1 + static_cast<int>(rng.Below(4));
  for (int k = 0; k < n && !s.empty(); ++k) {
    const size_t pos = rng.Below(s.size());
    switch (rng.Below(6)) {
      case 0:
        s[pos] = static_cast<char>(s[pos] ^ (1 << rng.Below(8)));
        break;
      case 1:
        s[pos] = static_cast<char>(rng.Below(256));
        break;
      case 2:
        s.insert(pos, std::string(1 + rng.Below(4), static_cast<char>(rng.Below(256))));
        break;
      case 3:
        s.erase(pos, 1 + rng.Below(8));
        break;
      case 4:
        s.resize(pos);
        break;
      default: {
        const size_t len = std::min<size_t>(1 + rng.Below(16), s.size() - pos);
        s.insert(rng.Below(s.size()), s.substr(pos, len));
        break;
      }
    }
  }
  return s;
}

int64_t InterestingInt(Rng& rng) {
  static const int64_t kValues[] = {0,
                                    1,
                                    -1,
                                    2,
                                    3,
                                    -2,
                                    4,
                                    7,
                                    64,
                                    -5,
                                    100,
                                    1000,
                                    int64_t{1} << 31,
                                    int64_t{1} << 40,
                                    INT64_MAX,
                                    INT64_MIN};
  return kValues[rng.Below(sizeof(kValues) / sizeof(kValues[0]))];
}

const char* const kOpTypes[] = {"Relu",
                                "Conv",
                                "Add",
                                "MatMul",
                                "Reshape",
                                "Slice",
                                "Split",
                                "Concat",
                                "Gather",
                                "Pad",
                                "Resize",
                                "Softmax",
                                "Clip",
                                "Transpose",
                                "Squeeze",
                                "Unsqueeze",
                                "ReduceSum",
                                "ConstantOfShape",
                                "Expand",
                                "Tile",
                                "Shape",
                                "Cast",
                                "MaxPool",
                                "Gemm",
                                "LayerNormalization",
                                "Where",
                                "Range",
                                "Flatten"};

std::string MutateProto(::onnx::ModelProto model, Rng& rng) {
  ::onnx::GraphProto* g = model.mutable_graph();
  const int n = 1 + static_cast<int>(rng.Below(3));
  for (int k = 0; k < n; ++k) {
    switch (rng.Below(9)) {
      case 0: {  // an attribute's value
        if (g->node_size() == 0) break;
        ::onnx::NodeProto* node = g->mutable_node(rng.Below(g->node_size()));
        if (node->attribute_size() == 0) break;
        ::onnx::AttributeProto* a = node->mutable_attribute(rng.Below(node->attribute_size()));
        if (a->ints_size() > 0) {
          a->set_ints(rng.Below(a->ints_size()), InterestingInt(rng));
          if (rng.OneIn(4)) a->add_ints(InterestingInt(rng));
        } else if (a->has_i()) {
          a->set_i(InterestingInt(rng));
        } else if (a->has_f()) {
          a->set_f(static_cast<float>(InterestingInt(rng)));
        } else if (a->has_s()) {
          a->set_s(rng.OneIn(2) ? "SAME_LOWER" : "nonsense");
        } else {
          a->set_type(static_cast<::onnx::AttributeProto::AttributeType>(rng.Below(12)));
        }
        break;
      }
      case 1: {  // an op type
        if (g->node_size() == 0) break;
        g->mutable_node(rng.Below(g->node_size()))
            ->set_op_type(kOpTypes[rng.Below(sizeof(kOpTypes) / sizeof(kOpTypes[0]))]);
        break;
      }
      case 2: {  // an input name: another value, an empty name, or an unknown one
        if (g->node_size() < 2) break;
        ::onnx::NodeProto* node = g->mutable_node(rng.Below(g->node_size()));
        if (node->input_size() == 0) break;
        const ::onnx::NodeProto& other = g->node(rng.Below(g->node_size()));
        const std::string name = rng.OneIn(4)              ? std::string()
                                 : rng.OneIn(4)            ? std::string("nowhere")
                                 : other.output_size() > 0 ? other.output(0)
                                                           : std::string();
        node->set_input(rng.Below(node->input_size()), name);
        break;
      }
      case 3: {  // a graph input dimension
        if (g->input_size() == 0) break;
        auto* shape = g->mutable_input(rng.Below(g->input_size()))
                          ->mutable_type()
                          ->mutable_tensor_type()
                          ->mutable_shape();
        if (shape->dim_size() == 0 || rng.OneIn(6)) {
          shape->add_dim()->set_dim_value(1 + rng.Below(3));
          break;
        }
        auto* dim = shape->mutable_dim(rng.Below(shape->dim_size()));
        if (rng.OneIn(5)) {
          dim->set_dim_param("N");
        } else {
          dim->set_dim_value(rng.OneIn(3) ? InterestingInt(rng) : rng.Below(9));
        }
        break;
      }
      case 4: {  // an initializer's dims, type or contents
        if (g->initializer_size() == 0) break;
        ::onnx::TensorProto* t = g->mutable_initializer(rng.Below(g->initializer_size()));
        if (rng.OneIn(3)) {
          t->set_data_type(static_cast<int32_t>(rng.Below(17)));
        } else if (rng.OneIn(2) && t->dims_size() > 0) {
          t->set_dims(rng.Below(t->dims_size()), InterestingInt(rng));
        } else if (t->has_raw_data() && !t->raw_data().empty()) {
          std::string raw = t->raw_data();
          raw[rng.Below(raw.size())] = static_cast<char>(rng.Below(256));
          if (rng.OneIn(3)) raw.resize(rng.Below(raw.size()));
          t->set_raw_data(raw);
        }
        break;
      }
      case 5:  // the opset
        model.mutable_opset_import(0)->set_version(static_cast<int64_t>(rng.Below(20)));
        break;
      case 6:  // drop a node
        if (g->node_size() > 0) {
          g->mutable_node()->DeleteSubrange(static_cast<int>(rng.Below(g->node_size())), 1);
        }
        break;
      case 7: {  // an extra output or input on a node
        if (g->node_size() == 0) break;
        ::onnx::NodeProto* node = g->mutable_node(rng.Below(g->node_size()));
        if (rng.OneIn(2)) {
          node->add_output(absl::StrCat("extra", rng.Below(3)));
        } else {
          node->add_input(node->input_size() > 0 ? node->input(0) : "x");
        }
        break;
      }
      default: {  // a graph output
        if (g->node_size() == 0) break;
        const ::onnx::NodeProto& node = g->node(rng.Below(g->node_size()));
        if (node.output_size() > 0) g->add_output()->set_name(node.output(0));
        break;
      }
    }
  }
  return model.SerializeAsString();
}

TEST(ImporterFuzzTest, MutantsImportOrFailCleanly) {
  const std::vector<ModelBuilder> models = {ConvModel(), AttentionModel(), MiscModel()};
  // The seeds import as they are.
  for (const ModelBuilder& m : models) {
    absl::StatusOr<ImportedModel> imported = ImportOnnxFromBytes(m.Bytes(), {}, "seed.onnx");
    ASSERT_TRUE(imported.ok()) << imported.status();
  }
  // RELAY_FUZZ_SEED explores other mutants when run by hand; the test's own seed is fixed.
  const char* seed = std::getenv("RELAY_FUZZ_SEED");
  Rng rng(seed != nullptr ? std::strtoull(seed, nullptr, 10) : 20240601);
  int runs = 0;
  int accepted = 0;
  int symbolic = 0;  // imported with a symbolic input
  for (int i = 0; i < kIterations; ++i) {
    const ModelBuilder& m = models[rng.Below(models.size())];
    CheckOne(MutateBytes(m.Bytes(), rng), &accepted, &symbolic);
    CheckOne(MutateProto(m.model(), rng), &accepted, &symbolic);
    // The seed with its first input's batch open as "N": the symbolic converters' paths.
    ::onnx::ModelProto open = m.model();
    open.mutable_graph()
        ->mutable_input(0)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->mutable_dim(0)
        ->set_dim_param("N");
    CheckOne(MutateProto(open, rng), &accepted, &symbolic);
    runs += 3;
    if (::testing::Test::HasFatalFailure()) return;
  }
  // Some mutants got through the importer (else the mutations only test the protobuf parser).
  EXPECT_GT(accepted, 20);
  EXPECT_GT(symbolic, 10);
  std::printf("%d mutants, %d imported, %d with symbolic dims\n", runs, accepted, symbolic);
}

}  // namespace
}  // namespace relay::frontend::onnx
