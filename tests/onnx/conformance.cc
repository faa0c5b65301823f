// Runs ONNX's own backend test suite (Debian's libonnx-testdata) through the importer and the
// reference interpreter, and compares every output with the suite's expected values.
//
//   bazel run //tests/onnx:conformance [-- --suite_dir=DIR --report=FILE --filter=SUBSTRING]
//                                      [--compiled [--schedule=S] [--target=T]] [--dynamic]
//
// With --compiled, every case that passes interpreted is also partitioned (PartitionModel),
// each kernel compiled (CompileKernelText, the code `relayc compile` runs) with each schedule
// (default and naive, or the one --schedule names), run in process (jit::JitModel, what
// `relayc run` runs), and compared with the expected outputs under the same tolerances. A case
// that passes interpreted but not compiled is failed, its detail naming the schedule.
//
// With --dynamic (docs/dynamic-shapes.md), every case that passes interpreted is imported again
// as an exporter with an open batch writes it: each input whose leading dim equals the first
// input's made "N" (bounds 1..2n), the model's inferred shapes dropped. It is partitioned,
// compiled once (default schedule, --target) and run at the case's shapes. A wrong result fails
// the case; a refusal by a step (an op without symbolic relations, a kernel that mixes rows of
// the batch) is listed, "dynamic refused CASE: why", and counted in "dynamic (...): P passed,
// R refused, W wrong".
//
// Each case directory holds model.onnx and test_data_set_N/{input_K.pb, output_K.pb}. A case
// is imported with the shapes of its first data set's inputs, then run on every data set.
// Outcomes:
//   passed       every output of every data set matches: |got - want| <= atol + rtol * |want|
//                (NaN matches NaN; integers and bools exactly), same dtype and shape;
//   unsupported  the importer says Unimplemented (an op, dtype or attribute value we do not
//                convert), the model's inputs/outputs are not tensors, or the case is listed
//                in exclusions.txt (semantics we deliberately do not follow);
//   failed       anything else: an import error, an interpreter error, a wrong value, or
//                printed Relay text that does not parse back to the same text.
// Models that take a shape-like argument (Reshape's shape, ...) as a graph input are imported
// with their integer inputs fixed to the data set's values (ImportOptions::input_values), as
// TVM's freeze_params does: every shape is static in Relay.
//
// Prints per-folder counts and, last, exactly "conformance: N passed, M failed, K unsupported";
// writes one line per case (case, ops, outcome, max error, detail) to the report file. Exits 1
// if any case failed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lowering/frontend/onnx/importer.h"
#include "lowering/frontend/onnx/tensor_proto.h"
#include "lowering/interp/interpreter.h"
#include "lowering/io/file.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"
#include "lowering/jit/jit_model.h"
#include "lowering/passes/model.h"
#include "lowering/pipeline.h"
#include "onnx/onnx_pb.h"

ABSL_FLAG(std::string, suite_dir, "/usr/share/libonnx-testdata/data",
          "the backend test data: a folder with node/, pytorch-converted/, pytorch-operator/ "
          "and simple/");
ABSL_FLAG(std::string, report, "",
          "where to write the per-case report (default: $TEST_UNDECLARED_OUTPUTS_DIR or "
          "$BUILD_WORKSPACE_DIRECTORY/bazel-bin/tests/onnx, conformance_report.tsv)");
ABSL_FLAG(std::string, exclusions, "tests/onnx/exclusions.txt",
          "cases we deliberately do not follow: one 'case reason...' per line (empty: none)");
ABSL_FLAG(std::string, filter, "", "only run cases whose folder/name contains this");
ABSL_FLAG(bool, verbose, false, "print every case's outcome, not only failures");
ABSL_FLAG(bool, compiled, false,
          "also partition, compile and run (in process) every case that passes interpreted");
ABSL_FLAG(std::string, schedule, "",
          "--compiled: the schedule to compile with (naive or default; empty: both)");
