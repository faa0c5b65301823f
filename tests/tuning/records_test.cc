// Every record of the checked-in tuning databases: the tuned kernel compiles with its record
// (the record fits the kernel's schedule space), and, for a target this machine runs, computes
// what the default schedule computes (max relative difference <= 1e-4) on the same inputs. A
// target the machine lacks (x86-64-avx512 without AVX-512) is compiled and verified only.
//
//   records_test DATABASE KERNEL_DIR [DATABASE KERNEL_DIR ...]
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

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

std::vector<std::pair<std::string, std::string>>* Databases() {
  static auto* dbs = new std::vector<std::pair<std::string, std::string>>();
  return dbs;
}

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

TEST(RecordsTest, EveryTunedKernelComputesWhatTheDefaultComputes) {
  ASSERT_FALSE(Databases()->empty()) << "usage: records_test DATABASE KERNEL_DIR ...";
  int records = 0, ran = 0;
  for (const auto& [path, kernel_dir] : *Databases()) {
    absl::StatusOr<std::vector<tuning::Record>> db = tuning::ReadDatabase(path);
    ASSERT_TRUE(db.ok()) << db.status();
    for (const tuning::Record& record : *db) {
      SCOPED_TRACE(path + ": " + record.kernel + " on " + record.target);
      absl::StatusOr<std::string> text = io::ReadFile(kernel_dir + "/" + record.kernel + ".relay");
      if (absl::IsNotFound(text.status())) {
        std::printf("%s: a record for %s, which is not in %s (not applied)\n", path.c_str(),
                    record.kernel.c_str(), kernel_dir.c_str());
        continue;
      }
      ASSERT_TRUE(text.ok()) << text.status();
      ++records;
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
      absl::StatusOr<Target> target = ParseTarget(record.target);
      ASSERT_TRUE(target.ok()) << target.status();
      if (!codegen::MissingHostFeatures(*target).empty()) continue;
      absl::StatusOr<std::vector<tuning::ArgSpec>> specs = tuning::ArgsOfMetadata(plain->metadata);
      ASSERT_TRUE(specs.ok()) << specs.status();
      tuning::KernelArgs a(*specs), b(*specs);
      RunKernelOnArgs(*plain, a);
      RunKernelOnArgs(*tuned, b);
      EXPECT_LE(tuning::MaxRelativeDifference(b, a), 1e-4);
      ++ran;
    }
  }
  std::printf("%d records: %d tuned kernels run against the default, the rest compiled only\n",
              records, ran);
}

}  // namespace
}  // namespace relay

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i + 1 < argc; i += 2) relay::Databases()->emplace_back(argv[i], argv[i + 1]);
  return RUN_ALL_TESTS();
}
