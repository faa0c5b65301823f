#include "lowering/graph/graph_json.h"

#include <map>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lowering/graph/validate.h"
#include "lowering/io/dims_json.h"
#include "lowering/ir/type.h"
#include "lowering/target/target.h"
#include "nlohmann/json.hpp"

namespace relay::graph {
namespace {

using json = nlohmann::json;

const char* KindName(Buffer::Kind kind) {
  switch (kind) {
    case Buffer::Kind::kInput:
      return "input";
    case Buffer::Kind::kParam:
      return "param";
    case Buffer::Kind::kTemp:
      return "temp";
  }
  return "?";
}

}  // namespace

std::vector<std::string> KernelIds(const Graph& graph) {
  std::vector<std::string> ids;
  std::set<std::string> seen;
  for (const KernelCall& c : graph.calls) {
    if (seen.insert(c.kernel).second) ids.push_back(c.kernel);
  }
  return ids;
}

std::string GraphToJson(const Graph& graph, const std::vector<KernelSummary>& kernels) {
  json buffers = json::array();
  json dims = json::object();
  for (const Buffer& b : graph.buffers) {
    json jb = {{"id", b.id},
               {"kind", KindName(b.kind)},
               {"shape", b.shape},
               {"dtype", ir::DTypeName(b.dtype)}};
    if (!b.name.empty()) jb["name"] = b.name;
    if (!b.dims.empty()) jb["dims"] = io::DimsToJson(b.dims, &dims);
    buffers.push_back(std::move(jb));
  }
  json calls = json::array();
  for (const KernelCall& c : graph.calls) {
    calls.push_back({{"kernel", c.kernel}, {"args", c.args}, {"outputs", c.outputs}});
  }
  json jkernels = json::object();
  for (const KernelSummary& k : kernels) {
    jkernels[k.id] = {{"ops", absl::StrJoin(k.ops, "+")}, {"flops", k.flops}};
  }
  json doc = {{"format", "rules_relay.graph"},  {"version", kGraphFormatVersion},
              {"inputs", graph.inputs},         {"outputs", graph.outputs},
              {"buffers", std::move(buffers)},  {"calls", std::move(calls)},
              {"kernels", std::move(jkernels)}, {"dims", std::move(dims)}};
  return doc.dump(2) + "\n";
}

absl::StatusOr<Graph> GraphFromJson(const std::string& text, const std::string& source_name) {
  auto fail = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(source_name, ": error: ", what));
  };
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return fail("not a JSON object");
  // Every value is type-checked before it is read: nlohmann's get<>() and value() throw on a
  // wrong type, and an exception here would abort relayc. Integers are read as int64_t and
  // range-checked, never narrowed first (2^32 + 1 read as an int would pass for buffer 1).
  if (!doc.contains("format") || !doc["format"].is_string() ||
      doc["format"].get<std::string>() != "rules_relay.graph") {
    return fail("not a rules_relay graph");
  }
  // Version 1 is version 2 without symbolic dims and node kinds: still read.
  if (!doc.contains("version") || !doc["version"].is_number_integer() ||
      doc["version"].get<int64_t>() < 1 || doc["version"].get<int64_t>() > kGraphFormatVersion) {
    return fail(absl::StrCat("unsupported graph version (this relayc reads versions 1 to ",
                             kGraphFormatVersion, ")"));
  }
  ir::DimVars vars;
  if (doc.contains("dims")) {
    absl::StatusOr<ir::DimVars> declared = io::DimVarsFromJson(doc["dims"]);
    if (!declared.ok()) return fail(std::string(declared.status().message()));
    vars = *std::move(declared);
  }
  for (const char* key : {"inputs", "outputs", "buffers", "calls"}) {
    if (!doc.contains(key) || !doc[key].is_array()) {
      return fail(absl::StrCat("missing array '", key, "'"));
    }
  }
  Graph g;
  for (const json& jb : doc["buffers"]) {
    if (!jb.is_object() || !jb.contains("id") || !jb["id"].is_number_integer() ||
        !jb.contains("shape") || !jb["shape"].is_array() || !jb.contains("dtype") ||
        !jb["dtype"].is_string() || !jb.contains("kind") || !jb["kind"].is_string()) {
      return fail(absl::StrCat("malformed buffer #", g.buffers.size()));
    }
    Buffer b;
    if (jb["id"].get<int64_t>() != static_cast<int64_t>(g.buffers.size())) {
      return fail(absl::StrCat("buffer ids must be 0, 1, ...; found ", jb["id"].dump()));
    }
    b.id = static_cast<int>(g.buffers.size());
    const std::string kind = jb["kind"].get<std::string>();
    if (kind == "input") {
      b.kind = Buffer::Kind::kInput;
    } else if (kind == "param") {
      b.kind = Buffer::Kind::kParam;
    } else if (kind == "temp") {
      b.kind = Buffer::Kind::kTemp;
    } else {
      return fail(absl::StrCat("buffer ", b.id, ": unknown kind '", kind, "'"));
    }
    for (const json& d : jb["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) {
        return fail(absl::StrCat("buffer ", b.id, ": bad shape"));
      }
      b.shape.push_back(d.get<int64_t>());
    }
    std::optional<ir::DType> dtype = ir::ParseDType(jb["dtype"].get<std::string>());
    if (!dtype) return fail(absl::StrCat("buffer ", b.id, ": unknown dtype"));
    b.dtype = *dtype;
    if (jb.contains("dims")) {
      absl::StatusOr<ir::Dims> dims = io::DimsFromJson(jb["dims"], vars);
      if (!dims.ok()) return fail(absl::StrCat("buffer ", b.id, ": ", dims.status().message()));
      b.dims = *std::move(dims);
      // The shape is the dims at their bounds, what memory is planned at.
      if (b.type().max_shape() != b.shape) {
        return fail(absl::StrCat("buffer ", b.id, ": shape ", ir::ShapeToString(b.shape),
                                 " is not its dims ", ir::DimsToString(b.dims, true),
                                 " at their upper bounds"));
      }
      if (b.type().is_static()) b.dims.clear();
    }
    if (absl::Status sizes = ir::CheckTensorSizes(b.type()); !sizes.ok()) {
      return fail(absl::StrCat("buffer ", b.id, ": ", sizes.message()));
    }
    if (jb.contains("name") && jb["name"].is_string()) b.name = jb["name"].get<std::string>();
    if (b.kind != Buffer::Kind::kTemp && b.name.empty()) {
      return fail(absl::StrCat("buffer ", b.id, ": ", kind, " without a name"));
    }
    g.buffers.push_back(std::move(b));
  }
  const int n = static_cast<int>(g.buffers.size());
  auto ids = [&](const json& arr, std::vector<int>* out) -> bool {
    if (!arr.is_array()) return false;
    for (const json& v : arr) {
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= n) return false;
      out->push_back(static_cast<int>(v.get<int64_t>()));
    }
    return true;
  };
  if (!ids(doc["inputs"], &g.inputs)) return fail("bad 'inputs'");
  for (const json& jc : doc["calls"]) {
    KernelCall c;
    if (!jc.is_object()) return fail(absl::StrCat("malformed call #", g.calls.size()));
    // Version 2 defines the control-flow nodes (docs/graph-format.md); they run once the
    // executor runs them.
    if (jc.contains("op") && !(jc["op"].is_string() && jc["op"].get<std::string>() == "kernel")) {
      const std::string op = jc["op"].is_string() ? jc["op"].get<std::string>() : jc["op"].dump();
      if (op == "if" || op == "loop") {
        return fail(absl::StrCat("call #", g.calls.size(), " is an '", op,
                                 "' node: graph format 2 defines it, but this relayc does not run "
                                 "control flow yet"));
      }
      return fail(absl::StrCat("call #", g.calls.size(), ": unknown op '", op, "'"));
    }
    if (!jc.contains("kernel") || !jc["kernel"].is_string()) {
      return fail(absl::StrCat("malformed call #", g.calls.size()));
    }
    c.kernel = jc["kernel"].get<std::string>();
    if (!IsKernelId(c.kernel)) return fail(absl::StrCat("bad kernel id '", c.kernel, "'"));
    if (!jc.contains("args") || !ids(jc["args"], &c.args) || !jc.contains("outputs") ||
        !ids(jc["outputs"], &c.outputs) || c.outputs.empty()) {
      return fail(absl::StrCat("call #", g.calls.size(), " (", c.kernel, "): bad buffer ids"));
    }
    g.calls.push_back(std::move(c));
  }
  if (!ids(doc["outputs"], &g.outputs) || g.outputs.empty()) {
    return fail("bad 'outputs'");
  }
  if (absl::Status valid = ValidateGraph(g, absl::StrCat(source_name, ": error")); !valid.ok()) {
    return valid;
  }
  return g;
}

absl::StatusOr<std::map<std::string, KernelSummary>> KernelSummariesFromJson(
    const std::string& text, const std::string& source_name) {
  auto fail = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(source_name, ": error: ", what));
  };
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return fail("not a JSON object");
  std::map<std::string, KernelSummary> summaries;
  auto it = doc.find("kernels");
  if (it == doc.end()) return summaries;
  if (!it->is_object()) return fail("'kernels' is not an object");
  for (const auto& [id, entry] : it->items()) {
    if (!entry.is_object() || !entry.contains("ops") || !entry["ops"].is_string() ||
        !entry.contains("flops") || !entry["flops"].is_number_integer()) {
      return fail(absl::StrCat("kernel ", id, ": malformed summary (want ops and flops)"));
    }
    KernelSummary k;
    k.id = id;
    k.ops = absl::StrSplit(entry["ops"].get<std::string>(), '+', absl::SkipEmpty());
    k.flops = entry["flops"].get<int64_t>();
    summaries.emplace(id, std::move(k));
  }
  return summaries;
}

}  // namespace relay::graph
