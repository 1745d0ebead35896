// libFuzzer target for what a client hands the broker's security: CONNECT's auth data
// and an HTTP Authorization header (the token provider's parsing and verification), the
// permission bodies and stored auth_policies the admin API parses, and the client-side
// credential parameters. Arbitrary bytes must never crash, and must never authenticate:
// no input forged here is signed with the broker's key, so every verification fails.
//
// Input layout: [selector u8][bytes...]; the selector picks the parser.
//
// Run by scripts/fuzz (target credentials_fuzz). `MAGNETAR_FUZZ_WRITE_SEEDS=<dir>`
// writes the seed corpus there and exits (valid-looking tokens, headers, policies).
// Single-threaded, as libFuzzer calls it.
#include "auth/authenticator.h"
#include "auth/authorization.h"
#include "auth/client_credentials.h"
#include "auth/jwt_token.h"
#include "auth/key_generation.h"
#include "auth/key_value.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

namespace magnetar::auth {
namespace {

const std::string& secret() {
  static const std::string key = generate_secret_key("HS256").value();
  return key;
}

const authenticator& broker_authenticator() {
  static const auto made = [] {
    authentication_settings s;
    s.providers = {"token", "tls"};
    s.token_secret_key = "data:;base64," + base64_encoded(secret());
    return authenticator::create(s).value();
  }();
  return *made;
}

void must_not_authenticate(const result<principal>& who) {
  if (who) std::abort();  // an input no one signed got a role
}

void run(std::uint8_t selector, std::string_view data) {
  switch (selector % 6) {
    case 0: must_not_authenticate(broker_authenticator().authenticate("token", data)); break;
    case 1: must_not_authenticate(broker_authenticator().authenticate_http(data)); break;
    case 2: (void)decode_token(data); break;
    case 3: {
      const auto parsed = nlohmann::json::parse(data, nullptr, false);
      if (!parsed.is_discarded()) {
        (void)auth_policies_from(parsed);
        (void)action_set_from(parsed);
      }
      break;
    }
    case 4: (void)client_credentials::from("token", data); break;
    case 5: (void)client_credentials::from("tls", data); break;
  }
}

void write_seeds(const char* dir) {
  auto write = [&](const std::string& name, std::uint8_t selector, const std::string& body) {
    std::ofstream(std::string(dir) + "/" + name, std::ios::binary) << static_cast<char>(selector) << body;
  };
  // A token signed with another key: well-formed, so the fuzzer explores the verifier.
  const auto other = create_token("HS256", generate_secret_key("HS256").value(), "root", std::nullopt).value();
  write("token", 0, other);
  write("bearer", 1, "Bearer " + other);
  write("decode", 2, other);
  write("policies", 3,
        R"({"auth_policies":{"namespace_auth":{"a":["produce"]},"destination_auth":{"persistent://t/n/x":)"
        R"({"b":["consume"]}},"subscription_auth_roles":{"s":["a"]}}})");
  write("actions", 3, R"(["produce","consume","functions"])");
  write("params", 4, R"({"token":"abc.def.ghi"})");
  write("tls_params", 5, "tlsCertFile:/c.pem,tlsKeyFile:/k.pem");
}

}  // namespace
}  // namespace magnetar::auth

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("MAGNETAR_FUZZ_WRITE_SEEDS")) {
    magnetar::auth::write_seeds(dir);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  magnetar::auth::run(data[0], std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
  return 0;
}
