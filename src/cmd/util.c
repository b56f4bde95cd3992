/* util.c - helpers every command shares: diagnostics and GNU quoting,
 * bounded output, operands-or-stdin, record iteration, number and size
 * parsing, metadata formatting, UTC calendar arithmetic, date parsing and an
 * iterative tree walker.
 *
 * Quoting follows gnulib's quotearg "shell-escape" styles in the C locale:
 * names made only of safe bytes are printed bare (or in '...' when quoting
 * is forced); a name with a single quote and otherwise harmless bytes goes
 * in "..."; control and non-ASCII bytes become $'\ooo' segments.
 *
 * The walker keeps an explicit stack of open (pinned) directories, so depth
 * costs heap, never C stack, and callers may delete entries mid-walk. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../coro.h"
#include "../regex.h"
#include "../rng.h"
#include "cmd.h"

/* ---- Diagnostics ----------------------------------------------------- */

const char *cmd_name(const cmd_ctx *c) {
  const char *n, *s;
  if (!c->argv || c->argc < 1 || !c->argv[0]) return "?";
  n = c->argv[0];
  s = strrchr(n, '/');
  return (s && s[1]) ? s + 1 : n;
}

void cmd_err(cmd_ctx *c, const char *fmt, ...) {
  va_list ap;
  if (!c->fail) c->fail = CMD_FAIL_WORKSPACE;
  buf_printf(c->err, "%s: ", cmd_name(c));
  va_start(ap, fmt);
  buf_vprintf(c->err, fmt, ap);
  va_end(ap);
  buf_putc(c->err, '\n');
}

const char *cmd_strerror(int code) {
  return code == CMD_EBADF ? "Bad file descriptor" : msb_strerror(code);
}

/* Byte classes for shell quoting. */
static int util_safe(int ch) { /* needs no quotes, and fine inside "..." */
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
         (ch >= '0' && ch <= '9') || (ch && strchr("%+,-./:]_", ch));
}

static int util_printable(int ch) { return ch >= 0x20 && ch < 0x7f; }

static void util_escape(buf *b, int ch) {
  static const char named[] = "\aa\bb\ff\nn\rr\tt\vv";
  const char *p;
  for (p = named; *p; p += 2)
    if (*p == ch) {
      buf_putc(b, '\\');
      buf_putc(b, p[1]);
      return;
    }
  buf_printf(b, "\\%03o", ch);
}

int cmd_quote_buf(buf *b, const char *s, size_t n, int always) {
  size_t i;
  int need = always || n == 0, compat = 1, squote = 0, esc = 0;
  for (i = 0; i < n; i++) {
    int ch = s[i];
    if (util_safe(ch)) continue;
    if (ch == '@') {
      compat = 0;
    } else if (ch == '#' || ch == '~') {
      if (i == 0) need = 1;
    } else if (ch == '{' || ch == '}') {
      if (n == 1) need = 1;
    } else if (ch == ' ') {
      need = 1;
    } else if (ch == '\'') {
      need = 1;
      squote = 1;
    } else {
      need = 1;
      compat = 0;
    }
  }
  if (!need) return buf_put(b, s, n);
  if (squote && compat) {
    buf_putc(b, '"');
    buf_put(b, s, n);
    return buf_putc(b, '"');
  }
  buf_putc(b, '\'');
  for (i = 0; i < n; i++) {
    int ch = s[i];
    if (!util_printable(ch)) {
      if (!esc) buf_puts(b, "'$'");
      esc = 1;
      util_escape(b, ch);
      continue;
    }
    if (esc) buf_puts(b, "''");
    esc = 0;
    if (ch == '\'')
      buf_puts(b, "'\\''");
    else
      buf_putc(b, ch);
  }
  return buf_putc(b, '\'');
}

static const char *util_quote(cmd_ctx *c, const char *s, int always) {
  buf b;
  char *r;
  size_t len;
  buf_init(&b, c->m);
  cmd_quote_buf(&b, s, strlen(s), always);
  if (b.err) {
    buf_finish(&b);
    return "";
  }
  r = arena_strndup(c->a, buf_str(&b), b.len);
  len = b.len;
  (void)len;
  buf_finish(&b);
  return r ? r : "";
}

const char *cmd_quote(cmd_ctx *c, const char *s) { return util_quote(c, s, 1); }

const char *cmd_quotef(cmd_ctx *c, const char *s) {
  return util_quote(c, s, 0);
}

/* ---- Output ----------------------------------------------------------- */

int cmd_write(cmd_ctx *c, const void *p, size_t n) {
  if (c->out_max && c->out->len + (uint64_t)n > c->out_max) {
    uint64_t room = c->out->len < c->out_max ? c->out_max - c->out->len : 0;
    buf_put(c->out, p, (size_t)room);
    return c->out->err ? c->out->err : MSB_ELIMIT;
  }
  buf_put(c->out, p, n);
  return c->out->err;
}

int cmd_puts(cmd_ctx *c, const char *s) { return cmd_write(c, s, strlen(s)); }

