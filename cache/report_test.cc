#include "cache/report.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cache/exec_log.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lowering/support/sha256.h"

namespace relay::cache {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// ---- hand-made spawns, shaped like rules/private's actions --------------------------------

constexpr const char* kTool = "bazel-out/host/bin/lowering/tools/relayc";
constexpr const char* kBin = "bazel-out/k8-fastbuild/bin/m";
const std::string kRelaycV1(64, 'a');
const std::string kRelaycV2(64, 'b');

Digest D(char c, int64_t size = 10) { return Digest{std::string(64, c), size}; }

Spawn Base(const std::string& mnemonic, bool hit) {
  Spawn s;
  s.mnemonic = mnemonic;
  s.cache_hit = hit;
  s.runner = hit ? "remote cache hit" : "linux-sandbox";
  s.args = {kTool};
  s.inputs[kTool] = Digest{kRelaycV1, 100};
  return s;
}

// RelayCompile of library kernel `id` of //m:kernels (source m/kernels/ID.relay).
Spawn Kernel(const std::string& id, bool hit, const std::string& target = "x86-64",
             const std::string& cfg = "k8-fastbuild") {
  Spawn s = Base("RelayCompile", hit);
  const std::string out = "bazel-out/" + cfg + "/bin/m/kernels_" + target + "/" + id;
  const std::string src = "m/kernels/" + id + ".relay";
  s.args.insert(s.args.end(), {"compile", "--target", target, "--llvm_version", "14.0.6",
                               "--llvm_digest", "build-id:c660", "--metadata", out + ".json", "-o",
                               out + ".o", src});
  s.inputs[src] = D('1');
  s.progress_message = "Compiling kernel " + id + " for " + target;
  return s;
}

Spawn Overflow(const std::string& model, bool hit) {
  Spawn s = Base("RelayCompile", hit);
  const std::string bin = kBin;
  s.args.insert(
      s.args.end(),
      {"compile", "--overflow_warning", "bazel run //m:" + model + ".update_kernels", "--target",
       "x86-64", "--llvm_version", "14.0.6", "--metadata", bin + "/" + model + "_overflow.json",
       "-o", bin + "/" + model + "_overflow.a", bin + "/" + model + ".overflow.relay"});
  s.inputs[bin + "/" + model + ".overflow.relay"] = D('0', 0);
  s.progress_message = "Compiling kernel overflow of //m:" + model;
  return s;
}

Spawn Partition(const std::string& model, bool hit) {
  Spawn s = Base("RelayPartition", hit);
  s.args.insert(s.args.end(), {"partition", "m/" + model + ".onnx", "--kernel_dir", "m/kernels",
                               "--out_dir", kBin, "--name", model});
  s.inputs["m/" + model + ".onnx"] = D('6');
  s.progress_message = "Partitioning model //m:" + model;
  return s;
}

Spawn Assemble(const std::string& model, bool hit) {
  Spawn s = Base("RelayAssemble", hit);
  const std::string bin = kBin;
  s.args.insert(s.args.end(),
                {"assemble", bin + "/" + model + ".graph.json", "--out_dir", bin, "--name", model});
  s.inputs[bin + "/" + model + ".graph.json"] = D('g');
  s.progress_message = "Assembling model //m:" + model;
  return s;
}

Spawn Other(bool hit) {
  Spawn s;
  s.mnemonic = "CppCompile";
  s.cache_hit = hit;
  s.runner = hit ? "remote cache hit" : "linux-sandbox";
  s.args = {"/usr/bin/gcc", "-c", "x.cc"};
  return s;
}

// An output reader holding files by execroot-relative path.
OutputReader Files(std::map<std::string, std::string> files) {
  return [files](const std::string& path) -> std::optional<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
}

const std::string kNetListing =
    "k_aaaaaaaaaaaaaaaaaaaa nn.dense+add present\nk_bbbbbbbbbbbbbbbbbbbb nn.relu present\n";

// Returns the action of `report` whose kind and subject (kernel id or model) match.
const RelayAction& Find(const Report& report, ActionKind kind, const std::string& subject) {
  for (const RelayAction& a : report.actions) {
    if (a.kind == kind && (a.kernel_id == subject || a.model == subject)) return a;
  }
  ADD_FAILURE() << "no action " << subject;
  static const RelayAction none{};
  return none;
}

std::vector<MissCause> Causes(const RelayAction& action) {
  std::vector<MissCause> causes;
  for (const Change& change : action.changes) causes.push_back(change.cause);
  return causes;
}

// ---- grouping -----------------------------------------------------------------------------

TEST(ReportTest, GroupsKernelsByTheModelsThatListThem) {
  const std::vector<Spawn> log = {
      Kernel("k_aaaaaaaaaaaaaaaaaaaa", true),
      Kernel("k_bbbbbbbbbbbbbbbbbbbb", false),
      Kernel("k_cccccccccccccccccccc", true),
      Partition("net", true),
      Overflow("net", true),
      Assemble("net", false),
      Other(true),
      Other(false),
  };
  absl::StatusOr<Report> report =
      BuildReport(log, nullptr, Files({{std::string(kBin) + "/net.kernels.txt", kNetListing}}));
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->groups.size(), 2u);

