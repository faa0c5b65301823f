#include "lowering/tir/eval.h"

#include <ucontext.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lowering/support/status_macros.h"

namespace relay::tir {
namespace {

// A scalar value: `f` for floats, `i` for integers and bools (0 or 1).
struct Val {
  double f = 0;
  int64_t i = 0;
};

int64_t Wrap(DType dtype, int64_t v) {
  if (dtype == DType::kInt32) return static_cast<int32_t>(static_cast<uint32_t>(v));
  if (dtype == DType::kBool) return v != 0;
  return v;
}

// a OP b for the six comparisons (floats compare as IEEE does: false with a NaN, but for !=).
template <typename T>
bool Compare(ExprKind kind, T a, T b) {
  switch (kind) {
    case ExprKind::kEQ:
      return a == b;
    case ExprKind::kNE:
      return a != b;
    case ExprKind::kLT:
      return a < b;
    case ExprKind::kLE:
      return a <= b;
    case ExprKind::kGT:
      return a > b;
    default:
      return a >= b;  // kGE
  }
}

double RoundTo(DType dtype, double v) {
  if (dtype == DType::kFloat16) return ir::HalfToFloat(ir::FloatToHalf(static_cast<float>(v)));
  return static_cast<float>(v);
}

// float -> integer as x86's cvttss2si does: truncation, and the "integer indefinite" (the
// lowest value) for NaN and out-of-range values.
int64_t FloatToInt(DType dtype, double f) {
  const double t = std::trunc(f);
  if (dtype == DType::kInt32) {
    if (!(t >= -2147483648.0 && t <= 2147483647.0)) return std::numeric_limits<int32_t>::min();
    return static_cast<int64_t>(t);
  }
  if (!(t >= -9223372036854775808.0 && t < 9223372036854775808.0)) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(t);
}

double Intrinsic(const std::string& name, const std::vector<double>& a) {
  const double x = a[0];
  if (name == "exp") return std::exp(x);
  if (name == "log") return std::log(x);
  if (name == "sqrt") return std::sqrt(x);
  if (name == "tanh") return std::tanh(x);
  if (name == "erf") return std::erf(x);
  if (name == "pow") return std::pow(x, a[1]);
  if (name == "fabs") return std::fabs(x);
  if (name == "floor") return std::floor(x);
  if (name == "ceil") return std::ceil(x);
  if (name == "round") return std::round(x);
  if (name == "nearbyint") return std::nearbyint(x);
  if (name == "sigmoid") return 1.0 / (1.0 + std::exp(-x));
  if (name == "rsqrt") return 1.0 / std::sqrt(x);
  return std::numeric_limits<double>::quiet_NaN();
}

// Element storage of a buffer during a run.
struct Storage {
  const BufferNode* buffer;
  uint8_t* data;
  int64_t size;  // elements
};

class Evaluator {
 public:
  absl::Status Run(const PrimFunc& func, std::vector<ir::Tensor>* args) {
    if (args->size() != func.params.size()) {
      return absl::InvalidArgumentError(absl::StrCat(func.name, ": expected ", func.params.size(),
                                                     " arguments, got ", args->size()));
    }
    for (size_t i = 0; i < args->size(); ++i) {
      const Buffer& b = func.params[i];
      ir::Tensor& t = (*args)[i];
      if (t.dtype() != b->dtype() || t.NumElements() != b->NumElements()) {
        return absl::InvalidArgumentError(
            absl::StrCat(func.name, ": argument ", i, " (", b->name(), ") must be ",
                         ir::DTypeName(b->dtype()), " with ", b->NumElements(), " elements, got ",
                         ir::DTypeName(t.dtype()), " with ", t.NumElements()));
      }
      buffers_[b.get()] = {b.get(), t.raw(), t.NumElements()};
    }
    Exec(func.body);
    return error_;
  }

 private:
  bool failed() const { return !error_.ok(); }
  void Fail(absl::Status s) {
    if (error_.ok()) error_ = std::move(s);
  }

  Storage* Find(const BufferNode* b) {
    auto it = buffers_.find(b);
    if (it == buffers_.end()) {
      Fail(absl::InternalError(absl::StrCat("buffer '", b->name(), "' is not allocated")));
      return nullptr;
    }
    return &it->second;
  }

