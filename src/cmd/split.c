/* split.c - split a file into pieces (GNU coreutils split).
 *
 * The input is read whole, cut by lines (-l), bytes (-b), line-bounded
 * byte sizes (-C) or into N chunks (-n N, l/N, K/N, l/K/N), and each piece
 * is written through the vfs. Suffixes follow GNU: alphabetic (or -d
 * decimal, -x hex), length 2 by default and widened automatically
 * (xyz -> xzaaa) unless -a fixes the length, in which case running out is
 * an error. -n also works on standard input (GNU needs a sized file).
 *
 * Usage: split [OPTION]... [FILE [PREFIX]] */
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char split_usage[] MSB_COLD =
    "Usage: split [OPTION]... [FILE [PREFIX]]\n"
    "Output pieces of FILE to PREFIXaa, PREFIXab, ...;\n"
    "default size is 1000 lines, and default PREFIX is 'x'.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -a, --suffix-length=N   generate suffixes of length N (default 2)\n"
    "      --additional-suffix=SUFFIX  append an additional SUFFIX to file "
    "names\n"
    "  -b, --bytes=SIZE        put SIZE bytes per output file\n"
    "  -C, --line-bytes=SIZE   put at most SIZE bytes of records per output "
    "file\n"
    "  -d                      use numeric suffixes starting at 0, not "
    "alphabetic\n"
    "      --numeric-suffixes[=FROM]  same as -d, but allow setting the "
    "start value\n"
    "  -x                      use hex suffixes starting at 0, not "
    "alphabetic\n"
    "      --hex-suffixes[=FROM]  same as -x, but allow setting the start "
    "value\n"
    "  -e, --elide-empty-files  do not generate empty output files with "
    "'-n'\n"
    "  -l, --lines=NUMBER      put NUMBER lines/records per output file\n"
    "  -n, --number=CHUNKS     generate CHUNKS output files\n"
    "  -t, --separator=SEP     use SEP instead of newline as the record "
    "separator\n"
    "      --verbose           print a diagnostic just before each\n"
    "                            output file is opened\n";

enum { SPLIT_O_ADDSUF = 256, SPLIT_O_NUMSUF, SPLIT_O_HEXSUF, SPLIT_O_VERBOSE };

static const cmd_opt split_opts[] = {
    {'a', "suffix-length", CMD_ARG_REQ, 'a'},
    {0, "additional-suffix", CMD_ARG_REQ, SPLIT_O_ADDSUF},
    {'b', "bytes", CMD_ARG_REQ, 'b'},
    {'C', "line-bytes", CMD_ARG_REQ, 'C'},
    {'d', 0, CMD_ARG_NONE, 'd'},
    {0, "numeric-suffixes", CMD_ARG_OPT, SPLIT_O_NUMSUF},
    {'x', 0, CMD_ARG_NONE, 'x'},
    {0, "hex-suffixes", CMD_ARG_OPT, SPLIT_O_HEXSUF},
    {'e', "elide-empty-files", CMD_ARG_NONE, 'e'},
    {'l', "lines", CMD_ARG_REQ, 'l'},
    {'n', "number", CMD_ARG_REQ, 'n'},
    {'t', "separator", CMD_ARG_REQ, 't'},
    {0, "verbose", CMD_ARG_NONE, SPLIT_O_VERBOSE},
    {0, 0, 0, 0}};

typedef struct split_st {
  cmd_ctx *c;
  buf base;          /* prefix, grows when auto-widening */
  const char *alpha; /* suffix alphabet */
  size_t alen;
  size_t slen;       /* suffix length */
  size_t idx[64];
  int autowiden, started, verbose;
  const char *addsuf;
} split_st;

/* Next output name into out; 0, or 1 when suffixes are exhausted. */
static int split_name(split_st *s, buf *out) {
  size_t i;
  if (s->started) {
    i = s->slen;
    for (;;) {
      if (i == 0) return 1;
      i--;
      if (++s->idx[i] < s->alen) break;
      s->idx[i] = 0;
    }
    if (s->autowiden && s->idx[0] == s->alen - 1 && s->slen < 60) {
      /* GNU widens: "xyz" is followed by "xzaaa". */
      buf_putc(&s->base, s->alpha[s->alen - 1]);
      s->slen++;
      memset(s->idx, 0, sizeof s->idx);
    }
  }
  s->started = 1;
  buf_clear(out);
  buf_put(out, s->base.p ? s->base.p : "", s->base.len);
  for (i = 0; i < s->slen; i++) buf_putc(out, s->alpha[s->idx[i]]);
  if (s->addsuf) buf_puts(out, s->addsuf);
  return 0;
}