int cmd_outf(cmd_ctx *c, const char *fmt, ...) {
  va_list ap;
  size_t before = c->out->len;
  va_start(ap, fmt);
  buf_vprintf(c->out, fmt, ap);
  va_end(ap);
  if (c->out->err) return c->out->err;
  if (c->out_max && c->out->len > c->out_max) {
    buf_truncate(c->out,
                 before > c->out_max ? (size_t)before : (size_t)c->out_max);
    return MSB_ELIMIT;
  }
  return 0;
}

int cmd_tick(cmd_ctx *c, uint64_t n) { return c->tick ? c->tick(c, n) : 0; }

int cmd_tick_pause(cmd_ctx *c, uint64_t n) {
  const cmd_pace *p = c->pace;
  int rc = cmd_tick(c, n);
  if (rc || !p || !*p->until || *p->steps < *p->until) return rc;
  *p->at = *p->steps;
  coro_yield(p->co);
  return cmd_tick(c, 0); /* a cancel arrives as a limit */
}

int cmd_charge_bytes(cmd_ctx *c, uint64_t n) {
  c->byte_carry += n;
  if (c->byte_carry < CMD_BYTES_PER_STEP) return 0;
  n = c->byte_carry / CMD_BYTES_PER_STEP;
  c->byte_carry %= CMD_BYTES_PER_STEP;
  return cmd_tick(c, n);
}

int cmd_charge_work(cmd_ctx *c, uint64_t n, unsigned cost) {
  /* Called per line or record: paid in batches of CMD_WORK_BATCH steps,
   * so that the common call is an addition and a comparison. */
  c->byte_carry += n * cost;
  if (c->byte_carry < CMD_WORK_BATCH * CMD_BYTES_PER_STEP) return 0;
  return cmd_charge_bytes(c, 0);
}

/* The regex meter's payment: steps from the command's budget. */
static int util_rx_charge(void *arg, uint64_t steps) {
  return cmd_tick((cmd_ctx *)arg, steps);
}

int cmd_rx_exec(cmd_ctx *c, rx *r, const uint8_t *s, size_t len, size_t start,
                unsigned eflags, rx_match *m, size_t nm) {
  rx_meter mt = RX_METER(util_rx_charge, c);
  int rc;
  mt.left = c->rx_units;
  rc = rx_search(r, s, len, start, eflags, m, nm, c->tick ? &mt : NULL);
  c->rx_units = mt.left;
  return rc;
}

/* ---- Paths and input ---------------------------------------------------- */

int cmd_dest_run(cmd_getopt *g, const char *tdir, int notarget,
                 int (*one)(void *arg, const char *src, const char *dst),
                 void *arg) {
  cmd_ctx *c = g->c;
  int n = g->nops, i, rc, status = 0;
  const char *dest, *dabs;
  struct vfs_stat st;
  if (tdir && notarget) {
    cmd_err(c,
            "cannot combine --target-directory (-t) and "
            "--no-target-directory (-T)");
    return 1;
  }
  if (n < 1) return cmd_usage_err(g, "missing file operand");
  if (!tdir && n < 2)
    return cmd_usage_err(g, "missing destination file operand after %s",
                         cmd_quote(c, g->ops[0]));
  if (notarget) {
    if (n > 2)
      return cmd_usage_err(g, "extra operand %s", cmd_quote(c, g->ops[2]));
    rc = one(arg, g->ops[0], g->ops[1]);
    return rc < 0 ? rc : rc ? 1 : 0;
  }
  dest = tdir ? tdir : g->ops[n - 1];
  if (!tdir) n--;
  if (!(dabs = cmd_path(c, dest))) return MSB_ENOMEM;
  rc = vfs_stat(c->fs, dabs, 1, &st);
  if (rc == 0 && st.kind == VFS_DIR) {
    for (i = 0; i < n; i++) {
      const char *base = cmd_base_name(c, g->ops[i]);
      size_t dl = strlen(dest), bl;
      char *to;
      if (!base) return MSB_ENOMEM;
      bl = strlen(base);
      if (!(to = arena_alloc(c->a, dl + bl + 2))) return MSB_ENOMEM;
      memcpy(to, dest, dl);
      if (dl && dest[dl - 1] != '/') to[dl++] = '/';
      memcpy(to + dl, base, bl + 1);
      if ((rc = one(arg, g->ops[i], to)) < 0) return rc;
      if (rc) status = 1;
    }
    return status;
  }
  if (tdir) {
    cmd_err(c, "target directory %s: %s", cmd_quote(c, tdir),
            cmd_strerror(rc ? rc : MSB_ENOTDIR));
    return 1;
  }
  if (n > 1) {
    cmd_err(c, "target %s: %s", cmd_quote(c, dest),
            cmd_strerror(rc ? rc : MSB_ENOTDIR));
    return 1;
  }
  rc = one(arg, g->ops[0], dest);
  return rc < 0 ? rc : rc ? 1 : 0;
}

