#include "lowering/passes/batch_axis.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/passes/expr_util.h"
#include "lowering/support/status_macros.h"

namespace relay::passes {
namespace {

// Ops whose rows stay apart whenever their operands and result lead with the batch by one
// multiple: they compute each output element from the same leading index of their operands
// (convolutions and pools in N-first layouts, products whose first operand's rows are the
// batch, slices of other axes).
bool KeepsRows(const std::string& op) {
  static const auto* const kOps = new std::set<std::string>{"nn.conv2d",
                                                            "nn.contrib_conv2d_NCHWc",
                                                            "nn.max_pool2d",
                                                            "nn.avg_pool2d",
                                                            "nn.global_avg_pool2d",
                                                            "nn.global_max_pool2d",
                                                            "layout_transform",
                                                            "nn.dense",
                                                            "nn.batch_matmul",
                                                            "strided_slice"};
  return kOps->count(op) != 0;
}

// Ops with an axis attribute: rows stay apart when it is not the batch.
bool AxisIsNotBatch(const std::string& op) {
  static const auto* const kOps = new std::set<std::string>{
      "nn.softmax", "nn.log_softmax", "nn.layer_norm", "nn.bias_add", "concatenate", "expand_dims"};
  return kOps->count(op) != 0;
}

// The layout attributes a call names all start with the batch.
bool LayoutsLeadWithN(const ir::Attrs& attrs) {
  for (const char* name : {"data_layout", "layout", "out_layout", "src_layout", "dst_layout"}) {
    if (!attrs.Has(name)) continue;
    const std::string layout = attrs.GetString(name);
    if (!layout.empty() && layout[0] != 'N') return false;
  }
  return true;
}

// Ops whose rows stay apart in memory order, whatever their leading multiples of the batch:
// row n of the result is the same elements as row n of the operand.
bool KeepsMemoryOrder(const std::string& op) { return op == "reshape" || op == "nn.batch_flatten"; }

// The Winograd transforms in their batch-major form (ir/ops/winograd.h) put an image's alpha^2
// tile positions in its row: the batch leads data and result, by different multiples.
bool IsBatchMajorWinograd(const ir::CallNode& call) {
  const std::string& op = call.op()->name;
  return (op == "nn.winograd_input_transform" || op == "nn.winograd_output_transform") &&
         call.attrs().GetBool("batch_major");
}

class Finder {
 public:
  absl::StatusOr<BatchAxis> Run(const ir::FunctionNode& fn) {
    BatchAxis axis;
    for (const ir::Var& p : fn.params()) {
      ASSIGN_OR_RETURN(int64_t rows, Leading(p->checked_type(), absl::StrCat("%", p->name())));
      axis.batched.push_back(rows != 0);
    }
    const ir::Type& ret = fn.body()->checked_type();
    for (const ir::Type& t : ret.is_tuple() ? ret.fields() : std::vector<ir::Type>{ret}) {
      ASSIGN_OR_RETURN(int64_t rows, Leading(t, "the result"));
      axis.batched.push_back(rows != 0);
    }
    for (const ir::Expr& node : PostOrder(fn.body())) {
      const auto* call = node->As<ir::CallNode>();
      if (call == nullptr || call->op() == nullptr) continue;
      RETURN_IF_ERROR(CheckCall(*call));
    }
    if (!var_.has_value()) {
      return absl::InvalidArgumentError("FindBatchAxis: the kernel has no symbolic dim");
    }
    axis.var = *var_;
    return axis;
  }

