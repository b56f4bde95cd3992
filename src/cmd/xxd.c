/* xxd.c - make a hex dump or do the reverse (vim 9's xxd 2022-01-14).
 *
 * Usage: xxd [options] [infile [outfile]]
 *   -p plain hex   -i C include   -b bits   -e little-endian groups
 *   -r reverse (with -p: plain hex in)   -c cols   -g bytes per group
 *   -l len   -s [+-]seek   -u upper case   -a autoskip   -d decimal
 *   offsets   -o off   -n name   -C capitalised -i name
 * xxd parses its own options (not getopt): "-c8", "-c 8" and long spellings
 * such as "-cols 8" all work, and a value may be 0x hex. A normal line puts
 * byte p of the line at column 10 + 2p + p/g (8 columns per byte for -b),
 * pads the hex area to its full width and adds two spaces and the text
 * column, as xxd does; -e reverses the bytes inside each group. */
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char xxd_usage_text[] MSB_COLD =
    "Usage:\n"
    "       xxd [options] [infile [outfile]]\n"
    "    or\n"
    "       xxd -r [-s [-]offset] [-c cols] [-ps] [infile [outfile]]\n"
    "Options:\n"
    "    -a          toggle autoskip: A single '*' replaces nul-lines. "
    "Default off.\n"
    "    -b          binary digit dump (incompatible with -ps,-i,-r). "
    "Default hex.\n"
    "    -C          capitalize variable names in C include file style "
    "(-i).\n"
    "    -c cols     format <cols> octets per line. Default 16 (-i: 12, "
    "-ps: 30).\n"
    "    -E          show characters in EBCDIC. Default ASCII.\n"
    "    -e          little-endian dump (incompatible with -ps,-i,-r).\n"
    "    -g bytes    number of octets per group in normal output. Default 2 "
    "(-e: 4).\n"
    "    -h          print this summary.\n"
    "    -i          output in C include file style.\n"
    "    -l len      stop after <len> octets.\n"
    "    -n name     set the variable name used in C include output (-i).\n"
    "    -o off      add <off> to the displayed file position.\n"
    "    -ps         output in postscript plain hexdump style.\n"
    "    -r          reverse operation: convert (or patch) hexdump into "
    "binary.\n"
    "    -r -s off   revert with <off> added to file positions found in "
    "hexdump.\n"
    "    -d          show offset in decimal instead of hex.\n"
    "    -s [+][-]seek  start at <seek> bytes abs. (or +: rel.) infile "
    "offset.\n"
    "    -u          use upper case hex letters.\n"
    "    -v          show version: \"xxd 2022-01-14 by Juergen Weigert et "
    "al.\".\n";

typedef struct xxd_cfg {
  int plain, incl, bits, little, rev, upper, autoskip, dec, cap;
  long cols, group, len, off;
  int64_t seek;
  int seek_set, seek_neg, seek_rel;
  const char *name;
} xxd_cfg;

static int xxd_usage(cmd_ctx *c) {
  buf_puts(c->err, cold_get(xxd_usage_text));
  return 1;
}

/* strtol with base 0 over the whole string; 0 ok. */
static int xxd_num(const char *s, long *out) {
  char *e;
  long v;
  if (!s || !*s) return -1;
  v = strtol(s, &e, 0);
  (void)e;
  *out = v;
  return 0;
}

/* Option value: attached ("-c8") unless letters follow ("-cols 8"),
 * else the next argument. */
static const char *xxd_val(cmd_ctx *c, int *i, const char *a) {
  if (a[2] && !(a[2] >= 'a' && a[2] <= 'z')) return a + 2;
  if (*i + 1 >= c->argc) return NULL;
  (*i)++;
  return c->argv[*i];
}

static void xxd_hexbyte(buf *o, int b, int upper) {
  const char *d = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  buf_putc(o, d[b >> 4]);
  buf_putc(o, d[b & 15]);
}

/* One normal (or -b / -e) line of n bytes at address a. */
static void xxd_line(const xxd_cfg *g, buf *o, uint64_t a, const uint8_t *p,
                     size_t n) {
  size_t cols = (size_t)g->cols, grp = (size_t)g->group, i;
  size_t bw = g->bits ? 8 : 2;
  size_t width = bw * cols + (grp ? (cols - 1) / grp : 0);
  size_t start = o->len;
  char *area;
  if (g->dec)
    buf_printf(o, "%08llu: ", (unsigned long long)a);
  else
    buf_printf(o, g->upper ? "%08llX: " : "%08llx: ", (unsigned long long)a);
  start = o->len;
  for (i = 0; i < width; i++) buf_putc(o, ' ');
  if (o->err) return;
  area = o->p + start;
  for (i = 0; i < n; i++) {
    size_t pos = i;
    size_t col;
    if (g->little && grp) {
      size_t gs = i / grp * grp;
      pos = gs + (grp - 1 - (i - gs));
    }
    col = bw * pos + (grp ? pos / grp : 0);
    if (col + bw > width) continue;
    if (g->bits) {
      int k;
      for (k = 0; k < 8; k++)
        area[col + (size_t)k] = (p[i] >> (7 - k)) & 1 ? '1' : '0';
    } else {
      const char *d = g->upper ? "0123456789ABCDEF" : "0123456789abcdef";
      area[col] = d[p[i] >> 4];
      area[col + 1] = d[p[i] & 15];
    }
  }
  buf_puts(o, "  ");
  for (i = 0; i < n; i++) buf_putc(o, p[i] >= 32 && p[i] < 127 ? p[i] : '.');
  buf_putc(o, '\n');
}

