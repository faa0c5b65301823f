// Helpers of the type-relation tests: run an op's relation as type inference does, and show
// the result so that a mismatch prints both sides.
#ifndef RULES_RELAY_LOWERING_IR_RELATION_TEST_UTIL_H_
#define RULES_RELAY_LOWERING_IR_RELATION_TEST_UTIL_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lowering/ir/op.h"

namespace relay::ir::relation_test {

using AttrList = std::vector<std::pair<std::string, AttrValue>>;

// Runs `op`'s relation the way type inference does: attributes completed by Attrs::Make.
inline absl::StatusOr<Type> Rel(const std::string& op, std::vector<Type> args,
                                AttrList attrs = {}) {
  const OpDef* def = FindOp(op);
  if (def == nullptr) return absl::NotFoundError(absl::StrCat("no op ", op));
  absl::StatusOr<Attrs> a = Attrs::Make(op, def->attrs, std::move(attrs));
  if (!a.ok()) return a.status();
  return def->relation(args, *a);
}

// "Tensor[...]" for a success, so a mismatch shows both sides.
inline std::string Ok(const absl::StatusOr<Type>& r) {
  return r.ok() ? TypeToString(*r) : absl::StrCat("error: ", r.status().ToString());
}

// The error message, or "OK: <type>" when there was no error (so HasSubstr fails readably).
inline std::string Err(const absl::StatusOr<Type>& r) {
  return r.ok() ? absl::StrCat("OK: ", TypeToString(*r)) : std::string(r.status().message());
}

}  // namespace relay::ir::relation_test

#endif  // RULES_RELAY_LOWERING_IR_RELATION_TEST_UTIL_H_
