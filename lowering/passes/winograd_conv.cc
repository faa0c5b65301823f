#include "lowering/passes/winograd_conv.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lowering/ir/layout.h"
#include "lowering/ir/ops/relation_util.h"
#include "lowering/ir/ops/winograd.h"
#include "lowering/passes/expr_util.h"
#include "lowering/support/int_math.h"
#include "lowering/support/status_macros.h"
#include "lowering/target/target.h"

namespace relay::passes {
namespace {

using ir::AttrValue;
using ir::Expr;

// The batch_matmul's register tile has 6 rows (lowering/schedule/matmul_schedule.cc):
// tiles are padded to whole register tiles.
constexpr int64_t kProductRows = 6;

bool AllEqual(const std::vector<int64_t>& v, int64_t x) {
  for (int64_t e : v) {
    if (e != x) return false;
  }
  return !v.empty();
}

class WinogradRewriter {
 public:
  WinogradRewriter(const Model& model, int64_t band_bytes)
      : model_(model), band_bytes_(band_bytes), params_(model.params) {}

  absl::StatusOr<Model> Run() {
    absl::Status status;
    Expr body =
        RewriteCallsOf(model_.module.main()->body(), "nn.contrib_conv2d_NCHWc",
                       [&](const ir::CallNode& call, const std::vector<Expr>& operands) -> Expr {
                         if (!status.ok()) return nullptr;
                         absl::StatusOr<Expr> out = Conv(call, operands);
                         if (!out.ok()) {
                           status = out.status();
                           return nullptr;
                         }
                         return *out;
                       });
    RETURN_IF_ERROR(status);
    return WithMainBody(model_, body, params_);
  }

 private:
  // The Winograd form of `call`, or nullptr to keep it.
  absl::StatusOr<Expr> Conv(const ir::CallNode& call, const std::vector<Expr>& operands) {
    const ir::Attrs& attrs = call.attrs();
    const ir::Type& data = call.args()[0]->checked_type();
    const ir::Type& out = call.checked_type();
    const auto* weight = call.args()[1]->As<ir::VarNode>();
    if (weight == nullptr || params_.count(weight->name()) == 0 || !data.is_tensor() ||
        data.ndim() != 5 || data.dtype() != ir::DType::kFloat32 || !out.is_tensor() ||
        out.ndim() != 5 || out.dtype() != ir::DType::kFloat32 || attrs.GetInt("groups") != 1 ||
        !AllEqual(attrs.GetInts("strides"), 1) || !AllEqual(attrs.GetInts("dilation"), 1)) {
      return Expr(nullptr);
    }
    // A symbolic batch takes the batch-major form (ir/ops/winograd.h), every tensor of the conv
    // leading with it, and the choices made for one image: the smallest batch every call may
    // have (docs/dynamic-shapes.md). Any other symbolic dim keeps the conv direct.
    const ir::Shape ds = data.min_shape();
    const ir::Shape os = out.min_shape();
    const bool batch_major = !data.is_static();
    for (int axis = 1; axis < 5; ++axis) {
      if (!data.dims()[axis].is_const() || !out.dims()[axis].is_const()) return Expr(nullptr);
    }
    const ir::Tensor& w = params_.at(weight->name());
    // [K/ob, C/ib, 3, 3, ib, ob]
    if (w.ndim() != 6 || w.shape()[2] != 3 || w.shape()[3] != 3) return Expr(nullptr);
    const int64_t m = WinogradTileFor(os[0], os[2], os[3], ds[1] * ds[4], os[1] * os[4]);
    if (m == 0) return Expr(nullptr);
    ASSIGN_OR_RETURN(Expr u, Transformed(*weight, attrs.GetString("kernel_layout"), m));
    const std::vector<int64_t> bands =
        WinogradBands(os[0], os[2], os[3], ds[1] * ds[4], os[1] * os[4], m, band_bytes_);
    const Band band{operands[0], u, attrs, os, m, batch_major};
    if (bands.size() == 1) return band.Rows(0, os[2]);
    // Bands in order, each band's three kernels before the next band's, so that the memory
    // plan gives every band the buffers the one before it has just used (in cache).
    std::vector<Expr> parts;
    for (size_t i = 0; i < bands.size(); ++i) {
      const int64_t end = i + 1 < bands.size() ? bands[i + 1] : os[2];
      parts.push_back(band.Rows(bands[i], end));
    }
    return MakeOpCall("concatenate", {ir::TupleNode::Make(std::move(parts))},
                      {{"axis", AttrValue::Int(2)}});
  }

