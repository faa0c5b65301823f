// relayc: the rules_relay command-line driver. Each subcommand is one step a user (or, later, a
// Bazel action) runs on a Relay text file:
//
//   relayc fmt FILE [--in_place]        canonical text, to stdout or back into FILE
//   relayc check FILE                   parse + type inference, printed with every type
//   relayc interpret FILE --input NAME=FILE.npy ... [--random_inputs] [--output_dir DIR]
//                                       run @main on the reference interpreter
//   relayc import MODEL.onnx [--input-shape NAME:D0,D1,...] -o OUT.relay --params W.safetensors
//                                       ONNX to Relay text + weights (relayc_onnx.h)
//   relayc partition MODEL --kernel_dir DIR [--write_kernels] [--out_dir OUT] [--name NAME]
//                                       kernels + graph + params (partition_command.h)
//   relayc kernels MODEL                the model's kernels as a table
//   relayc manifest DIR                 DIR/kernels.bzl: summaries of a kernel library
//   relayc te K.relay / tir K.relay     a kernel's compute / loop IR (compile_command.h)
//   relayc compile --target=T K.relay -o K.o   a kernel's object and metadata
//   relayc assemble NAME.graph.json ...  the model's executor, header and weights object
//   relayc run MODEL --input NAME=FILE.npy ... [--output_dir DIR]
//                                       compile (or load from the kernel cache) and run in process
//   relayc cache ls|clear               the kernel cache of relayc run (run_command.h)
// check and interpret also take an .onnx model (with --input-shape), or Relay text with
// --params W.safetensors.
//
// Errors a user can cause print "relayc: <message>" on stderr and exit 1; a command line relayc
// does not understand prints the usage and exits 2. Every file relayc writes is written to a
// temporary name and renamed, so a failure never leaves a half-written output.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lowering/assemble/assemble.h"
#include "lowering/interp/interpreter.h"
#include "lowering/interp/value.h"
#include "lowering/io/file.h"
#include "lowering/io/npy.h"
#include "lowering/ir/module.h"
#include "lowering/ir/tensor.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"
#include "lowering/support/status_macros.h"
#include "lowering/target/target.h"
#include "lowering/tools/compile_command.h"
#include "lowering/tools/inputs.h"
#include "lowering/tools/partition_command.h"
#include "lowering/tools/relayc_onnx.h"
#include "lowering/tools/run_command.h"
#include "lowering/tools/tune_command.h"
#include "lowering/tools/values.h"

ABSL_FLAG(bool, in_place, false, "fmt: rewrite FILE instead of printing it");
// --input is not an Abseil flag: Abseil's std::vector<std::string> flags keep only the last
// occurrence, and --input repeats. ScanCommandLine collects every occurrence instead.
ABSL_FLAG(bool, random_inputs, false,
          "interpret/run: give parameters without --input deterministic pseudo-random values");
ABSL_FLAG(std::string, output_dir, "",
          "interpret/run: write the results to DIR/output_<i>.npy (DIR is created if missing)");
ABSL_FLAG(std::string, output, "", "import: the Relay text file to write (default: stdout)");
ABSL_FLAG(std::string, kernel_dir, "",
          "partition: the kernel library's folder; interpret: where a .graph.json's kernels are");
ABSL_FLAG(bool, write_kernels, false, "partition: write missing kernels into --kernel_dir");
ABSL_FLAG(std::string, out_dir, "", "partition/assemble: where the outputs go (default: .)");
ABSL_FLAG(std::string, name, "", "partition/assemble: the model's NAME (default: the file's stem)");
ABSL_FLAG(std::string, overflow, "",
          "interpret: a .graph.json's overflow kernels (NAME.overflow.relay)");
ABSL_FLAG(std::string, dump_ir_after, "",
          "partition/kernels/compile/tir/run: print the IR after this pass or kernel step (or "
          "'all') to stderr");
ABSL_FLAG(bool, time_passes, false,
          "partition/kernels/compile/tir/run: print each pass's and step's time to stderr");
