/* gzip.c - compress or expand files (GNU gzip 1.12): gzip, gunzip, zcat.
 *
 * Usage: gzip [OPTION]... [FILE]...
 *   -c stdout  -d decompress  -f force  -k keep  -l list  -n no name/time
 *   -N save/restore name and time  -q quiet  -t test  -v verbose
 *   -1..-9 (--fast, --best) level  -S SUF suffix
 * gunzip is gzip -d, zcat is gzip -dc. Compression writes a gzip member
 * with the original name and mtime (unless -n) through archive.c; the
 * output file takes the input's mode and mtime and the input is removed
 * unless -k or -c. Decompression accepts concatenated members; trailing
 * zero bytes are ignored silently and other trailing bytes warn (exit 2).
 * Messages, the -l table and the -v ratios follow GNU gzip, including the
 * blank line GNU prints before a decompression error.
 * -N on decompression restores the stored name's last component, in the
 * input's directory, as GNU does, so a name in the data never reaches
 * another directory. Deviations: -r (recursive) is refused with a
 * message; a stored name that is empty or ends in '/' is ignored (GNU
 * fails on it). */
#include <stdarg.h>
#include <string.h>

#include "../archive.h"
#include "../cold.h"
#include "cmd.h"

static const char gzip_usage[] MSB_COLD =
    "Usage: gzip [OPTION]... [FILE]...\n"
    "Compress or uncompress FILEs (by default, compress FILES in-place).\n"
    "\n"
    "Mandatory arguments to long options are mandatory for short options "
    "too.\n"
    "\n"
    "  -c, --stdout      write on standard output, keep original files "
    "unchanged\n"
    "  -d, --decompress  decompress\n"
    "  -f, --force       force overwrite of output file and compress links\n"
    "  -k, --keep        keep (don't delete) input files\n"
    "  -l, --list        list compressed file contents\n"
    "  -n, --no-name     do not save or restore the original name and "
    "timestamp\n"
    "  -N, --name        save or restore the original name and timestamp\n"
    "  -q, --quiet       suppress all warnings\n"
    "  -S, --suffix=SUF  use suffix SUF on compressed files\n"
    "  -t, --test        test compressed file integrity\n"
    "  -v, --verbose     verbose mode\n"
    "  -1, --fast        compress faster\n"
    "  -9, --best        compress better\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n";

enum { GZ_OPT_NOSUB = 256 };

static const cmd_opt gzip_opts[] = {{'c', "stdout", CMD_ARG_NONE, 'c'},
                                    {'d', "decompress", CMD_ARG_NONE, 'd'},
                                    {0, "uncompress", CMD_ARG_NONE, 'd'},
                                    {'f', "force", CMD_ARG_NONE, 'f'},
                                    {'k', "keep", CMD_ARG_NONE, 'k'},
                                    {'l', "list", CMD_ARG_NONE, 'l'},
                                    {'n', "no-name", CMD_ARG_NONE, 'n'},
                                    {'N', "name", CMD_ARG_NONE, 'N'},
                                    {'q', "quiet", CMD_ARG_NONE, 'q'},
                                    {'r', "recursive", CMD_ARG_NONE, 'r'},
                                    {'S', "suffix", CMD_ARG_REQ, 'S'},
                                    {'t', "test", CMD_ARG_NONE, 't'},
                                    {'v', "verbose", CMD_ARG_NONE, 'v'},
                                    {'1', "fast", CMD_ARG_NONE, '1'},
                                    {'2', 0, CMD_ARG_NONE, '2'},
                                    {'3', 0, CMD_ARG_NONE, '3'},
                                    {'4', 0, CMD_ARG_NONE, '4'},
                                    {'5', 0, CMD_ARG_NONE, '5'},
                                    {'6', 0, CMD_ARG_NONE, '6'},
                                    {'7', 0, CMD_ARG_NONE, '7'},
                                    {'8', 0, CMD_ARG_NONE, '8'},
                                    {'9', "best", CMD_ARG_NONE, '9'},
                                    {0, 0, 0, 0}};

