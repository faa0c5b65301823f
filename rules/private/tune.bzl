"""MODEL.tune (bazel run): tunes the kernels a model needs that have no record yet.

Like update_kernels, it writes into the source tree: the kernel library's tuning database
(its `tuning` attribute), for the configured target, on the machine it runs on (docs/tuning.md).
"""

load(":labels.bzl", "user_label")
load(":providers.bzl", "RelayKernelsInfo")
load(":toolchain.bzl", "TOOLCHAIN_TYPE", "relay_toolchain_info")
load(":update_kernels.bzl", "bazel_run_preamble")

def _relay_tune_impl(ctx):
    relay = relay_toolchain_info(ctx)
    library = ctx.attr.kernels[RelayKernelsInfo]
    library_label = user_label(ctx.attr.kernels.label)
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    graph = [f for f in ctx.files.partition if f.basename.endswith(".graph.json")]
    if len(graph) != 1:
        fail("partition: expected one .graph.json among %s" % [f.basename for f in ctx.files.partition])
    lines = bazel_run_preamble(ctx.label)
    if not library.tuning:
        lines += [
            'echo "%s has no tuning database: create an empty one (touch %s/tuning.jsonl) and set tuning = \\"tuning.jsonl\\" on %s" >&2' % (library_label, library.dir, library_label),
            "exit 1",
        ]
    else:
        lines += [
            'exec "$PWD/%s" tune "$PWD/%s" --kernel_dir "$BUILD_WORKSPACE_DIRECTORY/%s" \\' % (
                relay.relayc.executable.short_path,
                graph[0].short_path,
                library.dir,
            ),
            '  --target %s --tuning "$BUILD_WORKSPACE_DIRECTORY/%s" --skip_tuned --budget_s %d "$@"' % (
                library.target,
                library.tuning.short_path,
                ctx.attr.budget_s,
            ),
        ]
    ctx.actions.write(script, "\n".join(lines) + "\n", is_executable = True)
    runfiles = ctx.runfiles(files = graph, transitive_files = depset([relay.relayc.executable]))
    return [DefaultInfo(executable = script, runfiles = runfiles)]

relay_tune = rule(
    implementation = _relay_tune_impl,
    attrs = {
        "partition": attr.label(
            doc = "The model's partition outputs (its NAME.graph.json: the kernels it calls).",
            mandatory = True,
        ),
        "kernels": attr.label(
            doc = "The model's kernel library: its folder and its tuning database.",
            providers = [RelayKernelsInfo],
            mandatory = True,
        ),
        "budget_s": attr.int(
            doc = "Seconds for one run, shared among the kernels (`-- --budget_s S` overrides).",
            default = 1800,
        ),
    },
    executable = True,
    toolchains = [TOOLCHAIN_TYPE],
    doc = "MODEL.tune (`bazel run`): measures schedule candidates for each kernel the model " +
          "calls that has no record for the configured target, heaviest first, and writes " +
          "the records into the kernel library's tuning database.",
)
