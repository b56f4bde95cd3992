/* uniq.c - report or omit repeated lines (GNU coreutils uniq).
 *
 * One pass over the borrowed input comparing each line with the first line
 * of the current group, on the part left after skipping -f fields and -s
 * characters, limited to -w characters, optionally case-folded. Groups are
 * emitted when they end, which also serves -D/--all-repeated and --group.
 * An OUTPUT operand is written through the vfs at the end.
 *
 * Usage: uniq [OPTION]... [INPUT [OUTPUT]] */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char uniq_usage[] MSB_COLD =
    "Usage: uniq [OPTION]... [INPUT [OUTPUT]]\n"
    "Filter adjacent matching lines from INPUT (or standard input),\n"
    "writing to OUTPUT (or standard output).\n"
    "\n"
    "  -c, --count           prefix lines by the number of occurrences\n"
    "  -d, --repeated        only print duplicate lines, one for each "
    "group\n"
    "  -D                    print all duplicate lines\n"
    "      --all-repeated[=METHOD]  like -D, but allow separating groups\n"
    "  -f, --skip-fields=N   avoid comparing the first N fields\n"
    "      --group[=METHOD]  show all items, separating groups with an "
    "empty line\n"
    "  -i, --ignore-case     ignore differences in case when comparing\n"
    "  -s, --skip-chars=N    avoid comparing the first N characters\n"
    "  -u, --unique          only print unique lines\n"
    "  -z, --zero-terminated     line delimiter is NUL, not newline\n"
    "  -w, --check-chars=N   compare no more than N characters in lines\n";

enum { UNIQ_O_ALLREP = 256, UNIQ_O_GROUP };

static const cmd_opt uniq_opts[] = {
    {'c', "count", CMD_ARG_NONE, 'c'},
    {'d', "repeated", CMD_ARG_NONE, 'd'},
    {'D', 0, CMD_ARG_NONE, 'D'},
    {0, "all-repeated", CMD_ARG_OPT, UNIQ_O_ALLREP},
    {'f', "skip-fields", CMD_ARG_REQ, 'f'},
    {0, "group", CMD_ARG_OPT, UNIQ_O_GROUP},
    {'i', "ignore-case", CMD_ARG_NONE, 'i'},
    {'s', "skip-chars", CMD_ARG_REQ, 's'},
    {'u', "unique", CMD_ARG_NONE, 'u'},
    {'z', "zero-terminated", CMD_ARG_NONE, 'z'},
    {'w', "check-chars", CMD_ARG_REQ, 'w'},
    {0, 0, 0, 0}};

/* -D/--group separation methods. */
enum {
  UNIQ_SEP_NONE,
  UNIQ_SEP_PREPEND,
  UNIQ_SEP_SEPARATE,
  UNIQ_SEP_APPEND,
  UNIQ_SEP_BOTH
};

typedef struct uniq_st {
  uint64_t skipf, skipc, checkc;
  int icase, delim;
} uniq_st;

/* The compared part of a line. */
static void uniq_key(const uniq_st *u, const uint8_t *s, size_t len,
                     const uint8_t **k, size_t *kl) {
  size_t i = 0;
  uint64_t f;
  for (f = 0; f < u->skipf && i < len; f++) {
    while (i < len && (s[i] == ' ' || s[i] == '\t')) i++;
    while (i < len && !(s[i] == ' ' || s[i] == '\t')) i++;
  }
  i = (uint64_t)(len - i) < u->skipc ? len : i + (size_t)u->skipc;
  *k = s + i;
  *kl = len - i;
  if (u->checkc != UINT64_MAX && *kl > u->checkc) *kl = (size_t)u->checkc;
}

static int uniq_eq(const uniq_st *u, const uint8_t *a, size_t al,
                   const uint8_t *b, size_t bl) {
  const uint8_t *ka, *kb;
  size_t kal, kbl, i;
  uniq_key(u, a, al, &ka, &kal);
  uniq_key(u, b, bl, &kb, &kbl);
  if (kal != kbl) return 0;
  if (!u->icase) return kal == 0 || !memcmp(ka, kb, kal);
  for (i = 0; i < kal; i++) {
    int x = ka[i], y = kb[i];
    if (x >= 'A' && x <= 'Z') x += 32;
    if (y >= 'A' && y <= 'Z') y += 32;
    if (x != y) return 0;
  }
  return 1;
}

static int uniq_count_arg(cmd_ctx *c, const char *s, const char *what,
                          uint64_t *out) {
  int64_t v;
  int rc = cmd_parse_int(s, &v);
  if (rc == CMD_NUM_RANGE && *s != '-') {
    *out = UINT64_MAX;
    return 0;
  }
  if (rc || v < 0) {
    cmd_err(c, "%s: %s", s, what);
    return 1;
  }
  *out = (uint64_t)v;
  return 0;
}

static int uniq_method(cmd_getopt *g, const char *arg, const char *opt,
                       int group, int *out) {
  static const char *const names[] = {"none", "prepend", "separate", "append",
                                      "both"};
  int i, n = group ? 5 : 3, hit = -1, hits = 0;
  size_t len = strlen(arg);
  for (i = group ? 1 : 0; i < n; i++) {
    if (!strncmp(names[i], arg, len) && len) {
      if (strlen(names[i]) == len) {
        hit = i;
        hits = 1;
        break;
      }
      hit = i;
      hits++;
    }
  }
  if (hits == 1) {
    *out = hit;
    return 0;
  }
  cmd_err(g->c, "%s argument %s for %s", hits ? "ambiguous" : "invalid",
          cmd_quote(g->c, arg), cmd_quote(g->c, opt));
  buf_puts(g->c->err, "Valid arguments are:\n");
  for (i = group ? 1 : 0; i < n; i++)
    buf_printf(g->c->err, "  - '%s'\n", names[i]);
  buf_printf(g->c->err, "Try '%s --help' for more information.\n",
             cmd_name(g->c));
  return 1;
}

