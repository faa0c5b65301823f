#include "lowering/tools/values.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lowering/ir/dtype.h"

namespace relay::tools {
namespace {

// splitmix64: a tiny generator whose sequence is fixed by its definition, unlike the
// implementation-defined distributions of <random>.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1), with 53 random bits.
  double NextUnit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

}  // namespace

ir::Tensor RandomTensor(const std::string& name, const ir::Type& type) {
  uint64_t seed = 0xcbf29ce484222325ull;
  for (unsigned char c : name) seed = (seed ^ c) * 0x100000001b3ull;
  SplitMix64 rng(seed);
  ir::Tensor t(type.shape(), type.dtype());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    double u = rng.NextUnit();
    if (ir::IsFloat(type.dtype())) {
      t.SetDouble(i, 2 * u - 1);
    } else if (ir::IsInt(type.dtype())) {
      t.SetDouble(i, static_cast<double>(static_cast<int>(u * 10)));
    } else {
      t.SetDouble(i, u < 0.5 ? 0 : 1);
    }
  }
  return t;
}

std::string Preview(const ir::Tensor& t) {
  const int64_t kShown = t.NumElements() <= 10 ? 10 : 6;
  std::vector<std::string> values;
  for (int64_t i = 0; i < t.NumElements() && i < kShown; ++i) {
    values.push_back(absl::StrFormat("%.6g", t.GetDouble(i)));
  }
  std::string text = absl::StrCat("[", absl::StrJoin(values, ", "));
  if (t.NumElements() > kShown) absl::StrAppend(&text, ", ... (", t.NumElements(), " values)");
  return text + "]";
}

}  // namespace relay::tools
