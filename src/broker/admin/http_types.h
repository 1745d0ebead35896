// The HTTP library's server and messages under the names the admin API uses
// (they lived here before the bookie's HTTP endpoints needed them too).
#pragma once

#include "http/message.h"
#include "http/server.h"

namespace magnetar::broker::admin {

using http::error_response;
using http::http_response;
using http::http_server;
using http::incoming_request;
using http::json_response;
using http::no_content;
using http::text_response;

}  // namespace magnetar::broker::admin
