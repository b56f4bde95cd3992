/* util.c - what the builtins share: usage and option errors, writing
 * their output, integer arguments, and the function printer. */
#include <string.h>

#include "builtin.h"

/* declare -f / type: one printer for function bodies, the parser's. */
int interp_print_func(shell *sh, const char *name, const ast_node *body,
                      buf *b) {
  int rc = ast_print_function(b, name, body, interp_stack_left(sh));
  if (rc == MSB_ENOTSUP) {
    interp_errf(sh, "%s: cannot print this function's body exactly", name);
    return rc;
  }
  if (rc == MSB_ELIMIT) return interp_stack_fail(sh);
  return rc ? rc : buf_putc(b, '\n');
}

int bi_usage(shell *sh, const char *name, const char *usage) {
  interp_usagef(sh, "%s: usage: %s", name, usage);
  return 2;
}

int bi_badopt(shell *sh, const char *name, const char *arg, const char *usage) {
  interp_errf(sh, "%s: %.2s: invalid option", name, arg);
  return bi_usage(sh, name, usage);
}

/* For builtins whose options are the letters in ok: a first argument that
 * is another option is bash's "invalid option" usage error (2); returns
 * the index of the first operand (after any options and "--") or -1 after
 * such an error. */
int bi_opts_only(shell *sh, int argc, char **argv, const char *ok,
                 const char *usage) {
  int i = 1, c;
  const char *o = NULL;
  while ((c = bi_nextopt(argc, argv, &i, &o)))
    if (!strchr(ok, c)) {
      bi_badletter(sh, argv[0], c, usage);
      return -1;
    }
  return i;
}

int bi_nextopt(int argc, char **argv, int *i, const char **o) {
  if (!*o || !**o) {
    if (*o) ++*i; /* the previous cluster is done */
    if (*i >= argc || argv[*i][0] != '-' || !argv[*i][1]) return 0;
    if (!strcmp(argv[*i], "--")) {
      ++*i;
      return 0;
    }
    *o = argv[*i] + 1;
  }
  return *(*o)++;
}

int bi_badletter(shell *sh, const char *name, int c, const char *usage) {
  char bad[3] = {'-', (char)c, 0};
  return bi_badopt(sh, name, bad, usage);
}

int bi_out(shell *sh, buf *b) {
  int rc = b->err ? b->err : interp_write(sh, 1, b->p, b->len);
  buf_finish(b);
  return rc == MSB_ENOMEM ? rc : 0;
}

int bi_parse_int(const char *s, int64_t *v) {
  int neg = 0;
  uint64_t u = 0;
  const char *p = s;
  while (*p == ' ' || *p == '\t') p++;
  if (*p == '-' || *p == '+') neg = *p++ == '-';
  if (!*p) return 0;
  for (; *p >= '0' && *p <= '9'; p++) {
    u = u * 10 + (uint64_t)(*p - '0');
    if (u > ((uint64_t)1 << 63)) return 0;
  }
  while (*p == ' ' || *p == '\t') p++;
  if (*p) return 0;
  *v = neg ? (int64_t)(0 - u) : (int64_t)u;
  return 1;
}