ABSL_FLAG(std::string, target, "x86-64", "--compiled: the target to compile for");
ABSL_FLAG(bool, dynamic, false,
          "also import every case that passes interpreted with its leading dim symbolic, compile "
          "it once (default schedule) and run it at the case's shapes");

namespace relay {
namespace {

namespace fs = std::filesystem;
using frontend::onnx::ImportedModel;
using frontend::onnx::ImportOptions;

constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-5;

// Per-case tolerances, each with the reason it differs from the default: {name, rtol, atol,
// reason}. None is needed today; an override without a reason does not belong here.
struct Tolerance {
  const char* name;
  double rtol;
  double atol;
  const char* reason;
};
const std::vector<Tolerance>& Tolerances() {
  static const auto* tolerances = new std::vector<Tolerance>{};
  return *tolerances;
}

enum class Outcome { kPassed, kFailed, kUnsupported };

struct CaseResult {
  std::string name;  // folder/case
  std::string ops;
  Outcome outcome = Outcome::kFailed;
  double max_error = 0;
  std::string detail;
  int types_confirmed_by_onnx = 0;  // of the last data set's import
  // --dynamic: "passed", or why the symbolic import, partition or compile refused the case
  // ("refused: ..."); "" when not run. A wrong result fails the case instead.
  std::string dynamic;
};

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kPassed:
      return "passed";
    case Outcome::kFailed:
      return "failed";
    case Outcome::kUnsupported:
      return "unsupported";
  }
  return "?";
}

std::string OneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\t', ' ');
  return s;
}

absl::StatusOr<onnx::TensorProto> ReadTensorProto(const fs::path& path) {
  absl::StatusOr<std::string> bytes = io::ReadFile(path.string());
  if (!bytes.ok()) return bytes.status();
  onnx::TensorProto proto;
  if (!proto.ParseFromString(*bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(path.string(), ": not a TensorProto"));
  }
  return proto;
}

// input_K.pb / output_K.pb of a data set, in K order.
std::vector<fs::path> NumberedFiles(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  for (int k = 0;; ++k) {
    fs::path p = dir / absl::StrCat(prefix, k, ".pb");
    if (!fs::exists(p)) break;
    out.push_back(p);
  }
  return out;
}

std::map<std::string, std::string> ReadExclusions(const std::string& path) {
  std::map<std::string, std::string> out;
  std::map<std::string, std::string> none;
  if (path.empty()) return none;
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "conformance: cannot read the exclusions file %s\n", path.c_str());
    std::exit(2);
  }
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find_first_of(" \t");
    const std::string name = line.substr(0, space);
    std::string reason = space == std::string::npos ? "" : line.substr(space + 1);
    reason.erase(0, reason.find_first_not_of(" \t"));
    if (reason.empty()) {
      std::fprintf(stderr, "%s: exclusion of %s has no reason\n", path.c_str(), name.c_str());
      std::exit(2);
    }
    out[name] = reason;
  }
  return out;
}

// Compares one output; returns an empty string when it matches, else what differs.
std::string Compare(const ir::Tensor& got, const ir::Tensor& want, double rtol, double atol,
                    double* max_error) {
  if (got.dtype() != want.dtype()) {
    return absl::StrCat("dtype ", ir::DTypeName(got.dtype()), ", expected ",
                        ir::DTypeName(want.dtype()));
  }
  if (got.shape() != want.shape()) {
    return absl::StrCat("shape ", ir::ShapeToString(got.shape()), ", expected ",
                        ir::ShapeToString(want.shape()));
  }
  const bool exact = !ir::IsFloat(want.dtype());
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    const double g = got.GetDouble(i);
    const double w = want.GetDouble(i);
    if (std::isnan(w) && std::isnan(g)) continue;
    if (std::isinf(w) && g == w) continue;
    const double err = std::fabs(g - w);
    if (!std::isnan(err)) *max_error = std::max(*max_error, err);
    const bool ok = exact ? g == w : err <= atol + rtol * std::fabs(w);
    if (!ok) {
      return absl::StrCat("element ", i, " is ", g, ", expected ", w, " (error ", err, ")");
    }
  }
  return "";
}

