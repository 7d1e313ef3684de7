// Device-only tuning knobs: included by device compiles only (see saxpy.hip).
#pragma once

#define PHC_DEVICE_SCALE 1.0f
