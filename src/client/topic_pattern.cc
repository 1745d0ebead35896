#include "client/topic_pattern.h"

#include "magnetar/errc.h"

#include <fmt/format.h>

namespace magnetar::client_detail {

namespace {
std::string_view without_domain(std::string_view name) {
  const auto at = name.find("://");
  return at == std::string_view::npos ? name : name.substr(at + 3);
}
}  // namespace

result<topic_pattern> topic_pattern::parse(std::string_view pattern) {
  topic_pattern p;
  p._text = std::string(pattern);
  std::string body(without_domain(pattern));
  const auto first = body.find('/');
  if (first == std::string::npos) {
    body = "public/default/" + body;
  } else if (body.find('/', first + 1) == std::string::npos) {
    return fail(client_errc::invalid_topic_name,
                fmt::format("topic pattern '{}' names no tenant/namespace/ prefix", pattern));
  }
  const auto second = body.find('/', body.find('/') + 1);
  p._namespace = body.substr(0, second);
  if (p._namespace.find_first_of(".*+?[](){}|^$\\") != std::string::npos) {
    return fail(client_errc::invalid_topic_name,
                fmt::format("topic pattern '{}': the tenant and namespace must be plain names", pattern));
  }
  // std::regex reports a bad expression only by throwing; it stops here.
  try {
    p._regex = std::regex(body, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return fail(client_errc::invalid_argument, fmt::format("topic pattern '{}': {}", pattern, e.what()));
  }
  return p;
}

bool topic_pattern::matches(std::string_view topic) const {
  const auto name = without_domain(topic);
  return std::regex_match(name.begin(), name.end(), _regex);
}

}  // namespace magnetar::client_detail
