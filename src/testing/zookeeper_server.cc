#include "testing/zookeeper_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace magnetar::testing {

namespace {

constexpr const char* java = "/usr/bin/java";
// Debian's zookeeper package; its jar's manifest names the jars it needs.
constexpr const char* zookeeper_jar = "/usr/share/java/zookeeper.jar";
constexpr const char* log4j_dir = "/etc/zookeeper/conf";

std::string tail_of(const std::string& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  auto all = text.str();
  return all.size() > 2000 ? all.substr(all.size() - 2000) : all;
}

}  // namespace

std::string zookeeper_server::unavailable_reason() {
  if (::access(java, X_OK) != 0) return std::string("no ") + java + " (install default-jre-headless)";
  if (::access(zookeeper_jar, R_OK) != 0) return std::string("no ") + zookeeper_jar + " (install zookeeper)";
  return {};
}

zookeeper_server::zookeeper_server(std::string directory)
    : _directory(std::move(directory)), _log(_directory + "/zookeeper.log"), _port(free_port()) {
  std::filesystem::create_directories(_directory + "/data");
  std::ofstream cfg(_directory + "/zoo.cfg");
  // A short tick lets tests use short sessions (the minimum is two ticks).
  cfg << "tickTime=200\n"
      << "initLimit=10\nsyncLimit=5\n"
      << "dataDir=" << _directory << "/data\n"
      << "clientPort=" << _port << "\n"
      << "clientPortAddress=127.0.0.1\n"
      << "maxSessionTimeout=60000\n"
      << "admin.enableServer=false\n"
      << "4lw.commands.whitelist=srvr,mntr,ruok,cons\n";
}

std::string zookeeper_server::address() const { return "127.0.0.1:" + std::to_string(_port); }

bool zookeeper_server::start(std::string* why) {
  const std::vector<std::string> argv{java,
                                      "-Xmx192m",
                                      "-XX:+UseSerialGC",
                                      "-XX:TieredStopAtLevel=1",
                                      "-Dzookeeper.log.dir=" + _directory,
                                      "-cp",
                                      std::string(log4j_dir) + ":" + zookeeper_jar,
                                      "org.apache.zookeeper.server.ZooKeeperServerMain",
                                      _directory + "/zoo.cfg"};
  if (!_process.start(argv, _log, _directory)) {
    if (why) *why = "fork failed";
    return false;
  }
  const bool up = wait_until(
      [&] { return !_process.running() || four_letter_word(_port, "srvr").find("Mode") != std::string::npos; });
  if (up && _process.running()) return true;
  if (why) *why = "ZooKeeper did not start; its log ends:\n" + tail_of(_log);
  _process.kill();
  return false;
}

std::string four_letter_word(int port, const std::string& command) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return {};
  timeval timeout{.tv_sec = 2, .tv_usec = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::write(fd, command.data(), command.size()) == static_cast<ssize_t>(command.size())) {
    char buffer[4096];
    for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) answer.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return answer;
}

}  // namespace magnetar::testing
