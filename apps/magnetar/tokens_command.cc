#include "tokens_command.h"

#include "auth/jwt_token.h"
#include "auth/key_generation.h"
#include "auth/key_value.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>

namespace magnetar::app {
namespace {

int failed(const std::string& message) {
  fmt::print(stderr, "magnetar tokens: {}\n", message);
  return EXIT_FAILURE;
}

bool write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  return static_cast<bool>(out.flush());
}

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.erase(text.begin());
  return text;
}

}  // namespace

std::optional<std::chrono::seconds> parse_relative_time(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::int64_t unit = 1;
  const char last = static_cast<char>(std::tolower(static_cast<unsigned char>(text.back())));
  if (!std::isdigit(static_cast<unsigned char>(last))) {
    switch (last) {
      case 's': unit = 1; break;
      case 'm': unit = 60; break;
      case 'h': unit = 3600; break;
      case 'd': unit = 86400; break;
      case 'w': unit = 7 * 86400; break;
      case 'y': unit = 365 * 86400; break;
      default: return std::nullopt;
    }
    text.remove_suffix(1);
  }
  std::int64_t number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end != text.data() + text.size() || number < 0) return std::nullopt;
  return std::chrono::seconds(number * unit);
}

tokens_command::tokens_command(CLI::App& app)
    : _command(app.add_subcommand("tokens", "Create and inspect authentication tokens and their keys")) {
  _command->require_subcommand(1);
  _create_secret_key = _command->add_subcommand("create-secret-key", "Create a secret key for HS256/384/512 tokens");
  _create_secret_key->add_option("-a,--signature-algorithm", _secret_algorithm, "HS256, HS384 or HS512");
  _create_secret_key->add_option("-o,--output", _output, "The file to write the key's raw bytes to (default: stdout)");
  _create_secret_key->add_flag("-b,--base64", _base64, "Write the key as base64 text");

  _create_key_pair = _command->add_subcommand("create-key-pair", "Create an RSA or EC key pair (DER files)");
  _create_key_pair->add_option("-a,--signature-algorithm", _pair_algorithm, "RS256/384/512 or ES256/384/512");
  _create_key_pair->add_option("--output-private-key", _private_output, "The private key's file (PKCS#8 DER)")
      ->required();
  _create_key_pair->add_option("--output-public-key", _public_output, "The public key's file (X.509 DER)")->required();

  _create = _command->add_subcommand("create", "Create a token for a role");
  _create->add_option("-s,--subject", _subject, "The role the token names (its sub claim)")->required();
  _create->add_option("-e,--expiry-time", _expiry, "Lifetime: 90 (seconds), 10m, 2h, 7d, 1w, 1y; none: no expiry");
  auto* secret =
      _create->add_option("-k,--secret-key", _secret_key, "file:///path, data:;base64,..., a path or base64");
  auto* priv =
      _create->add_option("-p,--private-key", _private_key, "file:///path, data:;base64,..., a path or base64");
  secret->excludes(priv);
  _create->add_option("-a,--signature-algorithm", _algorithm,
                      "HS256/384/512 with a secret key (default HS256); RS*/ES* with a private key (default RS256)");

  _show = _command->add_subcommand("show", "Print a token's header and claims (no key needed)");
  _validate = _command->add_subcommand("validate", "Check a token's signature and expiry with a key");
  for (auto* verb : {_show, _validate}) {
    verb->add_option("token", _token, "The token (else --stdin, --token-file or the TOKEN variable)");
    verb->add_flag("-i,--stdin", _stdin, "Read the token from stdin");
    verb->add_option("-f,--token-file", _token_file, "Read the token from a file");
  }
  auto* vsecret = _validate->add_option("-k,--secret-key", _secret_key, "The secret key");
  auto* vpublic = _validate->add_option("-p,--public-key", _public_key, "The public key (DER or PEM)");
  vsecret->excludes(vpublic);
}

