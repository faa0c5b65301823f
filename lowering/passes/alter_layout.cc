#include "lowering/passes/alter_layout.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/ir/layout.h"
#include "lowering/ir/op.h"
#include "lowering/passes/expr_util.h"
#include "lowering/support/status_macros.h"

namespace relay::passes {
namespace {

using ir::AttrValue;
using ir::Expr;

// A rewritten value: `expr` stores the original node's logical tensor in NCHW<block>c, or as
// the original does when block is 0. A blocked tensor may carry `pad` channels after its last
// one, so that its channels fill whole blocks: finite values that readers ignore (zero
// weights, a slice at the edge).
struct Blocked {
  Expr expr;
  int64_t block = 0;
  int64_t pad = 0;
};

// Ops that keep the padding channels finite whatever finite values they hold (a division by
// them would not): the only ones a padded tensor passes through.
bool KeepsPaddingFinite(const std::string& op) {
  static const auto* const kOps = new std::set<std::string>{
      "add", "subtract", "multiply", "maximum", "minimum", "tanh",         "sigmoid",
      "erf", "negative", "abs",      "nn.relu", "clip",    "nn.leaky_relu"};
  return kOps->count(op) != 0;
}

// A float32 NCHW tensor whose channel count is static (N, H and W may be symbolic): channels
// are what a layout blocks.
bool IsBlockable(const ir::Type& t) {
  return t.is_tensor() && t.ndim() == 4 && t.dtype() == ir::DType::kFloat32 &&
         t.dims()[1].is_const();
}

int64_t Channels(const ir::Type& t) { return t.dims()[1].value(); }

// An elementwise or broadcasting op whose result does not depend on how its operands' axes
// are ordered, as long as all are ordered alike: no attribute names an axis or a shape.
bool IsLayoutAgnostic(const ir::OpDef& op) {
  if (op.pattern != ir::OpPattern::kElemWise && op.pattern != ir::OpPattern::kBroadcast) {
    return false;
  }
  for (const ir::AttrSpec& a : op.attrs) {
    if (a.name == "axis" || a.name == "shape" || a.name == "newshape") return false;
  }
  return true;
}

// 24 and 40 channels: one block of all of them. They are three and five AVX2 vectors, six and
// ten SSE vectors, where padding to 32 and 48 would cost a third and a fifth more multiply-adds,
// and 1.5 and 2.5 AVX-512 vectors, which LLVM splits into whole and half vectors: as many
// multiply-adds as the padded blocks, and a quarter (a sixth) less memory. Wider blocks would
// leave fewer than two pixels to a register tile (docs/cpu-performance.md, "Measurements behind
// the rules").
bool IsWholeBlock(int64_t channels) {
  return channels % 16 == 8 && channels >= 24 && channels <= 40;
}

class LayoutRewriter {
 public:
  explicit LayoutRewriter(const Model& model) : model_(model), params_(model.params) {}

  absl::StatusOr<Model> Run() {
    const Expr& body = model_.module.main()->body();
    const std::vector<Expr> order = PostOrder(body);
    for (const Expr& node : order) {
      const auto* call = node->As<ir::CallNode>();
      if (call != nullptr && call->op() != nullptr && call->op()->name == "nn.conv2d") {
        conv_inputs_.insert(call->args()[0].get());
      }
    }
    for (const Expr& node : order) {
      ASSIGN_OR_RETURN(Blocked v, Visit(node));
      values_[node.get()] = v;
    }
    return WithMainBody(model_, Plain(body), params_);
  }