ABSL_FLAG(std::string, target, "x86-64",
          "compile/tir/run: the target (`relayc targets` lists them)");
ABSL_FLAG(std::string, nvcc, "",
          "compile/cuda: the CUDA Toolkit's nvcc for cuda-* targets (default: $CUDA_PATH/bin/nvcc, "
          "else /usr/local/cuda/bin/nvcc)");
ABSL_FLAG(std::string, schedule, "default",
          "compile/tir/run: the schedule strategy (naive, default)");
ABSL_FLAG(int, threads, 0, "run: the runtime's thread count (default: RELAY_NUM_THREADS or CPUs)");
ABSL_FLAG(int, repeat, 1, "run: run N times and print the median and minimum time");
ABSL_FLAG(bool, profile, false,
          "run: time every kernel call and print the profile (runtime/relay_profile.h)");
ABSL_FLAG(std::string, trace, "",
          "run: also write the profile as a Chrome trace to this file (implies --profile)");
ABSL_FLAG(bool, kernel_cache, true,
          "run: use the kernel cache ($RELAY_CACHE_DIR or ~/.cache/relayc/kernels)");
ABSL_FLAG(std::string, llvm_version, "",
          "compile: the LLVM version the build expects relayc to link (checked)");
ABSL_FLAG(std::string, llvm_digest, "",
          "compile: the digest of the libLLVM the build expects relayc to load (checked)");
ABSL_FLAG(std::string, nvcc_digest, "",
          "compile, cuda-* targets: sha256:HEX of the nvcc the build expects (checked)");
ABSL_FLAG(std::string, ptxas_digest, "",
          "compile, cuda-* targets: sha256:HEX of the ptxas beside that nvcc (checked)");
ABSL_FLAG(std::string, metadata, "", "compile: where K.json goes (default: next to -o)");
ABSL_FLAG(std::string, overflow_warning, "",
          "compile: for an overflow file, the update command a warning names");
ABSL_FLAG(std::string, tuning, "",
          "compile/tir/run: a tuning database whose records apply; tune: the database to update");
ABSL_FLAG(int, trials, 48, "tune: candidates per kernel besides the default schedule");
ABSL_FLAG(double, budget_s, 600, "tune: seconds for the whole command, shared among kernels");
ABSL_FLAG(bool, skip_tuned, false, "tune: leave kernels that have a record for the target");
ABSL_FLAG(std::string, kernel_ids, "", "split_tuning: the kernel library's ids, one a line");
ABSL_FLAG(bool, bzl, false, "targets: print the table as Starlark (rules/private/targets.bzl)");
ABSL_FLAG(std::string, params, "",
          "import: where to write the weights; check/interpret: the weights of a .relay FILE "
          "(safetensors)");

