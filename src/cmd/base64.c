/* base64.c - base64 and base32 encode/decode (GNU coreutils 9).
 *
 * Usage: base64 [OPTION]... [FILE]   (base32 alike)
 *   -d, --decode          decode data
 *   -i, --ignore-garbage  when decoding, ignore non-alphabet characters
 *   -w, --wrap=COLS       wrap encoded lines after COLS characters
 *                         (default 76, 0 disables wrapping)
 * Decoding skips newlines (-i: every byte outside the alphabet but '='),
 * cuts the rest into groups of 4 (base32: 8) and decodes them one by one
 * like gnulib, so concatenated padded groups work; at the first bad group
 * it writes that group's valid prefix, then "invalid input", status 1. */
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

/* Decodes one group g[0..n) (n <= k->group; shorter only at the end) the
 * way gnulib's decode_4 / decode_8 do: each output byte goes out as soon
 * as the symbols ending it are checked, so a bad group still writes its
 * valid prefix; padding may start only where a byte ends and must fill
 * the group. Returns 1 for a good group, 0 for a bad one, or a negative
 * code. */
static int base64_group(cmd_ctx *c, const base64_code *k, const uint8_t *g,
                        size_t n) {
  static const uint8_t ends64[] = {2, 3, 4}, ends32[] = {2, 4, 5, 7, 8};
  const uint8_t *ends = k->bits == 5 ? ends32 : ends64;
  size_t nsteps = k->bits == 5 ? 5 : 3, st, pos = 0, j;
  uint64_t acc = 0;
  int rc;
  if (n < (k->bits == 5 ? 8u : 2u)) return 0;
  for (st = 0; st < nsteps; st++) {
    uint8_t b;
    if (st > 0 && pos < n && g[pos] == '=') {
      for (j = pos; j < n; j++)
        if (g[j] != '=') return 0;
      return n == (size_t)k->group;
    }
    if (ends[st] > n) return 0;
    for (j = pos; j < ends[st]; j++) {
      int v = base64_value(k, g[j]);
      if (v < 0) return 0;
      acc = acc << k->bits | (uint64_t)v;
    }
    pos = ends[st];
    b = (uint8_t)(acc >> (pos * (size_t)k->bits - 8 * (st + 1)));
    if ((rc = cmd_write(c, &b, 1)) < 0) return rc;
  }
  return 1;
}

static int base64_decode(cmd_ctx *c, const base64_code *k, const uint8_t *d,
                         size_t n, int ignore) {
  uint8_t g[8];
  size_t i, ng = 0;
  int rc;
  for (i = 0; i < n; i++) {
    int ch = d[i];
    /* Newlines never count; -i also drops every other non-symbol. */
    if (ch == '\n' || (ignore && ch != '=' && base64_value(k, ch) < 0))
      continue;
    g[ng++] = (uint8_t)ch;
    if (ng == (size_t)k->group) {
      if ((rc = base64_group(c, k, g, ng)) <= 0) goto done;
      ng = 0;
    }
  }
  if (!ng) return 0;
  rc = base64_group(c, k, g, ng);
done:
  if (rc < 0) return rc;
  if (rc == 1) return 0;
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
  if (rc && !strcmp(op, "-")) { /* `base64 < dir` */
    cmd_err(c, "read error: %s", cmd_strerror(rc));
    return 1;
  }
  if (rc) {
    cmd_err(c, "%s: %s", cmd_quotef(c, op), cmd_strerror(rc));
    return 1;
  }
  if ((rc = cmd_charge_work(c, n, CMD_COST_BASE64)) < 0) return rc;
  rc = decode ? base64_decode(c, k, d, n, ignore)
              : base64_encode(c, k, d, n, wrap);
  return rc;
}
