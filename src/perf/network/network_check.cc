#include "perf/network/network_check.h"

#include "perf/cluster/child_process.h"
#include "perf/cluster/cluster_network.h"
#include "perf/cluster/network_namespace.h"
#include "perf/network/impairment_engine.h"
#include "perf/network/network_host.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <regex>
#include <set>
#include <thread>

namespace magnetar::perf {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

constexpr std::uint16_t check_port = 7777;

// A socket made inside a namespace stays in it; the fd then works from any thread.
int socket_in(const fs::path& ns, int type) {
  int fd = -1;
  (void)in_network_namespace(ns, [&] { fd = ::socket(AF_INET, type | SOCK_CLOEXEC, 0); });
  return fd;
}

sockaddr_in address_of(const std::string& ip, std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  ::inet_pton(AF_INET, ip.c_str(), &a.sin_addr);
  return a;
}

struct fd_guard {
  int fd = -1;
  ~fd_guard() {
    if (fd >= 0) ::close(fd);
  }
};

// A connected TCP pair: client in `client_ns`, server's accepted socket in `server_ns`.
struct tcp_pair {
  fd_guard listener, client, server;
};

bool connect_pair(tcp_pair& pair, const fs::path& client_ns, const fs::path& server_ns, const std::string& server_ip) {
  pair.listener.fd = socket_in(server_ns, SOCK_STREAM);
  const int one = 1;
  ::setsockopt(pair.listener.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  auto bind_to = address_of("0.0.0.0", check_port);
  if (::bind(pair.listener.fd, reinterpret_cast<sockaddr*>(&bind_to), sizeof bind_to) != 0) return false;
  ::listen(pair.listener.fd, 4);
  pair.client.fd = socket_in(client_ns, SOCK_STREAM);
  auto to = address_of(server_ip, check_port);
  if (::connect(pair.client.fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) return false;
  pair.server.fd = ::accept4(pair.listener.fd, nullptr, nullptr, SOCK_CLOEXEC);
  return pair.server.fd >= 0;
}

// Whether the socket reports an error (or end) within `wait`: poll, then a read.
bool fails_within(int fd, std::chrono::milliseconds wait) {
  pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
  if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return false;
  char byte;
  const auto got = ::recv(fd, &byte, 1, MSG_DONTWAIT);
  return got <= 0;
}

class check_bench {
 public:
  explicit check_bench(cluster_network network, fs::path work)
      : _network(std::move(network)),
        _work(std::move(work)),
        _host(_work / "scripts", fs::read_symlink("/proc/self/exe")) {}

  const network_node& node(std::string_view name) const { return _network.node(name); }
  fs::path ns(std::string_view name) const { return node(name).namespace_file(); }

  // An engine over one impairment between the bench's nodes.
  std::unique_ptr<impairment_engine> engine(impairment_settings settings) {
    planned_impairment p{.settings = std::move(settings), .index = 0};
    for (const auto& name : p.settings.from) p.from_nodes.push_back(node(name));
    for (const auto& name : p.settings.to) p.to_nodes.push_back(node(name));
    for (const auto& a : p.from_nodes) {
      for (const auto& b : p.to_nodes) {
        p.pairs.push_back({a, b});
        if (p.settings.both_ways) p.pairs.push_back({b, a});
      }
    }
    return std::make_unique<impairment_engine>(_host, _network.router_namespace(), std::vector{std::move(p)},
                                               offload_mode::automatic, nullptr);
  }

  // What an impairment may leave behind, empty when nothing.
  std::string leftovers() {
    std::string found;
    const auto look = [&](const std::string& ns, std::vector<std::string> argv, const std::string& pattern) {
      auto out = _host.run(ns, argv);
      if (out && out.value().find(pattern) != std::string::npos) found += fmt::format("{} in {}; ", pattern, ns);
    };
    const auto& router = _network.router_namespace();
    look(router, {"nft", "list", "tables"}, "magnetar");
    look(router, {"ip", "-o", "link"}, "mgd");
    look(router, {"ip", "rule"}, "lookup 100");
    for (const auto& n : _network.nodes()) {
      look(n.namespace_name, {"nft", "list", "tables"}, "magnetar");
      look(n.namespace_name, {"tc", "qdisc", "show", "dev", "eth0"}, "htb");
      look(n.namespace_name, {"ethtool", "-k", "eth0"}, "tcp-segmentation-offload: off");
    }
    return found;
  }

  network_host& host() { return _host; }
  const fs::path& work() const { return _work; }

 private:
  cluster_network _network;
  fs::path _work;
  system_network_host _host;
};

struct check_result {
  std::string name;
  bool passed = false;
  std::string figures;
};

impairment_settings condition(std::string name, std::string from, std::string to) {
  return {.name = std::move(name), .from = {std::move(from)}, .to = {std::move(to)}};
}

// Average ping RTT in ms from `from` to `ip` (count pings, interval), or -1.
double ping_rtt(check_bench& bench, std::string_view from, const std::string& ip, int count) {
  auto out = bench.host().run(bench.node(from).namespace_name,
                              {"ping", "-n", "-q", "-c", std::to_string(count), "-i", "0.05", ip});
  if (!out) return -1;
  std::smatch m;
  static const std::regex rtt(R"(= [0-9.]+/([0-9.]+)/)");
  const auto& text = out.value();
  return std::regex_search(text, m, rtt) ? std::stod(m[1]) : -1;
}

check_result check_delay(check_bench& bench) {
  auto s = condition("delay", "gateways", "broker-0");
  s.delay = 20ms;
  auto engine = bench.engine(s);
  if (auto applied = engine->apply(0); !applied) return {"delay", false, applied.error().message()};
  const double delayed = ping_rtt(bench, "gateways", bench.node("broker-0").address, 20);
  const double other = ping_rtt(bench, "gateways", bench.node("bookie-0").address, 20);
  engine->remove_all();
  const bool ok = delayed >= 19.5 && delayed <= 25 && other >= 0 && other < 5;
  return {"delay 20 ms on one destination", ok,
          fmt::format("ping RTT to broker-0 {:.2f} ms, to bookie-0 {:.2f} ms", delayed, other)};
}

check_result check_partition(check_bench& bench) {
  impairment_settings s{.name = "partition",
                        .kind = impairment_kind::partition,
                        .from = {"gateways"},
                        .to = {"broker-0"},
                        .both_ways = true};
  auto engine = bench.engine(s);
  std::string output;
  std::thread pinger([&] {
    auto out = bench.host().run(bench.node("gateways").namespace_name,
                                {"ping", "-n", "-c", "150", "-i", "0.02", "-W", "1", bench.node("broker-0").address});
    output = out ? out.value() : out.error().message();  // ping exits 1 when replies were lost
  });
  std::this_thread::sleep_for(1s);
  const auto applied = engine->apply(0);
  std::this_thread::sleep_for(1s);
  engine->remove_all();
  pinger.join();
  if (!applied) return {"partition", false, applied.error().message()};
  std::set<int> answered;
  static const std::regex seq(R"(icmp_seq=([0-9]+))");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), seq); it != std::sregex_iterator(); ++it) {
    answered.insert(std::stoi((*it)[1]));
  }
  std::vector<int> lost;
  for (int i = 1; i <= 150; ++i) {
    if (!answered.contains(i)) lost.push_back(i);
  }
  const bool one_gap = !lost.empty() && lost.back() - lost.front() + 1 == static_cast<int>(lost.size());
  // 1 s of a 20 ms ping: about 50 lost, in one run of sequence numbers.
  const bool ok = one_gap && lost.size() >= 35 && lost.size() <= 65;
  return {"timed partition", ok,
          fmt::format("{} of 150 pings lost{}", lost.size(),
                      lost.empty() ? "" : fmt::format(", seq {}-{}", lost.front(), lost.back()))};
}

