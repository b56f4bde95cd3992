/* regex_exec.c - the matchers of the regex engine (see regex.h).
 *
 * Four strategies, chosen per call:
 *   - a prefilter: a literal every match contains, looked up with memchr
 *     on its rarest byte;
 *   - a lazily built DFA (cached states, bounded cache that is flushed when
 *     full, giving up after repeated flushes) answers "is there a match" for
 *     RX_NOSUB and rejects non-matching subjects before the NFA runs;
 *   - a Pike VM simulates the NFA in linear time: one pass finds the
 *     leftmost-longest overall match (POSIX) or the leftmost-first match
 *     with its groups (Perl); for POSIX a second, anchored pass from the
 *     match start takes the highest-priority path that ends exactly at the
 *     match end, which is how glibc assigns submatches;
 *   - patterns with back-references run a backtracker with an explicit
 *     stack (no recursion), exhaustive for leftmost-longest, bounded by the
 *     caller's budget; Perl lookaround sub-programs run on it too.
 * All work (NFA states visited, DFA closures, backtracking steps) is
 * charged to the caller's budget, so no pattern can hang a sandbox.
 * Assertion context (^, \b, \<) looks at the byte before the position, so
 * bytes before `start` count as context. */
#include <stdlib.h>
#include <string.h>

#include "memsandbox.h"
#include "regex_int.h"

enum { RX_MODE_LONGEST, RX_MODE_CAPS_AT, RX_MODE_FIRST };

typedef struct rx_frame {
  uint32_t pc;   /* RX_RESTORE | slot for a restore entry */
  uint32_t pad;
  long val;      /* restore value, or position for the backtracker */
} rx_frame;

#define RX_RESTORE 0x80000000u

/* A growable stack of frames. */
typedef struct rx_stk {
  rx_frame *f;
  size_t cap;
} rx_stk;

struct rx_vm {
  uint32_t *mark; /* per pc: generation of the last visit */
  uint32_t gen;
  uint32_t *pcs[2];
  long *slots[2]; /* per list entry: nslots values */
  rx_stk stk;
  long *cur;
  long *best;
  uint32_t cap; /* entries per list */
};

/* ---- Helpers ----------------------------------------------------------- */

