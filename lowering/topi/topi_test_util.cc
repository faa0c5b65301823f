#include "lowering/topi/topi_test_util.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lowering/interp/interpreter.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/type_infer.h"
#include "lowering/support/check.h"
#include "lowering/te/lower_to_te.h"
#include "lowering/te/te_eval_test_util.h"

namespace relay::topi::testing {
namespace {

void Walk(const ir::Expr& e, std::set<const ir::ExprNode*>* seen, std::set<std::string>* ops) {
  if (e == nullptr || !seen->insert(e.get()).second) return;
  switch (e->kind()) {
    case ir::ExprKind::kCall: {
      const auto* call = e->As<ir::CallNode>();
      if (call->op() != nullptr) ops->insert(call->op()->name);
      Walk(call->callee(), seen, ops);
      for (const ir::Expr& a : call->args()) Walk(a, seen, ops);
      return;
    }
    case ir::ExprKind::kTuple:
      for (const ir::Expr& f : e->As<ir::TupleNode>()->fields()) Walk(f, seen, ops);
      return;
    case ir::ExprKind::kTupleGetItem:
      Walk(e->As<ir::TupleGetItemNode>()->tuple(), seen, ops);
      return;
    case ir::ExprKind::kLet: {
      const auto* let = e->As<ir::LetNode>();
      Walk(let->value(), seen, ops);
      Walk(let->body(), seen, ops);
      return;
    }
    case ir::ExprKind::kFunction:
      Walk(e->As<ir::FunctionNode>()->body(), seen, ops);
      return;
    default:
      return;
  }
}

void FlattenType(const ir::Type& t, std::vector<ir::Type>* out) {
  if (!t.is_tuple()) {
    out->push_back(t);
    return;
  }
  for (const ir::Type& f : t.fields()) FlattenType(f, out);
}

std::string Fmt(double v) { return absl::StrFormat("%.9g", v); }

// Compares one output; empty on success.
std::string Compare(const ir::Tensor& got, const ir::Tensor& want) {
  if (got.shape() != want.shape() || got.dtype() != want.dtype()) {
    return absl::StrCat("got ", ir::TypeToString(got.type()), ", the interpreter gives ",
                        ir::TypeToString(want.type()));
  }
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    if (!ir::IsFloat(got.dtype())) {
      // Exact: compare the bytes of the element.
      const int bytes = ir::DTypeBytes(got.dtype());
      if (std::memcmp(got.raw() + i * bytes, want.raw() + i * bytes, bytes) != 0) {
        return absl::StrCat("element ", i, ": got ", Fmt(got.GetDouble(i)), ", expected ",
                            Fmt(want.GetDouble(i)));
      }
      continue;
    }
    const double g = got.GetDouble(i), w = want.GetDouble(i);
    if (std::isnan(w) && std::isnan(g)) continue;
    const double tol =
        (got.dtype() == ir::DType::kFloat16 ? 1e-3 : 1e-5) * std::max(1.0, std::fabs(w));
    if (!(std::fabs(g - w) <= tol)) {
      return absl::StrCat("element ", i, ": got ", Fmt(g), ", expected ", Fmt(w), " (diff ",
                          Fmt(g - w), ")");
    }
  }
  return "";
}

}  // namespace

ir::Module TypedModule(const std::string& text) {
  absl::StatusOr<ir::Module> m = ir::ParseModule(text, "test.relay");
  if (!m.ok()) {
    ADD_FAILURE() << m.status();
    return ir::Module();
  }
  absl::Status s = ir::InferTypes(*m);
  if (!s.ok()) {
    ADD_FAILURE() << s;
    return ir::Module();
  }
  return *m;
}

std::string ReadTestdata(const std::string& name) {
  std::ifstream in("lowering/topi/testdata/" + name);
  RELAY_CHECK(in.good(), "cannot open a testdata file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ir::Tensor RandomInput(const std::string& name, const ir::Type& type, uint64_t seed) {
  std::mt19937_64 rng(seed);
  ir::Tensor t(type.shape(), type.dtype());
  const bool is_float = ir::IsFloat(type.dtype());
  double lo = -1, hi = 1;     // floats: [lo, hi)
  int64_t ilo = -5, ihi = 5;  // ints: [ilo, ihi]
  bool nonzero = false;
  int64_t bound = 0;
  if (absl::StartsWith(name, "pos")) {
    lo = 0.25, hi = 4;
  } else if (absl::StartsWith(name, "nz")) {
    lo = 0.5, hi = 2, ilo = 1, ihi = 5, nonzero = true;
  } else if (absl::StartsWith(name, "wide")) {
    lo = -50, hi = 50, ilo = -1000, ihi = 1000;
  } else if (absl::StartsWith(name, "idx")) {
    size_t end = 3;
    while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
    RELAY_CHECK(absl::SimpleAtoi(name.substr(3, end - 3), &bound) && bound > 0,
                "idx<N> parameter without N");
    ilo = 0, ihi = bound - 1;
  }
  std::uniform_real_distribution<double> real(lo, hi);
  std::uniform_int_distribution<int64_t> integer(ilo, ihi);
  std::bernoulli_distribution coin(0.5);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (type.dtype() == ir::DType::kBool) {
      t.SetDouble(i, coin(rng) ? 1 : 0);
    } else if (is_float) {
      t.SetDouble(i, nonzero && coin(rng) ? -real(rng) : real(rng));
    } else if (type.dtype() == ir::DType::kInt64) {
      t.data<int64_t>()[i] = nonzero && coin(rng) ? -integer(rng) : integer(rng);
    } else {
      t.data<int32_t>()[i] =
          static_cast<int32_t>(nonzero && coin(rng) ? -integer(rng) : integer(rng));
    }
  }
  return t;
}

