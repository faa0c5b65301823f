// Tests of relayc assemble's library: the generated text for a tiny model against reviewed
// golden files, the weights blob, kernel metadata parsing, every error a user can cause (and
// that nothing is written then), loading the inputs from files, and determinism. The generated
// code is compiled and run in assemble_e2e_test.
#include "lowering/assemble/assemble.h"

#include <dirent.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/graph/graph_json.h"
#include "lowering/graph/validate.h"
#include "lowering/io/file.h"
#include "lowering/io/safetensors.h"

namespace relay::assemble {
namespace {

using graph::Buffer;
using graph::Graph;
using graph::KernelCall;
using ::testing::HasSubstr;

constexpr char kAdd[] = "k_0123456789abcdef0001";
constexpr char kRelu[] = "k_0123456789abcdef0002";

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

Buffer MakeBuffer(int id, Buffer::Kind kind, const std::string& name, ir::Shape shape,
                  ir::DType dtype = ir::DType::kFloat32) {
  Buffer b;
  b.id = id;
  b.kind = kind;
  b.name = name;
  b.shape = std::move(shape);
  b.dtype = dtype;
  return b;
}

KernelMeta Meta(const std::string& symbol, std::vector<ir::Shape> inputs,
                std::vector<ir::Shape> outputs) {
  KernelMeta meta;
  meta.symbol = symbol;
  for (ir::Shape& s : inputs) meta.args.push_back({KernelArg::Kind::kInput, s});
  for (ir::Shape& s : outputs) meta.args.push_back({KernelArg::Kind::kOutput, s});
  return meta;
}

// y = relu(x + w): x float32[2, 3] an input, w a weight.
AssembleInputs Tiny() {
  AssembleInputs in;
  Graph& g = in.graph;
  g.buffers = {MakeBuffer(0, Buffer::Kind::kInput, "x", {2, 3}),
               MakeBuffer(1, Buffer::Kind::kParam, "w", {2, 3}),
               MakeBuffer(2, Buffer::Kind::kTemp, "", {2, 3}),
               MakeBuffer(3, Buffer::Kind::kTemp, "", {2, 3})};
  g.inputs = {0};
  g.outputs = {3};
  g.calls = {KernelCall{kAdd, {0, 1}, {2}}, KernelCall{kRelu, {2}, {3}}};
  in.kernels[kAdd] = Meta(kAdd, {{2, 3}, {2, 3}}, {{2, 3}});
  in.kernels[kRelu] = Meta(kRelu, {{2, 3}}, {{2, 3}});
  in.params["w"] = ir::Tensor::FromDoubles({2, 3}, ir::DType::kFloat32, {1, 2, 3, 4, 5, 6});
  in.summaries[kAdd] = graph::KernelSummary{kAdd, {"add"}, 6};
  in.summaries[kRelu] = graph::KernelSummary{kRelu, {"nn.relu"}, 6};
  return in;
}

// Compares with a golden file; on a difference, writes the generated text to the test's
// undeclared outputs (for review and, if right, copying over the golden).
void ExpectGolden(const std::string& actual, const std::string& golden_name) {
  absl::StatusOr<std::string> golden = io::ReadFile("lowering/assemble/testdata/" + golden_name);
  ASSERT_TRUE(golden.ok()) << golden.status();
  if (actual == *golden) return;
  const char* out = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  if (out != nullptr) (void)io::WriteFileAtomically(std::string(out) + "/" + golden_name, actual);
  ADD_FAILURE() << golden_name << " differs; generated:\n" << actual;
}

TEST(Generate, TinyModelMatchesTheGoldenText) {
  absl::StatusOr<AssembledModel> model = Generate(Tiny(), "tiny");
  ASSERT_TRUE(model.ok()) << model.status();
  ExpectGolden(model->header, "tiny.h.golden");
  ExpectGolden(model->source, "tiny.cc.golden");
  // Arena: %2 (24 bytes, padded to 64); x and the output after it.
  EXPECT_EQ(model->plan.arena_bytes, 64);
  EXPECT_EQ(model->memory_bytes, 64 * 3);
  EXPECT_EQ(model->params_bytes, 64);
}

TEST(Generate, WeightsBlobHoldsEachTensorAlignedOnce) {
  AssembleInputs in = Tiny();
  // A second buffer naming "w" shares its bytes; a new weight "b" follows at offset 64.
  in.graph.buffers.push_back(MakeBuffer(4, Buffer::Kind::kParam, "w", {2, 3}));
  in.graph.buffers.push_back(MakeBuffer(5, Buffer::Kind::kParam, "b", {2, 3}));
  in.graph.buffers.push_back(MakeBuffer(6, Buffer::Kind::kTemp, "", {2, 3}));
  in.graph.calls.push_back(KernelCall{kAdd, {4, 5}, {6}});
  in.graph.outputs.push_back(6);
  in.params["b"] = ir::Tensor::FromDoubles({2, 3}, ir::DType::kFloat32, {-1, -2, -3, -4, -5, -6});
  in.params["unused"] = ir::Tensor({1000}, ir::DType::kFloat32);
  absl::StatusOr<AssembledModel> model = Generate(in, "m");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->params_bytes, 128);  // w, b; not the unused weight
  // The third call's arguments: w at 0, b at 64, then its output in the memory block.
  EXPECT_THAT(model->source, HasSubstr("    {true, 0}, {true, 64}, {false, "));
  // The blob's bytes are in the object: w's float32 values 1..6 followed by zero padding.
  const float w[6] = {1, 2, 3, 4, 5, 6};
  std::string w_bytes(reinterpret_cast<const char*>(w), sizeof(w));
  w_bytes.append(64 - sizeof(w), '\0');
  EXPECT_NE(model->params_object.find(w_bytes), std::string::npos);
}

// Outputs that are an input, a weight, or a buffer already returned get their own buffers and
// are copied at the end of Run().
TEST(Generate, OutputsThatAreNotWrittenInPlaceAreCopied) {
  AssembleInputs in = Tiny();
  in.graph.outputs = {3, 0, 1, 3};
  absl::StatusOr<AssembledModel> model = Generate(in, "m");
  ASSERT_TRUE(model.ok()) << model.status();
  // Memory: arena [0, 64), x [64, 128), outputs at 128, 192, 256, 320.
  EXPECT_THAT(model->source, HasSubstr("memcpy(memory + 192, memory + 64, 24);  // output 1"));
  EXPECT_THAT(model->source, HasSubstr("memcpy(memory + 256, weights + 0, 24);  // output 2"));
  EXPECT_THAT(model->source, HasSubstr("memcpy(memory + 320, memory + 128, 24);  // output 3"));
  EXPECT_EQ(model->memory_bytes, 384);
}

TEST(Generate, IsDeterministic) {
  absl::StatusOr<AssembledModel> a = Generate(Tiny(), "tiny");
  absl::StatusOr<AssembledModel> b = Generate(Tiny(), "tiny");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->header, b->header);
  EXPECT_EQ(a->source, b->source);
  EXPECT_EQ(a->params_object, b->params_object);
}

