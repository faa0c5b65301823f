#include "lowering/passes/partition.h"

#include <algorithm>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/graph/graph_json.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/test_util.h"
#include "lowering/pipeline.h"

namespace relay::passes {
namespace {

using graph::Graph;
using graph::KernelCall;

using ::testing::HasSubstr;
using ::testing::StartsWith;

// Two residual blocks with batch norm: the shape of a ResNet stage.
constexpr char kBlocks[] = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8, 8, 8), float32],
          %w1: Tensor[(8, 8, 3, 3), float32], %g1: Tensor[(8), float32], %b1: Tensor[(8), float32],
          %m1: Tensor[(8), float32], %var1: Tensor[(8), float32],
          %w2: Tensor[(8, 8, 3, 3), float32], %g2: Tensor[(8), float32], %b2: Tensor[(8), float32],
          %m2: Tensor[(8), float32], %var2: Tensor[(8), float32],
          %w3: Tensor[(8, 8, 3, 3), float32], %g3: Tensor[(8), float32], %b3: Tensor[(8), float32],
          %m3: Tensor[(8), float32], %var3: Tensor[(8), float32],
          %w4: Tensor[(8, 8, 3, 3), float32], %g4: Tensor[(8), float32], %b4: Tensor[(8), float32],
          %m4: Tensor[(8), float32], %var4: Tensor[(8), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = nn.batch_norm(%0, %g1, %b1, %m1, %var1);
  %2 = nn.relu(%1.0);
  %3 = nn.conv2d(%2, %w2, padding=[1, 1, 1, 1]);
  %4 = nn.batch_norm(%3, %g2, %b2, %m2, %var2);
  %5 = add(%4.0, %x);
  %6 = nn.relu(%5);
  %7 = nn.conv2d(%6, %w3, padding=[1, 1, 1, 1]);
  %8 = nn.batch_norm(%7, %g3, %b3, %m3, %var3);
  %9 = nn.relu(%8.0);
  %10 = nn.conv2d(%9, %w4, padding=[1, 1, 1, 1]);
  %11 = nn.batch_norm(%10, %g4, %b4, %m4, %var4);
  %12 = add(%11.0, %6);
  %13 = nn.relu(%12);
  %14 = nn.global_avg_pool2d(%13);
  nn.batch_flatten(%14)
})";

std::vector<std::string> Weights() {
  std::vector<std::string> names;
  for (const char* prefix : {"w", "g", "b", "m", "var"}) {
    for (int i = 1; i <= 4; ++i) names.push_back(prefix + std::to_string(i));
  }
  return names;
}

