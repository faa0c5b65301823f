// The model zoo: ONNX models with seeded weights, built in code so no large binary is checked in.
#ifndef RULES_RELAY_MODELS_GEN_ZOO_H_
#define RULES_RELAY_MODELS_GEN_ZOO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"

namespace relay::models {

// The ONNX opset every zoo model is written in.
inline constexpr int64_t kZooOpset = 17;

struct ZooOptions {
  int64_t image_size = 224;  // CNNs: input is (1, 3, image_size, image_size)
  int64_t num_classes = 1000;
  int64_t seq_len = 128;      // bert_tiny: tokens per sequence
  int64_t width_divisor = 1;  // divide every channel count (small test variants)
  uint64_t seed = 1;
  // Every input dimension open (a dim_param such as "input.dim0", no value), as exporters
  // write dynamic axes; the graph is built for the sizes above all the same.
  bool dynamic_inputs = false;
};

// "resnet18", "resnet50", "mobilenet_v2", "mlp", "bert_tiny", "ocr_det", "ocr_rec" (zoo_ocr.h).
// Unknown names are NotFound.
// Inputs: CNNs "input" (1, 3, S, S) float32; mlp "input" (1, 784) float32; bert_tiny
// "input_ids" (1, seq_len) int64, values in [0, 1024). One float32 output: the class scores
// (1, num_classes), or for bert_tiny the hidden states (1, seq_len, 128). Opset 17.
absl::StatusOr<onnx::ModelProto> BuildZooModel(const std::string& name,
                                               const ZooOptions& options = {});

std::vector<std::string> ZooModelNames();

}  // namespace relay::models

#endif  // RULES_RELAY_MODELS_GEN_ZOO_H_
