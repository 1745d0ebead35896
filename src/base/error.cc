#include "base/error.h"

namespace magnetar {

std::string error::message() const {
  if (_detail.empty()) return _code.message();
  return _detail + ": " + _code.message();
}

}  // namespace magnetar