int cmd_headtail_open(cmd_ctx *c, const char *op, int verbose, int *first,
                      const uint8_t **d, size_t *len) {
  int rc = cmd_input(c, op, d, len);
  const char *shown = strcmp(op, "-") ? op : "standard input";
  const char *me =
      strrchr(c->argv[0], '/') ? strrchr(c->argv[0], '/') + 1 : c->argv[0];
  if (rc == CMD_EBADF && strcmp(me, "head")) { /* tail fstats it first */
    cmd_err(c, "cannot fstat %s: %s", cmd_quote(c, shown), cmd_strerror(rc));
    return 0;
  }
  if (rc < 0 && rc != MSB_EISDIR && rc != CMD_EBADF) {
    cmd_err(c, "cannot open %s for reading: %s", cmd_quote(c, op),
            cmd_strerror(rc));
    return 0;
  }
  /* A directory opens (so it gets its header) but cannot be read. */
  if (verbose) buf_printf(c->out, "%s==> %s <==\n", *first ? "" : "\n", shown);
  *first = 0;
  if (rc == MSB_EISDIR || rc == CMD_EBADF) {
    cmd_err(c, "error reading %s: %s", cmd_quote(c, shown), cmd_strerror(rc));
    return 0;
  }
  return 1;
}

void cmd_stdin_close_err(cmd_ctx *c, const char *name) {
  static const char *const dash[] = {"cut",   "fold", "head", "nl",
                                     "paste", "tail", "tac",  "wc"};
  static const char *const std[] = {"tee",       "od",        "md5sum",
                                    "sha1sum",   "sha256sum", "sha512sum",
                                    "sha224sum", "sha384sum", "b2sum"};
  size_t i;
  if (c->in_err != CMD_EBADF || !c->in_failed) return;
  if (!strcmp(name, "cat")) {
    cmd_err(c, "closing standard input: %s", cmd_strerror(c->in_err));
    return;
  }
  for (i = 0; i < sizeof dash / sizeof dash[0]; i++)
    if (!strcmp(name, dash[i])) cmd_err(c, "-: %s", cmd_strerror(c->in_err));
  for (i = 0; i < sizeof std / sizeof std[0]; i++)
    if (!strcmp(name, std[i]))
      cmd_err(c, "standard input: %s", cmd_strerror(c->in_err));
}

/* An operand as an absolute path, ".." resolved physically (phys) or
 * lexically. */
static const char *cmd_path_as(cmd_ctx *c, const char *operand, int phys) {
  buf b;
  char *r = 0;
  const char *cwd = c->cwd ? c->cwd : "/";
  int rc;
  if (!*operand) return ""; /* every vfs call fails it with MSB_ENOENT */
  buf_init(&b, c->m);
  rc = phys ? vfs_abspath_phys(c->fs, cwd, operand, &b)
            : vfs_abspath(cwd, operand, &b);
  if (rc == 0 && !b.err) r = arena_strndup(c->a, buf_str(&b), b.len);
  buf_finish(&b);
  return r;
}

const char *cmd_path(cmd_ctx *c, const char *operand) {
  return cmd_path_as(c, operand, 1);
}

const char *cmd_path_lexical(cmd_ctx *c, const char *operand) {
  return cmd_path_as(c, operand, 0);
}

int cmd_slash_check(cmd_ctx *c, const char *operand, const char *abs) {
  size_t n = strlen(operand);
  struct vfs_stat st;
  if (n < 2 || operand[n - 1] != '/') return 0;
  if (vfs_stat(c->fs, abs, 1, &st) == 0 && st.kind != VFS_DIR)
    return MSB_ENOTDIR;
  return 0;
}

const char *cmd_base_name(cmd_ctx *c, const char *s) {
  size_t n = strlen(s), e;
  while (n > 1 && s[n - 1] == '/') n--;
  if (n == 1 && s[0] == '/') return "/";
  e = n;
  while (n > 0 && s[n - 1] != '/') n--;
  return arena_strndup(c->a, s + n, e - n);
}

const char *cmd_dir_name(cmd_ctx *c, const char *s) {
  size_t n = strlen(s);
  while (n > 1 && s[n - 1] == '/') n--;
  while (n > 0 && s[n - 1] != '/') n--;
  if (n == 0) return ".";
  while (n > 1 && s[n - 1] == '/') n--;
  return arena_strndup(c->a, s, n);
}

size_t cmd_last_records(const uint8_t *d, size_t len, uint64_t n, int delim) {
  size_t i = len;
  if (!n) return len;
  if (i && d[i - 1] == delim) i--;
  while (i > 0) {
    if (d[i - 1] == delim && --n == 0) return i;
    i--;
  }
  return 0;
}

void *cmd_grow(cmd_ctx *c, void *v, size_t n, size_t *cap, size_t size,
               size_t first) {
  size_t nc = *cap ? *cap * 2 : first;
  void *nv;
  if (n < *cap) return v;
  if (nc < *cap || nc > (size_t)-1 / size) return NULL;
  nv = arena_alloc(c->a, nc * size);
  if (!nv) return NULL;
  if (n) memcpy(nv, v, n * size);
  *cap = nc;
  return nv;
}

