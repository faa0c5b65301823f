#include "lowering/tools/partition_command.h"

#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lowering/io/file.h"
#include "lowering/io/safetensors.h"
#include "lowering/ir/text/parser.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/graph_json.h"
#include "lowering/pipeline.h"
#include "lowering/support/status_macros.h"

namespace relay::tools {
namespace {

std::string Stem(const std::string& path) {
  const size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = base.rfind('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

// Kernel ids of the `<id>.relay` files in `dir`, sorted; none when `dir` does not exist.
std::set<std::string> KernelFilesIn(const std::string& dir) {
  std::set<std::string> ids;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return ids;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() == 28 && name.rfind("k_", 0) == 0 &&
        name.compare(name.size() - 6, 6, ".relay") == 0) {
      ids.insert(name.substr(0, 22));
    }
  }
  closedir(d);
  return ids;
}

absl::StatusOr<passes::PartitionedModel> Run(const PartitionRequest& r) {
  ASSIGN_OR_RETURN(LoadedModel loaded, LoadModel(r.model, r.input_shapes, r.params));
  PipelineOptions options;
  options.dump_ir_after = r.dump_ir_after;
  options.time_passes = r.time_passes;
  passes::Model model{loaded.module, loaded.params};
  absl::StatusOr<passes::PartitionedModel> p = PartitionModel(model, options);
  if (!p.ok()) {
    return absl::Status(p.status().code(), absl::StrCat(r.model, ": ", p.status().message()));
  }
  return p;
}

std::string ShapesText(const passes::Graph& g, const std::vector<int>& ids) {
  std::vector<std::string> parts;
  for (int id : ids) {
    std::vector<std::string> dims;
    for (int64_t d : g.buffers[id].shape) dims.push_back(absl::StrCat(d));
    parts.push_back(absl::StrJoin(dims, "x"));
  }
  return absl::StrJoin(parts, ",");
}

}  // namespace

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> SplitKernelFile(
    const std::string& text, const std::string& source_name) {
  std::vector<std::pair<std::string, std::string>> kernels;
  const std::string header = std::string(passes::kKernelHeader) + "\n";
  size_t pos = 0;
  while (pos < text.size()) {
    if (text.compare(pos, header.size(), header) != 0) {
      return absl::InvalidArgumentError(absl::StrCat(source_name, ": error: expected '",
                                                     passes::kKernelHeader, "' at byte ", pos));
    }
    size_t next = text.find("\n" + header, pos);
    const size_t end = next == std::string::npos ? text.size() : next + 1;
    std::string kernel = text.substr(pos, end - pos);
    kernels.emplace_back(passes::KernelId(kernel), kernel);
    pos = end;
  }
  return kernels;
}

absl::Status PartitionCommand(const PartitionRequest& r) {
  if (r.kernel_dir.empty() && r.write_kernels) {
    return absl::InvalidArgumentError("--write_kernels needs --kernel_dir");
  }
  ASSIGN_OR_RETURN(passes::PartitionedModel p, Run(r));
  const std::string name = r.name.empty() ? Stem(r.model) : r.name;
  const std::string out = r.out_dir.empty() ? "." : r.out_dir;
  RETURN_IF_ERROR(io::MakeDirectories(out));
  const std::string base = absl::StrCat(out, "/", name);

  const std::set<std::string> present =
      r.kernel_dir.empty() ? std::set<std::string>() : KernelFilesIn(r.kernel_dir);
  std::string overflow, listing;
  std::set<std::string> used;
  int missing = 0;
  for (const passes::Kernel& k : p.kernels) {
    used.insert(k.id);
    const bool have = present.count(k.id) > 0;
    absl::StrAppend(&listing, k.id, " ", absl::StrJoin(k.ops, "+"), " ",
                    have || r.write_kernels ? "present" : "missing", "\n");
    if (have) continue;
    ++missing;
    if (r.write_kernels) {
      RETURN_IF_ERROR(io::MakeDirectories(r.kernel_dir));
      RETURN_IF_ERROR(
          io::WriteFileAtomically(absl::StrCat(r.kernel_dir, "/", k.id, ".relay"), k.text));
    } else {
      overflow += k.text;
    }
  }
  std::string unused;
  int num_unused = 0;
  for (const std::string& id : present) {
    if (used.count(id)) continue;
    absl::StrAppend(&unused, id, "\n");
    ++num_unused;
  }
  RETURN_IF_ERROR(
      io::WriteFileAtomically(base + ".graph.json", passes::GraphToJson(p.graph, p.kernels)));
  RETURN_IF_ERROR(io::WriteSafetensors(base + ".params", p.params));
  RETURN_IF_ERROR(io::WriteFileAtomically(base + ".kernels.txt", listing));
  RETURN_IF_ERROR(io::WriteFileAtomically(base + ".overflow.relay", overflow));
  RETURN_IF_ERROR(io::WriteFileAtomically(base + ".unused.txt", unused));
  std::printf("%s: %zu kernels, %zu calls, %d %s, %d unused kernel files\n", name.c_str(),
              p.kernels.size(), p.graph.calls.size(), missing,
              r.write_kernels ? "written" : "missing from the kernel library", num_unused);
  return absl::OkStatus();
}

absl::Status KernelsCommand(const PartitionRequest& r) {
  ASSIGN_OR_RETURN(passes::PartitionedModel p, Run(r));
  std::map<std::string, int> calls;
  std::map<std::string, std::string> shapes;
  for (const passes::KernelCall& c : p.graph.calls) {
    ++calls[c.kernel];
    shapes.emplace(c.kernel, ShapesText(p.graph, c.outputs));
  }
  std::printf("%-22s  %5s  %-20s  %12s  %s\n", "kernel", "calls", "output", "flops", "ops");
  int64_t total_flops = 0;
  for (const passes::Kernel& k : p.kernels) {
    std::printf("%-22s  %5d  %-20s  %12lld  %s\n", k.id.c_str(), calls[k.id], shapes[k.id].c_str(),
                static_cast<long long>(k.flops), absl::StrJoin(k.ops, "+").c_str());
    total_flops += k.flops * calls[k.id];
  }
  std::printf("%zu kernels, %zu calls, %.3f GFLOP per run\n", p.kernels.size(),
              p.graph.calls.size(), static_cast<double>(total_flops) / 1e9);
  return absl::OkStatus();
}

absl::StatusOr<LoadedModel> LoadPartitionedModel(const std::string& graph_path,
                                                 const std::vector<std::string>& kernel_dirs,
                                                 const std::vector<std::string>& overflow,
                                                 const std::string& params_path) {
  ASSIGN_OR_RETURN(std::string graph_text, io::ReadFile(graph_path));
  ASSIGN_OR_RETURN(passes::Graph graph, passes::GraphFromJson(graph_text, graph_path));
  std::map<std::string, std::pair<std::string, std::string>> texts;  // id -> (text, source)
  for (const std::string& file : overflow) {
    ASSIGN_OR_RETURN(std::string text, io::ReadFile(file));
    ASSIGN_OR_RETURN(auto kernels, SplitKernelFile(text, file));
    for (auto& [id, kernel] : kernels) texts.emplace(id, std::make_pair(kernel, file));
  }
  std::vector<passes::Kernel> kernels;
  for (const std::string& id : passes::KernelIds(graph)) {
    if (!texts.count(id)) {
      for (const std::string& dir : kernel_dirs) {
        const std::string path = absl::StrCat(dir, "/", id, ".relay");
        absl::StatusOr<std::string> text = io::ReadFile(path);
        if (!text.ok()) continue;
        const std::string actual = passes::KernelId(*text);
        if (actual != id) {
          return absl::InvalidArgumentError(absl::StrCat(
              path, ": error: the kernel's text hashes to ", actual, ", not to its name ", id));
        }
        texts.emplace(id, std::make_pair(*text, path));
        break;
      }
    }
    auto it = texts.find(id);
    if (it == texts.end()) {
      return absl::NotFoundError(
          absl::StrCat(graph_path, ": kernel ", id, " is in no kernel directory or overflow file"));
    }
    ASSIGN_OR_RETURN(ir::Function fn, ir::ParseKernel(it->second.first, it->second.second));
    passes::Kernel k;
    k.id = id;
    k.text = it->second.first;
    k.function = fn;
    kernels.push_back(std::move(k));
  }
  ASSIGN_OR_RETURN(ir::Module module, passes::GraphToModule(graph, kernels));
  LoadedModel loaded{module, {}};
  if (!params_path.empty()) {
    ASSIGN_OR_RETURN(loaded.params, io::ReadSafetensors(params_path));
  }
  for (const passes::Buffer& b : graph.buffers) {
    if (b.kind != passes::Buffer::Kind::kParam) continue;
    auto it = loaded.params.find(b.name);
    if (it == loaded.params.end()) {
      return absl::NotFoundError(
          absl::StrCat(graph_path, ": weight '", b.name, "' is not in the params file"));
    }
    if (it->second.shape() != b.shape || it->second.dtype() != b.dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          graph_path, ": weight '", b.name, "' has the wrong shape or dtype in ", params_path));
    }
  }
  return loaded;
}

}  // namespace relay::tools
