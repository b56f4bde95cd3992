/* limits.c - limits.def turned into profiles, checks and names.
 *
 * The public struct msb_limits lives in include/memsandbox.h, which is the
 * C manual and cannot include a table; the assertions below make the build
 * fail when its fields and limits.def disagree in name, type or order. */
#include "limits.h"

#include <stddef.h>
#include <string.h>

/* msb_limits as limits.def declares it. */
typedef struct limit_mirror {
#define LIMIT(id, field, type, normal, strict, min, code, noun, bounds) \
  type field;
#include "limits.def"
#undef LIMIT
} limit_mirror;

#define LIMIT(id, field, type, normal, strict, min, code, noun, bounds) \
  _Static_assert(                                                       \
      offsetof(msb_limits, field) == offsetof(limit_mirror, field) &&   \
          _Generic(((msb_limits *)0)->field, type: 1, default: 0),      \
      "msb_limits." #field " differs from limits.def");
#include "limits.def"
#undef LIMIT
_Static_assert(sizeof(msb_limits) == sizeof(limit_mirror),
               "msb_limits has a field limits.def lacks");

typedef struct limit_info {
  const char *name;
  size_t off, size; /* size 0: not a field */
  uint64_t normal, strict, min;
  int code;
  const char *noun;
} limit_info;

static const limit_info limit_table[LIMIT_END] = {
    [LIMIT_NONE] = {NULL, 0, 0, 0, 0, 0, 0, ""},
#define LIMIT(id, field, type, normal, strict, min, code, noun, bounds) \
  [LIMIT_##id] = {#field,       offsetof(msb_limits, field),            \
                  sizeof(type), normal,                                 \
                  strict,       min,                                    \
                  code,         noun},
#include "limits.def"
#undef LIMIT
    [LIMIT_TIMEOUT] = {"timeout", 0, 0, 0, 0, 0, 0, ""},
    [LIMIT_CANCELLED] = {"cancelled", 0, 0, 0, 0, 0, 0, ""},
    [LIMIT_DEADLINE] = {"timeout", 0, 0, 0, 0, 0, 0, ""},
};

/* Fills *lim with a profile's values. */
int msb_limits_init(msb_limits *lim, int profile) {
  limit_id i;
  if (!lim) return MSB_EINVAL;
  memset(lim, 0, sizeof *lim);
  if (profile != MSB_PROFILE_NORMAL && profile != MSB_PROFILE_STRICT)
    return MSB_EINVAL;
  for (i = LIMIT_NONE + 1; i < LIMIT_TIMEOUT; i++) {
    const limit_info *t = &limit_table[i];
    uint64_t v = profile == MSB_PROFILE_STRICT ? t->strict : t->normal;
    uint32_t v32 = (uint32_t)v;
    memcpy((char *)lim + t->off, t->size == 4 ? (void *)&v32 : (void *)&v,
           t->size);
  }
  return 0;
}

/* The limit's name, or NULL. */
const char *limit_name(limit_id id) {
  return id > LIMIT_NONE && id < LIMIT_END ? limit_table[id].name : NULL;
}

/* How stderr names a stop at the limit. */
const char *limit_noun(limit_id id) {
  const char *n = id < LIMIT_END ? limit_table[id].noun : "";
  return *n ? n : "limit";
}

/* A field's value by id. */
uint64_t limit_value(const msb_limits *lim, limit_id id) {
  const limit_info *t = id < LIMIT_END ? &limit_table[id] : NULL;
  const char *p = t ? (const char *)lim + t->off : NULL;
  uint32_t v32;
  uint64_t v64;
  if (!t || t->size == 0) return 0;
  if (t->size == 4) {
    memcpy(&v32, p, 4);
    return v32;
  }
  memcpy(&v64, p, 8);
  return v64;
}

/* The quota behind a failure code. */
limit_id limit_of_code(int code) {
  limit_id i;
  for (i = LIMIT_NONE + 1; code && i < LIMIT_TIMEOUT; i++)
    if (limit_table[i].code == code) return i;
  return LIMIT_NONE;
}

/* Whether msb_open accepts the limits. */
int limit_check(const msb_limits *lim) {
  limit_id i;
  for (i = LIMIT_NONE + 1; i < LIMIT_TIMEOUT; i++)
    if (limit_value(lim, i) < limit_table[i].min) return 0;
  return lim->max_file_bytes <= lim->max_total_bytes;
}
