/* err.c - names and descriptions of result codes, from errors.def.
 *
 * msb_strerror gives the text GNU tools print for the matching errno, so
 * commands can word diagnostics exactly like coreutils. The codes' values
 * are declared in include/memsandbox.h (the C manual); the assertions below
 * make the build fail when it and errors.def disagree. */
#include "memsandbox.h"

#define ERR(name, value, text, js_code, js_category) \
  _Static_assert(MSB_##name == (value),              \
                 "MSB_" #name " differs from errors.def");
#include "errors.def"
#undef ERR

typedef struct err_info {
  int code;
  const char *name;
  const char *text;
} err_info;

static const err_info err_table[] = {
#define ERR(name, value, text, js_code, js_category) \
  {value, "MSB_" #name, text},
#include "errors.def"
#undef ERR
};

static const err_info *err_find(int code) {
  size_t i;
  for (i = 0; i < sizeof err_table / sizeof err_table[0]; i++)
    if (err_table[i].code == code) return &err_table[i];
  return 0;
}

const char *msb_code_name(int code) {
  const err_info *e = err_find(code);
  return e ? e->name : "MSB_EUNKNOWN";
}

const char *msb_strerror(int code) {
  const err_info *e = err_find(code);
  return e ? e->text : "Unknown error";
}