 private:
  absl::StatusOr<Blocked> Visit(const Expr& node) {
    const auto* call = node->As<ir::CallNode>();
    if (call != nullptr && call->op() != nullptr) {
      const std::string& name = call->op()->name;
      if (name == "nn.conv2d") {
        ASSIGN_OR_RETURN(Blocked v, Conv(node, *call));
        if (v.expr != nullptr) return v;
      } else if (name == "nn.bias_add") {
        ASSIGN_OR_RETURN(Blocked v, BiasAdd(*call));
        if (v.expr != nullptr) return v;
      } else if (name == "nn.global_avg_pool2d" || name == "nn.global_max_pool2d" ||
                 name == "nn.max_pool2d" || name == "nn.avg_pool2d") {
        Blocked v = Pool(*call);
        if (v.expr != nullptr) return v;
      } else if (name == "concatenate") {
        Blocked v = Concatenate(node, *call);
        if (v.expr != nullptr) return v;
      } else if (IsLayoutAgnostic(*call->op())) {
        ASSIGN_OR_RETURN(Blocked v, Elementwise(node, *call));
        if (v.expr != nullptr) return v;
      }
    }
    // Anything else reads NCHW.
    std::vector<Expr> operands;
    for (const Expr& o : Operands(node)) operands.push_back(Plain(o));
    return Blocked{WithOperands(node, operands), 0};
  }

  // The rewritten value of original node `e` in NCHW (one layout_transform per node, shared by
  // its readers).
  Expr Plain(const Expr& e) {
    const Blocked& v = values_.at(e.get());
    if (v.block == 0) return v.expr;
    auto it = plain_.find(e.get());
    if (it != plain_.end()) return it->second;
    Expr t = Transform(v.expr, ir::BlockedDataLayout(v.block), "NCHW");
    if (v.pad != 0) {
      const ir::Type& type = e->checked_type();
      if (type.is_static()) {
        const ir::Shape& s = type.shape();
        t = MakeOpCall("strided_slice", {t},
                       {{"begin", AttrValue::Ints(std::vector<int64_t>(s.size(), 0))},
                        {"end", AttrValue::Ints(s)}});
      } else {
        // Only the channels are cut: the other axes keep their symbolic sizes.
        t = MakeOpCall("strided_slice", {t},
                       {{"begin", AttrValue::Ints({0})},
                        {"end", AttrValue::Ints({Channels(type)})},
                        {"axes", AttrValue::Ints({1})}});
      }
    }
    plain_[e.get()] = t;
    return t;
  }

  // Original node `e` (a rank-4 NCHW tensor) in NCHW<block>c.
  Expr InBlock(const Expr& e, int64_t block) {
    const Blocked& v = values_.at(e.get());
    if (v.block == block) return v.expr;
    auto key = std::make_pair(e.get(), block);
    auto it = reblocked_.find(key);
    if (it != reblocked_.end()) return it->second;
    Expr t = Transform(v.expr, ir::BlockedDataLayout(v.block), ir::BlockedDataLayout(block));
    reblocked_[key] = t;
    return t;
  }

  static Expr Transform(const Expr& x, const std::string& src, const std::string& dst) {
    return MakeOpCall(
        "layout_transform", {x},
        {{"src_layout", AttrValue::String(src)}, {"dst_layout", AttrValue::String(dst)}});
  }

  // A weight of the model zero-extended to `shape`: a new param (once per weight and shape).
  absl::StatusOr<Expr> ZeroExtendedWeight(const ir::VarNode& w, const ir::Shape& shape) {
    return Relaid(w, "", "", shape);
  }

  // A weight of the model zero-extended to `shape` (its own when empty) and stored in another
  // layout (src to dst; as it is when they are equal): a new param (once per weight, shape and
  // layout).
  absl::StatusOr<Expr> Relaid(const ir::VarNode& w, const std::string& src, const std::string& dst,
                              ir::Shape shape = {}) {
    const ir::Tensor& original = params_.at(w.name());
    if (shape.empty()) shape = original.shape();
    std::string name = w.name();
    if (src != dst) absl::StrAppend(&name, "_", dst);
    if (shape != original.shape()) absl::StrAppend(&name, "_", absl::StrJoin(shape, "x"));
    auto it = relaid_.find(name);
    if (it == relaid_.end()) {
      ir::Tensor t = shape == original.shape() ? original : ir::ZeroExtended(original, shape);
      if (src != dst) {
        ASSIGN_OR_RETURN(ir::Layout from, ir::Layout::Parse(src));
        ASSIGN_OR_RETURN(ir::Layout to, ir::Layout::Parse(dst));
        ASSIGN_OR_RETURN(t, ir::Relayout(t, from, to));
      }
      Model probe{model_.module, params_};
      std::string fresh = FreshParamName(probe, name);
      params_.emplace(fresh, std::move(t));
      it = relaid_.emplace(name, std::move(fresh)).first;
    }
    const ir::Tensor& t = params_.at(it->second);
    return Expr(ir::VarNode::Make(it->second, t.type()));
  }

