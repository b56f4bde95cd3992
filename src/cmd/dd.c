/* dd.c - convert and copy a file (GNU coreutils 9).
 *
 * Operands if= of= bs= ibs= obs= count= skip= (iseek=) seek= (oseek=)
 * conv= status= with GNU's block accounting: input is read in ibs blocks
 * (the last may be partial), and written as read when bs= is given, else
 * regrouped into obs blocks; the "N+M records in/out" lines count full
 * and partial blocks. Reads of stdin return whole blocks, as a regular
 * file's do. The transfer line's time and rate come from the sandbox
 * clock, which does not move while dd runs: "0 s, Infinity B/s".
 *
 * if=/dev/zero, /dev/urandom and /dev/random (not in the VFS) give count=
 * blocks of zeros or of the sandbox's random bytes; without count= they
 * are refused by name rather than read forever.
 *
 * conv= supports notrunc, ucase, lcase, sync, swab, excl, nocreat,
 * noerror, fsync and fdatasync (the other conversions are refused by
 * name); iflag=count_bytes,skip_bytes and oflag=seek_bytes,append change
 * the copy as GNU's, the I/O tuning flags (fullblock, direct, sync ...)
 * are accepted and change nothing: reads are always whole.
 *
 * Usage: dd [OPERAND]... */
#include <stdio.h>
#include <string.h>

#include "../cold.h"
#include "../rng.h"
#include "cmd.h"

static const char dd_usage[] MSB_COLD =
    "Usage: dd [OPERAND]...\n"
    "  or:  dd OPTION\n"
    "Copy a file, converting and formatting according to the operands.\n"
    "\n"
    "  bs=BYTES        read and write up to BYTES bytes at a time "
    "(default: 512);\n"
    "                  overrides ibs and obs\n"
    "  conv=CONVS      convert the file as per the comma separated symbol "
    "list\n"
    "  count=N         copy only N input blocks\n"
    "  ibs=BYTES       read up to BYTES bytes at a time (default: 512)\n"
    "  if=FILE         read from FILE instead of stdin\n"
    "  obs=BYTES       write BYTES bytes at a time (default: 512)\n"
    "  of=FILE         write to FILE instead of stdout\n"
    "  seek=N          (or oseek=N) skip N obs-sized output blocks\n"
    "  skip=N          (or iseek=N) skip N ibs-sized input blocks\n"
    "  status=LEVEL    The LEVEL of information to print to stderr;\n"
    "                  'none' suppresses everything but error messages,\n"
    "                  'noxfer' suppresses the final transfer statistics,\n"
    "                  'progress' shows periodic transfer statistics\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt dd_opts[] = {{0, 0, 0, 0}};

/* conv= flags, one bit each, in dd_convs' order. */
enum {
  DD_NOTRUNC = 1,
  DD_UCASE = 2,
  DD_LCASE = 4,
  DD_SYNC = 8,
  DD_SWAB = 16,
  DD_EXCL = 32,
  DD_NOCREAT = 64,
  DD_IGNORED = 128
};

static const struct {
  const char *name;
  unsigned bit;
} dd_convs[] = {{"notrunc", DD_NOTRUNC}, {"ucase", DD_UCASE},
                {"lcase", DD_LCASE},     {"sync", DD_SYNC},
                {"swab", DD_SWAB},       {"excl", DD_EXCL},
                {"nocreat", DD_NOCREAT}, {"noerror", DD_IGNORED},
                {"fsync", DD_IGNORED},   {"fdatasync", DD_IGNORED}};

typedef struct dd_args {
  const char *in, *out;
  uint64_t ibs, obs, count, skip, seek;
  int bs, has_count, status; /* status: 0 default, 1 noxfer, 2 none */
  unsigned conv;
  int count_bytes, skip_bytes, seek_bytes, append; /* iflag= / oflag= */
} dd_args;

/* Prints "dd: MSG 'ARG'\nTry..." and returns 1. */
static int dd_bad(cmd_getopt *g, const char *what, const char *arg) {
  return cmd_usage_err(g, "%s: %s", what, cmd_quote(g->c, arg));
}

