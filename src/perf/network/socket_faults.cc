#include "perf/network/socket_faults.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <sstream>

namespace magnetar::perf {
namespace {

bool split_endpoint(std::string_view text, std::string& address, std::uint16_t& port) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return false;
  address = std::string(text.substr(0, colon));
  if (address.size() > 2 && address.front() == '[') address = address.substr(1, address.size() - 2);
  const auto digits = text.substr(colon + 1);
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  return error == std::errc{} && end == digits.data() + digits.size();
}

}  // namespace

std::vector<tcp_tuple> parse_established(std::string_view ss_output) {
  std::vector<tcp_tuple> tuples;
  std::istringstream lines{std::string(ss_output)};
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string recv_q, send_q, local, peer;
    if (!(fields >> recv_q >> send_q >> local >> peer)) continue;
    tcp_tuple t;
    if (!split_endpoint(local, t.local_address, t.local_port) || !split_endpoint(peer, t.peer_address, t.peer_port)) {
      continue;
    }
    if (t.local_address.find(':') != std::string::npos) continue;  // IPv6: the cluster's links are IPv4
    tuples.push_back(std::move(t));
  }
  return tuples;
}

std::vector<std::string> ss_to_peer(std::string_view peer_address, bool kill) {
  std::vector<std::string> argv{"ss"};
  if (kill) argv.emplace_back("-K");
  // -t always: without it ss also asks for raw sockets and fails with "Invalid argument".
  for (const char* arg : {"-Htn", "state", "established", "dst"}) argv.emplace_back(arg);
  argv.emplace_back(peer_address);
  return argv;
}

std::string silent_disconnect_ruleset(std::string_view table, const std::vector<tcp_tuple>& tuples) {
  std::vector<std::string> elements;
  for (const auto& t : tuples) {
    elements.push_back(fmt::format("{} . {} . {} . {}", t.local_address, t.local_port, t.peer_address, t.peer_port));
  }
  auto script = table_removal(table);
  script += fmt::format("table ip {} {{\n", table);
  script += "  set forgotten {\n    type ipv4_addr . inet_service . ipv4_addr . inet_service;\n";
  if (!elements.empty()) script += fmt::format("    elements = {{ {} }}\n", fmt::join(elements, ", "));
  script += "  }\n";
  script +=
      "  chain out {\n    type filter hook output priority -10; policy accept;\n"
      "    ip saddr . tcp sport . ip daddr . tcp dport @forgotten counter drop\n  }\n";
  script +=
      "  chain in {\n    type filter hook input priority -10; policy accept;\n"
      "    ip daddr . tcp dport . ip saddr . tcp sport @forgotten counter drop\n  }\n}\n";
  return script;
}

std::string table_removal(std::string_view table) { return fmt::format("table ip {0}\ndelete table ip {0}\n", table); }

}  // namespace magnetar::perf
