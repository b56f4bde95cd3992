/* tsort.c - topological sort of the pairs in FILE (GNU coreutils 9).
 *
 * Knuth's algorithm T, in GNU's order: items are kept sorted by name;
 * each round queues the items with no remaining predecessors in that
 * order, prints them breadth first (an item's successors newest pair
 * first), and when items remain they form a loop: the loop found by
 * walking the items in name order is printed on stderr, one of its
 * relations dropped, and the sort goes on, so every item is printed.
 *
 * Usage: tsort [OPTION] [FILE] */
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char tsort_usage[] MSB_COLD =
    "Usage: tsort [OPTION] [FILE]\n"
    "Write totally ordered list consistent with the partial ordering in "
    "FILE.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt tsort_opts[] = {{0, 0, 0, 0}};

typedef struct tsort_suc {
  int to;
  struct tsort_suc *next;
} tsort_suc;

typedef struct tsort_item {
  const char *name;
  size_t len;
  int count;       /* predecessors not yet printed */
  int done;        /* printed */
  int qlink;       /* queue or loop-path link, -1 for none */
  tsort_suc *top;  /* successors, newest first */
} tsort_item;

typedef struct tsort_tok {
  const char *p;
  size_t len;
} tsort_tok;

static int tsort_tokcmp(const void *a, const void *b) {
  const tsort_tok *x = a, *y = b;
  size_t n = x->len < y->len ? x->len : y->len;
  int c = memcmp(x->p, y->p, n);
  return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Index of token t among the sorted unique items. */
static int tsort_find(const tsort_item *it, int n, const tsort_tok *t) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    tsort_tok m = {it[mid].name, it[mid].len};
    int c = tsort_tokcmp(t, &m);
    if (!c) return mid;
    if (c < 0)
      hi = mid - 1;
    else
      lo = mid + 1;
  }
  return -1;
}

/* One step of the loop search from item k (GNU's detect_loop): 1 when a
 * loop was printed and broken. *loop is the path's newest item or -1. */
static int tsort_loop_step(cmd_ctx *c, tsort_item *it, int k, int *loop) {
  tsort_suc **p;
  if (it[k].count <= 0) return 0;
  if (*loop < 0) {
    *loop = k;
    return 0;
  }
  for (p = &it[k].top; *p; p = &(*p)->next) {
    if ((*p)->to != *loop) continue;
    if (it[k].qlink < 0) { /* extend the path backwards through k */
      it[k].qlink = *loop;
      *loop = k;
      return 0;
    }
    while (*loop >= 0) { /* print the path back to k, drop k's relation */
      int next = it[*loop].qlink;
      buf_printf(c->err, "%s: %.*s\n", cmd_name(c), (int)it[*loop].len,
                 it[*loop].name);
      if (*loop == k) {
        it[(*p)->to].count--;
        *p = (*p)->next;
        break;
      }
      it[*loop].qlink = -1;
      *loop = next;
    }
    while (*loop >= 0) {
      int next = it[*loop].qlink;
      it[*loop].qlink = -1;
      *loop = next;
    }
    return 1;
  }
  return 0;
}

/* Prints the order (GNU's main loop); 0 or 1 when a loop was found. */
static int tsort_run(cmd_ctx *c, tsort_item *it, int n, const char *file) {
  int left = n, status = 0, i, loop = -1;
  while (left > 0) {
    int head = -1, tail = -1;
    for (i = 0; i < n; i++)
      if (!it[i].count && !it[i].done) {
        it[i].done = 1;
        if (head < 0)
          head = i;
        else
          it[tail].qlink = i;
        tail = i;
        it[i].qlink = -1;
      }
    while (head >= 0) {
      tsort_suc *s;
      buf_put(c->out, it[head].name, it[head].len);
      buf_putc(c->out, '\n');
      left--;
      for (s = it[head].top; s; s = s->next)
        if (--it[s->to].count == 0) {
          it[s->to].done = 1;
          it[s->to].qlink = -1;
          it[tail].qlink = s->to;
          tail = s->to;
        }
      i = it[head].qlink;
      it[head].qlink = -1;
      head = i;
    }
    if (left > 0) {
      cmd_err(c, "%s: input contains a loop:", file);
      status = 1;
      do {
        for (i = 0; i < n; i++)
          if (tsort_loop_step(c, it, i, &loop)) break;
      } while (loop >= 0);
    }
    if (cmd_tick(c, 1)) return MSB_ELIMIT;
  }
  return status;
}

