#include "perf/launcher/host_info.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

TEST(host_info, reads_a_proc_field) {
  const std::string cpuinfo = "processor\t: 0\nmodel name\t: Some CPU @ 2.0GHz\nflags\t\t: fpu\n";
  EXPECT_EQ(proc_field(cpuinfo, "model name"), "Some CPU @ 2.0GHz");
  EXPECT_EQ(proc_field("MemTotal:       24540216 kB\n", "MemTotal"), "24540216 kB");
  EXPECT_EQ(proc_field(cpuinfo, "absent"), "");
}

TEST(host_info, describes_this_machine) {
  const auto host = read_host_info();
  EXPECT_FALSE(host.hostname.empty());
  EXPECT_GE(host.cpus, 1);
  EXPECT_GT(host.memory_bytes, 0u);
  EXPECT_TRUE(host.kernel.starts_with("Linux ")) << host.kernel;
}

TEST(host_info, uses_run_info_json_names) {
  const auto json = to_json(host_info{.hostname = "h", .cpus = 2, .memory_bytes = 3, .kernel = "k", .cpu_model = "m"});
  EXPECT_EQ(json, nlohmann::json::parse(R"({"hostname":"h","cpus":2,"memoryBytes":3,"kernel":"k","cpuModel":"m"})"));
}

}  // namespace
}  // namespace magnetar::perf