// Sends `count` numbered datagrams from gateways to broker-0, `per_ms` a millisecond;
// the sequence numbers received, in order.
std::vector<std::uint32_t> udp_stream(check_bench& bench, int count, int per_ms) {
  fd_guard receiver{socket_in(bench.ns("broker-0"), SOCK_DGRAM)};
  fd_guard sender{socket_in(bench.ns("gateways"), SOCK_DGRAM)};
  const int big = 8 << 20;
  ::setsockopt(receiver.fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
  auto at = address_of("0.0.0.0", check_port);
  ::bind(receiver.fd, reinterpret_cast<sockaddr*>(&at), sizeof at);
  auto to = address_of(bench.node("broker-0").address, check_port);
  std::vector<std::uint32_t> received;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    auto quiet_since = steady::now();
    while (!done || steady::now() - quiet_since < 500ms) {
      pollfd p{.fd = receiver.fd, .events = POLLIN, .revents = 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      std::uint32_t seq = 0;
      if (::recv(receiver.fd, &seq, sizeof seq, 0) == sizeof seq) received.push_back(seq);
      quiet_since = steady::now();
    }
  });
  const auto start = steady::now();
  for (int i = 0; i < count; ++i) {
    if (i % per_ms == 0) std::this_thread::sleep_until(start + std::chrono::milliseconds(i / per_ms));
    const std::uint32_t seq = static_cast<std::uint32_t>(i);
    ::sendto(sender.fd, &seq, sizeof seq, 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
  }
  done = true;
  reader.join();
  return received;
}

int inversions(const std::vector<std::uint32_t>& seqs) {
  int count = 0;
  for (std::size_t i = 1; i < seqs.size(); ++i) count += seqs[i] < seqs[i - 1] ? 1 : 0;
  return count;
}

check_result check_jitter(check_bench& bench, bool reorder) {
  auto s = condition("jitter", "gateways", "broker-0");
  s.delay = 10ms;
  s.jitter = 5ms;
  s.reorder = reorder;
  auto engine = bench.engine(s);
  if (auto applied = engine->apply(0); !applied) return {"jitter", false, applied.error().message()};
  const auto seqs = udp_stream(bench, 3000, 2);
  engine->remove_all();
  const int out_of_order = inversions(seqs);
  const bool ok = seqs.size() >= 2900 && (reorder ? out_of_order > 0 : out_of_order == 0);
  return {reorder ? "jitter 10 ms +- 5 ms with reorder: order broken" : "jitter 10 ms +- 5 ms: order kept", ok,
          fmt::format("{} of 3000 datagrams received, {} out of order", seqs.size(), out_of_order)};
}

check_result check_loss(check_bench& bench) {
  auto s = condition("loss", "gateways", "broker-0");
  s.loss_percent = 1;
  auto engine = bench.engine(s);
  if (auto applied = engine->apply(0); !applied) return {"loss", false, applied.error().message()};
  constexpr int sent = 40000;
  const auto seqs = udp_stream(bench, sent, 20);
  engine->remove_all();
  const double loss = 100.0 * (sent - static_cast<double>(seqs.size())) / sent;
  const auto dropped = engine->records()[0].dropped_packets;
  return {"1 % loss", loss >= 0.7 && loss <= 1.3,
          fmt::format("{:.2f} % of {} datagrams lost ({} dropped by the rule)", loss, sent, dropped)};
}

// iperf3's received goodput in Mbit/s from gateways to broker-0, or -1: TCP with
// `streams` streams, or UDP at `udp_rate` (iperf3's -b) when given.
double iperf_mbits(check_bench& bench, int seconds, int streams, const std::string& udp_rate = {}) {
  auto server = child_process::start({.program = "iperf3",
                                      .args = {"-s", "-1", "-p", "5201"},
                                      .log_file = bench.work() / "iperf3-server.log",
                                      .network_namespace = bench.ns("broker-0")});
  if (!server) return -1;
  result<std::string> out = std::string();
  for (int attempt = 0; attempt < 50; ++attempt) {  // until the server listens
    std::vector<std::string> args{"iperf3",
                                  "-c",
                                  bench.node("broker-0").address,
                                  "-p",
                                  "5201",
                                  "-t",
                                  std::to_string(seconds),
                                  "-P",
                                  std::to_string(streams),
                                  "-J"};
    if (!udp_rate.empty()) args.insert(args.end(), {"-u", "-b", udp_rate, "-l", "1400"});
    out = bench.host().run(bench.node("gateways").namespace_name, args);
    // With -J, iperf3 reports a refused connection in its JSON output, not as a failure.
    const auto& said = out ? out.value() : out.error().message();
    if (said.find("Connection refused") == std::string::npos) break;
    std::this_thread::sleep_for(100ms);
  }
  server.value().terminate(2s);
  if (!out) return -1;
  const auto json = nlohmann::json::parse(out.value(), nullptr, false);
  if (json.is_discarded()) return -1;
  // TCP reports what the receiver got in sum_received; UDP (iperf3 3.12) in sum.
  for (const char* key : {"sum_received", "sum"}) {
    const auto found = json.contains("end") && json["end"].is_object() && json["end"].contains(key);
    if (found && json["end"][key].is_object()) return json["end"][key].value("bits_per_second", -1e6) / 1e6;
  }
  fmt::print(stderr, "iperf3 gave no result: {}\n", json.value("error", out.value().substr(0, 300)));
  return -1;
}

check_result check_rate(check_bench& bench) {
  auto s = condition("rate", "gateways", "broker-0");
  s.rate_bits = 20'000'000;
  auto engine = bench.engine(s);
  if (auto applied = engine->apply(0); !applied) return {"rate", false, applied.error().message()};
  const double mbits = iperf_mbits(bench, 4, 1);
  engine->remove_all();
  return {"20 Mbit/s rate", mbits >= 18 && mbits <= 22, fmt::format("iperf3 goodput {:.1f} Mbit/s", mbits)};
}

check_result check_reset(check_bench& bench) {
  tcp_pair pair;
  if (!connect_pair(pair, bench.ns("gateways"), bench.ns("broker-0"), bench.node("broker-0").address)) {
    return {"reset", false, fmt::format("no TCP connection: {}", std::strerror(errno))};
  }
  impairment_settings s{.name = "reset", .kind = impairment_kind::reset, .from = {"gateways"}, .to = {"broker-0"}};
  auto engine = bench.engine(s);
  const auto applied = engine->apply(0);
  if (!applied) return {"reset", false, applied.error().message()};
  const bool client_failed = fails_within(pair.client.fd, 1000ms);
  const bool server_failed = fails_within(pair.server.fd, 1000ms);
  const int matched = engine->records()[0].matched_connections.value_or(0);
  return {"reset: both ends fail", client_failed && server_failed && matched >= 1,
          fmt::format("{} connection(s) reset; gateways' side {}, broker-0's side {}", matched,
                      client_failed ? "failed" : "still up", server_failed ? "failed" : "still up")};
}

// `from` forgets the connection; the other side keeps it until the drops go.
check_result check_silent(check_bench& bench, bool client_forgets) {
  tcp_pair pair;
  if (!connect_pair(pair, bench.ns("gateways"), bench.ns("broker-0"), bench.node("broker-0").address)) {
    return {"silent disconnect", false, fmt::format("no TCP connection: {}", std::strerror(errno))};
  }
  impairment_settings s{.name = "silent",
                        .kind = impairment_kind::silent_disconnect,
                        .from = {client_forgets ? "gateways" : "broker-0"},
                        .to = {client_forgets ? "broker-0" : "gateways"}};
  auto engine = bench.engine(s);
  if (auto applied = engine->apply(0); !applied) return {"silent disconnect", false, applied.error().message()};
  const int forgetting = client_forgets ? pair.client.fd : pair.server.fd;
  const int keeping = client_forgets ? pair.server.fd : pair.client.fd;
  const bool forgot = fails_within(forgetting, 1000ms);
  const bool kept = !fails_within(keeping, 500ms);
  engine->remove_all();
  // Its next write is answered with an RST now that the drops are gone.
  const char byte = 'x';
  ::send(keeping, &byte, 1, MSG_NOSIGNAL);
  const bool reset_after = fails_within(keeping, 5000ms);
  const auto* side = client_forgets ? "gateways" : "broker-0";
  return {fmt::format("silent disconnect, {} forgets", side), forgot && kept && reset_after,
          fmt::format("{}: {}; peer: {} while cut, {} after", side, forgot ? "failed at once" : "still up",
                      kept ? "still up" : "failed", reset_after ? "reset" : "still up")};
}

// One forwarder's figures from its stats: packets a second over its life, lateness.
std::string forwarder_stats_text(const impairment_engine& engine) {
  const auto stats = nlohmann::json::parse(engine.records()[0].forwarder_stats, nullptr, false);
  if (stats.is_discarded()) return "no forwarder stats";
  const double seconds = std::max(0.001, stats.value("seconds", 1.0));
  return fmt::format("{:.0f} packets/s over its life, released late by p50 {} us, p99 {} us, max {:.0f} us",
                     stats.value("packets", 0.0) / seconds, stats.value("latenessP50Micros", 0.0),
                     stats.value("latenessP99Micros", 0.0), stats.value("latenessMaxMicros", 0.0));
}

// The delay forwarder against the path without it, in one sitting: TCP at full speed
// (4 streams), and UDP at a paced 200 Mbit/s for the delay's accuracy below saturation.
std::vector<std::string> forwarder_figures(check_bench& bench) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("iperf3 TCP x4 without impairment: {:.0f} Mbit/s", iperf_mbits(bench, 4, 4)));
  for (const bool paced : {false, true}) {
    auto s = condition("forwarder", "gateways", "broker-0");
    s.delay = 20ms;
    auto engine = bench.engine(s);
    if (auto applied = engine->apply(0); !applied) return {applied.error().message()};
    const double mbits = paced ? iperf_mbits(bench, 4, 1, "200M") : iperf_mbits(bench, 4, 4);
    engine->remove_all();
    lines.push_back(fmt::format("{} through 20 ms: {:.0f} Mbit/s received; forwarder {}",
                                paced ? "iperf3 UDP paced at 200 Mbit/s" : "iperf3 TCP x4", mbits,
                                forwarder_stats_text(*engine)));
  }
  return lines;
}

}  // namespace

