// tokens_command: `magnetar tokens`, the keys and tokens of token authentication, with
// `pulsar tokens`'s verbs and options, so its recipes carry over:
//
//   magnetar tokens create-secret-key [-a HS256] [-o FILE] [--base64]
//   magnetar tokens create-key-pair [-a RS256] --output-private-key F --output-public-key F
//   magnetar tokens create -s SUBJECT [-e 1y] (--secret-key K | --private-key K) [-a ALG]
//   magnetar tokens show [TOKEN | -i | -f FILE]          (else the TOKEN variable)
//   magnetar tokens validate [TOKEN | -i | -f FILE] (--secret-key K | --public-key K)
//
// Keys are written as upstream's tool writes them (a secret's raw bytes, DER pairs) and
// read in the forms the broker's settings take (auth/key_value.h). Used from main() only.
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace magnetar::app {

class tokens_command {
 public:
  explicit tokens_command(CLI::App& app);

  bool parsed() const { return _command->parsed(); }
  int run() const;

 private:
  int create_secret_key() const;
  int create_key_pair() const;
  int create() const;
  int show() const;
  int validate() const;
  // The token to show or validate: the argument, stdin, a file, or $TOKEN.
  std::optional<std::string> token_input() const;

  CLI::App* _command;
  CLI::App* _create_secret_key;
  CLI::App* _create_key_pair;
  CLI::App* _create;
  CLI::App* _show;
  CLI::App* _validate;
  // Each verb's --signature-algorithm (CLI11 defaults would share one member).
  std::string _secret_algorithm = "HS256";
  std::string _pair_algorithm = "RS256";
  std::string _algorithm;  // create's: empty picks HS256 or RS256 by the key given
  std::string _output;
  bool _base64 = false;
  std::string _private_output;
  std::string _public_output;
  std::string _subject;
  std::string _expiry;
  std::string _secret_key;
  std::string _private_key;
  std::string _public_key;
  std::string _token;
  bool _stdin = false;
  std::string _token_file;
};

// "90" (seconds), "10m", "2h", "7d", "1w", "1y" (365 days), as upstream's tool reads
// --expiry-time; nullopt when it is none of these.
std::optional<std::chrono::seconds> parse_relative_time(std::string_view text);

}  // namespace magnetar::app
