"""The kernel library rule: one RelayCompile action per kernel file and target.

Users call the relay_kernel_library macro (kernel_macro.bzl), which globs the library's folder
and adds its update target.
"""

load(":providers.bzl", "RelayApplyTuningInfo", "RelayKernelsInfo", "RelayTargetInfo")
load(":targets.bzl", "KERNEL_ID_HEX_DIGITS", "KERNEL_ID_PREFIX", "TARGETS")
load(":toolchain.bzl", "TOOLCHAIN_TYPE", "relay_toolchain_info")

_HEX = "0123456789abcdef"

def kernel_id(file):
    """The kernel id of a kernel file, or None if its name is not k_<20 hex digits>.relay."""
    name = file.basename
    id_length = len(KERNEL_ID_PREFIX) + KERNEL_ID_HEX_DIGITS
    if not name.endswith(".relay") or not name.startswith(KERNEL_ID_PREFIX) or len(name) != id_length + len(".relay"):
        return None
    for c in name[len(KERNEL_ID_PREFIX):id_length].elems():
        if c not in _HEX:
            return None
    return name[:id_length]

def compile_kernel_action(ctx, relay, target, src, obj, meta, summary, warn_label = None, record = None):
    """Declares the RelayCompile action of one kernel file (or an overflow file).

    With `warn_label`, src is an overflow file: relayc warns when it holds any kernel, naming
    the command that brings the kernel library up to date. With `record`, the kernel's own
    tuning record (a one-line database, or an empty file) is an input of the action and applies.
    """
    args = ctx.actions.args()
    args.add("compile")
    if warn_label:
        args.add("--overflow_warning", warn_label)
    args.add("--target", target)
    args.add("--llvm_version", relay.llvm_version)
    if relay.llvm_digest:
        args.add("--llvm_digest", relay.llvm_digest)
    if TARGETS[target] == "cuda" and relay.nvcc:
        args.add("--nvcc", relay.nvcc)
    if TARGETS[target] == "cuda" and relay.nvcc_digest:
        args.add("--nvcc_digest", relay.nvcc_digest)
    if TARGETS[target] == "cuda" and relay.ptxas_digest:
        args.add("--ptxas_digest", relay.ptxas_digest)
    if record:
        args.add("--tuning", record)
    args.add("--metadata", meta)
    args.add("-o", obj)
    args.add(src)
    ctx.actions.run(
        executable = relay.relayc,
        arguments = [args],
        inputs = [src] + ([record] if record else []),
        outputs = [obj, meta],
        mnemonic = "RelayCompile",
        progress_message = "Compiling kernel %s for %s" % (summary, target),
    )

def _split_tuning(ctx, relay, target, ids):
    """The library's tuning database split into one record file per kernel: {id: File}.

    One cheap action reads the database; each compile action then reads only its kernel's
    record, so editing one record changes one compile action's inputs and recompiles one kernel.
    """
    ids_file = ctx.actions.declare_file("%s_%s_tuning/kernel_ids.txt" % (ctx.label.name, target))
    ctx.actions.write(ids_file, "".join([kid + "\n" for kid in ids]))
    records = {}
    for kid in ids:
        records[kid] = ctx.actions.declare_file("%s_%s_tuning/%s.tuning.jsonl" % (ctx.label.name, target, kid))
    args = ctx.actions.args()
    args.add("split_tuning")
    args.add("--target", target)
    args.add("--kernel_ids", ids_file)
    args.add("--out_dir", ids_file.dirname)
    args.add(ctx.file.tuning)
    ctx.actions.run(
        executable = relay.relayc,
        arguments = [args],
        inputs = [ctx.file.tuning, ids_file],
        outputs = records.values(),
        mnemonic = "RelaySplitTuning",
        progress_message = "Splitting tuning database %s for %s" % (ctx.file.tuning.short_path, target),
    )
    return records

def _relay_kernel_library_impl(ctx):
    relay = relay_toolchain_info(ctx)
    target = ctx.attr._target[RelayTargetInfo].name
    dirs = {}
    objects = []
    metadata = []
    ids = []
    for src in ctx.files.srcs:
        kid = kernel_id(src)
        if kid == None:
            fail("srcs: '%s' is not a kernel file: kernel files are named k_<20 hex digits>.relay " % src.short_path +
                 "(write them with `bazel run //<package>:<model>.update_kernels`)")
        ids.append(kid)
    apply_tuning = ctx.attr._apply_tuning[RelayApplyTuningInfo].apply
    records = _split_tuning(ctx, relay, target, ids) if ctx.file.tuning and ids and apply_tuning else {}
    for src in ctx.files.srcs:
        kid = kernel_id(src)
        dirs[src.dirname] = True
        obj = ctx.actions.declare_file("%s_%s/%s.o" % (ctx.label.name, target, kid))
        meta = ctx.actions.declare_file("%s_%s/%s.json" % (ctx.label.name, target, kid))
        summary = ctx.attr.summaries.get(kid, "")
        label = kid if not summary else "%s (%s)" % (kid, summary)
        compile_kernel_action(ctx, relay, target, src, obj, meta, label, record = records.get(kid))
        objects.append(obj)
        metadata.append(meta)
    if len(dirs) > 1:
        fail("srcs: the kernel files of one library must be in one folder, found: %s" %
             ", ".join(sorted(dirs.keys())))

    # Joined without empty parts: a library in the root package must not name "/kernels".
    folder = "/".join([p for p in [ctx.label.package, ctx.attr.dir] if p]) or "."
    return [
        DefaultInfo(files = depset(objects)),
        RelayKernelsInfo(
            srcs = depset(ctx.files.srcs),
            dir = folder,
            objects = depset(objects),
            metadata = depset(metadata),
            target = target,
            models = ctx.attr.models,
            tuning = ctx.file.tuning,
        ),
    ]

relay_kernel_library_rule = rule(
    implementation = _relay_kernel_library_impl,
    attrs = {
        "srcs": attr.label_list(
            doc = "The kernel files, k_<id>.relay: the macro's glob of `dir`. Each is " +
                  "compiled by its own action, keyed by the file's content.",
            allow_files = [".relay"],
        ),
        "models": attr.string_list(
            doc = "Absolute labels of the relay_model_library targets sharing the library " +
                  "(strings, not dependencies: the models depend on the library).",
        ),
        "dir": attr.string(
            doc = "The folder of the kernel files, relative to the package (\"kernels\"): " +
                  "where update_kernels writes new kernels. Empty: the package folder.",
        ),
        "summaries": attr.string_dict(
            doc = "Kernel id -> \"fused ops, output shape\", for progress messages. " +
                  "update_kernels keeps it in <dir>/kernels.bzl.",
        ),
        "tuning": attr.label(
            doc = "The library's tuning database (JSON lines, docs/tuning.md): a kernel with " +
                  "a record for the target compiles with the record's schedule. Each compile " +
                  "action gets only its own kernel's record.",
            allow_single_file = [".jsonl"],
        ),
        "_target": attr.label(default = Label("//toolchains:target")),
        "_apply_tuning": attr.label(default = Label("//toolchains:apply_tuning")),
    },
    toolchains = [TOOLCHAIN_TYPE],
    doc = "A library of kernels (fused primitive functions in canonical Relay text), compiled " +
          "for the target of --//toolchains:target. Several models may share one library. " +
          "Private: use the relay_kernel_library macro.",
)
