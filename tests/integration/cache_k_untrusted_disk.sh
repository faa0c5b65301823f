#!/bin/bash
# cache k. An untrusted build never fills a cache that a trusted build reads, the local disk
# cache included. On one CI machine a pull request's build (no credentials, --config=remote-ro,
# and the disk cache that .bazelrc gives every build) fills the disk cache; a second untrusted
# build from another output base takes every action from it, so whatever the pull request put
# there would be built in. The trusted build (cache/bazel-ci.sh: --config=ci, whose
# `--disk_cache=` turns the disk cache off) from a third output base takes nothing from it:
# with the remote cache still empty it runs every action itself and uploads, and the disk cache
# is as the pull request left it.
source "$(dirname "${BASH_SOURCE[0]}")/cache_lib.sh"
cache_begin

cache_server_start
cache_workspace "$ITEST_TMP/a"
# The disk cache as .bazelrc gives it to every build: from an rc file, after the repository's
# own (which it replaces with a folder of the test's), never on the command line, where it
# would also override build:ci's.
disk="$ITEST_TMP/disk"
echo "build --disk_cache=$disk" >>"$WS/.bazelrc"
unset DISK
mkdir -p "$WS/g"
cat >"$WS/g/BUILD" <<'BUILD'
# Three actions in a chain.
genrule(
    name = "one",
    outs = ["one.txt"],
    cmd = "echo one >$@",
)

genrule(
    name = "two",
    srcs = [":one"],
    outs = ["two.txt"],
    cmd = "cat $< >$@ && echo two >>$@",
)

genrule(
    name = "three",
    srcs = [":two"],
    outs = ["three.txt"],
    cmd = "cat $< >$@ && echo three >>$@",
)
BUILD

# uses_output_base NAME: another checkout's output base on this machine.
uses_output_base() {
  OB="$ITEST_TMP/$1.ob"
  ITEST_SERVERS+=("$OB|$WS")
}

# (Not --config=remote-ro: Bazel 4's --noremote_upload_local_results keeps such a build from
# writing the disk cache too.)
uses_output_base pull_request
must_bazel build //g:all
report_counts "pull request"
expect_success "the pull request's build succeeds"
expect_eq "it ran the three actions" "$(count_spawns Genrule executed)" 3
ac_entries="$(find "$disk" -path "*/ac/*" -type f | wc -l)"
if ((ac_entries >= 3)); then
  pass "it wrote the disk cache ($ac_entries action entries)"
else
  fail "the disk cache holds $ac_entries action entries, not the pull request's three"
fi
# One digest of every file of the disk cache, names and contents.
disk_state() { (cd "$disk" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16; }
disk_before="$(disk_state)"

uses_output_base developer
must_bazel build //g:all
report_counts "untrusted, another output base"
expect_eq "another untrusted build takes every action from the disk cache" \
  "$(count_spawns Genrule hits)" 3

uses_output_base trusted
cache_bazel_ci build //g:all
report_counts "trusted"
expect_success "the trusted build succeeds"
expect_eq "the trusted build took nothing from the disk cache" "$(count_spawns Genrule hits)" 0
expect_eq "it ran the three actions itself" "$(count_spawns Genrule executed)" 3
uploads="$(access_count PUT 201)"
if ((uploads >= 3)); then
  pass "it uploaded them ($uploads blobs)"
else
  fail "it uploaded $uploads blobs, fewer than its three actions' entries"
fi
expect_eq "it left the disk cache as it was" "$(disk_state)" "$disk_before"

itest_end