  const ir::VarNode* Weight(const Expr& e) const {
    const auto* var = e->As<ir::VarNode>();
    return var != nullptr && params_.count(var->name()) != 0 ? var : nullptr;
  }

  // nn.conv2d -> nn.contrib_conv2d_NCHWc, or {nullptr} to keep it.
  absl::StatusOr<Blocked> Conv(const Expr& node, const ir::CallNode& call) {
    const ir::Attrs& attrs = call.attrs();
    const ir::Type& x = call.args()[0]->checked_type();
    const ir::Type& w = call.args()[1]->checked_type();
    const ir::VarNode* weight = Weight(call.args()[1]);
    if (weight == nullptr || !IsBlockable(x) || !IsBlockable(node->checked_type()) ||
        attrs.GetString("data_layout") != "NCHW" || attrs.GetString("kernel_layout") != "OIHW" ||
        !(attrs.GetString("out_dtype").empty() || attrs.GetString("out_dtype") == "float32")) {
      return Blocked{};
    }
    const int64_t c = Channels(x);
    const int64_t o = w.shape()[0];
    const int64_t groups = attrs.GetInt("groups");
    const bool depthwise = groups > 1 && groups == c && o == c && w.shape()[1] == 1;
    if (groups != 1 && !depthwise) return Blocked{};
    const Blocked& in = values_.at(call.args()[0].get());
    // A depthwise conv keeps its input's channels (and padding); it takes NCHW data only when
    // the channels fill whole blocks.
    const int64_t out_block = depthwise && in.block != 0 ? in.block : OutputChannelBlock(o);
    if (out_block == 0 || (depthwise && in.block == 0 && o % out_block != 0)) return Blocked{};
    const int64_t out_pad = depthwise ? in.pad : PaddedChannels(o) - o;
    // The input in its producer's block; in_block 0: NCHW data read as it is (an image, a
    // 12-channel map), one channel per step, no layout change of its own.
    const int64_t in_block = depthwise ? out_block : in.block;
    const int64_t in_pad = in_block == 0 ? 0 : in.pad;
    // Weights for the padding: zero from padded inputs, zero into padded outputs.
    ir::Shape shape = w.shape();
    shape[0] += out_pad;
    if (!depthwise) shape[1] += in_pad;
    const std::string kernel_layout =
        ir::BlockedKernelLayout(depthwise || in_block == 0 ? 1 : in_block, out_block);
    ASSIGN_OR_RETURN(Expr relaid, Relaid(*weight, "OIHW", kernel_layout, shape));
    Expr data = in_block == 0 ? Plain(call.args()[0]) : InBlock(call.args()[0], in_block);
    std::vector<std::pair<std::string, AttrValue>> changed = {
        {"data_layout", AttrValue::String(ir::BlockedDataLayout(in_block))},
        {"kernel_layout", AttrValue::String(kernel_layout)},
        {"out_layout", AttrValue::String(ir::BlockedDataLayout(out_block))}};
    if (out_pad != 0) {
      changed.push_back({"channels", AttrValue::Int(o + out_pad)});
      if (depthwise) changed.push_back({"groups", AttrValue::Int(o + out_pad)});
    }
    return Blocked{
        MakeOpCall("nn.contrib_conv2d_NCHWc", {data, relaid}, attrs.EntriesWith(changed)),
        out_block, out_pad};
  }