int cmd_inodes_add(cmd_ctx *c, cmd_inodes *s, uint64_t ino) {
  size_t i;
  for (i = 0; i < s->n; i++)
    if (s->v[i] == ino) return 0;
  if (s->n == s->cap) {
    uint64_t *nv = cmd_grow(c, s->v, s->n, &s->cap, sizeof *nv, 64);
    if (!nv) return MSB_ENOMEM;
    s->v = nv;
  }
  s->v[s->n++] = ino;
  return 1;
}

void cmd_pad(buf *o, const char *spec, size_t slen, const char *val,
             size_t vlen, int numeric) {
  int left = 0, zero = 0, width = 0, prec = -1;
  size_t i = 0;
  while (i < slen && strchr("-+ #0'", spec[i])) {
    if (spec[i] == '-') left = 1;
    if (spec[i] == '0') zero = 1;
    i++;
  }
  while (i < slen && spec[i] >= '0' && spec[i] <= '9')
    width = width * 10 + (spec[i++] - '0');
  if (i < slen && spec[i] == '.') {
    prec = 0;
    i++;
    while (i < slen && spec[i] >= '0' && spec[i] <= '9')
      prec = prec * 10 + (spec[i++] - '0');
  }
  if (!numeric && prec >= 0 && (size_t)prec < vlen) vlen = (size_t)prec;
  if (!left && (size_t)width > vlen) {
    int pad = width - (int)vlen;
    char fill = zero && numeric ? '0' : ' ';
    while (pad-- > 0) buf_putc(o, fill);
  }
  buf_put(o, val, vlen);
  if (left)
    while ((size_t)width > vlen) {
      buf_putc(o, ' ');
      width--;
    }
}

char *const *cmd_operands(const cmd_getopt *g, int *n) {
  static char *const dash[] = {(char *)"-", NULL};
  *n = g->nops ? g->nops : 1;
  return g->nops ? g->ops : dash;
}

void cmd_inputs_init(cmd_inputs *in, cmd_ctx *c, const cmd_getopt *g) {
  in->c = c;
  in->ops = cmd_operands(g, &in->n);
  in->i = in->status = 0;
  in->name = NULL;
}

int cmd_inputs_next(cmd_inputs *in, const uint8_t **data, size_t *len) {
  while (in->i < in->n) {
    int rc;
    in->name = in->ops[in->i++];
    rc = cmd_input(in->c, in->name, data, len);
    if (rc >= 0) return 1;
    cmd_err(in->c, "%s: %s", cmd_quotef(in->c, in->name), cmd_strerror(rc));
    in->status = 1;
  }
  return 0;
}

int cmd_answer(cmd_ctx *c, size_t *pos) {
  size_t i = *pos;
  int a;
  if (i >= c->in_len) return -1;
  a = c->in[i] == '\n' ? 0 : c->in[i];
  while (i < c->in_len && c->in[i] != '\n') i++;
  if (i < c->in_len) i++;
  *pos = i;
  return a;
}

int cmd_answer_yes(cmd_ctx *c, size_t *pos) {
  int a = cmd_answer(c, pos);
  return a == 'y' || a == 'Y';
}

/* The first c->dev_want bytes of endless device p: zeros, or the
 * sandbox's seeded random stream for /dev/urandom and /dev/random. */
static int cmd_device(cmd_ctx *c, const char *p, const uint8_t **data,
                      size_t *len) {
  struct vfs_stat st;
  uint8_t *d;
  size_t i, n;
  int rc = vfs_stat(c->fs, p, 1, &st);
  if (rc) return rc;
  if (!c->dev_want) return MSB_ENOTSUP;
  if (c->dev_want > c->lim->max_file_bytes) return MSB_EFBIG;
  n = (size_t)c->dev_want;
  if (!(d = arena_zalloc(c->a, n + 1))) return MSB_ENOMEM;
  if (st.rdev == VFS_DEV_URANDOM || st.rdev == VFS_DEV_RANDOM)
    for (i = 0; i < n; i++) d[i] = (uint8_t)rng_next(c->rng);
  *data = d;
  *len = n;
  return 0;
}

int cmd_input(cmd_ctx *c, const char *operand, const uint8_t **data,
              size_t *len) {
  const char *p;
  int rc;
  if (!strcmp(operand, "-") || !strcmp(operand, "/dev/stdin")) {
    if (c->in_err) {
      c->in_failed = 1;
      return c->in_err;
    }
    *data = c->in ? c->in : (const uint8_t *)"";
    *len = c->in_len;
    c->in_used = c->in_len;
    c->in_eof = 1;
    return 0;
  }
  p = cmd_path(c, operand);
  if (!p) return MSB_ENOMEM;
  if (!strcmp(p, "/dev/null")) {
    /* Not in the filesystem, but scripts read it as the empty file. */
    *data = (const uint8_t *)"";
    *len = 0;
    return 0;
  }
  if (cmd_slash_check(c, operand, p)) return MSB_ENOTDIR;
  rc = vfs_read(c->fs, p, data, len);
  if (rc == MSB_ENOTSUP) rc = cmd_device(c, p, data, len);
  /* Reading is paid by the file's size; past the limit the command
   * stops at its next charge (the limit is sticky). */
  if (!rc) cmd_charge_bytes(c, *len);
  return rc;
}

