// properties: the key=value files that Pulsar and BookKeeper configure with
// (broker.conf, standalone.conf, bookkeeper.conf).
//
// One `key=value` per line; lines starting with `#` or `!` are comments;
// blank lines are skipped; key and value are trimmed of spaces and tabs; a
// UTF-8 byte order mark is skipped. Line continuations (a trailing backslash)
// are not supported: no such file uses them, and a stray one is better
// reported than silently joined. What the keys mean is the caller's.
// Thread-safety: pure functions.
#pragma once

#include "base/result.h"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace magnetar::base {

// Calls `apply(key, value)` for each setting in order; its failure stops the
// walk, with "source:line: " before its detail. A line without '=' fails the same way.
result<void> parse_properties(std::string_view text, std::string_view source,
                              const std::function<result<void>(std::string_view key, std::string_view value)>& apply);

// The whole file; the error names it.
result<std::string> read_text_file(std::string_view path);

std::string_view trim(std::string_view text);

}  // namespace magnetar::base