/* conv=a,b,c into a->conv; 0 or a usage error's status. */
static int dd_parse_conv(cmd_getopt *g, dd_args *a, const char *v) {
  while (*v) {
    size_t n = strcspn(v, ","), i;
    for (i = 0; i < sizeof dd_convs / sizeof *dd_convs; i++)
      if (strlen(dd_convs[i].name) == n && !strncmp(dd_convs[i].name, v, n))
        break;
    if (i == sizeof dd_convs / sizeof *dd_convs) {
      const char *w = arena_strndup(g->c->a, v, n);
      if (w && (!strcmp(w, "ascii") || !strcmp(w, "ebcdic") ||
                !strcmp(w, "ibm") || !strcmp(w, "block") ||
                !strcmp(w, "unblock") || !strcmp(w, "sparse"))) {
        cmd_err(g->c, "conv=%s is not supported in memsandbox", w);
        return 1;
      }
      return dd_bad(g, "invalid conversion", w ? w : "");
    }
    a->conv |= dd_convs[i].bit;
    v += n + (v[n] == ',');
  }
  if ((a->conv & DD_UCASE) && (a->conv & DD_LCASE)) {
    cmd_err(g->c, "cannot combine lcase and ucase");
    return 1;
  }
  return 0;
}

/* iflag=/oflag=: the flags that change what is copied, and those that
 * only tune I/O (accepted and ignored: the VFS has one speed). */
static int dd_parse_flags(cmd_getopt *g, dd_args *a, int in, const char *v) {
  static const char *const tuning[] = {
      "fullblock", "direct", "dsync",    "sync",   "nonblock", "noatime",
      "nocache",   "noctty", "nofollow", "binary", "text",     0};
  while (*v) {
    size_t n = strcspn(v, ","), i;
    const char *w = arena_strndup(g->c->a, v, n);
    int ok = 0;
    if (!w) return MSB_ENOMEM;
    for (i = 0; tuning[i]; i++) ok |= !strcmp(w, tuning[i]);
    /* GNU takes each flag on either side; it acts only on its own */
    if (!strcmp(w, "count_bytes")) ok = 1, a->count_bytes |= in;
    if (!strcmp(w, "skip_bytes")) ok = 1, a->skip_bytes |= in;
    if (!strcmp(w, "seek_bytes")) ok = 1, a->seek_bytes |= !in;
    if (!strcmp(w, "append")) ok = 1, a->append |= !in;
    if (!ok)
      return dd_bad(g, in ? "invalid input flag" : "invalid output flag", w);
    v += n + (v[n] == ',');
  }
  return 0;
}

/* A size operand with dd's suffixes; 0 or an error status. */
static int dd_num(cmd_getopt *g, const char *v, int block, uint64_t *out) {
  if (cmd_parse_size(v, CMD_SZ_B | CMD_SZ_BYTES, out) || (block && *out == 0)) {
    cmd_err(g->c, "invalid number: %s", cmd_quote(g->c, v));
    return 1;
  }
  return 0;
}