  // bias_add over the channels of a blocked tensor: add of the bias as [1, C/b, 1, 1, b] (a
  // padded tensor's bias zero-extended, so it must be a weight).
  absl::StatusOr<Blocked> BiasAdd(const ir::CallNode& call) {
    const Blocked& x = values_.at(call.args()[0].get());
    const ir::Type& bt = call.args()[1]->checked_type();
    if (x.block == 0 || call.attrs().GetInt("axis") != 1 || !bt.is_tensor() || bt.ndim() != 1) {
      return Blocked{};
    }
    const int64_t c = bt.shape()[0] + x.pad;
    Expr bias = values_.at(call.args()[1].get()).expr;
    if (x.pad != 0) {
      const ir::VarNode* weight = Weight(call.args()[1]);
      if (weight == nullptr) return Blocked{};
      ASSIGN_OR_RETURN(bias, ZeroExtendedWeight(*weight, {c}));
    }
    bias = MakeOpCall("reshape", {bias},
                      {{"newshape", AttrValue::Ints({1, c / x.block, 1, 1, x.block})}});
    return Blocked{MakeOpCall("add", {x.expr, bias}), x.block, x.pad};
  }

  // An elementwise op with a blocked operand: every operand in that block (a scalar as it is,
  // a [.., 1, h, w] broadcast with a unit block axis), or {nullptr} when one cannot be. With
  // padding, per-channel operands must be weights (zero-extended) and the op one that keeps
  // the padding finite.
  absl::StatusOr<Blocked> Elementwise(const Expr& node, const ir::CallNode& call) {
    const ir::Type& out = node->checked_type();
    if (!IsBlockable(out)) return Blocked{};
    int64_t block = 0;
    int64_t pad = 0;
    for (const Expr& a : call.args()) {
      const auto it = values_.find(a.get());
      if (it != values_.end() && it->second.block != 0) {
        block = it->second.block;
        pad = it->second.pad;
        break;
      }
    }
    if (block == 0 || (pad != 0 && !KeepsPaddingFinite(call.op()->name))) return Blocked{};
    const int64_t c = Channels(out);
    std::vector<Expr> args;
    for (const Expr& a : call.args()) {
      const ir::Type& t = a->checked_type();
      if (!t.is_tensor() || t.ndim() > 4) return Blocked{};
      if (t.ndim() == 0) {
        args.push_back(values_.at(a.get()).expr);
        continue;
      }
      // A symbolic operand is reshaped only where its rank is the output's already: a reshape
      // to 4-D would have to write its symbolic sizes into the attribute.
      if (!t.is_static() && t.ndim() != 4) return Blocked{};
      // The operand as a 4-D broadcast of the output: leading unit axes added.
      ir::Dims s = t.dims();
      while (s.size() < 4) s.insert(s.begin(), ir::Dim::Const(1));
      const Blocked& v = values_.at(a.get());
      const ir::Dim channels = ir::Dim::Const(c);
      if (v.block != 0 && s[1] == channels) {
        if (v.pad != pad) return Blocked{};
        args.push_back(InBlock(a, block));
      } else if (s[1] == ir::Dim::Const(1)) {
        // reshape's 0 copies the input's dim at the same position.
        const std::vector<int64_t> newshape =
            t.is_static() ? std::vector<int64_t>{s[0].value(), 1, s[2].value(), s[3].value(), 1}
                          : std::vector<int64_t>{0, 0, 0, 0, 1};
        args.push_back(
            MakeOpCall("reshape", {Plain(a)}, {{"newshape", AttrValue::Ints(newshape)}}));
      } else if (s[1] == channels) {
        Expr x = Plain(a);
        if (pad != 0) {
          const ir::VarNode* weight = Weight(a);
          if (weight == nullptr || t.ndim() < 3) return Blocked{};
          ir::Shape extended = t.shape();
          extended[extended.size() - 3] += pad;  // the channel axis of [.., C, h, w]
          s[1] = s[1] + ir::Dim::Const(pad);
          ASSIGN_OR_RETURN(x, ZeroExtendedWeight(*weight, extended));
        }
        if (t.ndim() < 4) {
          std::vector<int64_t> newshape;
          for (const ir::Dim& d : s) newshape.push_back(d.value());  // t is static here
          x = MakeOpCall("reshape", {x}, {{"newshape", AttrValue::Ints(newshape)}});
        }
        args.push_back(Transform(x, "NCHW", ir::BlockedDataLayout(block)));
      } else {
        return Blocked{};
      }
    }
    return Blocked{ir::CallNode::MakeOp(call.op(), std::move(args), call.attrs()), block, pad};
  }

