"""relay_kernel_library: the macro users call."""

load(":kernel_library.bzl", "relay_kernel_library_rule")
load(":labels.bzl", "absolute_label")
load(":update_kernels.bzl", "relay_library_update")

def _relative_to_package(src):
    # A glob gives "kernels/k_x.relay"; a hand-written list may say ":kernels/k_x.relay" or
    # "//pkg:kernels/k_x.relay".
    prefix = "//%s:" % native.package_name()
    if src.startswith(prefix):
        return src[len(prefix):]
    return src[1:] if src.startswith(":") else src

def relay_kernel_library(
        name,
        dir = "",
        srcs = None,
        models = [],
        summaries = {},
        tuning = None,
        visibility = None,
        tags = [],
        **kwargs):
    """A library of kernels, k_<id>.relay files in one folder, each compiled by its own action.

    Also defines `name.update` (bazel run: writes the kernels every listed model needs into the
    folder and lists the kernel files no listed model uses; `-- --prune` deletes them).

    Args:
      name: the library's name.
      dir: the folder of the kernel files, relative to the package ("kernels"); empty: the
        package folder. update_kernels writes there, and the library compiles exactly the
        .relay files there (each must be a kernel file, k_<id>.relay).
      srcs: leave it out: the library globs `dir`. Kept for BUILD files that list the files;
        it must then name exactly the .relay files of `dir`, or loading fails.
      models: the relay_model_library targets that share the library (":resnet", "//m:net").
        update targets count a kernel file unused only when none of them calls it; a model
        that uses the library without being listed fails to build while the list is not empty.
      summaries: kernel id -> "fused ops, output shape", for progress messages (kernels.bzl,
        kept by the update targets).
      tuning: the library's tuning database, "tuning.jsonl" (docs/tuning.md): kernels with a
        record for the target compile with the record's schedule; each compile action reads
        only its own kernel's record. `bazel run //<model>.tune` writes it.
      visibility: of the library and its update target.
      tags: for both targets.
      **kwargs: passed to both (`testonly`, ...).
    """

    # Every .relay file of the folder: one not named like a kernel is an error of the rule's, not
    # a file silently left out.
    found = native.glob([(dir.rstrip("/") + "/" if dir else "") + "*.relay"], allow_empty = True)
    if srcs == None:
        srcs = found
    elif sorted([_relative_to_package(s) for s in srcs]) != sorted(found):
        where = "/".join([p for p in [native.package_name(), dir] if p]) or "the root package"
        fail(("relay_kernel_library %s: srcs names %d file(s), but its dir '%s' (where " +
              "update_kernels writes) holds %d .relay file(s): %s. Leave srcs out " +
              "(the library then compiles the kernel files of dir), or set dir to the folder " +
              "srcs names.") % (
            absolute_label(":" + name),
            len(srcs),
            where,
            len(found),
            ", ".join(sorted(found)[:3] + (["..."] if len(found) > 3 else [])) or "none",
        ))
    listed = [absolute_label(m) for m in models]
    relay_kernel_library_rule(
        name = name,
        srcs = srcs,
        dir = dir,
        models = listed,
        summaries = summaries,
        tuning = tuning,
        visibility = visibility,
        tags = tags,
        **kwargs
    )
    relay_library_update(
        name = name + ".update",
        library = ":" + name,
        models = [m + "_relay" for m in listed],
        visibility = visibility,
        tags = tags,
        **kwargs
    )
