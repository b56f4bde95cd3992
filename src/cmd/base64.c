/* base64.c - base64 and base32 encode/decode (GNU coreutils 9).
 *
 * Usage: base64 [OPTION]... [FILE]   (base32 alike)
 *   -d, --decode          decode data
 *   -i, --ignore-garbage  when decoding, ignore non-alphabet characters
 *   -w, --wrap=COLS       wrap encoded lines after COLS characters
 *                         (default 76, 0 disables wrapping)
 * Decoding skips newlines, accepts concatenated padded groups, and on bad
 * input writes what decoded so far, then "invalid input" with status 1. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const char base64_usage[] =
    "Usage: %s [OPTION]... [FILE]\n"
    "%s encode or decode FILE, or standard input, to standard output.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "Mandatory arguments to long options are mandatory for short options "
    "too.\n"
    "  -d, --decode          decode data\n"
    "  -i, --ignore-garbage  when decoding, ignore non-alphabet characters\n"
    "  -w, --wrap=COLS       wrap encoded lines after COLS character "
    "(default 76).\n"
    "                          Use 0 to disable line wrapping\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n";

static const cmd_opt base64_opts[] = {
    {'d', "decode", CMD_ARG_NONE, 'd'},
    {'i', "ignore-garbage", CMD_ARG_NONE, 'i'},
    {'w', "wrap", CMD_ARG_REQ, 'w'},
    {0, 0, 0, 0}};

/* An alphabet: 64 or 32 symbols; `bits` per symbol, `group` symbols per
 * padded block of `bytes` bytes. */
typedef struct base64_code {
  const char *sym;
  int bits, group, bytes;
} base64_code;

static const base64_code base64_b64 = {
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 6, 4,
    3};
static const base64_code base64_b32 = {"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 5, 8,
                                       5};

static int base64_encode(cmd_ctx *c, const base64_code *k, const uint8_t *d,
                         size_t n, uint64_t wrap) {
  uint64_t col = 0, acc = 0;
  size_t i, b;
  int nb = 0, rc;
  for (i = 0; i < n; i += (size_t)k->bytes) {
    char grp[8];
    size_t take = n - i < (size_t)k->bytes ? n - i : (size_t)k->bytes;
    int s, nsym;
    acc = 0;
    for (b = 0; b < (size_t)k->bytes; b++)
      acc = acc << 8 | (b < take ? d[i + b] : 0);
    nb = (int)take * 8;
    nsym = (nb + k->bits - 1) / k->bits;
    for (s = 0; s < k->group; s++) {
      int shift = k->bytes * 8 - (s + 1) * k->bits;
      grp[s] = s < nsym ? k->sym[(acc >> shift) & ((1u << k->bits) - 1)] : '=';
    }
    for (s = 0; s < k->group; s++) {
      if ((rc = cmd_write(c, &grp[s], 1)) < 0) return rc;
      if (wrap && ++col == wrap) {
        if ((rc = cmd_write(c, "\n", 1)) < 0) return rc;
        col = 0;
      }
    }
    if ((i & 0xffff) == 0 && (rc = cmd_tick(c, 1)) < 0) return rc;
  }
  if (wrap && col) return cmd_write(c, "\n", 1);
  return 0;
}

static int base64_value(const base64_code *k, int ch) {
  const char *p = ch ? strchr(k->sym, ch) : NULL;
  return p ? (int)(p - k->sym) : -1;
}

/* Flushes a (possibly partial) group of symbols; returns bytes written. */
static int base64_flush(cmd_ctx *c, const base64_code *k, const int *v,
                        int nv) {
  uint64_t acc = 0;
  int i, nbytes = nv * k->bits / 8;
  uint8_t out[5];
  for (i = 0; i < k->group; i++) acc = acc << k->bits | (i < nv ? v[i] : 0);
  for (i = 0; i < k->bytes; i++)
    out[i] = (uint8_t)(acc >> (8 * (k->bytes - 1 - i)));
  return cmd_write(c, out, (size_t)nbytes);
}

static int base64_decode(cmd_ctx *c, const base64_code *k, const uint8_t *d,
                         size_t n, int ignore) {
  int v[8], nv = 0, pad = 0, rc;
  size_t i;
  for (i = 0; i < n; i++) {
    int ch = d[i], x;
    if (ch == '\n') continue;
    if (ch == '=' && nv > 0) {
      pad++;
      if (nv + pad == k->group) {
        if ((rc = base64_flush(c, k, v, nv)) < 0) return rc;
        nv = pad = 0;
      }
      continue;
    }
    x = pad ? -1 : base64_value(k, ch);
    if (x < 0) {
      if (ignore && !pad) continue;
      goto bad;
    }
    v[nv++] = x;
    if (nv == k->group) {
      if ((rc = base64_flush(c, k, v, nv)) < 0) return rc;
      nv = 0;
    }
  }
  if (!nv && !pad) return 0;
bad:
  if (nv && (rc = base64_flush(c, k, v, nv)) < 0) return rc;
  cmd_err(c, "invalid input");
  return 1;
}

/* base64 / base32: encode or decode a file or stdin. */
int cmd_base64(cmd_ctx *c) {
  const base64_code *k =
      !strcmp(cmd_name(c), "base32") ? &base64_b32 : &base64_b64;
  cmd_getopt g;
  char usage[sizeof base64_usage + 32];
  int key, decode = 0, ignore = 0, rc;
  uint64_t wrap = 76;
  const char *op;
  const uint8_t *d;
  size_t n;
  snprintf(usage, sizeof usage, base64_usage, cmd_name(c),
           k == &base64_b32 ? "Base32" : "Base64");
  cmd_opt_init(&g, c, base64_opts, usage, 0);
  while ((key = cmd_opt_next(&g)) > 0) {
    if (key == 'd') decode = 1;
    if (key == 'i') ignore = 1;
    if (key == 'w') {
      int64_t w;
      if (cmd_parse_int(g.arg, &w) || w < 0) {
        cmd_err(c, "invalid wrap size: %s", cmd_quote(c, g.arg));
        return 1;
      }
      wrap = (uint64_t)w;
    }
  }
  if (key == CMD_OPT_EXIT) return 0;
  if (key < 0) return key == CMD_OPT_ERR ? g.status : key;
  if (g.nops > 1)
    return cmd_usage_err(&g, "extra operand %s", cmd_quote(c, g.ops[1]));
  op = g.nops ? g.ops[0] : "-";
  rc = cmd_input(c, op, &d, &n);
  if (rc) {
    cmd_err(c, "%s: %s", cmd_quotef(c, op), cmd_strerror(rc));
    return 1;
  }
  rc = decode ? base64_decode(c, k, d, n, ignore)
              : base64_encode(c, k, d, n, wrap);
  return rc;
}
