#include "lowering/assemble/kernel_meta.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lowering/io/dims_json.h"
#include "lowering/io/file.h"
#include "lowering/support/status_macros.h"
#include "nlohmann/json.hpp"

namespace relay::assemble {

using json = nlohmann::json;

int KernelMeta::num_inputs() const {
  int n = 0;
  for (const KernelArg& a : args) n += a.kind == KernelArg::Kind::kInput ? 1 : 0;
  return n;
}

int KernelMeta::num_outputs() const { return static_cast<int>(args.size()) - num_inputs(); }

bool IsCIdentifier(const std::string& s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!alpha && !(digit && i > 0)) return false;
  }
  return true;
}

namespace {

absl::StatusOr<KernelMeta> FromJson(const json& doc, const std::string& prefix) {
  auto fail = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(prefix, what));
  };
  if (!doc.is_object()) return fail("not a JSON object");
  KernelMeta meta;
  if (doc.contains("kernel")) {
    if (!doc["kernel"].is_string()) return fail("'kernel' is not a string");
    meta.kernel = doc["kernel"].get<std::string>();
  }
  if (doc.contains("target")) {
    if (!doc["target"].is_string()) return fail("'target' is not a string");
    meta.target = doc["target"].get<std::string>();
  }
  if (!doc.contains("symbol") || !doc["symbol"].is_string()) {
    return fail("missing string 'symbol'");
  }
  meta.symbol = doc["symbol"].get<std::string>();
  if (!IsCIdentifier(meta.symbol)) {
    return fail(absl::StrCat("symbol '", meta.symbol, "' is not a C identifier"));
  }
  if (!doc.contains("args") || !doc["args"].is_array()) return fail("missing array 'args'");
  ir::DimVars vars;
  if (doc.contains("dims")) {
    absl::StatusOr<ir::DimVars> declared = io::DimVarsFromJson(doc["dims"]);
    if (!declared.ok()) return fail(std::string(declared.status().message()));
    vars = *std::move(declared);
  }
  if (doc.contains("dim_args")) {
    if (!doc["dim_args"].is_array()) return fail("'dim_args' is not an array");
    for (const json& d : doc["dim_args"]) {
      if (!d.is_string() || vars.count(d.get<std::string>()) == 0) {
        return fail(absl::StrCat("dim_args: ", d.dump(), " is not a declared dim"));
      }
      meta.dim_args.push_back(d.get<std::string>());
    }
  }
  for (const json& ja : doc["args"]) {
    const std::string where = absl::StrCat("argument ", meta.args.size());
    if (!ja.is_object()) return fail(absl::StrCat(where, " is not an object"));
    KernelArg arg;
    if (!ja.contains("shape") || !ja["shape"].is_array()) {
      return fail(absl::StrCat(where, ": missing array 'shape'"));
    }
    for (const json& d : ja["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) {
        return fail(absl::StrCat(where, ": shape must hold non-negative integers"));
      }
      arg.shape.push_back(d.get<int64_t>());
    }
    if (ja.contains("dims")) {
      absl::StatusOr<ir::Dims> dims = io::DimsFromJson(ja["dims"], vars);
      if (!dims.ok()) return fail(absl::StrCat(where, ": ", dims.status().message()));
      arg.dims = *std::move(dims);
      ir::Shape bounds;
      for (const ir::Dim& d : arg.dims) bounds.push_back(d.Max());
      if (bounds != arg.shape) {
        return fail(absl::StrCat(where, ": shape ", ir::ShapeToString(arg.shape),
                                 " is not its dims at their upper bounds"));
      }
    }
    if (!ja.contains("dtype") || !ja["dtype"].is_string()) {
      return fail(absl::StrCat(where, ": missing string 'dtype'"));
    }
    const std::string dtype = ja["dtype"].get<std::string>();
    std::optional<ir::DType> parsed = ir::ParseDType(dtype);
    if (!parsed) return fail(absl::StrCat(where, ": unknown dtype '", dtype, "'"));
    arg.dtype = *parsed;
    const std::string kind = ja.contains("kind") && ja["kind"].is_string()
                                 ? ja["kind"].get<std::string>()
                                 : std::string();
    if (kind == "input") {
      arg.kind = KernelArg::Kind::kInput;
    } else if (kind == "output") {
      arg.kind = KernelArg::Kind::kOutput;
    } else {
      return fail(absl::StrCat(where, ": 'kind' must be \"input\" or \"output\""));
    }
    if (arg.kind == KernelArg::Kind::kInput && !meta.args.empty() &&
        meta.args.back().kind == KernelArg::Kind::kOutput) {
      return fail(absl::StrCat(where, ": an input after an output (inputs come first)"));
    }
    meta.args.push_back(std::move(arg));
  }
  if (meta.num_outputs() == 0) return fail("the kernel has no output argument");
  return meta;
}

}  // namespace

absl::StatusOr<KernelMeta> ParseKernelMeta(const std::string& text,
                                           const std::string& source_name) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(source_name, ": error: not a JSON object"));
  }
  return FromJson(doc, absl::StrCat(source_name, ": error: "));
}

absl::StatusOr<std::vector<KernelMeta>> ParseKernelMetaFile(const std::string& text,
                                                            const std::string& source_name) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !(doc.is_object() || doc.is_array())) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": error: not a JSON object or array"));
  }
  std::vector<KernelMeta> metas;
  if (doc.is_object()) {
    ASSIGN_OR_RETURN(KernelMeta meta, FromJson(doc, absl::StrCat(source_name, ": error: ")));
    metas.push_back(std::move(meta));
    return metas;
  }
  for (const json& element : doc) {
    ASSIGN_OR_RETURN(
        KernelMeta meta,
        FromJson(element, absl::StrCat(source_name, ": error: kernel #", metas.size(), ": ")));
    metas.push_back(std::move(meta));
  }
  return metas;
}

absl::StatusOr<std::vector<KernelMeta>> ReadKernelMetaFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, io::ReadFile(path));
  return ParseKernelMetaFile(text, path);
}

std::string KernelMetaToJson(const KernelMeta& meta) {
  json args = json::array();
  json dims = json::object();
  for (const KernelArg& a : meta.args) {
    json arg = {{"shape", a.shape},
                {"dtype", ir::DTypeName(a.dtype)},
                {"kind", a.kind == KernelArg::Kind::kInput ? "input" : "output"}};
    if (!a.dims.empty()) arg["dims"] = io::DimsToJson(a.dims, &dims);
    args.push_back(std::move(arg));
  }
  json doc = {{"symbol", meta.symbol}, {"args", std::move(args)}};
  if (!meta.dim_args.empty()) {
    doc["dims"] = std::move(dims);
    doc["dim_args"] = meta.dim_args;
  }
  if (!meta.kernel.empty()) doc["kernel"] = meta.kernel;
  if (!meta.target.empty()) doc["target"] = meta.target;
  return doc.dump(2) + "\n";
}

}  // namespace relay::assemble