std::optional<std::string> tokens_command::token_input() const {
  if (!_token.empty()) return trimmed(_token);
  if (_stdin) return trimmed(std::string(std::istreambuf_iterator<char>(std::cin), {}));
  if (!_token_file.empty()) {
    std::ifstream in(_token_file, std::ios::binary);
    if (!in) return std::nullopt;
    return trimmed(std::string(std::istreambuf_iterator<char>(in), {}));
  }
  if (const char* variable = std::getenv("TOKEN")) return trimmed(variable);
  return std::nullopt;
}

int tokens_command::run() const {
  if (_create_secret_key->parsed()) return create_secret_key();
  if (_create_key_pair->parsed()) return create_key_pair();
  if (_create->parsed()) return create();
  if (_show->parsed()) return show();
  if (_validate->parsed()) return validate();
  return EXIT_FAILURE;
}

int tokens_command::create_secret_key() const {
  auto key = auth::generate_secret_key(_secret_algorithm);
  if (!key) return failed(key.error().message());
  const auto bytes = _base64 ? auth::base64_encoded(key.value()) : key.value();
  if (_output.empty()) {
    std::cout << bytes << std::flush;
    return EXIT_SUCCESS;
  }
  return write_file(_output, bytes) ? EXIT_SUCCESS : failed(fmt::format("cannot write {}", _output));
}

int tokens_command::create_key_pair() const {
  auto pair = auth::generate_key_pair(_pair_algorithm);
  if (!pair) return failed(pair.error().message());
  if (!write_file(_private_output, pair.value().private_der)) return failed("cannot write " + _private_output);
  if (!write_file(_public_output, pair.value().public_der)) return failed("cannot write " + _public_output);
  return EXIT_SUCCESS;
}

int tokens_command::create() const {
  if (_secret_key.empty() == _private_key.empty()) return failed("give --secret-key or --private-key");
  std::optional<std::chrono::system_clock::time_point> expires_at;
  if (!_expiry.empty()) {
    const auto lifetime = parse_relative_time(_expiry);
    if (!lifetime) return failed(fmt::format("--expiry-time '{}': use a number and s, m, h, d, w or y", _expiry));
    expires_at = std::chrono::system_clock::now() + *lifetime;
  }
  auto key = auth::read_key_value(_secret_key.empty() ? _private_key : _secret_key);
  if (!key) return failed(key.error().message());
  // As upstream: RS256 unless told otherwise for a private key (an EC key needs -a ES256).
  const std::string algorithm = !_algorithm.empty() ? _algorithm : _secret_key.empty() ? "RS256" : "HS256";
  auto token = auth::create_token(algorithm, key.value(), _subject, expires_at);
  if (!token) return failed(token.error().message());
  fmt::print("{}\n", token.value());
  return EXIT_SUCCESS;
}

int tokens_command::show() const {
  const auto token = token_input();
  if (!token) return failed("no token: give it, or --stdin, --token-file, or set TOKEN");
  auto contents = auth::decode_token(*token);
  if (!contents) return failed(contents.error().message());
  fmt::print("{}\n---\n{}\n", contents.value().header_json, contents.value().claims_json);
  return EXIT_SUCCESS;
}

int tokens_command::validate() const {
  const auto token = token_input();
  if (!token) return failed("no token: give it, or --stdin, --token-file, or set TOKEN");
  if (_secret_key.empty() == _public_key.empty()) return failed("give --secret-key or --public-key");
  auto key = auth::read_key_value(_secret_key.empty() ? _public_key : _secret_key);
  if (!key) return failed(key.error().message());
  auto verifier = _secret_key.empty() ? auth::token_verifier::with_public_key(key.value())
                                      : auth::token_verifier::with_secret_key(key.value());
  if (!verifier) return failed(verifier.error().message());
  auto contents = verifier.value().verify(*token);
  if (!contents) return failed(fmt::format("invalid token: {}", contents.error().message()));
  fmt::print("{}\n", contents.value().claims_json);
  return EXIT_SUCCESS;
}

}  // namespace magnetar::app