TEST(Generate, NamesAreEscapedInTextAndStrings) {
  AssembleInputs in = Tiny();
  in.graph.buffers[0].name = "in\"put\\?\n\xff";
  absl::StatusOr<AssembledModel> model = Generate(in, "m");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_THAT(model->source, HasSubstr("\"in\\\"put\\\\\\?\\012\\377\""));
  EXPECT_THAT(model->header, HasSubstr("//   0  \"in\\\"put\\\\\\?\\012\\377\"  float32[2, 3]"));
}

std::string ErrorOf(const AssembleInputs& in, const std::string& name = "m") {
  absl::StatusOr<AssembledModel> model = Generate(in, name);
  if (model.ok()) return "OK";
  return std::string(model.status().message());
}

TEST(Generate, RejectsBadModelNames) {
  for (const char* bad : {"", "my-model", "3d", "class", "int", "size_t", "my_t", "std", "relay",
                          "RelayModel", "State", "memcpy"}) {
    absl::StatusOr<AssembledModel> model = Generate(Tiny(), bad);
    ASSERT_FALSE(model.ok()) << bad;
    EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(model.status().message()), HasSubstr("model name")) << bad;
  }
  EXPECT_EQ(ErrorOf(Tiny(), "resnet50_v1"), "OK");
}

TEST(Generate, MissingKernelMetadataIsNotFound) {
  AssembleInputs in = Tiny();
  in.kernels.erase(kRelu);
  absl::StatusOr<AssembledModel> model = Generate(in, "m");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(model.status().message()),
              HasSubstr("call #1 (k_0123456789abcdef0002): no metadata"));
}