  // A pool of a blocked tensor pools in its layout.
  Blocked Pool(const ir::CallNode& call) {
    const Blocked& x = values_.at(call.args()[0].get());
    if (x.block == 0 || call.attrs().GetString("layout") != "NCHW") return Blocked{};
    const AttrValue layout = AttrValue::String(ir::BlockedDataLayout(x.block));
    return Blocked{
        MakeOpCall(call.op()->name, {x.expr},
                   call.attrs().EntriesWith({{"layout", layout}, {"out_layout", layout}})),
        x.block, x.pad};
  }

  // Channels joined: blocked when every part has the same block (whole blocks join in order)
  // and only the last is padded.
  // Concatenation along channels: in place of the parts' blocks when they are all blocked and
  // only the last has padding; else, when a conv reads the result and its channels fill whole
  // blocks (the detector's neck: 24-channel maps, one blocked and padded to 32, three resized
  // in NCHW, into 96), through NCHW inside the concatenation's kernel, so that the conv still
  // reads blocks.
  Blocked Concatenate(const Expr& node, const ir::CallNode& call) {
    const auto* tuple = call.args()[0]->As<ir::TupleNode>();
    if (tuple == nullptr || call.attrs().GetInt("axis") != 1) return Blocked{};
    int64_t block = -1;
    bool in_place = true;
    int64_t pad = 0;
    int64_t channels = 0;
    std::vector<Expr> fields;
    for (const Expr& f : tuple->fields()) {
      const auto it = values_.find(f.get());
      if (it == values_.end() || !IsBlockable(f->checked_type())) return Blocked{};
      in_place = in_place && it->second.block != 0 && pad == 0 &&
                 (block == -1 || it->second.block == block);
      block = it->second.block;
      pad = it->second.pad;
      channels += Channels(f->checked_type());
      fields.push_back(it->second.expr);
    }
    if (in_place) {
      return Blocked{MakeOpCall("concatenate", {ir::TupleNode::Make(std::move(fields))},
                                {{"axis", AttrValue::Int(1)}}),
                     block, pad};
    }
    if (conv_inputs_.count(node.get()) == 0 || PaddedChannels(channels) != channels) {
      return Blocked{};
    }
    std::vector<Expr> plain;
    for (const Expr& f : tuple->fields()) plain.push_back(Plain(f));
    Expr joined = MakeOpCall("concatenate", {ir::TupleNode::Make(std::move(plain))},
                             {{"axis", AttrValue::Int(1)}});
    const int64_t b = OutputChannelBlock(channels);
    return Blocked{Transform(joined, "NCHW", ir::BlockedDataLayout(b)), b, 0};
  }

  const Model& model_;
  ParamMap params_;
  std::map<const ir::ExprNode*, Blocked> values_;
  std::set<const ir::ExprNode*> conv_inputs_;  // original nodes a conv reads as its data
  std::map<const ir::ExprNode*, Expr> plain_;
  std::map<std::pair<const ir::ExprNode*, int64_t>, Expr> reblocked_;
  std::map<std::string, std::string> relaid_;  // weight_layout[_shape] -> param name
};

}  // namespace

int64_t PaddedChannels(int64_t channels) {
  if (IsWholeBlock(channels)) return channels;
  const int64_t padded = (channels + 15) / 16 * 16;
  // At most a third more work (12 -> 16, 56 -> 64): the map stays blocked, no layout change on
  // either side, both threads keep their rows; 8 -> 16 would double a conv's work.
  return (padded - channels) * 3 <= channels ? padded : 0;
}

int64_t OutputChannelBlock(int64_t channels) {
  if (IsWholeBlock(channels)) return channels;
  return PaddedChannels(channels) != 0 ? 16 : 0;
}

absl::StatusOr<Model> AlterLayout(const Model& model) {
  if (model.module.main() == nullptr) {
    return absl::NotFoundError("alter_layout: the module has no @main");
  }
  return LayoutRewriter(model).Run();
}

}  // namespace relay::passes
