"""rules_relay: build machine-learning models as Bazel targets.

Public API. Everything under rules/private/ may change; load from here.

    load("@rules_relay//rules:defs.bzl", "relay_kernel_library", "relay_model_library")

    relay_kernel_library(
        name = "kernels",
        dir = "kernels",      # compiles kernels/k_*.relay; update_kernels writes there
        models = [":resnet"],  # every model that shares the library
        summaries = KERNELS,  # from kernels/kernels.bzl, kept by update_kernels
    )

    relay_model_library(
        name = "resnet",
        model = "resnet.onnx",
        input_shapes = {"input": "1,3,224,224"},
        kernels = ":kernels",
    )

See docs/rules.md.
"""

load("//rules/private:kernel_macro.bzl", _relay_kernel_library = "relay_kernel_library")
load("//rules/private:model_macro.bzl", _relay_model_library = "relay_model_library")
load("//rules/private:model_test.bzl", _relay_model_test = "relay_model_test")
load(
    "//rules/private:providers.bzl",
    _RelayKernelsInfo = "RelayKernelsInfo",
    _RelayModelSourceInfo = "RelayModelSourceInfo",
    _RelayTargetInfo = "RelayTargetInfo",
    _RelayToolchainInfo = "RelayToolchainInfo",
)
load("//rules/private:toolchain.bzl", _relay_toolchain = "relay_toolchain")

relay_kernel_library = _relay_kernel_library
relay_model_library = _relay_model_library
relay_model_test = _relay_model_test
relay_toolchain = _relay_toolchain
RelayKernelsInfo = _RelayKernelsInfo
RelayModelSourceInfo = _RelayModelSourceInfo
RelayTargetInfo = _RelayTargetInfo
RelayToolchainInfo = _RelayToolchainInfo
