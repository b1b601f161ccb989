/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcsim's number parsing, one rule for every option and trace field: a
 * whole number is decimal digits only (no sign, no 0x, no spaces), within
 * its range, or it is refused; nothing is read in part.  The sim_opt_*()
 * functions end hcsim with a message naming the option and the value
 * (exit status 2, as for any other usage error).
 */
#ifndef HCSIM_PARSE_H
#define HCSIM_PARSE_H

#include <stdbool.h>
#include "core.h"

bool sim_parse_u64(const char *s, u64 max, u64 *v);
u64 sim_opt_u64(const char *opt, const char *s, u64 min, u64 max);
double sim_opt_double(const char *opt, const char *s, double min, double max);
u64 sim_opt_size(const char *opt, const char *s, bool *bytes);
void __attribute__((format(printf, 1, 2), noreturn))
sim_usage_error(const char *fmt, ...);

#endif
