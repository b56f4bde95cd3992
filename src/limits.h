/* limits.h - the limits of a sandbox, by id: names, profile values, checks.
 *
 * Every limit is one row of limits.def; this module turns the rows into
 * msb_limits_init's profiles, msb_open's check, and the names and nouns a
 * run reports when a limit stops it. A run carries the limit that stopped
 * it as a limit_id, and the name string appears only at the API boundary
 * (msb_result.limit, events). */
#ifndef MSB_LIMITS_H
#define MSB_LIMITS_H

#include <stdint.h>

#include "memsandbox.h"

/* Why a run stopped: a msb_limits field, or the `timeout` command's own
 * step budget. LIMIT_NONE (0) while nothing has stopped it. */
typedef enum limit_id {
  LIMIT_NONE = 0,
#define LIMIT(id, field, type, normal, strict, min, code, noun, bounds) \
  LIMIT_##id,
#include "limits.def"
#undef LIMIT
  LIMIT_TIMEOUT,
  LIMIT_CANCELLED, /* the host cancelled the run (msb_exec_cancel) */
  LIMIT_DEADLINE,  /* the host's wall-clock timeout ended it */
  LIMIT_END
} limit_id;

/* The limit's name ("max_steps", "timeout"); NULL for LIMIT_NONE. */
const char *limit_name(limit_id id);
/* How stderr names a run stopped at it ("step limit"); "limit" when the
 * table gives no noun. */
const char *limit_noun(limit_id id);
/* The limit's value in *lim; 0 for one that is not a field. */
uint64_t limit_value(const msb_limits *lim, limit_id id);
/* The quota a host call's failure code stands for (MSB_ENOSPC is
 * max_total_bytes), or LIMIT_NONE. */
limit_id limit_of_code(int code);
/* Whether msb_open accepts *lim (every field at least its minimum, and one
 * file no larger than the whole workspace). */
int limit_check(const msb_limits *lim);

#endif