// The schedules --compiled runs each case with.
std::vector<std::string> Schedules() {
  if (!absl::GetFlag(FLAGS_schedule).empty()) return {absl::GetFlag(FLAGS_schedule)};
  return {"default", "naive"};
}

// Runs `model` (compiled from `imported`) on `input_values` (in the order of `inputs`) and
// compares with `expected`. Empty when every output matches, else what went wrong.
std::string RunCompiled(jit::JitModel& model, const ImportedModel& imported,
                        const std::vector<const onnx::ValueInfoProto*>& inputs,
                        const std::vector<ir::Tensor>& input_values,
                        const std::vector<ir::Tensor>& expected, double rtol, double atol,
                        double* max_error) {
  std::map<std::string, ir::Tensor> values;
  for (size_t k = 0; k < inputs.size(); ++k) {
    for (const ImportedModel::Input& in : imported.inputs) {
      if (in.onnx_name == inputs[k]->name()) values[in.name] = input_values[k];
    }
  }
  // Only what the partitioned graph still takes (an input the model ignores is not in it).
  std::map<std::string, ir::Tensor> args;
  for (const auto& [name, type] : model.Inputs()) {
    auto it = values.find(name);
    if (it == values.end()) return absl::StrCat("no value for the graph's input '", name, "'");
    args.emplace(name, it->second);
  }
  absl::StatusOr<std::vector<ir::Tensor>> got = model.Run(args);
  if (!got.ok()) return absl::StrCat("run: ", got.status().message());
  if (got->size() != expected.size()) {
    return absl::StrCat(got->size(), " outputs, expected ", expected.size());
  }
  for (size_t k = 0; k < got->size(); ++k) {
    const std::string diff = Compare((*got)[k], expected[k], rtol, atol, max_error);
    if (!diff.empty()) {
      return absl::StrCat("output ", k, " ('", imported.outputs[k], "'): ", diff);
    }
  }
  return "";
}

// Partitions, compiles (with `schedule`) and runs `imported` on `input_values` (in the order of
// `inputs`), and compares with `expected`. Empty when every output matches, else what went wrong.
std::string CheckCompiled(const ImportedModel& imported,
                          const std::vector<const onnx::ValueInfoProto*>& inputs,
                          const std::vector<ir::Tensor>& input_values,
                          const std::vector<ir::Tensor>& expected, const std::string& schedule,
                          double rtol, double atol, double* max_error) {
  absl::StatusOr<passes::PartitionedModel> partitioned =
      PartitionModel(passes::Model{imported.module, imported.params});
  if (!partitioned.ok()) return absl::StrCat("partition: ", partitioned.status().message());
  jit::JitOptions options;
  options.target = absl::GetFlag(FLAGS_target);
  options.schedule = schedule;
  absl::StatusOr<std::unique_ptr<jit::JitModel>> model =
      jit::JitModel::Compile(*partitioned, options);
  if (!model.ok()) return absl::StrCat("compile: ", model.status().message());
  return RunCompiled(**model, imported, inputs, input_values, expected, rtol, atol, max_error);
}

// --dynamic: the static import's options with each input whose leading dim is that of the first
// such input made symbolic there, N in 1..2*n (docs/dynamic-shapes.md); nullopt when no input
// has a leading dim of at least 1.
std::optional<ImportOptions> DynamicOptions(ImportOptions options) {
  int64_t n = 0;
  for (const auto& [name, shape] : options.input_shapes) {
    if (!shape.empty() && shape[0] >= 1) {
      n = shape[0];
      break;
    }
  }
  if (n == 0) return std::nullopt;
  absl::StatusOr<ir::DimVar> var = ir::MakeDimVar("N", 1, std::max<int64_t>(2 * n, 2), 1);
  if (!var.ok()) return std::nullopt;
  options.symbolic_dims = true;
  for (auto it = options.input_shapes.begin(); it != options.input_shapes.end();) {
    if (it->second.empty() || it->second[0] != n) {
      ++it;
      continue;
    }
    ir::Dims dims = {ir::Dim::Var(*var)};
    for (size_t k = 1; k < it->second.size(); ++k) dims.push_back(ir::Dim::Const(it->second[k]));
    options.input_dims[it->first] = dims;
    it = options.input_shapes.erase(it);
  }
  return options;
}