TEST(Generate, KernelMetadataMustMatchTheCall) {
  AssembleInputs in = Tiny();
  in.kernels[kAdd] = Meta(kAdd, {{2, 3}}, {{2, 3}});
  EXPECT_THAT(ErrorOf(in), HasSubstr("call #0 (k_0123456789abcdef0001): the graph passes 2 "
                                     "inputs and 1 outputs but the kernel takes 1 and 1"));
  in = Tiny();
  in.kernels[kAdd] = Meta(kAdd, {{2, 3}, {3, 2}}, {{2, 3}});
  EXPECT_THAT(ErrorOf(in), HasSubstr("argument 1 (buffer %1) is Tensor[(2, 3), float32] in the "
                                     "graph but Tensor[(3, 2), float32] in the kernel's metadata"));
  in = Tiny();
  in.kernels[kRelu].args[1].dtype = ir::DType::kFloat16;
  EXPECT_THAT(ErrorOf(in), HasSubstr("output 0 (buffer %3) is Tensor[(2, 3), float32] in the "
                                     "graph but Tensor[(2, 3), float16]"));
  in = Tiny();
  in.kernels[kRelu].symbol = "not a symbol";
  EXPECT_THAT(ErrorOf(in), HasSubstr("kernel symbol 'not a symbol' is not a C identifier"));
}

TEST(Generate, WeightsMustBeInTheParamsWithTheirType) {
  AssembleInputs in = Tiny();
  in.params.clear();
  absl::StatusOr<AssembledModel> model = Generate(in, "m");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(model.status().message()),
              HasSubstr("weight 'w' (buffer %1) is not in the params"));
  in.params["w"] = ir::Tensor({2, 3}, ir::DType::kInt32);
  EXPECT_THAT(ErrorOf(in), HasSubstr("weight 'w' (buffer %1) is Tensor[(2, 3), float32] in the "
                                     "graph but Tensor[(2, 3), int32] in the params"));
}

// A well-formed graph whose buffer is too large: sizes are Generate's business (ValidateGraph,
// lowering/graph/validate.h, checks the graph's form).
TEST(Generate, RefusesBuffersTooLargeForMemory) {
  Graph g = Tiny().graph;
  g.buffers[3].shape = {int64_t{1} << 40, int64_t{1} << 20};
  EXPECT_TRUE(graph::ValidateGraph(g).ok());
  AssembleInputs in = Tiny();
  in.graph = g;
  in.kernels[kRelu].args[1].shape = g.buffers[3].shape;
  EXPECT_THAT(ErrorOf(in), HasSubstr("buffer %3 (float32[1099511627776, 1048576]) is larger "
                                     "than 2^50 bytes"));
}

TEST(KernelMeta, ParsesAndRoundTrips) {
  const std::string text = R"({"symbol": "k_abc", "flops": 12, "args": [
      {"shape": [2, 3], "dtype": "float32", "kind": "input"},
      {"shape": [], "dtype": "int64", "kind": "input"},
      {"shape": [6], "dtype": "float16", "kind": "output"}]})";
  absl::StatusOr<KernelMeta> meta = ParseKernelMeta(text, "k_abc.json");
  ASSERT_TRUE(meta.ok()) << meta.status();
  EXPECT_EQ(meta->symbol, "k_abc");
  ASSERT_EQ(meta->args.size(), 3u);
  EXPECT_EQ(meta->num_inputs(), 2);
  EXPECT_EQ(meta->num_outputs(), 1);
  EXPECT_EQ(meta->args[0].shape, (ir::Shape{2, 3}));
  EXPECT_EQ(meta->args[1].dtype, ir::DType::kInt64);
  EXPECT_TRUE(meta->args[1].shape.empty());
  EXPECT_EQ(meta->args[2].kind, KernelArg::Kind::kOutput);
  EXPECT_EQ(meta->args[2].dtype, ir::DType::kFloat16);

  const std::string json = KernelMetaToJson(*meta);
  absl::StatusOr<KernelMeta> again = ParseKernelMeta(json, "again");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(KernelMetaToJson(*again), json);
}