void cmd_lines_init(cmd_lines *l, const uint8_t *data, size_t len, int delim) {
  l->p = data;
  l->end = data + len;
  l->delim = delim;
}

int cmd_lines_next(cmd_lines *l, const uint8_t **rec, size_t *len, int *term) {
  const uint8_t *q;
  if (l->p >= l->end) return 0;
  q = memchr(l->p, l->delim, (size_t)(l->end - l->p));
  *rec = l->p;
  if (q) {
    *len = (size_t)(q - l->p);
    l->p = q + 1;
    if (term) *term = 1;
  } else {
    *len = (size_t)(l->end - l->p);
    l->p = l->end;
    if (term) *term = 0;
  }
  return 1;
}

/* ---- Numbers ------------------------------------------------------- */

int cmd_parse_int(const char *s, int64_t *out) {
  int neg = 0;
  uint64_t v = 0, lim;
  if (*s == '+' || *s == '-') neg = *s++ == '-';
  if (!*s) return CMD_NUM_INVALID;
  lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return CMD_NUM_INVALID;
    if (v > (lim - (uint64_t)(*s - '0')) / 10) {
      while (*++s)
        if (*s < '0' || *s > '9') return CMD_NUM_INVALID;
      return CMD_NUM_RANGE;
    }
    v = v * 10 + (uint64_t)(*s - '0');
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return 0;
}

int cmd_parse_size(const char *s, unsigned flags, uint64_t *out) {
  static const char units[] = "KMGTPEZY";
  uint64_t v = 0, mul = 1, base = 1024;
  const char *u;
  int range = 0, i, e = 0;
  if (*s == '+') s++;
  if (*s < '0' || *s > '9') return CMD_NUM_INVALID;
  for (; *s >= '0' && *s <= '9'; s++) {
    if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10) range = 1;
    if (!range) v = v * 10 + (uint64_t)(*s - '0');
  }
  if (*s) {
    int ch = *s == 'k' ? 'K' : *s;
    if ((flags & CMD_SZ_B) && *s == 'b' && !s[1]) {
      mul = 512;
    } else if ((flags & CMD_SZ_BYTES) && *s == 'c' && !s[1]) {
      mul = 1;
    } else if ((flags & CMD_SZ_BYTES) && *s == 'w' && !s[1]) {
      mul = 2;
    } else if (ch && (u = strchr(units, ch)) != 0) {
      e = (int)(u - units) + 1;
      if (s[1] == 'B' && !s[2])
        base = 1000;
      else if (s[1] == 'i' && s[2] == 'B' && !s[3])
        base = 1024;
      else if (s[1])
        return CMD_NUM_INVALID;
      for (i = 0; i < e; i++) {
        if (mul > UINT64_MAX / base) range = 1;
        mul *= base;
      }
    } else {
      return CMD_NUM_INVALID;
    }
  }
  if (range || (v && mul > UINT64_MAX / v)) return CMD_NUM_RANGE;
  *out = v * mul;
  return 0;
}

uint32_t cmd_umask(const cmd_ctx *c) {
  return c->umask ? *c->umask & 0777u : CMD_UMASK;
}

int cmd_parse_mode(const char *s, uint32_t old, int is_dir, uint32_t umask,
                   uint32_t *out) {
  uint32_t mode = old & 07777;
  const char *p = s;
  if (*p >= '0' && *p <= '7') {
    uint32_t v = 0;
    int n = 0;
    for (; *p; p++, n++) {
      if (*p < '0' || *p > '7' || n >= 4) return CMD_NUM_INVALID;
      v = v * 8 + (uint32_t)(*p - '0');
    }
    *out = v;
    return 0;
  }
  for (;;) {
    uint32_t who = 0;
    for (;; p++) {
      if (*p == 'u')
        who |= 04700;
      else if (*p == 'g')
        who |= 02070;
      else if (*p == 'o')
        who |= 01007;
      else if (*p == 'a')
        who |= 07777;
      else
        break;
    }
    if (*p != '+' && *p != '-' && *p != '=') return CMD_NUM_INVALID;
    while (*p == '+' || *p == '-' || *p == '=') {
      int op = *p++;
      uint32_t val = 0, mask = who ? who : 07777 & ~umask;
      if (*p == 'u' || *p == 'g' || *p == 'o') {
        uint32_t b = *p == 'u'   ? (mode >> 6) & 7
                     : *p == 'g' ? (mode >> 3) & 7
                                 : mode & 7;
        val = b * 0111;
        p++;
      } else {
        for (;; p++) {
          if (*p == 'r')
            val |= 0444;
          else if (*p == 'w')
            val |= 0222;
          else if (*p == 'x')
            val |= 0111;
          else if (*p == 'X') {
            if (is_dir || (mode & 0111)) val |= 0111;
          } else if (*p == 's')
            val |= 06000;
          else if (*p == 't')
            val |= 01000;
          else
            break;
        }
      }
      val &= mask;
      if (op == '+')
        mode |= val;
      else if (op == '-')
        mode &= ~val;
      else
        mode = (mode & ~(who ? who : (07777 & ~umask))) | val;
    }
    if (*p == ',') {
      p++;
      continue;
    }
    if (*p) return CMD_NUM_INVALID;
    break;
  }
  *out = mode;
  return 0;
}

