/* secret.c - secret values bound for one exec: validation, redaction of
 * streams and strings, and the search the filesystem's write guard uses.
 *
 * Every value gets a KMP failure table, so each search is linear in the
 * text whatever the values look like, overlapping occurrences included; a
 * table of first bytes lets the scanners skip, a whole run at a time,
 * bytes that cannot start a value while no partial match is pending.
 *
 * A stream examines each raw byte once. Its KMP states say how far back a
 * match still in progress could begin (the longest matched prefix), so
 * bytes before that point are decided: emitted as they are, or, inside a
 * union of overlapping matches (a "run"), replaced by one mark when the run
 * can grow no more. Only undecided bytes are kept, at most the longest
 * value minus one, in a ring indexed by position. */
#include "secret.h"

#include <string.h>

#include "memsandbox.h"

/* Names the shell sets or reads for its own working: binding a secret to
 * one would change how the shell behaves, or be overwritten by it. */
static const char *const secret_reserved[] = {
    "BASHOPTS",   "BASHPID", "BASH_ENV",   "CDPATH", "EUID",    "FUNCNAME",
    "GLOBIGNORE", "HOME",    "IFS",        "LINENO", "OLDPWD",  "OPTARG",
    "OPTIND",     "PATH",    "PIPESTATUS", "PPID",   "PS1",     "PS2",
    "PS3",        "PS4",     "PWD",        "RANDOM", "SECONDS", "SHELLOPTS",
    "SHLVL",      "SRANDOM", "UID",        "_",
};

static int secret_is_reserved(const char *name) {
  size_t i;
  if (!strncmp(name, "BASH", 4)) return 1; /* BASH, BASH_VERSION, ... */
  for (i = 0; i < sizeof secret_reserved / sizeof secret_reserved[0]; i++)
    if (!strcmp(name, secret_reserved[i])) return 1;
  return 0;
}

static int secret_valid_name(const char *s, size_t n) {
  size_t i;
  if (!n || (s[0] >= '0' && s[0] <= '9')) return 0;
  for (i = 0; i < n; i++) {
    uint8_t c = (uint8_t)s[i];
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9')))
      return 0;
  }
  return 1;
}

static int secret_env_has(const char *const *env, size_t nenv,
                          const char *name) {
  size_t i, nl = strlen(name);
  for (i = 0; i < nenv; i++)
    if (env[i] && !strncmp(env[i], name, nl) && env[i][nl] == '=') return 1;
  return 0;
}

static uint32_t *secret_fail_table(mem *m, const uint8_t *v, size_t len) {
  uint32_t *f = mem_alloc(m, len * sizeof *f);
  size_t i;
  uint32_t k = 0;
  if (!f) return NULL;
  f[0] = 0;
  for (i = 1; i < len; i++) {
    while (k && v[i] != v[k]) k = f[k - 1];
    if (v[i] == v[k]) k++;
    f[i] = k;
  }
  return f;
}

/* Validates the bindings and builds the set. */
int secret_set_init(secret_set *s, mem *m, const char *const *bind, size_t n,
                    const char *const *env, size_t nenv, buf *why) {
  size_t i, j;
  memset(s, 0, sizeof *s);
  s->m = m;
  if (n > SECRET_MAX) {
    buf_printf(why, "%lu secrets bound (at most %d)", (unsigned long)n,
               SECRET_MAX);
    return MSB_EINVAL;
  }
  for (i = 0; i < n; i++) {
    const char *b = bind ? bind[i] : NULL, *eq;
    size_t nl, vl;
    char *copy;
    if (!b) {
      buf_printf(why, "secret %lu is NULL", (unsigned long)i);
      goto bad;
    }
    eq = strchr(b, '=');
    if (!eq) {
      /* the whole string may be a value: never quote it */
      buf_printf(why, "secret %lu is not in NAME=value form", (unsigned long)i);
      goto bad;
    }
    nl = (size_t)(eq - b);
    vl = strlen(eq + 1);
    if (!secret_valid_name(b, nl)) {
      buf_printf(why, "secret %lu: name '%.*s' is not a valid identifier",
                 (unsigned long)i, (int)(nl > 64 ? 64 : nl), b);
      goto bad;
    }
    copy = mem_strdup(m, b);
    if (!copy) {
      secret_set_finish(s);
      return MSB_ENOMEM;
    }
    copy[nl] = '\0';
    s->name[i] = copy;
    s->val[i] = (const uint8_t *)copy + nl + 1;
    s->len[i] = vl;
    s->n = i + 1;
    if (secret_is_reserved(copy)) {
      buf_printf(why, "secret name %s is reserved by the shell", copy);
      goto bad;
    }
    for (j = 0; j < i; j++)
      if (!strcmp(s->name[j], copy)) {
        buf_printf(why, "secret name %s is bound twice", copy);
        goto bad;
      }
    if (secret_env_has(env, nenv, copy)) {
      buf_printf(why, "%s is bound both as a secret and in env", copy);
      goto bad;
    }
    if (!vl) {
      buf_printf(why, "secret %s has an empty value", copy);
      goto bad;
    }
    if (vl > SECRET_MAX_VALUE) {
      buf_printf(why, "secret %s is %lu bytes long (at most %d)", copy,
                 (unsigned long)vl, SECRET_MAX_VALUE);
      goto bad;
    }
    s->fail[i] = secret_fail_table(m, s->val[i], vl);
    if (!s->fail[i]) {
      secret_set_finish(s);
      return MSB_ENOMEM;
    }
    if (vl > s->maxlen) s->maxlen = vl;
    s->first[s->val[i][0]] = 1;
  }
  return why->err ? why->err : 0;
bad:
  secret_set_finish(s);
  return why->err ? why->err : MSB_EINVAL;
}

