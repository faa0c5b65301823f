"""relay_model_library: a model compiled into a cc_library, from its kernel library."""

load("@rules_cc//cc:defs.bzl", "cc_library")
load(":kernel_library.bzl", "compile_kernel_action")
load(":labels.bzl", "user_label")
load(":providers.bzl", "RelayKernelsInfo", "RelayModelSourceInfo", "RelayTargetInfo")
load(":toolchain.bzl", "TOOLCHAIN_TYPE", "relay_toolchain_info")

def _shape_flags(input_shapes):
    flags = []
    for name, dims in sorted(input_shapes.items()):
        flags.append("%s:%s" % (name, dims))
    return flags

def _bounds_flag(dim_bounds):
    """--dim_bounds' value: "N=1..16,H=64..1280:32", in name order."""
    return ",".join(["%s=%s" % (name, bounds) for name, bounds in sorted(dim_bounds.items())])

def _model_label(ctx):
    # The label users know: the macro's cc_library, not this rule's internal NAME_relay target.
    repo = "@" + ctx.label.workspace_name if ctx.label.workspace_name else ""
    return "%s//%s:%s" % (repo, ctx.label.package, ctx.attr.model_name)

def _update_command(ctx):
    return "bazel run %s.update_kernels" % _model_label(ctx)

def _relay_model_impl(ctx):
    relay = relay_toolchain_info(ctx)
    target = ctx.attr._target[RelayTargetInfo].name
    kernels = ctx.attr.kernels[RelayKernelsInfo]
    name = ctx.attr.model_name
    model = ctx.file.model
    if kernels.models and _model_label(ctx) not in kernels.models:
        # Unlisted, its kernels would look unused to the library's update target, which could
        # prune them (update_kernels.bzl, "Note on unused").
        fail(("%s uses the kernel library %s, whose models attribute does not list it: add " +
              "\"%s\" to its models, so that updates and pruning know the kernels it calls " +
              "(listed now: %s)") % (
            _model_label(ctx),
            user_label(ctx.attr.kernels.label),
            _model_label(ctx),
            ", ".join(kernels.models),
        ))

    # RelayPartition: the model's kernels, graph and weights. The kernel files are inputs only so
    # that relayc can tell which kernels the library has; their content does not matter here.
    graph = ctx.actions.declare_file(name + ".graph.json")
    params = ctx.actions.declare_file(name + ".params")
    listing = ctx.actions.declare_file(name + ".kernels.txt")
    overflow = ctx.actions.declare_file(name + ".overflow.relay")
    uncalled = ctx.actions.declare_file(name + ".uncalled.txt")
    args = ctx.actions.args()
    args.add("partition")
    args.add(model)
    args.add_all(_shape_flags(ctx.attr.input_shapes), before_each = "--input-shape")
    if ctx.attr.dim_bounds:
        args.add("--dim_bounds", _bounds_flag(ctx.attr.dim_bounds))
    if ctx.file.params:
        args.add("--params", ctx.file.params)
    kernel_srcs = kernels.srcs.to_list()
    kernel_dir = kernel_srcs[0].dirname if kernel_srcs else kernels.dir
    args.add("--kernel_dir", kernel_dir)
    args.add("--out_dir", graph.dirname)
    args.add("--name", name)
    ctx.actions.run(
        executable = relay.relayc,
        arguments = [args],
        inputs = [model] + ([ctx.file.params] if ctx.file.params else []) + kernel_srcs,
        outputs = [graph, params, listing, overflow, uncalled],
        mnemonic = "RelayPartition",
        progress_message = "Partitioning model %s (%s) into kernels" % (_model_label(ctx), model.short_path),
    )

    # Kernels the library lacks compile together, with a warning naming the fix.
    overflow_obj = ctx.actions.declare_file(name + "_overflow.a")
    overflow_meta = ctx.actions.declare_file(name + "_overflow.json")
    compile_kernel_action(
        ctx,
        relay,
        target,
        overflow,
        overflow_obj,
        overflow_meta,
        "overflow of %s (if any: the kernel library is stale, run `%s`)" %
        (_model_label(ctx), _update_command(ctx)),
        warn_label = _update_command(ctx),
    )

    # RelayAssemble: the executor and the weights.
    header = ctx.actions.declare_file(name + ".h")
    source = ctx.actions.declare_file(name + ".cc")
    params_obj = ctx.actions.declare_file(name + "_params.o")
    args = ctx.actions.args()
    args.add("assemble")
    args.add(graph)
    args.add("--params", params)
    args.add("--out_dir", header.dirname)
    args.add("--name", name)
    args.add_all(kernels.metadata, before_each = "--kernel_meta")
    args.add("--kernel_meta", overflow_meta)
    ctx.actions.run(
        executable = relay.relayc,
        arguments = [args],
        inputs = depset([graph, params, overflow_meta], transitive = [kernels.metadata]),
        outputs = [header, source, params_obj],
        mnemonic = "RelayAssemble",
        progress_message = "Assembling model %s for %s" % (_model_label(ctx), target),
    )

    # The overflow archive reaches the linker as an always-link library (.lo: whole archive):
    # Bazel puts a library's precompiled archives before its objects on the link line, where a
    # plain .a would be searched before the executor's references to its kernels exist.
    overflow_lib = ctx.actions.declare_file(name + "_overflow.lo")
    ctx.actions.symlink(output = overflow_lib, target_file = overflow_obj)
    objects = depset([overflow_lib, params_obj], transitive = [kernels.objects])
    return [
        RelayModelSourceInfo(
            label = _model_label(ctx),
            name = name,
            model = model,
            params = ctx.file.params,
            input_shapes = ctx.attr.input_shapes,
            dim_bounds = ctx.attr.dim_bounds,
        ),
        DefaultInfo(files = depset([header, source, params_obj, overflow_obj])),
        OutputGroupInfo(
            hdrs = depset([header]),
            srcs = depset([source], transitive = [objects]),
            partition = depset([graph, params, listing, overflow, uncalled]),
            overflow = depset([overflow]),
        ),
    ]

relay_model = rule(
    implementation = _relay_model_impl,
    attrs = {
        "model": attr.label(
            doc = "The model: an .onnx file, or Relay text (.relay) with `params`.",
            allow_single_file = [".onnx", ".relay"],
            mandatory = True,
        ),
        "params": attr.label(
            doc = "The weights of a .relay model (safetensors).",
            allow_single_file = True,
        ),
        "input_shapes": attr.string_dict(
            doc = "Shapes of inputs the model leaves open: {\"input\": \"1,3,224,224\"}, or " +
                  "with named dims, {\"input\": \"N,3,224,224\"} (bounds in dim_bounds).",
        ),
        "dim_bounds": attr.string_dict(
            doc = "Symbolic dims and the sizes they take, {\"N\": \"1..16\", \"H\": " +
                  "\"64..1280:32\"}: named in input_shapes or by the ONNX file (dim_param). " +
                  "The library then runs any of those sizes (docs/dynamic-shapes.md).",
        ),
        "kernels": attr.label(
            doc = "The relay_kernel_library holding this model's kernels.",
            providers = [RelayKernelsInfo],
            mandatory = True,
        ),
        "model_name": attr.string(
            doc = "The C++ name of the model (class and file names).",
            mandatory = True,
        ),
        "_target": attr.label(default = Label("//toolchains:target")),
    },
    toolchains = [TOOLCHAIN_TYPE],
    doc = "The actions of relay_model_library: partition, overflow compile, assemble.",
)
