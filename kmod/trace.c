// SPDX-License-Identifier: GPL-2.0
/*
 * The one place the module's tracepoints (trace.h) are defined.
 */
#include <linux/module.h>
#include "hypercache.h"

#define CREATE_TRACE_POINTS
#include "trace.h"