::testing::AssertionResult MatchesInterpreter(const ir::Module& module, const std::string& function,
                                              uint64_t seed) {
  ir::Function fn = module.Lookup(function);
  if (fn == nullptr) return ::testing::AssertionFailure() << "no function @" << function;
  absl::StatusOr<te::LoweredKernel> kernel = te::LowerToTE(*fn);
  if (!kernel.ok()) {
    return ::testing::AssertionFailure() << "@" << function << ": LowerToTE: " << kernel.status();
  }
  std::vector<ir::Type> want_types;
  FlattenType(fn->body()->checked_type(), &want_types);
  if (want_types.size() != kernel->outputs.size()) {
    return ::testing::AssertionFailure()
           << "@" << function << ": " << kernel->outputs.size() << " outputs for "
           << want_types.size() << " result tensors";
  }
  for (size_t i = 0; i < want_types.size(); ++i) {
    const te::Tensor& out = kernel->outputs[i];
    const ir::Type got = ir::Type::Tensor(out->shape(), out->dtype());
    if (got != want_types[i]) {
      return ::testing::AssertionFailure()
             << "@" << function << ": output " << i << " is " << ir::TypeToString(got)
             << " but type inference says " << ir::TypeToString(want_types[i]);
    }
  }
  std::vector<std::pair<te::Tensor, ir::Tensor>> bound;
  std::map<std::string, ir::Tensor> by_name;
  for (size_t i = 0; i < fn->params().size(); ++i) {
    const ir::Var& p = fn->params()[i];
    ir::Tensor value = RandomInput(p->name(), p->checked_type(), seed * 1000003 + i);
    bound.emplace_back(kernel->inputs[i], value);
    by_name[p->name()] = value;
  }
  absl::StatusOr<std::vector<ir::Tensor>> got = te::testing::Evaluate(kernel->outputs, bound);
  if (!got.ok()) {
    return ::testing::AssertionFailure()
           << "@" << function << ": evaluating the compute: " << got.status() << "\n"
           << te::PrintCompute(kernel->outputs);
  }
  absl::StatusOr<interp::Value> want = interp::Run(module, by_name, function);
  if (!want.ok()) {
    return ::testing::AssertionFailure() << "@" << function << ": interpreter: " << want.status();
  }
  const std::vector<ir::Tensor> want_tensors = interp::Flatten(*want);
  if (want_tensors.size() != got->size()) {
    return ::testing::AssertionFailure() << "@" << function << ": output count differs";
  }
  for (size_t i = 0; i < got->size(); ++i) {
    const std::string diff = Compare((*got)[i], want_tensors[i]);
    if (!diff.empty()) {
      return ::testing::AssertionFailure()
             << "@" << function << ": output " << i << ": " << diff << "\n"
             << te::PrintCompute(kernel->outputs);
    }
  }
  return ::testing::AssertionSuccess();
}

void CheckEveryFunction(const std::string& file) {
  const ir::Module module = TypedModule(ReadTestdata(file));
  ASSERT_FALSE(module.functions().empty()) << file;
  int checked = 0;
  for (const auto& [name, fn] : module.functions()) {
    for (uint64_t seed : {1, 2}) {
      EXPECT_TRUE(MatchesInterpreter(module, name, seed));
      ++checked;
    }
  }
  std::printf("%s: %d functions x seeds checked\n", file.c_str(), checked);
}

std::set<std::string> OpsCalled(const ir::Module& module) {
  std::set<const ir::ExprNode*> seen;
  std::set<std::string> ops;
  for (const auto& [name, fn] : module.functions()) Walk(fn->body(), &seen, &ops);
  return ops;
}

}  // namespace relay::topi::testing
