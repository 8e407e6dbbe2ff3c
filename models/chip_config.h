#ifndef PTO_MODELS_CHIP_CONFIG_H_
#define PTO_MODELS_CHIP_CONFIG_H_

// ChipConfig lives in models/base/chip_config.h, below every folder that
// reads it. This forwarding header remains only for frontend/reference.cc;
// new code includes the base header.
#include "models/base/chip_config.h"  // IWYU pragma: export

#endif  // PTO_MODELS_CHIP_CONFIG_H_
