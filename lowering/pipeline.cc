#include "lowering/pipeline.h"

#include <functional>

#include "lowering/ir/text/printer.h"
#include "lowering/ir/type_infer.h"
#include "lowering/passes/alter_layout.h"
#include "lowering/passes/conv_transpose_to_conv.h"
#include "lowering/passes/dead_code.h"
#include "lowering/passes/dense_to_matmul.h"
#include "lowering/passes/fold_constants.h"
#include "lowering/passes/lift_constants.h"
#include "lowering/passes/simplify_inference.h"
#include "lowering/passes/winograd_conv.h"
#include "lowering/support/status_macros.h"

namespace relay {
namespace {

using passes::Model;

// Runs one pass and re-infers types, timed and dumped as asked.
absl::StatusOr<Model> Step(const std::string& name,
                           const std::function<absl::StatusOr<Model>(const Model&)>& pass,
                           const Model& in, const PipelineOptions& options) {
  return RunStep<Model>(
      name, options,
      [&]() -> absl::StatusOr<Model> {
        ASSIGN_OR_RETURN(Model out, pass(in));
        RETURN_IF_ERROR(ir::InferTypes(out.module));
        return out;
      },
      [](const Model& out) {
        ir::PrintOptions print;
        print.show_types = true;
        print.show_metadata = false;  // A model's weights would bury the graph.
        return ir::PrintModule(out.module, print);
      });
}

}  // namespace

absl::StatusOr<Model> OptimizeGraph(const Model& model, const PipelineOptions& options) {
  auto identity = [](const Model& m) -> absl::StatusOr<Model> { return m; };
  auto fold = [](const Model& m) { return passes::FoldConstants(m); };
  auto fuse = [&](const Model& m) -> absl::StatusOr<Model> {
    ASSIGN_OR_RETURN(ir::Module fused, passes::FuseOps(m.module, options.fuse));
    return Model{std::move(fused), m.params};
  };
  ASSIGN_OR_RETURN(Model m, Step("infer_types", identity, model, options));
  ASSIGN_OR_RETURN(m, Step("lift_constants", passes::LiftConstants, m, options));
  ASSIGN_OR_RETURN(m, Step("dead_code", passes::EliminateDeadCode, m, options));
  ASSIGN_OR_RETURN(m, Step("fold_constants", fold, m, options));
  ASSIGN_OR_RETURN(m, Step("simplify_inference", passes::SimplifyInference, m, options));
  ASSIGN_OR_RETURN(m, Step("conv_transpose_to_conv", passes::ConvTransposeToConv, m, options));
  ASSIGN_OR_RETURN(m, Step("dense_to_matmul", passes::DenseToMatmul, m, options));
  if (options.blocked_layouts) {
    ASSIGN_OR_RETURN(m, Step("alter_layout", passes::AlterLayout, m, options));
    if (options.winograd) {
      auto winograd = [](const Model& m) { return passes::WinogradConv(m); };
      ASSIGN_OR_RETURN(m, Step("winograd_conv", winograd, m, options));
    }
  }
  ASSIGN_OR_RETURN(m, Step("fold_constants_2", fold, m, options));
  ASSIGN_OR_RETURN(m, Step("fuse_ops", fuse, m, options));
  return m;
}

absl::StatusOr<passes::PartitionedModel> PartitionModel(const Model& model,
                                                        const PipelineOptions& options) {
  ASSIGN_OR_RETURN(Model optimized, OptimizeGraph(model, options));
  return passes::Partition(optimized);
}

}  // namespace relay