/* Frees the set. */
void secret_set_finish(secret_set *s) {
  size_t i;
  if (!s || !s->m) return;
  for (i = 0; i < s->n; i++) {
    mem_free(s->m, s->name[i]);
    mem_free(s->m, s->fail[i]);
  }
  memset(s, 0, sizeof *s);
}

/* Advances every value's KMP state over c. Returns the length of the
 * longest match ending at c (0: none); *maxq receives the longest prefix
 * still matched, i.e. how far back a later match could begin. */
static size_t secret_step(const secret_set *s, uint32_t *q, uint8_t c,
                          uint32_t *maxq) {
  size_t i, best = 0;
  uint32_t mq = 0;
  for (i = 0; i < s->n; i++) {
    const uint8_t *v = s->val[i];
    uint32_t j = q[i];
    while (j && v[j] != c) j = s->fail[i][j - 1];
    if (v[j] == c) j++;
    if (j == s->len[i]) {
      if (j > best) best = j;
      j = s->fail[i][j - 1]; /* overlapping occurrences too */
    }
    q[i] = j;
    if (j > mq) mq = j;
  }
  *maxq = mq;
  return best;
}

/* Whether a value occurs in a followed by b. */
int secret_find(const secret_set *s, const void *a, size_t alen, const void *b,
                size_t blen) {
  uint32_t q[SECRET_MAX], mq = 0;
  int part;
  if (!s || !s->n) return 0;
  memset(q, 0, sizeof q);
  for (part = 0; part < 2; part++) {
    const uint8_t *p = part ? b : a;
    size_t n = part ? blen : alen, i = 0;
    if (!p) continue;
    while (i < n) {
      if (!mq) {
        while (i < n && !s->first[p[i]]) i++;
        if (i == n) break;
      }
      if (secret_step(s, q, p[i++], &mq)) return 1;
    }
  }
  return 0;
}

/* ---- windows --------------------------------------------------------- */

/* Starts a window. */
int secret_window_init(secret_window *w, const secret_set *s) {
  memset(w, 0, sizeof *w);
  if (!s || s->maxlen < 2) return 0;
  w->m = s->m;
  w->cap = s->maxlen - 1;
  w->p = mem_alloc(w->m, w->cap);
  return w->p ? 0 : MSB_ENOMEM;
}

/* Keeps the last cap bytes of the sequence. */
void secret_window_put(secret_window *w, const void *p, size_t n) {
  size_t keep;
  if (!w->cap || !n) return;
  if (n >= w->cap) {
    memcpy(w->p, (const uint8_t *)p + n - w->cap, w->cap);
    w->len = w->cap;
    return;
  }
  keep = w->len < w->cap - n ? w->len : w->cap - n;
  memmove(w->p, w->p + w->len - keep, keep);
  memcpy(w->p + keep, p, n);
  w->len = keep + n;
}

/* Frees the window. */
void secret_window_finish(secret_window *w) {
  if (w->p) mem_free(w->m, w->p);
  memset(w, 0, sizeof *w);
}

/* ---- streams --------------------------------------------------------- */

static size_t secret_pow2(size_t n) {
  size_t r = 1;
  while (r < n) r <<= 1;
  return r;
}

/* Starts a stream. */
int secret_stream_init(secret_stream *st, const secret_set *s, buf *out,
                       uint64_t cap) {
  size_t r;
  memset(st, 0, sizeof *st);
  st->set = s;
  st->out = out;
  st->cap = cap;
  if (!s || !s->n) return 0;
  r = secret_pow2(s->maxlen);
  st->ring = mem_alloc(s->m, r);
  st->rmask = r - 1;
  r = secret_pow2(s->maxlen + 1);
  st->runs = mem_alloc(s->m, r * sizeof *st->runs);
  st->runmask = r - 1;
  if (!st->ring || !st->runs) {
    secret_stream_finish(st);
    return st->err = MSB_ENOMEM;
  }
  return 0;
}