static int rx_isw(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

static int rx_in(const rx *r, const rx_inst *in, int c) {
  switch (in->op) {
  case RXI_BYTE: return in->c == c;
  case RXI_SET: return (r->sets[in->x][(unsigned)c >> 3] >> (c & 7)) & 1;
  case RXI_ANY: return 1;
  default: return 0;
  }
}

static int rx_assert_ok(const rx *r, uint32_t kind, const uint8_t *s,
                        size_t len, size_t pos, unsigned ef) {
  int nl = (r->flags & RX_NEWLINE) != 0;
  int pw = pos > 0 && rx_isw(s[pos - 1]);
  int nw = pos < len && rx_isw(s[pos]);
  switch (kind) {
  case RXA_BOL:
    return (pos == 0 && !(ef & RX_NOTBOL)) ||
           (nl && pos > 0 && s[pos - 1] == '\n');
  case RXA_EOL:
    return (pos == len && !(ef & RX_NOTEOL)) ||
           (nl && pos < len && s[pos] == '\n');
  case RXA_BUFBEG: return pos == 0;
  case RXA_BUFEND: return pos == len;
  case RXA_WORDB: return pw != nw;
  case RXA_NWORDB: return pw == nw;
  case RXA_WBEG: return !pw && nw;
  case RXA_WEND: return pw && !nw;
  default: return pos == len || (pos + 1 == len && s[pos] == '\n');
  }
}

/* Makes the meter hold at least n units, paying steps for them: 0 or
 * MSB_ELIMIT (the meter's budget is gone; left is then 0). */
static int rx_refill(rx_meter *mt, uint64_t n) {
  uint64_t steps;
  if (mt->charge && n - mt->left <= UINT64_MAX - RX_UNITS_PER_STEP) {
    steps = (n - mt->left + RX_UNITS_PER_STEP - 1) / RX_UNITS_PER_STEP;
    if (steps <= UINT64_MAX / RX_UNITS_PER_STEP &&
        mt->charge(mt->arg, steps) == 0) {
      mt->left += steps * RX_UNITS_PER_STEP;
      return 0;
    }
  }
  mt->left = 0;
  return MSB_ELIMIT;
}

/* Charges n units of work; 0 or MSB_ELIMIT. */
static int rx_charge(rx_meter *mt, uint64_t n) {
  if (mt->left < n && rx_refill(mt, n)) return MSB_ELIMIT;
  mt->left -= n;
  return 0;
}

/* Charges one unit, the hot path; 0 or MSB_ELIMIT. */
#define RX_SPEND1(mt) \
  ((mt)->left || !rx_refill((mt), 1) ? ((mt)->left--, 0) : MSB_ELIMIT)

static int rx_vm_get(rx *r) {
  rx_vm *vm = r->vm;
  uint32_t ncons = 0, i;
  if (vm) return 0;
  for (i = 0; i < r->ninst; i++)
    if (r->prog[i].op <= RXI_MATCH) ncons++;
  vm = mem_zalloc(r->m, sizeof *vm);
  if (!vm) return MSB_ENOMEM;
  r->vm = vm;
  vm->cap = ncons + 1;
  vm->stk.cap = (size_t)r->ninst * 3 + 8;
  vm->mark = mem_zalloc(r->m, (size_t)r->ninst * sizeof *vm->mark);
  vm->pcs[0] = mem_alloc(r->m, vm->cap * sizeof(uint32_t));
  vm->pcs[1] = mem_alloc(r->m, vm->cap * sizeof(uint32_t));
  vm->slots[0] = mem_alloc(r->m, (size_t)vm->cap * r->nslots * sizeof(long));
  vm->slots[1] = mem_alloc(r->m, (size_t)vm->cap * r->nslots * sizeof(long));
  vm->stk.f = mem_alloc(r->m, vm->stk.cap * sizeof *vm->stk.f);
  vm->cur = mem_alloc(r->m, r->nslots * sizeof(long));
  vm->best = mem_alloc(r->m, r->nslots * sizeof(long));
  if (!vm->mark || !vm->pcs[0] || !vm->pcs[1] || !vm->slots[0] ||
      !vm->slots[1] || !vm->stk.f || !vm->cur || !vm->best) {
    rx_exec_finish(r);
    return MSB_ENOMEM;
  }
  return 0;
}

static void rx_vm_newgen(rx *r) {
  rx_vm *vm = r->vm;
  if (++vm->gen == 0) {
    memset(vm->mark, 0, (size_t)r->ninst * sizeof *vm->mark);
    vm->gen = 1;
  }
}

/* ---- Pike VM ------------------------------------------------------- */

typedef struct rx_run {
  rx *r;
  const uint8_t *s;
  size_t len;
  unsigned ef;
  int mode;
  uint32_t ns;      /* slots carried per thread */
  rx_meter *mt;
  int found;        /* CAPS_AT: the answer is in vm->best */
  size_t eo;        /* CAPS_AT: the required end */
} rx_run;

static int rx_push(rx *r, rx_stk *k, size_t *sp, uint32_t pc, long val) {
  if (*sp == k->cap) {
    size_t nc = k->cap * 2;
    rx_frame *ns = mem_realloc(r->m, k->f, nc * sizeof *ns);
    if (!ns) return MSB_ENOMEM;
    k->f = ns;
    k->cap = nc;
  }
  k->f[*sp].pc = pc;
  k->f[*sp].val = val;
  (*sp)++;
  return 0;
}

/* Sets slot i to v, remembering the old value on the stack. */
static int rx_set(rx *r, rx_stk *k0, size_t *sp, long *cur, uint32_t i,
                  long v) {
  if (cur[i] == v) return 0;
  if (rx_push(r, k0, sp, RX_RESTORE | i, cur[i])) return MSB_ENOMEM;
  cur[i] = v;
  return 0;
}

/* A capture save, following glibc's update_regs: an open clears the end;
 * a non-empty close also records every group as "the last good state";
 * an empty close of an optional subexpression that matched before brings
 * that state back (undoing the empty iteration and the groups inside). */
static int rx_save(rx *r, rx_stk *k0, const rx_inst *in, long *cur, size_t pos,
                   size_t *sp) {
  uint32_t x = in->x, k, pb = r->prevbase, ng = 2 * (r->nsub + 1);
  if (x < 2) return rx_set(r, k0, sp, cur, x, (long)pos);
  if (!(x & 1)) {
    if (rx_set(r, k0, sp, cur, x, (long)pos) ||
        rx_set(r, k0, sp, cur, x + 1, -1))
      return MSB_ENOMEM;
    return 0;
  }
  if (cur[x - 1] < (long)pos) {
    if (rx_set(r, k0, sp, cur, x, (long)pos)) return MSB_ENOMEM;
    if (!r->has_opt) return 0; /* nobody reads the last good state */
    for (k = 2; k < ng; k++)
      if (rx_set(r, k0, sp, cur, pb + k, cur[k])) return MSB_ENOMEM;
    return 0;
  }
  if (in->c && cur[pb + x - 1] != -1) {
    for (k = 2; k < ng; k++)
      if (rx_set(r, k0, sp, cur, k, cur[pb + k])) return MSB_ENOMEM;
    return 0;
  }
  return rx_set(r, k0, sp, cur, x, (long)pos);
}

static int rx_look(rx_run *u, const rx_inst *in, size_t pos, const long *outer);

/* Adds the closure of pc at pos, with the slots in vm->cur, to list li
 * (n entries so far). Returns the new count, or a negative error. */
static long rx_addthread(rx_run *u, int li, uint32_t n, uint32_t pc0,
                         size_t pos) {
  rx *r = u->r;
  rx_vm *vm = r->vm;
  long *cur = vm->cur;
  size_t sp = 0;
  int full = u->ns > 1, rc;
  vm->stk.f[sp].pc = pc0; /* the stack always has room for one */
  sp++;
  while (sp) {
    rx_frame *f = &vm->stk.f[--sp];
    uint32_t pc = f->pc;
    if (pc & RX_RESTORE) {
      cur[pc & ~RX_RESTORE] = f->val;
      continue;
    }
    for (;;) {
      const rx_inst *in;
      if (vm->mark[pc] == vm->gen) break;
      vm->mark[pc] = vm->gen;
      if (RX_SPEND1(u->mt)) return MSB_ELIMIT;
      in = &r->prog[pc];
      switch (in->op) {
      case RXI_MATCH:
        if (u->mode == RX_MODE_CAPS_AT) {
          if (pos == u->eo && !u->found) {
            u->found = 1;
            memcpy(vm->best, cur, u->ns * sizeof(long));
          }
          goto next;
        }
        /* fall through */
      case RXI_BYTE:
      case RXI_SET:
      case RXI_ANY:
        vm->pcs[li][n] = pc;
        memcpy(vm->slots[li] + (size_t)n * u->ns, cur, u->ns * sizeof(long));
        n++;
        goto next;
      case RXI_JMP: pc = in->x; continue;
      case RXI_SPLIT:
        if (rx_push(r, &vm->stk, &sp, in->y, 0)) return MSB_ENOMEM;
        pc = in->x;
        continue;
      case RXI_SAVE:
        if (full && rx_save(r, &vm->stk, in, cur, pos, &sp)) return MSB_ENOMEM;
        pc++;
        continue;
      case RXI_ASSERT:
        if (!rx_assert_ok(r, in->x, u->s, u->len, pos, u->ef)) goto next;
        pc++;
        continue;
      case RXI_LSET:
        if (full && rx_set(r, &vm->stk, &sp, cur, in->x, (long)pos))
          return MSB_ENOMEM;
        pc++;
        continue;
      case RXI_LCHK: /* an empty iteration leaves the loop */
        pc = full && cur[in->z] == (long)pos ? in->x : in->y;
        continue;
      case RXI_LOOK:
        if ((rc = rx_look(u, in, pos, cur)) < 0) return rc;
        if (!rc) goto next;
        pc++;
        continue;
      default: goto next; /* RXI_BREF never reaches the Pike VM */
      }
    }
  next:;
  }
  return (long)n;
}

/* Whether the literal occurs in s[0..n): memchr for its rarest byte
 * (r->litkey, chosen at compile time), then compare. */
static int rx_has_lit(const rx *r, const uint8_t *s, size_t n) {
  size_t ll = r->litlen, k = r->litkey;
  const uint8_t *p = s + k, *end = s + n - (ll - 1 - k);
  while (p < end) {
    p = memchr(p, r->lit[k], (size_t)(end - p));
    if (!p) return 0;
    if (!memcmp(p - k, r->lit, ll)) return 1;
    p++;
  }
  return 0;
}

/* Next position >= pos whose byte can start a match (len when none). */
static size_t rx_skip(const rx *r, const uint8_t *s, size_t len, size_t pos) {
  while (pos < len && !((r->first[s[pos] >> 3] >> (s[pos] & 7)) & 1)) pos++;
  return pos;
}

/* Runs the Pike VM from start. LONGEST: m->so/eo of the leftmost-longest
 * match. FIRST: leftmost-first, groups in vm->best. CAPS_AT: anchored at
 * start, groups of the best path ending at u->eo in vm->best. Returns 1, 0
 * or an error. */
static int rx_pike(rx_run *u, size_t start, rx_match *m) {
  rx *r = u->r;
  rx_vm *vm = r->vm;
  uint32_t n = 0, nn, i, k;
  int li = 0, matched = 0;
  size_t pos = start;
  long bso = -1, beo = -1, rc;
  rx_vm_newgen(r);
  for (;;) {
    /* A new thread at the lowest priority, until something matched. */
    if (!matched && (u->mode != RX_MODE_CAPS_AT || pos == start)) {
      if (n == 0 && r->first_ok && u->mode != RX_MODE_CAPS_AT) {
        size_t np = rx_skip(r, u->s, u->len, pos);
        if (np >= u->len) break;
        if (np != pos) {
          pos = np;
          rx_vm_newgen(r);
        }
      }
      for (k = 0; k < u->ns; k++) vm->cur[k] = -1;
      vm->cur[0] = (long)pos;
      rc = rx_addthread(u, li, n, 0, pos);
      if (rc < 0) return (int)rc;
      n = (uint32_t)rc;
    }
    if (n == 0) {
      /* Nothing alive: the next start position, if any. */
      if (matched || u->mode == RX_MODE_CAPS_AT || pos >= u->len) break;
      pos++;
      rx_vm_newgen(r);
      continue;
    }
    if (u->mode == RX_MODE_CAPS_AT && pos >= u->eo) break;
    rx_vm_newgen(r);
    nn = 0;
    for (i = 0; i < n; i++) {
      uint32_t pc = vm->pcs[li][i];
      long *sl = vm->slots[li] + (size_t)i * u->ns;
      const rx_inst *in = &r->prog[pc];
      if (in->op == RXI_MATCH) {
        if (u->mode == RX_MODE_LONGEST) {
          if (bso < 0 || sl[0] < bso || (sl[0] == bso && (long)pos > beo)) {
            bso = sl[0];
            beo = (long)pos;
          }
          matched = 1;
          continue;
        }
        /* FIRST: this thread wins over every lower-priority one. */
        memcpy(vm->best, sl, u->ns * sizeof(long));
        vm->best[1] = (long)pos;
        matched = 1;
        break;
      }
      if (pos >= u->len) continue;
      if (matched && u->mode == RX_MODE_LONGEST && sl[0] > bso) continue;
      if (!rx_in(r, in, u->s[pos])) continue;
      memcpy(vm->cur, sl, u->ns * sizeof(long));
      rc = rx_addthread(u, !li, nn, pc + 1, pos + 1);
      if (rc < 0) return (int)rc;
      nn = (uint32_t)rc;
    }
    if (pos >= u->len) break;
    li = !li;
    n = nn;
    pos++;
  }
  if (u->mode == RX_MODE_CAPS_AT) return u->found;
  if (!matched) return 0;
  if (u->mode == RX_MODE_LONGEST) {
    m->so = bso;
    m->eo = beo;
  } else {
    m->so = vm->best[0];
    m->eo = vm->best[1];
  }
  return 1;
}

/* ---- Backtracker (patterns with back-references) ------------------------ */

static int rx_fold(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* Explores every path from pc0 at pos st, with the slots in cur. longest:
 * keep the longest end (the first path wins ties); else stop at the first
 * match. need_end >= 0: only a match ending there counts. The groups of
 * the result land in best (may be NULL). Returns 1, 0 or an error. */
static int rx_bt_run(rx_run *u, rx_stk *stk, long *cur, long *best,
                     uint32_t pc0, size_t st, long need_end, int longest) {
  rx *r = u->r;
  size_t sp = 0, pos;
  uint32_t pc;
  long best_eo = -1;
  int rc;
  if ((rc = rx_push(r, stk, &sp, pc0, (long)st))) return rc;
  while (sp) {
    rx_frame f = stk->f[--sp];
    if (f.pc & RX_RESTORE) {
      cur[f.pc & ~RX_RESTORE] = f.val;
      continue;
    }
    pc = f.pc;
    pos = (size_t)f.val;
    for (;;) {
      const rx_inst *in = &r->prog[pc];
      if (RX_SPEND1(u->mt)) return MSB_ELIMIT;
      switch (in->op) {
      case RXI_BYTE:
      case RXI_SET:
      case RXI_ANY:
        if (pos >= u->len || !rx_in(r, in, u->s[pos])) goto fail;
        pos++;
        pc++;
        continue;
      case RXI_MATCH:
        if (need_end >= 0 && (long)pos != need_end) goto fail;
        if ((long)pos > best_eo) {
          best_eo = (long)pos;
          if (best) {
            memcpy(best, cur, u->ns * sizeof(long));
            best[1] = (long)pos;
          }
        }
        if (!longest || pos == u->len) return 1;
        goto fail;
      case RXI_JMP: pc = in->x; continue;
      case RXI_SPLIT:
        if ((rc = rx_push(r, stk, &sp, in->y, (long)pos))) return rc;
        pc = in->x;
        continue;
      case RXI_SAVE:
        if ((rc = rx_save(r, stk, in, cur, pos, &sp))) return rc;
        pc++;
        continue;
      case RXI_LSET:
        if ((rc = rx_set(r, stk, &sp, cur, in->x, (long)pos))) return rc;
        pc++;
        continue;
      case RXI_LCHK: /* an empty iteration leaves the loop */
        pc = cur[in->z] == (long)pos ? in->x : in->y;
        continue;
      case RXI_LOOK:
        if ((rc = rx_look(u, in, pos, cur)) < 0) return rc;
        if (!rc) goto fail;
        pc++;
        continue;
      case RXI_ASSERT:
        if (!rx_assert_ok(r, in->x, u->s, u->len, pos, u->ef)) goto fail;
        pc++;
        continue;
      default: { /* RXI_BREF */
        long so = cur[2 * in->x], eo = cur[2 * in->x + 1];
        size_t gl, i;
        if (so < 0 || eo < so) goto fail;
        gl = (size_t)(eo - so);
        if (gl > u->len - pos) goto fail;
        if (rx_charge(u->mt, gl)) return MSB_ELIMIT;
        if (r->flags & RX_ICASE) {
          for (i = 0; i < gl; i++)
            if (rx_fold(u->s[so + i]) != rx_fold(u->s[pos + i])) goto fail;
        } else if (memcmp(u->s + so, u->s + pos, gl)) {
          goto fail;
        }
        pos += gl;
        pc++;
        continue;
      }
      }
    fail:
      break;
    }
  }
  return best_eo >= 0;
}

/* Leftmost(-longest) match from st with the backtracker; groups in
 * vm->best. */
static int rx_bt_at(rx_run *u, size_t st, int longest) {
  rx_vm *vm = u->r->vm;
  uint32_t k;
  for (k = 0; k < u->ns; k++) vm->cur[k] = -1;
  return rx_bt_run(u, &vm->stk, vm->cur, vm->best, 0, st, -1, longest);
}

/* A lookaround assertion at pos (Perl): runs its sub-program with the
 * backtracker on a private stack, starting from the thread's groups.
 * Returns 1 when the assertion holds, 0, or an error. */
static int rx_look(rx_run *u, const rx_inst *in, size_t pos,
                   const long *outer) {
  rx *r = u->r;
  rx_stk stk;
  long *cur;
  int rc, behind = in->y >= 2, neg = in->y & 1;
  uint32_t k;
  if (behind && pos < in->z) return neg;
  stk.cap = 16;
  stk.f = mem_alloc(r->m, stk.cap * sizeof *stk.f);
  cur = mem_alloc(r->m, r->nslots * sizeof *cur);
  if (!stk.f || !cur) {
    mem_free(r->m, stk.f);
    mem_free(r->m, cur);
    return MSB_ENOMEM;
  }
  for (k = 0; k < r->nslots; k++) cur[k] = u->ns == r->nslots ? outer[k] : -1;
  rc = rx_bt_run(u, &stk, cur, NULL, in->x, behind ? pos - in->z : pos,
                 behind ? (long)pos : -1, 0);
  mem_free(r->m, stk.f);
  mem_free(r->m, cur);
  if (rc < 0) return rc;
  return rc ^ neg;
}

static int rx_backtrack(rx_run *u, size_t start, rx_match *m, int longest) {
  size_t st;
  int rc;
  for (st = start; st <= u->len; st++) {
    if (u->r->first_ok) {
      st = rx_skip(u->r, u->s, u->len, st);
      if (st >= u->len) break;
    }
    rc = rx_bt_at(u, st, longest && u->r->syn != RX_PERL);
    if (rc) {
      if (rc == 1) {
        m->so = u->r->vm->best[0]; /* st, or where \K was */
        m->eo = u->r->vm->best[1];
      }
      return rc;
    }
  }
  return 0;
}

/* ---- Lazy DFA --------------------------------------------------------- */

/* Context flags of the byte before a position. */
#define RX_F_BEG 1u  /* position 0 */
#define RX_F_BOL 2u  /* ^ matches */
#define RX_F_WORD 4u /* the previous byte is a word byte */

#define RX_DFA_MAXBYTES (2u << 20)
#define RX_DFA_MAXFLUSH 8

typedef struct rx_dstate {
  uint32_t kstart, klen; /* kernel pcs in kpool */
  uint32_t flags;
  uint32_t hnext;        /* 1 + next state in the bucket, 0 = end */
} rx_dstate;

struct rx_dfa {
  rx_dstate *st;
  uint32_t nst, capst, maxst;
  int32_t *trans;  /* nst * nsym: -1 unknown, else target << 1 | matched */
  uint32_t nsym;   /* nclass + 2: END, END with RX_NOTEOL */
  uint32_t *kpool;
  size_t kn, kcap;
  uint32_t *htab;  /* 1 + first state of each bucket */
  uint32_t hcap;
  uint32_t *mark, gen;
  uint32_t *stack;
  uint32_t *cons;  /* consuming pcs of a closure */
  uint32_t *kern;  /* kernel being built */
  uint8_t rep[256]; /* a byte of each class */
  int32_t start[8]; /* start state per flags, -1 unknown */
  int flushes;
  int broken;      /* the DFA gave up for this rx */
};

static void rx_dfa_flush(rx_dfa *d) {
  uint32_t i;
  d->nst = 0;
  d->kn = 0;
  memset(d->htab, 0, d->hcap * sizeof *d->htab);
  for (i = 0; i < 8; i++) d->start[i] = -1;
  d->flushes++;
}

static int rx_dfa_get(rx *r) {
  rx_dfa *d;
  uint32_t i, per;
  if (r->dfa) return r->dfa->broken ? -1 : 0;
  d = mem_zalloc(r->m, sizeof *d);
  if (!d) return -1;
  r->dfa = d;
  d->nsym = r->nclass + 2;
  per = d->nsym * 4 + (uint32_t)sizeof(rx_dstate) + 16;
  d->maxst = RX_DFA_MAXBYTES / per;
  if (d->maxst < 16) d->maxst = 16;
  d->hcap = 1024;
  d->capst = 32;
  d->st = mem_alloc(r->m, (size_t)d->capst * sizeof *d->st);
  d->trans = mem_alloc(r->m, (size_t)d->capst * d->nsym * sizeof(int32_t));
  d->htab = mem_zalloc(r->m, d->hcap * sizeof *d->htab);
  d->mark = mem_zalloc(r->m, (size_t)r->ninst * sizeof *d->mark);
  d->stack = mem_alloc(r->m, ((size_t)r->ninst * 2 + 2) * sizeof(uint32_t));
  d->cons = mem_alloc(r->m, ((size_t)r->ninst + 1) * sizeof(uint32_t));
  d->kern = mem_alloc(r->m, ((size_t)r->ninst + 2) * sizeof(uint32_t));
  d->kcap = 256;
  d->kpool = mem_alloc(r->m, d->kcap * sizeof(uint32_t));
  if (!d->st || !d->trans || !d->htab || !d->mark || !d->stack || !d->cons ||
      !d->kern || !d->kpool) {
    d->broken = 1;
    return -1;
  }
  for (i = 256; i-- > 0;) d->rep[r->bclass[i]] = (uint8_t)i;
  for (i = 0; i < 8; i++) d->start[i] = -1;
  return 0;
}

static uint32_t rx_dfa_hash(const uint32_t *k, uint32_t n, uint32_t flags) {
  uint32_t h = 2166136261u ^ flags, i;
  for (i = 0; i < n; i++) h = (h ^ k[i]) * 16777619u;
  return h;
}

static int rx_u32cmp(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Finds or adds the state (kernel d->kern[0..n), flags). Returns its index,
 * -2 when the cache had to be flushed (the caller restarts from a fresh
 * state), or -1 when the DFA gives up. */
static int32_t rx_dfa_state(rx *r, uint32_t n, uint32_t flags) {
  rx_dfa *d = r->dfa;
  uint32_t h, b, i;
  rx_dstate *ds;
  qsort(d->kern, n, sizeof *d->kern, rx_u32cmp);
  h = rx_dfa_hash(d->kern, n, flags);
  b = h & (d->hcap - 1);
  for (i = d->htab[b]; i; i = d->st[i - 1].hnext) {
    ds = &d->st[i - 1];
    if (ds->flags == flags && ds->klen == n &&
        !memcmp(d->kpool + ds->kstart, d->kern, n * sizeof(uint32_t)))
      return (int32_t)(i - 1);
  }
  if (d->nst == d->maxst || d->kn + n > ((size_t)1 << 18)) {
    if (d->flushes >= RX_DFA_MAXFLUSH) {
      d->broken = 1;
      return -1;
    }
    rx_dfa_flush(d);
    return -2;
  }
  if (d->nst == d->capst) {
    uint32_t nc = d->capst * 2 > d->maxst ? d->maxst : d->capst * 2;
    rx_dstate *ns = mem_realloc(r->m, d->st, (size_t)nc * sizeof *ns);
    int32_t *nt;
    if (ns) d->st = ns;
    nt =
        ns ? mem_realloc(r->m, d->trans, (size_t)nc * d->nsym * sizeof(int32_t))
           : NULL;
    if (!nt) {
      d->broken = 1;
      return -1;
    }
    d->trans = nt;
    d->capst = nc;
  }
  if (d->kn + n > d->kcap) {
    size_t nc = d->kcap * 2;
    uint32_t *np;
    while (nc < d->kn + n) nc *= 2;
    np = mem_realloc(r->m, d->kpool, nc * sizeof *np);
    if (!np) {
      d->broken = 1;
      return -1;
    }
    d->kpool = np;
    d->kcap = nc;
  }
  ds = &d->st[d->nst];
  ds->kstart = (uint32_t)d->kn;
  ds->klen = n;
  ds->flags = flags;
  memcpy(d->kpool + d->kn, d->kern, n * sizeof(uint32_t));
  d->kn += n;
  ds->hnext = d->htab[b];
  d->htab[b] = d->nst + 1;
  memset(d->trans + (size_t)d->nst * d->nsym, 0xff, d->nsym * sizeof(int32_t));
  return (int32_t)d->nst++;
}

/* Computes the transition of state si on symbol sym, charging the closure
 * work to mt. Returns the encoded transition, -1 when the DFA gives up,
 * -3 when the budget ran out. */
static int32_t rx_dfa_step(rx *r, uint32_t si, uint32_t sym, rx_meter *mt) {
  rx_dfa *d = r->dfa;
  rx_dstate *ds = &d->st[si];
  uint32_t flags = ds->flags, sp = 0, nc = 0, nk = 0, i, pc;
  uint32_t ksz = ds->klen, kst = ds->kstart;
  int end = sym >= r->nclass, matched = 0, c = end ? -1 : d->rep[sym];
  int nl = (r->flags & RX_NEWLINE) != 0;
  int pw = (flags & RX_F_WORD) != 0, nw = !end && rx_isw(c);
  int32_t t;
  if (++d->gen == 0) {
    memset(d->mark, 0, (size_t)r->ninst * sizeof *d->mark);
    d->gen = 1;
  }
  for (i = ksz; i-- > 0;) d->stack[sp++] = d->kpool[kst + i];
  if (rx_charge(mt, ksz + 1)) return -3;
  while (sp) {
    pc = d->stack[--sp];
    for (;;) {
      const rx_inst *in = &r->prog[pc];
      int ok = 1;
      if (d->mark[pc] == d->gen) break;
      d->mark[pc] = d->gen;
      if (RX_SPEND1(mt)) return -3;
      if (in->op < RXI_MATCH) {
        d->cons[nc++] = pc;
        break;
      }
      if (in->op == RXI_MATCH) {
        matched = 1;
        break;
      }
      if (in->op == RXI_JMP || in->op == RXI_LCHK) {
        pc = in->op == RXI_JMP ? in->x : in->y;
        continue;
      }
      if (in->op == RXI_SPLIT) {
        d->stack[sp++] = in->y;
        pc = in->x;
        continue;
      }
      if (in->op == RXI_ASSERT) {
        switch (in->x) {
        case RXA_BOL: ok = (flags & RX_F_BOL) != 0; break;
        case RXA_EOL: ok = (sym == r->nclass) || (nl && c == '\n'); break;
        case RXA_BUFBEG: ok = (flags & RX_F_BEG) != 0; break;
        case RXA_BUFEND: ok = end; break;
        case RXA_WORDB: ok = pw != nw; break;
        case RXA_NWORDB: ok = pw == nw; break;
        case RXA_WBEG: ok = !pw && nw; break;
        case RXA_WEND: ok = pw && !nw; break;
        default: ok = 0; break;
        }
        if (!ok) break;
      }
      pc++;
    }
  }
  if (end) { /* END: just whether a match ends here */
    d->trans[(size_t)si * d->nsym + sym] = matched;
    return matched;
  }
  for (i = 0; i < nc; i++)
    if (rx_in(r, &r->prog[d->cons[i]], c)) d->kern[nk++] = d->cons[i] + 1;
  d->kern[nk++] = 0; /* a new search starts at the next position */
  {
    uint32_t nf =
        (rx_isw(c) ? RX_F_WORD : 0) | (nl && c == '\n' ? RX_F_BOL : 0);
    int32_t ns = rx_dfa_state(r, nk, nf);
    if (ns == -2) {
      /* The cache was flushed (si is gone): add the target afresh and
       * return the transition without caching it. */
      ns = rx_dfa_state(r, nk, nf);
      return ns < 0 ? -1 : ns * 2 + matched;
    }
    if (ns < 0) return ns;
    t = ns * 2 + matched;
  }
  d->trans[(size_t)si * d->nsym + sym] = t;
  return t;
}

/* rx_dfa_search's scan; *end gets how far it read. */
static int rx_dfa_scan(rx *r, const uint8_t *s, size_t len, size_t start,
                       unsigned ef, rx_meter *mt, size_t *end) {
  rx_dfa *d = r->dfa;
  uint32_t flags;
  int32_t st = -1, t;
  size_t pos = start;
  for (;; *end = pos) {
    if (st < 0) {
      /* (Re)start: the state holding only a search about to begin here. */
      if (r->first_ok && pos < len) {
        pos = rx_skip(r, s, len, pos);
        if ((*end = pos) >= len) return 0;
      }
      flags = 0;
      if (pos == 0) flags |= RX_F_BEG;
      if ((pos == 0 && !(ef & RX_NOTBOL)) ||
          (pos > 0 && (r->flags & RX_NEWLINE) && s[pos - 1] == '\n'))
        flags |= RX_F_BOL;
      if (pos > 0 && rx_isw(s[pos - 1])) flags |= RX_F_WORD;
      if (d->start[flags] < 0) {
        d->kern[0] = 0;
        t = rx_dfa_state(r, 1, flags);
        if (t == -2) t = rx_dfa_state(r, 1, flags);
        if (t < 0) return -1;
        d->start[flags] = t;
      }
      st = d->start[flags];
    }
    if (pos >= len) break;
    t = d->trans[(size_t)st * d->nsym + r->bclass[s[pos]]];
    if (t < 0) {
      t = rx_dfa_step(r, (uint32_t)st, r->bclass[s[pos]], mt);
      if (t == -3) return MSB_ELIMIT;
      if (t < 0) return -1;
    }
    if (t & 1) return 1;
    st = t >> 1;
    pos++;
    /* Back in the bare start state: skip bytes that cannot start one. */
    if (r->first_ok && d->st[st].klen == 1 && d->kpool[d->st[st].kstart] == 0)
      st = -1;
  }
  {
    uint32_t sym = r->nclass + ((ef & RX_NOTEOL) ? 1u : 0u);
    t = d->trans[(size_t)st * d->nsym + sym];
    if (t < 0) t = rx_dfa_step(r, (uint32_t)st, sym, mt);
    if (t == -3) return MSB_ELIMIT;
  }
  return t == 1;
}

/* Whether s[start..len) contains a match: 1, 0, -1 when the DFA cannot
 * answer (the caller uses the NFA), or MSB_ELIMIT. The bytes scanned are
 * charged when the scan ends (a scan is bounded by the subject), so a
 * search that stops at its first match pays for what it read only. */
static int rx_dfa_search(rx *r, const uint8_t *s, size_t len, size_t start,
                         unsigned ef, rx_meter *mt) {
  size_t end = start;
  int rc;
  if (r->has_bref || r->has_pend || r->has_look || rx_dfa_get(r)) return -1;
  r->dfa->flushes = 0;
  rc = rx_dfa_scan(r, s, len, start, ef, mt, &end);
  if (rx_charge(mt, (end - start) / RX_BYTES_PER_UNIT + 1)) return MSB_ELIMIT;
  return rc;
}

/* ---- Entry points ------------------------------------------------------ */

int rx_exec(rx *r, const uint8_t *s, size_t len, size_t start, unsigned eflags,
            rx_match *m, size_t nm, uint64_t *budget) {
  rx_meter mt = RX_METER(NULL, NULL);
  int rc;
  mt.left = budget ? *budget : UINT64_MAX;
  rc = rx_search(r, s, len, start, eflags, m, nm, &mt);
  if (budget) *budget = mt.left;
  return rc;
}

int rx_search(rx *r, const uint8_t *s, size_t len, size_t start,
              unsigned eflags, rx_match *m, size_t nm, rx_meter *meter) {
  rx_meter unlimited = RX_METER(NULL, NULL), *mt = meter;
  rx_match mm;
  rx_run u;
  size_t i;
  int rc, want_pos, want_groups;
  if (!r || (!s && len)) return MSB_EINVAL;
  if (!mt) {
    unlimited.left = UINT64_MAX;
    mt = &unlimited;
  }
  for (i = 0; i < nm; i++) m[i].so = m[i].eo = -1;
  if (start > len) return 0;
  want_pos = nm > 0;
  want_groups = want_pos && nm > 1 && r->nsub > 0 && !(r->flags & RX_NOSUB);
  if (r->litlen &&
      (len - start < r->litlen || !rx_has_lit(r, s + start, len - start)))
    return 0;
  rc = rx_dfa_search(r, s, len, start, eflags, mt);
  if (rc == 0 || rc < -1) return rc;
  if (rc == 1 && !want_pos) return 1;
  if ((rc = rx_vm_get(r))) return rc;
  memset(&u, 0, sizeof u);
  u.r = r;
  u.s = s;
  u.len = len;
  u.ef = eflags;
  u.mt = mt;
  u.ns = r->nslots;
  if (r->has_bref) {
    rc = rx_backtrack(&u, start, &mm, want_pos);
  } else if (r->syn == RX_PERL) {
    u.mode = RX_MODE_FIRST;
    rc = rx_pike(&u, start, &mm);
  } else {
    u.mode = RX_MODE_LONGEST;
    u.ns = 1;
    rc = rx_pike(&u, start, &mm);
    if (rc == 1 && want_groups) {
      u.mode = RX_MODE_CAPS_AT;
      u.ns = r->nslots;
      u.eo = (size_t)mm.eo;
      rc = rx_pike(&u, (size_t)mm.so, &mm);
      if (rc == 0) { /* cannot happen; keep the overall match */
        rc = 1;
        want_groups = 0;
      }
      if (rc < 0) return rc;
    }
  }
  if (rc != 1) return rc;
  if (!want_pos) return 1;
  m[0] = mm;
  if (want_groups) {
    for (i = 1; i < nm && i <= r->nsub; i++) {
      long so = r->vm->best[2 * i], eo = r->vm->best[2 * i + 1];
      if (so >= 0 && eo >= so) {
        m[i].so = so;
        m[i].eo = eo;
      }
    }
  }
  return 1;
}

void rx_exec_finish(rx *r) {
  if (r->vm) {
    rx_vm *vm = r->vm;
    mem_free(r->m, vm->mark);
    mem_free(r->m, vm->pcs[0]);
    mem_free(r->m, vm->pcs[1]);
    mem_free(r->m, vm->slots[0]);
    mem_free(r->m, vm->slots[1]);
    mem_free(r->m, vm->stk.f);
    mem_free(r->m, vm->cur);
    mem_free(r->m, vm->best);
    mem_free(r->m, vm);
    r->vm = NULL;
  }
  if (r->dfa) {
    rx_dfa *d = r->dfa;
    mem_free(r->m, d->st);
    mem_free(r->m, d->trans);
    mem_free(r->m, d->kpool);
    mem_free(r->m, d->htab);
    mem_free(r->m, d->mark);
    mem_free(r->m, d->stack);
    mem_free(r->m, d->cons);
    mem_free(r->m, d->kern);
    mem_free(r->m, d);
    r->dfa = NULL;
  }
}