  const ModelGroup& net = report->groups[0];
  EXPECT_EQ(net.label, "//m:net");
  EXPECT_FALSE(net.is_library);
  EXPECT_THAT(net.listing_note, HasSubstr("net.kernels.txt"));
  std::vector<std::string> order;
  for (size_t i : net.actions) {
    const RelayAction& a = report->actions[i];
    order.push_back(a.mnemonic + " " + (a.kernel_id.empty() ? a.model : a.kernel_id));
  }
  EXPECT_THAT(order, ElementsAre("RelayPartition //m:net", "RelayCompile k_aaaaaaaaaaaaaaaaaaaa",
                                 "RelayCompile k_bbbbbbbbbbbbbbbbbbbb", "RelayCompile //m:net",
                                 "RelayAssemble //m:net"));
  EXPECT_EQ(report->actions[net.actions[3]].kind, ActionKind::kOverflow);

  // The kernel no listing names stays with its library.
  const ModelGroup& library = report->groups[1];
  EXPECT_EQ(library.label, "//m:kernels");
  EXPECT_TRUE(library.is_library);
  ASSERT_EQ(library.actions.size(), 1u);
  EXPECT_EQ(report->actions[library.actions[0]].kernel_id, "k_cccccccccccccccccccc");
  EXPECT_EQ(report->actions[library.actions[0]].target, "x86-64");

  // Each action counted once, in a fixed order; the C++ actions as "other".
  ASSERT_EQ(report->counts.size(), 4u);
  EXPECT_EQ(report->counts[0].mnemonic, "RelayPartition");
  EXPECT_EQ(report->counts[1].mnemonic, "RelayCompile");
  EXPECT_EQ(report->counts[1].hits, 3);
  EXPECT_EQ(report->counts[1].misses, 1);
  EXPECT_EQ(report->counts[2].mnemonic, "RelayAssemble");
  EXPECT_EQ(report->counts[2].misses, 1);
  EXPECT_EQ(report->counts[3].mnemonic, "other");
  EXPECT_EQ(report->counts[3].hits, 1);
  EXPECT_EQ(report->counts[3].misses, 1);
  EXPECT_FALSE(report->has_baseline);
  for (const RelayAction& a : report->actions) EXPECT_TRUE(a.changes.empty());
}

TEST(ReportTest, ASharedKernelIsListedUnderEachModel) {
  const std::vector<Spawn> log = {Kernel("k_aaaaaaaaaaaaaaaaaaaa", true), Partition("a", true),
                                  Partition("b", true)};
  const std::string listing = "k_aaaaaaaaaaaaaaaaaaaa nn.relu present\n";
  absl::StatusOr<Report> report =
      BuildReport(log, nullptr,
                  Files({{std::string(kBin) + "/a.kernels.txt", listing},
                         {std::string(kBin) + "/b.kernels.txt", listing}}));
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->groups.size(), 2u);
  EXPECT_EQ(report->groups[0].actions.size(), 2u);
  EXPECT_EQ(report->groups[1].actions.size(), 2u);
  EXPECT_EQ(report->counts[1].hits, 1);  // the kernel, once
}