/* Writes one piece. 0, 1 (error printed) or a negative code. */
static int split_write(split_st *s, const uint8_t *p, size_t n) {
  buf name;
  const char *abs;
  int rc;
  buf_init(&name, s->c->m);
  if (split_name(s, &name)) {
    buf_finish(&name);
    cmd_err(s->c, "output file suffixes exhausted");
    return 1;
  }
  if (name.err) {
    buf_finish(&name);
    return MSB_ENOMEM;
  }
  if (s->verbose)
    buf_printf(s->c->out, "creating file %s\n",
               cmd_quote(s->c, buf_str(&name)));
  abs = cmd_path(s->c, buf_str(&name));
  rc = abs ? vfs_write(s->c->fs, abs, p, n, VFS_KEEP_MODE, CMD_NEWFILE(s->c),
                       NULL)
           : MSB_ENOMEM;
  if (rc < 0 && rc != MSB_ENOMEM) {
    cmd_err(s->c, "%s: %s", cmd_quotef(s->c, buf_str(&name)), cmd_strerror(rc));
    rc = 1;
  }
  buf_finish(&name);
  return rc;
}

static int split_size(cmd_ctx *c, const char *arg, const char *what,
                      uint64_t *out) {
  int rc = cmd_parse_size(arg, CMD_SZ_B, out);
  if (rc == 0 && *out > 0) return 0;
  if (rc == 0 || rc == CMD_NUM_RANGE)
    cmd_err(c, "invalid number of %s: %s: %s", what, cmd_quote(c, arg),
            rc == 0 ? "Numerical result out of range"
                    : "Value too large for defined data type");
  else
    cmd_err(c, "invalid number of %s: %s", what, cmd_quote(c, arg));
  return 1;
}

/* End of chunk k (1-based) of n over len bytes, by bytes or lines. */
static size_t split_chunk_end(const uint8_t *d, size_t len, uint64_t k,
                              uint64_t n, int lines, int sep) {
  size_t size = (size_t)(len / n), e;
  const uint8_t *q;
  if (k >= n) return len;
  e = (size_t)(size * k);
  if (!lines || e == 0) return e;
  q = memchr(d + e - 1, sep, len - (e - 1));
  return q ? (size_t)(q - d) + 1 : len;
}