namespace relay::tools {
namespace {

constexpr char kUsage[] = R"(usage: relayc <command> [flags] FILE

Commands:
  fmt FILE          print FILE in canonical Relay text
      --in_place        rewrite FILE instead of printing it
  check FILE        parse FILE, infer its types and print it with every type
      --dim_bounds NAME=LO..HI[:STEP],...  symbolic dims (docs/dynamic-shapes.md): the
                        bounds of dims named in --input-shape (x:N,3,H,W) or by the model
  interpret FILE    run @main of FILE with the reference interpreter
      --input NAME=FILE.npy  the value of parameter %NAME (repeat for each parameter)
      --dim_bounds NAME=LO..HI[:STEP],...  as check's; a model with symbolic dims runs at
                             the sizes of its --input arrays, checked against the bounds
      --random_inputs        give parameters without --input deterministic pseudo-random
                             values (floats in [-1, 1), integers in [0, 10), bools)
      --output_dir DIR       write output_0.npy, output_1.npy, ... (tuples flattened) to DIR
  import FILE.onnx  import an ONNX model (opsets 7 to 17) as Relay text and weights
      -o, --output OUT.relay      the Relay text (default: stdout)
      --params W.safetensors      the weights (required if the model has any)
  partition MODEL   split a model into kernels: writes OUT/NAME.graph.json, NAME.params,
                    NAME.kernels.txt, NAME.overflow.relay, NAME.uncalled.txt
      --kernel_dir DIR            the kernel library (kernels/<id>.relay files)
      --write_kernels             write the kernels DIR lacks into DIR (else: overflow file)
      --dim_bounds NAME=LO..HI[:STEP],...   as check's: the graph and kernels take every size
                                  the bounds admit (graph format 2)
      --out_dir OUT, --name NAME  where the outputs go and what they are called
      --dump_ir_after PASS|all, --time_passes   look inside the pipeline (stderr)
  kernels MODEL     print the model's kernels: id, calls, output shape, flops, fused ops
      --tuning DB.jsonl --target T   also whether each has a record, and how many lack one
  manifest DIR      rewrite DIR/kernels.bzl: each kernel file's fused ops and output shape
  assemble NAME.graph.json --params NAME.params --kernel_meta K.json ... [--out_dir OUT]
                    [--name NAME]: the model's C++ library: OUT/NAME.h, NAME.cc (the executor
                    with its static memory plan) and NAME_params.o (the weights)
  te K.relay        print a kernel's tensor-expression compute (no schedule)
  tir K.relay       print a kernel's loop IR   --target T  --schedule S
  cuda K.relay      print a kernel's CUDA C (--target cuda-sm80|cuda-sm90, default cuda-sm90)
  compile K.relay -o K.o   compile a kernel to an object and K.json (symbol, args, flops)
      --target T (relayc targets lists them)   --schedule naive|default
      --tuning DB.jsonl   the kernel's record for the target, if any, chooses its schedule
      --nvcc PATH   for cuda-* targets (default: $CUDA_PATH/bin/nvcc, /usr/local/cuda/bin/nvcc)
      --metadata K.json   --llvm_version V (checked against the LLVM relayc links)
      --llvm_digest D   (checked against the libLLVM relayc loaded: build-id:HEX or sha256:HEX)
      --nvcc_digest D --ptxas_digest D   cuda-* targets (checked: sha256:HEX of the tools run)
      An overflow file (several kernels) compiles with -o NAME.a to an archive.
      --dump_ir_after STEP|all, --time_passes   the kernel pipeline's steps (stderr):
        lower_to_te, schedule, lower_schedule, simplify, expand_unrolled (CPU),
        partition_tails (CPU), verify, then llvm, llvm_opt, object (CPU) or cuda_c, object
        (CUDA); also for tir (up to verify) and run (both halves)
  run MODEL         compile the model's kernels in process (JIT) and run it; prints what was
                    compiled or loaded from the kernel cache, the run time and the outputs
      --input NAME=FILE.npy, --random_inputs, --output_dir DIR   as for interpret
      --dim_bounds NAME=LO..HI[:STEP],...   compile once for every size the bounds admit, then
                        run at the --input arrays' sizes (a symbolic batch, so far)
      --target T, --schedule naive|default   as for compile (a CPU target this machine runs)
      --threads N       the runtime's thread count (default: $RELAY_NUM_THREADS, else CPUs)
      --repeat N        run N times; print the median and minimum time
      --profile         per kernel call, slowest first: time, share, GFLOP/s, GB/s, % of this
                        machine's measured peak, fused ops and shapes (median over the runs)
      --trace FILE      also write the calls as a Chrome trace (open it in ui.perfetto.dev)
      --nokernel_cache  compile every kernel; neither read nor write the cache
  tune K.relay ... | NAME.graph.json --kernel_dir DIR
                    measure schedule candidates of each kernel on this machine (a seeded random
                    and evolutionary search over its knobs, checked against the default
                    schedule's outputs), print a table, and make the fastest a tuning record
      --target T        a CPU target this machine runs
      --trials N        candidates per kernel (default 48)
      --budget_s S      seconds for the whole command, shared among kernels (default 600)
      --threads N       the thread count timed besides 1 (default: RELAY_NUM_THREADS, else CPUs)
      --tuning DB.jsonl write the records into DB (else print them)   --skip_tuned
  split_tuning DB.jsonl --target T --kernel_ids FILE --out_dir DIR
                    DIR/<id>.tuning.jsonl per kernel: its record's line, or empty (the Bazel
                    rules' per-kernel compile inputs); reports records of unknown kernels
  targets           the compilation targets, schedule strategies and the kernel id form
      --bzl             ... as Starlark, the rules' rules/private/targets.bzl
  cache ls|clear    list (id, target, schedule, bytes, ops; stale and damaged marked) or remove
                    the entries of relayc run's kernel cache: $RELAY_CACHE_DIR, else
                    ~/.cache/relayc/kernels (one folder per relayc version)
  help              print this message

check and interpret also accept an .onnx FILE, imported on the fly, and Relay text with its
weights: --params W.safetensors. interpret also runs a partitioned model: NAME.graph.json with
--kernel_dir DIR, --overflow NAME.overflow.relay and --params NAME.params. For .onnx models, --input-shape NAME:D0,D1,... (repeatable)
gives the static shape of an input whose shape the model leaves open.

Flags may be written --flag=value or --flag value; dashes and underscores in flag names are
interchangeable (--output-dir). Exit status: 0 success, 1 an error in the input files, 2 a
command line relayc does not understand.
)";

// A command line relayc does not understand: the message, then the usage, exit 2.
[[noreturn]] void UsageError(const std::string& message) {
  std::fprintf(stderr, "relayc: %s\n\n%s", message.c_str(), kUsage);
  std::exit(2);
}

// The flags each subcommand accepts: a flag given to a command that ignores it is a mistake
// worth reporting, not silently dropping.
const std::map<std::string, std::set<std::string>>& CommandFlags() {
  static const auto* flags = new std::map<std::string, std::set<std::string>>{
      {"fmt", {"in_place"}},
      {"check", {"input_shape", "dim_bounds", "params"}},
      {"interpret",
       {"input", "random_inputs", "output_dir", "input_shape", "dim_bounds", "params", "kernel_dir",
        "overflow"}},
      {"import", {"input_shape", "output", "params"}},
      {"partition",
       {"input_shape", "dim_bounds", "params", "kernel_dir", "write_kernels", "out_dir", "name",
        "dump_ir_after", "time_passes"}},
      {"kernels",
       {"input_shape", "dim_bounds", "params", "dump_ir_after", "time_passes", "tuning", "target"}},
      {"manifest", {}},
      {"assemble", {"params", "out_dir", "name", "kernel_meta"}},
      {"compile",
       {"target", "schedule", "llvm_version", "llvm_digest", "nvcc_digest", "ptxas_digest",
        "metadata", "overflow_warning", "output", "nvcc", "dump_ir_after", "time_passes",
        "tuning"}},
      {"cuda", {"target", "schedule"}},
      {"tune", {"target", "trials", "budget_s", "threads", "tuning", "skip_tuned", "kernel_dir"}},
      {"split_tuning", {"target", "kernel_ids", "out_dir"}},
      {"te", {}},
      {"tir", {"target", "schedule", "dump_ir_after", "time_passes", "tuning"}},
      {"run",
       {"input", "random_inputs", "output_dir", "input_shape", "dim_bounds", "params", "target",
        "schedule", "threads", "repeat", "profile", "trace", "kernel_cache", "dump_ir_after",
        "time_passes", "tuning"}},
      {"cache", {}},
      {"targets", {"bzl"}},
      {"help", {}},
  };
  return *flags;
}

bool IsBoolFlag(const std::string& name) {
  return name == "in_place" || name == "random_inputs" || name == "write_kernels" ||
         name == "time_passes" || name == "kernel_cache" || name == "bzl" || name == "profile" ||
         name == "skip_tuned";
}

// What the pre-scan of argv found.
struct CommandLine {
  std::vector<std::string> absl_args;     // argv for absl::ParseCommandLine, flags normalised.
  std::vector<std::string> inputs;        // Every --input value, in order.
  std::vector<std::string> input_shapes;  // Every --input-shape value, in order.
  std::vector<std::string> dim_bounds;    // Every --dim_bounds value, in order.
  std::vector<std::string> kernel_metas;  // Every --kernel_meta value, in order.
  std::string command;                    // The first positional argument, or empty.
};

// Checks flag names before Abseil sees them, for three things Abseil cannot do here: dashes in
// names (--output-dir), a repeated --input accumulating instead of the last one winning, and
// exit status 2 with our usage for an unknown flag (Abseil exits 1 with its own message).
CommandLine ScanCommandLine(int argc, char** argv) {
  CommandLine cl;
  cl.absl_args.push_back(argv[0]);
  std::vector<std::string> flags_seen;
  bool only_positional = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (only_positional || arg.size() < 2 || arg[0] != '-') {
      if (cl.command.empty()) cl.command = arg;
      cl.absl_args.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      cl.absl_args.push_back(arg);
      continue;
    }
    std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
    size_t eq = body.find('=');
    std::string name = body.substr(0, eq);
    for (char& c : name) {
      if (c == '-') c = '_';
    }
    if (name == "help" || name == "h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (name == "o") name = "output";
    std::string base = name;
    if (eq == std::string::npos && name.rfind("no", 0) == 0 && IsBoolFlag(name.substr(2))) {
      base = name.substr(2);
    }
    // Every flag some command takes; whether this command takes it is checked below.
    static const std::set<std::string> kKnown = [] {
      std::set<std::string> all;
      for (const auto& [command, flags] : CommandFlags()) all.insert(flags.begin(), flags.end());
      return all;
    }();
    if (kKnown.count(base) == 0) {
      UsageError(absl::StrCat("unknown flag '", arg, "'"));
    }
    flags_seen.push_back(base);
    bool takes_value = !IsBoolFlag(base);
    std::string value;
    if (takes_value && eq == std::string::npos) {
      if (i + 1 >= argc) UsageError(absl::StrCat("flag '", arg, "' needs a value"));
      value = argv[++i];
    } else if (eq != std::string::npos) {
      value = body.substr(eq + 1);
    }
    if (base == "input") {
      cl.inputs.push_back(value);
      continue;
    }
    if (base == "input_shape") {
      cl.input_shapes.push_back(value);
      continue;
    }
    if (base == "dim_bounds") {
      cl.dim_bounds.push_back(value);
      continue;
    }
    if (base == "kernel_meta") {
      cl.kernel_metas.push_back(value);
      continue;
    }
    if (takes_value || eq != std::string::npos) {
      cl.absl_args.push_back(absl::StrCat("--", name, "=", value));
    } else {
      cl.absl_args.push_back(absl::StrCat("--", name));
    }
  }
  if (cl.command.empty()) return cl;
  auto it = CommandFlags().find(cl.command);
  if (it == CommandFlags().end()) UsageError(absl::StrCat("unknown command '", cl.command, "'"));
  for (const std::string& flag : flags_seen) {
    if (it->second.count(flag) == 0) {
      UsageError(absl::StrCat("--", flag, " is not a flag of 'relayc ", cl.command, "'"));
    }
  }
  return cl;
}

// --dump_ir_after and --time_passes, for either half of the pipeline.
PipelineOptions PipelineFlags() {
  PipelineOptions options;
  options.dump_ir_after = absl::GetFlag(FLAGS_dump_ir_after);
  options.time_passes = absl::GetFlag(FLAGS_time_passes);
  return options;
}

// Symbolic dims are read by the commands that only parse and type-check (fmt, check): the
// rest of the pipeline takes static shapes.
absl::StatusOr<ir::Module> LoadModule(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, io::ReadFile(path));
  ir::ParseOptions options;
  options.symbolic_dims = true;
  return ir::ParseModule(text, path, options);
}

