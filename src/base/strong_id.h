// strong_id<Tag, Rep>: a number that means one kind of thing.
//
// A ledger id and an entry id are both integers; as strong ids they cannot be
// swapped by mistake. Comparable, hashable and formattable; a plain value type.
#pragma once

#include <fmt/format.h>

#include <compare>
#include <cstddef>
#include <functional>

namespace magnetar::base {

template <class Tag, class Rep>
class strong_id {
 public:
  using rep = Rep;

  constexpr strong_id() = default;
  constexpr explicit strong_id(Rep value) : _value(value) {}

  constexpr Rep value() const { return _value; }

  friend constexpr auto operator<=>(const strong_id&, const strong_id&) = default;

 private:
  Rep _value{};
};

}  // namespace magnetar::base

template <class Tag, class Rep>
struct std::hash<magnetar::base::strong_id<Tag, Rep>> {
  std::size_t operator()(const magnetar::base::strong_id<Tag, Rep>& id) const noexcept {
    return std::hash<Rep>{}(id.value());
  }
};

template <class Tag, class Rep>
struct fmt::formatter<magnetar::base::strong_id<Tag, Rep>> : fmt::formatter<Rep> {
  auto format(const magnetar::base::strong_id<Tag, Rep>& id, fmt::format_context& ctx) const {
    return fmt::formatter<Rep>::format(id.value(), ctx);
  }
};
