/* tac.c - concatenate and print files in reverse (GNU coreutils tac).
 *
 * Records are found by scanning each whole input for the separator (a
 * string, -s, or with -r a BRE whose non-empty matches are taken left to
 * right, where GNU searches backwards, which can differ for overlapping
 * matches); they are then written last to first, each with its separator
 * after it (or before it with -b), as GNU does.
 *
 * Usage: tac [OPTION]... [FILE]... */
#include <string.h>

#include "../cold.h"
#include "../regex.h"
#include "cmd.h"

static const char tac_usage[] MSB_COLD =
    "Usage: tac [OPTION]... [FILE]...\n"
    "Write each FILE to standard output, last line first.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -b, --before             attach the separator before instead of "
    "after\n"
    "  -r, --regex              interpret the separator as a regular "
    "expression\n"
    "  -s, --separator=STRING   use STRING as the separator instead of "
    "newline\n";

static const cmd_opt tac_opts[] = {{'b', "before", CMD_ARG_NONE, 'b'},
                                   {'r', "regex", CMD_ARG_NONE, 'r'},
                                   {'s', "separator", CMD_ARG_REQ, 's'},
                                   {0, 0, 0, 0}};

/* Next separator at or after pos: 1 with [*so, *eo), 0 none, or a
 * negative code. Regex separators must be non-empty matches. */
static int tac_next(cmd_ctx *c, rx *re, const uint8_t *d, size_t len,
                    size_t pos, const char *sep, size_t sl, size_t *so,
                    size_t *eo) {
  if (re) {
    while (pos < len) {
      rx_match m;
      int r = cmd_rx_exec(c, re, d, len, pos, 0, &m, 1);
      if (r <= 0) return r;
      if (m.eo > m.so) {
        *so = (size_t)m.so;
        *eo = (size_t)m.eo;
        return 1;
      }
      pos = (size_t)m.so + 1;
    }
    return 0;
  } else {
    const uint8_t *q =
        sl && pos < len ? buf_memmem(d + pos, len - pos, sep, sl) : NULL;
    if (!q) return 0;
    *so = (size_t)(q - d);
    *eo = *so + sl;
    return 1;
  }
}

/* Writes one input reversed. 0 or a negative code. */
static int tac_one(cmd_ctx *c, rx *re, const uint8_t *d, size_t len,
                   const char *sep, size_t sl, int before) {
  size_t n = 0, cap = 64, k, pos = 0, so, eo, end;
  size_t *at;
  int r;
  at = arena_alloc(c->a, cap * 2 * sizeof *at);
  if (!at) return MSB_ENOMEM;
  while ((r = tac_next(c, re, d, len, pos, sep, sl, &so, &eo)) == 1) {
    if (n == cap) {
      size_t *na = arena_alloc(c->a, cap * 4 * sizeof *na);
      if (!na) return MSB_ENOMEM;
      memcpy(na, at, n * 2 * sizeof *na);
      at = na;
      cap *= 2;
    }
    at[2 * n] = so;
    at[2 * n + 1] = eo;
    n++;
    pos = eo;
  }
  if (r < 0) return r;
  end = len;
  if (!before) {
    /* Records end after each separator; a tail without one is first. */
    for (k = n + 1; k > 0; k--) {
      size_t st = k - 1 > 0 ? at[2 * (k - 2) + 1] : 0;
      size_t e = k - 1 == n ? end : at[2 * (k - 1) + 1];
      if (e > st) buf_put(c->out, d + st, e - st);
    }
  } else {
    /* Records start at each separator; text before the first is last. */
    for (k = n; k > 0; k--) {
      buf_put(c->out, d + at[2 * (k - 1)], end - at[2 * (k - 1)]);
      end = at[2 * (k - 1)];
    }
    if (end) buf_put(c->out, d, end);
  }
  return c->out->err;
}

/* Entry point: see the usage above. */
int cmd_tac(cmd_ctx *c) {
  cmd_getopt g;
  int opt, i, nops, status = 0, before = 0, regex = 0, rc = 0;
  const char *sep = "\n";
  size_t sl = 1;
  char *const *ops;
  rx *re = NULL;
  cmd_opt_init(&g, c, tac_opts, tac_usage, 0);
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: return 1;
    case CMD_OPT_EXIT: return 0;
    case 'b': before = 1; break;
    case 'r': regex = 1; break;
    case 's':
      sep = g.arg;
      sl = strlen(g.arg);
      break;
    default:
      if (opt < 0) return 1;
      break;
    }
  }
  if (regex && sl) {
    buf em;
    buf_init(&em, c->m);
    rc = rx_compile(c->m, sep, sl, RX_BRE, &re, &em);
    if (rc < 0) {
      cmd_err(c, "%s", rc == MSB_EINVAL ? buf_str(&em) : cmd_strerror(rc));
      buf_finish(&em);
      return 1;
    }
    buf_finish(&em);
  }
  ops = cmd_operands(&g, &nops);
  for (i = 0; i < nops && rc >= 0; i++) {
    const uint8_t *d;
    size_t len;
    rc = cmd_input(c, ops[i], &d, &len);
    if ((rc == MSB_EISDIR || rc == CMD_EBADF) && !strcmp(ops[i], "-")) {
      /* `tac < dir`: GNU's seek-and-read of it fails this way */
      cmd_err(c, "%s: read error: %s", cmd_quote(c, "standard input"),
              cmd_strerror(rc == CMD_EBADF ? rc : MSB_EINVAL));
      status = 1;
      rc = 0;
      continue;
    }
    if (rc < 0) {
      cmd_err(c, "failed to open %s for reading: %s", cmd_quote(c, ops[i]),
              cmd_strerror(rc));
      status = 1;
      rc = 0;
      continue;
    }
    rc = tac_one(c, re, d, len, sep, sl, before);
  }
  rx_free(re);
  return rc < 0 ? rc : status;
}