/* One KEY=VALUE operand. */
static int dd_operand(cmd_getopt *g, dd_args *a, const char *op) {
  const char *eq = strchr(op, '='), *v;
  size_t kl;
  uint64_t n;
  int rc;
  if (!eq)
    return cmd_usage_err(g, "unrecognized operand %s", cmd_quote(g->c, op));
  kl = (size_t)(eq - op);
  v = eq + 1;
#define DD_KEY(s) (kl == sizeof(s) - 1 && !strncmp(op, s, kl))
  if (DD_KEY("if"))
    a->in = v;
  else if (DD_KEY("of"))
    a->out = v;
  else if (DD_KEY("conv"))
    return dd_parse_conv(g, a, v);
  else if (DD_KEY("iflag") || DD_KEY("oflag"))
    return dd_parse_flags(g, a, *op == 'i', v);
  else if (DD_KEY("status")) {
    if (!strcmp(v, "none"))
      a->status = 2;
    else if (!strcmp(v, "noxfer"))
      a->status = 1;
    else if (!strcmp(v, "progress"))
      a->status = 0;
    else
      return dd_bad(g, "invalid status level", v);
  } else if (DD_KEY("bs") || DD_KEY("ibs") || DD_KEY("obs")) {
    if ((rc = dd_num(g, v, 1, &n))) return rc;
    if (*op == 'b')
      a->ibs = a->obs = n, a->bs = 1;
    else if (*op == 'i')
      a->ibs = n;
    else
      a->obs = n;
  } else if (DD_KEY("count") || DD_KEY("skip") || DD_KEY("iseek") ||
             DD_KEY("seek") || DD_KEY("oseek")) {
    if ((rc = dd_num(g, v, 0, &n))) return rc;
    if (*op == 'c')
      a->count = n, a->has_count = 1;
    else if (*op == 'i' || op[1] == 'k')
      a->skip = n;
    else
      a->seek = n;
  } else {
    return cmd_usage_err(g, "unrecognized operand %s", cmd_quote(g->c, op));
  }
#undef DD_KEY
  return 0;
}

/* "1.0 kB" as GNU's human_readable rounds to nearest (base 1000/1024). */
static void dd_human(uint64_t n, unsigned base, const char *const *units,
                     char *out, size_t cap) {
  double x = (double)n;
  int k = 0;
  while (x >= base && units[k + 1]) {
    x /= base;
    k++;
  }
  if (x < 10 && (double)(int)(x * 10 + 0.5) / 10 < 10)
    snprintf(out, cap, "%.1f %s", (double)(int)(x * 10 + 0.5) / 10, units[k]);
  else
    snprintf(out, cap, "%.0f %s", (double)(uint64_t)(x + 0.5), units[k]);
}