// --dynamic's check of one data set: "" when the case imports with a symbolic leading dim,
// compiles once and computes the expected outputs at its shapes; "refused: ..." when a step
// refuses the symbolic model (an exception the note lists); anything else is a wrong result.
std::string CheckDynamic(const onnx::ModelProto& model, const std::string& name,
                         const ImportOptions& static_options,
                         const std::vector<const onnx::ValueInfoProto*>& inputs,
                         const std::vector<ir::Tensor>& input_values,
                         const std::vector<ir::Tensor>& expected, double rtol, double atol,
                         double* max_error) {
  std::optional<ImportOptions> options = DynamicOptions(static_options);
  if (!options.has_value()) return "refused: no input with a leading dim";
  // The model as an exporter writes one with an open batch: those inputs' leading dim named,
  // and what ONNX inferred of the static model's shapes left out.
  onnx::ModelProto open = model;
  open.mutable_graph()->clear_value_info();
  for (onnx::ValueInfoProto& info : *open.mutable_graph()->mutable_input()) {
    if (options->input_dims.count(info.name()) == 0) continue;
    onnx::TensorShapeProto* shape = info.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (shape->dim_size() > 0) shape->mutable_dim(0)->set_dim_param("N");
  }
  for (onnx::ValueInfoProto& info : *open.mutable_graph()->mutable_output()) {
    info.mutable_type()->mutable_tensor_type()->clear_shape();
  }
  absl::StatusOr<ImportedModel> imported = frontend::onnx::ImportOnnxModel(open, *options, name);
  if (!imported.ok()) return absl::StrCat("refused: import: ", imported.status().message());
  absl::Status typed = ir::InferTypes(imported->module);
  if (!typed.ok()) return absl::StrCat("refused: type inference: ", typed.message());
  absl::StatusOr<passes::PartitionedModel> partitioned =
      PartitionModel(passes::Model{imported->module, imported->params});
  if (!partitioned.ok())
    return absl::StrCat("refused: partition: ", partitioned.status().message());
  jit::JitOptions jit_options;
  jit_options.target = absl::GetFlag(FLAGS_target);
  absl::StatusOr<std::unique_ptr<jit::JitModel>> compiled =
      jit::JitModel::Compile(*partitioned, jit_options);
  if (!compiled.ok()) return absl::StrCat("refused: compile: ", compiled.status().message());
  return RunCompiled(**compiled, *imported, inputs, input_values, expected, rtol, atol, max_error);
}

