// host_info: the machine a run ran on, for run-info.json and the report (figures from
// different machines are not comparable, so the report says which one).
//
// Thread-safety: read_host_info() only reads /proc and uname; call it from any thread.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace magnetar::perf {

struct host_info {
  std::string hostname;
  int cpus = 0;                    // online processors
  std::uint64_t memory_bytes = 0;  // MemTotal
  std::string kernel;              // "Linux 6.1.0-13-amd64"
  std::string cpu_model;           // /proc/cpuinfo's first "model name"
};

host_info read_host_info();

// {"hostname", "cpus", "memoryBytes", "kernel", "cpuModel"} (run-info.json's "host").
nlohmann::json to_json(const host_info& host);

// The value of `key` in /proc-style "key : value" text (cpuinfo, meminfo), trimmed; empty
// when absent.
std::string proc_field(std::string_view text, std::string_view key);

}  // namespace magnetar::perf
