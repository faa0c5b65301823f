// Attachment analysis: which reductions (and kept elementwise stages) can be computed inside
// an output's loops (compute_at), and at which of its loops. The CPU strategy (strategy.cc)
// and the CUDA strategy (cuda_strategy.cc) ask the same question, each with the form of read
// its loops can serve (AttachedReads).
#ifndef RULES_RELAY_LOWERING_SCHEDULE_ATTACH_H_
#define RULES_RELAY_LOWERING_SCHEDULE_ATTACH_H_

#include <map>
#include <set>
#include <vector>

#include "lowering/schedule/expand.h"
#include "lowering/schedule/schedule.h"

namespace relay::schedule {

// The region of an attached stage that each iteration of its reader's loops may need.
enum class AttachedReads {
  // A box of the reader's loops (CPU: a vector strip, a row): every index of every read is a
  // variable of the reader (spatial or reduction) or a constant. The output must also read the
  // stage along at least one of its own axes; read through constants only, the stage is
  // computed once, at the root, instead of once per iteration.
  kBox,
  // One element per thread (CUDA): every index is one of the reader's spatial axes or a
  // constant. A stage the output reads through constants only is computed in every thread.
  kElement,
};

// The stages that can be computed inside output `o`'s loops, consumers first: reductions and
// the stages of `kept` (elementwise stages kept rather than inlined), none of them an output or
// already attached, each read (`readers`: FindReaders, expand.h) only by `o` or by stages
// already chosen, and every read of the form `reads` allows.
std::vector<Stage*> Attachable(const Schedule& schedule, const Readers& readers,
                               InlineExpander* expander, const Stage* o, AttachedReads reads,
                               const std::set<const Stage*>& kept = {});

// For every loop of `s` (by id), the original axes it is made of.
std::map<int, std::set<int>> AxesOfLoops(const Stage& s);

// The leaf of `o` to compute `r` at (a position in o's leaf loops): the deepest leaf whose
// value the reads of `r` in `body` (o's expanded body) depend on, stepping out of a vectorized
// loop, and out of any loop below the first one they do not depend on; -1 when the reads
// depend on no loop. `axes_of`: AxesOfLoops(o).
int DeepestDependentLeaf(const Stage& o, const std::map<int, std::set<int>>& axes_of,
                         const tir::PrimExpr& body, const te::OperationNode* r);

}  // namespace relay::schedule

#endif  // RULES_RELAY_LOWERING_SCHEDULE_ATTACH_H_
