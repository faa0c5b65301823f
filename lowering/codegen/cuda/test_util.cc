#include "lowering/codegen/cuda/test_util.h"

#include <cmath>
#include <cstring>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lowering/interp/interpreter.h"
#include "lowering/io/file.h"
#include "lowering/ir/module.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/expr_util.h"
#include "lowering/passes/partition.h"
#include "lowering/support/status_macros.h"
#include "lowering/topi/topi_test_util.h"

namespace relay::codegen::testing {
namespace {

KernelCase MakeCase(const std::string& name, const ir::FunctionNode& fn) {
  KernelCase c;
  c.name = name;
  c.text = passes::CanonicalKernelText(fn);
  c.id = passes::KernelId(c.text);
  for (const ir::Var& p : fn.params()) c.param_names.push_back(p->name());
  for (const ir::Expr& n : passes::PostOrder(fn.body())) {
    const auto* call = n->As<ir::CallNode>();
    if (call != nullptr && call->op() != nullptr) c.ops.insert(call->op()->name);
  }
  return c;
}

std::string Fmt(double v) { return absl::StrFormat("%.9g", v); }

}  // namespace

absl::StatusOr<std::vector<KernelCase>> LoadKernelCases(const std::string& path) {
  const std::string file = path.substr(path.find_last_of('/') + 1);
  ASSIGN_OR_RETURN(std::string text, io::ReadFile(path));
  ASSIGN_OR_RETURN(ir::Module module, ir::ParseModule(text, file));
  RETURN_IF_ERROR(ir::InferTypes(module));
  std::vector<KernelCase> cases;
  for (const auto& [name, fn] : module.functions()) {
    cases.push_back(MakeCase(absl::StrCat(file, ":@", name), *fn));
  }
  return cases;
}

absl::StatusOr<KernelCase> LoadKernelFile(const std::string& path) {
  const std::string file = path.substr(path.find_last_of('/') + 1);
  ASSIGN_OR_RETURN(std::string text, io::ReadFile(path));
  ASSIGN_OR_RETURN(ir::Function fn, ir::ParseKernel(text, file));
  RETURN_IF_ERROR(ir::InferTypes(ir::Module({{"main", fn}}, file)));
  KernelCase c = MakeCase(file, *fn);
  // Kernel files name their parameters %p0..: keep the text as it is (it hashes to the id).
  c.text = text;
  c.id = passes::KernelId(text);
  return c;
}

absl::StatusOr<Reference> RunReference(const KernelCase& c, uint64_t seed) {
  ASSIGN_OR_RETURN(ir::Function fn, ir::ParseKernel(c.text, c.id + ".relay"));
  ir::Module module({{"main", fn}}, c.id + ".relay");
  RETURN_IF_ERROR(ir::InferTypes(module));
  Reference ref;
  std::map<std::string, ir::Tensor> inputs;
  const std::vector<ir::Var>& params = fn->params();
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string& name = i < c.param_names.size() ? c.param_names[i] : params[i]->name();
    ir::Tensor t = topi::testing::RandomInput(name, params[i]->checked_type(), seed + 7919 * i);
    inputs[params[i]->name()] = t;
    ref.inputs.push_back(t);
  }
  ASSIGN_OR_RETURN(interp::Value want, interp::Run(module, inputs));
  ref.outputs = interp::Flatten(want);
  return ref;
}

std::string Compare(const ir::Tensor& got, const ir::Tensor& want, double rtol) {
  if (got.NumElements() != want.NumElements() || got.dtype() != want.dtype()) {
    return "shape or dtype differs";
  }
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
    if (!(std::fabs(g - w) <= rtol * std::max(1.0, std::fabs(w)))) {
      return absl::StrCat("element ", i, ": got ", Fmt(g), ", expected ", Fmt(w));
    }
  }
  return "";
}

std::vector<std::string> EveryOpFiles() {
  return {"lowering/topi/testdata/elementwise.relay", "lowering/topi/testdata/nn.relay",
          "lowering/topi/testdata/reduce.relay", "lowering/topi/testdata/transform.relay",
          "lowering/compile/testdata/fused.relay"};
}

}  // namespace relay::codegen::testing
