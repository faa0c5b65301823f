// modelgen: writes a zoo model as an ONNX file (run at build time by //models).
//
//   modelgen --model=resnet18 [--image_size=224] [--width_divisor=1] [--seq_len=128]
//            [--dynamic_inputs] -o out.onnx
#include <cstdio>
#include <fstream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "models/gen/zoo.h"

ABSL_FLAG(std::string, model, "", "zoo model name");
ABSL_FLAG(std::string, o, "", "output .onnx path");
ABSL_FLAG(int64_t, image_size, 224, "CNN input height and width");
ABSL_FLAG(int64_t, num_classes, 1000, "classifier outputs");
ABSL_FLAG(int64_t, seq_len, 128, "bert_tiny sequence length");
ABSL_FLAG(int64_t, width_divisor, 1, "divide every channel count by this (small variants)");
ABSL_FLAG(uint64_t, seed, 1, "weight seed");
ABSL_FLAG(bool, dynamic_inputs, false,
          "open the batch (and image sizes) as exporters do; see ZooOptions");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  relay::models::ZooOptions options;
  options.image_size = absl::GetFlag(FLAGS_image_size);
  options.num_classes = absl::GetFlag(FLAGS_num_classes);
  options.seq_len = absl::GetFlag(FLAGS_seq_len);
  options.width_divisor = absl::GetFlag(FLAGS_width_divisor);
  options.seed = absl::GetFlag(FLAGS_seed);
  options.dynamic_inputs = absl::GetFlag(FLAGS_dynamic_inputs);
  const std::string out = absl::GetFlag(FLAGS_o);
  if (out.empty()) {
    std::fprintf(stderr, "modelgen: -o is required\n");
    return 2;
  }
  absl::StatusOr<onnx::ModelProto> model =
      relay::models::BuildZooModel(absl::GetFlag(FLAGS_model), options);
  if (!model.ok()) {
    std::fprintf(stderr, "modelgen: %s\n", std::string(model.status().message()).c_str());
    return 1;
  }
  // Protobuf serialisation of a message built in one fixed order is deterministic.
  std::string bytes;
  if (!model->SerializeToString(&bytes)) {
    std::fprintf(stderr, "modelgen: cannot serialise the model\n");
    return 1;
  }
  const std::string tmp = out + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f) {
      std::fprintf(stderr, "modelgen: cannot write %s\n", tmp.c_str());
      return 1;
    }
  }
  if (std::rename(tmp.c_str(), out.c_str()) != 0) {
    std::fprintf(stderr, "modelgen: cannot rename %s to %s\n", tmp.c_str(), out.c_str());
    return 1;
  }
  return 0;
}