absl::Status Fmt(const std::string& path) {
  ASSIGN_OR_RETURN(ir::Module module, LoadModule(path));
  std::string text = ir::PrintModule(module);
  if (absl::GetFlag(FLAGS_in_place)) return io::WriteFileAtomically(path, text);
  std::fputs(text.c_str(), stdout);
  return absl::OkStatus();
}

absl::Status Check(const std::string& path, const std::vector<std::string>& input_shapes,
                   const std::vector<std::string>& dim_bounds) {
  ASSIGN_OR_RETURN(LoadedModel loaded, LoadModel(path, input_shapes, absl::GetFlag(FLAGS_params),
                                                 {}, SymbolicDimOptions{true, dim_bounds}));
  const ir::Module& module = loaded.module;
  RETURN_IF_ERROR(ir::InferTypes(module));
  ir::PrintOptions options;
  options.show_types = true;
  std::fputs(ir::PrintModule(module, options).c_str(), stdout);
  return absl::OkStatus();
}

absl::Status Interpret(const std::string& path, const std::vector<std::string>& input_flags,
                       const std::vector<std::string>& input_shapes,
                       const std::vector<std::string>& dim_bounds) {
  const bool partitioned =
      path.size() > 11 && path.compare(path.size() - 11, 11, ".graph.json") == 0;
  // The arrays first: an ONNX model's open dimensions are theirs.
  ASSIGN_OR_RETURN(std::vector<InputArray> arrays, ReadInputArrays(input_flags));
  LoadedModel loaded;
  if (partitioned) {
    std::vector<std::string> overflow;
    if (!absl::GetFlag(FLAGS_overflow).empty()) overflow.push_back(absl::GetFlag(FLAGS_overflow));
    std::vector<std::string> dirs;
    if (!absl::GetFlag(FLAGS_kernel_dir).empty()) dirs.push_back(absl::GetFlag(FLAGS_kernel_dir));
    ASSIGN_OR_RETURN(loaded,
                     LoadPartitionedModel(path, dirs, overflow, absl::GetFlag(FLAGS_params)));
  } else {
    ASSIGN_OR_RETURN(loaded, LoadModel(path, input_shapes, absl::GetFlag(FLAGS_params),
                                       ArrayShapes(arrays), SymbolicDimOptions{true, dim_bounds}));
  }
  RETURN_IF_ERROR(ir::InferTypes(loaded.module));
  // A model with symbolic dims runs at the sizes of the arrays given.
  ASSIGN_OR_RETURN(const ir::Module module,
                   SpecializeToInputs(loaded.module, loaded.params, arrays));
  RETURN_IF_ERROR(ir::InferTypes(module));
  ir::Function main = module.main();
  if (main == nullptr) return absl::NotFoundError(absl::StrCat(path, ": no function @main"));

  std::vector<ModelInput> model_inputs;
  for (const ir::Var& p : main->params()) {
    if (loaded.params.count(p->name()) == 0) model_inputs.push_back({p->name(), p->checked_type()});
  }
  ASSIGN_OR_RETURN(auto inputs,
                   BindInputs(arrays, model_inputs, absl::GetFlag(FLAGS_random_inputs)));
  for (const ir::Var& p : main->params()) {
    auto weight = loaded.params.find(p->name());
    if (weight != loaded.params.end()) inputs.emplace(p->name(), weight->second);
  }

  ASSIGN_OR_RETURN(interp::Value result, interp::Run(module, inputs));
  std::vector<ir::Tensor> outputs = interp::Flatten(result);

  std::string dir = absl::GetFlag(FLAGS_output_dir);
  if (!dir.empty()) RETURN_IF_ERROR(io::MakeDirectories(dir));
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string name = absl::StrCat("output_", i);
    std::string where;
    if (!dir.empty()) {
      std::string file = absl::StrCat(dir, "/", name, ".npy");
      RETURN_IF_ERROR(io::WriteNpy(file, outputs[i]));
      where = absl::StrCat(" -> ", file);
    }
    std::printf("%s: %s %s%s\n", name.c_str(), ir::TypeToString(outputs[i].type()).c_str(),
                Preview(outputs[i]).c_str(), where.c_str());
  }
  return absl::OkStatus();
}