/* ---- Metadata formatting ------------------------------------------------- */

void cmd_mode_str(int kind, uint32_t mode, char out[11]) {
  static const char rwx[] = "rwxrwxrwx";
  int i;
  out[0] = kind == VFS_DIR    ? 'd'
           : kind == VFS_LINK ? 'l'
           : (mode & VFS_CHR) ? 'c'
                              : '-';
  for (i = 0; i < 9; i++) out[i + 1] = (mode & (0400u >> i)) ? rwx[i] : '-';
  if (mode & 04000) out[3] = (mode & 0100) ? 's' : 'S';
  if (mode & 02000) out[6] = (mode & 0010) ? 's' : 'S';
  if (mode & 01000) out[9] = (mode & 0001) ? 't' : 'T';
  out[10] = 0;
}

uint64_t cmd_blocks(const struct vfs_stat *st) {
  if (st->kind == VFS_DIR) return 8;
  if (st->kind == VFS_LINK) return 0;
  return (st->size / 4096 + (st->size % 4096 != 0)) * 8;
}

uint64_t cmd_size(const struct vfs_stat *st) {
  return st->kind == VFS_DIR ? 4096 : st->size;
}

void cmd_human(uint64_t n, int si, char out[24]) {
  static const char units[] = "KMGTPEZY";
  uint64_t base = si ? 1000 : 1024, d = 1, q, r, t;
  int e = 0;
  char u;
  if (n < base) {
    snprintf(out, 24, "%llu", (unsigned long long)n);
    return;
  }
  while (n / d >= base && e < 6) {
    d *= base;
    e++;
  }
  q = n / d;
  r = n % d;
  if (q < 10) {
    t = r ? (r * 10 + d - 1) / d : 0; /* ceil(r * 10 / d); r*10 < 2^64 */
    if (r && (r > (UINT64_MAX - d) / 10)) t = r / (d / 10) + 1;
    if (t >= 10) {
      q++;
      t = 0;
    }
    u = (si && e == 1) ? 'k' : units[e - 1];
    if (q >= 10)
      snprintf(out, 24, "%llu%c", (unsigned long long)q, u);
    else
      snprintf(out, 24, "%llu.%llu%c", (unsigned long long)q,
               (unsigned long long)t, u);
    return;
  }
  if (r) q++;
  if (q >= base && e < 8) {
    e++;
    u = (si && e == 1) ? 'k' : units[e - 1];
    snprintf(out, 24, "1.0%c", u);
    return;
  }
  u = (si && e == 1) ? 'k' : units[e - 1];
  snprintf(out, 24, "%llu%c", (unsigned long long)q, u);
}

/* ---- Time ---------------------------------------------------------- */

