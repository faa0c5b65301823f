// The deterministic inputs of the GPU model check (gpu_check.cc runs the CUDA models on them,
// gpu_reference.cc the reference interpreter): header-only, no dependencies, so that the check
// binary links nothing but the models and the runtime.
#ifndef RULES_RELAY_TESTS_CUDA_GPU_INPUTS_H_
#define RULES_RELAY_TESTS_CUDA_GPU_INPUTS_H_

#include <cmath>
#include <cstdint>

namespace relay::testing {

// Element i of a float input: a smooth signal in [-1, 1].
inline float GpuCheckFloat(int64_t i) { return static_cast<float>(std::sin(0.37 * i)); }

// Element i of an integer input (token ids): in [0, 1000).
inline int64_t GpuCheckInt(int64_t i) { return (i * 37 + 11) % 1000; }

}  // namespace relay::testing

#endif  // RULES_RELAY_TESTS_CUDA_GPU_INPUTS_H_