  // What every band of one conv shares: its data, transformed weight, attributes, output
  // shape (the batch at its smallest), tile, and whether its batch is symbolic.
  struct Band {
    Expr data, u;
    const ir::Attrs& attrs;
    ir::Shape os;
    int64_t m;
    bool batch_major;

    // The Winograd form of output rows [begin, end) of the conv (all of them: [0, OH)).
    Expr Rows(int64_t begin, int64_t end) const {
      std::vector<std::pair<std::string, AttrValue>> in_attrs = {
          {"tile_size", AttrValue::Int(m)},
          {"padding", AttrValue::Ints(attrs.GetInts("padding"))},
          {"tiles",
           AttrValue::Int(WinogradProductRows(batch_major ? 1 : os[0], end - begin, os[3], m))}};
      if (end - begin != os[2]) in_attrs.push_back({"output_rows", AttrValue::Ints({begin, end})});
      std::vector<int64_t> size = {os[0], end - begin, os[3]};
      if (batch_major) {
        in_attrs.push_back({"batch_major", AttrValue::Bool(true)});
        size.erase(size.begin());
      }
      std::vector<std::pair<std::string, AttrValue>> out_attrs = {
          {"tile_size", AttrValue::Int(m)},
          {"output_size", AttrValue::Ints(size)},
          {"block", AttrValue::Int(os[4])}};
      if (batch_major) out_attrs.push_back({"batch_major", AttrValue::Bool(true)});
      Expr v = MakeOpCall("nn.winograd_input_transform", {data}, std::move(in_attrs));
      Expr mm = MakeOpCall("nn.batch_matmul", {v, u}, {{"transpose_b", AttrValue::Bool(false)}});
      return MakeOpCall("nn.winograd_output_transform", {mm}, std::move(out_attrs));
    }
  };

  // The conv's blocked weight transformed for F(m x m, 3 x 3): a new param (once per weight
  // and m).
  absl::StatusOr<Expr> Transformed(const ir::VarNode& weight, const std::string& layout,
                                   int64_t m) {
    const std::string key = absl::StrCat(weight.name(), "_winograd", m);
    auto it = transformed_.find(key);
    if (it == transformed_.end()) {
      ASSIGN_OR_RETURN(ir::Layout from, ir::Layout::Parse(layout));
      ASSIGN_OR_RETURN(ir::Layout oihw, ir::Layout::Parse("OIHW"));
      ASSIGN_OR_RETURN(ir::Tensor plain, ir::Relayout(params_.at(weight.name()), from, oihw));
      ASSIGN_OR_RETURN(ir::Tensor u, WinogradWeights(plain, m));
      Model probe{model_.module, params_};
      std::string name = FreshParamName(probe, key);
      params_.emplace(name, std::move(u));
      it = transformed_.emplace(key, std::move(name)).first;
    }
    return Expr(ir::VarNode::Make(it->second, params_.at(it->second).type()));
  }