/* The three summary lines GNU prints on stderr. */
static void dd_summary(cmd_ctx *c, const dd_args *a, const uint64_t rec[4],
                       uint64_t bytes) {
  static const char *const si[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB", 0};
  static const char *const iec[] = {"B",   "KiB", "MiB", "GiB",
                                    "TiB", "PiB", "EiB", 0};
  char h1[32], h2[32];
  if (a->status == 2) return;
  buf_printf(c->err, "%llu+%llu records in\n%llu+%llu records out\n",
             (unsigned long long)rec[0], (unsigned long long)rec[1],
             (unsigned long long)rec[2], (unsigned long long)rec[3]);
  if (a->status == 1) return;
  buf_printf(c->err, "%llu byte%s ", (unsigned long long)bytes,
             bytes == 1 ? "" : "s");
  if (bytes >= 1000) {
    dd_human(bytes, 1000, si, h1, sizeof h1);
    dd_human(bytes, 1024, iec, h2, sizeof h2);
    if (bytes >= 1024)
      buf_printf(c->err, "(%s, %s) ", h1, h2);
    else
      buf_printf(c->err, "(%s) ", h1);
  }
  buf_puts(c->err, "copied, 0 s, Infinity B/s\n");
}

/* Applies conv= to one input block in place. */
static void dd_convert(unsigned conv, uint8_t *p, size_t n) {
  size_t i;
  if (conv & DD_SWAB)
    for (i = 0; i + 1 < n; i += 2) {
      uint8_t t = p[i];
      p[i] = p[i + 1];
      p[i + 1] = t;
    }
  for (i = 0; i < n; i++) {
    if ((conv & DD_UCASE) && p[i] >= 'a' && p[i] <= 'z') p[i] -= 32;
    if ((conv & DD_LCASE) && p[i] >= 'A' && p[i] <= 'Z') p[i] += 32;
  }
}

/* Reads the input and converts it block by block into o; fills rec[0..1]. */
static int dd_copy_in(cmd_ctx *c, const dd_args *a, const uint8_t *d,
                      size_t len, buf *o, uint64_t rec[4]) {
  uint64_t blocks = 0;
  size_t pos = 0;
  if (a->has_count && a->count_bytes && a->count < len) len = (size_t)a->count;
  while (pos < len && (!a->has_count || a->count_bytes || blocks < a->count)) {
    size_t n = len - pos < a->ibs ? len - pos : (size_t)a->ibs;
    size_t at = o->len;
    int rc;
    rec[n == a->ibs ? 0 : 1]++;
    if (buf_put(o, d + pos, n)) return MSB_ENOMEM;
    dd_convert(a->conv, (uint8_t *)o->p + at, n);
    if ((a->conv & DD_SYNC) && n < a->ibs) {
      size_t pad = (size_t)a->ibs - n;
      if (buf_reserve(o, pad)) return MSB_ENOMEM;
      memset(o->p + o->len, 0, pad);
      o->len += pad;
    }
    /* with bs=, each block read is written as one record */
    if (a->bs) rec[(a->conv & DD_SYNC) || n == a->ibs ? 2 : 3]++;
    pos += n;
    blocks++;
    if ((rc = cmd_charge_bytes(c, n))) return rc;
  }
  if (!a->bs) {
    rec[2] = o->len / a->obs;
    rec[3] = o->len % a->obs ? 1 : 0;
  }
  return 0;
}

/* Opens of= as GNU does before copying: its current content (NULL when
 * it is to be created). 0, 1 (reported) or a negative code. */
static int dd_open_out(cmd_ctx *c, const dd_args *a, const uint8_t **old,
                       size_t *olen) {
  const char *abs = cmd_path(c, a->out);
  struct vfs_stat st;
  int rc;
  *old = NULL;
  *olen = 0;
  if (!abs) return MSB_ENOMEM;
  rc = vfs_stat(c->fs, abs, 1, &st);
  if (rc == 0 && (a->conv & DD_EXCL))
    rc = MSB_EEXIST;
  else if (rc == MSB_ENOENT && !(a->conv & DD_NOCREAT))
    rc = 0;
  else if (rc == 0 && st.kind == VFS_DIR)
    rc = MSB_EISDIR;
  else if (rc == 0)
    rc = vfs_read(c->fs, abs, old, olen);
  if (rc < 0) {
    if (rc == MSB_ENOMEM || rc == MSB_ELIMIT) return rc;
    cmd_err(c, "failed to open %s: %s", cmd_quote(c, a->out), cmd_strerror(rc));
    return 1;
  }
  return 0;
}

/* Writes data to of= at seek * obs over old, keeping or dropping the rest
 * as conv=notrunc says. 0, 1 (reported) or a negative code. */
static int dd_write_file(cmd_ctx *c, const dd_args *a, const uint8_t *old,
                         size_t olen, const uint8_t *data, size_t len) {
  const char *abs = cmd_path(c, a->out);
  size_t off, total;
  uint8_t *nd;
  int rc;
  if (!abs) return MSB_ENOMEM;
  if (a->seek > c->lim->max_file_bytes / (a->seek_bytes ? 1 : a->obs)) {
    cmd_err(c, "%s: cannot seek: File too large", cmd_quotef(c, a->out));
    return 1;
  }
  off = (size_t)(a->seek_bytes ? a->seek : a->seek * a->obs);
  if (a->append) off = a->conv & DD_NOTRUNC ? olen : 0;
  total = off + len;
  if ((a->conv & DD_NOTRUNC) && olen > total) total = olen;
  if (total > c->lim->max_file_bytes) {
    cmd_err(c, "error writing %s: File too large", cmd_quote(c, a->out));
    return 1;
  }
  nd = arena_zalloc(c->a, total + 1);
  if (!nd) return MSB_ENOMEM;
  if (old) memcpy(nd, old, olen < total ? olen : total);
  if (len) memcpy(nd + off, data, len);
  rc = vfs_write(c->fs, abs, nd, total, VFS_KEEP_MODE, CMD_NEWFILE(c), NULL);
  if (rc == MSB_ENOMEM || rc == MSB_ELIMIT) return rc;
  if (rc) {
    cmd_err(c, "failed to open %s: %s", cmd_quote(c, a->out), cmd_strerror(rc));
    return 1;
  }
  return 0;
}

/* if=/dev/zero, /dev/urandom or /dev/random, endless devices: the count=
 * blocks dd will read, zeros or bytes from the sandbox's random
 * stream. 1 when it is not such a device, else 0, a status after a message
 * or a negative code. */
static int dd_device(cmd_ctx *c, const dd_args *a, const uint8_t **d,
                     size_t *len) {
  struct vfs_stat st;
  const char *abs;
  int zero;
  uint64_t n;
  uint8_t *p;
  size_t i;
  if (!a->in) return 1;
  zero = !strcmp(a->in, "/dev/zero");
  if (!zero && strcmp(a->in, "/dev/urandom") && strcmp(a->in, "/dev/random"))
    return 1;
  if (!(abs = cmd_path(c, a->in))) return MSB_ENOMEM;
  if (vfs_stat(c->fs, abs, 1, &st) == 0 &&
      (!(st.mode & VFS_CHR) || st.rdev == VFS_DEV_NULL))
    return 1;
  if (!a->has_count) {
    cmd_err(c, "reading %s without count= is not supported in memsandbox",
            cmd_quote(c, a->in));
    return 2;
  }
  n = (a->skip_bytes ? a->skip : a->skip * a->ibs) +
      (a->count_bytes ? a->count : a->count * a->ibs);
  if (a->count > c->lim->max_file_bytes || n > c->lim->max_file_bytes) {
    cmd_err(c, "%s: File too large", cmd_quotef(c, a->in));
    return 2;
  }
  if (!(p = arena_zalloc(c->a, (size_t)n + 1))) return MSB_ENOMEM;
  for (i = 0; !zero && i < n; i++) p[i] = (uint8_t)rng_next(c->rng);
  *d = p;
  *len = (size_t)n;
  return 0;
}

/* Entry point: see the usage above. */
int cmd_dd(cmd_ctx *c) {
  cmd_getopt g;
  dd_args a;
  const uint8_t *d, *old = NULL;
  size_t len, olen = 0;
  uint64_t rec[4] = {0, 0, 0, 0};
  buf o;
  int k, i, rc, status = 0;
  cmd_opt_init(&g, c, dd_opts, dd_usage, CMD_OPTF_NOPERMUTE);
  while ((k = cmd_opt_next(&g)) > 0) {
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k < 0) return k == CMD_OPT_ERR ? g.status : k;
  memset(&a, 0, sizeof a);
  a.ibs = a.obs = 512;
  for (i = 0; i < g.nops; i++)
    if ((rc = dd_operand(&g, &a, g.ops[i]))) return rc;
  rc = dd_device(c, &a, &d, &len);
  if (rc < 0) return rc;
  if (rc > 1) return 1;
  if (rc == 1) rc = cmd_input(c, a.in ? a.in : "-", &d, &len);
  if (rc) {
    if (rc == MSB_ENOMEM) return rc;
    cmd_err(c, "failed to open %s: %s", cmd_quote(c, a.in ? a.in : "-"),
            cmd_strerror(rc));
    return 1;
  }
  if (a.skip) {
    uint64_t want = a.skip_bytes                         ? a.skip
                    : a.skip > (uint64_t)len / a.ibs + 1 ? (uint64_t)len + 1
                                                         : a.skip * a.ibs;
    if (want > len) {
      cmd_err(c, "%s: cannot skip to specified offset",
              a.in ? cmd_quotef(c, a.in) : "'standard input'");
      want = len;
    }
    d += want;
    len -= (size_t)want;
  }
  if (a.out && (rc = dd_open_out(c, &a, &old, &olen))) return rc;
  buf_init(&o, c->m);
  rc = dd_copy_in(c, &a, d, len, &o, rec);
  if (rc == 0 && a.out)
    rc = dd_write_file(c, &a, old, olen, (const uint8_t *)o.p, o.len);
  else if (rc == 0)
    rc = cmd_write(c, o.p, o.len);
  if (rc > 0) {
    status = rc;
    rc = 0;
  }
  if (rc == 0) dd_summary(c, &a, rec, status ? 0 : o.len);
  buf_finish(&o);
  return rc < 0 ? rc : status;
}