TEST(ReportTest, WithoutListingKernelsStayWithTheirLibrary) {
  const std::vector<Spawn> log = {Kernel("k_aaaaaaaaaaaaaaaaaaaa", true), Partition("net", true)};
  absl::StatusOr<Report> report = BuildReport(log, nullptr, nullptr);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->groups.size(), 2u);
  EXPECT_EQ(report->groups[0].label, "//m:net");
  EXPECT_THAT(report->groups[0].listing_note, HasSubstr("not found"));
  EXPECT_EQ(report->groups[1].label, "//m:kernels");
}

TEST(ReportTest, AListingNewerThanTheLogIsNotUsed) {
  Spawn partition = Partition("net", true);
  const std::string path = std::string(kBin) + "/net.kernels.txt";
  partition.actual_outputs[path] = Digest{support::Sha256Hex("k_other present\n"), 16};
  const std::vector<Spawn> log = {Kernel("k_aaaaaaaaaaaaaaaaaaaa", true), partition};
  absl::StatusOr<Report> report = BuildReport(log, nullptr, Files({{path, kNetListing}}));
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->groups.size(), 2u);
  EXPECT_THAT(report->groups[0].listing_note, HasSubstr("has changed since this log"));
  EXPECT_EQ(report->groups[0].actions.size(), 1u);

  // With the digest the log recorded, it is used.
  partition.actual_outputs[path] = Digest{support::Sha256Hex(kNetListing), 10};
  report = BuildReport({Kernel("k_aaaaaaaaaaaaaaaaaaaa", true), partition}, nullptr,
                       Files({{path, kNetListing}}));
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->groups.size(), 1u);
  EXPECT_EQ(report->groups[0].actions.size(), 2u);
}

TEST(ReportTest, ModelsInOtherRepositoriesAndTheRootPackage) {
  Spawn partition = Partition("net", true);
  for (std::string& arg : partition.args) {
    if (arg == kBin) arg = "bazel-out/k8-fastbuild/bin/external/zoo/models";
  }
  Spawn root = Partition("top", true);
  for (std::string& arg : root.args) {
    if (arg == kBin) arg = "bazel-out/k8-fastbuild/bin";
  }
  absl::StatusOr<Report> report = BuildReport({partition, root}, nullptr, nullptr);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->actions[0].model, "@zoo//models:net");
  EXPECT_EQ(report->actions[1].model, "//:top");
}

TEST(ReportTest, MalformedRelayActionIsAnError) {
  Spawn partition = Partition("net", true);
  partition.args.resize(3);  // no --out_dir, no --name
  absl::StatusOr<Report> report = BuildReport({partition}, nullptr, nullptr);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(report.status().message()),
              HasSubstr("RelayPartition action 'Partitioning model //m:net': no --out_dir"));

  Spawn compile = Kernel("k_aaaaaaaaaaaaaaaaaaaa", false);
  compile.args = {kTool, "compile", "x.relay"};
  report = BuildReport({compile}, nullptr, nullptr);
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("no -o argument"));
}

// ---- explaining misses ----------------------------------------------------------------------

// The report of `after` against `before`; the action of `kind`/`subject` in it.
RelayAction Explain(const Spawn& before, const Spawn& after, ActionKind kind,
                    const std::string& subject) {
  const std::vector<Spawn> baseline = {before};
  absl::StatusOr<Report> report = BuildReport({after}, &baseline, nullptr);
  EXPECT_TRUE(report.ok()) << report.status();
  if (!report.ok()) return RelayAction{};
  EXPECT_TRUE(report->has_baseline);
  return Find(*report, kind, subject);
}

constexpr const char* kK = "k_aaaaaaaaaaaaaaaaaaaa";

TEST(ReportTest, MissBecauseRelaycChanged) {
  Spawn after = Kernel(kK, false);
  after.inputs[kTool] = Digest{kRelaycV2, 100};
  const RelayAction a = Explain(Kernel(kK, true), after, ActionKind::kKernel, kK);
  EXPECT_THAT(Causes(a), ElementsAre(MissCause::kRelayc));
  EXPECT_EQ(a.changes[0].detail, "aaaaaaaa -> bbbbbbbb");
}

