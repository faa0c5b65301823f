"""relay_model_library: the macro users call."""

load("@rules_cc//cc:defs.bzl", "cc_library")
load(":labels.bzl", "package_of", "sibling_label")
load(":model_library.bzl", "relay_model")
load(":target.bzl", "CUDA_TARGETS", "target_setting")
load(":tune.bzl", "relay_tune")
load(":update_kernels.bzl", "relay_kernels_test", "relay_update_kernels")

def relay_model_library(
        name,
        model,
        kernels,
        input_shapes = {},
        dim_bounds = {},
        params = None,
        visibility = None,
        tags = [],
        **kwargs):
    """A model compiled into a cc_library named `name`, with `name.h` as its header.

    Also defines `name.update_kernels` (bazel run: writes the kernels the model needs into the
    kernel library's folder and reports kernel files no model of the library calls),
    `name_kernels_test` (fails while the library lacks one) and `name.tune` (bazel run: tunes
    the model's kernels that have no record in the library's tuning database).

    Args:
      name: the target name, also the model's C++ name (class `relay_models::name`, `name.h`).
      model: the model file: .onnx, or .relay with `params`.
      kernels: the relay_kernel_library with the model's kernels; when it lists its models,
        this model must be among them.
      input_shapes: shapes of inputs the model leaves open, {"input": "1,3,224,224"}; a dim
        may be a name with bounds in dim_bounds, {"input": "N,3,224,224"}.
      dim_bounds: symbolic dims and the sizes they take, {"N": "1..16", "H": "64..1280:32"}
        (named in input_shapes or by the ONNX file): the library runs any of them, its inputs'
        shapes set per call (docs/dynamic-shapes.md).
      params: the weights of a .relay model (safetensors).
      visibility: of the cc_library.
      tags: for every target the macro defines.
      **kwargs: passed to the cc_library; `testonly` applies to every target.
    """
    testonly = kwargs.get("testonly", False)
    package = native.package_name()
    if kernels.startswith("//") or kernels.startswith("@"):
        kernels_label = kernels
    else:
        # Messages name the library absolutely: ":kernels" means nothing in a CI log.
        kernels_label = "//%s%s%s" % (package, "" if kernels.startswith(":") else ":", kernels)
    relay_model(
        name = name + "_relay",
        model = model,
        params = params,
        input_shapes = input_shapes,
        dim_bounds = dim_bounds,
        kernels = kernels,
        model_name = name,
        tags = tags,
        testonly = testonly,
        # The library's update target reads the model's sources from here.
        visibility = [package_of(kernels) + ":__pkg__"],
    )
    for group in ["hdrs", "srcs", "partition", "overflow"]:
        native.filegroup(
            name = "%s_%s" % (name, group),
            srcs = [":%s_relay" % name],
            output_group = group,
            tags = tags,
            testonly = testonly,
        )
    cc_library(
        name = name,
        srcs = [":%s_srcs" % name],
        hdrs = [":%s_hdrs" % name],
        # CUDA kernels and executors call the CUDA runtime (which loads the driver itself).
        deps = [Label("//runtime")] + select(dict(
            [(str(Label("//toolchains:" + target_setting(t))), [Label("//runtime/cuda")]) for t in CUDA_TARGETS] +
            [("//conditions:default", [])],
        )),
        visibility = visibility,
        tags = tags,
        **kwargs
    )
    relay_update_kernels(
        name = name + ".update_kernels",
        model = ":%s_relay" % name,
        kernels = kernels,
        library_update = sibling_label(kernels, ".update"),
        tags = tags,
        testonly = testonly,
    )
    relay_tune(
        name = name + ".tune",
        partition = ":%s_partition" % name,
        kernels = kernels,
        tags = tags,
        testonly = testonly,
    )
    relay_kernels_test(
        name = name + "_kernels_test",
        overflow = ":%s_overflow" % name,
        listing = ":%s_partition_listing" % name,
        kernels_label = kernels_label,
        model_label = "//%s:%s" % (package, name),
        update_target = "//%s:%s.update_kernels" % (package, name),
        tags = tags,
    )
    native.genrule(
        name = name + "_partition_listing",
        srcs = [":%s_partition" % name],
        outs = [name + "_kernels_listing.txt"],
        cmd = "for f in $(SRCS); do case $$f in *.kernels.txt) cp $$f $@;; esac; done",
        tags = tags,
        testonly = testonly,
    )
