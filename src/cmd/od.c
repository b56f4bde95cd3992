/* od.c - dump files in octal and other formats (GNU coreutils 9).
 *
 * Usage: od [OPTION]... [FILE]...
 *   -A RADIX  address radix: d, o, x or n      -j BYTES  skip BYTES first
 *   -N BYTES  dump at most BYTES                -v  no '*' suppression
 *   -t TYPE   a c d[SIZE] o[SIZE] u[SIZE] x[SIZE] f[SIZE] (SIZE 1 2 4 8 or
 *             C S I L, F D for floats), with a 'z' suffix for a >text<
 *             trailer                           -w[N]  N bytes per line
 *   -a -b -c -d -f -i -l -o -s -x   the traditional shorthands
 * Files are dumped as one concatenated stream. Columns follow GNU's
 * layout: every type of a line spans the same width (the widest type's),
 * the spare columns spread over its fields from the left exactly as GNU's
 * print functions do. Floats print the shortest text that reads back to
 * the same value, as GNU's ftoastr does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "cmd.h"

static const char od_usage[] MSB_COLD =
    "Usage: od [OPTION]... [FILE]...\n"
    "Write an unambiguous representation, octal bytes by default,\n"
    "of FILE to standard output.  With more than one FILE argument,\n"
    "concatenate them in the listed order to form the input.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -A, --address-radix=RADIX   output format for file offsets; RADIX "
    "is one\n"
    "                                of [doxn], for Decimal, Octal, Hex or "
    "None\n"
    "  -j, --skip-bytes=BYTES      skip BYTES input bytes first\n"
    "  -N, --read-bytes=BYTES      limit dump to BYTES input bytes\n"
    "  -t, --format=TYPE           select output format or formats\n"
    "  -v, --output-duplicates     do not use * to mark line suppression\n"
    "  -w[BYTES], --width[=BYTES]  output BYTES bytes per output line;\n"
    "                                32 is implied when BYTES is not "
    "specified\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n"
    "\n"
    "Traditional format specifications may be intermixed; they accumulate:\n"
    "  -a   same as -t a,  select named characters, ignoring high-order "
    "bit\n"
    "  -b   same as -t o1, select octal bytes\n"
    "  -c   same as -t c,  select printable characters or backslash "
    "escapes\n"
    "  -d   same as -t u2, select unsigned decimal 2-byte units\n"
    "  -f   same as -t fF, select floats\n"
    "  -i   same as -t dI, select decimal ints\n"
    "  -l   same as -t dL, select decimal longs\n"
    "  -o   same as -t o2, select octal 2-byte units\n"
    "  -s   same as -t d2, select decimal 2-byte units\n"
    "  -x   same as -t x2, select hexadecimal 2-byte units\n";

enum { OD_WIDTH = 256 };
static const cmd_opt od_opts[] = {{'A', "address-radix", CMD_ARG_REQ, 'A'},
                                  {'j', "skip-bytes", CMD_ARG_REQ, 'j'},
                                  {'N', "read-bytes", CMD_ARG_REQ, 'N'},
                                  {'t', "format", CMD_ARG_REQ, 't'},
                                  {'v', "output-duplicates", CMD_ARG_NONE, 'v'},
                                  {'w', "width", CMD_ARG_OPT, 'w'},
                                  {'a', 0, CMD_ARG_NONE, 'a'},
                                  {'b', 0, CMD_ARG_NONE, 'b'},
                                  {'c', 0, CMD_ARG_NONE, 'c'},
                                  {'d', 0, CMD_ARG_NONE, 'd'},
                                  {'f', 0, CMD_ARG_NONE, 'f'},
                                  {'i', 0, CMD_ARG_NONE, 'i'},
                                  {'l', 0, CMD_ARG_NONE, 'l'},
                                  {'o', 0, CMD_ARG_NONE, 'o'},
                                  {'s', 0, CMD_ARG_NONE, 's'},
                                  {'x', 0, CMD_ARG_NONE, 'x'},
                                  {0, 0, 0, 0}};

#define OD_MAX_SPECS 64

typedef struct od_spec {
  char kind;   /* a c d o u x f */
  int size;    /* bytes per field */
  int fw;      /* field width without the separating space */
  int trailer; /* z suffix */
  int pad;     /* spare columns per line (GNU pad_width) */
} od_spec;

