#include "ledger/ledger_metadata.h"

#include "ledger/entry_header.h"
#include "ledger/errc.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace magnetar::ledger {
namespace {

ledger_metadata sample() {
  ledger_metadata m;
  m.id = ledger_id(42);
  m.ensemble_size = 3;
  m.write_quorum = 2;
  m.ack_quorum = 2;
  m.state = ledger_state::closed;
  m.last_entry = entry_id(99);
  m.length = 12345;
  m.entry_format = current_entry_format;
  m.ensembles[0] = {"a", "b", "c"};
  m.ensembles[50] = {"a", "d", "c"};
  m.created_ms = 1700000000000;
  m.custom = {{"managed-ledger", "public/default/persistent/t"}};
  return m;
}

TEST(ledger_metadata, round_trips_through_json) {
  const auto m = sample();
  EXPECT_EQ(ledger_metadata_from_json(to_json(m)).value(), m);
}

TEST(ledger_metadata, write_set_rotates_through_the_ensemble_of_the_entry) {
  const auto m = sample();
  EXPECT_EQ(m.write_set(entry_id(0)), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(m.write_set(entry_id(1)), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(m.write_set(entry_id(2)), (std::vector<std::string>{"c", "a"}));
  // From entry 50 on, the second ensemble: entry % 3 picks the first bookie.
  EXPECT_EQ(m.write_set(entry_id(51)), (std::vector<std::string>{"a", "d"}));
  EXPECT_EQ(m.write_set(entry_id(52)), (std::vector<std::string>{"d", "c"}));
}

TEST(ledger_metadata, malformed_json_is_bad_metadata_with_a_detail) {
  auto bad = ledger_metadata_from_json("{\"ledgerId\": \"x\"}");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), errc::bad_metadata);
  EXPECT_FALSE(bad.error().detail().empty());
  EXPECT_FALSE(ledger_metadata_from_json("not json"));
}

TEST(ledger_metadata, a_ledger_from_before_entry_headers_has_format_0) {
  auto j = nlohmann::json::parse(to_json(sample()));
  j.erase("entryFormat");
  EXPECT_EQ(ledger_metadata_from_json(j.dump()).value().entry_format, 0);
}

TEST(ledger_metadata, an_entry_format_newer_than_this_build_is_refused) {
  auto j = nlohmann::json::parse(to_json(sample()));
  j["entryFormat"] = current_entry_format + 1;
  auto parsed = ledger_metadata_from_json(j.dump());
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error(), errc::bad_metadata);
}

TEST(ledger_metadata, path_pads_the_id) { EXPECT_EQ(ledger_path(ledger_id(42)), "/ledgers/L0000000042"); }

}  // namespace
}  // namespace magnetar::ledger
