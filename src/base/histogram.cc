#include "base/histogram.h"