 private:
  // How many entries of axis 0 one row of the batch has where `type` (a tensor, or each field
  // of a tuple alike) leads with the batch (c for a leading c*N), 0 where it has no symbolic
  // dim; Unimplemented for any other symbolic dim.
  absl::StatusOr<int64_t> Leading(const ir::Type& type, const std::string& what) {
    if (!type.is_tensor()) {
      int64_t rows = 0;
      for (const ir::Type& f : type.fields()) {
        ASSIGN_OR_RETURN(int64_t r, Leading(f, what));
        if (r != 0 && rows != 0 && r != rows) return NotABatch(type, what);
        rows = std::max(rows, r);
      }
      return rows;
    }
    const ir::Dims dims = type.dims();
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i].is_const()) continue;
      const std::vector<ir::DimVar> vars = dims[i].vars();
      if (i != 0 || vars.size() != 1 || (var_.has_value() && *var_ != vars[0])) {
        return NotABatch(type, what);
      }
      absl::StatusOr<ir::Dim> rows = dims[0].DivExact(ir::Dim::Var(vars[0]));
      if (!rows.ok() || !rows->is_const() || rows->value() < 1) return NotABatch(type, what);
      var_ = vars[0];
      return rows->value();
    }
    return 0;
  }

  absl::Status NotABatch(const ir::Type& type, const std::string& what) const {
    return absl::UnimplementedError(
        absl::StrCat(what, " has the type ", ir::TypeToString(type),
                     ": kernels take a symbolic dim only as one variable (times a constant) "
                     "leading every tensor that has it (a batch) so far"));
  }

  absl::Status CheckCall(const ir::CallNode& call) {
    const std::string& op = call.op()->name;
    std::vector<int64_t> in_rows;
    std::set<int64_t> multiples;  // of the batched operands and results
    for (const ir::Expr& a : call.args()) {
      ASSIGN_OR_RETURN(int64_t r, Leading(a->checked_type(), op));
      in_rows.push_back(r);
      if (r != 0) multiples.insert(r);
    }
    if (multiples.empty()) return absl::OkStatus();
    const ir::Type& out = call.checked_type();
    const std::vector<ir::Type> outs = out.is_tuple() ? out.fields() : std::vector<ir::Type>{out};
    for (const ir::Type& t : outs) {
      ASSIGN_OR_RETURN(int64_t r, Leading(t, op));
      if (r == 0) return Mixes(call);
      multiples.insert(r);
    }
    if (KeepsMemoryOrder(op) || IsBatchMajorWinograd(call)) return absl::OkStatus();
    if (op == "nn.batch_matmul" && in_rows[1] == 0) {
      // b's batch (1, or repeating along a's) must repeat within each row of a: a row's entries
      // then read the same entries of b at every batch size.
      const int64_t bb = call.args()[1]->checked_type().dims()[0].value();
      return in_rows[0] % bb == 0 ? absl::OkStatus() : Mixes(call);
    }
    // Every other op indexes its operands' leading axis as its result's: one multiple.
    if (multiples.size() != 1) return Mixes(call);
    return CheckOp(call, in_rows);
  }

  absl::Status CheckOp(const ir::CallNode& call, const std::vector<int64_t>& in_rows) {
    const std::string& op = call.op()->name;
    const ir::Type& out = call.checked_type();
    if (KeepsRows(op)) return LayoutsLeadWithN(call.attrs()) ? absl::OkStatus() : Mixes(call);
    if (op == "nn.matmul") {
      // Rows of `a` are the batch unless it is transposed; `b` is the weight.
      return call.attrs().GetBool("transpose_a") || in_rows[1] != 0 ? Mixes(call)
                                                                    : absl::OkStatus();
    }
    if (op == "take") {
      // Rows of the data picked along another axis, or a table's rows picked per batch row; a
      // batched table read along the batch would read other rows.
      const ir::AttrValue& axis = call.attrs().Get("axis");
      const bool along_batch = axis.is_none() || axis.AsInt() == 0 ||
                               axis.AsInt() == -call.args()[0]->checked_type().ndim();
      return call.attrs().GetInt("batch_dims") != 0 || (in_rows[0] != 0 && along_batch)
                 ? Mixes(call)
                 : absl::OkStatus();
    }
    if (op == "squeeze") {
      // Without axes, the one-row kernel would drop its batch axis of 1.
      return call.attrs().Get("axis").is_none() ? Mixes(call) : absl::OkStatus();
    }
    if (AxisIsNotBatch(op)) {
      int64_t axis = call.attrs().GetInt("axis");
      if (axis < 0) axis += out.ndim();
      return axis != 0 ? absl::OkStatus() : Mixes(call);
    }
    if (call.op()->pattern == ir::OpPattern::kCommReduce) {
      const ir::Type& data = call.args()[0]->checked_type();
      ASSIGN_OR_RETURN(std::vector<int> reduced,
                       ir::ops::ReduceAxes(data.ndim(), call.attrs().Get("axis"),
                                           call.attrs().GetBool("exclude")));
      return !reduced.empty() && reduced[0] == 0 ? Mixes(call) : absl::OkStatus();
    }
    const bool elementwise = call.op()->pattern == ir::OpPattern::kElemWise ||
                             call.op()->pattern == ir::OpPattern::kBroadcast;
    bool names_axis = false;
    for (const ir::AttrSpec& a : call.op()->attrs) {
      names_axis = names_axis || absl::StrContains(a.name, "axis") || a.name == "shape";
    }
    if (!elementwise || names_axis) return Mixes(call);
    // Broadcasting aligns trailing axes: a batched operand has the result's rank.
    for (size_t i = 0; i < call.args().size(); ++i) {
      if (in_rows[i] != 0 && call.args()[i]->checked_type().ndim() != out.ndim()) {
        return Mixes(call);
      }
    }
    return absl::OkStatus();
  }

  absl::Status Mixes(const ir::CallNode& call) const {
    return absl::UnimplementedError(absl::StrCat(
        call.op()->name, " over the symbolic batch ", var_->name,
        ": kernels take a symbolic batch only through ops that keep its rows apart so far"));
  }

  std::optional<ir::DimVar> var_;
};

}  // namespace

absl::StatusOr<BatchAxis> FindBatchAxis(const ir::FunctionNode& fn) { return Finder().Run(fn); }

}  // namespace relay::passes