/* Entry point: see the usage above. */
int cmd_uniq(cmd_ctx *c) {
  cmd_getopt g;
  uniq_st u;
  int opt, count = 0, dup = 0, alldup = 0, uniq = 0, group = 0, rc;
  int sep = UNIQ_SEP_NONE, gsep = UNIQ_SEP_SEPARATE, first_group = 1;
  const uint8_t *d, *rec, *gs = NULL;
  size_t len, rl, gl = 0;
  uint64_t n = 0;
  cmd_lines it;
  buf ob, *o;
  const char *in = "-", *outname = NULL;
  memset(&u, 0, sizeof u);
  u.checkc = UINT64_MAX;
  u.delim = '\n';
  cmd_opt_init(&g, c, uniq_opts, uniq_usage, 0);
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: return 1;
    case CMD_OPT_EXIT: return 0;
    case 'c': count = 1; break;
    case 'd': dup = 1; break;
    case 'D': alldup = 1; break;
    case UNIQ_O_ALLREP:
      alldup = 1;
      if (g.arg && uniq_method(&g, g.arg, "--all-repeated", 0, &sep)) return 1;
      break;
    case UNIQ_O_GROUP:
      group = 1;
      if (g.arg && uniq_method(&g, g.arg, "--group", 1, &gsep)) return 1;
      break;
    case 'f':
      if (uniq_count_arg(c, g.arg, "invalid number of fields to skip",
                         &u.skipf))
        return 1;
      break;
    case 's':
      if (uniq_count_arg(c, g.arg, "invalid number of bytes to skip", &u.skipc))
        return 1;
      break;
    case 'w':
      if (uniq_count_arg(c, g.arg, "invalid number of bytes to compare",
                         &u.checkc))
        return 1;
      break;
    case 'i': u.icase = 1; break;
    case 'u': uniq = 1; break;
    case 'z': u.delim = 0; break;
    default:
      if (opt < 0) return 1;
      break;
    }
  }
  if (g.nops > 2)
    return cmd_usage_err(&g, "extra operand %s", cmd_quote(c, g.ops[2]));
  if (group && (count || dup || alldup || uniq))
    return cmd_usage_err(&g,
                         "--group is mutually exclusive with "
                         "-c/-d/-D/-u");
  if (alldup && count)
    return cmd_usage_err(&g,
                         "printing all duplicated lines and repeat "
                         "counts is meaningless");
  if (g.nops >= 1) in = g.ops[0];
  if (g.nops == 2) outname = g.ops[1];
  rc = cmd_input(c, in, &d, &len);
  if (rc == MSB_EISDIR || rc == CMD_EBADF) {
    cmd_err(c, "error reading %s", cmd_quote(c, in));
    return 1;
  }
  if (rc < 0) {
    cmd_err(c, "%s: %s", cmd_quotef(c, in), cmd_strerror(rc));
    return 1;
  }
  buf_init(&ob, c->m);
  o = outname ? &ob : c->out;
  cmd_lines_init(&it, d, len, u.delim);
  for (;;) {
    int more = cmd_lines_next(&it, &rec, &rl, NULL);
    if (n && more && uniq_eq(&u, gs, gl, rec, rl)) {
      n++;
      if (alldup) {
        if (n == 2) {
          if (!first_group && (sep == UNIQ_SEP_SEPARATE)) buf_putc(o, u.delim);
          if (sep == UNIQ_SEP_PREPEND) buf_putc(o, u.delim);
          first_group = 0;
          buf_put(o, gs, gl);
          buf_putc(o, u.delim);
        }
        buf_put(o, rec, rl);
        buf_putc(o, u.delim);
      } else if (group) {
        buf_put(o, rec, rl);
        buf_putc(o, u.delim);
      }
      continue;
    }
    /* The group [gs] of n lines ends here. */
    if (n && !alldup && !group && (n > 1 ? !uniq : !dup)) {
      if (count) buf_printf(o, "%7llu ", (unsigned long long)n);
      buf_put(o, gs, gl);
      buf_putc(o, u.delim);
    }
    if (!more) break;
    if (group) {
      /* Between groups always; before the first only for prepend/both. */
      if (n || gsep == UNIQ_SEP_PREPEND || gsep == UNIQ_SEP_BOTH)
        buf_putc(o, u.delim);
      buf_put(o, rec, rl);
      buf_putc(o, u.delim);
    }
    gs = rec;
    gl = rl;
    n = 1;
    if ((rc = cmd_tick(c, 0)) != 0) break;
  }
  if (group && n && (gsep == UNIQ_SEP_APPEND || gsep == UNIQ_SEP_BOTH))
    buf_putc(o, u.delim);
  if (outname) {
    const char *abs = cmd_path(c, outname);
    rc = ob.err ? ob.err
         : abs  ? vfs_write(c->fs, abs, ob.p ? ob.p : "", ob.len, VFS_KEEP_MODE,
                            CMD_NEWFILE(c), NULL)
                : MSB_ENOMEM;
    buf_finish(&ob);
    if (rc < 0) {
      cmd_err(c, "%s: %s", cmd_quotef(c, outname), cmd_strerror(rc));
      return 1;
    }
    return 0;
  }
  return o->err ? o->err : 0;
}