PartitionedModel PartitionOrDie(const Model& model) {
  absl::StatusOr<PartitionedModel> p = PartitionModel(model);
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

std::vector<std::string> CallIds(const PartitionedModel& p) {
  std::vector<std::string> ids;
  for (const KernelCall& c : p.graph.calls) ids.push_back(c.kernel);
  return ids;
}

TEST(PartitionTest, BlocksShareKernelsAndMatchTheInterpreter) {
  const Model model = testing::ModelFromText(kBlocks, Weights());
  const PartitionedModel p = PartitionOrDie(model);
  // conv+bias+relu (x2 calls), conv+bias+add+relu (x2 calls), pool, flatten.
  EXPECT_EQ(p.graph.calls.size(), 6u);
  EXPECT_EQ(p.kernels.size(), 4u);
  EXPECT_EQ(p.kernels[0].ops, (std::vector<std::string>{"nn.conv2d", "nn.bias_add", "nn.relu"}));
  EXPECT_EQ(p.kernels[1].ops,
            (std::vector<std::string>{"nn.conv2d", "nn.bias_add", "add", "nn.relu"}));
  for (const Kernel& k : p.kernels) {
    EXPECT_THAT(k.text, StartsWith("#[relay_kernel = 1]\nfn (%p0: "));
    EXPECT_EQ(k.id, KernelId(k.text));
    EXPECT_THAT(k.id, ::testing::MatchesRegex("k_[0-9a-f]{20}"));
  }
  // The kernels' weights are the folded ones; the statistics are gone.
  EXPECT_EQ(p.params.count("g1"), 0u);
  EXPECT_EQ(p.params.count("w1_bn"), 1u);

  absl::StatusOr<ir::Module> back = GraphToModule(p.graph, p.kernels);
  ASSERT_TRUE(back.ok()) << back.status();
  const auto inputs = testing::RandomInputs(model);
  const auto want = testing::Interpret(model.module, model.params, inputs);
  const auto got = testing::Interpret(*back, p.params, inputs);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_LE(testing::MaxAbsDiff(want[0], got[0]), 1e-4);
}

// The kernel text is a fixed point of parse + print, and independent of the model's names.
TEST(PartitionTest, CanonicalTextIsAFixedPointAndNameFree) {
  const Model model = testing::ModelFromText(kBlocks, Weights());
  const PartitionedModel p = PartitionOrDie(model);
  for (const Kernel& k : p.kernels) {
    absl::StatusOr<ir::Function> parsed = ir::ParseKernel(k.text, k.id + ".relay");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(CanonicalKernelText(**parsed), k.text);
    EXPECT_EQ(k.text.find("w1"), std::string::npos);
  }
  std::string renamed = kBlocks;
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"%x", "%image"}, {"%w", "%conv_weight_"}, {"%g", "%gamma_"}, {"%b", "%beta_"}}) {
    for (size_t pos = renamed.find(from); pos != std::string::npos;
         pos = renamed.find(from, pos + to.size())) {
      renamed.replace(pos, from.size(), to);
    }
  }
  std::vector<std::string> weights;
  for (const std::string& w : Weights()) {
    std::string n = w;
    if (n[0] == 'w') n = "conv_weight_" + n.substr(1);
    if (n[0] == 'g') n = "gamma_" + n.substr(1);
    if (n[0] == 'b') n = "beta_" + n.substr(1);
    weights.push_back(n);
  }
  const PartitionedModel q = PartitionOrDie(testing::ModelFromText(renamed, weights));
  EXPECT_EQ(CallIds(p), CallIds(q));
}

// Binding independent branches in another order changes no id.
TEST(PartitionTest, ReorderingIndependentNodesKeepsIds) {
  auto text = [](bool swap) {
    const std::string a = "  %0 = nn.conv2d(%x, %wa, padding=[1, 1, 1, 1]);\n  %1 = nn.relu(%0);\n";
    const std::string b = "  %2 = nn.dense(%y, %wb);\n  %3 = sigmoid(%2);\n";
    return std::string(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 4, 4), float32], %y: Tensor[(1, 8), float32],
          %wa: Tensor[(2, 2, 3, 3), float32], %wb: Tensor[(4, 8), float32]) {
)") + (swap ? b + a : a + b) +
           "  (%1, %3)\n}";
  };
  const PartitionedModel p = PartitionOrDie(testing::ModelFromText(text(false), {"wa", "wb"}));
  const PartitionedModel q = PartitionOrDie(testing::ModelFromText(text(true), {"wa", "wb"}));
  std::set<std::string> ids_p, ids_q;
  for (const Kernel& k : p.kernels) ids_p.insert(k.id);
  for (const Kernel& k : q.kernels) ids_q.insert(k.id);
  EXPECT_EQ(ids_p.size(), 2u);
  EXPECT_EQ(ids_p, ids_q);
}

