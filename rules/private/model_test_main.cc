// The driver of relay_model_test (rules/private/model_test.bzl), compiled once per test with
// RELAY_TEST_MODEL naming the model's class and RELAY_TEST_HEADER its header:
//
//   model_test --write DIR [SET...]
//       for each shape set k (one, at the inputs' largest shapes, when none is given), in one
//       model object: sets the dynamic inputs' shapes ("x:4,3,32,32;y:4"; RELAY_TEST_DYNAMIC
//       builds only), fills every input deterministically (input i from seed i + 1: floats in
//       [-1, 1), integers in [0, 10)), runs the model, writes DIR/<k>/input_<name>.npy and
//       DIR/<k>/output_<i>.npy; then prints each input's name on a line of its own;
//   model_test --compare DIR REF_DIR --rtol R --atol A
//       compares DIR/output_<i>.npy (ours) with REF_DIR/output_<i>.npy (the reference
//       interpreter's): same dtype and shape; floats within |ours - ref| <= A + R * |ref|,
//       everything else equal. Prints each output's largest errors; exit 1 naming the first
//       element out of tolerance.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/io/npy.h"
#include "lowering/ir/tensor.h"
#include "runtime/model_io.h"
#include "runtime/relay_runtime.h"
#include "runtime/tensor_view.h"

#define RELAY_TEST_STR2(x) #x
#define RELAY_TEST_STR(x) RELAY_TEST_STR2(x)
#include RELAY_TEST_STR(RELAY_TEST_HEADER)