TEST(KernelMeta, FilesHoldOneKernelOrAnArray) {
  const std::string one = R"({"symbol": "k_a", "kernel": "k_a", "args": [
      {"shape": [1], "dtype": "float32", "kind": "output"}]})";
  absl::StatusOr<std::vector<KernelMeta>> single = ParseKernelMetaFile(one, "a.json");
  ASSERT_TRUE(single.ok()) << single.status();
  ASSERT_EQ(single->size(), 1u);
  EXPECT_EQ((*single)[0].kernel, "k_a");
  absl::StatusOr<std::vector<KernelMeta>> many =
      ParseKernelMetaFile("[" + one + ", " + one + "]", "o.json");
  ASSERT_TRUE(many.ok()) << many.status();
  EXPECT_EQ(many->size(), 2u);
  absl::StatusOr<std::vector<KernelMeta>> none = ParseKernelMetaFile("[]", "o.json");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  absl::StatusOr<std::vector<KernelMeta>> bad =
      ParseKernelMetaFile("[" + one + R"(, {"symbol": "k_b", "args": []}])", "o.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("o.json: error: kernel #1: the kernel has no output argument"));
  EXPECT_FALSE(ParseKernelMetaFile("3", "o.json").ok());
  EXPECT_FALSE(ParseKernelMetaFile(R"({"symbol": "k", "kernel": 3, "args": []})", "o.json").ok());
}

TEST(KernelMeta, RejectsMalformedMetadata) {
  auto error = [](const std::string& text) {
    absl::StatusOr<KernelMeta> meta = ParseKernelMeta(text, "k.json");
    EXPECT_FALSE(meta.ok()) << text;
    return meta.ok() ? std::string("OK") : std::string(meta.status().message());
  };
  const std::string out = R"({"shape": [1], "dtype": "float32", "kind": "output"})";
  const std::string in = R"({"shape": [1], "dtype": "float32", "kind": "input"})";
  EXPECT_THAT(error("{"), HasSubstr("k.json: error: not a JSON object"));
  EXPECT_THAT(error("[]"), HasSubstr("not a JSON object"));
  EXPECT_THAT(error(R"({"args": []})"), HasSubstr("missing string 'symbol'"));
  EXPECT_THAT(error(R"({"symbol": "a-b", "args": []})"), HasSubstr("'a-b' is not a C identifier"));
  EXPECT_THAT(error(R"({"symbol": "k"})"), HasSubstr("missing array 'args'"));
  EXPECT_THAT(error(R"({"symbol": "k", "args": []})"), HasSubstr("no output argument"));
  EXPECT_THAT(error(R"({"symbol": "k", "args": [)" + in + "]}"), HasSubstr("no output argument"));
  EXPECT_THAT(error(R"({"symbol": "k", "args": [)" + out + "," + in + "]}"),
              HasSubstr("argument 1: an input after an output"));
  EXPECT_THAT(error(R"({"symbol": "k", "args": [{"shape": [-1], "dtype": "float32",
                        "kind": "output"}]})"),
              HasSubstr("argument 0: shape must hold non-negative integers"));
  EXPECT_THAT(error(R"({"symbol": "k", "args": [{"shape": [1], "dtype": "float64",
                        "kind": "output"}]})"),
              HasSubstr("argument 0: unknown dtype 'float64'"));
  EXPECT_THAT(error(R"({"symbol": "k", "args": [{"shape": [1], "dtype": "float32"}]})"),
              HasSubstr("'kind' must be \"input\" or \"output\""));
  EXPECT_THAT(error(R"({"symbol": "k", "args": [3]})"), HasSubstr("argument 0 is not an object"));
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
  std::sort(names.begin(), names.end());
  return names;
}

TEST(Assemble, WritesTheThreeFiles) {
  const std::string dir = TempDir() + "/assemble_writes/out";
  ASSERT_TRUE(Assemble(Tiny(), dir, "tiny").ok());
  EXPECT_THAT(ListDir(dir), ::testing::ElementsAre("tiny.cc", "tiny.h", "tiny_params.o"));
  absl::StatusOr<AssembledModel> model = Generate(Tiny(), "tiny");
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(io::ReadFile(dir + "/tiny.h").value(), model->header);
  EXPECT_EQ(io::ReadFile(dir + "/tiny.cc").value(), model->source);
  EXPECT_EQ(io::ReadFile(dir + "/tiny_params.o").value(), model->params_object);
}

TEST(Assemble, WritesNothingOnError) {
  const std::string dir = TempDir() + "/assemble_error";
  AssembleInputs in = Tiny();
  in.params.clear();
  EXPECT_FALSE(Assemble(in, dir, "tiny").ok());
  EXPECT_THAT(ListDir(dir), ::testing::IsEmpty());
}

