#include "broker/topic/key_shared_selector.h"

#include "base/murmur3.h"
#include "broker/api/errc.h"
#include "broker/topic/consumer.h"
#include "broker/topic/sticky_key.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace magnetar::broker {

namespace {

class consistent_hash_selector final : public key_shared_selector {
 public:
  explicit consistent_hash_selector(int points) : _points(points) {}

  result<void> add(consumer& c, const proto::KeySharedMeta& /*meta*/) override {
    for (int i = 0; i < _points; ++i) _ring[mark(c, i)].push_back(&c);
    flatten();
    return success();
  }

  void remove(const consumer& c) override {
    for (int i = 0; i < _points; ++i) {
      auto it = _ring.find(mark(c, i));
      if (it == _ring.end()) continue;
      std::erase(it->second, &c);
      if (it->second.empty()) _ring.erase(it);
    }
    flatten();
  }

  consumer* select(std::uint16_t hash) const override {
    if (_owners.empty()) return nullptr;
    // The first mark at or after the hash: from the first one of its bucket, a step or two.
    auto i = _first_mark_of_bucket[hash >> bucket_shift];
    while (i < _marks.size() && _marks[i] < hash) ++i;
    if (i == _marks.size()) i = 0;  // past the last mark: the first owns the hash
    const auto& owners = *_owners[i];
    // Marks that collide (consumers of the same name, or chance) share the hashes.
    return owners.size() == 1 ? owners.front() : owners[hash % owners.size()];
  }

  std::vector<std::pair<int, int>> ranges_of(const consumer& c) const override {
    std::vector<std::pair<int, int>> out;
    if (_ring.empty()) return out;
    // Each mark owns the hashes after the previous mark, up to itself.
    int previous = static_cast<int>(_ring.rbegin()->first) - static_cast<int>(key_hash_ring_size);
    for (const auto& [point, owners] : _ring) {
      if (std::find(owners.begin(), owners.end(), &c) != owners.end()) {
        const int from = previous + 1;
        const int to = static_cast<int>(point);
        if (from < 0) {
          out.emplace_back(from + static_cast<int>(key_hash_ring_size), key_hash_ring_size - 1);
          out.emplace_back(0, to);
        } else {
          out.emplace_back(from, to);
        }
      }
      previous = static_cast<int>(point);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  static std::uint32_t mark(const consumer& c, int i) { return sticky_key_hash(c.name() + std::to_string(i)); }

  // The marks in an array, with where each bucket of 16 hashes starts in it: a lookup
  // steps from there over a mark or two instead of searching. The tree's lookup among a
  // thousand marks (ten consumers) took 42 ns, a binary search in the array no less (its
  // branches mispredict), this 2-9 ns. 16 KiB a subscription; a table of every hash
  // would be 256 KiB.
  static constexpr int bucket_shift = 4;

  void flatten() {
    _marks.clear();
    _owners.clear();
    _first_mark_of_bucket.assign(key_hash_ring_size >> bucket_shift, 0);
    for (const auto& [point, owners] : _ring) {
      _marks.push_back(point);
      _owners.push_back(&owners);
    }
    std::uint32_t i = 0;
    for (std::uint32_t b = 0; b < _first_mark_of_bucket.size(); ++b) {
      while (i < _marks.size() && _marks[i] < (b << bucket_shift)) ++i;
      _first_mark_of_bucket[b] = i;
    }
  }

  const int _points;
  std::map<std::uint32_t, std::vector<consumer*>> _ring;
  std::vector<std::uint32_t> _marks;                   // the ring's marks, ascending
  std::vector<const std::vector<consumer*>*> _owners;  // each mark's consumers, in _ring
  std::vector<std::uint32_t> _first_mark_of_bucket;    // index of the first mark >= the bucket's start
};

class sticky_range_selector final : public key_shared_selector {
 public:
  result<void> add(consumer& c, const proto::KeySharedMeta& meta) override {
    if (meta.hashranges_size() == 0) {
      return fail(errc::consumer_assign_error, "a STICKY Key_Shared consumer must give its hash ranges");
    }
    std::vector<std::pair<int, int>> wanted;
    for (const auto& r : meta.hashranges()) {
      if (r.start() < 0 || r.end() >= static_cast<int>(key_hash_ring_size) || r.start() > r.end()) {
        return fail(errc::consumer_assign_error, fmt::format("hash range [{}, {}] is not within [0, {}]", r.start(),
                                                             r.end(), key_hash_ring_size - 1));
      }
      for (const auto& [start, end] : wanted) {
        if (r.start() <= end && start <= r.end()) {
          return fail(errc::consumer_assign_error,
                      fmt::format("hash ranges [{}, {}] and [{}, {}] overlap", start, end, r.start(), r.end()));
        }
      }
      if (const auto* taken = overlapping(r.start(), r.end())) {
        return fail(errc::consumer_assign_error,
                    fmt::format("hash range [{}, {}] overlaps [{}, {}] of consumer {}", r.start(), r.end(),
                                taken->first, taken->second.end, taken->second.owner->name()));
      }
      wanted.emplace_back(r.start(), r.end());
    }
    for (const auto& [start, end] : wanted) _ranges.emplace(start, range{end, &c});
    return success();
  }

  void remove(const consumer& c) override {
    std::erase_if(_ranges, [&](const auto& item) { return item.second.owner == &c; });
  }

  consumer* select(std::uint16_t hash) const override {
    auto it = _ranges.upper_bound(hash);
    if (it == _ranges.begin()) return nullptr;
    --it;
    return hash <= it->second.end ? it->second.owner : nullptr;
  }

  std::vector<std::pair<int, int>> ranges_of(const consumer& c) const override {
    std::vector<std::pair<int, int>> out;
    for (const auto& [start, r] : _ranges) {
      if (r.owner == &c) out.emplace_back(start, r.end);
    }
    return out;
  }

 private:
  struct range {
    int end;
    consumer* owner;
  };

  const std::pair<const int, range>* overlapping(int start, int end) const {
    auto it = _ranges.upper_bound(end);
    if (it == _ranges.begin()) return nullptr;
    --it;
    return it->second.end >= start ? &*it : nullptr;
  }

  std::map<int, range> _ranges;
};

}  // namespace

std::unique_ptr<key_shared_selector> make_consistent_hash_selector(int points_per_consumer) {
  return std::make_unique<consistent_hash_selector>(points_per_consumer);
}

std::unique_ptr<key_shared_selector> make_sticky_range_selector() { return std::make_unique<sticky_range_selector>(); }

}  // namespace magnetar::broker
