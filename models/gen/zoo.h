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
  // The input axes exporters leave open (torch.onnx.export's dynamic_axes), each a dim_param
  // with no value: "batch" on every model; "height" and "width" on the image models whose
  // layers take any size (the classifiers and ocr_det); "width" on ocr_rec, whose height of 48
  // its pooling assumes. bert_tiny's sequence stays fixed: its position table has seq_len rows.
  // Reshape targets then copy (0) or infer (-1) the open sizes, as exporters write them, so the
  // file runs at every size; the sizes above are the graph's weights and the fixed axes.
  // Without it, the file is byte for byte the static model.
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
