// topic_pattern: the regex of a pattern subscription ("persistent://tenant/ns/orders-.*"),
// split as upstream splits it: the namespace to list, and a regex that must match a
// topic's whole name without its domain ("tenant/ns/orders-eu"). A pattern without
// tenant and namespace ("orders-.*") is in public/default, as a bare topic name is.
// The domain is ignored (upstream warns and lists persistent topics, its default mode).
//
// A plain value; matches() is const and safe from any thread.
#pragma once

#include "base/result.h"

// GCC 12 with the sanitizers' -O1 reports a false -Wmaybe-uninitialized inside
// libstdc++'s regex compiler; the warning is about the library's code, not ours.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#pragma GCC diagnostic pop
#include <string>
#include <string_view>

namespace magnetar::client_detail {

class topic_pattern {
 public:
  // Errors: invalid_topic_name (no namespace can be read from it), invalid_argument (not
  // a valid ECMAScript regex).
  static result<topic_pattern> parse(std::string_view pattern);

  const std::string& text() const { return _text; }
  // "tenant/ns"
  const std::string& namespace_name() const { return _namespace; }
  // `topic` is a full name ("persistent://tenant/ns/local").
  bool matches(std::string_view topic) const;

 private:
  std::string _text;
  std::string _namespace;
  std::regex _regex;
};

}  // namespace magnetar::client_detail