typedef struct gzip_st {
  cmd_ctx *c;
  int dec, tostdout, force, keep, list, noname, name, quiet, test, verbose;
  int level, status;
  const char *suf;
  /* -l totals */
  uint64_t tot_c, tot_u, last_hdr;
  int listed;
} gzip_st;

/* gunzip and zcat are gzip in GNU (shell wrappers), so every message
 * says "gzip:". */
static void gzip_err(gzip_st *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void gzip_err(gzip_st *s, const char *fmt, ...) {
  va_list ap;
  buf_puts(s->c->err, "gzip: ");
  va_start(ap, fmt);
  buf_vprintf(s->c->err, fmt, ap);
  va_end(ap);
  buf_putc(s->c->err, '\n');
}

static void gzip_warn(gzip_st *s) {
  if (s->status == 0) s->status = 2;
}

/* "%5.1f%%" of GNU's display_ratio. */
static void gzip_ratio(buf *b, uint64_t packed, uint64_t num, uint64_t den) {
  double r = den ? 100.0 * ((double)num - (double)packed) / (double)den : 0.0;
  buf_printf(b, "%5.1f%%", r);
}

/* Bytes of a member that are not deflate data: header, name, trailer. */
static uint64_t gzip_overhead(const uint8_t *d, size_t n) {
  size_t p = 10;
  uint8_t flg;
  if (n < 18) return n;
  flg = d[3];
  if ((flg & 4) && n - p >= 2) p += 2 + ((size_t)d[p] | (size_t)d[p + 1] << 8);
  if ((flg & 8) && p < n) {
    const uint8_t *z = memchr(d + p, 0, n - p);
    p = z ? (size_t)(z - d) + 1 : n;
  }
  if ((flg & 16) && p < n) {
    const uint8_t *z = memchr(d + p, 0, n - p);
    p = z ? (size_t)(z - d) + 1 : n;
  }
  if (flg & 2) p += 2;
  return p + 8 > n ? n : p + 8;
}

/* The output name for decompressing name, or NULL (unknown suffix). */
static char *gzip_unsuffix(gzip_st *s, const char *name) {
  static const char *const sufs[] = {".gz", "-gz", ".z", "-z", "_z"};
  size_t n = strlen(name), i, k;
  if (s->suf) {
    k = strlen(s->suf);
    if (k && n > k && !strcmp(name + n - k, s->suf))
      return arena_strndup(s->c->a, name, n - k);
  }
  for (i = 0; i < sizeof sufs / sizeof sufs[0]; i++) {
    k = strlen(sufs[i]);
    if (n > k && !strcmp(name + n - k, sufs[i]) && name[n - k - 1] != '/')
      return arena_strndup(s->c->a, name, n - k);
  }
  if (n > 4 &&
      (!strcmp(name + n - 4, ".tgz") || !strcmp(name + n - 4, ".taz"))) {
    char *o = arena_alloc(s->c->a, n + 1);
    if (!o) return NULL;
    memcpy(o, name, n - 4);
    memcpy(o + n - 4, ".tar", 5);
    return o;
  }
  return NULL;
}

/* With -N, the name stored in the first member's header, as GNU gzip
 * restores it: its last component only (so data never names a file
 * elsewhere), in the input's directory. NULL when there is none. */
static char *gzip_stored_name(gzip_st *s, const char *op, const uint8_t *d,
                              size_t n) {
  const uint8_t *nm, *z, *base;
  size_t p = 10, dl;
  char *o;
  if (!s->name || n < 10 || !(d[3] & 8)) return NULL;
  if ((d[3] & 4) && n - p >= 2) p += 2 + ((size_t)d[p] | (size_t)d[p + 1] << 8);
  if (p >= n || !(z = memchr(d + p, 0, n - p))) return NULL;
  nm = d + p;
  for (base = z; base > nm && base[-1] != '/'; base--) {
  }
  if (base == z) return NULL; /* empty, or ends in '/' */
  dl = strrchr(op, '/') ? (size_t)(strrchr(op, '/') - op) + 1 : 0;
  o = arena_alloc(s->c->a, dl + (size_t)(z - base) + 1);
  if (!o) return NULL;
  memcpy(o, op, dl);
  memcpy(o + dl, base, (size_t)(z - base));
  o[dl + (size_t)(z - base)] = 0;
  return o;
}

/* Prints a decompression error in GNU's form (leading blank line). */
static void gzip_derr(gzip_st *s, const char *disp, const char *why) {
  buf_printf(s->c->err, "\ngzip: %s: %s\n", disp, why);
}

/* What one input byte costs in the step budget, in CMD_BYTES_PER_STEP
 * bytes: deflating it takes about 30 times as long as copying it, inflating
 * about 8 (measured in wasm, 2026-12-02: 3.9 ms to deflate 1 MB). */
#define GZIP_DEFLATE_COST 32u
#define GZIP_INFLATE_COST 8u

static int gzip_one(gzip_st *s, const char *op) {
  cmd_ctx *c = s->c;
  const char *disp = op, *abs = NULL, *outp = NULL;
  const uint8_t *d;
  size_t n;
  struct vfs_stat st;
  int rc, is_stdin = !strcmp(op, "-");
  int to_out = s->tostdout || is_stdin || s->test || s->list;
  memset(&st, 0, sizeof st);
  if (is_stdin) {
    disp = "stdin";
    d = c->in;
    n = c->in_len;
    c->in_used = c->in_len;
    c->in_eof = 1;
  } else {
    abs = cmd_path(c, op);
    if (!abs) return MSB_ENOMEM;
    rc = vfs_stat(c->fs, abs, 1, &st);
    if (rc == MSB_ENOENT && s->dec && !gzip_unsuffix(s, op)) {
      /* "gunzip a" finds a.gz */
      const char *alt = arena_alloc(c->a, strlen(op) + 4);
      if (!alt) return MSB_ENOMEM;
      memcpy((char *)alt, op, strlen(op));
      memcpy((char *)alt + strlen(op), ".gz", 4);
      disp = op = alt;
      abs = cmd_path(c, op);
      if (!abs) return MSB_ENOMEM;
      rc = vfs_stat(c->fs, abs, 1, &st);
    }
    if (rc) {
      gzip_err(s, "%s: %s", disp, cmd_strerror(rc));
      s->status = 1;
      return 0;
    }
    if (st.kind == VFS_DIR) {
      if (!s->quiet) gzip_err(s, "%s is a directory -- ignored", disp);
      gzip_warn(s);
      return 0;
    }
    rc = vfs_read(c->fs, abs, &d, &n);
    if (rc) {
      gzip_err(s, "%s: %s", disp, cmd_strerror(rc));
      s->status = 1;
      return 0;
    }
  }
  rc = cmd_charge_bytes(
      c, (uint64_t)n * (s->dec ? GZIP_INFLATE_COST : GZIP_DEFLATE_COST));
  if (rc) return rc;
  if (!s->dec) {
    buf z;
    size_t k = strlen(op), sk = strlen(s->suf ? s->suf : ".gz");
    const char *suf = s->suf ? s->suf : ".gz";
    const char *base = is_stdin ? NULL : cmd_base_name(c, op);
    int named = !is_stdin && !s->noname;
    if (!is_stdin && !s->force && !s->tostdout && k > sk &&
        !strcmp(op + k - sk, suf)) {
      if (!s->quiet) /* a warning that leaves the status alone */
        gzip_err(s, "%s already has %s suffix -- unchanged", op, suf);
      return 0;
    }
    if (!to_out) {
      char *o = arena_alloc(c->a, k + sk + 1);
      struct vfs_stat ost;
      if (!o) return MSB_ENOMEM;
      memcpy(o, op, k);
      memcpy(o + k, suf, sk + 1);
      outp = o;
      if (!s->force && vfs_stat(c->fs, cmd_path(c, outp), 0, &ost) == 0) {
        gzip_err(s, "%s already exists;\tnot overwritten", outp);
        gzip_warn(s);
        return 0;
      }
    }
    buf_init(&z, c->m);
    rc = arc_gzip(c->m, d, n, s->level, named ? base : NULL,
                  named ? (uint32_t)cmd_ns_to_s(st.mtime_ns) : 0, &z);
    if (rc) {
      buf_finish(&z);
      return rc;
    }
    if (s->verbose && !s->quiet) {
      if (!is_stdin) buf_printf(c->err, "%s:\t", disp);
      gzip_ratio(c->err, z.len - gzip_overhead((const uint8_t *)z.p, z.len), n,
                 n);
      if (is_stdin)
        buf_putc(c->err, '\n');
      else if (to_out)
        buf_puts(c->err, " -- replaced with stdout\n");
      else
        buf_printf(c->err, " -- replaced with %s\n", outp);
    }
    if (to_out) {
      rc = cmd_write(c, z.p, z.len);
    } else {
      const char *oabs = cmd_path(c, outp);
      rc = oabs ? vfs_write(c->fs, oabs, z.p, z.len, 0, st.mode, NULL)
                : MSB_ENOMEM;
      if (!rc) {
        vfs_chmod(c->fs, oabs, st.mode);
        vfs_utime(c->fs, oabs, st.mtime_ns, 0);
        if (!s->keep) vfs_remove(c->fs, abs, VFS_RM_NODIR);
      } else if (rc != MSB_ENOMEM) {
        gzip_err(s, "%s: %s", outp, cmd_strerror(rc));
        s->status = 1;
        rc = 0;
      }
    }
    buf_finish(&z);
    return rc;
  }
  /* decompress, test or list */
  {
    buf u;
    arc_gz_info gi;
    arc_limits lim;
    const char *why = NULL;
    char *outname = NULL, *stored;
    uint64_t packed;
    if (!to_out) {
      outname = gzip_unsuffix(s, op);
      if (!outname) {
        if (!s->quiet) gzip_err(s, "%s: unknown suffix -- ignored", op);
        gzip_warn(s);
        return 0;
      }
      stored = gzip_stored_name(s, op, d, n);
      if (stored) outname = stored;
      if (!s->force && vfs_stat(c->fs, cmd_path(c, outname), 0, &st) == 0) {
        gzip_err(s, "%s already exists;\tnot overwritten", outname);
        gzip_warn(s);
        return 0;
      }
      vfs_stat(c->fs, abs, 1, &st);
    }
    memset(&lim, 0, sizeof lim);
    lim.max_in = (uint64_t)-1;
    lim.max_out = to_out && !s->test && !s->list && c->out_max
                      ? c->out_max + 1
                      : c->lim->max_file_bytes;
    if (s->test || s->list) lim.max_out = c->lim->max_total_bytes;
    if (s->force && to_out && !s->test && !s->list && !arc_is_gzip(d, n))
      return cmd_write(c, d, n); /* zcat -f: not compressed, copied */
    buf_init(&u, c->m);
    packed = n - gzip_overhead(d, n); /* d goes stale once we write */
    if (n == 0) {
      rc = MSB_ECORRUPT;
      why = "unexpected end of file";
    } else {
      rc = arc_gunzip(d, n, &lim, &u, &gi, &why);
    }
    if (rc == MSB_ENOMEM) {
      buf_finish(&u);
      return rc;
    }
    if (s->list) {
      if (rc) {
        gzip_derr(s, disp, why);
        s->status = 1;
      } else {
        const char *un = is_stdin ? "" : gzip_stored_name(s, op, d, n);
        if (!un && !is_stdin) un = gzip_unsuffix(s, op);
        uint64_t hdr = gzip_overhead(d, n);
        if (!s->listed)
          cmd_puts(c,
                   "         compressed        uncompressed  ratio "
                   "uncompressed_name\n");
        cmd_outf(c, "%19llu %19llu ", (unsigned long long)n,
                 (unsigned long long)gi.isize);
        gzip_ratio(c->out, n - hdr, gi.isize, gi.isize);
        cmd_outf(c, " %s\n", un ? un : op);
        s->tot_c += n;
        s->tot_u += gi.isize;
        s->last_hdr = hdr;
        s->listed++;
      }
      buf_finish(&u);
      return 0;
    }
    if (s->verbose && !s->quiet && (s->test || rc) && !is_stdin)
      buf_printf(c->err, "%s:\t", disp);
    if (rc) {
      if (to_out && !s->test && u.len) cmd_write(c, u.p, u.len);
      gzip_derr(s, disp, why);
      s->status = 1;
      buf_finish(&u);
      return 0;
    }
    if (gi.trailing == 2) {
      if (!s->quiet)
        gzip_derr(s, disp, "decompression OK, trailing garbage ignored");
      gzip_warn(s);
    }
    if (s->test) {
      if (s->verbose && !s->quiet) buf_puts(c->err, " OK\n");
    } else if (to_out) {
      if (s->verbose && !s->quiet && !is_stdin) {
        buf_printf(c->err, "%s:\t", disp);
        gzip_ratio(c->err, packed, u.len, u.len);
        buf_puts(c->err, " -- replaced with stdout\n");
      }
      rc = cmd_write(c, u.p, u.len);
    } else {
      const char *oabs = cmd_path(c, outname);
      struct vfs_stat ist;
      vfs_stat(c->fs, abs, 1, &ist);
      rc = oabs ? vfs_write(c->fs, oabs, u.p, u.len, 0, ist.mode, NULL)
                : MSB_ENOMEM;
      if (!rc) {
        vfs_chmod(c->fs, oabs, ist.mode);
        vfs_utime(
            c->fs, oabs,
            s->name && gi.mtime ? (int64_t)gi.mtime * 1000000000 : ist.mtime_ns,
            0);
        if (!s->keep) vfs_remove(c->fs, abs, VFS_RM_NODIR);
        if (s->verbose && !s->quiet) {
          buf_printf(c->err, "%s:\t", disp);
          gzip_ratio(c->err, packed, u.len, u.len);
          buf_printf(c->err, " -- replaced with %s\n", outname);
        }
      } else if (rc != MSB_ENOMEM) {
        gzip_err(s, "%s: %s", outname, cmd_strerror(rc));
        s->status = 1;
        rc = 0;
      }
    }
    buf_finish(&u);
    return rc;
  }
}

/* gzip, gunzip and zcat. */
int cmd_gzip(cmd_ctx *c) {
  cmd_getopt g;
  gzip_st s;
  const char *nm = cmd_name(c);
  int k, i, rc;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.level = ARC_GZ_LEVEL;
  if (!strcmp(nm, "gunzip")) s.dec = 1;
  if (!strcmp(nm, "zcat")) s.dec = s.tostdout = 1;
  cmd_opt_init(&g, c, gzip_opts, gzip_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'c': s.tostdout = 1; break;
    case 'd': s.dec = 1; break;
    case 'f': s.force = 1; break;
    case 'k': s.keep = 1; break;
    case 'l': s.list = 1; break;
    case 'n':
      s.noname = 1;
      s.name = 0;
      break;
    case 'N':
      s.name = 1;
      s.noname = 0;
      break;
    case 'q':
      s.quiet = 1;
      s.verbose = 0;
      break;
    case 'r':
      gzip_err(&s, "-r (recursive) is not supported in this sandbox");
      return 1;
    case 'S':
      if (!g.arg[0] || strchr(g.arg, '/')) {
        gzip_err(&s, "invalid suffix '%s'", g.arg);
        return 1;
      }
      s.suf = g.arg;
      break;
    case 't': s.test = 1; break;
    case 'v':
      s.verbose = 1;
      s.quiet = 0;
      break;
    default: s.level = k - '0'; break;
    }
  }
  if (k == CMD_OPT_ERR) return g.status;
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k;
  if (s.list || s.test) s.dec = 1;
  if (g.nops == 0) {
    rc = gzip_one(&s, "-");
    if (rc < 0) return rc;
  }
  for (i = 0; i < g.nops; i++) {
    rc = gzip_one(&s, g.ops[i]);
    if (rc < 0) return rc;
  }
  if (s.list && s.listed > 1) {
    cmd_outf(c, "%19llu %19llu ", (unsigned long long)s.tot_c,
             (unsigned long long)s.tot_u);
    gzip_ratio(c->out, s.tot_c - s.last_hdr, s.tot_u, s.tot_u);
    cmd_puts(c, " (totals)\n");
  }
  return s.status;
}
