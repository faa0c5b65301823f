// The text of the generated NAME.h (the model's C++ class and C API) and NAME.cc (its
// ahead-of-time executor); assemble.h describes what the executor does.
#ifndef RULES_RELAY_LOWERING_ASSEMBLE_EXECUTOR_CODE_H_
#define RULES_RELAY_LOWERING_ASSEMBLE_EXECUTOR_CODE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lowering/assemble/assemble.h"
#include "lowering/assemble/executor_layout.h"
#include "lowering/graph/graph.h"

namespace relay::assemble {

// NAME.h: the class relay_models::NAME and the C functions NAME_*, documented for the user.
std::string GenerateHeader(const std::string& name, const AssembleInputs& in);

// NAME.cc for inputs that passed Generate's checks, laid out by `layout`; `cuda`: the kernels
// take device pointers (the block and the weights are mirrored on the GPU).
std::string GenerateSource(const std::string& name, const AssembleInputs& in, const Layout& layout,
                           bool cuda);

// By call: where its arguments start in the argument array (NumCallArgs of the calls before).
std::vector<int64_t> CallArgIndex(const AssembleInputs& in);

// The statement of Run() that makes call `c` of the graph, whose arguments start at
// `arg_index` in the argument array: "if ((code = k_...(args + 4)) != 0) return ...;".
std::string CallStatement(const AssembleInputs& in, size_t c, int64_t arg_index);

// For CPU executors: the profiler's table of the calls (runtime/relay_profile.h: kernel, fused
// ops, shapes, flops, argument bytes, vector width) and RelayRunProfiled(args), Run()'s calls
// timed one by one, which Run() takes instead while RelayProfiling() says so. Goes inside NAME.cc's
// anonymous namespace, after RelayCallFailed.
std::string GenerateProfiledCalls(const std::string& name, const AssembleInputs& in,
                                  const Layout& layout);

// For executors with row groups (layout.row_groups, row_groups.h): the table of each argument's
// step per row and RelayCallRow, inside NAME.cc's anonymous namespace before the profiled
// calls; "" without groups.
std::string RowGroupTables(const AssembleInputs& in, const Layout& layout);

// The statements that run `group`'s calls one row at a time, `arg_index` giving each call's
// first argument, the rows read from `dims` (the bound dims array); `profiled`: each call timed
// over its rows and recorded (in RelayRunProfiled).
std::string RowGroupLoop(const AssembleInputs& in, const RowGroup& group,
                         const std::vector<int64_t>& arg_index, const std::string& dims,
                         bool profiled, const std::string& indent);

}  // namespace relay::assemble

#endif  // RULES_RELAY_LOWERING_ASSEMBLE_EXECUTOR_CODE_H_
