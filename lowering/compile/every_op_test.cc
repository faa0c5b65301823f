// The end-to-end proof for compiled kernels: every op of docs/ops.md (the functions of
// lowering/topi/testdata/*.relay, several forms per op) and fused kernels at larger shapes
// (lowering/compile/testdata/fused.relay) go through the whole of `relayc compile` (canonical
// kernel text -> parse -> types -> compute -> schedule -> loop IR -> LLVM object) with both
// strategies, are loaded into the JIT, run on seeded random inputs, and compared with the
// reference interpreter running the same kernel text: within 1e-4 * max(1, |expected|) for
// float32, 1e-3 * max(1, |expected|) for float16 (one float16 rounding of a float32 result
// instead of a double one), exactly for integers and bools. One test per CPU target, each run
// where this machine has the target's features (a shard each).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "lowering/codegen/llvm/jit.h"
#include "lowering/codegen/llvm/target_machine.h"
#include "lowering/compile/compile.h"
#include "lowering/interp/interpreter.h"
#include "lowering/ir/op.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/expr_util.h"
#include "lowering/passes/partition.h"
#include "lowering/target/target.h"
#include "lowering/topi/topi_test_util.h"
#include "runtime/relay_runtime.h"

namespace relay::compile {
namespace {

// One kernel: a function of a testdata file in canonical kernel form.
struct Case {
  std::string name;  // "nn.relay:@conv2d_basic"
  std::string text;  // canonical kernel text
  std::string id;
  std::vector<std::string> param_names;  // the original names (they choose value ranges)
  std::set<std::string> ops;
};

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<Case> LoadCases(const std::string& path) {
  std::vector<Case> cases;
  const std::string file = path.substr(path.find_last_of('/') + 1);
  absl::StatusOr<ir::Module> module = ir::ParseModule(ReadFileOrDie(path), file);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return cases;
  absl::Status typed = ir::InferTypes(*module);
  EXPECT_TRUE(typed.ok()) << typed;
  if (!typed.ok()) return cases;
  for (const auto& [name, fn] : module->functions()) {
    Case c;
    c.name = absl::StrCat(file, ":@", name);
    c.text = passes::CanonicalKernelText(*fn);
    c.id = passes::KernelId(c.text);
    for (const ir::Var& p : fn->params()) c.param_names.push_back(p->name());
    for (const ir::Expr& n : passes::PostOrder(fn->body())) {
      const auto* call = n->As<ir::CallNode>();
      if (call != nullptr && call->op() != nullptr) c.ops.insert(call->op()->name);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

// A 64-byte aligned copy of a tensor's bytes (the calling convention's alignment).
class AlignedBytes {
 public:
  explicit AlignedBytes(size_t n) : size_(n) {
    data_ = static_cast<uint8_t*>(std::aligned_alloc(64, (n + 63) / 64 * 64 + 64));
  }
  ~AlignedBytes() { std::free(data_); }
  AlignedBytes(const AlignedBytes&) = delete;
  AlignedBytes& operator=(const AlignedBytes&) = delete;
  uint8_t* data() { return data_; }
  size_t size() const { return size_; }

 private:
  size_t size_;
  uint8_t* data_;
};

std::string Fmt(double v) { return absl::StrFormat("%.9g", v); }

// Empty if `got` matches `want`, else what differs.
std::string Compare(const ir::Tensor& got, const ir::Tensor& want) {
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    if (!ir::IsFloat(want.dtype())) {
      const int bytes = ir::DTypeBytes(want.dtype());
      if (std::memcmp(got.raw() + i * bytes, want.raw() + i * bytes, bytes) != 0) {
        return absl::StrCat("element ", i, ": got ", Fmt(got.GetDouble(i)), ", expected ",
                            Fmt(want.GetDouble(i)));
      }
      continue;
    }
    const double g = got.GetDouble(i), w = want.GetDouble(i);
    if (std::isnan(g) && std::isnan(w)) continue;
    const double tol =
        (want.dtype() == ir::DType::kFloat16 ? 1e-3 : 1e-4) * std::max(1.0, std::fabs(w));
    if (!(std::fabs(g - w) <= tol)) {
      return absl::StrCat("element ", i, ": got ", Fmt(g), ", expected ", Fmt(w));
    }
  }
  return "";
}

// Compiles, runs and compares one kernel; empty on success, else the failure.
std::string Check(const Case& c, const std::string& target, const std::string& strategy) {
  absl::StatusOr<CompiledKernel> compiled =
      CompileKernelText(c.text, c.id + ".relay", {target, strategy});
  if (!compiled.ok()) return absl::StrCat("compile: ", compiled.status().ToString());
  absl::StatusOr<std::unique_ptr<codegen::Jit>> jit = codegen::Jit::Create();
  if (!jit.ok()) return jit.status().ToString();
  absl::Status added = (*jit)->AddObject(compiled->object, c.id + ".o");
  if (!added.ok()) return added.ToString();
  absl::StatusOr<codegen::KernelFunction> fn = (*jit)->LookupKernel(c.id);
  if (!fn.ok()) return fn.status().ToString();

  // The reference: the same kernel text, as @main, through the interpreter.
  absl::StatusOr<ir::Function> kernel_fn = ir::ParseKernel(c.text, c.id + ".relay");
  if (!kernel_fn.ok()) return kernel_fn.status().ToString();
  ir::Module module({{"main", *kernel_fn}}, c.id + ".relay");
  absl::Status typed = ir::InferTypes(module);
  if (!typed.ok()) return typed.ToString();

  std::map<std::string, ir::Tensor> inputs;
  std::vector<std::unique_ptr<AlignedBytes>> buffers;
  std::vector<void*> args;
  const std::vector<ir::Var>& params = (*kernel_fn)->params();
  for (size_t i = 0; i < params.size(); ++i) {
    ir::Tensor t =
        topi::testing::RandomInput(c.param_names[i], params[i]->checked_type(), 1000003 + 7919 * i);
    inputs[params[i]->name()] = t;
    buffers.push_back(std::make_unique<AlignedBytes>(static_cast<size_t>(t.NumBytes())));
    std::memcpy(buffers.back()->data(), t.raw(), static_cast<size_t>(t.NumBytes()));
    args.push_back(buffers.back()->data());
  }
  absl::StatusOr<interp::Value> want = interp::Run(module, inputs);
  if (!want.ok()) return absl::StrCat("interpreter: ", want.status().ToString());
  const std::vector<ir::Tensor> want_tensors = interp::Flatten(*want);
  std::vector<AlignedBytes*> outputs;
  for (const ir::Tensor& w : want_tensors) {
    buffers.push_back(std::make_unique<AlignedBytes>(static_cast<size_t>(w.NumBytes())));
    // Garbage where the kernel must write: an element it skips shows.
    std::memset(buffers.back()->data(), 0xa5, static_cast<size_t>(w.NumBytes()));
    outputs.push_back(buffers.back().get());
    args.push_back(buffers.back()->data());
  }
  if (args.size() != compiled->func.params.size()) {
    return absl::StrCat(args.size(), " buffers for ", compiled->func.params.size(),
                        " kernel parameters");
  }
  const int32_t rc = (*fn)(args.data());
  if (rc != 0) return absl::StrCat("kernel returned ", rc, ": ", RelayGetLastError());
  for (size_t o = 0; o < want_tensors.size(); ++o) {
    ir::Tensor got(want_tensors[o].shape(), want_tensors[o].dtype());
    std::memcpy(got.raw(), outputs[o]->data(), outputs[o]->size());
    std::string diff = Compare(got, want_tensors[o]);
    if (!diff.empty()) return absl::StrCat("output ", o, ": ", diff);
  }
  return "";
}

// Every CPU target of the table.
std::vector<std::string> CpuTargets() {
  std::vector<std::string> targets;
  for (const std::string& name : KnownTargets()) {
    if (ParseTarget(name)->kind == Target::Kind::kCpu) targets.push_back(name);
  }
  return targets;
}

// One test per CPU target: run where this machine has the target's features, skipped (and said
// so) where it does not.
class EveryOpTest : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryOpTest, CompiledKernelsMatchTheInterpreter) {
  const std::string target = GetParam();
  const std::vector<std::string> missing = codegen::MissingHostFeatures(*ParseTarget(target));
  if (!missing.empty()) {
    GTEST_SKIP() << "this CPU cannot run " << target << ": it lacks "
                 << absl::StrJoin(missing, ", ");
  }
  std::vector<Case> cases;
  for (const char* path :
       {"lowering/topi/testdata/elementwise.relay", "lowering/topi/testdata/nn.relay",
        "lowering/topi/testdata/reduce.relay", "lowering/topi/testdata/transform.relay",
        "lowering/compile/testdata/fused.relay"}) {
    std::vector<Case> more = LoadCases(path);
    cases.insert(cases.end(), more.begin(), more.end());
  }
  ASSERT_FALSE(cases.empty());

  // Per op: how many (kernel, strategy) runs passed and failed.
  std::map<std::string, std::pair<int, int>> per_op;
  std::vector<std::string> failures;
  for (const Case& c : cases) {
    for (const char* strategy : {"naive", "default"}) {
      const std::string error = Check(c, target, strategy);
      for (const std::string& op : c.ops) {
        (error.empty() ? per_op[op].first : per_op[op].second)++;
      }
      if (!error.empty()) {
        failures.push_back(
            absl::StrCat(c.name, " [", target, ", ", strategy, "] ", c.id, ": ", error));
      }
    }
  }

  std::string table = absl::StrCat("target: ", target, "\n");
  for (const auto& [op, counts] : per_op) {
    absl::StrAppend(&table, absl::StrFormat("  %-24s %4d passed %4d failed\n", op, counts.first,
                                            counts.second));
  }
  std::printf("%s", table.c_str());
  for (const std::string& f : failures) ADD_FAILURE() << f;

  // Every registered op has at least one case.
  for (const ir::OpDef* op : ir::AllOps()) {
    EXPECT_TRUE(per_op.count(op->name) != 0) << "no end-to-end case for op " << op->name;
  }
}

INSTANTIATE_TEST_SUITE_P(CpuTargets, EveryOpTest, ::testing::ValuesIn(CpuTargets()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace relay::compile