TEST(ReportTest, MissBecauseAFileOfRelaycsRunfilesChanged) {
  Spawn before = Kernel(kK, true);
  before.inputs[std::string(kTool) + ".runfiles/rules_relay/data.bin"] = D('x');
  Spawn after = Kernel(kK, false);
  after.inputs[std::string(kTool) + ".runfiles/rules_relay/data.bin"] = D('y');
  const RelayAction a = Explain(before, after, ActionKind::kKernel, kK);
  EXPECT_THAT(Causes(a), ElementsAre(MissCause::kRelayc));
}

TEST(ReportTest, MissBecauseThePrebuiltFileBehindTheToolChanged) {
  // The prebuilt relayc wrapped by an sh_binary: the executable and the source file it links to
  // are both inputs, with the same digest. Both change together; only "relayc" is named.
  Spawn before = Kernel(kK, true);
  before.inputs["toolchain/relayc"] = Digest{kRelaycV1, 100};
  Spawn after = Kernel(kK, false);
  after.inputs[kTool] = Digest{kRelaycV2, 100};
  after.inputs["toolchain/relayc"] = Digest{kRelaycV2, 100};
  const RelayAction a = Explain(before, after, ActionKind::kKernel, kK);
  EXPECT_THAT(Causes(a), ElementsAre(MissCause::kRelayc));
}

TEST(ReportTest, MissBecauseTheTargetChanged) {
  // The object folder and the progress message change with the target: still one cause.
  const RelayAction a =
      Explain(Kernel(kK, true), Kernel(kK, false, "x86-64-avx2"), ActionKind::kKernel, kK);
  EXPECT_THAT(Causes(a), ElementsAre(MissCause::kTarget));
  EXPECT_EQ(a.changes[0].detail, "x86-64 -> x86-64-avx2");
}

TEST(ReportTest, MissBecauseTheLlvmVersionChanged) {
  Spawn after = Kernel(kK, false);
  for (std::string& arg : after.args) {
    if (arg == "14.0.6") arg = "15.0.7";
  }
  const RelayAction a = Explain(Kernel(kK, true), after, ActionKind::kKernel, kK);
  EXPECT_THAT(Causes(a), ElementsAre(MissCause::kLlvmVersion));
  EXPECT_EQ(a.changes[0].detail, "14.0.6 -> 15.0.7");
}

// The same LLVM version from another build of libLLVM (a rebuilt Debian package).
TEST(ReportTest, MissBecauseTheLlvmLibraryChanged) {
  Spawn after = Kernel(kK, false);
  for (std::string& arg : after.args) {
    if (arg == "build-id:c660") arg = "build-id:77e1";
  }
  const RelayAction a = Explain(Kernel(kK, true), after, ActionKind::kKernel, kK);
  EXPECT_THAT(Causes(a), ElementsAre(MissCause::kLlvmLibrary));
  EXPECT_EQ(a.changes[0].detail, "build-id:c660 -> build-id:77e1");
}

TEST(ReportTest, MissBecauseATuningRecordAppeared) {
  Spawn after = Kernel(kK, false);
  after.inputs["m/tuning/k_aaaaaaaaaaaaaaaaaaaa.json"] = D('t');
  const RelayAction a = Explain(Kernel(kK, true), after, ActionKind::kKernel, kK);
  EXPECT_THAT(Causes(a), ElementsAre(MissCause::kTuningRecord));
  EXPECT_EQ(a.changes[0].detail, "m/tuning/k_aaaaaaaaaaaaaaaaaaaa.json added");

  Spawn before = Kernel(kK, true);
  before.inputs["m/tuning/k_aaaaaaaaaaaaaaaaaaaa.json"] = D('s');
  const RelayAction changed = Explain(before, after, ActionKind::kKernel, kK);
  EXPECT_THAT(Causes(changed), ElementsAre(MissCause::kTuningRecord));
  EXPECT_EQ(changed.changes[0].detail, "m/tuning/k_aaaaaaaaaaaaaaaaaaaa.json ssssssss -> tttttttt");
}