static int xxd_hexval(int ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

/* -r and -r -p: hex dump text back to bytes. */
static int xxd_reverse(const xxd_cfg *g, const uint8_t *d, size_t n, buf *o) {
  size_t i = 0;
  if (g->plain) {
    int hi = -1;
    for (i = 0; i < n; i++) {
      int v = xxd_hexval(d[i]);
      if (v < 0) continue;
      if (hi < 0) {
        hi = v;
      } else {
        buf_putc(o, hi << 4 | v);
        hi = -1;
      }
    }
    return o->err;
  }
  while (i < n) {
    size_t e = i;
    uint64_t addr = 0;
    int any = 0, hi = -1, spaces = 0;
    while (e < n && d[e] != '\n') e++;
    while (i < e && xxd_hexval(d[i]) >= 0) {
      if (addr < (UINT64_MAX >> 4))
        addr = addr << 4 | (uint64_t)xxd_hexval(d[i]);
      i++;
      any = 1;
    }
    if (any && i < e && d[i] == ':') {
      i++;
      addr += (uint64_t)(g->seek_set ? g->seek : 0);
      if (addr > (uint64_t)o->len + (64u << 20)) return MSB_ELIMIT;
      while (o->len < addr) buf_putc(o, 0);
      if (addr < o->len) buf_truncate(o, (size_t)addr);
      for (; i < e; i++) {
        int v = xxd_hexval(d[i]);
        if (d[i] == ' ') {
          if (++spaces >= 2 && hi < 0) break;
          continue;
        }
        spaces = 0;
        if (v < 0) break;
        if (hi < 0) {
          hi = v;
        } else {
          buf_putc(o, hi << 4 | v);
          hi = -1;
        }
      }
    }
    i = e + 1;
  }
  return o->err;
}

/* xxd: own option parsing, then dump, -p, -i or -r. */
int cmd_xxd(cmd_ctx *c) {
  xxd_cfg g;
  const char *in = NULL, *outname = NULL;
  const uint8_t *d;
  size_t n, pos, end, i;
  int argi, rc, nops = 0;
  buf o;
  memset(&g, 0, sizeof g);
  g.cols = -1;
  g.group = -1;
  g.len = -1;
  for (argi = 1; argi < c->argc; argi++) {
    const char *a = c->argv[argi], *v;
    if (a[0] != '-' || !a[1]) {
      if (nops == 0)
        in = a;
      else if (nops == 1)
        outname = a;
      else
        return xxd_usage(c);
      nops++;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      for (argi++; argi < c->argc; argi++) {
        if (nops == 0)
          in = c->argv[argi];
        else if (nops == 1)
          outname = c->argv[argi];
        else
          return xxd_usage(c);
        nops++;
      }
      break;
    }
    switch (a[1]) {
    case 'a': g.autoskip = !g.autoskip; break;
    case 'b': g.bits = 1; break;
    case 'C': g.cap = 1; break;
    case 'd': g.dec = 1; break;
    case 'e': g.little = 1; break;
    case 'i': g.incl = 1; break;
    case 'p': g.plain = 1; break;
    case 'r': g.rev = 1; break;
    case 'u': g.upper = 1; break;
    case 'v':
      buf_puts(c->err, "xxd 2022-01-14 by Juergen Weigert et al.\n");
      return 0;
    case 'h': buf_puts(c->err, cold_get(xxd_usage_text)); return 0;
    case 'c':
    case 'g':
    case 'l':
    case 'o':
    case 'n':
    case 's':
      v = xxd_val(c, &argi, a);
      if (!v) return xxd_usage(c);
      if (a[1] == 'n') {
        g.name = v;
      } else if (a[1] == 's') {
        long sv;
        const char *p = v;
        if (*p == '+') g.seek_rel = 1, p++;
        if (*p == '-') g.seek_neg = 1, p++;
        if (xxd_num(p, &sv) || sv < 0) return xxd_usage(c);
        g.seek = sv;
        g.seek_set = 1;
      } else {
        long nv;
        if (xxd_num(v, &nv)) return xxd_usage(c);
        if (a[1] == 'c') g.cols = nv;
        if (a[1] == 'g') g.group = nv;
        if (a[1] == 'l') g.len = nv;
        if (a[1] == 'o') g.off = nv;
      }
      break;
    default: return xxd_usage(c);
    }
  }
  if (g.cols > 256 || (g.cols == 0 && !g.plain)) {
    buf_puts(c->err, "xxd: invalid number of columns (max. 256).\n");
    return 1;
  }
  if (g.cols < 0) g.cols = g.plain ? 30 : g.incl ? 12 : g.bits ? 6 : 16;
  if (g.cols == 0) g.cols = 30;
  if (g.group < 0) g.group = g.bits ? 1 : g.little ? 4 : 2;
  if (g.group == 0 || g.group > g.cols) g.group = g.cols;
  if (g.little && (g.group & (g.group - 1))) {
    buf_puts(c->err,
             "xxd: number of octets per group must be a power of 2 "
             "with -e.\n");
    return 1;
  }
  rc = cmd_input(c, in ? in : "-", &d, &n);
  if (rc == MSB_ENOMEM) return rc;
  if (rc && !in) { /* `xxd < dir` */
    buf_printf(c->err, "xxd: %s\n", cmd_strerror(rc));
    return 2;
  }
  if (rc) {
    buf_printf(c->err, "xxd: %s: %s\n", in, cmd_strerror(rc));
    return 2;
  }
  buf_init(&o, c->m);
  if (g.rev) {
    rc = xxd_reverse(&g, d, n, &o);
    goto done;
  }
  pos = 0;
  if (g.seek_set) {
    uint64_t s = (uint64_t)g.seek;
    if (g.seek_neg)
      pos = s > n ? 0 : n - (size_t)s;
    else
      pos = s > n ? n : (size_t)s;
  }
  end = n;
  if (g.len >= 0 && (size_t)g.len < end - pos) {
    end = pos + (size_t)g.len;
    /* with -l octets in hand, xxd reads no further (see cmd_ctx) */
    if (!in || !strcmp(in, "-")) c->in_eof = 0;
  }
  if (g.incl) {
    const char *nm = g.name ? g.name : in;
    char *var = NULL;
    if (nm) {
      size_t k = strlen(nm), j = 0;
      var = arena_alloc(c->a, k + 3);
      if (!var) {
        buf_finish(&o);
        return MSB_ENOMEM;
      }
      if (!g.name && nm[0] >= '0' && nm[0] <= '9') {
        var[j++] = '_';
        var[j++] = '_';
      }
      for (i = 0; i < k; i++) {
        int ch = nm[i];
        int alnum = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
                    (ch >= 'A' && ch <= 'Z');
        if (!alnum && !g.name) ch = '_';
        if (g.cap && ch >= 'a' && ch <= 'z') ch -= 32;
        var[j++] = (char)ch;
      }
      var[j] = 0;
      buf_printf(&o, "unsigned char %s[] = {\n", var);
    }
    for (i = pos; i < end; i++) {
      if ((i - pos) % (size_t)g.cols == 0)
        buf_puts(&o, i == pos ? "  " : ",\n  ");
      else
        buf_puts(&o, ", ");
      buf_puts(&o, g.upper ? "0X" : "0x");
      xxd_hexbyte(&o, d[i], g.upper);
    }
    if (end > pos) buf_putc(&o, '\n');
    if (var)
      buf_printf(&o, "};\nunsigned int %s%s = %zu;\n", var,
                 g.cap ? "_LEN" : "_len", end - pos);
  } else if (g.plain) {
    for (i = pos; i < end; i++) {
      xxd_hexbyte(&o, d[i], g.upper);
      if ((i - pos + 1) % (size_t)g.cols == 0 || i + 1 == end)
        buf_putc(&o, '\n');
    }
  } else {
    int starred = 0;
    for (i = pos; i < end; i += (size_t)g.cols) {
      size_t k = end - i < (size_t)g.cols ? end - i : (size_t)g.cols, j;
      int zero = 1;
      for (j = 0; j < k && g.autoskip; j++)
        if (d[i + j]) zero = 0;
      if (g.autoskip && zero && i > pos && i + k < end) {
        if (!starred) buf_puts(&o, "*\n");
        starred = 1;
        continue;
      }
      starred = 0;
      xxd_line(&g, &o, (uint64_t)i + (uint64_t)g.off, d + i, k);
      if (o.len > c->out_max) {
        rc = MSB_ELIMIT;
        goto done;
      }
    }
  }
  rc = o.err;
done:
  if (!rc) {
    if (outname && strcmp(outname, "-") != 0) {
      const char *p = cmd_path(c, outname);
      rc = p ? vfs_write(c->fs, p, o.p ? o.p : "", o.len, VFS_KEEP_MODE,
                         CMD_NEWFILE(c), NULL)
             : MSB_ENOMEM;
      if (rc && rc != MSB_ENOMEM) {
        buf_printf(c->err, "xxd: %s: %s\n", outname, cmd_strerror(rc));
        rc = 2;
      }
    } else {
      rc = cmd_write(c, o.p ? o.p : "", o.len);
    }
  }
  buf_finish(&o);
  return rc;
}