typedef struct od_state {
  od_spec sp[OD_MAX_SPECS];
  int n;
  int radix; /* 'o' 'd' 'x' 'n' */
  size_t bpl; /* bytes per line */
} od_state;

static int od_field_width(char kind, int size) {
  switch (kind) {
  case 'a':
  case 'c': return 3;
  case 'd': return size == 1 ? 4 : size == 2 ? 6 : size == 4 ? 11 : 20;
  case 'u': return size == 1 ? 3 : size == 2 ? 5 : size == 4 ? 10 : 20;
  case 'o': return size == 1 ? 3 : size == 2 ? 6 : size == 4 ? 11 : 22;
  case 'x': return size * 2;
  default: return size == 4 ? 15 : 24;
  }
}

static int od_add(cmd_ctx *c, od_state *s, char kind, int size, int z) {
  od_spec *p;
  if (s->n >= OD_MAX_SPECS) {
    cmd_err(c, "too many output formats");
    return -1;
  }
  p = &s->sp[s->n++];
  p->kind = kind;
  p->size = size;
  p->trailer = z;
  p->fw = od_field_width(kind, size);
  return 0;
}

/* Parses one -t argument (several types may be concatenated). */
static int od_parse_type(cmd_ctx *c, od_state *s, const char *t) {
  const char *p = t;
  while (*p) {
    char k = *p++;
    int size = 1;
    if (k == 'a' || k == 'c') {
      size = 1;
    } else if (k == 'd' || k == 'o' || k == 'u' || k == 'x' || k == 'f') {
      size = k == 'f' ? 8 : 4;
      if (*p >= '0' && *p <= '9') {
        char *e;
        long v = strtol(p, &e, 10);
        p = e;
        if (k == 'f' ? (v != 4 && v != 8)
                     : (v != 1 && v != 2 && v != 4 && v != 8)) {
          cmd_err(c,
                  "invalid type string %s;\nthis system doesn't provide "
                  "a %ld-byte %s type",
                  cmd_quote(c, t), v, k == 'f' ? "floating point" : "integral");
          return -1;
        }
        size = (int)v;
      } else if (k != 'f' && strchr("CSIL", *p) && *p) {
        size = *p == 'C' ? 1 : *p == 'S' ? 2 : *p == 'I' ? 4 : 8;
        p++;
      } else if (k == 'f' && *p && strchr("FDL", *p)) {
        if (*p == 'L') {
          cmd_err(c,
                  "invalid type string %s: long double is not "
                  "supported here",
                  cmd_quote(c, t));
          return -1;
        }
        size = *p == 'F' ? 4 : 8;
        p++;
      }
    } else {
      cmd_err(c, "invalid character '%c' in type string %s", k,
              cmd_quote(c, t));
      return -1;
    }
    if (od_add(c, s, k, size, *p == 'z')) return -1;
    if (*p == 'z') p++;
  }
  return 0;
}

/* GNU's -j/-N numbers: 0x hex, leading 0 octal, else decimal, with
 * multiplier suffixes. */
static int od_number(const char *s, uint64_t *out) {
  uint64_t v = 0;
  const char *p = s;
  int base = 10;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    base = 16;
    p += 2;
  } else if (p[0] == '0' && p[1]) {
    base = 8;
  }
  if (base != 10) {
    int any = 0;
    for (; *p; p++) {
      int d;
      if (*p >= '0' && *p <= '9')
        d = *p - '0';
      else if (base == 16 && *p >= 'a' && *p <= 'f')
        d = *p - 'a' + 10;
      else if (base == 16 && *p >= 'A' && *p <= 'F')
        d = *p - 'A' + 10;
      else
        break;
      if (d >= base) break;
      if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) return -1;
      v = v * (uint64_t)base + (uint64_t)d;
      any = 1;
    }
    if (!any || *p) return -1;
    *out = v;
    return 0;
  }
  return cmd_parse_size(s, CMD_SZ_B, out) ? -1 : 0;
}