  Val Read(const Storage& s, int64_t i) {
    Val v;
    switch (s.buffer->dtype()) {
      case DType::kFloat32:
        v.f = reinterpret_cast<const float*>(s.data)[i];
        break;
      case DType::kFloat16:
        v.f = ir::HalfToFloat(reinterpret_cast<const uint16_t*>(s.data)[i]);
        break;
      case DType::kInt32:
        v.i = reinterpret_cast<const int32_t*>(s.data)[i];
        break;
      case DType::kInt64:
        v.i = reinterpret_cast<const int64_t*>(s.data)[i];
        break;
      case DType::kBool:
        v.i = s.data[i] != 0;
        break;
    }
    return v;
  }

  void Write(const Storage& s, int64_t i, Val v) {
    switch (s.buffer->dtype()) {
      case DType::kFloat32:
        reinterpret_cast<float*>(s.data)[i] = static_cast<float>(v.f);
        break;
      case DType::kFloat16:
        reinterpret_cast<uint16_t*>(s.data)[i] = ir::FloatToHalf(static_cast<float>(v.f));
        break;
      case DType::kInt32:
        reinterpret_cast<int32_t*>(s.data)[i] = static_cast<int32_t>(v.i);
        break;
      case DType::kInt64:
        reinterpret_cast<int64_t*>(s.data)[i] = v.i;
        break;
      case DType::kBool:
        s.data[i] = v.i != 0;
        break;
    }
  }

  bool InBounds(const Storage& s, int64_t i, const char* what) {
    if (i >= 0 && i < s.size) return true;
    Fail(absl::OutOfRangeError(absl::StrCat(what, " ", s.buffer->name(), "[", i,
                                            "] out of bounds (", s.size, " elements)")));
    return false;
  }