TEST(ReportTest, MissOfANewKernelIsItsText) {
  // An edited kernel has a new id: the baseline has the old one only.
  const std::vector<Spawn> baseline = {Kernel("k_aaaaaaaaaaaaaaaaaaaa", false)};
  absl::StatusOr<Report> report =
      BuildReport({Kernel("k_dddddddddddddddddddd", false)}, &baseline, nullptr);
  ASSERT_TRUE(report.ok()) << report.status();
  const RelayAction& a = Find(*report, ActionKind::kKernel, "k_dddddddddddddddddddd");
  EXPECT_THAT(Causes(a), ElementsAre(MissCause::kKernelText));
  EXPECT_THAT(a.changes[0].detail, HasSubstr("k_dddddddddddddddddddd is not in the baseline"));
}

TEST(ReportTest, MissBecauseTheOverflowTextChanged) {
  Spawn after = Overflow("net", false);
  after.inputs[std::string(kBin) + "/net.overflow.relay"] = D('9', 120);
  const RelayAction a = Explain(Overflow("net", true), after, ActionKind::kOverflow, "//m:net");
  EXPECT_THAT(Causes(a), ElementsAre(MissCause::kKernelText));
  EXPECT_THAT(a.changes[0].detail, HasSubstr("net.overflow.relay"));
}

TEST(ReportTest, MissBecauseTheModelChanged) {
  Spawn after = Partition("net", false);
  after.inputs["m/net.onnx"] = D('7');
  const RelayAction a = Explain(Partition("net", true), after, ActionKind::kPartition, "//m:net");
  EXPECT_THAT(Causes(a), ElementsAre(MissCause::kModelInput));
  EXPECT_EQ(a.changes[0].detail, "m/net.onnx 66666666 -> 77777777");
}

TEST(ReportTest, MissBecauseOfTheCompilationMode) {
  // -c opt moves outputs to bazel-out/k8-opt: the command line changes, nothing else.
  const RelayAction a =
      Explain(Kernel(kK, true), Kernel(kK, false, "x86-64", "k8-opt"), ActionKind::kKernel, kK);
  EXPECT_THAT(Causes(a), ElementsAre(MissCause::kArguments));
  EXPECT_THAT(a.changes[0].detail, HasSubstr("k8-fastbuild"));
  EXPECT_THAT(a.changes[0].detail, HasSubstr("k8-opt"));
}

TEST(ReportTest, MissBecauseOfTheEnvironment) {
  Spawn after = Kernel(kK, false);
  after.env["PATH"] = "/opt/bin";
  const RelayAction a = Explain(Kernel(kK, true), after, ActionKind::kKernel, kK);
  EXPECT_THAT(Causes(a), ElementsAre(MissCause::kEnvironment));
  EXPECT_EQ(a.changes[0].detail, "PATH");
}

TEST(ReportTest, SeveralCausesAtOnce) {
  Spawn after = Kernel(kK, false, "x86-64-avx512");
  after.inputs[kTool] = Digest{kRelaycV2, 100};
  after.inputs["m/tuning/k_aaaaaaaaaaaaaaaaaaaa.json"] = D('t');
  const RelayAction a = Explain(Kernel(kK, true), after, ActionKind::kKernel, kK);
  EXPECT_THAT(Causes(a),
              ElementsAre(MissCause::kTarget, MissCause::kRelayc, MissCause::kTuningRecord));
}

TEST(ReportTest, UnchangedMissAndMissingBaselineAction) {
  const RelayAction same = Explain(Kernel(kK, false), Kernel(kK, false), ActionKind::kKernel, kK);
  EXPECT_THAT(Causes(same), ElementsAre(MissCause::kUnchanged));

  const RelayAction assemble =
      Explain(Partition("net", false), Assemble("net", false), ActionKind::kAssemble, "//m:net");
  EXPECT_THAT(Causes(assemble), ElementsAre(MissCause::kNotInBaseline));
}