// The file name of `path` up to its first dot: "out/resnet.graph.json" -> "resnet".
std::string ModelName(const std::string& path) {
  const size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return base.substr(0, base.find('.'));
}

absl::Status AssembleCommand(const std::string& graph, const std::string& params,
                             const std::vector<std::string>& metas, const std::string& out_dir,
                             const std::string& name) {
  if (params.empty()) return absl::InvalidArgumentError("assemble needs --params NAME.params");
  ASSIGN_OR_RETURN(assemble::AssembleInputs inputs,
                   assemble::LoadAssembleInputs(graph, params, metas));
  return assemble::Assemble(inputs, out_dir.empty() ? "." : out_dir,
                            name.empty() ? ModelName(graph) : name);
}

// Exit status 0, or 1 with "relayc: <message>" on stderr.
int Report(const absl::Status& status) {
  if (status.ok()) return 0;
  std::fprintf(stderr, "relayc: %s\n", std::string(status.message()).c_str());
  return 1;
}

int Main(int argc, char** argv) {
  CommandLine cl = ScanCommandLine(argc, argv);
  if (cl.command.empty()) UsageError("no command given");
  if (cl.command == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::vector<char*> absl_argv;
  for (std::string& arg : cl.absl_args) absl_argv.push_back(arg.data());
  std::vector<char*> positional =
      absl::ParseCommandLine(static_cast<int>(absl_argv.size()), absl_argv.data());
  // positional[0] is the program, [1] the command.
  if (cl.command == "targets") {
    if (positional.size() != 2) UsageError("'relayc targets' takes no FILE");
    std::fputs((absl::GetFlag(FLAGS_bzl) ? TargetTableBzl() : TargetTable()).c_str(), stdout);
    return 0;
  }
  if (cl.command == "tune") {
    if (positional.size() < 3) UsageError("'relayc tune' takes one or more FILEs");
    TuneRequest request;
    request.files.assign(positional.begin() + 2, positional.end());
    request.kernel_dir = absl::GetFlag(FLAGS_kernel_dir);
    request.target = absl::GetFlag(FLAGS_target);
    request.trials = absl::GetFlag(FLAGS_trials);
    request.budget_s = absl::GetFlag(FLAGS_budget_s);
    request.tuning = absl::GetFlag(FLAGS_tuning);
    request.skip_tuned = absl::GetFlag(FLAGS_skip_tuned);
    request.threads = absl::GetFlag(FLAGS_threads);
    return Report(TuneCommand(request));
  }
  if (positional.size() != 3) {
    UsageError(absl::StrCat("'relayc ", cl.command, "' takes exactly one FILE, got ",
                            positional.size() - 2));
  }
  std::string path = positional[2];
  absl::Status status;
  if (cl.command == "fmt") {
    status = Fmt(path);
  } else if (cl.command == "check") {
    status = Check(path, cl.input_shapes, cl.dim_bounds);
  } else if (cl.command == "import") {
    status = ImportCommand(path, cl.input_shapes, absl::GetFlag(FLAGS_output),
                           absl::GetFlag(FLAGS_params));
  } else if (cl.command == "partition" || cl.command == "kernels") {
    PartitionRequest request;
    request.model = path;
    request.input_shapes = cl.input_shapes;
    request.dim_bounds = cl.dim_bounds;
    request.params = absl::GetFlag(FLAGS_params);
    request.kernel_dir = absl::GetFlag(FLAGS_kernel_dir);
    request.write_kernels = absl::GetFlag(FLAGS_write_kernels);
    request.out_dir = absl::GetFlag(FLAGS_out_dir);
    request.name = absl::GetFlag(FLAGS_name);
    request.dump_ir_after = absl::GetFlag(FLAGS_dump_ir_after);
    request.time_passes = absl::GetFlag(FLAGS_time_passes);
    request.tuning = absl::GetFlag(FLAGS_tuning);
    request.target = absl::GetFlag(FLAGS_target);
    status = cl.command == "partition" ? PartitionCommand(request) : KernelsCommand(request);
  } else if (cl.command == "manifest") {
    status = ManifestCommand(path);
  } else if (cl.command == "compile") {
    CompileRequest request;
    request.kernel_file = path;
    request.output = absl::GetFlag(FLAGS_output);
    request.metadata = absl::GetFlag(FLAGS_metadata);
    request.target = absl::GetFlag(FLAGS_target);
    request.schedule = absl::GetFlag(FLAGS_schedule);
    request.llvm_version = absl::GetFlag(FLAGS_llvm_version);
    request.llvm_digest = absl::GetFlag(FLAGS_llvm_digest);
    request.nvcc_digest = absl::GetFlag(FLAGS_nvcc_digest);
    request.ptxas_digest = absl::GetFlag(FLAGS_ptxas_digest);
    request.overflow_warning = absl::GetFlag(FLAGS_overflow_warning);
    request.nvcc = absl::GetFlag(FLAGS_nvcc);
    request.tuning = absl::GetFlag(FLAGS_tuning);
    request.pipeline = PipelineFlags();
    status = CompileCommand(request);
  } else if (cl.command == "split_tuning") {
    SplitTuningRequest request;
    request.database = path;
    request.target = absl::GetFlag(FLAGS_target);
    request.kernel_ids_file = absl::GetFlag(FLAGS_kernel_ids);
    request.out_dir = absl::GetFlag(FLAGS_out_dir);
    status = SplitTuningCommand(request);
  } else if (cl.command == "te") {
    status = TeCommand(path);
  } else if (cl.command == "tir") {
    status = TirCommand(path, absl::GetFlag(FLAGS_target), absl::GetFlag(FLAGS_schedule),
                        PipelineFlags(), absl::GetFlag(FLAGS_tuning));
  } else if (cl.command == "cuda") {
    const std::string target = absl::GetFlag(FLAGS_target);
    status = CudaCommand(path, target.rfind("cuda-", 0) == 0 ? target : "cuda-sm90",
                         absl::GetFlag(FLAGS_schedule));
  } else if (cl.command == "run") {
    RunRequest request;
    request.model = path;
    request.input_shapes = cl.input_shapes;
    request.dim_bounds = cl.dim_bounds;
    request.params = absl::GetFlag(FLAGS_params);
    request.inputs = cl.inputs;
    request.random_inputs = absl::GetFlag(FLAGS_random_inputs);
    request.output_dir = absl::GetFlag(FLAGS_output_dir);
    request.target = absl::GetFlag(FLAGS_target);
    request.schedule = absl::GetFlag(FLAGS_schedule);
    request.threads = absl::GetFlag(FLAGS_threads);
    request.repeat = absl::GetFlag(FLAGS_repeat);
    request.trace = absl::GetFlag(FLAGS_trace);
    request.profile = absl::GetFlag(FLAGS_profile) || !request.trace.empty();
    request.use_cache = absl::GetFlag(FLAGS_kernel_cache);
    request.tuning = absl::GetFlag(FLAGS_tuning);
    request.pipeline = PipelineFlags();
    status = RunCommand(request);
  } else if (cl.command == "cache") {
    status = CacheCommand(path);
  } else if (cl.command == "assemble") {
    status = AssembleCommand(path, absl::GetFlag(FLAGS_params), cl.kernel_metas,
                             absl::GetFlag(FLAGS_out_dir), absl::GetFlag(FLAGS_name));
  } else {
    status = Interpret(path, cl.inputs, cl.input_shapes, cl.dim_bounds);
  }
  return Report(status);
}

}  // namespace
}  // namespace relay::tools

int main(int argc, char** argv) { return relay::tools::Main(argc, argv); }