  Val Eval(const PrimExpr& e) {
    Val r;
    if (failed()) return r;
    const auto& ops = e->operands();
    const DType t = e->dtype();
    switch (e->kind()) {
      case ExprKind::kIntImm:
        r.i = e->int_value();
        return r;
      case ExprKind::kFloatImm:
        r.f = e->float_value();
        return r;
      case ExprKind::kVar: {
        auto it = vars_.find(e.get());
        if (it == vars_.end()) {
          Fail(absl::InternalError(absl::StrCat("unbound variable '", e->name(), "'")));
          return r;
        }
        return it->second;
      }
      case ExprKind::kLoad: {
        const int64_t index = Eval(ops[0]).i;
        Storage* s = Find(e->buffer().get());
        if (s == nullptr || !InBounds(*s, index, "load")) return r;
        return Read(*s, index);
      }
      case ExprKind::kProducerRead:
      case ExprKind::kReduce:
        Fail(absl::InvalidArgumentError(
            absl::StrCat("tensor-expression node left in a loop-IR function: ", ExprToString(e))));
        return r;
      case ExprKind::kNot:
        r.i = Eval(ops[0]).i == 0;
        return r;
      case ExprKind::kSelect: {
        // Both values are evaluated, as the loop IR defines (codegen may emit a select).
        const int64_t c = Eval(ops[0]).i;
        Val a = Eval(ops[1]), b = Eval(ops[2]);
        return c != 0 ? a : b;
      }
      case ExprKind::kCast: {
        const DType from = ops[0]->dtype();
        Val v = Eval(ops[0]);
        if (ir::IsFloat(t)) {
          r.f = RoundTo(t, ir::IsFloat(from) ? v.f : static_cast<double>(v.i));
        } else if (t == DType::kBool) {
          r.i = ir::IsFloat(from) ? (v.f != 0) : (v.i != 0);
        } else {
          r.i = ir::IsFloat(from) ? FloatToInt(t, v.f) : Wrap(t, v.i);
        }
        return r;
      }
      case ExprKind::kCall: {
        if (IsWarpShuffle(e)) return WarpShuffleDown(Eval(ops[0]), ops[1]->int_value());
        std::vector<double> args;
        for (const PrimExpr& o : ops) args.push_back(Eval(o).f);
        r.f = RoundTo(t, Intrinsic(e->name(), args));
        return r;
      }
      default:
        break;
    }
    Val a = Eval(ops[0]), b = Eval(ops[1]);
    const DType ot = ops[0]->dtype();
    if (ir::IsFloat(ot)) {
      switch (e->kind()) {
        case ExprKind::kAdd:
          r.f = RoundTo(t, a.f + b.f);
          return r;
        case ExprKind::kSub:
          r.f = RoundTo(t, a.f - b.f);
          return r;
        case ExprKind::kMul:
          r.f = RoundTo(t, a.f * b.f);
          return r;
        case ExprKind::kDiv:
          r.f = RoundTo(t, a.f / b.f);
          return r;
        case ExprKind::kMin:
          r.f = b.f < a.f ? b.f : a.f;
          return r;
        case ExprKind::kMax:
          r.f = a.f < b.f ? b.f : a.f;
          return r;
        case ExprKind::kEQ:
        case ExprKind::kNE:
        case ExprKind::kLT:
        case ExprKind::kLE:
        case ExprKind::kGT:
        case ExprKind::kGE:
          r.i = Compare(e->kind(), a.f, b.f);
          return r;
        default:
          Fail(absl::InternalError(absl::StrCat("bad float expression ", ExprToString(e))));
          return r;
      }
    }
    const uint64_t ua = static_cast<uint64_t>(a.i), ub = static_cast<uint64_t>(b.i);
    switch (e->kind()) {
      case ExprKind::kAdd:
        r.i = Wrap(t, static_cast<int64_t>(ua + ub));
        return r;
      case ExprKind::kSub:
        r.i = Wrap(t, static_cast<int64_t>(ua - ub));
        return r;
      case ExprKind::kMul:
        r.i = Wrap(t, static_cast<int64_t>(ua * ub));
        return r;
      case ExprKind::kDiv:
      case ExprKind::kFloorDiv:
      case ExprKind::kFloorMod:
        if (b.i == 0) {
          Fail(absl::InvalidArgumentError(
              absl::StrCat("integer division by zero in ", ExprToString(e))));
          return r;
        }
        if (b.i == -1) {
          r.i = e->kind() == ExprKind::kFloorMod ? 0 : Wrap(t, static_cast<int64_t>(0 - ua));
          return r;
        }
        if (e->kind() == ExprKind::kDiv) r.i = a.i / b.i;
        if (e->kind() == ExprKind::kFloorDiv) r.i = FloorDivInt(a.i, b.i);
        if (e->kind() == ExprKind::kFloorMod) r.i = FloorModInt(a.i, b.i);
        return r;
      case ExprKind::kMin:
        r.i = std::min(a.i, b.i);
        return r;
      case ExprKind::kMax:
        r.i = std::max(a.i, b.i);
        return r;
      case ExprKind::kEQ:
      case ExprKind::kNE:
      case ExprKind::kLT:
      case ExprKind::kLE:
      case ExprKind::kGT:
      case ExprKind::kGE:
        r.i = Compare(e->kind(), a.i, b.i);
        return r;
      case ExprKind::kAnd:
        r.i = a.i != 0 && b.i != 0;
        return r;
      case ExprKind::kOr:
        r.i = a.i != 0 || b.i != 0;
        return r;
      default:
        Fail(absl::InternalError(absl::StrCat("bad integer expression ", ExprToString(e))));
        return r;
    }
  }