CaseResult RunCase(const fs::path& dir, const std::string& name,
                   const std::map<std::string, std::string>& exclusions) {
  CaseResult result;
  result.name = name;
  auto unsupported = [&](const std::string& why) {
    result.outcome = Outcome::kUnsupported;
    result.detail = why;
    return result;
  };
  auto failed = [&](const std::string& why) {
    result.outcome = Outcome::kFailed;
    result.detail = why;
    return result;
  };

  absl::StatusOr<std::string> bytes = io::ReadFile((dir / "model.onnx").string());
  if (!bytes.ok()) return failed(std::string(bytes.status().message()));
  onnx::ModelProto model;
  if (!model.ParseFromString(*bytes)) return failed("model.onnx does not parse");
  std::set<std::string> ops;
  for (const onnx::NodeProto& node : model.graph().node()) ops.insert(node.op_type());
  result.ops = absl::StrJoin(ops, ",");

  auto excluded = exclusions.find(name);
  if (excluded != exclusions.end()) return unsupported("excluded: " + excluded->second);

  // The runtime inputs: graph inputs without an initializer.
  std::set<std::string> initializers;
  for (const onnx::TensorProto& t : model.graph().initializer()) initializers.insert(t.name());
  std::vector<const onnx::ValueInfoProto*> inputs;
  for (const onnx::ValueInfoProto& info : model.graph().input()) {
    if (initializers.count(info.name()) == 0) inputs.push_back(&info);
  }
  for (const auto* list : {&model.graph().input(), &model.graph().output()}) {
    for (const onnx::ValueInfoProto& info : *list) {
      if (!info.type().has_tensor_type()) {
        return unsupported(absl::StrCat("'", info.name(), "' is not a tensor"));
      }
      absl::StatusOr<ir::DType> dtype =
          frontend::onnx::DTypeFromOnnx(info.type().tensor_type().elem_type());
      if (!dtype.ok()) {
        if (dtype.status().code() == absl::StatusCode::kUnimplemented) {
          return unsupported(absl::StrCat("'", info.name(), "': ", dtype.status().message()));
        }
        return failed(std::string(dtype.status().message()));
      }
    }
  }

  double rtol = kRtol;
  double atol = kAtol;
  for (const Tolerance& t : Tolerances()) {
    if (name == t.name) {
      rtol = t.rtol;
      atol = t.atol;
    }
  }

  std::vector<fs::path> sets;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) {
      sets.push_back(e.path());
    }
  }
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) return failed("no test_data_set_N folders");

  for (const fs::path& set : sets) {
    const std::vector<fs::path> input_files = NumberedFiles(set, "input_");
    const std::vector<fs::path> output_files = NumberedFiles(set, "output_");
    if (input_files.size() != inputs.size()) {
      return failed(absl::StrCat(set.filename().string(), " has ", input_files.size(),
                                 " inputs; the model has ", inputs.size()));
    }
    std::vector<ir::Tensor> input_values;
    for (const fs::path& p : input_files) {
      absl::StatusOr<onnx::TensorProto> proto = ReadTensorProto(p);
      if (!proto.ok()) return failed(std::string(proto.status().message()));
      absl::StatusOr<ir::Tensor> t = frontend::onnx::TensorFromProto(*proto);
      if (!t.ok()) return failed(absl::StrCat(p.string(), ": ", t.status().message()));
      input_values.push_back(*t);
    }
    std::vector<ir::Tensor> expected;
    for (const fs::path& p : output_files) {
      absl::StatusOr<onnx::TensorProto> proto = ReadTensorProto(p);
      if (!proto.ok()) return failed(std::string(proto.status().message()));
      absl::StatusOr<ir::Tensor> t = frontend::onnx::TensorFromProto(*proto);
      if (!t.ok()) return failed(absl::StrCat(p.string(), ": ", t.status().message()));
      expected.push_back(*t);
    }

    ImportOptions options;
    for (size_t k = 0; k < inputs.size(); ++k) {
      options.input_shapes[inputs[k]->name()] = input_values[k].shape();
    }
    absl::StatusOr<ImportedModel> imported = frontend::onnx::ImportOnnxModel(model, options, name);
    if (!imported.ok() && imported.status().code() == absl::StatusCode::kFailedPrecondition) {
      // A shape-like input (Reshape's shape, Resize's scales, Range's bounds, ...): fix the
      // integer and bool inputs, and the tiny ones, to this data set's values.
      for (size_t k = 0; k < inputs.size(); ++k) {
        const ir::Tensor& v = input_values[k];
        if (!ir::IsFloat(v.dtype()) || (v.ndim() <= 1 && v.NumElements() <= 8)) {
          options.input_shapes.erase(inputs[k]->name());
          options.input_values[inputs[k]->name()] = input_values[k];
        }
      }
      imported = frontend::onnx::ImportOnnxModel(model, options, name);
    }
    if (!imported.ok()) {
      if (imported.status().code() == absl::StatusCode::kUnimplemented) {
        return unsupported(std::string(imported.status().message()));
      }
      return failed(absl::StrCat("import: ", imported.status().message()));
    }
    result.types_confirmed_by_onnx = imported->types_confirmed_by_onnx;
    absl::Status typed = ir::InferTypes(imported->module);
    if (!typed.ok()) return failed(absl::StrCat("type inference: ", typed.message()));
    // What `relayc import` writes must read back as the same module.
    const std::string text = ir::PrintModule(imported->module);
    absl::StatusOr<ir::Module> reparsed = ir::ParseModule(text, name + ".relay");
    if (!reparsed.ok()) return failed(absl::StrCat("printed text: ", reparsed.status().message()));
    if (ir::PrintModule(*reparsed) != text) return failed("printed text does not round-trip");

    std::map<std::string, ir::Tensor> args = imported->params;
    for (size_t k = 0; k < inputs.size(); ++k) {
      for (const ImportedModel::Input& in : imported->inputs) {
        if (in.onnx_name == inputs[k]->name()) args[in.name] = input_values[k];
      }
    }
    absl::StatusOr<interp::Value> value = interp::Run(imported->module, args);
    if (!value.ok()) return failed(absl::StrCat("interpreter: ", value.status().message()));
    const std::vector<ir::Tensor> got = interp::Flatten(*value);
    if (got.size() != expected.size()) {
      return failed(absl::StrCat(got.size(), " outputs, expected ", expected.size()));
    }
    for (size_t k = 0; k < got.size(); ++k) {
      const std::string diff = Compare(got[k], expected[k], rtol, atol, &result.max_error);
      if (!diff.empty()) {
        return failed(absl::StrCat(set.filename().string(), " output ", k, " ('",
                                   imported->outputs[k], "'): ", diff));
      }
    }
    for (const std::string& schedule :
         absl::GetFlag(FLAGS_compiled) ? Schedules() : std::vector<std::string>{}) {
      const std::string problem = CheckCompiled(*imported, inputs, input_values, expected, schedule,
                                                rtol, atol, &result.max_error);
      if (!problem.empty()) {
        return failed(absl::StrCat("compiled (", absl::GetFlag(FLAGS_target), ", ", schedule, "), ",
                                   set.filename().string(), ": ", problem));
      }
    }
    if (absl::GetFlag(FLAGS_dynamic) && result.dynamic.empty()) {
      const std::string problem = CheckDynamic(model, name, options, inputs, input_values, expected,
                                               rtol, atol, &result.max_error);
      if (absl::StartsWith(problem, "refused: ")) {
        result.dynamic = problem;
      } else if (!problem.empty()) {
        return failed(absl::StrCat("dynamic (", absl::GetFlag(FLAGS_target), "), ",
                                   set.filename().string(), ": ", problem));
      }
    }
  }
  if (absl::GetFlag(FLAGS_dynamic) && result.dynamic.empty()) result.dynamic = "passed";
  result.outcome = Outcome::kPassed;
  return result;
}