// Changing one conv's output channels changes the kernels that touch its tensors, and no other.
// (8 and 10 channels: padding either to a 16-channel block would waste more than a third of
// its work, so the layout pass leaves both models in NCHW.)
TEST(PartitionTest, ChannelChangeOnlyTouchesAdjacentGroups) {
  auto text = [](int c) {
    const std::string cs = std::to_string(c);
    return R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 4, 8, 8), float32], %w1: Tensor[(4, 4, 3, 3), float32],
          %w2: Tensor[()" +
           cs + R"(, 4, 3, 3), float32], %w3: Tensor[(4, )" + cs +
           R"(, 1, 1), float32], %w4: Tensor[(4, 4, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  %2 = nn.conv2d(%1, %w2, padding=[1, 1, 1, 1]);
  %3 = nn.relu(%2);
  %4 = nn.conv2d(%3, %w3);
  %5 = nn.relu(%4);
  %6 = nn.conv2d(%5, %w4, padding=[1, 1, 1, 1]);
  nn.relu(%6)
})";
  };
  const std::vector<std::string> w = {"w1", "w2", "w3", "w4"};
  const std::vector<std::string> before =
      CallIds(PartitionOrDie(testing::ModelFromText(text(8), w)));
  const std::vector<std::string> after =
      CallIds(PartitionOrDie(testing::ModelFromText(text(10), w)));
  ASSERT_EQ(before.size(), 4u);
  ASSERT_EQ(after.size(), 4u);
  EXPECT_EQ(before[0], after[0]);  // untouched
  EXPECT_NE(before[1], after[1]);  // produces the changed tensor
  EXPECT_NE(before[2], after[2]);  // reads it
  EXPECT_EQ(before[3], after[3]);  // untouched
  // The untouched first and last kernels are the same 3x3 conv: one kernel, two calls.
  EXPECT_EQ(before[0], before[3]);
}

TEST(PartitionTest, GraphJsonRoundTripsAndRejectsBadGraphs) {
  const PartitionedModel p = PartitionOrDie(testing::ModelFromText(kBlocks, Weights()));
  const std::string json = graph::GraphToJson(p.graph, Summaries(p.kernels));
  absl::StatusOr<Graph> g = graph::GraphFromJson(json, "m.graph.json");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(graph::GraphToJson(*g, Summaries(p.kernels)), json);
  EXPECT_THAT(json, HasSubstr("\"ops\": \"nn.conv2d+nn.bias_add+nn.relu\""));

  std::string bad = json;
  bad.replace(bad.find("\"version\": 2"), 12, "\"version\": 9");
  EXPECT_THAT(graph::GraphFromJson(bad, "m.graph.json").status().message(),
              HasSubstr("m.graph.json: error: unsupported graph version"));
  EXPECT_THAT(graph::GraphFromJson("{", "m.graph.json").status().message(),
              HasSubstr("not a JSON object"));
}

TEST(PartitionTest, KernelSummariesReadBackFromTheGraphFile) {
  const PartitionedModel p = PartitionOrDie(testing::ModelFromText(kBlocks, Weights()));
  const std::string json = graph::GraphToJson(p.graph, Summaries(p.kernels));
  absl::StatusOr<std::map<std::string, graph::KernelSummary>> read =
      graph::KernelSummariesFromJson(json, "m.graph.json");
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), p.kernels.size());
  for (const Kernel& k : p.kernels) {
    const graph::KernelSummary& s = read->at(k.id);
    EXPECT_EQ(s.ops, k.ops);
    EXPECT_EQ(s.flops, k.flops);
  }
  EXPECT_THAT(graph::KernelSummariesFromJson("{\"kernels\": {\"k_1\": {\"ops\": 3}}}", "g.json")
                  .status()
                  .message(),
              HasSubstr("g.json: error: kernel k_1: malformed summary"));
  EXPECT_TRUE(graph::KernelSummariesFromJson("{}", "g.json")->empty());
}

TEST(PartitionTest, ParseKernelRejectsOtherFormats) {
  EXPECT_THAT(ir::ParseKernel("#[relay_kernel = 2]\nfn () -> Tensor[(), float32] { 1f }", "k.relay")
                  .status()
                  .message(),
              HasSubstr("k.relay:1:18: error: unsupported kernel format 2"));
  EXPECT_THAT(ir::ParseKernel("#[relay_kernel = 1]\nfn () { 1f }\nfn () { 2f }", "k.relay")
                  .status()
                  .message(),
              HasSubstr("k.relay:3:1: error: expected the end of the kernel"));
}

}  // namespace
}  // namespace relay::passes