/* Frees the stream's storage. */
void secret_stream_finish(secret_stream *st) {
  if (!st || (!st->ring && !st->runs)) return;
  mem_free(st->set->m, st->ring);
  mem_free(st->set->m, st->runs);
  st->ring = NULL;
  st->runs = NULL;
}

/* Redacted bytes out, kept up to the cap and counted either way. */
static void secret_out(secret_stream *st, const void *p, size_t k) {
  buf *o = st->out;
  st->total += k;
  if (st->cap && o->len >= st->cap) return;
  if (st->cap && o->len + k > st->cap) k = (size_t)(st->cap - o->len);
  if (buf_put(o, p, k)) st->err = MSB_ENOMEM;
}

/* Raw bytes [st->emit, to) from the ring. */
static void secret_out_raw(secret_stream *st, uint64_t to) {
  while (st->emit < to) {
    size_t at = (size_t)(st->emit & st->rmask);
    size_t k = st->rmask + 1 - at;
    if ((uint64_t)k > to - st->emit) k = (size_t)(to - st->emit);
    secret_out(st, st->ring + at, k);
    st->emit += k;
  }
}

/* Records a match [s, e): it absorbs the runs it overlaps (all at the
 * tail, since e is the newest position). */
static void secret_add_run(secret_stream *st, uint64_t s, uint64_t e) {
  while (st->nruns) {
    secret_run *t = &st->runs[(st->rhead + st->nruns - 1) & st->runmask];
    if (t->e <= s) break;
    if (t->s < s) s = t->s;
    st->nruns--;
  }
  st->runs[(st->rhead + st->nruns) & st->runmask].s = s;
  st->runs[(st->rhead + st->nruns) & st->runmask].e = e;
  st->nruns++;
}

/* Emits everything before settle, where no later match can begin. */
static void secret_settle(secret_stream *st, uint64_t settle) {
  while (st->nruns) {
    secret_run *r = &st->runs[st->rhead];
    if (r->s >= settle) break;
    secret_out_raw(st, r->s);
    if (r->e > settle) return; /* the run may still grow */
    secret_out(st, SECRET_MARK, sizeof SECRET_MARK - 1);
    st->emit = r->e;
    st->rhead = (st->rhead + 1) & st->runmask;
    st->nruns--;
  }
  secret_out_raw(st, settle);
}

/* Consumes raw bytes. */
int secret_stream_put(secret_stream *st, const void *data, size_t n) {
  const uint8_t *p = data;
  const secret_set *s = st->set;
  size_t i = 0;
  if (st->err) return st->err;
  if (!s || !s->n) {
    secret_out(st, p, n);
    return st->err;
  }
  while (i < n) {
    uint32_t mq;
    size_t len;
    if (!st->active && !st->nruns) {
      /* everything so far is decided: pass bytes that start nothing */
      size_t k = i;
      while (k < n && !s->first[p[k]]) k++;
      if (k > i) {
        secret_out(st, p + i, k - i);
        st->n += k - i;
        st->emit = st->n;
        i = k;
        continue;
      }
    }
    st->ring[st->n & st->rmask] = p[i++];
    st->n++;
    len = secret_step(s, st->q, st->ring[(st->n - 1) & st->rmask], &mq);
    st->active = mq != 0;
    if (len) secret_add_run(st, st->n - len, st->n);
    secret_settle(st, st->n - mq);
  }
  return st->err;
}

/* Ends the stream: nothing pending can become a match any more. */
int secret_stream_flush(secret_stream *st) {
  if (st->err || !st->set || !st->set->n) return st->err;
  memset(st->q, 0, sizeof st->q);
  st->active = 0;
  secret_settle(st, st->n);
  return st->err;
}

/* Forgets held-back bytes and the produced count. */
void secret_stream_reset(secret_stream *st) {
  memset(st->q, 0, sizeof st->q);
  st->active = 0;
  st->nruns = st->rhead = 0;
  st->emit = st->n;
  st->total = 0;
  st->err = 0;
}

/* Redacts a whole string. */
int secret_redact(const secret_set *s, const void *p, size_t n, buf *out) {
  secret_stream st;
  int rc = secret_stream_init(&st, s, out, 0);
  if (!rc) rc = secret_stream_put(&st, p, n);
  if (!rc) rc = secret_stream_flush(&st);
  secret_stream_finish(&st);
  return rc ? rc : out->err;
}
