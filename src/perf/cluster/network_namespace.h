// network_namespace: doing work inside a network namespace the launcher made (a file such
// as /run/netns/NAME), from a launcher that itself stays in its own.
//
//   in_network_namespace("/run/netns/mgp-1234-monitor", [&] { reply = http::call(...); });
//
// A network namespace belongs to a thread, not to the process (setns(2) with
// CLONE_NEWNET changes the calling thread only), and a socket stays in the namespace it
// was made in. So the work runs on a thread of its own that enters the namespace first:
// the caller's threads never change namespace, and a process spawned from that thread
// starts inside it.
//
// Thread-safety: free functions; any thread.
#pragma once

#include "base/result.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace magnetar::perf {

// Moves the calling thread into the namespace. For threads that live in it (a sampler).
result<void> enter_network_namespace(const std::filesystem::path& namespace_file);

// Runs `work` on a new thread inside the namespace and waits for it; on the calling thread
// when `namespace_file` is empty (no namespaces: everything on loopback).
result<void> in_network_namespace(const std::filesystem::path& namespace_file, const std::function<void()>& work);

// Runs a tool (`ip`, `ss`, `nft`) to its end: its output when it exits 0, otherwise an
// io_error quoting the command and what it printed.
result<std::string> run_tool(const std::vector<std::string>& argv);

}  // namespace magnetar::perf
