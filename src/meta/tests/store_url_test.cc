// parse_store_url: the URL forms of Pulsar's metadataStoreUrl and zookeeperServers.
#include "meta/store_url.h"

#include <gmock/gmock.h>

namespace magnetar::meta {
namespace {

using ::testing::HasSubstr;

TEST(store_url, zk_prefix_names_servers_and_chroot) {
  auto u = parse_store_url("zk:zk1:2181,zk2:2181/pulsar/cluster-a");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u.value().backend, store_url::kind::zookeeper);
  EXPECT_EQ(u.value().servers, "zk1:2181,zk2:2181");
  EXPECT_EQ(u.value().chroot, "/pulsar/cluster-a");
}

TEST(store_url, metadata_store_prefix_is_accepted) {
  auto u = parse_store_url("metadata-store:zk:localhost:2181");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u.value().servers, "localhost:2181");
  EXPECT_EQ(u.value().chroot, "");
}

TEST(store_url, bare_servers_are_the_older_zookeeper_servers_form) {
  auto u = parse_store_url("10.0.0.1:2181,10.0.0.2:2181");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u.value().backend, store_url::kind::zookeeper);
  EXPECT_EQ(u.value().servers, "10.0.0.1:2181,10.0.0.2:2181");
}

TEST(store_url, rocksdb_names_the_embedded_directory) {
  auto u = parse_store_url("rocksdb:///var/lib/magnetar/meta");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u.value().backend, store_url::kind::embedded);
  EXPECT_EQ(u.value().directory, "/var/lib/magnetar/meta");
}

TEST(store_url, empty_is_the_embedded_default) {
  auto u = parse_store_url("");
  ASSERT_TRUE(u);
  EXPECT_EQ(u.value().backend, store_url::kind::embedded);
  EXPECT_EQ(u.value().directory, "");
}

TEST(store_url, a_server_without_a_port_is_refused_by_name) {
  auto u = parse_store_url("zk:zk1:2181,zk2");
  ASSERT_FALSE(u);
  EXPECT_THAT(u.error().detail(), HasSubstr("'zk2' is not host:port"));
}

TEST(store_url, other_backends_are_refused_clearly) {
  auto u = parse_store_url("etcd:http://e1:2379");
  ASSERT_FALSE(u);
  EXPECT_THAT(u.error().detail(), HasSubstr("ZooKeeper"));
}

TEST(metadata_service_uri, bookkeeper_form_names_servers_and_the_chroot_above_ledgers) {
  auto u = parse_metadata_service_uri("zk+hierarchical://zk1:2181;zk2:2181/pulsar/ledgers");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u.value().backend, store_url::kind::zookeeper);
  EXPECT_EQ(u.value().servers, "zk1:2181,zk2:2181");
  EXPECT_EQ(u.value().chroot, "/pulsar");
}

TEST(metadata_service_uri, metadata_store_form_at_the_root_has_no_chroot) {
  auto u = parse_metadata_service_uri("metadata-store:zk:localhost:2181/ledgers");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u.value().servers, "localhost:2181");
  EXPECT_EQ(u.value().chroot, "");
}

TEST(metadata_service_uri, a_path_not_ending_in_ledgers_is_refused) {
  auto u = parse_metadata_service_uri("zk://localhost:2181/pulsar");
  ASSERT_FALSE(u);
  EXPECT_THAT(u.error().detail(), HasSubstr("/ledgers"));
}

TEST(metadata_service_uri, another_scheme_is_refused) {
  auto u = parse_metadata_service_uri("etcd://localhost:2379/ledgers");
  ASSERT_FALSE(u);
  EXPECT_THAT(u.error().detail(), HasSubstr("zk://"));
}

}  // namespace
}  // namespace magnetar::meta
