// topic_name: a topic's name in every form Pulsar accepts, parsed into its parts.
//
//   my-topic                              -> persistent://public/default/my-topic
//   tenant/namespace/my-topic             -> persistent://tenant/namespace/my-topic
//   persistent://tenant/namespace/topic   as is; non-persistent:// is parsed too, and the
//                                         broker decides what it serves
//   .../topic-partition-3                 partition 3 of the partitioned topic .../topic
//   topic://tenant/namespace/topic        a scalable topic (a DAG of segments)
//   segment://tenant/ns/topic/0000-7fff-1 one segment of it, an ordinary persistent topic
//                                         whose local name is "topic/0000-7fff-1"
//
// Names of the older four-part form (tenant/cluster/namespace/topic) are refused with a
// message saying so. Used by the broker and the client alike. A plain value type.
#pragma once

#include "base/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace magnetar::wire {

class topic_name {
 public:
  // errc::invalid_topic_name with a detail naming what is wrong.
  static result<topic_name> parse(std::string_view name);

  const std::string& domain() const { return _domain; }  // "persistent"
  const std::string& tenant() const { return _tenant; }
  const std::string& namespace_part() const { return _namespace; }  // "default"
  const std::string& local_name() const { return _local; }          // "t-partition-2"
  // Segments are stored like persistent topics.
  bool is_persistent() const { return _domain == "persistent" || _domain == "segment"; }
  bool is_scalable() const { return _domain == "topic"; }
  bool is_segment() const { return _domain == "segment"; }

  // "persistent://tenant/ns/local"
  std::string full() const;
  // "tenant/ns"
  std::string namespace_name() const;
  // -1 unless the local name ends in -partition-<n>.
  int partition() const { return _partition; }
  // The partitioned topic this partition belongs to (itself when it is none).
  topic_name partitioned_parent() const;
  topic_name partition_of(int index) const;
  // "tenant/ns/persistent/local": the managed ledger's name (upstream's persistence naming).
  std::string persistence_name() const;

  friend bool operator==(const topic_name& a, const topic_name& b) { return a.full() == b.full(); }

 private:
  std::string _domain;
  std::string _tenant;
  std::string _namespace;
  std::string _local;
  int _partition = -1;
};

// Tenant, namespace and cluster names: letters, digits and -=:._ (upstream's rule),
// except "." and "..".
bool is_valid_name_part(std::string_view part);

// A scalable topic's segment, as upstream names it: "<start>-<end>-<id>", the hash range
// [start, end] as four lowercase hex digits each and the segment's id in decimal.
std::string segment_descriptor(std::uint32_t hash_start, std::uint32_t hash_end, std::uint64_t id);
// "segment://<path>/<descriptor>" for the scalable topic "topic://<path>" (`path` is
// "tenant/namespace/local"; a leading "topic://" is dropped).
std::string segment_topic_name(std::string_view scalable_topic_path, std::uint32_t hash_start, std::uint32_t hash_end,
                               std::uint64_t id);

}  // namespace magnetar::wire