  void Exec(const Stmt& s) {
    if (s == nullptr || failed()) return;
    switch (s->kind()) {
      case StmtKind::kFor: {
        const int64_t min = Eval(s->min()).i, extent = Eval(s->extent()).i;
        const bool reverse =
            s->for_kind() == ForKind::kParallel || s->for_kind() == ForKind::kVectorized ||
            s->for_kind() == ForKind::kBlockIdx || s->for_kind() == ForKind::kThreadIdx;
        const ExprNode* var = s->loop_var().get();
        if (s->for_kind() == ForKind::kThreadIdx && HasMeetingPoint(s->body())) {
          RunThreads(s->body(), var, min, extent);
          return;
        }
        for (int64_t k = 0; k < extent && !failed(); ++k) {
          vars_[var].i = min + (reverse ? extent - 1 - k : k);
          Exec(s->body());
        }
        vars_.erase(var);
        return;
      }
      case StmtKind::kBarrier:
        Barrier();
        return;
      case StmtKind::kSeq:
        for (const Stmt& c : s->seq()) Exec(c);
        return;
      case StmtKind::kStore: {
        const int64_t index = Eval(s->index()).i;
        Val v = Eval(s->value());
        Storage* st = Find(s->buffer().get());
        if (failed() || st == nullptr || !InBounds(*st, index, "store")) return;
        Write(*st, index, v);
        return;
      }
      case StmtKind::kAllocate: {
        const Buffer& b = s->buffer();
        std::vector<uint8_t> bytes(
            static_cast<size_t>(b->NumElements()) * static_cast<size_t>(ir::DTypeBytes(b->dtype())),
            0xFF);
        auto saved = buffers_.find(b.get());
        if (saved != buffers_.end()) {
          Fail(absl::InternalError(absl::StrCat("buffer '", b->name(), "' allocated twice")));
          return;
        }
        buffers_[b.get()] = {b.get(), bytes.data(), b->NumElements()};
        Exec(s->body());
        buffers_.erase(b.get());
        return;
      }
      case StmtKind::kIfThenElse:
        if (Eval(s->condition()).i != 0) {
          Exec(s->body());
        } else {
          Exec(s->else_body());
        }
        return;
      case StmtKind::kLetStmt: {
        const ExprNode* var = s->loop_var().get();
        vars_[var] = Eval(s->value());
        Exec(s->body());
        vars_.erase(var);
        return;
      }
    }
  }

  // A GPU thread of a block whose threadIdx loop has barriers: a fiber (ucontext) with its own
  // stack, variables and local buffers. It runs until it reaches a barrier, then the next
  // thread runs; when every thread waits at the barrier they all go on, one after another,
  // to the next. So a thread never sees another's writes made after a barrier it has not
  // passed, and a missing barrier shows as a wrong result, as on a GPU.
  struct Fiber {
    ucontext_t context;
    std::unique_ptr<char[]> stack;
    std::unordered_map<const ExprNode*, Val> vars;
    std::unordered_map<const BufferNode*, Storage> buffers;
    int64_t lane = 0;  // the thread's index in the block
    bool done = false;
  };
  static constexpr size_t kFiberStack = 256 * 1024;

  static void FiberEntry() {
    Evaluator* ev = current_evaluator;
    ev->Exec(ev->fiber_body_);
    ev->running_->done = true;  // returns to scheduler_ (uc_link)
  }

  // Runs `body` for every value of `var` in [min, min + extent) as the threads of one block,
  // the last thread first (as bound loops run backwards).
  void RunThreads(const Stmt& body, const ExprNode* var, int64_t min, int64_t extent) {
    if (running_ != nullptr) {
      Fail(absl::InvalidArgumentError("a threadIdx loop with barriers inside another"));
      return;
    }
    while (fibers_.size() < static_cast<size_t>(extent)) {
      fibers_.push_back(std::make_unique<Fiber>());
      fibers_.back()->stack.reset(new char[kFiberStack]);
    }
    Evaluator* saved = current_evaluator;
    current_evaluator = this;
    fiber_body_ = body;
    shuffled_.assign(static_cast<size_t>(extent), Val{});
    for (int64_t k = 0; k < extent; ++k) {
      Fiber& f = *fibers_[static_cast<size_t>(k)];
      f.vars = vars_;
      f.vars[var].i = min + (extent - 1 - k);
      f.buffers = buffers_;
      f.lane = extent - 1 - k;
      f.done = false;
      getcontext(&f.context);
      f.context.uc_stack.ss_sp = f.stack.get();
      f.context.uc_stack.ss_size = kFiberStack;
      f.context.uc_link = &scheduler_;
      makecontext(&f.context, &Evaluator::FiberEntry, 0);
    }
    for (bool waiting = true; waiting;) {
      int64_t arrived = 0, finished = 0;
      for (int64_t k = 0; k < extent; ++k) {
        Fiber& f = *fibers_[static_cast<size_t>(k)];
        if (f.done) continue;
        running_ = &f;
        std::swap(vars_, f.vars);
        std::swap(buffers_, f.buffers);
        swapcontext(&scheduler_, &f.context);
        std::swap(vars_, f.vars);
        std::swap(buffers_, f.buffers);
        running_ = nullptr;
        if (f.done) {
          ++finished;
        } else {
          ++arrived;
        }
      }
      // The verifier keeps barriers out of conditions, so all threads arrive or none does; a
      // failure makes every waiting thread return at once, and the next round ends them.
      if (arrived > 0 && finished > 0) {
        Fail(absl::InvalidArgumentError("threads of a block reached different barriers"));
      }
      waiting = arrived > 0;
    }
    for (int64_t k = 0; k < extent; ++k) {
      fibers_[static_cast<size_t>(k)]->vars.clear();
      fibers_[static_cast<size_t>(k)]->buffers.clear();
    }
    current_evaluator = saved;
  }

