// The strict decimal readers live with every other reader of user text in the model
// (memhier/model/input.hpp); the registry's families and the kernels name them from here.
#pragma once

#include "memhier/model/input.hpp"

namespace memhier::registry {

using model::Decimal;
using model::DecimalReal;
using model::quote_for_message;
using model::read_decimal;
using model::read_decimal_real;

}  // namespace memhier::registry
