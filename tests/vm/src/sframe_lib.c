#include "sframe_lib.h"
