#include "lowering/ir/text/parser.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lowering/ir/attrs.h"
#include "lowering/ir/dtype.h"
#include "lowering/ir/expr.h"
#include "lowering/ir/op.h"
#include "lowering/ir/tensor.h"
#include "lowering/ir/text/lexer.h"
#include "lowering/ir/text/metadata.h"
#include "lowering/ir/type.h"
#include "lowering/support/status_macros.h"

namespace relay::ir {
namespace {

// Deeper nesting than this (parentheses, lists, types, functions, postfix chains) is an error:
// the parser is recursive, and a hostile input must not overflow the stack.
constexpr int kMaxNesting = 1000;

constexpr char kMetaAttrMessage[] =
    "metadata references are supported as expressions (tensor constants) only, not as "
    "attribute values";

// Rounds a literal to float32 as TVM reads `1e-05f`; values beyond float32's range become
// infinities (a plain cast would be undefined behaviour).
double RoundToFloat32(double v) {
  if (std::isfinite(v) && std::fabs(v) > FLT_MAX) {
    // Anything below FLT_MAX + half an ulp still rounds to FLT_MAX.
    constexpr double kOverflow = 3.4028235677973366e38;
    const double magnitude =
        std::fabs(v) >= kOverflow ? std::numeric_limits<double>::infinity() : FLT_MAX;
    return std::copysign(magnitude, v);
  }
  return static_cast<double>(static_cast<float>(v));
}

double RoundLiteral(const Token& token) {
  const double f32 = RoundToFloat32(token.float_value);
  if (token.suffix == "f16") return HalfToFloat(FloatToHalf(static_cast<float>(f32)));
  return f32;
}

bool IsNumberedName(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool LooksLikeDType(const std::string& name) {
  for (const char* prefix : {"float", "int", "uint", "bool", "bfloat"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// One attribute as written in a call, with where it was written for error messages.
struct GivenAttr {
  Token name;
  Token value_token;
  AttrValue value;
};

class Parser {
 public:
  // `metadata`: the constants of the text's metadata section, or null when it has none.
  Parser(const std::string& text, const std::string& source_name,
         const std::vector<Tensor>* metadata = nullptr, ParseOptions options = {})
      : tokens_(Tokenize(text)), source_name_(source_name), options_(options), metadata_(metadata) {
    if (metadata_ != nullptr) meta_nodes_.resize(metadata_->size());
  }

  absl::StatusOr<Module> Run();
  absl::StatusOr<Function> RunKernel();

 private:
  // Counts one level of nesting for as long as it lives.
  class NestingGuard {
   public:
    explicit NestingGuard(Parser* parser) : parser_(parser) { ++parser_->depth_; }
    ~NestingGuard() { --parser_->depth_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;

   private:
    Parser* parser_;
  };

  // The names one function body (or parenthesised block) binds.
  using Frame = std::unordered_map<std::string, Expr>;

  const Token& Peek(size_t ahead = 0) const {
    const size_t i = pos_ + ahead;
    return tokens_[i < tokens_.size() ? i : tokens_.size() - 1];
  }
  const Token& Next() {
    const Token& token = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return token;
  }
  bool PeekIdent(const char* word, size_t ahead = 0) const {
    return Peek(ahead).kind == TokenKind::kIdent && Peek(ahead).value == word;
  }

  absl::Status ErrorAt(const Token& at, const std::string& what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name_, ":", at.line, ":", at.col, ": error: ", what));
  }
  // An error about the token `at`; a lexer error token reports its own message instead.
  absl::Status Unexpected(const Token& at, const std::string& expected) const {
    if (at.kind == TokenKind::kError) return ErrorAt(at, at.value);
    return ErrorAt(at, absl::StrCat("expected ", expected, " but found ", DescribeToken(at)));
  }
  absl::Status Expect(TokenKind kind, const char* spelling) {
    if (Peek().kind != kind) return Unexpected(Peek(), absl::StrCat("'", spelling, "'"));
    Next();
    return absl::OkStatus();
  }
  absl::Status CheckNesting(const Token& at) const {
    if (depth_ <= kMaxNesting) return absl::OkStatus();
    return ErrorAt(at, absl::StrCat("nesting is too deep (more than ", kMaxNesting, " levels)"));
  }
  static SourceLoc Loc(const Token& token) { return SourceLoc{token.line, token.col}; }

  Expr Lookup(const std::string& name) const {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end()) return found->second;
    }
    return nullptr;
  }
  absl::Status CheckUnbound(const Token& name) const {
    if (frames_.back().count(name.value) == 0) return absl::OkStatus();
    return ErrorAt(name, absl::StrCat("'%", name.value, "' is already defined"));
  }

  absl::Status ParseHeader(bool first);
  absl::StatusOr<Function> ParseFunctionRest(const Token& start);
  absl::StatusOr<Expr> ParseSeq();
  absl::StatusOr<Expr> ParseExpr();
  absl::StatusOr<Expr> ParsePrimary();
  absl::StatusOr<Expr> ParseParen();
  absl::StatusOr<Expr> ParseOpCall();
  absl::Status ParseArgs(const OpDef* op, std::vector<Expr>* args, std::vector<GivenAttr>* attrs);
  absl::StatusOr<Attrs> MakeCallAttrs(const OpDef* op, const Token& op_token,
                                      const std::vector<GivenAttr>& given) const;
  absl::StatusOr<Expr> MakeConstant(const Token& token) const;
  absl::StatusOr<Expr> ParseMetaReference();
  absl::StatusOr<Type> ParseType();
  absl::StatusOr<Dims> ParseShape();
  absl::StatusOr<Dim> ParseDimSum();
  absl::StatusOr<Dim> ParseDimProduct();
  absl::StatusOr<Dim> ParseDimAtom();
  absl::StatusOr<DType> ParseDTypeName();
  absl::StatusOr<AttrValue> ParseAttrValue();

  std::vector<Token> tokens_;
  const std::string& source_name_;
  const ParseOptions options_;
  // Symbolic dims by name, with the bounds their first use gave; `?` makes "?0", "?1", ...
  std::map<std::string, DimVar> dim_vars_;
  int anonymous_dims_ = 0;
  size_t pos_ = 0;
  int depth_ = 0;
  std::vector<Frame> frames_;
  // `@name` references, checked once every def is known (defs may come in any order).
  std::vector<Token> global_refs_;
  const std::vector<Tensor>* metadata_;
  // The node of each metadata constant, made at its first reference: every
  // `meta[relay.Constant][N]` is one node, as in TVM.
  std::vector<Expr> meta_nodes_;
  // Parsing a kernel file, where tensor constants are never allowed.
  bool kernel_ = false;
};

absl::StatusOr<Module> Parser::Run() {
  if (Peek().kind == TokenKind::kHash) RETURN_IF_ERROR(ParseHeader(/*first=*/true));
  std::map<std::string, Function> functions;
  while (Peek().kind != TokenKind::kEof) {
    const Token& token = Peek();
    if (token.kind == TokenKind::kHash) {
      RETURN_IF_ERROR(ParseHeader(/*first=*/false));
      continue;
    }
    if (PeekIdent("type")) return ErrorAt(token, "type definitions are not supported");
    if (!PeekIdent("def")) return Unexpected(token, "'def'");
    const Token& def = Next();
    if (Peek().kind != TokenKind::kGlobal) {
      return Unexpected(Peek(), "a function name like '@main' after 'def'");
    }
    const Token& name = Next();
    if (functions.count(name.value) != 0) {
      return ErrorAt(name, absl::StrCat("duplicate definition of '@", name.value, "'"));
    }
    ASSIGN_OR_RETURN(Function fn, ParseFunctionRest(def));
    functions.emplace(name.value, std::move(fn));
  }
  for (const Token& ref : global_refs_) {
    if (functions.count(ref.value) == 0) {
      return ErrorAt(ref, absl::StrCat("undefined global function '@", ref.value, "'"));
    }
  }
  return Module(std::move(functions), source_name_);
}

// `#[relay_kernel = 1]` then one `fn (...) -> R { ... }` and nothing else.
absl::StatusOr<Function> Parser::RunKernel() {
  kernel_ = true;
  RETURN_IF_ERROR(Expect(TokenKind::kHash, "#"));
  RETURN_IF_ERROR(Expect(TokenKind::kLBracket, "["));
  if (!PeekIdent("relay_kernel")) return Unexpected(Peek(), "'relay_kernel'");
  Next();
  RETURN_IF_ERROR(Expect(TokenKind::kEqual, "="));
  if (Peek().kind != TokenKind::kInt) return Unexpected(Peek(), "a kernel format number");
  const Token& version = Next();
  if (version.int_value != 1) {
    return ErrorAt(version, absl::StrCat("unsupported kernel format ", version.int_value,
                                         " (this relayc reads format 1)"));
  }
  RETURN_IF_ERROR(Expect(TokenKind::kRBracket, "]"));
  if (!PeekIdent("fn")) return Unexpected(Peek(), "'fn'");
  const Token& fn_token = Next();
  ASSIGN_OR_RETURN(Function fn, ParseFunctionRest(fn_token));
  if (Peek().kind != TokenKind::kEof) return Unexpected(Peek(), "the end of the kernel");
  if (!global_refs_.empty()) {
    return ErrorAt(global_refs_.front(), "a kernel cannot call global functions");
  }
  return fn;
}

// `#[version = "0.0.5"]` first. `#[metadata]` on a line of its own ends the module
// (ParseModule splits it off before tokenizing); anywhere else it is an error.
absl::Status Parser::ParseHeader(bool first) {
  const Token& hash = Next();
  RETURN_IF_ERROR(Expect(TokenKind::kLBracket, "["));
  if (Peek().kind != TokenKind::kIdent) return Unexpected(Peek(), "a header attribute");
  const Token& name = Next();
  if (name.value == "metadata") {
    return ErrorAt(hash, kernel_ ? "a kernel has no metadata section"
                                 : "the metadata section must start on a line of its own, "
                                   "after the module");
  }
  if (name.value != "version") {
    return ErrorAt(name, absl::StrCat("unknown header attribute '", name.value, "'"));
  }
  if (!first) return ErrorAt(hash, "the version header must come first");
  RETURN_IF_ERROR(Expect(TokenKind::kEqual, "="));
  if (Peek().kind != TokenKind::kString) return Unexpected(Peek(), "a version string");
  const Token& version = Next();
  if (version.value != "0.0.5") {
    return ErrorAt(version, absl::StrCat("unsupported version \"", version.value,
                                         "\" (only \"0.0.5\" is supported)"));
  }
  return Expect(TokenKind::kRBracket, "]");
}

// After `def @name` or `fn`: `(%p: T, ..., Attr=v) -> R { body }`.
absl::StatusOr<Function> Parser::ParseFunctionRest(const Token& start) {
  RETURN_IF_ERROR(Expect(TokenKind::kLParen, "("));
  frames_.emplace_back();
  std::vector<Var> params;
  std::vector<std::pair<std::string, AttrValue>> attrs;
  if (Peek().kind != TokenKind::kRParen) {
    while (true) {
      if (Peek().kind == TokenKind::kLocal) {
        const Token& name = Next();
        if (!attrs.empty()) {
          return ErrorAt(name, "function parameters must come before function attributes");
        }
        if (frames_.back().count(name.value) != 0) {
          return ErrorAt(name, absl::StrCat("duplicate parameter '%", name.value, "'"));
        }
        std::optional<Type> annotation;
        if (Peek().kind == TokenKind::kColon) {
          Next();
          ASSIGN_OR_RETURN(annotation, ParseType());
        }
        Var var = VarNode::Make(name.value, std::move(annotation), Loc(name));
        frames_.back().emplace(name.value, var);
        params.push_back(std::move(var));
      } else if (Peek().kind == TokenKind::kIdent && Peek(1).kind == TokenKind::kEqual) {
        const Token& name = Next();
        Next();
        for (const auto& [key, value] : attrs) {
          if (key == name.value) {
            return ErrorAt(name, absl::StrCat("duplicate function attribute '", key, "'"));
          }
        }
        ASSIGN_OR_RETURN(AttrValue value, ParseAttrValue());
        attrs.emplace_back(name.value, std::move(value));
      } else {
        return Unexpected(Peek(), "a parameter or a function attribute");
      }
      if (Peek().kind != TokenKind::kComma) break;
      Next();
    }
  }
  RETURN_IF_ERROR(Expect(TokenKind::kRParen, ")"));
  std::optional<Type> ret;
  if (Peek().kind == TokenKind::kArrow) {
    Next();
    ASSIGN_OR_RETURN(ret, ParseType());
  }
  RETURN_IF_ERROR(Expect(TokenKind::kLBrace, "{"));
  ASSIGN_OR_RETURN(Expr body, ParseSeq());
  RETURN_IF_ERROR(Expect(TokenKind::kRBrace, "}"));
  frames_.pop_back();
  return FunctionNode::Make(std::move(params), std::move(body), std::move(ret), std::move(attrs),
                            Loc(start));
}

// Bindings and lets, then the result: `%0 = e; let %x = e; ...; result`. Iterative, so a long
// body costs no stack.
absl::StatusOr<Expr> Parser::ParseSeq() {
  struct LetStmt {
    SourceLoc loc;
    Var var;
    Expr value;
  };
  std::vector<LetStmt> lets;
  Expr result;
  while (true) {
    if (PeekIdent("let")) {
      const Token& let = Next();
      if (Peek().kind != TokenKind::kLocal) return Unexpected(Peek(), "a variable after 'let'");
      const Token& name = Next();
      RETURN_IF_ERROR(CheckUnbound(name));
      std::optional<Type> annotation;
      if (Peek().kind == TokenKind::kColon) {
        Next();
        ASSIGN_OR_RETURN(annotation, ParseType());
      }
      RETURN_IF_ERROR(Expect(TokenKind::kEqual, "="));
      ASSIGN_OR_RETURN(Expr value, ParseExpr());
      RETURN_IF_ERROR(Expect(TokenKind::kSemicolon, ";"));
      Var var = VarNode::Make(name.value, std::move(annotation), Loc(name));
      // Bound only now: the value cannot refer to its own variable.
      frames_.back().emplace(name.value, var);
      lets.push_back(LetStmt{Loc(let), std::move(var), std::move(value)});
      continue;
    }
    if (Peek().kind == TokenKind::kLocal && Peek(1).kind == TokenKind::kEqual) {
      const Token& name = Next();
      if (!IsNumberedName(name.value)) {
        return ErrorAt(name, absl::StrCat("a binding without 'let' must be numbered like "
                                          "'%0', found '%",
                                          name.value, "'"));
      }
      RETURN_IF_ERROR(CheckUnbound(name));
      Next();
      ASSIGN_OR_RETURN(Expr value, ParseExpr());
      RETURN_IF_ERROR(Expect(TokenKind::kSemicolon, ";"));
      frames_.back().emplace(name.value, std::move(value));
      continue;
    }
    ASSIGN_OR_RETURN(result, ParseExpr());
    break;
  }
  for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
    result = LetNode::Make(std::move(it->var), std::move(it->value), std::move(result), it->loc);
  }
  return result;
}

// A primary expression followed by calls `(...)` and projections `.N`.
absl::StatusOr<Expr> Parser::ParseExpr() {
  NestingGuard guard(this);
  const Token& start = Peek();
  RETURN_IF_ERROR(CheckNesting(start));
  ASSIGN_OR_RETURN(Expr expr, ParsePrimary());
  int chain = 0;
  while (Peek().kind == TokenKind::kLParen || Peek().kind == TokenKind::kDotIndex) {
    // A projection or call wraps the expression so far: it nests like a parenthesis.
    if (depth_ + ++chain > kMaxNesting) {
      return ErrorAt(Peek(),
                     absl::StrCat("nesting is too deep (more than ", kMaxNesting, " levels)"));
    }
    if (Peek().kind == TokenKind::kDotIndex) {
      const Token& index = Next();
      expr = TupleGetItemNode::Make(std::move(expr), static_cast<int>(index.int_value), Loc(start));
      continue;
    }
    Next();
    std::vector<Expr> args;
    std::vector<GivenAttr> attrs;
    RETURN_IF_ERROR(ParseArgs(/*op=*/nullptr, &args, &attrs));
    expr = CallNode::MakeFn(std::move(expr), std::move(args), Loc(start));
  }
  return expr;
}

absl::StatusOr<Expr> Parser::ParsePrimary() {
  const Token& token = Peek();
  switch (token.kind) {
    case TokenKind::kLocal: {
      Next();
      Expr expr = Lookup(token.value);
      if (expr == nullptr) {
        return ErrorAt(token, absl::StrCat("undefined variable '%", token.value, "'"));
      }
      return expr;
    }
    case TokenKind::kGlobal:
      Next();
      global_refs_.push_back(token);
      return GlobalVarNode::Make(token.value, Loc(token));
    case TokenKind::kInt:
    case TokenKind::kFloat:
      Next();
      return MakeConstant(token);
    case TokenKind::kLParen:
      return ParseParen();
    case TokenKind::kIdent:
      break;
    default:
      return Unexpected(token, "an expression");
  }
  if (token.value == "True" || token.value == "False") {
    Next();
    return ConstantNode::Make(Tensor::Scalar(DType::kBool, token.value == "True" ? 1 : 0),
                              Loc(token));
  }
  if (token.value == "fn") {
    Next();
    ASSIGN_OR_RETURN(Function fn, ParseFunctionRest(token));
    return Expr(std::move(fn));
  }
  if (token.value == "let") {
    return ErrorAt(token, "a let expression here must be in parentheses: (let %x = ...; ...)");
  }
  if (token.value == "meta") return ParseMetaReference();
  if (token.value == "None") return Unexpected(token, "an expression");
  return ParseOpCall();
}

// `meta[relay.Constant][N]`: the N-th tensor constant of the metadata section.
absl::StatusOr<Expr> Parser::ParseMetaReference() {
  const Token& meta = Next();
  if (kernel_) {
    return ErrorAt(meta, "a kernel cannot hold tensor constants: they are parameters");
  }
  RETURN_IF_ERROR(Expect(TokenKind::kLBracket, "["));
  if (Peek().kind != TokenKind::kIdent) return Unexpected(Peek(), "a metadata kind");
  const Token& kind = Next();
  if (kind.value != "relay.Constant") {
    return ErrorAt(kind, absl::StrCat("metadata of kind '", kind.value,
                                      "' is not supported (only relay.Constant is)"));
  }
  RETURN_IF_ERROR(Expect(TokenKind::kRBracket, "]"));
  RETURN_IF_ERROR(Expect(TokenKind::kLBracket, "["));
  if (Peek().kind != TokenKind::kInt || !Peek().suffix.empty()) {
    return Unexpected(Peek(), "a constant index");
  }
  const Token& index = Next();
  RETURN_IF_ERROR(Expect(TokenKind::kRBracket, "]"));
  if (metadata_ == nullptr) {
    return ErrorAt(meta,
                   "meta[relay.Constant][N] refers to a metadata section, but the text has none "
                   "(TVM printed it with show_meta_data=False): print it again with "
                   "mod.astext() (show_meta_data=True, the default) to keep the constants, or "
                   "make them parameters and pass their values with --params");
  }
  if (index.int_value < 0 || index.int_value >= static_cast<int64_t>(metadata_->size())) {
    return ErrorAt(index, absl::StrCat("the metadata section has ", metadata_->size(),
                                       " relay.Constant entries; there is no ", index.int_value));
  }
  Expr& node = meta_nodes_[index.int_value];
  if (node == nullptr) node = ConstantNode::Make((*metadata_)[index.int_value], Loc(meta));
  return node;
}

// `( ... )`: a block of bindings, the empty tuple, a parenthesised expression or a tuple.
absl::StatusOr<Expr> Parser::ParseParen() {
  const Token& open = Next();
  if (PeekIdent("let") || (Peek().kind == TokenKind::kLocal && Peek(1).kind == TokenKind::kEqual)) {
    frames_.emplace_back();
    ASSIGN_OR_RETURN(Expr expr, ParseSeq());
    frames_.pop_back();
    RETURN_IF_ERROR(Expect(TokenKind::kRParen, ")"));
    return expr;
  }
  if (Peek().kind == TokenKind::kRParen) {
    Next();
    return TupleNode::Make({}, Loc(open));
  }
  ASSIGN_OR_RETURN(Expr first, ParseExpr());
  if (Peek().kind == TokenKind::kRParen) {
    Next();
    return first;
  }
  if (Peek().kind != TokenKind::kComma) return Unexpected(Peek(), "',' or ')'");
  std::vector<Expr> fields = {std::move(first)};
  while (Peek().kind == TokenKind::kComma) {
    Next();
    if (Peek().kind == TokenKind::kRParen) break;  // `(%a,)` and a trailing comma.
    ASSIGN_OR_RETURN(Expr field, ParseExpr());
    fields.push_back(std::move(field));
  }
  RETURN_IF_ERROR(Expect(TokenKind::kRParen, ")"));
  return TupleNode::Make(std::move(fields), Loc(open));
}

absl::StatusOr<Expr> Parser::ParseOpCall() {
  const Token& name = Next();
  const OpDef* op = FindOp(name.value);
  if (op == nullptr) return ErrorAt(name, absl::StrCat("unknown operator '", name.value, "'"));
  if (Peek().kind != TokenKind::kLParen) {
    return Unexpected(Peek(), absl::StrCat("'(' after operator '", name.value, "'"));
  }
  Next();
  std::vector<Expr> args;
  std::vector<GivenAttr> given;
  RETURN_IF_ERROR(ParseArgs(op, &args, &given));
  ASSIGN_OR_RETURN(Attrs attrs, MakeCallAttrs(op, name, given));
  return CallNode::MakeOp(op, std::move(args), std::move(attrs), Loc(name));
}

// After the '(' of a call: positional arguments, then `name=value` attributes (operators only).
absl::Status Parser::ParseArgs(const OpDef* op, std::vector<Expr>* args,
                               std::vector<GivenAttr>* attrs) {
  if (Peek().kind == TokenKind::kRParen) {
    Next();
    return absl::OkStatus();
  }
  while (true) {
    if (Peek().kind == TokenKind::kIdent && Peek(1).kind == TokenKind::kEqual) {
      const Token& name = Next();
      if (op == nullptr) {
        return ErrorAt(
            name, absl::StrCat("only operator calls take attributes, found '", name.value, "='"));
      }
      Next();
      GivenAttr attr;
      attr.name = name;
      attr.value_token = Peek();
      ASSIGN_OR_RETURN(attr.value, ParseAttrValue());
      attrs->push_back(std::move(attr));
    } else {
      if (!attrs->empty()) {
        return ErrorAt(Peek(), "positional arguments must come before attributes");
      }
      ASSIGN_OR_RETURN(Expr arg, ParseExpr());
      args->push_back(std::move(arg));
    }
    if (Peek().kind != TokenKind::kComma) break;
    Next();
  }
  return Expect(TokenKind::kRParen, ")");
}

// Validates each attribute where it was written, then completes them with the defaults.
absl::StatusOr<Attrs> Parser::MakeCallAttrs(const OpDef* op, const Token& op_token,
                                            const std::vector<GivenAttr>& given) const {
  std::vector<std::pair<std::string, AttrValue>> values;
  for (size_t i = 0; i < given.size(); ++i) {
    const GivenAttr& attr = given[i];
    const AttrSpec* spec = nullptr;
    for (const AttrSpec& s : op->attrs) {
      if (s.name == attr.name.value) spec = &s;
    }
    if (spec == nullptr) {
      return ErrorAt(attr.name,
                     absl::StrCat(op->name, ": unknown attribute '", attr.name.value, "'"));
    }
    for (size_t j = 0; j < i; ++j) {
      if (given[j].name.value == attr.name.value) {
        return ErrorAt(attr.name, absl::StrCat(op->name, ": attribute '", attr.name.value,
                                               "' given more than once"));
      }
    }
    absl::StatusOr<AttrValue> coerced = CoerceAttr(*spec, attr.value);
    if (!coerced.ok()) {
      return ErrorAt(attr.value_token, absl::StrCat(op->name, ": ", coerced.status().message()));
    }
    AttrValue value = *std::move(coerced);
    // `epsilon=1e-05f` reads as a float32 while the schema holds the default as the double
    // 1e-05: a literal that denotes the default is the default, so that printing (which omits
    // defaults) and parsing again gives back equal attributes.
    if (value.kind() == AttrKind::kFloat && spec->default_value.kind() == AttrKind::kFloat &&
        RoundToFloat32(value.AsFloat()) == RoundToFloat32(spec->default_value.AsFloat())) {
      value = spec->default_value;
    }
    values.emplace_back(attr.name.value, std::move(value));
  }
  absl::StatusOr<Attrs> attrs = Attrs::Make(op->name, op->attrs, std::move(values));
  if (!attrs.ok()) return ErrorAt(op_token, std::string(attrs.status().message()));
  return attrs;
}

// Scalar literals: `3` (int32, or int64 when it does not fit, as in TVM), `3i64`, `1f`, `1f16`.
absl::StatusOr<Expr> Parser::MakeConstant(const Token& token) const {
  if (token.kind == TokenKind::kFloat) {
    const DType dtype = token.suffix == "f16" ? DType::kFloat16 : DType::kFloat32;
    return ConstantNode::Make(Tensor::Scalar(dtype, RoundLiteral(token)), Loc(token));
  }
  const int64_t v = token.int_value;
  const bool fits32 =
      v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
  if (token.suffix == "i32" && !fits32) {
    return ErrorAt(token, absl::StrCat("integer literal '", token.text, "' does not fit int32"));
  }
  if (token.suffix == "i64" || !fits32) {
    Tensor t(Shape{}, DType::kInt64);
    t.data<int64_t>()[0] = v;
    return ConstantNode::Make(std::move(t), Loc(token));
  }
  Tensor t(Shape{}, DType::kInt32);
  t.data<int32_t>()[0] = static_cast<int32_t>(v);
  return ConstantNode::Make(std::move(t), Loc(token));
}

absl::StatusOr<Type> Parser::ParseType() {
  NestingGuard guard(this);
  const Token& token = Peek();
  RETURN_IF_ERROR(CheckNesting(token));
  if (token.kind == TokenKind::kLParen) {
    Next();
    if (Peek().kind == TokenKind::kRParen) {
      Next();
      return Type::Tuple({});
    }
    ASSIGN_OR_RETURN(Type first, ParseType());
    if (Peek().kind == TokenKind::kRParen) {
      Next();
      return first;
    }
    if (Peek().kind != TokenKind::kComma) return Unexpected(Peek(), "',' or ')'");
    std::vector<Type> fields = {std::move(first)};
    while (Peek().kind == TokenKind::kComma) {
      Next();
      if (Peek().kind == TokenKind::kRParen) break;
      ASSIGN_OR_RETURN(Type field, ParseType());
      fields.push_back(std::move(field));
    }
    RETURN_IF_ERROR(Expect(TokenKind::kRParen, ")"));
    return Type::Tuple(std::move(fields));
  }
  if (token.kind != TokenKind::kIdent) return Unexpected(token, "a type");
  if (token.value == "Tensor") {
    Next();
    RETURN_IF_ERROR(Expect(TokenKind::kLBracket, "["));
    ASSIGN_OR_RETURN(Dims dims, ParseShape());
    RETURN_IF_ERROR(Expect(TokenKind::kComma, ","));
    ASSIGN_OR_RETURN(DType dtype, ParseDTypeName());
    RETURN_IF_ERROR(Expect(TokenKind::kRBracket, "]"));
    Type type = Type::SymbolicTensor(dims, dtype);
    absl::Status size = CheckTensorSizes(type);
    if (!size.ok()) return ErrorAt(token, std::string(size.message()));
    return type;
  }
  if (token.value == "fn") {
    Next();
    RETURN_IF_ERROR(Expect(TokenKind::kLParen, "("));
    std::vector<Type> params;
    if (Peek().kind != TokenKind::kRParen) {
      while (true) {
        ASSIGN_OR_RETURN(Type param, ParseType());
        params.push_back(std::move(param));
        if (Peek().kind != TokenKind::kComma) break;
        Next();
      }
    }
    RETURN_IF_ERROR(Expect(TokenKind::kRParen, ")"));
    RETURN_IF_ERROR(Expect(TokenKind::kArrow, "->"));
    ASSIGN_OR_RETURN(Type ret, ParseType());
    return Type::Func(std::move(params), std::move(ret));
  }
  if (!LooksLikeDType(token.value)) return Unexpected(token, "a type");
  // A bare dtype is a scalar tensor, as TVM prints `float32` for Tensor[(), float32].
  ASSIGN_OR_RETURN(DType dtype, ParseDTypeName());
  return Type::Tensor({}, dtype);
}

// `(1, 3, 224, 224)`, `()`, `(5)`, `(5,)`; with symbolic dims `(N[1:16], 3, H/2 + 1)`.
absl::StatusOr<Dims> Parser::ParseShape() {
  RETURN_IF_ERROR(Expect(TokenKind::kLParen, "("));
  Dims dims;
  while (Peek().kind != TokenKind::kRParen) {
    const Token& first = Peek();
    if (first.kind == TokenKind::kInt && first.int_value < 0) {
      return ErrorAt(first, absl::StrCat("negative dimension ", first.int_value));
    }
    ASSIGN_OR_RETURN(Dim dim, ParseDimSum());
    if (dim.overflowed()) return ErrorAt(first, "the dimension overflows int64");
    if (dim.is_const() ? dim.value() < 0 : dim.Min() < 0) {
      return ErrorAt(first, absl::StrCat("the dimension ", dim.ToString(), " may be negative"));
    }
    dims.push_back(std::move(dim));
    if (Peek().kind != TokenKind::kComma) break;
    Next();
  }
  RETURN_IF_ERROR(Expect(TokenKind::kRParen, ")"));
  return dims;
}

// sum := product (('+' | '-') product)*; a negative number after a term subtracts (`H-1`).
absl::StatusOr<Dim> Parser::ParseDimSum() {
  ASSIGN_OR_RETURN(Dim sum, ParseDimProduct());
  while (true) {
    const TokenKind kind = Peek().kind;
    if (kind == TokenKind::kPlus || kind == TokenKind::kMinus) {
      Next();
      ASSIGN_OR_RETURN(Dim term, ParseDimProduct());
      sum = kind == TokenKind::kPlus ? sum + term : sum - term;
    } else if (kind == TokenKind::kInt && Peek().int_value < 0) {
      ASSIGN_OR_RETURN(Dim term, ParseDimProduct());
      sum = sum + term;
    } else {
      return sum;
    }
  }
}

// product := atom ('*' atom | '/' INT)*, each division exact for every admissible size.
absl::StatusOr<Dim> Parser::ParseDimProduct() {
  ASSIGN_OR_RETURN(Dim product, ParseDimAtom());
  while (Peek().kind == TokenKind::kStar || Peek().kind == TokenKind::kSlash) {
    const bool divide = Next().kind == TokenKind::kSlash;
    if (!divide) {
      ASSIGN_OR_RETURN(Dim factor, ParseDimAtom());
      product = product * factor;
      continue;
    }
    const Token& divisor = Peek();
    if (divisor.kind != TokenKind::kInt || divisor.int_value < 1) {
      return Unexpected(divisor, "a positive divisor");
    }
    Next();
    absl::StatusOr<Dim> q = product.DivExact(Dim::Const(divisor.int_value));
    if (!q.ok()) return ErrorAt(divisor, std::string(q.status().message()));
    product = *std::move(q);
  }
  return product;
}

// atom := INT | '?' | 'Any' | NAME ['[' LO ':' [HI] [':' STEP] ']'] | '(' sum ')'.
absl::StatusOr<Dim> Parser::ParseDimAtom() {
  NestingGuard guard(this);
  const Token& token = Peek();
  RETURN_IF_ERROR(CheckNesting(token));
  if (token.kind == TokenKind::kInt) {
    Next();
    return Dim::Const(token.int_value);
  }
  if (token.kind == TokenKind::kLParen) {
    Next();
    ASSIGN_OR_RETURN(Dim inner, ParseDimSum());
    RETURN_IF_ERROR(Expect(TokenKind::kRParen, ")"));
    return inner;
  }
  const bool any = token.kind == TokenKind::kQuestion || PeekIdent("Any");
  if (!any && token.kind != TokenKind::kIdent) return Unexpected(token, "a dimension");
  if (!options_.symbolic_dims) {
    return ErrorAt(token, absl::StrCat("symbolic dimension ", DescribeToken(token),
                                       ": only `relayc check`, `fmt` and `interpret` read "
                                       "symbolic dimensions so far; this command needs static "
                                       "shapes"));
  }
  Next();
  if (any) {
    DimVar var{absl::StrCat("?", anonymous_dims_++)};
    return Dim::Var(var);
  }
  DimVar var{token.value};
  const bool bounded = Peek().kind == TokenKind::kLBracket;
  if (bounded) {
    Next();
    auto bound = [&](int64_t* out) -> absl::Status {
      if (Peek().kind != TokenKind::kInt) return Unexpected(Peek(), "a bound");
      *out = Next().int_value;
      return absl::OkStatus();
    };
    RETURN_IF_ERROR(bound(&var.lo));
    RETURN_IF_ERROR(Expect(TokenKind::kColon, ":"));
    if (Peek().kind == TokenKind::kInt) RETURN_IF_ERROR(bound(&var.hi));
    if (Peek().kind == TokenKind::kColon) {
      Next();
      RETURN_IF_ERROR(bound(&var.step));
    }
    RETURN_IF_ERROR(Expect(TokenKind::kRBracket, "]"));
    absl::StatusOr<DimVar> made = MakeDimVar(var.name, var.lo, var.hi, var.step);
    if (!made.ok()) return ErrorAt(token, std::string(made.status().message()));
    var = *std::move(made);
  }
  auto [it, inserted] = dim_vars_.emplace(var.name, var);
  if (!inserted && bounded && it->second != var) {
    return ErrorAt(token,
                   absl::StrCat("dimension '", var.name, "' was first given the bounds ",
                                DimBoundsToString(it->second), ", here ", DimBoundsToString(var)));
  }
  return Dim::Var(it->second);
}

absl::StatusOr<DType> Parser::ParseDTypeName() {
  const Token& token = Peek();
  if (token.kind != TokenKind::kIdent) return Unexpected(token, "a dtype");
  std::optional<DType> dtype = ParseDType(token.value);
  if (!dtype.has_value()) return ErrorAt(token, absl::StrCat("unknown dtype '", token.value, "'"));
  Next();
  return *dtype;
}

// Numbers, True/False, None, strings, and lists of numbers. Nested lists are flattened
// (nn.pad's pad_width=[[0, 0], [1, 1]]); a list holding any float is a float list.
absl::StatusOr<AttrValue> Parser::ParseAttrValue() {
  NestingGuard guard(this);
  const Token& token = Peek();
  RETURN_IF_ERROR(CheckNesting(token));
  switch (token.kind) {
    case TokenKind::kInt:
      Next();
      return AttrValue::Int(token.int_value);
    case TokenKind::kFloat:
      Next();
      return AttrValue::Float(RoundLiteral(token));
    case TokenKind::kString:
      Next();
      return AttrValue::String(token.value);
    case TokenKind::kLBracket:
      break;
    case TokenKind::kIdent:
      if (token.value == "True" || token.value == "False") {
        Next();
        return AttrValue::Bool(token.value == "True");
      }
      if (token.value == "None") {
        Next();
        return AttrValue();
      }
      if (token.value == "meta") return ErrorAt(token, kMetaAttrMessage);
      return Unexpected(token, "an attribute value");
    default:
      return Unexpected(token, "an attribute value");
  }
  Next();
  std::vector<int64_t> ints;
  std::vector<double> floats;
  bool any_float = false;
  while (Peek().kind != TokenKind::kRBracket) {
    const Token& element_token = Peek();
    ASSIGN_OR_RETURN(AttrValue element, ParseAttrValue());
    switch (element.kind()) {
      case AttrKind::kInt:
        ints.push_back(element.AsInt());
        floats.push_back(static_cast<double>(element.AsInt()));
        break;
      case AttrKind::kFloat:
        any_float = true;
        floats.push_back(element.AsFloat());
        break;
      case AttrKind::kInts:
        for (int64_t v : element.AsInts()) {
          ints.push_back(v);
          floats.push_back(static_cast<double>(v));
        }
        break;
      case AttrKind::kFloats:
        any_float = true;
        for (double v : element.AsFloats()) floats.push_back(v);
        break;
      default:
        return ErrorAt(element_token, absl::StrCat("attribute lists may only hold numbers, found ",
                                                   DescribeToken(element_token)));
    }
    if (Peek().kind != TokenKind::kComma) break;
    Next();
  }
  RETURN_IF_ERROR(Expect(TokenKind::kRBracket, "]"));
  if (any_float) return AttrValue::Floats(std::move(floats));
  return AttrValue::Ints(std::move(ints));
}

}  // namespace

absl::StatusOr<Module> ParseModule(const std::string& text, const std::string& source_name,
                                   const ParseOptions& options) {
  const size_t section = FindMetadataSection(text);
  if (section == std::string::npos) return Parser(text, source_name, nullptr, options).Run();
  ASSIGN_OR_RETURN(std::vector<Tensor> constants, ParseMetadataSection(text, section, source_name));
  // The module is the text before the section, so positions stay those of the file.
  return Parser(text.substr(0, section), source_name, &constants, options).Run();
}

absl::StatusOr<Function> ParseKernel(const std::string& text, const std::string& source_name) {
  // A dynamic kernel's text carries its symbolic dims and their bounds (DESIGN.md).
  ParseOptions options;
  options.symbolic_dims = true;
  return Parser(text, source_name, nullptr, options).RunKernel();
}

}  // namespace relay::ir