/* Splits d into blank-separated tokens (arena). */
static int tsort_tokens(cmd_ctx *c, const uint8_t *d, size_t len,
                        tsort_tok **out, int *n) {
  size_t at = 0, cap = 64;
  tsort_tok *t = arena_alloc(c->a, sizeof *t * cap);
  *n = 0;
  if (!t) return MSB_ENOMEM;
  while (at < len) {
    size_t st;
    while (at < len && strchr(" \t\n\r\f\v", d[at]) && d[at]) at++;
    st = at;
    while (at < len && !(strchr(" \t\n\r\f\v", d[at]) && d[at])) at++;
    if (at == st) break;
    if ((size_t)*n == cap) {
      tsort_tok *nt = arena_alloc(c->a, sizeof *t * cap * 2);
      if (!nt) return MSB_ENOMEM;
      memcpy(nt, t, sizeof *t * cap);
      t = nt;
      cap *= 2;
    }
    t[*n].p = (const char *)d + st;
    t[(*n)++].len = at - st;
  }
  *out = t;
  return cmd_charge_bytes(c, len);
}

/* Entry point: see the usage above. */
int cmd_tsort(cmd_ctx *c) {
  cmd_getopt g;
  const char *file;
  const uint8_t *d;
  tsort_tok *tok, *sorted;
  tsort_item *it;
  size_t len;
  int k, i, n, nit = 0, rc;
  cmd_opt_init(&g, c, tsort_opts, tsort_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  if (g.nops > 1)
    return cmd_usage_err(&g, "extra operand %s", cmd_quote(c, g.ops[1]));
  file = g.nops ? g.ops[0] : "-";
  if ((rc = cmd_input(c, file, &d, &len))) {
    if (rc == MSB_ENOMEM) return rc;
    cmd_err(c, "%s: %s", cmd_quotef(c, file), cmd_strerror(rc));
    return 1;
  }
  if ((rc = tsort_tokens(c, d, len, &tok, &n))) return rc;
  if (n % 2) {
    cmd_err(c, "%s: input contains an odd number of tokens",
            cmd_quotef(c, file));
    return 1;
  }
  sorted = arena_alloc(c->a, sizeof *sorted * (size_t)(n + 1));
  it = arena_zalloc(c->a, sizeof *it * (size_t)(n + 1));
  if (!sorted || !it) return MSB_ENOMEM;
  if (n) memcpy(sorted, tok, sizeof *tok * (size_t)n);
  qsort(sorted, (size_t)n, sizeof *sorted, tsort_tokcmp);
  for (i = 0; i < n; i++)
    if (!nit || tsort_tokcmp(&sorted[i], &sorted[i - 1])) {
      it[nit].name = sorted[i].p;
      it[nit].len = sorted[i].len;
      it[nit++].qlink = -1;
    }
  for (i = 0; i < n; i += 2) {
    int a = tsort_find(it, nit, &tok[i]), b = tsort_find(it, nit, &tok[i + 1]);
    tsort_suc *s;
    if (a == b) continue;
    if (!(s = arena_alloc(c->a, sizeof *s))) return MSB_ENOMEM;
    s->to = b;
    s->next = it[a].top;
    it[a].top = s;
    it[b].count++;
  }
  return tsort_run(c, it, nit, cmd_quotef(c, file));
}
