// Every record of the checked-in tuning databases: the tuned kernel compiles with its record
// (the record fits the kernel's schedule space), and, for a target this machine runs, computes
// what the default schedule computes (max relative difference <= 1e-4) on the same inputs. One
// test per (database, target) with records: on a target this machine lacks (x86-64-avx512
// without AVX-512) its records are compiled and verified, then the test says it is skipped,
// since none of them ran.
//
//   records_test DATABASE KERNEL_DIR [DATABASE KERNEL_DIR ...]
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "lowering/codegen/llvm/jit.h"
#include "lowering/codegen/llvm/target_machine.h"
#include "lowering/compile/compile.h"
#include "lowering/io/file.h"
#include "lowering/target/target.h"
#include "lowering/tuning/measure.h"
#include "lowering/tuning/record.h"

namespace relay {
namespace {

// The outputs of `kernel` on deterministic inputs, in `args`.
void RunKernelOnArgs(const compile::CompiledKernel& kernel, const tuning::KernelArgs& args) {
  absl::StatusOr<std::unique_ptr<codegen::Jit>> jit = codegen::Jit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  ASSERT_TRUE((*jit)->AddObject(kernel.object, kernel.id).ok());
  absl::StatusOr<codegen::KernelFunction> fn = (*jit)->LookupKernel(kernel.id);
  ASSERT_TRUE(fn.ok()) << fn.status();
  absl::Status ran = tuning::RunKernel(*fn, args);
  ASSERT_TRUE(ran.ok()) << ran;
}

// Checks the records of one target of one database.
class RecordsTest : public ::testing::Test {
 public:
  RecordsTest(std::string path, std::string kernel_dir, std::vector<tuning::Record> records)
      : path_(std::move(path)), kernel_dir_(std::move(kernel_dir)), records_(std::move(records)) {}

  void TestBody() override {
    absl::StatusOr<Target> target = ParseTarget(records_[0].target);
    ASSERT_TRUE(target.ok()) << target.status();
    const std::vector<std::string> missing = codegen::MissingHostFeatures(*target);
    int applied = 0, ran = 0;
    for (const tuning::Record& record : records_) {
      SCOPED_TRACE(path_ + ": " + record.kernel + " on " + record.target);
      absl::StatusOr<std::string> text = io::ReadFile(kernel_dir_ + "/" + record.kernel + ".relay");
      if (absl::IsNotFound(text.status())) {
        std::printf("%s: a record for %s, which is not in %s (not applied)\n", path_.c_str(),
                    record.kernel.c_str(), kernel_dir_.c_str());
        continue;
      }
      ASSERT_TRUE(text.ok()) << text.status();
      ++applied;
      compile::CompileOptions options;
      options.target = record.target;
      absl::StatusOr<compile::CompiledKernel> plain =
          compile::CompileKernelText(*text, record.kernel + ".relay", options);
      ASSERT_TRUE(plain.ok()) << plain.status();
      const std::vector<tuning::Record> one = {record};
      options.tuning = &one;
      absl::StatusOr<compile::CompiledKernel> tuned =
          compile::CompileKernelText(*text, record.kernel + ".relay", options);
      ASSERT_TRUE(tuned.ok()) << tuned.status();
      EXPECT_EQ(tuned->tuning_record, tuning::RecordDigest(record));
      if (!missing.empty()) continue;
      absl::StatusOr<std::vector<tuning::ArgSpec>> specs = tuning::ArgsOfMetadata(plain->metadata);
      ASSERT_TRUE(specs.ok()) << specs.status();
      tuning::KernelArgs a(*specs), b(*specs);
      RunKernelOnArgs(*plain, a);
      RunKernelOnArgs(*tuned, b);
      EXPECT_LE(tuning::MaxRelativeDifference(b, a), 1e-4);
      ++ran;
    }
    std::printf("%s, %s: %d records applied, %d tuned kernels run against the default\n",
                path_.c_str(), target->name.c_str(), applied, ran);
    if (!missing.empty()) {
      GTEST_SKIP() << applied << " records of " << target->name
                   << " compiled and verified, none run: this CPU lacks "
                   << absl::StrJoin(missing, ", ");
    }
    EXPECT_EQ(ran, applied);
    EXPECT_GT(ran, 0) << "no record of " << target->name << " applies to " << kernel_dir_;
  }

 private:
  std::string path_, kernel_dir_;
  std::vector<tuning::Record> records_;
};

}  // namespace
}  // namespace relay

// One test per (database, target): "Records.<target>" ("Records<i>.<target>" for the i-th
// database after the first).
int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc < 3 || argc % 2 != 1) {
    std::fprintf(stderr, "usage: records_test DATABASE KERNEL_DIR [DATABASE KERNEL_DIR ...]\n");
    return 2;
  }
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string path = argv[i], kernel_dir = argv[i + 1];
    absl::StatusOr<std::vector<relay::tuning::Record>> db = relay::tuning::ReadDatabase(path);
    if (!db.ok()) {
      std::fprintf(stderr, "records_test: %s\n", std::string(db.status().message()).c_str());
      return 1;
    }
    std::map<std::string, std::vector<relay::tuning::Record>> by_target;
    for (const relay::tuning::Record& r : *db) by_target[r.target].push_back(r);
    const std::string suite = i == 1 ? "Records" : "Records" + std::to_string(i / 2);
    for (auto& [target, records] : by_target) {
      testing::RegisterTest(
          suite.c_str(), target.c_str(), nullptr, nullptr, __FILE__, __LINE__,
          [=]() -> testing::Test* { return new relay::RecordsTest(path, kernel_dir, records); });
    }
  }
  return RUN_ALL_TESTS();
}
