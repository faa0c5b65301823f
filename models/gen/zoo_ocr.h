// Two models of a text-reading (OCR) pipeline, shaped like those deployed (PaddleOCR's):
// detection and recognition. Their op mix is what the ImageNet classifiers lack: upsampling
// (ConvTranspose, nearest and bilinear Resize), pyramid concatenation, hard-swish and
// squeeze-excitation, 5x5 depthwise and group convolutions, attention, a wide softmax.
#ifndef RULES_RELAY_MODELS_GEN_ZOO_OCR_H_
#define RULES_RELAY_MODELS_GEN_ZOO_OCR_H_

#include "models/gen/zoo.h"
#include "onnx/onnx_pb.h"

namespace relay::models {

// "ocr_det": a DBNet-style text detector. A MobileNetV3-large backbone at half width (hard-swish,
// squeeze-excitation with hard-sigmoid gates, 3x3 and 5x5 depthwise convs), an FPN neck (1x1
// laterals, top-down nearest and bilinear Resize, 3x3 smoothing, levels upsampled to 1/4 and
// concatenated), and a head of conv + two stride-2 ConvTransposes to the input's size with a
// sigmoid. Input "input" (1, 3, S, S) float32 with S = image_size (a multiple of 32; 640 in
// //models); output the (1, 1, S, S) text probability map.
onnx::ModelProto OcrDetector(const ZooOptions& o);

// "ocr_rec": a recognizer. Strided and group convolutions take a (1, 3, 48, 320) text line down
// to a 1 x 40 map of 192 channels, read as a sequence of 40; two pre-norm transformer layers
// (6 heads: MatMul, Softmax, LayerNormalization, a GELU feed-forward), then a projection onto a
// vocabulary of 6625 characters and a softmax over it. Output (1, 40, 6625) float32.
onnx::ModelProto OcrRecognizer(const ZooOptions& o);

}  // namespace relay::models

#endif  // RULES_RELAY_MODELS_GEN_ZOO_OCR_H_
