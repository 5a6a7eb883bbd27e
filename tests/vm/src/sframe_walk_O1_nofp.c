#include "sframe_walk.h"
