// request_names: the tenant, namespace and topic an admin request's path names, checked
// as Pulsar checks them before anything else (412 for a bad one). A name that passes
// holds only letters, digits and -=:._, and is never "." or "..", so it can't climb
// out of its place in the metadata tree. Pure functions of the request (no I/O, no
// coroutines: the admin request fuzzer runs them as the handlers do).
#pragma once

#include "base/result.h"
#include "http/message.h"
#include "wire/topic_name.h"

#include <optional>
#include <string>

namespace magnetar::broker::admin::detail {

// "persistent://{tenant}/{namespace}/{topic}" from the path (non-persistent:// under
// /admin/v2/non-persistent/), or the 412 to answer.
result<wire::topic_name> topic_from(const http::incoming_request& request);
// "{tenant}/{namespace}" from the path.
std::string namespace_from(const http::incoming_request& request);
// The 412 Pulsar answers first for a bad {tenant} or {namespace} in the path.
std::optional<http::http_response> invalid_names(const http::incoming_request& request);

}  // namespace magnetar::broker::admin::detail