TEST(ReportTest, HitsAreNotExplainedAndCausesAreCounted) {
  Spawn relayc_changed = Kernel("k_bbbbbbbbbbbbbbbbbbbb", false);
  relayc_changed.inputs[kTool] = Digest{kRelaycV2, 100};
  const std::vector<Spawn> baseline = {Kernel(kK, false), Kernel("k_bbbbbbbbbbbbbbbbbbbb", false)};
  absl::StatusOr<Report> report =
      BuildReport({Kernel(kK, true), relayc_changed}, &baseline, nullptr);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(Find(*report, ActionKind::kKernel, kK).changes.empty());
  ASSERT_EQ(report->cause_counts.size(), 1u);
  EXPECT_EQ(report->cause_counts[0].first, MissCause::kRelayc);
  EXPECT_EQ(report->cause_counts[0].second, 1);
}

// ---- the text -----------------------------------------------------------------------------

TEST(ReportTest, RendersOneLinePerActionAndTheCounts) {
  Spawn relayc_changed = Kernel("k_bbbbbbbbbbbbbbbbbbbb", false);
  relayc_changed.inputs[kTool] = Digest{kRelaycV2, 100};
  const std::vector<Spawn> baseline = {Kernel(kK, false), Kernel("k_bbbbbbbbbbbbbbbbbbbb", false),
                                       Partition("net", false)};
  Spawn failed = Assemble("net", false);
  failed.exit_code = 1;
  const std::vector<Spawn> log = {Kernel(kK, true), relayc_changed, Partition("net", true), failed};
  absl::StatusOr<Report> report =
      BuildReport(log, &baseline, Files({{std::string(kBin) + "/net.kernels.txt", kNetListing}}));
  ASSERT_TRUE(report.ok()) << report.status();

  const std::string text = RenderReport(*report, HitSource::kRemote, /*misses_only=*/false);
  EXPECT_THAT(text, HasSubstr("rules_relay actions: 4 (2 hits, 2 misses)"));
  EXPECT_THAT(text, HasSubstr("//m:net: 4 actions, 2 hits, 2 misses (kernels from "
                              "bazel-out/k8-fastbuild/bin/m/net.kernels.txt)"));
  EXPECT_THAT(text, HasSubstr("  RelayPartition  net                     hit (remote)\n"));
  EXPECT_THAT(text, HasSubstr("  RelayCompile    k_aaaaaaaaaaaaaaaaaaaa  hit (remote)\n"));
  EXPECT_THAT(text, HasSubstr("  RelayCompile    k_bbbbbbbbbbbbbbbbbbbb  miss (ran on "
                              "linux-sandbox): relayc: aaaaaaaa -> bbbbbbbb\n"));
  EXPECT_THAT(text, HasSubstr("  RelayAssemble   net                     failed (exit 1, ran on "
                              "linux-sandbox): not in the baseline: "));
  EXPECT_THAT(text, HasSubstr("  RelayCompile        2 actions     1 hits     1 misses\n"));
  EXPECT_THAT(text, HasSubstr("Misses by cause:\n  relayc                   1\n"));
  EXPECT_THAT(text, Not(HasSubstr("Bazel 4.2.3 logs disk and remote cache hits alike")));

  const std::string misses = RenderReport(*report, HitSource::kUnknown, /*misses_only=*/true);
  EXPECT_THAT(misses, Not(HasSubstr("k_aaaaaaaaaaaaaaaaaaaa")));
  EXPECT_THAT(misses, HasSubstr("k_bbbbbbbbbbbbbbbbbbbb"));
  EXPECT_THAT(misses, HasSubstr("Bazel 4.2.3 logs disk and remote cache hits alike"));
  EXPECT_THAT(RenderReport(*report, HitSource::kDisk, false), HasSubstr("hit (disk)"));
  EXPECT_THAT(RenderReport(*report, HitSource::kUnknown, false), HasSubstr("hit (remote or disk)"));
}

// ---- real logs ----------------------------------------------------------------------------
//
// Bazel 4.2.3 builds of //models:mlp in a workspace with mlp's three kernels and one more
// (k_9ca42dd5cc975b48af6c, which mlp does not use), each on a fresh output base with no disk
// cache, against one remote cache:
//   mlp_base.json    the first build: everything ran (and was uploaded)
//   mlp_hits.json    the same build again: everything came from the cache
//   mlp_relayc.json  with another relayc binary (an -c opt build of it)
//   mlp_target.json  with --@rules_relay//toolchains:target=x86-64-avx2