std::string ReportPath() {
  if (!absl::GetFlag(FLAGS_report).empty()) return absl::GetFlag(FLAGS_report);
  if (const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR")) {
    return absl::StrCat(dir, "/conformance_report.tsv");
  }
  if (const char* dir = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    return absl::StrCat(dir, "/bazel-bin/tests/onnx/conformance_report.tsv");
  }
  return "conformance_report.tsv";
}

int Main() {
  const fs::path suite = absl::GetFlag(FLAGS_suite_dir);
  if (!fs::is_directory(suite)) {
    std::fprintf(stderr,
                 "conformance: the suite folder %s does not exist (install Debian's "
                 "libonnx-testdata, or pass --suite_dir)\n",
                 suite.c_str());
    return 2;
  }
  const std::map<std::string, std::string> exclusions =
      ReadExclusions(absl::GetFlag(FLAGS_exclusions));
  const std::string filter = absl::GetFlag(FLAGS_filter);
  std::vector<CaseResult> results;
  int total[3] = {0, 0, 0};
  for (const char* folder : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    std::vector<std::string> cases;
    if (!fs::is_directory(suite / folder)) {
      std::fprintf(stderr, "conformance: %s has no %s folder\n", suite.c_str(), folder);
      return 2;
    }
    for (const fs::directory_entry& e : fs::directory_iterator(suite / folder)) {
      if (e.is_directory()) cases.push_back(e.path().filename().string());
    }
    std::sort(cases.begin(), cases.end());
    int counts[3] = {0, 0, 0};
    for (const std::string& c : cases) {
      const std::string name = absl::StrCat(folder, "/", c);
      if (!filter.empty() && name.find(filter) == std::string::npos) continue;
      CaseResult r = RunCase(suite / folder / c, name, exclusions);
      ++counts[static_cast<int>(r.outcome)];
      if (r.outcome == Outcome::kFailed || absl::GetFlag(FLAGS_verbose)) {
        std::printf("%s %s: %s\n", OutcomeName(r.outcome), r.name.c_str(),
                    OneLine(r.detail).c_str());
      }
      results.push_back(std::move(r));
    }
    std::printf("%s: %d passed, %d failed, %d unsupported\n", folder, counts[0], counts[1],
                counts[2]);
    for (int k = 0; k < 3; ++k) total[k] += counts[k];
  }

  std::ostringstream report;
  report << "case\tops\toutcome\tmax_error\tdetail\n";
  for (const CaseResult& r : results) {
    report << r.name << '\t' << r.ops << '\t' << OutcomeName(r.outcome) << '\t' << r.max_error
           << '\t' << OneLine(r.detail) << '\n';
  }
  const std::string report_path = ReportPath();
  fs::create_directories(fs::path(report_path).parent_path().empty()
                             ? fs::path(".")
                             : fs::path(report_path).parent_path());
  absl::Status written = io::WriteFileAtomically(report_path, report.str());
  if (!written.ok()) {
    std::fprintf(stderr, "conformance: cannot write the report: %s\n",
                 std::string(written.message()).c_str());
  } else {
    std::printf("report: %s\n", report_path.c_str());
  }
  if (absl::GetFlag(FLAGS_compiled)) {
    int compiled_failed = 0;
    for (const CaseResult& r : results) {
      if (r.outcome == Outcome::kFailed && r.detail.rfind("compiled (", 0) == 0) ++compiled_failed;
    }
    std::printf("compiled (%s; %s): %d passed, %d passed interpreted but failed compiled\n",
                absl::GetFlag(FLAGS_target).c_str(), absl::StrJoin(Schedules(), ", ").c_str(),
                total[0], compiled_failed);
  }
  if (absl::GetFlag(FLAGS_dynamic)) {
    // Every case that passes static but is refused dynamic, with the reason: the exceptions.
    int dynamic_passed = 0, refused = 0, dynamic_failed = 0;
    for (const CaseResult& r : results) {
      if (r.outcome == Outcome::kFailed && r.detail.rfind("dynamic (", 0) == 0) ++dynamic_failed;
      if (r.outcome != Outcome::kPassed) continue;
      if (r.dynamic == "passed") {
        ++dynamic_passed;
      } else {
        ++refused;
        std::printf("dynamic refused %s: %s\n", r.name.c_str(),
                    OneLine(r.dynamic.substr(sizeof("refused: ") - 1)).c_str());
      }
    }
    std::printf("dynamic (%s, default): %d passed, %d refused, %d wrong\n",
                absl::GetFlag(FLAGS_target).c_str(), dynamic_passed, refused, dynamic_failed);
  }
  int confirmed = 0;
  int cases_confirmed = 0;
  for (const CaseResult& r : results) {
    if (r.outcome != Outcome::kPassed) continue;
    confirmed += r.types_confirmed_by_onnx;
    cases_confirmed += r.types_confirmed_by_onnx > 0;
  }
  std::printf("ONNX's shape inference agreed with the importer on %d values in %d passed cases\n",
              confirmed, cases_confirmed);
  std::printf("conformance: %d passed, %d failed, %d unsupported\n", total[0], total[1], total[2]);
  return total[1] > 0 ? 1 : 0;
}

}  // namespace
}  // namespace relay

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return relay::Main();
}