namespace {

// Sets the shapes of one set, "x:4,3,32,32;y:4"; false (printed) on a malformed set or a shape
// the model refuses.
bool SetShapes(relay_models::RELAY_TEST_MODEL& model, const std::string& set) {
  if (set.empty()) return true;
#ifdef RELAY_TEST_DYNAMIC
  size_t start = 0;
  while (start <= set.size()) {
    const size_t end = std::min(set.find(';', start), set.size());
    const std::string item = set.substr(start, end - start);
    const size_t colon = item.rfind(':');
    std::vector<int64_t> dims;
    for (size_t p = colon + 1; colon != std::string::npos && p <= item.size();) {
      const size_t comma = std::min(item.find(',', p), item.size());
      dims.push_back(std::atoll(item.substr(p, comma - p).c_str()));
      p = comma + 1;
    }
    const std::string name = colon == std::string::npos ? item : item.substr(0, colon);
    int index = -1;
    for (int i = 0; i < model.num_inputs(); ++i) {
      if (name == model.input_name(i)) index = i;
    }
    if (index < 0 || model.SetInputShape(index, dims.data(), static_cast<int>(dims.size())) != 0) {
      std::fprintf(stderr, "model_test: shape '%s': %s\n", item.c_str(),
                   index < 0 ? "no such input" : RelayGetLastError());
      return false;
    }
    start = end + 1;
  }
  return true;
#else
  std::fprintf(stderr, "model_test: shape set '%s' for a model without symbolic dims\n",
               set.c_str());
  return false;
#endif
}

int Write(const std::string& dir, std::vector<std::string> sets) {
  relay_models::RELAY_TEST_MODEL model;
  if (!model.ok()) {
    std::fprintf(stderr, "model_test: cannot create the model: %s\n", RelayGetLastError());
    return 1;
  }
  if (sets.empty()) sets.push_back("");
  for (size_t k = 0; k < sets.size(); ++k) {
    const std::string out = dir + "/" + std::to_string(k);
    if (mkdir(out.c_str(), 0755) != 0 && errno != EEXIST) {
      std::fprintf(stderr, "model_test: cannot create %s\n", out.c_str());
      return 1;
    }
    if (!SetShapes(model, sets[k])) return 1;
    for (int i = 0; i < model.num_inputs(); ++i) {
      relay::FillDeterministic(model.input(i), static_cast<uint64_t>(i + 1), 10);
      const std::string path = out + "/input_" + model.input_name(i) + ".npy";
      if (!relay::WriteNpy(path, model.input(i))) {
        std::fprintf(stderr, "model_test: cannot write %s\n", path.c_str());
        return 1;
      }
    }
    if (model.Run() != 0) {
      std::fprintf(stderr, "model_test: the model failed: %s\n", RelayGetLastError());
      return 1;
    }
    for (int i = 0; i < model.num_outputs(); ++i) {
      const std::string path = out + "/output_" + std::to_string(i) + ".npy";
      if (!relay::WriteNpy(path, model.output(i))) {
        std::fprintf(stderr, "model_test: cannot write %s\n", path.c_str());
        return 1;
      }
    }
  }
  for (int i = 0; i < model.num_inputs(); ++i) std::printf("%s\n", model.input_name(i));
  return 0;
}

// One output: 0 when it agrees, 1 (with the reason printed) when not.
int CompareOutput(int i, const relay::ir::Tensor& ours, const relay::ir::Tensor& ref, double rtol,
                  double atol) {
  const std::string type = relay::ir::TypeToString(ours.type());
  if (ours.type() != ref.type()) {
    std::printf("output %d: ours is %s, the reference's %s\n", i, type.c_str(),
                relay::ir::TypeToString(ref.type()).c_str());
    return 1;
  }
  if (ours.dtype() != relay::ir::DType::kFloat32) {
    const bool equal = ours.BitwiseEqual(ref);
    std::printf("output %d: %s, %s\n", i, type.c_str(), equal ? "equal" : "values differ");
    return equal ? 0 : 1;
  }
  double max_abs = 0, max_rel = 0;
  for (int64_t k = 0; k < ours.NumElements(); ++k) {
    const double a = ours.GetDouble(k), b = ref.GetDouble(k);
    const double err = std::fabs(a - b);
    if (!(err <= atol + rtol * std::fabs(b))) {
      std::printf("output %d: element %lld is %.9g, the reference interpreter's %.9g (|diff| %.3g "
                  "> %g + %g * |ref|)\n",
                  i, static_cast<long long>(k), a, b, err, atol, rtol);
      return 1;
    }
    max_abs = std::fmax(max_abs, err);
    if (b != 0) max_rel = std::fmax(max_rel, err / std::fabs(b));
  }
  std::printf("output %d: %s, max abs err %.3g, max rel err %.3g\n", i, type.c_str(), max_abs,
              max_rel);
  return 0;
}

int Compare(const std::string& dir, const std::string& ref_dir, double rtol, double atol) {
  int bad = 0;
  for (int i = 0;; ++i) {
    const std::string name = "/output_" + std::to_string(i) + ".npy";
    absl::StatusOr<relay::ir::Tensor> ours = relay::io::ReadNpy(dir + name);
    if (!ours.ok()) {
      if (i > 0 && absl::IsNotFound(ours.status())) break;
      std::fprintf(stderr, "model_test: %s\n", std::string(ours.status().message()).c_str());
      return 1;
    }
    absl::StatusOr<relay::ir::Tensor> ref = relay::io::ReadNpy(ref_dir + name);
    if (!ref.ok()) {
      std::fprintf(stderr, "model_test: the reference has no output %d: %s\n", i,
                   std::string(ref.status().message()).c_str());
      return 1;
    }
    bad += CompareOutput(i, *ours, *ref, rtol, atol);
  }
  return bad == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "--write") == 0) {
    return Write(argv[2], std::vector<std::string>(argv + 3, argv + argc));
  }
  if (argc == 8 && std::strcmp(argv[1], "--compare") == 0 && std::strcmp(argv[4], "--rtol") == 0 &&
      std::strcmp(argv[6], "--atol") == 0) {
    return Compare(argv[2], argv[3], std::atof(argv[5]), std::atof(argv[7]));
  }
  std::fprintf(stderr,
               "usage: model_test --write DIR [SET...] | --compare DIR REF_DIR --rtol R --atol A\n");
  return 2;
}
