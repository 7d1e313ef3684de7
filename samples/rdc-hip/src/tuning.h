// Read by math.hip only: a change here rebuilds that object and the link.
#pragma once
#define PHC_RDC_SCALE 2.0f