  const Model& model_;
  const int64_t band_bytes_;
  ParamMap params_;
  std::map<std::string, std::string> transformed_;  // weight_winograd<m> -> param
};

// The bytes of F(m x m)'s two buffers between its kernels, V [alpha^2, rows, C] and
// M [alpha^2, rows, K], float32.
int64_t WinogradBufferBytes(int64_t n, int64_t height, int64_t width, int64_t in_channels,
                            int64_t out_channels, int64_t m) {
  return (m + 2) * (m + 2) * WinogradProductRows(n, height, width, m) *
         (in_channels + out_channels) * 4;
}

// The memory balance of the cost model: multiply-adds per byte read from DRAM (winograd_conv.h).
int64_t WinogradBalance() { return GenericCpuFacts().fma_per_dram_byte(); }

}  // namespace

int64_t WinogradBufferBudget() { return GenericCpuFacts().llc_bytes / 4; }

int64_t WinogradProductRows(int64_t n, int64_t height, int64_t width, int64_t m) {
  const int64_t tiles = n * ir::ops::WinogradTiles(height, m) * ir::ops::WinogradTiles(width, m);
  return (tiles + kProductRows - 1) / kProductRows * kProductRows;
}

int64_t WinogradTileFor(int64_t n, int64_t height, int64_t width, int64_t in_channels,
                        int64_t out_channels) {
  // In multiply-adds: the direct conv's 9 per output pixel and channel pair, F(m x m)'s alpha^2
  // per (padded) tile and channel pair; each at least what reading its weights from memory
  // costs, and F(m x m) what writing and reading its two buffers costs where they outgrow
  // the cache.
  const int64_t pairs = in_channels * out_channels;
  const int64_t balance = WinogradBalance();
  const int64_t floor = 4 * balance;  // rows of a product that its weights' bytes cost
  const int64_t direct = 9 * pairs * std::max(n * height * width, floor);
  int64_t best = 0, best_cost = direct;
  for (int64_t m : {4, 2}) {
    const int64_t positions = (m + 2) * (m + 2);
    const int64_t rows = WinogradProductRows(n, height, width, m);
    const int64_t buffer_bytes =
        WinogradBufferBytes(n, height, width, in_channels, out_channels, m);
    int64_t cost = positions * pairs * std::max(rows, floor);
    if (buffer_bytes > WinogradBufferBudget()) cost += balance * buffer_bytes;
    if (cost * kWinogradMinGain <= direct * 10 && cost < best_cost) {
      best = m;
      best_cost = cost;
    }
  }
  return best;
}

std::vector<int64_t> WinogradBands(int64_t n, int64_t height, int64_t width, int64_t in_channels,
                                   int64_t out_channels, int64_t m, int64_t band_bytes) {
  const int64_t tile_rows = ir::ops::WinogradTiles(height, m);
  // The most tile rows a band may hold, at least one: a band of p tile rows has the buffers of
  // a conv p * m rows high (its tiles padded to whole register tiles).
  int64_t most = tile_rows;
  while (most > 1 &&
         WinogradBufferBytes(n, most * m, width, in_channels, out_channels, m) > band_bytes) {
    --most;
  }
  // As few bands as that allows, then as equal as the tile rows allow.
  const int64_t bands = CeilDiv(tile_rows, most);
  const int64_t per_band = CeilDiv(tile_rows, bands);  // tile rows, at most `most`
  std::vector<int64_t> begins;
  for (int64_t r = 0; r < tile_rows; r += per_band) begins.push_back(r * m);
  return begins;
}

absl::StatusOr<ir::Tensor> WinogradWeights(const ir::Tensor& oihw, int64_t m) {
  ASSIGN_OR_RETURN(ir::ops::WinogradMatrices wm, ir::ops::Winograd3x3(m));
  const ir::Shape& s = oihw.shape();
  if (oihw.ndim() != 4 || s[2] != 3 || s[3] != 3 || oihw.dtype() != ir::DType::kFloat32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a Winograd weight must be float32 [K, C, 3, 3], got ", ir::TypeToString(oihw.type())));
  }
  const int64_t k_out = s[0], c_in = s[1], alpha = wm.alpha;
  const std::vector<double> g = oihw.ToDoubles();
  std::vector<double> u(static_cast<size_t>(alpha * alpha * c_in * k_out));
  for (int64_t k = 0; k < k_out; ++k) {
    for (int64_t c = 0; c < c_in; ++c) {
      const double* f = &g[static_cast<size_t>((k * c_in + c) * 9)];
      double gg[8][3];  // G f, alpha x 3 (alpha <= 6)
      for (int64_t e = 0; e < alpha; ++e) {
        for (int64_t j = 0; j < 3; ++j) {
          gg[e][j] = wm.G(e, 0) * f[j] + wm.G(e, 1) * f[3 + j] + wm.G(e, 2) * f[6 + j];
        }
      }
      for (int64_t e = 0; e < alpha; ++e) {
        for (int64_t v = 0; v < alpha; ++v) {
          const double x = gg[e][0] * wm.G(v, 0) + gg[e][1] * wm.G(v, 1) + gg[e][2] * wm.G(v, 2);
          u[static_cast<size_t>(((e * alpha + v) * c_in + c) * k_out + k)] = x;
        }
      }
    }
  }
  return ir::Tensor::FromDoubles({alpha * alpha, c_in, k_out}, ir::DType::kFloat32, u);
}

absl::StatusOr<Model> WinogradConv(const Model& model, int64_t band_bytes) {
  if (model.module.main() == nullptr) {
    return absl::NotFoundError("winograd_conv: the module has no @main");
  }
  if (band_bytes < 1) {
    return absl::InvalidArgumentError("winograd_conv: band_bytes must be positive");
  }
  return WinogradRewriter(model, band_bytes).Run();
}

}  // namespace relay::passes