/* Entry point: see the usage above. */
int cmd_split(cmd_ctx *c) {
  cmd_getopt g;
  split_st s;
  int opt, rc = 0, mode = 'l', elide = 0, sep = '\n';
  uint64_t count = 1000, chunks = 0, which = 0, from = 0;
  const char *in = "-";
  const uint8_t *d;
  size_t len;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.alpha = "abcdefghijklmnopqrstuvwxyz";
  s.slen = 2;
  s.autowiden = 1;
  buf_init(&s.base, c->m);
  cmd_opt_init(&g, c, split_opts, split_usage, CMD_OPTF_NUMERIC);
  while ((opt = cmd_opt_next(&g)) != CMD_OPT_END) {
    switch (opt) {
    case CMD_OPT_ERR: rc = 1; goto out;
    case CMD_OPT_EXIT: goto out;
    case 'a': {
      int64_t v;
      if (cmd_parse_int(g.arg, &v) || v < 0 || v > 60) {
        cmd_err(c, "invalid suffix length: %s", cmd_quote(c, g.arg));
        rc = 1;
        goto out;
      }
      s.slen = (size_t)v;
      s.autowiden = 0;
      break;
    }
    case SPLIT_O_ADDSUF:
      if (strchr(g.arg, '/')) {
        cmd_err(c, "invalid suffix %s, contains directory separator",
                cmd_quote(c, g.arg));
        rc = 1;
        goto out;
      }
      s.addsuf = g.arg;
      break;
    case 'd':
    case 'x':
    case SPLIT_O_NUMSUF:
    case SPLIT_O_HEXSUF:
      s.alpha = (opt == 'x' || opt == SPLIT_O_HEXSUF) ? "0123456789abcdef"
                                                      : "0123456789";
      if (g.arg) {
        int64_t v;
        if (cmd_parse_int(g.arg, &v) || v < 0) {
          cmd_err(c, "invalid start value for numerical suffix: %s",
                  cmd_quote(c, g.arg));
          rc = 1;
          goto out;
        }
        from = (uint64_t)v;
      }
      break;
    case 'e': elide = 1; break;
    case CMD_OPT_NUM:
    case 'l':
      mode = 'l';
      if (split_size(c, g.arg, "lines", &count)) {
        rc = 1;
        goto out;
      }
      break;
    case 'b':
    case 'C':
      mode = opt;
      if (split_size(c, g.arg, "bytes", &count)) {
        rc = 1;
        goto out;
      }
      break;
    case 'n': {
      const char *p = g.arg;
      int64_t v;
      char *slash;
      mode = 'n';
      if (!strncmp(p, "l/", 2)) {
        mode = 'L';
        p += 2;
      } else if (!strncmp(p, "r/", 2)) {
        cmd_err(c, "-n r/N (round robin) is not supported in memsandbox");
        rc = 1;
        goto out;
      }
      slash = strchr(p, '/');
      if (slash) {
        char *k = arena_strndup(c->a, p, (size_t)(slash - p));
        if (!k || cmd_parse_int(k, &v) || v < 1) {
          cmd_err(c, "invalid chunk number: %s", cmd_quote(c, k ? k : p));
          rc = 1;
          goto out;
        }
        which = (uint64_t)v;
        p = slash + 1;
      }
      if (cmd_parse_int(p, &v) || v < 1) {
        cmd_err(c, "invalid number of chunks: %s", cmd_quote(c, p));
        rc = 1;
        goto out;
      }
      chunks = (uint64_t)v;
      if (which > chunks) {
        cmd_err(c, "invalid chunk number: %s", cmd_quote(c, g.arg));
        rc = 1;
        goto out;
      }
      break;
    }
    case 't':
      if (g.arg[0] && g.arg[1] && strcmp(g.arg, "\\0")) {
        cmd_err(c, "multi-character separator %s", cmd_quote(c, g.arg));
        rc = 1;
        goto out;
      }
      sep = g.arg[1] ? 0 : (unsigned char)g.arg[0];
      break;
    case SPLIT_O_VERBOSE: s.verbose = 1; break;
    default:
      if (opt < 0) {
        rc = 1;
        goto out;
      }
      break;
    }
  }
  s.alen = strlen(s.alpha);
  if (g.nops > 2) {
    rc = cmd_usage_err(&g, "extra operand %s", cmd_quote(c, g.ops[2]));
    goto out;
  }
  if (g.nops >= 1) in = g.ops[0];
  buf_puts(&s.base, g.nops >= 2 ? g.ops[1] : "x");
  if (from) {
    /* Start value: write it into the suffix digits. */
    size_t i = s.slen;
    uint64_t v = from;
    while (i > 0) {
      s.idx[--i] = (size_t)(v % s.alen);
      v /= s.alen;
    }
    if (v) {
      cmd_err(c,
              "numerical suffix start value is too large for the "
              "suffix length");
      rc = 1;
      goto out;
    }
    s.autowiden = 0;
  }
  if (chunks && !which) {
    /* Enough suffix length for the chunk count, as GNU computes. */
    uint64_t cap = 1;
    size_t need = 0;
    while (cap < chunks + from) {
      cap *= strlen(s.alpha);
      need++;
    }
    if (need > s.slen) s.slen = need;
    s.autowiden = 0;
  }
  rc = cmd_input(c, in, &d, &len);
  if (rc == MSB_EISDIR) { /* opened, then the read failed */
    cmd_err(c, "%s: %s", cmd_quotef(c, in), cmd_strerror(rc));
    rc = 1;
    goto out;
  }
  if (rc < 0) {
    cmd_err(c, "cannot open %s for reading: %s", cmd_quote(c, in),
            cmd_strerror(rc));
    rc = 1;
    goto out;
  }
  rc = 0;
  if (mode == 'n' || mode == 'L') {
    uint64_t k;
    size_t st = 0;
    for (k = 1; k <= chunks && rc == 0; k++) {
      size_t e = split_chunk_end(d, len, k, chunks, mode == 'L', sep);
      if (e < st) e = st;
      if (which) {
        if (k == which) buf_put(c->out, d + st, e - st);
      } else if (!(elide && e == st)) {
        rc = split_write(&s, d + st, e - st);
      }
      st = e;
    }
  } else {
    size_t pos = 0;
    while (pos < len && rc == 0) {
      size_t e;
      if (mode == 'b') {
        e = (uint64_t)(len - pos) < count ? len : pos + (size_t)count;
      } else if (mode == 'C') {
        /* Whole records up to count bytes; a longer record is cut. */
        size_t lim = (uint64_t)(len - pos) < count ? len : pos + (size_t)count;
        const uint8_t *q;
        e = pos;
        while (e < lim && (q = memchr(d + e, sep, lim - e)) != NULL)
          e = (size_t)(q - d) + 1;
        if (lim == len) e = len;
        if (e == pos) e = lim;
      } else {
        uint64_t n = 0;
        const uint8_t *q;
        e = pos;
        while (n < count && e < len) {
          q = memchr(d + e, sep, len - e);
          e = q ? (size_t)(q - d) + 1 : len;
          n++;
        }
      }
      rc = split_write(&s, d + pos, e - pos);
      pos = e;
      if (rc == 0) rc = cmd_tick(c, 1);
    }
  }
out:
  buf_finish(&s.base);
  return rc;
}