int64_t cmd_ns_to_s(int64_t ns) {
  int64_t s = ns / 1000000000;
  if (ns % 1000000000 < 0) s--;
  return s;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t util_days(int64_t y, int64_t m, int64_t d) {
  int64_t era, yoe, doy, doe;
  y -= m <= 2;
  era = (y >= 0 ? y : y - 399) / 400;
  yoe = y - era * 400;
  doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void cmd_gmtime(int64_t secs, cmd_tm *tm) {
  int64_t days = secs / 86400, rem = secs % 86400, era, doe, yoe, doy, mp;
  if (rem < 0) {
    rem += 86400;
    days--;
  }
  tm->hour = (int)(rem / 3600);
  tm->min = (int)(rem / 60 % 60);
  tm->sec = (int)(rem % 60);
  tm->wday = (int)((days % 7 + 11) % 7); /* 1970-01-01 was a Thursday */
  days += 719468;
  era = (days >= 0 ? days : days - 146096) / 146097;
  doe = days - era * 146097;
  yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  mp = (5 * doy + 2) / 153;
  tm->mday = (int)(doy - (153 * mp + 2) / 5 + 1);
  tm->mon = (int)(mp < 10 ? mp + 3 : mp - 9);
  tm->year = yoe + era * 400 + (tm->mon <= 2);
  tm->yday =
      (int)(util_days(tm->year, tm->mon, tm->mday) - util_days(tm->year, 1, 1));
}

int64_t cmd_timegm(const cmd_tm *tm) {
  int64_t y = tm->year, m = tm->mon - 1;
  y += m / 12;
  m %= 12;
  if (m < 0) {
    m += 12;
    y--;
  }
  return (util_days(y, m + 1, 1) + tm->mday - 1) * 86400 +
         (int64_t)tm->hour * 3600 + (int64_t)tm->min * 60 + tm->sec;
}

static const char util_months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

void cmd_time_ls(int64_t t_ns, int64_t now_ns, char out[32]) {
  cmd_tm tm;
  int64_t t = cmd_ns_to_s(t_ns), now = cmd_ns_to_s(now_ns);
  int recent = t > now - 31556952 / 2 && t_ns <= now_ns;
  cmd_gmtime(t, &tm);
  if (recent)
    snprintf(out, 32, "%.3s %2d %02d:%02d", util_months + (tm.mon - 1) * 3,
             tm.mday, tm.hour, tm.min);
  else
    snprintf(out, 32, "%.3s %2d  %lld", util_months + (tm.mon - 1) * 3, tm.mday,
             (long long)tm.year);
}

void cmd_time_full(int64_t t_ns, char out[48]) {
  cmd_tm tm;
  int64_t s = cmd_ns_to_s(t_ns);
  cmd_gmtime(s, &tm);
  snprintf(out, 48, "%04lld-%02d-%02d %02d:%02d:%02d.%09lld +0000",
           (long long)tm.year, tm.mon, tm.mday, tm.hour, tm.min, tm.sec,
           (long long)(t_ns - s * 1000000000));
}

/* ---- Tree walker --------------------------------------------------- */

typedef struct util_frame {
  vfs_dir d;
  size_t pathlen, abslen, namepos;
  struct vfs_stat st;
  uint64_t ino;
  int depth;
} util_frame;

struct cmd_walk {
  cmd_ctx *c;
  unsigned flags;
  int max_depth;
  int state; /* 0 root pending, 1 walking, 2 done */
  int pending; /* the entry just returned is a directory to open */
  int pruned;
  uint64_t seen;
  const char *root;
  buf path, abs;
  util_frame *st;
  size_t n, cap;
  cmd_walk_ent e;
};

int cmd_walk_open(cmd_ctx *c, const char *root, unsigned flags,
                  cmd_walk **out) {
  cmd_walk *w = mem_zalloc(c->m, sizeof *w);
  *out = 0;
  if (!w) return MSB_ENOMEM;
  w->c = c;
  w->flags = flags;
  w->max_depth = -1;
  w->root = root;
  buf_init(&w->path, c->m);
  buf_init(&w->abs, c->m);
  *out = w;
  return 0;
}

void cmd_walk_max_depth(cmd_walk *w, int max_depth) {
  w->max_depth = max_depth;
}

void cmd_walk_prune(cmd_walk *w) { w->pruned = 1; }

void cmd_walk_close(cmd_walk *w) {
  if (!w) return;
  while (w->n) vfs_closedir(&w->st[--w->n].d);
  mem_free(w->c->m, w->st);
  buf_finish(&w->path);
  buf_finish(&w->abs);
  mem_free(w->c->m, w);
}

/* Stats the current w->abs into e per the symlink policy. */
static void util_walk_stat(cmd_walk *w, int follow) {
  cmd_walk_ent *e = &w->e;
  struct vfs_stat lst;
  int rc = vfs_stat(w->c->fs, buf_str(&w->abs), 0, &lst);
  e->err = rc;
  if (rc < 0) {
    memset(&e->st, 0, sizeof e->st);
    return;
  }
  e->st = lst;
  if (follow && lst.kind == VFS_LINK) {
    struct vfs_stat fst;
    if (vfs_stat(w->c->fs, buf_str(&w->abs), 1, &fst) == 0) e->st = fst;
  }
}

/* Marks ELOOP when a followed directory repeats an ancestor. */
static void util_walk_loop(cmd_walk *w) {
  size_t i;
  if (!(w->flags & (CMD_WALK_FOLLOW | CMD_WALK_FOLLOW_ROOT))) return;
  for (i = 0; i < w->n; i++)
    if (w->st[i].ino == w->e.st.ino) {
      w->e.err = MSB_ELOOP;
      return;
    }
}

static int util_walk_push(cmd_walk *w) {
  util_frame *f;
  int rc;
  if (w->n == w->cap) {
    size_t nc = w->cap ? w->cap * 2 : 16;
    util_frame *ns = mem_realloc(w->c->m, w->st, nc * sizeof *ns);
    if (!ns) return MSB_ENOMEM;
    w->st = ns;
    w->cap = nc;
  }
  f = &w->st[w->n];
  rc = vfs_opendir(w->c->fs, buf_str(&w->abs), &f->d);
  /* a directory the policy hides is reported (its entry again, with the
   * error), as GNU tools report an unreadable directory */
  if (rc == MSB_EPOLICY) return 1;
  if (rc < 0) return rc == MSB_ENOMEM ? rc : 0;
  f->pathlen = w->path.len;
  f->abslen = w->abs.len;
  f->namepos = (size_t)(w->e.name - buf_str(&w->path));
  f->st = w->e.st;
  f->ino = w->e.st.ino;
  f->depth = w->e.depth;
  w->n++;
  return 0;
}

static void util_walk_set_name(cmd_walk *w, size_t namepos) {
  w->e.path = buf_str(&w->path);
  w->e.abs = buf_str(&w->abs);
  w->e.name = w->e.path + namepos;
}

int cmd_walk_next(cmd_walk *w, cmd_walk_ent **out) {
  cmd_walk_ent *e = &w->e;
  int rc;
  *out = e;
  if (w->state == 2) return 0;
  if (w->state == 0) {
    const char *abs = cmd_path(w->c, w->root);
    if (!abs) return MSB_ENOMEM;
    buf_puts(&w->path, w->root);
    buf_puts(&w->abs, abs);
    if (w->path.err || w->abs.err) return MSB_ENOMEM;
    w->state = 1;
    memset(e, 0, sizeof *e);
    util_walk_set_name(w, 0);
    util_walk_stat(w, (w->flags & (CMD_WALK_FOLLOW | CMD_WALK_FOLLOW_ROOT)) ||
                          (w->root[0] && w->root[strlen(w->root) - 1] == '/'));
    w->pending = e->err == 0 && e->st.kind == VFS_DIR;
    w->pruned = 0;
    return 1;
  }
  if (w->pending) {
    w->pending = 0;
    if (!w->pruned && (w->max_depth < 0 || e->depth < w->max_depth)) {
      if ((rc = util_walk_push(w)) < 0) return rc;
      if (rc == 1) {
        e->err = MSB_EPOLICY;
        return 1;
      }
    } else if (w->flags & CMD_WALK_POST) {
      e->post = 1;
      return 1;
    }
  }
  w->pruned = 0;
  while (w->n) {
    util_frame *f = &w->st[w->n - 1];
    const char *name;
    size_t nl;
    if (vfs_readdir(&f->d, &name, &nl, 0) != 1) {
      vfs_closedir(&f->d);
      w->n--;
      buf_truncate(&w->path, f->pathlen);
      buf_truncate(&w->abs, f->abslen);
      if (w->flags & CMD_WALK_POST) {
        memset(e, 0, sizeof *e);
        util_walk_set_name(w, f->namepos);
        e->st = f->st;
        e->depth = f->depth;
        e->post = 1;
        return 1;
      }
      continue;
    }
    if ((++w->seen % 1000) == 0 && (rc = cmd_tick(w->c, 1)) < 0) return rc;
    buf_truncate(&w->path, f->pathlen);
    buf_truncate(&w->abs, f->abslen);
    if (!f->pathlen || w->path.p[f->pathlen - 1] != '/')
      buf_putc(&w->path, '/');
    if (w->abs.p[f->abslen - 1] != '/') buf_putc(&w->abs, '/');
    {
      size_t namepos = w->path.len;
      buf_put(&w->path, name, nl);
      buf_put(&w->abs, name, nl);
      if (w->path.err || w->abs.err) return MSB_ENOMEM;
      memset(e, 0, sizeof *e);
      util_walk_set_name(w, namepos);
    }
    e->depth = f->depth + 1;
    util_walk_stat(w, (w->flags & CMD_WALK_FOLLOW) != 0);
    if (e->err == 0 && e->st.kind == VFS_DIR) {
      util_walk_loop(w);
      w->pending = e->err == 0;
    }
    return 1;
  }
  w->state = 2;
  return 0;
}

/* ---- Tab stops (expand, unexpand) ---------------------------------------- */

uint64_t cmd_next_tab(const uint64_t *stops, int n, uint64_t col) {
  int i;
  if (n == 0) return col + 8 - col % 8;
  if (n == 1) return col + stops[0] - col % stops[0];
  for (i = 0; i < n; i++)
    if (stops[i] > col) return stops[i];
  return 0;
}

int cmd_parse_tabs(cmd_ctx *c, const char *s, uint64_t *stops, int *n) {
  const char *p = s;
  while (*p) {
    uint64_t v = 0;
    int digits = 0;
    if (*p == ',' || *p == ' ') {
      p++;
      continue;
    }
    while (*p >= '0' && *p <= '9') {
      v = v > 100000000000ULL ? v : v * 10 + (uint64_t)(*p - '0');
      p++;
      digits = 1;
    }
    if (!digits || (*p && *p != ',' && *p != ' ')) {
      cmd_err(c, "tab size contains invalid character(s): %s", cmd_quote(c, p));
      return 1;
    }
    if (v == 0) {
      cmd_err(c, "tab size cannot be 0");
      return 1;
    }
    if (*n && v <= stops[*n - 1]) {
      cmd_err(c, "tab sizes must be ascending");
      return 1;
    }
    if (*n >= 1024) {
      cmd_err(c, "too many tab stops");
      return 1;
    }
    stops[(*n)++] = v;
  }
  return 0;
}

/* ---- Operand count (comm, join) -------------------------------------- */

int cmd_two_operands(cmd_getopt *g) {
  if (g->nops == 0) return cmd_usage_err(g, "missing operand");
  if (g->nops == 1)
    return cmd_usage_err(g, "missing operand after %s",
                         cmd_quote(g->c, g->ops[0]));
  return cmd_usage_err(g, "extra operand %s", cmd_quote(g->c, g->ops[2]));
}

const char *cmd_getenv(const cmd_ctx *c, const char *name, size_t n) {
  char **e;
  for (e = c->envp; e && *e; e++)
    if (!strncmp(*e, name, n) && (*e)[n] == '=') return *e + n + 1;
  return NULL;
}
