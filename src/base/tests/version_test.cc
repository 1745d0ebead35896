#include "base/version.h"

#include <gtest/gtest.h>

namespace magnetar::base {
namespace {

TEST(version, banner_names_the_product_and_its_version) {
  EXPECT_FALSE(version().empty());
  EXPECT_EQ(version_banner().find(std::string("magnetar ") + std::string(version())), 0u);
}

}  // namespace
}  // namespace magnetar::base
