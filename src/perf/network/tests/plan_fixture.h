// plan_fixture: planned impairments over a small fake cluster (gateways, applications,
// broker-0, broker-1, bookie-0) for the engine's and the rules' tests.
#pragma once

#include "perf/network/impairment_plan.h"
#include "perf/network/tests/fake_network_host.h"

#include <gtest/gtest.h>

namespace magnetar::perf::testing {

inline std::vector<network_node> fake_nodes() {
  return {fake_node("bookie-0", 1), fake_node("broker-0", 2), fake_node("broker-1", 3), fake_node("gateways", 4),
          fake_node("applications", 5)};
}

inline cluster_settings fake_cluster() {
  cluster_settings c;
  c.brokers.replicas = 2;
  return c;
}

// The plan of `impairments` on the fake cluster; it must resolve.
inline std::vector<planned_impairment> plan_of(std::vector<impairment_settings> impairments) {
  network_settings network;
  network.impairments = std::move(impairments);
  auto plan = plan_impairments(network, fake_cluster(), fake_nodes());
  EXPECT_TRUE(plan) << plan.error();
  return plan ? std::move(plan).value() : std::vector<planned_impairment>{};
}

}  // namespace magnetar::perf::testing