int run_network_check() {
  const auto prefix = fmt::format("mgck-{}-", ::getpid());
  if (auto reason = cluster_network::unavailable_reason(prefix); !reason.empty()) {
    fmt::print("network-check skipped: no network namespaces here ({})\n", reason);
    return 77;
  }
  auto made = cluster_network::create(prefix, {"gateways", "broker-0", "bookie-0"});
  if (!made) {
    fmt::print(stderr, "network-check: {}\n", made.error().message());
    return 1;
  }
  const auto work = fs::temp_directory_path() / fmt::format("magnetar-network-check-{}", ::getpid());
  bool all_passed = true;
  {
    check_bench bench(std::move(made).value(), work);
    const std::vector<std::function<check_result()>> checks = {
        [&] { return check_delay(bench); },         [&] { return check_partition(bench); },
        [&] { return check_jitter(bench, false); }, [&] { return check_jitter(bench, true); },
        [&] { return check_loss(bench); },          [&] { return check_rate(bench); },
        [&] { return check_reset(bench); },         [&] { return check_silent(bench, true); },
        [&] { return check_silent(bench, false); },
    };
    for (const auto& check : checks) {
      auto result = check();
      const auto left = bench.leftovers();
      if (!left.empty()) {
        result.passed = false;
        result.figures += fmt::format("; left behind: {}", left);
      }
      all_passed = all_passed && result.passed;
      fmt::print("{} {}: {}\n", result.passed ? "PASS" : "FAIL", result.name, result.figures);
      std::fflush(stdout);
    }
    for (const auto& line : forwarder_figures(bench)) fmt::print("figures: {}\n", line);
  }
  std::error_code ec;
  fs::remove_all(work, ec);
  fmt::print("{}\n", all_passed ? "network-check PASSED" : "network-check FAILED");
  return all_passed ? 0 : 1;
}

}  // namespace magnetar::perf
