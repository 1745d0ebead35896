#include "broker/scalable/layout_codec.h"

#include <gtest/gtest.h>

namespace magnetar::broker::scalable {
namespace {

TEST(LayoutCodec, JsonRoundTripKeepsTheWholeDag) {
  auto layout = segment_layout::initial(1, 7).value().split(0, 9).value().layout;
  layout.properties["team"] = "iot";
  auto back = layout_from_json(to_json(layout).dump());
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back.value(), layout);
}

TEST(LayoutCodec, JsonUsesUpstreamFieldNames) {
  auto j = to_json(segment_layout::initial(2, 7).value());
  EXPECT_EQ(j["nextSegmentId"], 2);
  EXPECT_EQ(j["segments"]["1"]["hashRange"]["start"], 0x8000);
  EXPECT_EQ(j["segments"]["1"]["state"], "ACTIVE");
  EXPECT_EQ(j["segments"]["1"]["sealedAtEpoch"], -1);
}

TEST(LayoutCodec, UnreadableMetadataIsAnError) {
  EXPECT_FALSE(layout_from_json("{"));
  EXPECT_FALSE(layout_from_json(R"({"epoch":0,"nextSegmentId":1,"segments":{"0":{"segmentId":0,)"
                                R"("hashRange":{"start":5,"end":2},"state":"ACTIVE"}}})"));
}

TEST(LayoutCodec, DagListsEverySegmentAndBrokersOfActiveOnes) {
  auto layout = segment_layout::initial(1, 7).value().split(0, 9).value().layout;
  proto::ScalableTopicDAG dag;
  fill_dag(layout, "pulsar://localhost:6650", dag);
  EXPECT_EQ(dag.epoch(), 1u);
  ASSERT_EQ(dag.segments_size(), 3);
  EXPECT_EQ(dag.segments(0).state(), proto::SEALED);
  EXPECT_EQ(dag.segments(0).sealed_at_epoch(), 1u);
  EXPECT_FALSE(dag.segments(1).has_sealed_at_epoch());
  EXPECT_EQ(dag.segment_brokers_size(), 2);
  EXPECT_EQ(dag.controller_broker_url(), "pulsar://localhost:6650");
}

}  // namespace
}  // namespace magnetar::broker::scalable