  void Barrier() {
    if (running_ == nullptr) {
      Fail(absl::InternalError("a barrier outside a threadIdx loop"));
      return;
    }
    swapcontext(&running_->context, &scheduler_);
  }

  // A warp shuffle: every thread publishes its value and waits for all the others, takes the
  // value `offset` lanes up in its warp of 32, and waits again before the table is reused.
  Val WarpShuffleDown(Val v, int64_t offset) {
    if (running_ == nullptr) {
      Fail(absl::InvalidArgumentError("a warp shuffle outside a threadIdx loop with barriers"));
      return v;
    }
    const int64_t lane = running_->lane;
    shuffled_[static_cast<size_t>(lane)] = v;
    Barrier();
    Val r = v;
    if (lane % 32 + offset < 32 && lane + offset < static_cast<int64_t>(shuffled_.size())) {
      r = shuffled_[static_cast<size_t>(lane + offset)];
    }
    Barrier();
    return r;
  }

  // Whether the threads of a threadIdx loop with this body meet (searched once per body).
  bool HasMeetingPoint(const Stmt& body) {
    auto [it, fresh] = has_meeting_point_.try_emplace(body.get(), false);
    if (fresh) it->second = AnyStmt(body, IsMeetingPoint);
    return it->second;
  }

  std::unordered_map<const ExprNode*, Val> vars_;
  std::unordered_map<const BufferNode*, Storage> buffers_;
  std::unordered_map<const StmtNode*, bool> has_meeting_point_;
  std::vector<std::unique_ptr<Fiber>> fibers_;
  ucontext_t scheduler_;
  Fiber* running_ = nullptr;
  std::vector<Val> shuffled_;  // the values a warp shuffle publishes, by lane
  Stmt fiber_body_;
  static thread_local Evaluator* current_evaluator;
  absl::Status error_;
};

thread_local Evaluator* Evaluator::current_evaluator = nullptr;

}  // namespace

absl::Status EvalPrimFunc(const PrimFunc& func, std::vector<ir::Tensor>* args) {
  Evaluator ev;
  return ev.Run(func, args);
}

absl::StatusOr<std::vector<ir::Tensor>> RunPrimFunc(const PrimFunc& func,
                                                    const std::vector<ir::Tensor>& inputs) {
  if (inputs.size() != static_cast<size_t>(func.num_inputs)) {
    return absl::InvalidArgumentError(
        absl::StrCat(func.name, ": expected ", func.num_inputs, " inputs, got ", inputs.size()));
  }
  std::vector<ir::Tensor> args = inputs;
  std::vector<ir::Tensor> outputs;
  for (size_t i = inputs.size(); i < func.params.size(); ++i) {
    const Buffer& b = func.params[i];
    ir::Tensor t(b->shape(), b->dtype());
    std::memset(t.raw(), 0xFF, static_cast<size_t>(t.NumBytes()));
    outputs.push_back(t);
    args.push_back(t);
  }
  RETURN_IF_ERROR(EvalPrimFunc(func, &args));
  return outputs;
}

}  // namespace relay::tir
