// Test helpers shared by the CUDA tests: kernels from Relay test files, seeded random inputs,
// the reference interpreter's outputs, and comparison with a tolerance.
#ifndef RULES_RELAY_LOWERING_CODEGEN_CUDA_TEST_UTIL_H_
#define RULES_RELAY_LOWERING_CODEGEN_CUDA_TEST_UTIL_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/ir/tensor.h"

namespace relay::codegen::testing {

// One kernel: a function of a test file in canonical kernel form.
struct KernelCase {
  std::string name;                      // "nn.relay:@conv2d_basic"
  std::string text;                      // canonical kernel text
  std::string id;                        // its kernel id
  std::vector<std::string> param_names;  // the original names (they choose value ranges)
  std::set<std::string> ops;
};

// Every function of the Relay module at `path` (relative to the workspace root).
absl::StatusOr<std::vector<KernelCase>> LoadKernelCases(const std::string& path);

// The kernel of a kernel file (k_<id>.relay) at `path`.
absl::StatusOr<KernelCase> LoadKernelFile(const std::string& path);

// Seeded inputs (topi::testing::RandomInput by parameter name) and the interpreter's outputs
// (a tuple flattened) for `c`.
struct Reference {
  std::vector<ir::Tensor> inputs;
  std::vector<ir::Tensor> outputs;
};
absl::StatusOr<Reference> RunReference(const KernelCase& c, uint64_t seed = 1000003);

// Empty if `got` matches `want`: exactly for integers and bools, within
// rtol * max(1, |want|) for floats (NaN matches NaN); else the first difference.
std::string Compare(const ir::Tensor& got, const ir::Tensor& want, double rtol);

// The workspace-relative test files with every op of docs/ops.md (several forms each) and
// fused kernels.
std::vector<std::string> EveryOpFiles();

}  // namespace relay::codegen::testing

#endif  // RULES_RELAY_LOWERING_CODEGEN_CUDA_TEST_UTIL_H_
