"""cc_unity_library: a cc_library whose .cc files compile as one translation unit.

A cold build of relayc is mostly the compiler parsing the same headers (Abseil's StatusOr, the
IR, protobuf, LLVM) once per .cc file. A library's sources concatenated into one file, each
after a `#line 1 "path"` directive so that diagnostics and debug info name the original file
and line, parse them once: 58 files in 12 libraries become 12 translation units.

The price: a library's .cc files share one namespace scope, so two of them may not define the
same name in an anonymous namespace (put shared helpers in a header), and editing one file
recompiles its library. `--define=unity=off` compiles every file on its own (the same
sources, as a check that each includes what it uses).
"""

def cc_unity_library(name, srcs = [], **kwargs):
    """A cc_library (same arguments) whose .cc sources are compiled as one file.

    Args:
      name: the library's name.
      srcs: as for cc_library; the .cc files are concatenated in this order.
      **kwargs: passed to cc_library.
    """
    cc_srcs = [s for s in srcs if s.endswith(".cc")]
    if len(cc_srcs) < 2:
        native.cc_library(name = name, srcs = srcs, **kwargs)
        return
    others = [s for s in srcs if not s.endswith(".cc")]
    native.genrule(
        name = name + "_unity_src",
        srcs = cc_srcs,
        outs = [name + "_unity.cc"],
        cmd = "for f in $(SRCS); do printf '#line 1 \"%s\"\\n' \"$$f\"; cat \"$$f\"; echo; done > $@",
        visibility = ["//visibility:private"],
    )
    native.cc_library(
        name = name,
        srcs = select({
            str(Label("//build_defs:unity_off")): srcs,
            "//conditions:default": [name + "_unity.cc"] + others,
        }),
        **kwargs
    )
