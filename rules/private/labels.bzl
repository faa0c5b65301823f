"""Label strings in macros: absolute forms to compare, and the names of sibling targets.

Macros see labels as the strings users wrote (":net", "//m:net", "//m"); Label() would resolve
them against rules_relay's repository, not the BUILD file's, so these work on the strings.
"""

def _repo_prefix():
    # "@" for the main repository (Bazel 4 and 7 alike): labels there are written without it.
    repo = native.repository_name()
    return "" if repo in ["@", "@@"] else repo

def absolute_label(label):
    """`label`, written in the current package, as "[@repo]//package:name"."""
    if label.startswith("@"):
        repo, _, rest = label.partition("//")
        prefix = repo
    elif label.startswith("//"):
        prefix, rest = _repo_prefix(), label[2:]
    else:
        prefix = _repo_prefix()
        rest = native.package_name() + (label if label.startswith(":") else ":" + label)
    if ":" not in rest:
        rest = "%s:%s" % (rest, rest.split("/")[-1])
    return "%s//%s" % (prefix, rest)

def sibling_label(label, suffix):
    """The target named like `label`'s with `suffix` appended, in the same package."""
    return absolute_label(label) + suffix

def package_of(label):
    """"[@repo]//package" of `label`."""
    return absolute_label(label).partition(":")[0]

def user_label(label):
    """A Label as users write it: Bazel 6+ print main-repository labels as "@@//m:kernels"."""
    text = str(label)
    for prefix in ["@@//", "@//"]:
        if text.startswith(prefix):
            return text[len(prefix) - 2:]
    return text