TEST(LoadAssembleInputs, ReadsWhatRelaycWrites) {
  const std::string dir = TempDir() + "/assemble_load";
  ASSERT_TRUE(io::MakeDirectories(dir).ok());
  const AssembleInputs tiny = Tiny();
  std::vector<graph::KernelSummary> summaries;
  for (const auto& [id, summary] : tiny.summaries) summaries.push_back(summary);
  ASSERT_TRUE(
      io::WriteFileAtomically(dir + "/tiny.graph.json", graph::GraphToJson(tiny.graph, summaries))
          .ok());
  ASSERT_TRUE(io::WriteSafetensors(dir + "/tiny.params", tiny.params).ok());
  std::vector<std::string> metas;
  for (const auto& [id, meta] : tiny.kernels) {
    metas.push_back(dir + "/" + id + ".json");
    ASSERT_TRUE(io::WriteFileAtomically(metas.back(), KernelMetaToJson(meta)).ok());
  }
  absl::StatusOr<AssembleInputs> loaded =
      LoadAssembleInputs(dir + "/tiny.graph.json", dir + "/tiny.params", metas);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  absl::StatusOr<AssembledModel> from_files = Generate(*loaded, "tiny");
  absl::StatusOr<AssembledModel> from_memory = Generate(tiny, "tiny");
  ASSERT_TRUE(from_files.ok() && from_memory.ok());
  EXPECT_EQ(from_files->source, from_memory->source);
  EXPECT_EQ(from_files->params_object, from_memory->params_object);

  // The same metadata twice is fine; different metadata for one id is an error.
  metas.push_back(metas.front());
  EXPECT_TRUE(LoadAssembleInputs(dir + "/tiny.graph.json", dir + "/tiny.params", metas).ok());
  KernelMeta other = tiny.kernels.at(kAdd);
  other.args[0].shape = {6};
  other.kernel = kAdd;
  ASSERT_TRUE(io::WriteFileAtomically(dir + "/other.json", KernelMetaToJson(other)).ok());
  metas.push_back(dir + "/other.json");
  absl::StatusOr<AssembleInputs> twice =
      LoadAssembleInputs(dir + "/tiny.graph.json", dir + "/tiny.params", metas);
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(std::string(twice.status().message()),
              HasSubstr("other.json: different metadata for kernel k_0123456789abcdef0001"));
  absl::StatusOr<AssembleInputs> missing =
      LoadAssembleInputs(dir + "/tiny.graph.json", dir + "/nope.params", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
}

// An overflow compile's metadata: an array of kernels, each named by its "kernel" key (or its
// symbol), in a file whose name is not a kernel id; an empty array adds nothing.
TEST(LoadAssembleInputs, ArraysOfKernelsAndIdsFromTheKernelKey) {
  const std::string dir = TempDir() + "/assemble_load_array";
  ASSERT_TRUE(io::MakeDirectories(dir).ok());
  const AssembleInputs tiny = Tiny();
  std::vector<graph::KernelSummary> summaries;
  for (const auto& [id, summary] : tiny.summaries) summaries.push_back(summary);
  ASSERT_TRUE(
      io::WriteFileAtomically(dir + "/tiny.graph.json", graph::GraphToJson(tiny.graph, summaries))
          .ok());
  ASSERT_TRUE(io::WriteSafetensors(dir + "/tiny.params", tiny.params).ok());
  KernelMeta add = tiny.kernels.at(kAdd);
  add.kernel = kAdd;
  KernelMeta relu = tiny.kernels.at(kRelu);  // no "kernel" key: the symbol names it
  ASSERT_TRUE(
      io::WriteFileAtomically(dir + "/tiny_overflow.json",
                              "[" + KernelMetaToJson(add) + "," + KernelMetaToJson(relu) + "]")
          .ok());
  ASSERT_TRUE(io::WriteFileAtomically(dir + "/empty_overflow.json", "[]\n").ok());
  absl::StatusOr<AssembleInputs> loaded =
      LoadAssembleInputs(dir + "/tiny.graph.json", dir + "/tiny.params",
                         {dir + "/tiny_overflow.json", dir + "/empty_overflow.json"});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->kernels.size(), 2u);
  EXPECT_EQ(loaded->kernels.count(kAdd), 1u);
  EXPECT_EQ(loaded->kernels.count(kRelu), 1u);
  EXPECT_TRUE(Generate(*loaded, "tiny").ok());
}

}  // namespace
}  // namespace relay::assemble