/* Little-endian unsigned value of size bytes. */
static uint64_t od_get(const uint8_t *p, int size) {
  uint64_t v = 0;
  int i;
  for (i = size - 1; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

/* Shortest %g text that reads back to the same float/double. */
static void od_float(char *out, size_t cap, const uint8_t *p, int size) {
  int prec;
  if (size == 4) {
    float f;
    uint32_t u = (uint32_t)od_get(p, 4);
    memcpy(&f, &u, 4);
    for (prec = 1; prec <= 9; prec++) {
      snprintf(out, cap, "%.*g", prec, (double)f);
      if (strtof(out, NULL) == f || f != f) break;
    }
  } else {
    double d;
    uint64_t u = od_get(p, 8);
    memcpy(&d, &u, 8);
    for (prec = 1; prec <= 17; prec++) {
      snprintf(out, cap, "%.*g", prec, d);
      if (strtod(out, NULL) == d || d != d) break;
    }
  }
}

static const char *const od_names[33] = {
    "nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs",  "ht",  "nl",
    "vt",  "ff",  "cr",  "so",  "si",  "dle", "dc1", "dc2", "dc3", "dc4", "nak",
    "syn", "etb", "can", "em",  "sub", "esc", "fs",  "gs",  "rs",  "us",  "sp"};

/* Text of one field (without padding). */
static void od_field(const od_spec *sp, const uint8_t *p, char *t, size_t cap) {
  uint64_t v;
  switch (sp->kind) {
  case 'a': {
    int ch = p[0] & 0x7f;
    if (ch <= 32)
      snprintf(t, cap, "%s", od_names[ch]);
    else if (ch == 127)
      snprintf(t, cap, "del");
    else
      snprintf(t, cap, "%c", ch);
    return;
  }
  case 'c': {
    static const char esc[] = "0\0\0\0\0\0\0abtnvfr";
    int ch = p[0];
    if (ch < 14 && (ch == 0 || ch >= 7) && esc[ch])
      snprintf(t, cap, "\\%c", esc[ch]);
    else if (ch >= 32 && ch < 127)
      snprintf(t, cap, "%c", ch);
    else
      snprintf(t, cap, "%03o", ch);
    return;
  }
  case 'f': od_float(t, cap, p, sp->size); return;
  default: break;
  }
  v = od_get(p, sp->size);
  if (sp->kind == 'd') {
    int64_t sv;
    if (sp->size < 8 && (v >> (sp->size * 8 - 1)) & 1)
      v |= ~(uint64_t)0 << (sp->size * 8);
    memcpy(&sv, &v, 8);
    snprintf(t, cap, "%lld", (long long)sv);
  } else if (sp->kind == 'u') {
    snprintf(t, cap, "%llu", (unsigned long long)v);
  } else if (sp->kind == 'o') {
    snprintf(t, cap, "%0*llo", sp->fw, (unsigned long long)v);
  } else {
    snprintf(t, cap, "%0*llx", sp->fw, (unsigned long long)v);
  }
}

static void od_addr(od_state *s, buf *o, uint64_t a) {
  if (s->radix == 'o')
    buf_printf(o, "%07llo", (unsigned long long)a);
  else if (s->radix == 'd')
    buf_printf(o, "%07llu", (unsigned long long)a);
  else if (s->radix == 'x')
    buf_printf(o, "%06llx", (unsigned long long)a);
}

/* One output line per spec for n bytes (n <= bpl) at p. */
static void od_line(od_state *s, buf *o, uint64_t addr, const uint8_t *p,
                    size_t n) {
  uint8_t tmp[16];
  int i;
  for (i = 0; i < s->n; i++) {
    const od_spec *sp = &s->sp[i];
    size_t fields = s->bpl / (size_t)sp->size;
    size_t shown = (n + (size_t)sp->size - 1) / (size_t)sp->size;
    size_t f,
        width = 0,
        full = s->bpl / (size_t)sp->size * (size_t)sp->fw + (size_t)sp->pad;
    int pad = sp->pad;
    if (i == 0) {
      od_addr(s, o, addr);
    } else if (s->radix != 'n') {
      buf_printf(o, "%*s", s->radix == 'x' ? 6 : 7, "");
    }
    for (f = 0; f < shown; f++) {
      char t[64];
      size_t k = fields - f;
      int next = (int)((size_t)sp->pad * (k - 1) / fields);
      const uint8_t *q = p + f * (size_t)sp->size;
      if ((f + 1) * (size_t)sp->size > n) {
        memset(tmp, 0, sizeof tmp);
        memcpy(tmp, q, n - f * (size_t)sp->size);
        q = tmp;
      }
      od_field(sp, q, t, sizeof t);
      buf_printf(o, "%*s", pad - next + sp->fw, t);
      width += (size_t)(pad - next + sp->fw);
      pad = next;
    }
    if (sp->trailer) {
      size_t j;
      buf_printf(o, "%*s  >", (int)(full - width), "");
      for (j = 0; j < n; j++)
        buf_putc(o, p[j] >= 32 && p[j] < 127 ? p[j] : '.');
      buf_putc(o, '<');
    }
    buf_putc(o, '\n');
  }
}

/* Whether the long option starting with prefix was spelled out. */
static int od_long_used(cmd_ctx *c, const char *prefix) {
  int i;
  for (i = 1; i < c->argc && strcmp(c->argv[i], "--"); i++)
    if (!strncmp(c->argv[i], prefix, strlen(prefix))) return 1;
  return 0;
}

/* od: options, the concatenated input, then one block per line. */
int cmd_od(cmd_ctx *c) {
  cmd_getopt g;
  od_state s;
  uint64_t skip = 0, limit = UINT64_MAX, addr;
  int k, i, verbose = 0, width_set = 0, rc, status = 0, opened = 0;
  size_t w = 16, lcm = 1, off, nfiles, total = 0;
  buf data;
  const uint8_t *prev = NULL;
  int starred = 0;
  memset(&s, 0, sizeof s);
  s.radix = 'o';
  cmd_opt_init(&g, c, od_opts, od_usage, 0);
  while ((k = cmd_opt_next(&g)) > 0) {
    switch (k) {
    case 'A':
      if (strlen(g.arg) != 1 || !strchr("doxn", g.arg[0])) {
        cmd_err(c,
                "invalid output address radix '%s'; it must be one "
                "character from [doxn]",
                g.arg);
        return 1;
      }
      s.radix = g.arg[0];
      break;
    case 'j':
    case 'N': {
      uint64_t v;
      if (od_number(g.arg, &v)) {
        /* GNU names the option as it was spelled. */
        cmd_err(c, "invalid %s argument %s",
                od_long_used(c, k == 'j' ? "--sk" : "--re")
                    ? (k == 'j' ? "--skip-bytes" : "--read-bytes")
                : k == 'j' ? "-j"
                           : "-N",
                cmd_quote(c, g.arg));
        return 1;
      }
      if (k == 'j')
        skip = v;
      else
        limit = v;
      break;
    }
    case 't':
      if (od_parse_type(c, &s, g.arg)) return 1;
      break;
    case 'v': verbose = 1; break;
    case 'w':
      width_set = 1;
      if (g.arg) {
        uint64_t v;
        if (od_number(g.arg, &v) || v == 0 || v > 4096) {
          cmd_err(c, "invalid -w argument %s", cmd_quote(c, g.arg));
          return 1;
        }
        w = (size_t)v;
      } else {
        w = 32;
      }
      break;
    case 'a':
      rc = od_add(c, &s, 'a', 1, 0);
      if (rc) return 1;
      break;
    case 'b':
      rc = od_add(c, &s, 'o', 1, 0);
      if (rc) return 1;
      break;
    case 'c':
      rc = od_add(c, &s, 'c', 1, 0);
      if (rc) return 1;
      break;
    case 'd':
      rc = od_add(c, &s, 'u', 2, 0);
      if (rc) return 1;
      break;
    case 'f':
      rc = od_add(c, &s, 'f', 4, 0);
      if (rc) return 1;
      break;
    case 'i':
      rc = od_add(c, &s, 'd', 4, 0);
      if (rc) return 1;
      break;
    case 'l':
      rc = od_add(c, &s, 'd', 8, 0);
      if (rc) return 1;
      break;
    case 'o':
      rc = od_add(c, &s, 'o', 2, 0);
      if (rc) return 1;
      break;
    case 's':
      rc = od_add(c, &s, 'd', 2, 0);
      if (rc) return 1;
      break;
    case 'x':
      rc = od_add(c, &s, 'x', 2, 0);
      if (rc) return 1;
      break;
    default: break;
    }
  }
  if (k == CMD_OPT_EXIT) return 0;
  if (k == CMD_OPT_ERR) return g.status;
  if (k < 0) return k;
  if (!s.n) od_add(c, &s, 'o', 2, 0);
  for (i = 0; i < s.n; i++) {
    size_t a = lcm, b = (size_t)s.sp[i].size;
    while (b) {
      size_t t = a % b;
      a = b;
      b = t;
    }
    lcm = lcm / a * (size_t)s.sp[i].size;
  }
  if (w % lcm) {
    cmd_err(c, "warning: invalid width %zu; using %zu instead", w, lcm);
    w = lcm;
  }
  (void)width_set;
  s.bpl = w;
  {
    size_t wpb = 0;
    for (i = 0; i < s.n; i++) {
      size_t bw = (size_t)(s.sp[i].fw + 1) * (w / (size_t)s.sp[i].size);
      if (bw > wpb) wpb = bw;
    }
    for (i = 0; i < s.n; i++)
      s.sp[i].pad =
          (int)(wpb - (size_t)s.sp[i].fw * (w / (size_t)s.sp[i].size));
  }
  /* Gather the input stream (skip and limit applied). */
  buf_init(&data, c->m);
  nfiles = g.nops ? (size_t)g.nops : 1;
  for (off = 0; off < nfiles; off++) {
    const char *op = g.nops ? g.ops[off] : "-";
    const uint8_t *d;
    size_t n;
    /* of an endless device, the bytes -j and -N ask for */
    c->dev_want = limit != UINT64_MAX && skip <= UINT64_MAX - limit
                      ? (skip > total ? skip - total : 0) + limit - data.len
                      : 0;
    rc = cmd_input(c, op, &d, &n);
    if (rc == MSB_ENOMEM) {
      buf_finish(&data);
      return rc;
    }
    if (rc) {
      cmd_err(c, "%s: %s",
              cmd_quotef(c, strcmp(op, "-") ? op : "standard input"),
              cmd_strerror(rc));
      status = 1;
      /* opened, then the read failed */
      opened |= rc == MSB_EISDIR || rc == CMD_EBADF;
      continue;
    }
    opened = 1;
    total += n;
    if (skip >= total) continue;
    {
      size_t from = skip > total - n ? (size_t)(skip - (total - n)) : 0;
      size_t take = n - from;
      if (limit != UINT64_MAX && data.len + take > limit) {
        take = (size_t)(limit - data.len);
        /* with -N bytes in hand, od reads no further (see cmd_ctx) */
        if (!strcmp(op, "-")) c->in_eof = 0;
      }
      buf_put(&data, d + from, take);
    }
  }
  if (data.err) {
    rc = data.err;
    buf_finish(&data);
    return rc;
  }
  if (!opened) {
    /* GNU prints not even the final offset when nothing could be read. */
    buf_finish(&data);
    return status;
  }
  if (skip > total) {
    cmd_err(c, "cannot skip past end of combined input");
    buf_finish(&data);
    return 1;
  }
  addr = skip;
  for (off = 0; off < data.len; off += w) {
    size_t n = data.len - off < w ? data.len - off : w;
    const uint8_t *p = (const uint8_t *)data.p + off;
    if (!verbose && prev && n == w && memcmp(prev, p, w) == 0) {
      if (!starred) buf_puts(c->out, "*\n");
      starred = 1;
    } else {
      od_line(&s, c->out, addr + off, p, n);
      starred = 0;
    }
    prev = p;
    if ((off / w) % 1000 == 999 && cmd_tick(c, 1)) {
      buf_finish(&data);
      return MSB_ELIMIT;
    }
    if (c->out->len > c->out_max) {
      buf_finish(&data);
      return MSB_ELIMIT;
    }
  }
  if (s.radix != 'n') {
    od_addr(&s, c->out, addr + data.len);
    buf_putc(c->out, '\n');
  }
  buf_finish(&data);
  return c->out->err ? c->out->err : status;
}
