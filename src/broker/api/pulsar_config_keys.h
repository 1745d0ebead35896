// pulsar_config_keys: the names of upstream Pulsar broker settings that magnetar knows
// of but does not implement.
//
// A Pulsar operator's broker.conf or standalone.conf sets dozens of keys magnetar has no
// use for (TLS, authentication, load balancer, transactions, BookKeeper client tuning,
// ...). Refusing such a file wholesale would make the upgrade path "rewrite your config
// first", so the loader accepts these keys with one warning that lists them, and keeps
// errors for keys nobody knows (typos). The list is taken from upstream's
// conf/standalone.conf plus the broker.conf keys operators set most often.
// Thread-safety: pure functions over constant data.
#pragma once

#include <span>
#include <string_view>

namespace magnetar::broker {

// Every upstream key in the list (those magnetar implements are not in it).
std::span<const std::string_view> upstream_only_config_keys();

// True when `key` is an upstream Pulsar broker setting that magnetar ignores.
bool is_upstream_only_config_key(std::string_view key);

}  // namespace magnetar::broker