// mlp.kernels.txt as that build wrote it (its digest is in the logs).
constexpr const char* kMlpListing =
    "k_00935f13a3085e0371d8 nn.dense+add+nn.relu present\n"
    "k_368699567203b3db4680 nn.dense+add+nn.relu present\n"
    "k_3f0982eceb0eae1ae58e nn.dense+add present\n";

std::vector<Spawn> Log(const std::string& name) {
  absl::StatusOr<std::vector<Spawn>> spawns = ReadExecLog("cache/testdata/" + name);
  EXPECT_TRUE(spawns.ok()) << spawns.status();
  return spawns.ok() ? *spawns : std::vector<Spawn>();
}

OutputReader MlpListing() {
  return Files({{"bazel-out/k8-fastbuild/bin/models/mlp.kernels.txt", kMlpListing}});
}

TEST(ReportRealLogTest, EverythingFromTheCache) {
  const std::vector<Spawn> base = Log("mlp_base.json");
  absl::StatusOr<Report> report = BuildReport(Log("mlp_hits.json"), &base, MlpListing());
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->groups.size(), 2u);
  EXPECT_EQ(report->groups[0].label, "//models:mlp");
  // Partition, three kernels, overflow, assemble.
  EXPECT_EQ(report->groups[0].actions.size(), 6u);
  EXPECT_EQ(report->groups[1].label, "//models:kernels");
  ASSERT_EQ(report->groups[1].actions.size(), 1u);
  EXPECT_EQ(report->actions[report->groups[1].actions[0]].kernel_id, "k_9ca42dd5cc975b48af6c");
  for (const RelayAction& a : report->actions) EXPECT_TRUE(a.hit);
  EXPECT_TRUE(report->cause_counts.empty());
  // 3 C++ compiles and 2 links.
  EXPECT_EQ(report->counts.back().mnemonic, "other");
  EXPECT_EQ(report->counts.back().hits, 5);
}

TEST(ReportRealLogTest, AnotherRelaycMissesEverything) {
  const std::vector<Spawn> base = Log("mlp_base.json");
  absl::StatusOr<Report> report = BuildReport(Log("mlp_relayc.json"), &base, MlpListing());
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->actions.size(), 7u);
  for (const RelayAction& a : report->actions) {
    EXPECT_FALSE(a.hit);
    EXPECT_THAT(Causes(a), ElementsAre(MissCause::kRelayc)) << a.mnemonic << " " << a.kernel_id;
  }
  // The digests of the two prebuilt relayc files (sha256sum).
  EXPECT_EQ(Find(*report, ActionKind::kKernel, "k_00935f13a3085e0371d8").changes[0].detail,
            "a4b61a06 -> a54ce1de");
}

TEST(ReportRealLogTest, AnotherTargetMissesTheCompiles) {
  const std::vector<Spawn> base = Log("mlp_base.json");
  absl::StatusOr<Report> report = BuildReport(Log("mlp_target.json"), &base, MlpListing());
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->actions.size(), 7u);
  for (const RelayAction& a : report->actions) {
    switch (a.kind) {
      case ActionKind::kKernel:
      case ActionKind::kOverflow:
        EXPECT_FALSE(a.hit);
        EXPECT_THAT(Causes(a), ElementsAre(MissCause::kTarget)) << a.kernel_id;
        EXPECT_EQ(a.changes[0].detail, "x86-64 -> x86-64-avx2");
        break;
      case ActionKind::kPartition:
        // Partitioning does not depend on the target.
        EXPECT_TRUE(a.hit);
        break;
      case ActionKind::kAssemble:
        // Its inputs are the kernels' metadata, which name the target.
        EXPECT_FALSE(a.hit);
        EXPECT_THAT(Causes(a), ElementsAre(MissCause::kModelInput));
        EXPECT_THAT(a.changes[0].detail, HasSubstr("and 1 more"));
        break;
    }
  }
}

}  // namespace
}  // namespace relay::cache
