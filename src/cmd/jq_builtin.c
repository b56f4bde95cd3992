/* jq_builtin.c - jq's builtins: natives written in C and the definitions
 * jq 1.7.1 writes in jq itself (the prelude below).
 *
 * Natives that only compute from their input and evaluated arguments are
 * "simple": their arguments are evaluated first (the last argument varies
 * slowest) and the function maps values to a value or an error. The
 * others (empty, path, range, limit, first, getpath, input, sort_by...)
 * drive the evaluation themselves. Loops that jq writes recursively
 * (range, repeat, while, until, recurse) are iterative here, so they run
 * under the step limit rather than the native stack. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cold.h"
#include "../regex.h"
#include "jq.h"

const char jq_prelude[] MSB_COLD =
    "def values: select(. != null);"
    "def nulls: select(. == null);"
    "def booleans: select(type == \"boolean\");"
    "def numbers: select(type == \"number\");"
    "def strings: select(type == \"string\");"
    "def arrays: select(type == \"array\");"
    "def objects: select(type == \"object\");"
    "def iterables: select(type|. == \"array\" or . == \"object\");"
    "def scalars: select(type|. != \"array\" and . != \"object\");"
    "def map(f): [.[] | f];"
    "def select(f): if f then . else empty end;"
    "def recurse(f; cond): recurse(f | select(cond));"
    "def to_entries: [keys_unsorted[] as $k | {key: $k, value: .[$k]}];"
    "def from_entries: reduce .[] as $x ({}; . + { ($x | .key // .name // "
    ".Name // .Key): ($x | if has(\"value\") then .value else .Value end) "
    "});"
    "def with_entries(f): to_entries | map(f) | from_entries;"
    "def any: reduce .[] as $x (false; . or $x);"
    "def all: reduce .[] as $x (true; . and $x);"
    "def any(f): reduce (.[] | f) as $x (false; . or $x);"
    "def all(f): reduce (.[] | f) as $x (true; . and $x);"
    "def any(g; cond): isempty(first(g | cond or empty)) | not;"
    "def all(g; cond): isempty(first(g | cond and empty));"
    "def in(xs): . as $x | xs | has($x);"
    "def inside(xs): . as $x | xs | contains($x);"
    "def combinations: if length == 0 then [] else .[0][] as $x | (.[1:] | "
    "combinations) as $w | [$x] + $w end;"
    "def combinations(n): . as $dot | [range(n)] | map($dot) | combinations;"
    "def walk(f): def w: if type == \"object\" then map_values(w) elif type "
    "== \"array\" then map(w) else . end | f; w;"
    "def map_values(f): .[] |= f;"
    "def last(f): reduce f as $x (null; $x);"
    "def nth($n): .[$n];"
    "def nth($n; f): if $n < 0 then error(\"nth doesn't support negative "
    "indices\") else last(limit($n + 1; f)) end;"
    "def first: .[0];"
    "def last: .[-1];"
    "def paths: path(..) | select(length > 0);"
    "def paths(node_filter): . as $dot | paths | select(. as $p | $dot | "
    "getpath($p) | node_filter);"
    "def del(f): delpaths([path(f)]);"
    "def to_array: if type == \"array\" then . else [.] end;"
    "def todate: strftime(\"%Y-%m-%dT%H:%M:%SZ\");"
    "def fromdateiso8601: strptime(\"%Y-%m-%dT%H:%M:%SZ\") | mktime;"
    "def todateiso8601: strftime(\"%Y-%m-%dT%H:%M:%SZ\");"
    "def fromdate: fromdateiso8601;"
    "def finites: select(isinfinite or isnan | not);"
    "def normals: select(isnormal);"
    "def debug(msg): (msg | debug | empty), .;"
    "def pick(pathexps): . as $top | reduce path(pathexps) as $p (null; "
    "setpath($p; $top | getpath($p)));"
    "def tostream: path(def r: (.[]? | r), .; r) as $p | getpath($p) | "
    "reduce path(.[]?) as $q ([$p, .]; [$p + $q]);"
    "def fromstream(f): { x: null, e: false } as $init | foreach f as $i "
    "($init; if .e then $init else . end | if $i | length == 2 then "
    "setpath([\"e\"]; $i[0] | length == 0) | setpath([\"x\"] + $i[0]; "
    "$i[1]) else setpath([\"e\"]; $i[0] | length == 1) end; if .e then .x "
    "else empty end);"
    "def truncate_stream(stream): . as $n | null | stream | . as $input | "
    "if (.[0] | length) > $n then setpath([0]; .[0][$n:]) else empty end;"
    /* counts down from $n as jq 1.7.1 does, so a non-number $n fails the
       same way */
    "def limit($n; f): if $n > 0 then label $out | foreach f as $item ($n; "
    ". - 1; $item, if . <= 0 then break $out else empty end) elif $n == 0 "
    "then empty else f end;"
    "def first(f): label $out | (f | ., break $out);"
    "def isempty(g): label $go | (g | false, break $go), true;"
    "def env: $ENV;"
    "def halt_error: halt_error(5);"
    "def match(re; mode): _match_impl(re; mode; false) | .[];"
    "def match($val): ($val | type) as $vt | if $vt == \"string\" then "
    "match($val; null) elif $vt == \"array\" and ($val | length) > 1 then "
    "match($val[0]; $val[1]) elif $vt == \"array\" and ($val | length) > 0 "
    "then match($val[0]; null) else error($vt + \" not a string or array\") "
    "end;"
    "def test(re; mode): _match_impl(re; mode; true);"
    "def test($val): ($val | type) as $vt | if $vt == \"string\" then "
    "test($val; null) elif $vt == \"array\" and ($val | length) > 1 then "
    "test($val[0]; $val[1]) elif $vt == \"array\" and ($val | length) > 0 "
    "then test($val[0]; null) else error($vt + \" not a string or array\") "
    "end;"
    "def capture(re; mods): match(re; mods) | reduce (.captures | .[] | "
    "select(.name != null) | { key: .name, value: .string }) as $pair ({}; "
    ". + {($pair.key): $pair.value});"
    "def capture($val): ($val | type) as $vt | if $vt == \"string\" then "
    "capture($val; null) elif $vt == \"array\" and ($val | length) > 1 then "
    "capture($val[0]; $val[1]) elif $vt == \"array\" and ($val | length) > "
    "0 then capture($val[0]; null) else error($vt + \" not a string or "
    "array\") end;"
    "def scan($re; $flags): match($re; \"g\" + $flags) | if (.captures | "
    "length > 0) then [.captures | .[] | .string] else .string end;"
    "def scan($re): scan($re; null);"
    "def splits($re; flags): split($re; flags) | .[];"
    "def splits($re): splits($re; null);"
    "def split($re; flags): . as $s | [match($re; \"g\" + flags) | (.offset, "
    ".offset + .length)] as $ms | [0] + $ms + [$s | length] | "
    "[range(0; length; 2) as $i | .[$i:$i + 2]] | map($s[.[0]:.[1]]);"
    "def ascii_downcase: explode | map(if 65 <= . and . <= 90 then . + 32 "
    "else . end) | implode;"
    "def ascii_upcase: explode | map(if 97 <= . and . <= 122 then . - 32 "
    "else . end) | implode;"
    "def index($i): indices($i) | .[0];"
    "def rindex($i): indices($i) | .[-1:][0];"
    "def indices($i): if type == \"array\" and ($i | type) == \"array\" then "
    ".[$i] elif type == \"array\" then .[[$i]] elif ($i | type) == \"string\" "
    "then _strindices($i) else .[[$i]] end;"
    "def unique_by(f): [group_by(f)[] | .[0]];"
    "def max_by(f): _max_by_impl(map([f]));"
    "def min_by(f): _min_by_impl(map([f]));"
    "def transpose: if . == [] then [] else . as $in | (map(length) | max) "
    "as $max | [range(0; $max) as $j | [range(0; $in | length) as $i | "
    "$in[$i][$j]]] end;"
    "def IN(s): any(s == .; .);"
    "def IN(src; s): any(src == s; .);"
    "def INDEX(stream; idx_expr): reduce stream as $row ({}; "
    ".[$row | idx_expr | tostring] |= $row);"
    "def INDEX(idx_expr): INDEX(.[]; idx_expr);"
    "def JOIN($idx; idx_expr): [.[] | [., $idx[idx_expr]]];"
    "def JOIN($idx; stream; idx_expr): stream | [., $idx[idx_expr]];"
    "def JOIN($idx; stream; idx_expr; join_expr): stream | [., "
    "$idx[idx_expr]] | join_expr;";

/* ---- helpers ----------------------------------------------------------- */

static int jq_kerr(jq_ev *E, jv v, const char *what) {
  buf b;
  buf_init(&b, E->R.m);
  buf_printf(&b, "%s (", jv_kind_name(v.k));
  jv_dump_trunc(&E->R, &b, v, 15);
  buf_printf(&b, ") %s", what);
  E->err = jv_str(&E->R, buf_str(&b), b.len);
  buf_finish(&b);
  return JQ_ERR;
}

static int jq_emit(jq_ev *E, jv v, jv ip, jq_k k, void *kd) {
  int rc = k(E, v, jq_pt_is_off(ip) ? ip : jq_pt_bad(), kd);
  jv_unref(&E->R, v);
  return rc;
}

static jv jq_strv(jq_ev *E, buf *b) {
  jv v;
  if (b->err) E->R.oom = 1;
  v = jv_str(&E->R, buf_str(b), b->len);
  buf_finish(b);
  return v;
}

/* "Cannot iterate over number (1)", as `.[]` words it. */
static int jq_kerr_iter(jq_ev *E, jv v) {
  buf b;
  buf_init(&b, E->R.m);
  buf_printf(&b, "Cannot iterate over %s (", jv_kind_name(v.k));
  jv_dump_trunc(&E->R, &b, v, 15);
  buf_putc(&b, ')');
  E->err = jq_strv(E, &b);
  return JQ_ERR;
}

static jv jq_tostring(jq_ev *E, jv v) {
  return v.k == JV_STRING ? jv_ref(v) : jv_tojson(&E->R, v);
}

/* ---- simple natives ---------------------------------------------------- */

typedef int (*jq_sfn)(jq_ev *E, jv in, jv *a, jv *out);

static int jqb_length(jq_ev *E, jv in, jv *a, jv *out) {
  size_t i, n = 0;
  (void)a;
  switch (in.k) {
  case JV_NULL: *out = jv_num(0); return 0;
  case JV_TRUE:
  case JV_FALSE: return jq_kerr(E, in, "has no length");
  case JV_NUMBER: *out = jv_num(fabs(in.n)); return 0;
  case JV_STRING:
    for (i = 0; i < jv_sl(in); i++) n += ((uint8_t)jv_sp(in)[i] & 0xc0) != 0x80;
    *out = jv_num((double)n);
    return 0;
  case JV_ARRAY: *out = jv_num((double)jv_alen(in)); return 0;
  default: *out = jv_num((double)jv_olen(in)); return 0;
  }
}

static int jqb_utf8bytelength(jq_ev *E, jv in, jv *a, jv *out) {
  (void)a;
  if (in.k != JV_STRING)
    return jq_kerr(E, in, "only strings have UTF-8 byte length");
  *out = jv_num((double)jv_sl(in));
  return 0;
}

static int jqb_not(jq_ev *E, jv in, jv *a, jv *out) {
  (void)E, (void)a;
  *out = jv_bool(!jv_truthy(in));
  return 0;
}

static int jqb_type(jq_ev *E, jv in, jv *a, jv *out) {
  (void)a;
  *out = jv_cstr(&E->R, jv_kind_name(in.k));
  return 0;
}

static int jqb_keys(jq_ev *E, jv in, jv *a, jv *out) {
  size_t i;
  (void)a;
  if (in.k == JV_OBJECT) {
    *out = jv_keys(&E->R, in);
    return 0;
  }
  if (in.k == JV_ARRAY) {
    *out = jv_arr(&E->R);
    for (i = 0; i < jv_alen(in); i++) jv_apush(&E->R, out, jv_num((double)i));
    return 0;
  }
  return jq_kerr(E, in, "has no keys");
}

static int jqb_keys_unsorted(jq_ev *E, jv in, jv *a, jv *out) {
  jq_ent *e;
  size_t it = 0;
  if (in.k != JV_OBJECT) return jqb_keys(E, in, a, out);
  *out = jv_arr(&E->R);
  while ((e = jv_onext(in, &it))) jv_apush(&E->R, out, jv_ref(e->key));
  return 0;
}

static int jqb_has(jq_ev *E, jv in, jv *a, jv *out) {
  if (in.k == JV_OBJECT && a[0].k == JV_STRING) {
    *out = jv_bool(jv_oget(in, jv_sp(a[0]), jv_sl(a[0])) != NULL);
    return 0;
  }
  if (in.k == JV_ARRAY && a[0].k == JV_NUMBER) {
    *out = jv_bool(a[0].n >= 0 && a[0].n < (double)jv_alen(in));
    return 0;
  }
  if (in.k == JV_NULL && (a[0].k == JV_STRING || a[0].k == JV_NUMBER)) {
    *out = jv_bool(0); /* jq 1.7.1: null has no keys */
    return 0;
  }
  return jq_errf(E, "Cannot check whether %s has a %s key", jv_kind_name(in.k),
                 jv_kind_name(a[0].k));
}

static int jq_contains(jv a, jv b) {
  size_t i, j;
  if (a.k == JV_OBJECT && b.k == JV_OBJECT) {
    jq_ent *e;
    size_t it = 0;
    while ((e = jv_onext(b, &it))) {
      jv *x = jv_oget(a, jv_sp(e->key), jv_sl(e->key));
      if (!x || !jq_contains(*x, e->val)) return 0;
    }
    return 1;
  }
  if (a.k == JV_ARRAY && b.k == JV_ARRAY) {
    for (i = 0; i < jv_alen(b); i++) {
      for (j = 0; j < jv_alen(a); j++)
        if (jq_contains(jv_aget(a, j), jv_aget(b, i))) break;
      if (j == jv_alen(a)) return 0;
    }
    return 1;
  }
  if (a.k == JV_STRING && b.k == JV_STRING) {
    size_t al = jv_sl(a), bl = jv_sl(b);
    if (!bl) return 1;
    for (i = 0; i + bl <= al; i++)
      if (!memcmp(jv_sp(a) + i, jv_sp(b), bl)) return 1;
    return 0;
  }
  return jv_eq(a, b);
}

static int jqb_contains(jq_ev *E, jv in, jv *a, jv *out) {
  if (in.k != a[0].k && !(in.k <= JV_TRUE && a[0].k <= JV_TRUE &&
                          in.k != JV_NULL && a[0].k != JV_NULL)) {
    buf b;
    buf_init(&b, E->R.m);
    buf_printf(&b, "%s (", jv_kind_name(in.k));
    jv_dump_trunc(&E->R, &b, in, 15);
    buf_printf(&b, ") and %s (", jv_kind_name(a[0].k));
    jv_dump_trunc(&E->R, &b, a[0], 15);
    buf_puts(&b, ") cannot have their containment checked");
    E->err = jq_strv(E, &b);
    return JQ_ERR;
  }
  *out = jv_bool(jq_contains(in, a[0]));
  return 0;
}

static int jqb_add(jq_ev *E, jv in, jv *a, jv *out) {
  size_t i;
  jv acc = jv_null();
  (void)a;
  if (in.k == JV_OBJECT) {
    jq_ent *e;
    size_t it = 0;
    while ((e = jv_onext(in, &it))) {
      jv r;
      if (jq_binop(E, JO_ADD, acc, e->val, &r)) {
        jv_unref(&E->R, acc);
        return JQ_ERR;
      }
      jv_unref(&E->R, acc);
      acc = r;
    }
    *out = acc;
    return 0;
  }
  if (in.k != JV_ARRAY) return jq_kerr_iter(E, in);
  for (i = 0; i < jv_alen(in); i++) {
    jv x = jv_aget(in, i), r;
    if (acc.k == JV_STRING && x.k == JV_STRING) {
      acc = jv_sappend(&E->R, acc, jv_sp(x), jv_sl(x));
      continue;
    }
    if (acc.k == JV_ARRAY && x.k == JV_ARRAY) {
      size_t j;
      for (j = 0; j < jv_alen(x); j++)
        jv_apush(&E->R, &acc, jv_ref(jv_aget(x, j)));
      continue;
    }
    if (acc.k == JV_NUMBER && x.k == JV_NUMBER) {
      jv_unref(&E->R, acc);
      acc = jv_num(acc.n + x.n);
      continue;
    }
    if (jq_binop(E, JO_ADD, acc, x, &r)) {
      jv_unref(&E->R, acc);
      return JQ_ERR;
    }
    jv_unref(&E->R, acc);
    acc = r;
  }
  *out = acc;
  return 0;
}

static int jqb_tostring(jq_ev *E, jv in, jv *a, jv *out) {
  (void)a;
  *out = jq_tostring(E, in);
  return 0;
}

static int jqb_tojson(jq_ev *E, jv in, jv *a, jv *out) {
  (void)a;
  *out = jv_tojson(&E->R, in);
  return 0;
}

static int jqb_fromjson(jq_ev *E, jv in, jv *a, jv *out) {
  buf err;
  (void)a;
  if (in.k != JV_STRING) return jq_kerr(E, in, "only strings can be parsed");
  buf_init(&err, E->R.m);
  if (jq_parse_one(&E->R, jv_sp(in), jv_sl(in), out, &err) < 0 ||
      out->k == JV_INVALID) {
    jv msg;
    if (!err.len) buf_puts(&err, "Expected JSON value");
    msg = jq_strv(E, &err);
    buf_init(&err, E->R.m);
    buf_printf(&err, "%s (while parsing '%s')", jv_sp(msg), jv_sp(in));
    jv_unref(&E->R, msg);
    E->err = jq_strv(E, &err);
    return JQ_ERR;
  }
  buf_finish(&err);
  return 0;
}

static int jqb_tonumber(jq_ev *E, jv in, jv *a, jv *out) {
  if (in.k == JV_NUMBER) {
    *out = jv_ref(in);
    return 0;
  }
  if (in.k == JV_STRING) {
    if (jqb_fromjson(E, in, a, out)) return JQ_ERR;
    if (out->k == JV_NUMBER) return 0;
    jv_unref(&E->R, *out);
  }
  return jq_kerr(E, in, "cannot be parsed as a number");
}

static int jqb_explode(jq_ev *E, jv in, jv *a, jv *out) {
  size_t i = 0, n = jv_sl(in);
  (void)a;
  if (in.k != JV_STRING) return jq_errf(E, "explode input must be a string");
  *out = jv_arr(&E->R);
  while (i < n) {
    uint32_t cp;
    i += jq_utf8_next((const uint8_t *)jv_sp(in) + i, n - i, &cp);
    jv_apush(&E->R, out, jv_num(cp));
  }
  return 0;
}

static int jqb_implode(jq_ev *E, jv in, jv *a, jv *out) {
  buf b;
  size_t i;
  (void)a;
  if (in.k != JV_ARRAY) return jq_errf(E, "implode input must be an array");
  buf_init(&b, E->R.m);
  for (i = 0; i < jv_alen(in); i++) {
    jv x = jv_aget(in, i);
    uint32_t cp;
    if (x.k != JV_NUMBER) {
      buf_finish(&b);
      return jq_kerr(E, x,
                     "can't be imploded, unicode codepoint needs to "
                     "be numeric");
    }
    cp = x.n < 0 || x.n > 0x10ffff ? 0xfffd : (uint32_t)x.n;
    if (cp >= 0xd800 && cp < 0xe000) cp = 0xfffd;
    jq_utf8_put(&b, cp);
  }
  *out = jq_strv(E, &b);
  return 0;
}

static int jqb_ltrimstr(jq_ev *E, jv in, jv *a, jv *out) {
  (void)E;
  if (in.k == JV_STRING && a[0].k == JV_STRING && jv_sl(in) >= jv_sl(a[0]) &&
      !memcmp(jv_sp(in), jv_sp(a[0]), jv_sl(a[0]))) {
    *out = jv_str(&E->R, jv_sp(in) + jv_sl(a[0]), jv_sl(in) - jv_sl(a[0]));
    return 0;
  }
  *out = jv_ref(in);
  return 0;
}

static int jqb_rtrimstr(jq_ev *E, jv in, jv *a, jv *out) {
  if (in.k == JV_STRING && a[0].k == JV_STRING && jv_sl(in) >= jv_sl(a[0]) &&
      !memcmp(jv_sp(in) + jv_sl(in) - jv_sl(a[0]), jv_sp(a[0]), jv_sl(a[0]))) {
    *out = jv_str(&E->R, jv_sp(in), jv_sl(in) - jv_sl(a[0]));
    return 0;
  }
  *out = jv_ref(in);
  return 0;
}

static int jqb_startswith(jq_ev *E, jv in, jv *a, jv *out) {
  if (in.k != JV_STRING || a[0].k != JV_STRING)
    return jq_errf(E, "startswith() requires string inputs");
  *out = jv_bool(jv_sl(in) >= jv_sl(a[0]) &&
                 !memcmp(jv_sp(in), jv_sp(a[0]), jv_sl(a[0])));
  return 0;
}

static int jqb_endswith(jq_ev *E, jv in, jv *a, jv *out) {
  if (in.k != JV_STRING || a[0].k != JV_STRING)
    return jq_errf(E, "endswith() requires string inputs");
  *out = jv_bool(
      jv_sl(in) >= jv_sl(a[0]) &&
      !memcmp(jv_sp(in) + jv_sl(in) - jv_sl(a[0]), jv_sp(a[0]), jv_sl(a[0])));
  return 0;
}

static int jqb_split(jq_ev *E, jv in, jv *a, jv *out) {
  if (in.k != JV_STRING || a[0].k != JV_STRING)
    return jq_errf(E, "split input and separator must be strings");
  return jq_binop(E, JO_DIV, in, a[0], out);
}

static int jqb_join(jq_ev *E, jv in, jv *a, jv *out) {
  size_t i;
  jv r;
  if (in.k != JV_ARRAY)
    return jq_errf(E, "Cannot iterate over %s", jv_kind_name(in.k));
  if (!jv_alen(in)) {
    *out = jv_str(&E->R, "", 0);
    return 0;
  }
  r = jv_str(&E->R, "", 0);
  for (i = 0; i < jv_alen(in); i++) {
    jv x = jv_aget(in, i);
    if (i) {
      if (a[0].k != JV_STRING) {
        jv t;
        int rc = jq_binop(E, JO_ADD, r, a[0], &t);
        jv_unref(&E->R, r);
        if (rc) return rc;
        r = t;
      } else
        r = jv_sappend(&E->R, r, jv_sp(a[0]), jv_sl(a[0]));
    }
    if (x.k == JV_NULL) continue;
    if (x.k == JV_STRING)
      r = jv_sappend(&E->R, r, jv_sp(x), jv_sl(x));
    else if (x.k == JV_NUMBER || x.k == JV_TRUE || x.k == JV_FALSE)
      r = jv_scat(&E->R, r, jv_tojson(&E->R, x));
    else {
      jv t;
      int rc = jq_binop(E, JO_ADD, r, x, &t);
      jv_unref(&E->R, r);
      if (rc) return rc;
      r = t;
    }
  }
  *out = r;
  return 0;
}

static int jqb_sort(jq_ev *E, jv in, jv *a, jv *out) {
  (void)a;
  if (in.k != JV_ARRAY)
    return jq_kerr(E, in, "cannot be sorted, as it is not an array");
  *out = jv_ref(in);
  jv_sort(&E->R, out);
  return 0;
}

static int jq_kerr_by_obj(jq_ev *E, const jq_node *f, jq_env *env, jv in);

static int jqb_unique(jq_ev *E, jv in, jv *a, jv *out) {
  jv s;
  size_t i;
  /* jq 1.7.1: def unique: group_by(.) | map(.[0]); */
  if (in.k == JV_OBJECT) return jq_kerr_by_obj(E, NULL, NULL, in);
  if (in.k != JV_ARRAY) return jq_kerr_iter(E, in);
  if (jqb_sort(E, in, a, &s)) return JQ_ERR;
  *out = jv_arr(&E->R);
  for (i = 0; i < jv_alen(s); i++)
    if (!i || jv_cmp(jv_aget(s, i), jv_aget(s, i - 1)))
      jv_apush(&E->R, out, jv_ref(jv_aget(s, i)));
  jv_unref(&E->R, s);
  return 0;
}

static int jqb_reverse(jq_ev *E, jv in, jv *a, jv *out) {
  size_t i, n;
  (void)a;
  /* jq: def reverse: [.[length - 1 - range(0;length)]]; */
  if (in.k == JV_NULL || (in.k == JV_STRING && !jv_sl(in)) ||
      (in.k == JV_OBJECT && !jv_olen(in)) || (in.k == JV_NUMBER && in.n == 0)) {
    *out = jv_arr(&E->R);
    return 0;
  }
  if (in.k == JV_TRUE || in.k == JV_FALSE)
    return jq_kerr(E, in, "has no length");
  if (in.k != JV_ARRAY)
    return jq_errf(E, "Cannot index %s with number", jv_kind_name(in.k));
  n = jv_alen(in);
  *out = jv_arr(&E->R);
  for (i = n; i-- > 0;) jv_apush(&E->R, out, jv_ref(jv_aget(in, i)));
  return 0;
}

static int jq_minmax(jq_ev *E, jv in, jv keys, int max, jv *out) {
  size_t i, best = 0;
  if (in.k != JV_ARRAY) {
    buf b;
    buf_init(&b, E->R.m);
    buf_printf(&b, "%s (", jv_kind_name(in.k));
    jv_dump_trunc(&E->R, &b, in, 15);
    buf_printf(&b, ") and %s (", jv_kind_name(keys.k));
    jv_dump_trunc(&E->R, &b, keys, 15);
    buf_puts(&b, ") cannot be iterated over");
    E->err = jq_strv(E, &b);
    return JQ_ERR;
  }
  if (!jv_alen(in)) {
    *out = jv_null();
    return 0;
  }
  for (i = 1; i < jv_alen(in); i++) {
    int c = jv_cmp(jv_aget(keys, i), jv_aget(keys, best));
    if (max ? c >= 0 : c < 0) best = i;
  }
  *out = jv_ref(jv_aget(in, best));
  return 0;
}

static int jqb_min(jq_ev *E, jv in, jv *a, jv *out) {
  (void)a;
  return jq_minmax(E, in, in, 0, out);
}
static int jqb_max(jq_ev *E, jv in, jv *a, jv *out) {
  (void)a;
  return jq_minmax(E, in, in, 1, out);
}
static int jqb_min_by(jq_ev *E, jv in, jv *a, jv *out) {
  return jq_minmax(E, in, a[0], 0, out);
}
static int jqb_max_by(jq_ev *E, jv in, jv *a, jv *out) {
  return jq_minmax(E, in, a[0], 1, out);
}

static void jq_flat(jq_ev *E, jv in, double depth, jv *out) {
  size_t i;
  for (i = 0; i < jv_alen(in); i++) {
    jv x = jv_aget(in, i);
    if (x.k == JV_ARRAY && depth > 0)
      jq_flat(E, x, depth - 1, out);
    else
      jv_apush(&E->R, out, jv_ref(x));
  }
}

static int jqb_flatten1(jq_ev *E, jv in, jv *a, jv *out) {
  if (a[0].k != JV_NUMBER)
    return jq_errf(E, "flatten depth must not be negative");
  if (a[0].n < 0) return jq_errf(E, "flatten depth must not be negative");
  if (in.k == JV_OBJECT) {
    jq_ent *e;
    size_t it = 0;
    jv vals = jv_arr(&E->R);
    while ((e = jv_onext(in, &it))) jv_apush(&E->R, &vals, jv_ref(e->val));
    *out = jv_arr(&E->R);
    jq_flat(E, vals, a[0].n, out);
    jv_unref(&E->R, vals);
    return 0;
  }
  if (in.k != JV_ARRAY) return jq_kerr_iter(E, in);
  *out = jv_arr(&E->R);
  jq_flat(E, in, a[0].n, out);
  return 0;
}

static int jqb_flatten(jq_ev *E, jv in, jv *a, jv *out) {
  jv d = jv_num(1e9);
  (void)a;
  return jqb_flatten1(E, in, &d, out);
}

static int jqb_error1(jq_ev *E, jv in, jv *a, jv *out) {
  (void)in, (void)out;
  E->err = jv_ref(a[0]);
  return JQ_ERR;
}

static int jqb_error0(jq_ev *E, jv in, jv *a, jv *out) {
  (void)a, (void)out;
  E->err = jv_ref(in);
  return JQ_ERR;
}

static int jqb_setpath(jq_ev *E, jv in, jv *a, jv *out) {
  return jq_setpath(E, in, a[0], 0, a[1], out);
}

static int jqb_delpaths(jq_ev *E, jv in, jv *a, jv *out) {
  return jq_delpaths(E, in, a[0], out);
}

static int jqb_to_entries(jq_ev *E, jv in, jv *a, jv *out) {
  jq_ent *e;
  size_t it = 0;
  (void)a;
  if (in.k != JV_OBJECT) return jq_kerr(E, in, "has no keys");
  *out = jv_arr(&E->R);
  while ((e = jv_onext(in, &it))) {
    jv o = jv_obj(&E->R);
    jv_oset(&E->R, &o, jv_cstr(&E->R, "key"), jv_ref(e->key));
    jv_oset(&E->R, &o, jv_cstr(&E->R, "value"), jv_ref(e->val));
    jv_apush(&E->R, out, o);
  }
  return 0;
}

static int jqb_strindices(jq_ev *E, jv in, jv *a, jv *out) {
  size_t i, n = jv_sl(in), m = jv_sl(a[0]), cp = 0;
  if (in.k != JV_STRING || a[0].k != JV_STRING)
    return jq_errf(E, "Cannot determine indices of non-string");
  *out = jv_arr(&E->R);
  if (!m) {
    jv_unref(&E->R, *out);
    *out = jv_null();
    return 0;
  }
  for (i = 0; i + m <= n; i++) {
    if (!memcmp(jv_sp(in) + i, jv_sp(a[0]), m))
      jv_apush(&E->R, out, jv_num((double)i));
  }
  (void)cp;
  return 0;
}

static int jqb_builtins(jq_ev *E, jv in, jv *a, jv *out);

static int jqb_bsearch(jq_ev *E, jv in, jv *a, jv *out) {
  size_t lo = 0, hi;
  if (in.k != JV_ARRAY) return jq_kerr(E, in, "cannot be searched from");
  hi = jv_alen(in);
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = jv_cmp(jv_aget(in, mid), a[0]);
    if (!c) {
      *out = jv_num((double)mid);
      return 0;
    }
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  *out = jv_num(-1 - (double)lo);
  return 0;
}
static int jqb_input_line_number(jq_ev *E, jv in, jv *a, jv *out) {
  (void)in, (void)a;
  *out = jv_num((double)E->input_line);
  return 0;
}

static int jqb_now(jq_ev *E, jv in, jv *a, jv *out) {
  (void)in, (void)a;
  *out = jv_num((double)E->now_ns / 1e9);
  return 0;
}

static int jqb_input_filename(jq_ev *E, jv in, jv *a, jv *out) {
  (void)in, (void)a;
  *out = E->input_name ? jv_cstr(&E->R, E->input_name) : jv_null();
  return 0;
}

static int jqb_infinite(jq_ev *E, jv in, jv *a, jv *out) {
  (void)E, (void)in, (void)a;
  *out = jv_num(INFINITY);
  return 0;
}
static int jqb_nan(jq_ev *E, jv in, jv *a, jv *out) {
  (void)E, (void)in, (void)a;
  *out = jv_num(NAN);
  return 0;
}

static int jq_numin(jq_ev *E, jv in, const char *name) {
  if (in.k == JV_NUMBER) return 0;
  {
    char t[64];
    snprintf(t, sizeof t, "number required");
    (void)name;
    return jq_kerr(E, in, t);
  }
}

static int jqb_isinfinite(jq_ev *E, jv in, jv *a, jv *out) {
  (void)a;
  if (jq_numin(E, in, "isinfinite")) return JQ_ERR;
  *out = jv_bool(isinf(in.n));
  return 0;
}
static int jqb_isnan(jq_ev *E, jv in, jv *a, jv *out) {
  (void)a;
  if (jq_numin(E, in, "isnan")) return JQ_ERR;
  *out = jv_bool(isnan(in.n));
  return 0;
}
static int jqb_isnormal(jq_ev *E, jv in, jv *a, jv *out) {
  (void)a;
  if (jq_numin(E, in, "isnormal")) return JQ_ERR;
  *out = jv_bool(isnormal(in.n));
  return 0;
}

/* jq 1.7.1: `if . < 0 then - . else . end`, so null and booleans (which
 * sort below numbers) fail to negate and other kinds pass through. */
static int jqb_abs(jq_ev *E, jv in, jv *a, jv *out) {
  (void)a;
  if (in.k == JV_NUMBER && in.n < 0) {
    *out = jv_num(-in.n);
    return 0;
  }
  if (in.k <= JV_TRUE) return jq_kerr(E, in, "cannot be negated");
  *out = jv_ref(in);
  return 0;
}

/* Math functions of one, two and three numbers. */
static const struct {
  const char *name;
  double (*f)(double);
} jq_math1[] = {{"floor", floor},     {"ceil", ceil},
                {"round", round},     {"sqrt", sqrt},
                {"fabs", fabs},       {"exp", exp},
                {"exp2", exp2},       {"log", log},
                {"log2", log2},       {"log10", log10},
                {"log1p", log1p},     {"expm1", expm1},
                {"sin", sin},         {"cos", cos},
                {"tan", tan},         {"asin", asin},
                {"acos", acos},       {"atan", atan},
                {"sinh", sinh},       {"cosh", cosh},
                {"tanh", tanh},       {"asinh", asinh},
                {"acosh", acosh},     {"atanh", atanh},
                {"cbrt", cbrt},       {"trunc", trunc},
                {"rint", rint},       {"nearbyint", nearbyint},
                {"logb", logb},       {"gamma", lgamma},
                {"lgamma", lgamma},   {"tgamma", tgamma},
                {"lgamma_r", lgamma}, {"significand", NULL},
                {"exp10", NULL},      {NULL, NULL}};

static const struct {
  const char *name;
  double (*f)(double, double);
} jq_math2[] = {{"pow", pow},
                {"atan2", atan2},
                {"fmod", fmod},
                {"copysign", copysign},
                {"fdim", fdim},
                {"fmax", fmax},
                {"fmin", fmin},
                {"hypot", hypot},
                {"nextafter", nextafter},
                {"nexttoward", nextafter},
                {"remainder", remainder},
                {"drem", remainder},
                {"ldexp", NULL},
                {"scalb", NULL},
                {"scalbln", NULL},
                {NULL, NULL}};

static double jq_m1(const char *name, double x) {
  int i;
  for (i = 0; jq_math1[i].name; i++)
    if (!strcmp(jq_math1[i].name, name)) break;
  if (jq_math1[i].f) return jq_math1[i].f(x);
  if (!strcmp(name, "exp10")) return pow(10, x);
  /* significand */
  if (x == 0 || isinf(x) || isnan(x)) return x;
  {
    int e;
    double m = frexp(x, &e);
    return m * 2;
  }
}

/* ---- regex --------------------------------------------------------------- */

/* Capture group names in group order (NULL for unnamed). */
static int jq_groupnames(jq_ev *E, jv re, jv *names) {
  const char *p = jv_sp(re), *end = p + jv_sl(re);
  int cls = 0;
  *names = jv_arr(&E->R);
  for (; p < end; p++) {
    if (*p == '\\') {
      p++;
      continue;
    }
    if (cls) {
      if (*p == ']') cls = 0;
      continue;
    }
    if (*p == '[') {
      cls = 1;
      if (p + 1 < end && p[1] == ']') p++;
      continue;
    }
    if (*p != '(') continue;
    if (p + 1 < end && p[1] == '?') {
      const char *q = p + 2;
      if (q < end && *q == 'P') q++;
      if (q < end && *q == '<' && q + 1 < end && q[1] != '=' && q[1] != '!') {
        const char *s = q + 1;
        while (q < end && *q != '>') q++;
        jv_apush(&E->R, names, jv_str(&E->R, s, (size_t)(q - s)));
      }
      continue;
    }
    jv_apush(&E->R, names, jv_null());
  }
  return 0;
}

static size_t jq_cpcount(const char *s, size_t n) {
  size_t i, c = 0;
  for (i = 0; i < n; i++) c += ((uint8_t)s[i] & 0xc0) != 0x80;
  return c;
}

static jv jq_mkcap(jq_ev *E, jv s, long so, long eo) {
  jv o = jv_obj(&E->R);
  if (so < 0) {
    jv_oset(&E->R, &o, jv_cstr(&E->R, "offset"), jv_num(-1));
    jv_oset(&E->R, &o, jv_cstr(&E->R, "string"), jv_null());
    jv_oset(&E->R, &o, jv_cstr(&E->R, "length"), jv_num(0));
  } else {
    jv_oset(&E->R, &o, jv_cstr(&E->R, "offset"),
            jv_num((double)jq_cpcount(jv_sp(s), (size_t)so)));
    jv_oset(&E->R, &o, jv_cstr(&E->R, "length"),
            jv_num((double)jq_cpcount(jv_sp(s) + so, (size_t)(eo - so))));
    jv_oset(&E->R, &o, jv_cstr(&E->R, "string"),
            jv_str(&E->R, jv_sp(s) + so, (size_t)(eo - so)));
  }
  return o;
}

/* Oniguruma's words for our regex engine's compile errors, which jq 1.7.1
 * prints after "Regex failure: ". */
static const char *jq_onig_msg(const char *ours) {
  static const char *const map[][2] = {
      {"missing closing parenthesis", "end pattern with unmatched parenthesis"},
      {"unmatched closing parenthesis", "unmatched close parenthesis"},
      {"missing terminating ] for character class",
       "premature end of char-class"},
      {"quantifier does not follow a repeatable item",
       "target of repeat operator is not specified"},
      {"\\ at end of pattern", "end pattern at escape"},
      {"reference to non-existent subpattern", "invalid backref number/name"},
      {"numbers out of order in {} quantifier",
       "upper is smaller than lower in repeat range"},
  };
  size_t i;
  for (i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(ours, map[i][0])) return map[i][1];
  return ours;
}

static int jq_memmem(const char *h, size_t n, const char *needle) {
  size_t l = strlen(needle), i;
  for (i = 0; i + l <= n; i++)
    if (!memcmp(h + i, needle, l)) return 1;
  return 0;
}

/* A \k<name> backreference to a group the pattern does not name: 0 and
 * Oniguruma's message in out (the engine refuses backreferences). */
static int jq_undefined_ref(const char *p, size_t n, buf *out) {
  const char *end = p + n, *q, *close;
  for (q = p; q + 3 < end; q++) {
    char def[80];
    size_t l;
    if (q[0] != '\\') continue;
    if (q[1] != 'k' || q[2] != '<') {
      q++;
      continue;
    }
    close = memchr(q + 3, '>', (size_t)(end - q - 3));
    l = close ? (size_t)(close - q - 3) : 0;
    if (!l || l + 5 > sizeof def) return -1;
    snprintf(def, sizeof def, "(?<%.*s>", (int)l, q + 3);
    if (jq_memmem(p, n, def)) return -1;
    buf_clear(out);
    buf_printf(out, "undefined name <%.*s> reference", (int)l, q + 3);
    return 0;
  }
  return -1;
}

static int jq_has_utf8(jv s) {
  size_t i;
  for (i = 0; i < jv_sl(s); i++)
    if ((uint8_t)jv_sp(s)[i] >= 0x80) return 1;
  return 0;
}

/* Copies pattern p with each `.` outside a class made to match one UTF-8
 * sequence (a newline too when dotall). */
static void jq_utf8_dots(buf *out, const char *p, size_t n, int dotall) {
  const char *end = p + n;
  int cls = 0;
  for (; p < end; p++) {
    if (*p == '\\' && p + 1 < end) {
      buf_put(out, p++, 2);
      continue;
    }
    if (cls) {
      if (*p == ']') cls = 0;
    } else if (*p == '[') {
      cls = 1;
      buf_putc(out, *p);
      if (p + 1 < end && p[1] == '^') buf_putc(out, *++p);
      if (p + 1 < end && p[1] == ']') buf_putc(out, *++p);
      continue;
    } else if (*p == '.') {
      buf_puts(out, dotall ? "(?:[\\x00-\\x7f]" : "(?:[^\\n\\x80-\\xff]");
      buf_puts(out, "|[\\xc0-\\xff][\\x80-\\xbf]*)");
      continue;
    }
    buf_putc(out, *p);
  }
}

/* _match_impl(re; flags; testmode): array of matches, or a boolean. */
static int jqb_match_impl(jq_ev *E, jv in, jv *a, jv *out) {
  jv re = a[0], fl = a[1], names;
  unsigned cf = RX_PERL;
  int global = 0, noempty = 0, rc, test = jv_truthy(a[2]);
  rx *r = NULL;
  buf err, pat;
  size_t i, start = 0, nm;
  rx_match m[32];
  if (in.k != JV_STRING)
    return jq_kerr(E, in, "cannot be matched, as it is not a string");
  if (re.k != JV_STRING) return jq_kerr(E, re, "is not a string");
  if (fl.k != JV_NULL && fl.k != JV_STRING)
    return jq_kerr(E, fl, "is not a string");
  buf_init(&pat, E->R.m);
  for (i = 0; fl.k == JV_STRING && i < jv_sl(fl); i++) {
    switch (jv_sp(fl)[i]) {
    case 'g': global = 1; break;
    case 'i': cf |= RX_ICASE; break;
    case 'x': break;
    case 'n': noempty = 1; break;
    /* Oniguruma's SINGLELINE: only `$` changes, `.` still stops at a
       newline; 'p' adds MULTILINE, where `.` matches it */
    case 's': break;
    case 'l': break;
    case 'p': buf_puts(&pat, "(?s)"); break;
    default:
      buf_finish(&pat);
      return jq_errf(E, "%s is not a valid modifier string", jv_sp(fl));
    }
  }
  if (fl.k == JV_STRING && memchr(jv_sp(fl), 'x', jv_sl(fl))) {
    /* extended: drop unescaped whitespace and comments outside classes */
    const char *p = jv_sp(re), *end = p + jv_sl(re);
    int cls = 0;
    for (; p < end; p++) {
      if (*p == '\\' && p + 1 < end) {
        buf_put(&pat, p, 2);
        p++;
        continue;
      }
      if (cls) {
        if (*p == ']') cls = 0;
      } else if (*p == '[')
        cls = 1;
      else if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        continue;
      else if (*p == '#') {
        while (p < end && *p != '\n') p++;
        continue;
      }
      buf_putc(&pat, *p);
    }
  } else
    buf_put(&pat, jv_sp(re), jv_sl(re));
  if (jq_has_utf8(in)) {
    /* the engine's `.` takes a byte; Oniguruma's takes a character */
    buf u;
    buf_init(&u, E->R.m);
    jq_utf8_dots(&u, buf_str(&pat), pat.len,
                 fl.k == JV_STRING && memchr(jv_sp(fl), 'p', jv_sl(fl)));
    buf_finish(&pat);
    pat = u;
  }
  buf_init(&err, E->R.m);
  rc = rx_compile(E->R.m, buf_str(&pat), pat.len, cf, &r, &err);
  buf_finish(&pat);
  if (rc) {
    jv e;
    if (rc == MSB_ENOMEM) {
      buf_finish(&err);
      return MSB_ENOMEM;
    }
    jq_undefined_ref(jv_sp(re), jv_sl(re), &err);
    e = jq_strv(E, &err);
    rc = jq_errf(E, "Regex failure: %s", jq_onig_msg(jv_sp(e)));
    jv_unref(&E->R, e);
    return rc;
  }
  buf_finish(&err);
  nm = rx_nsub(r) + 1;
  if (nm > 32) nm = 32;
  jq_groupnames(E, re, &names);
  *out = test ? jv_bool(0) : jv_arr(&E->R);
  while (start <= jv_sl(in)) {
    jv o, caps;
    rc = cmd_rx_exec(E->c, r, (const uint8_t *)jv_sp(in), jv_sl(in), start, 0,
                     m, nm);
    if (rc < 0) {
      rx_free(r);
      jv_unref(&E->R, names);
      jv_unref(&E->R, *out);
      return rc;
    }
    if (rc == 0) break;
    if (test) {
      *out = jv_bool(1);
      break;
    }
    if (!(noempty && m[0].eo == m[0].so)) {
      o = jq_mkcap(E, in, m[0].so, m[0].eo);
      caps = jv_arr(&E->R);
      for (i = 1; i < nm; i++) {
        jv name = i - 1 < jv_alen(names) ? jv_aget(names, i - 1) : jv_null();
        jv c = jq_mkcap(E, in, m[i].so, m[i].eo);
        jv_oset(&E->R, &c, jv_cstr(&E->R, "name"), jv_ref(name));
        jv_apush(&E->R, &caps, c);
      }
      jv_oset(&E->R, &o, jv_cstr(&E->R, "captures"), caps);
      jv_apush(&E->R, out, o);
    }
    if (!global) break;
    start = m[0].eo > m[0].so ? (size_t)m[0].eo : (size_t)m[0].eo + 1;
    if (m[0].eo == m[0].so) {
      /* step over a whole UTF-8 character */
      while (start < jv_sl(in) && ((uint8_t)jv_sp(in)[start] & 0xc0) == 0x80)
        start++;
    }
  }
  rx_free(r);
  jv_unref(&E->R, names);
  return 0;
}

/* ---- dates ------------------------------------------------------------- */

static int jq_tm_from(jq_ev *E, jv in, cmd_tm *tm, double *frac,
                      const char *who) {
  size_t i;
  double f[8] = {0};
  if (in.k == JV_NUMBER) {
    double t = floor(in.n);
    cmd_gmtime((int64_t)t, tm);
    *frac = in.n - t;
    return 0;
  }
  if (in.k != JV_ARRAY) return jq_errf(E, "%s requires array inputs", who);
  if (jv_alen(in) < 6)
    return jq_errf(E, "%s requires parsed datetime inputs", who);
  for (i = 0; i < jv_alen(in) && i < 8; i++) {
    if (jv_aget(in, i).k != JV_NUMBER)
      return jq_errf(E, "%s requires parsed datetime inputs", who);
    f[i] = jv_aget(in, i).n;
  }
  tm->year = (int64_t)f[0];
  tm->mon = (int)f[1] + 1;
  tm->mday = (int)f[2];
  tm->hour = (int)f[3];
  tm->min = (int)f[4];
  tm->sec = (int)f[5];
  tm->wday = (int)f[6];
  tm->yday = (int)f[7];
  *frac = f[5] - floor(f[5]);
  return 0;
}

static jv jq_tm_arr(jq_ev *E, const cmd_tm *tm, double frac) {
  jv r = jv_arr(&E->R);
  jv_apush(&E->R, &r, jv_num((double)tm->year));
  jv_apush(&E->R, &r, jv_num(tm->mon - 1));
  jv_apush(&E->R, &r, jv_num(tm->mday));
  jv_apush(&E->R, &r, jv_num(tm->hour));
  jv_apush(&E->R, &r, jv_num(tm->min));
  jv_apush(&E->R, &r, jv_num(tm->sec + frac));
  jv_apush(&E->R, &r, jv_num(tm->wday));
  jv_apush(&E->R, &r, jv_num(tm->yday));
  return r;
}

static int jqb_gmtime(jq_ev *E, jv in, jv *a, jv *out) {
  cmd_tm tm;
  double frac;
  (void)a;
  if (in.k != JV_NUMBER) return jq_errf(E, "gmtime() requires numeric inputs");
  jq_tm_from(E, in, &tm, &frac, "gmtime");
  *out = jq_tm_arr(E, &tm, frac);
  return 0;
}

static int jqb_mktime(jq_ev *E, jv in, jv *a, jv *out) {
  cmd_tm tm;
  double frac;
  (void)a;
  if (in.k != JV_ARRAY) return jq_errf(E, "mktime requires array inputs");
  if (jq_tm_from(E, in, &tm, &frac, "mktime")) return JQ_ERR;
  *out = jv_num((double)cmd_timegm(&tm));
  return 0;
}

/* cmd_strftime takes nanoseconds, which reach only the years 1678 to
 * 2261. Further out the time moves by whole 400-year Gregorian cycles
 * (same weekdays and leap days) and %Y and %F print the real year, as
 * jq does ("0000-01-01T00:00:00Z"). */
static void jq_strftime_far(buf *b, const char *fmt, const cmd_tm *tm) {
  cmd_tm t = *tm;
  int64_t cycles = 0;
  buf f;
  const char *p;
  if (t.year < 1700)
    cycles = (2199 - (int64_t)t.year) / 400;
  else if (t.year > 2200)
    cycles = -(((int64_t)t.year - 1800) / 400);
  t.year += cycles * 400;
  if (!cycles) {
    cmd_strftime(b, fmt, cmd_timegm(&t) * 1000000000);
    return;
  }
  buf_init(&f, b->m);
  for (p = fmt; *p; p++) {
    if (*p == '%' && (p[1] == 'Y' || p[1] == 'F')) {
      /* jq-wasm's libc: 4 digits at least, a sign past 9999 */
      buf_printf(&f,
                 tm->year < 0      ? "%05lld"
                 : tm->year > 9999 ? "+%lld"
                                   : "%04lld",
                 (long long)tm->year);
      if (p[1] == 'F') buf_puts(&f, "-%m-%d");
      p++;
    } else if (*p == '%' && p[1]) {
      buf_put(&f, p, 2);
      p++;
    } else
      buf_putc(&f, *p);
  }
  cmd_strftime(b, buf_str(&f), cmd_timegm(&t) * 1000000000);
  buf_finish(&f);
}

static int jqb_strftime(jq_ev *E, jv in, jv *a, jv *out) {
  cmd_tm tm;
  double frac;
  buf b;
  if (in.k != JV_NUMBER && in.k != JV_ARRAY)
    return jq_errf(E, "strftime/1 requires parsed datetime inputs");
  if (a[0].k != JV_STRING)
    return jq_errf(E, "strftime/1 requires a string format");
  if (jq_tm_from(E, in, &tm, &frac, "strftime/1")) return JQ_ERR;
  buf_init(&b, E->R.m);
  jq_strftime_far(&b, jv_sp(a[0]), &tm);
  *out = jq_strv(E, &b);
  return 0;
}

static int jq_isdigit2(const char *s) {
  return s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9';
}

static const char *const jq_mon[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                     "jul", "aug", "sep", "oct", "nov", "dec"};
static const char *const jq_wd[] = {"sun", "mon", "tue", "wed",
                                    "thu", "fri", "sat"};

static int jq_num_at(const char **s, int maxd, long *v) {
  int n = 0, neg = 0;
  *v = 0;
  if (**s == '+' || **s == '-') neg = *(*s)++ == '-';
  while (n < maxd && **s >= '0' && **s <= '9')
    *v = *v * 10 + (*(*s)++ - '0'), n++;
  if (neg) *v = -*v;
  return n ? 0 : -1;
}

/* The format with %T, %R, %D and %F spelled out (false when too long). */
static int jq_strptime_expand(const char *f, char *out, size_t n) {
  size_t o = 0;
  for (; *f; f++) {
    const char *rep = NULL;
    if (*f == '%' && f[1]) {
      rep = f[1] == 'T'   ? "%H:%M:%S"
            : f[1] == 'R' ? "%H:%M"
            : f[1] == 'D' ? "%m/%d/%y"
            : f[1] == 'F' ? "%Y-%m-%d"
                          : NULL;
    }
    if (rep) {
      size_t l = strlen(rep);
      if (o + l >= n) return 0;
      memcpy(out + o, rep, l);
      o += l;
      f++;
      continue;
    }
    if (o + 1 >= n) return 0;
    out[o++] = *f;
  }
  out[o] = 0;
  return 1;
}

static int jq_strptime(const char *s, const char *f0, cmd_tm *tm,
                       const char **rest) {
  long v;
  char f_[512];
  const char *f = f_;
  if (!jq_strptime_expand(f0, f_, sizeof f_)) return -1;
  memset(tm, 0, sizeof *tm);
  tm->year = 1970;
  tm->mday = 1;
  tm->mon = 1;
  for (; *f; f++) {
    if (*f == ' ') {
      while (*s == ' ' || *s == '\t' || *s == '\n') s++;
      continue;
    }
    if (*f != '%') {
      if (*s++ != *f) return -1;
      continue;
    }
    switch (*++f) {
    case 'Y':
      if (jq_num_at(&s, 4, &v)) return -1;
      tm->year = v;
      break;
    case 'm':
      if (jq_num_at(&s, 2, &v) || v < 1 || v > 12) return -1;
      tm->mon = (int)v;
      break;
    case 'd':
    case 'e':
      while (*s == ' ') s++;
      if (jq_num_at(&s, 2, &v) || v < 1 || v > 31) return -1;
      tm->mday = (int)v;
      break;
    case 'H':
      if (jq_num_at(&s, 2, &v) || v < 0 || v > 23) return -1;
      tm->hour = (int)v;
      break;
    case 'M':
      if (jq_num_at(&s, 2, &v) || v < 0 || v > 59) return -1;
      tm->min = (int)v;
      break;
    case 'S':
      if (jq_num_at(&s, 2, &v) || v < 0 || v > 60) return -1;
      tm->sec = (int)v;
      break;
    case 'y':
      if (jq_num_at(&s, 2, &v)) return -1;
      tm->year = v < 69 ? 2000 + v : 1900 + v;
      break;
    case 'j':
      if (jq_num_at(&s, 3, &v)) return -1;
      tm->yday = (int)v - 1;
      break;
    case 's': {
      cmd_tm t2;
      if (jq_num_at(&s, 20, &v)) return -1;
      cmd_gmtime(v, &t2);
      *tm = t2;
      break;
    }
    case 'z':
      /* jq-wasm's libc takes Z or z, or a sign, two digits and optionally
         two more after an optional ':'; the offset changes no field */
      if (*s == 'Z' || *s == 'z')
        s++;
      else if ((*s == '+' || *s == '-') && jq_isdigit2(s + 1)) {
        s += 3;
        if (jq_isdigit2(s + (*s == ':'))) s += 2 + (*s == ':');
      } else
        return -1;
      break;
    case 'Z':
      while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')) s++;
      break;
    case 'a':
    case 'A':
    case 'b':
    case 'B':
    case 'h': {
      int i, n = (*f == 'a' || *f == 'A') ? 7 : 12, found = 0;
      for (i = 0; i < n && !found; i++) {
        const char *nm = n == 7 ? jq_wd[i] : jq_mon[i];
        if (!strncasecmp(s, nm, 3)) {
          found = 1;
          s += 3;
          while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')) s++;
          if (n == 12)
            tm->mon = i + 1;
          else
            tm->wday = i;
        }
      }
      if (!found) return -1;
      break;
    }
    case '%':
      if (*s++ != '%') return -1;
      break;
    default: return -1;
    }
  }
  /* jq accepts text after the date when it starts with a space */
  if (*s && !(*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' ||
              *s == '\f' || *s == '\v'))
    return -1;
  *rest = s;
  {
    /* day of week and year from the date, as glibc's timegm would */
    cmd_tm t2;
    int64_t t = cmd_timegm(tm);
    cmd_gmtime(t, &t2);
    tm->wday = t2.wday;
    tm->yday = t2.yday;
  }
  return 0;
}

static int jqb_strptime(jq_ev *E, jv in, jv *a, jv *out) {
  cmd_tm tm;
  const char *rest;
  if (in.k != JV_STRING)
    return jq_errf(E, "strptime/1 requires string inputs and arguments");
  if (a[0].k != JV_STRING)
    return jq_errf(E, "strptime/1 requires string inputs and arguments");
  if (jq_strptime(jv_sp(in), jv_sp(a[0]), &tm, &rest))
    return jq_errf(E, "date \"%s\" does not match format \"%s\"", jv_sp(in),
                   jv_sp(a[0]));
  /* jq 1.7.1 normalises through timegm: Feb 30 is Mar 2, 23:59:60 is
     the next day */
  cmd_gmtime(cmd_timegm(&tm), &tm);
  *out = jq_tm_arr(E, &tm, 0);
  /* and hands back the text after the date as a 9th item */
  if (*rest) jv_apush(&E->R, out, jv_cstr(&E->R, rest));
  return 0;
}

/* ---- formats ----------------------------------------------------------- */

static const char jq_b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int jq_csvtsv(jq_ev *E, jv v, int csv, jv *out) {
  buf b;
  size_t i, j;
  if (v.k != JV_ARRAY)
    return jq_kerr(E, v,
                   csv ? "cannot be csv-formatted, only array"
                       : "cannot be tsv-formatted, only array");
  buf_init(&b, E->R.m);
  for (i = 0; i < jv_alen(v); i++) {
    jv x = jv_aget(v, i);
    if (i) buf_putc(&b, csv ? ',' : '\t');
    switch (x.k) {
    case JV_NULL: break;
    case JV_TRUE: buf_puts(&b, "true"); break;
    case JV_FALSE: buf_puts(&b, "false"); break;
    case JV_NUMBER: jv_numfmt(&b, x); break;
    case JV_STRING:
      if (csv) buf_putc(&b, '"');
      for (j = 0; j < jv_sl(x); j++) {
        char ch = jv_sp(x)[j];
        if (csv && ch == '"')
          buf_puts(&b, "\"\"");
        else if (!csv && ch == '\t')
          buf_puts(&b, "\\t");
        else if (!csv && ch == '\n')
          buf_puts(&b, "\\n");
        else if (!csv && ch == '\r')
          buf_puts(&b, "\\r");
        else if (!csv && ch == '\\')
          buf_puts(&b, "\\\\");
        else
          buf_putc(&b, ch);
      }
      if (csv) buf_putc(&b, '"');
      break;
    default: buf_finish(&b); return jq_kerr(E, x, "is not valid in a csv row");
    }
  }
  *out = jq_strv(E, &b);
  return 0;
}

static void jq_shq(buf *b, jv x) {
  size_t j;
  buf_putc(b, '\'');
  for (j = 0; j < jv_sl(x); j++) {
    if (jv_sp(x)[j] == '\'')
      buf_puts(b, "'\\''");
    else
      buf_putc(b, jv_sp(x)[j]);
  }
  buf_putc(b, '\'');
}

int jq_format(jq_ev *E, const char *fmt, jv v, jv *out) {
  buf b;
  jv s;
  size_t i;
  if (!strcmp(fmt, "json")) {
    *out = jv_tojson(&E->R, v);
    return 0;
  }
  if (!strcmp(fmt, "text")) {
    *out = jq_tostring(E, v);
    return 0;
  }
  if (!strcmp(fmt, "csv") || !strcmp(fmt, "tsv"))
    return jq_csvtsv(E, v, fmt[0] == 'c', out);
  if (!strcmp(fmt, "sh")) {
    jv one = jv_arr(&E->R), arr;
    buf_init(&b, E->R.m);
    if (v.k != JV_ARRAY) jv_apush(&E->R, &one, jv_ref(v));
    arr = v.k == JV_ARRAY ? v : one;
    for (i = 0; i < jv_alen(arr); i++) {
      jv x = jv_aget(arr, i);
      if (i) buf_putc(&b, ' ');
      if (x.k == JV_STRING)
        jq_shq(&b, x);
      else if (x.k == JV_ARRAY || x.k == JV_OBJECT) {
        buf_finish(&b);
        jv_unref(&E->R, one);
        return jq_kerr(E, x, "can not be escaped for shell");
      } else {
        jv t = jv_tojson(&E->R, x);
        buf_put(&b, jv_sp(t), jv_sl(t));
        jv_unref(&E->R, t);
      }
    }
    jv_unref(&E->R, one);
    *out = jq_strv(E, &b);
    return 0;
  }
  s = jq_tostring(E, v);
  buf_init(&b, E->R.m);
  if (!strcmp(fmt, "html")) {
    for (i = 0; i < jv_sl(s); i++) {
      char c = jv_sp(s)[i];
      if (c == '<')
        buf_puts(&b, "&lt;");
      else if (c == '>')
        buf_puts(&b, "&gt;");
      else if (c == '&')
        buf_puts(&b, "&amp;");
      else if (c == '\'')
        buf_puts(&b, "&apos;");
      else if (c == '"')
        buf_puts(&b, "&quot;");
      else
        buf_putc(&b, c);
    }
  } else if (!strcmp(fmt, "uri")) {
    for (i = 0; i < jv_sl(s); i++) {
      uint8_t c = (uint8_t)jv_sp(s)[i];
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
          (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
          c == '~')
        buf_putc(&b, c);
      else
        buf_printf(&b, "%%%02X", c);
    }
  } else if (!strcmp(fmt, "base64")) {
    const uint8_t *p = (const uint8_t *)jv_sp(s);
    size_t n = jv_sl(s);
    for (i = 0; i + 2 < n; i += 3) {
      uint32_t x = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
      buf_putc(&b, jq_b64[x >> 18]);
      buf_putc(&b, jq_b64[(x >> 12) & 63]);
      buf_putc(&b, jq_b64[(x >> 6) & 63]);
      buf_putc(&b, jq_b64[x & 63]);
    }
    if (n - i == 1) {
      uint32_t x = (uint32_t)p[i] << 16;
      buf_putc(&b, jq_b64[x >> 18]);
      buf_putc(&b, jq_b64[(x >> 12) & 63]);
      buf_puts(&b, "==");
    } else if (n - i == 2) {
      uint32_t x = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
      buf_putc(&b, jq_b64[x >> 18]);
      buf_putc(&b, jq_b64[(x >> 12) & 63]);
      buf_putc(&b, jq_b64[(x >> 6) & 63]);
      buf_putc(&b, '=');
    }
  } else if (!strcmp(fmt, "base64d")) {
    uint32_t acc = 0;
    int bits = 0;
    size_t valid = 0;
    for (i = 0; i < jv_sl(s); i++) {
      const char *q = strchr(jq_b64, jv_sp(s)[i]);
      if (jv_sp(s)[i] == '=') break;
      if (!q || !jv_sp(s)[i]) {
        buf_finish(&b);
        jv_unref(&E->R, s);
        return jq_kerr(E, v, "is not valid base64 data");
      }
      valid++;
      acc = acc << 6 | (uint32_t)(q - jq_b64);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        buf_putc(&b, (char)((acc >> bits) & 0xff));
      }
    }
    if (valid % 4 == 1) {
      buf_finish(&b);
      jv_unref(&E->R, s);
      return jq_kerr(E, v, "trailing base64 byte found");
    }
    jv_unref(&E->R, s);
    *out = jv_str_utf8(&E->R, buf_str(&b), b.len);
    buf_finish(&b);
    return 0;
  } else if (0) {
    static const char a32[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    const uint8_t *p = (const uint8_t *)jv_sp(s);
    size_t n = jv_sl(s);
    for (i = 0; i < n; i += 5) {
      uint8_t t[5] = {0};
      size_t k, m = n - i < 5 ? n - i : 5, chars = (m * 8 + 4) / 5;
      uint64_t x = 0;
      memcpy(t, p + i, m);
      for (k = 0; k < 5; k++) x = x << 8 | t[k];
      for (k = 0; k < 8; k++)
        buf_putc(&b, k < chars ? a32[(x >> (35 - 5 * k)) & 31] : '=');
    }
  } else {
    buf_finish(&b);
    jv_unref(&E->R, s);
    return jq_errf(E, "%s is not a valid format", fmt);
  }
  jv_unref(&E->R, s);
  *out = jq_strv(E, &b);
  return 0;
}

/* ---- natives that drive evaluation ------------------------------------- */

typedef int (*jq_xfn)(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                      jq_k k, void *kd);

static int jqx_empty(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                     jq_k k, void *kd) {
  (void)E, (void)n, (void)env, (void)in, (void)ip, (void)k, (void)kd;
  return 0;
}

typedef struct jq_pathk {
  jq_k k;
  void *kd;
  jv ip;
} jq_pathk;

static int jq_k_path(jq_ev *E, jv v, jv p, void *d) {
  jq_pathk *x = d;
  if (jq_pt_is_bad(p)) {
    buf t;
    buf_init(&t, E->R.m);
    buf_puts(&t, "Invalid path expression with result ");
    jv_dump_trunc(&E->R, &t, v, 15);
    E->err = jq_strv(E, &t);
    return JQ_ERR;
  }
  return x->k(E, p, jq_pt_is_off(x->ip) ? x->ip : jq_pt_bad(), x->kd);
}

static int jqx_path(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                    jq_k k, void *kd) {
  jq_pathk x;
  jv root = jv_arr(&E->R);
  int rc;
  x.k = k;
  x.kd = kd;
  x.ip = ip;
  rc = jq_eval(E, n->args[0], env, in, root, jq_k_path, &x);
  jv_unref(&E->R, root);
  return rc;
}

typedef struct jq_gpk {
  jv in, ip;
  jq_k k;
  void *kd;
} jq_gpk;

static int jq_k_getpath(jq_ev *E, jv p, jv pp, void *d) {
  jq_gpk *x = d;
  jv r, np;
  int rc;
  (void)pp;
  if (jq_getpath(E, x->in, p, &r)) {
    if (x->in.k == JV_NULL || p.k != JV_ARRAY) return JQ_ERR;
    return JQ_ERR;
  }
  if (!jq_pt_is_off(x->ip) && x->ip.k == JV_ARRAY) {
    size_t i;
    np = jv_ref(x->ip);
    for (i = 0; i < jv_alen(p); i++)
      jv_apush(&E->R, &np, jv_ref(jv_aget(p, i)));
  } else
    np = x->ip;
  rc = x->k(E, r, np, x->kd);
  jv_unref(&E->R, r);
  if (np.k == JV_ARRAY) jv_unref(&E->R, np);
  return rc;
}

static int jqx_getpath(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                       jq_k k, void *kd) {
  jq_gpk x;
  x.in = in;
  x.ip = ip;
  x.k = k;
  x.kd = kd;
  return jq_eval(E, n->args[0], env, in, jq_pt_off(), jq_k_getpath, &x);
}

static int jqx_recurse0(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                        jq_k k, void *kd) {
  (void)n, (void)env;
  return jq_recurse_all(E, in, ip, k, kd);
}

/* Collects (value, path) pairs of f on v. */
typedef struct jq_vp {
  jv vals, paths;
} jq_vp;

static int jq_k_vp(jq_ev *E, jv v, jv p, void *d) {
  jq_vp *x = d;
  jv_apush(&E->R, &x->vals, jv_ref(v));
  jv_apush(&E->R, &x->paths, p.k == JV_ARRAY ? jv_ref(p) : p);
  return E->R.oom ? MSB_ENOMEM : 0;
}

/* Depth-first expansion of f from in: mode 0 recurse(f) (emit, then
 * children), 1 repeat (same), 2 while(cond; f), 3 until(cond; f). */
static int jq_iterate(jq_ev *E, const jq_node *f, const jq_node *cond,
                      jq_env *env, jv in, jv ip, int mode, jq_k k, void *kd) {
  jq_vp st;
  int rc = 0;
  st.vals = jv_arr(&E->R);
  st.paths = jv_arr(&E->R);
  jv_apush(&E->R, &st.vals, jv_ref(in));
  jv_apush(&E->R, &st.paths, ip.k == JV_ARRAY ? jv_ref(ip) : ip);
  while (!rc && jv_alen(st.vals)) {
    size_t top = jv_alen(st.vals) - 1, base, a, b;
    jv v = jv_aget(st.vals, top), p = jv_aget(st.paths, top);
    int go = 1;
    ((jq_arr *)st.vals.p)->len--;
    ((jq_arr *)st.paths.p)->len--;
    if ((rc = cmd_tick(E->c, 1))) {
      jv_unref(&E->R, v);
      jv_unref(&E->R, p);
      break;
    }
    if (mode >= 2) {
      jv c;
      if ((rc = jq_collect(E, cond, env, v, &c))) {
        jv_unref(&E->R, v);
        jv_unref(&E->R, p);
        break;
      }
      go = jv_alen(c) && jv_truthy(jv_aget(c, jv_alen(c) - 1));
      jv_unref(&E->R, c);
      if (mode == 3) {
        if (go) rc = k(E, v, p, kd);
        go = !go;
      } else if (!go)
        ;
      else
        rc = k(E, v, p, kd);
    } else
      rc = k(E, v, p, kd);
    if (!rc && go) {
      base = jv_alen(st.vals);
      rc = jq_eval(E, f, env, v, p, jq_k_vp, &st);
      for (a = base, b = jv_alen(st.vals); b > a + 1; a++, b--) {
        jv *x = ((jq_arr *)st.vals.p)->v, *y = ((jq_arr *)st.paths.p)->v, t;
        t = x[a], x[a] = x[b - 1], x[b - 1] = t;
        t = y[a], y[a] = y[b - 1], y[b - 1] = t;
      }
    }
    jv_unref(&E->R, v);
    jv_unref(&E->R, p);
  }
  jv_unref(&E->R, st.vals);
  jv_unref(&E->R, st.paths);
  return rc;
}

static int jqx_recurse1(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                        jq_k k, void *kd) {
  return jq_iterate(E, n->args[0], NULL, env, in, ip, 0, k, kd);
}
/* jq 1.7.1 applies f to the same input again and again. */
static int jqx_repeat(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                      jq_k k, void *kd) {
  int rc;
  for (;;) {
    if ((rc = cmd_tick(E->c, 1))) return rc;
    if ((rc = jq_eval(E, n->args[0], env, in, ip, k, kd))) return rc;
  }
}
static int jqx_while(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                     jq_k k, void *kd) {
  return jq_iterate(E, n->args[1], n->args[0], env, in, ip, 2, k, kd);
}
static int jqx_until(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                     jq_k k, void *kd) {
  return jq_iterate(E, n->args[1], n->args[0], env, in, ip, 3, k, kd);
}

static int jqx_input(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                     jq_k k, void *kd) {
  jv v;
  int rc;
  (void)n, (void)env, (void)in;
  rc = E->next_input ? E->next_input(E, &v) : 0;
  if (rc < 0) return rc;
  if (rc == JQ_INPUT_ERR) return JQ_ERR;
  if (!rc) return jq_errf(E, "break");
  return jq_emit(E, v, ip, k, kd);
}

static int jqx_inputs(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                      jq_k k, void *kd) {
  jv v;
  int rc = 0;
  (void)n, (void)env, (void)in;
  while (E->next_input && (rc = E->next_input(E, &v)) == 1)
    if ((rc = jq_emit(E, v, ip, k, kd))) return rc;
  if (rc == JQ_INPUT_ERR) return JQ_ERR;
  return rc < 0 ? rc : 0;
}

static int jqx_debug(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                     jq_k k, void *kd) {
  (void)n, (void)env;
  buf_puts(E->c->err, "[\"DEBUG:\",");
  jv_dump(&E->R, E->c->err, in, &E->debug_fmt, 0);
  buf_puts(E->c->err, "]\n");
  return k(E, in, ip, kd);
}

static int jqx_stderr(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                      jq_k k, void *kd) {
  jq_fmt f = {0, 0, 0, 0};
  (void)n, (void)env;
  /* jq 1.7.1 writes a string's bytes as they are */
  if (in.k == JV_STRING)
    buf_put(E->c->err, jv_sp(in), jv_sl(in));
  else
    jv_dump(&E->R, E->c->err, in, &f, 0);
  return k(E, in, ip, kd);
}

static int jqx_halt(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                    jq_k k, void *kd) {
  (void)n, (void)env, (void)in, (void)ip, (void)k, (void)kd;
  E->halt_code = 0;
  return JQ_HALT;
}

typedef struct jq_hk {
  jv in;
} jq_hk;

static int jq_k_halt_error(jq_ev *E, jv code, jv p, void *d) {
  jq_hk *h = d;
  (void)p;
  if (code.k != JV_NUMBER)
    return jq_kerr(E, h->in, "halt_error/1: number required");
  if (h->in.k == JV_STRING)
    buf_put(E->c->err, jv_sp(h->in), jv_sl(h->in));
  else if (h->in.k != JV_NULL) {
    jq_fmt f = {0, 0, 0, 0};
    jv_dump(&E->R, E->c->err, h->in, &f, 0);
    buf_putc(E->c->err, '\n');
  }
  E->halt_code = (int)code.n;
  return JQ_HALT;
}

static int jqx_halt_error(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                          jq_k k, void *kd) {
  jq_hk h;
  (void)ip, (void)k, (void)kd;
  h.in = in;
  return jq_eval(E, n->args[0], env, in, jq_pt_off(), jq_k_halt_error, &h);
}

/* jq 1.7.1 defines sort_by(f) as _sort_by_impl(map([f])): on an object
 * map's keys are computed from its values, then the impl refuses the
 * object. */
static int jq_kerr_by_obj(jq_ev *E, const jq_node *f, jq_env *env, jv in) {
  jq_ent *e;
  size_t it = 0;
  jv keys = jv_arr(&E->R);
  int rc = 0;
  buf b;
  while (!rc && (e = jv_onext(in, &it))) {
    jv key;
    if (f)
      rc = jq_collect(E, f, env, e->val, &key);
    else
      key = jv_arr(&E->R), jv_apush(&E->R, &key, jv_ref(e->val));
    if (!rc) jv_apush(&E->R, &keys, key);
  }
  if (rc) {
    jv_unref(&E->R, keys);
    return rc;
  }
  buf_init(&b, E->R.m);
  buf_puts(&b, "object (");
  jv_dump_trunc(&E->R, &b, in, 15);
  buf_puts(&b, ") and array (");
  jv_dump_trunc(&E->R, &b, keys, 15);
  buf_puts(&b, ") cannot be sorted, as they are not both arrays");
  jv_unref(&E->R, keys);
  E->err = jq_strv(E, &b);
  return JQ_ERR;
}

/* sort_by / group_by: keys are [f] per element. */
static int jq_bykeys(jq_ev *E, const jq_node *f, jq_env *env, jv in,
                     jv *pairs) {
  size_t i;
  int rc;
  if (in.k == JV_OBJECT) return jq_kerr_by_obj(E, f, env, in);
  if (in.k != JV_ARRAY) return jq_kerr_iter(E, in);
  *pairs = jv_arr(&E->R);
  for (i = 0; i < jv_alen(in); i++) {
    jv key, pr = jv_arr(&E->R);
    if ((rc = jq_collect(E, f, env, jv_aget(in, i), &key))) {
      jv_unref(&E->R, pr);
      jv_unref(&E->R, *pairs);
      return rc;
    }
    jv_apush(&E->R, &pr, key);
    jv_apush(&E->R, &pr, jv_num((double)i));
    jv_apush(&E->R, &pr, jv_ref(jv_aget(in, i)));
    jv_apush(&E->R, pairs, pr);
  }
  jv_sort(&E->R, pairs);
  return 0;
}

static int jqx_sort_by(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                       jq_k k, void *kd) {
  jv pairs, r;
  size_t i;
  int rc;
  if ((rc = jq_bykeys(E, n->args[0], env, in, &pairs))) return rc;
  r = jv_arr(&E->R);
  for (i = 0; i < jv_alen(pairs); i++)
    jv_apush(&E->R, &r, jv_ref(jv_aget(jv_aget(pairs, i), 2)));
  jv_unref(&E->R, pairs);
  return jq_emit(E, r, ip, k, kd);
}

static int jqx_group_by(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                        jq_k k, void *kd) {
  jv pairs, r, g = jv_null();
  size_t i;
  int rc;
  if ((rc = jq_bykeys(E, n->args[0], env, in, &pairs))) return rc;
  r = jv_arr(&E->R);
  for (i = 0; i < jv_alen(pairs); i++) {
    jv pr = jv_aget(pairs, i);
    if (i && jv_cmp(jv_aget(pr, 0), jv_aget(jv_aget(pairs, i - 1), 0))) {
      jv_apush(&E->R, &r, g);
      g = jv_null();
    }
    if (g.k == JV_NULL) g = jv_arr(&E->R);
    jv_apush(&E->R, &g, jv_ref(jv_aget(pr, 2)));
  }
  if (g.k != JV_NULL) jv_apush(&E->R, &r, g);
  jv_unref(&E->R, pairs);
  return jq_emit(E, r, ip, k, kd);
}

/* sub / gsub: the replacement is evaluated on each match's named captures;
 * several outputs give several results. */
typedef struct jq_subc {
  jv in, matches;
  const jq_node *repl;
  jq_env *env;
  jv ip;
  jq_k k;
  void *kd;
} jq_subc;

static size_t jq_cpbyte(jv s, double cp) {
  size_t i, n = 0, l = jv_sl(s);
  for (i = 0; i < l; i++)
    if (((uint8_t)jv_sp(s)[i] & 0xc0) != 0x80 && (double)n++ == cp) return i;
  return l;
}

/* The captures of match m as {name: string} (the replacement's input). */
static jv jq_sub_caps(jq_ev *E, jv m) {
  jv caps = *jv_oget(m, "captures", 8), obj = jv_obj(&E->R);
  size_t j;
  for (j = 0; j < jv_alen(caps); j++) {
    jv c = jv_aget(caps, j), *nm = jv_oget(c, "name", 4);
    if (nm && nm->k == JV_STRING)
      jv_oset(&E->R, &obj, jv_ref(*nm), jv_ref(*jv_oget(c, "string", 6)));
  }
  return obj;
}

/* jq 1.7.1's sub: the replacement's outputs for a match are numbered, and
 * result i strings together the gaps and each match's output i, so
 * `sub("a"; "x", "y")` gives two strings, not one per combination. */
static int jq_sub_run(jq_ev *E, jq_subc *s) {
  jv results = jv_arr(&E->R);
  size_t i, ix, prev = 0;
  int rc = 0;
  for (i = 0; !rc && i < jv_alen(s->matches); i++) {
    jv m = jv_aget(s->matches, i), ins, obj = jq_sub_caps(E, m);
    size_t off = jq_cpbyte(s->in, jv_oget(m, "offset", 6)->n);
    rc = jq_collect(E, s->repl, s->env, obj, &ins);
    jv_unref(&E->R, obj);
    if (rc) break;
    /* .result[ix] += gap + output ix, with jq's + (null adds nothing) */
    for (ix = 0; !rc && ix < jv_alen(ins); ix++) {
      jv gap = jv_str(&E->R, jv_sp(s->in) + prev, off - prev), piece, r;
      rc = jq_binop(E, JO_ADD, gap, jv_aget(ins, ix), &piece);
      jv_unref(&E->R, gap);
      if (rc) break;
      if (ix == jv_alen(results)) jv_apush(&E->R, &results, jv_null());
      rc = jq_binop(E, JO_ADD, jv_aget(results, ix), piece, &r);
      jv_unref(&E->R, piece);
      if (!rc) jv_aset(&E->R, &results, ix, r);
    }
    jv_unref(&E->R, ins);
    prev = jq_cpbyte(s->in,
                     jv_oget(m, "offset", 6)->n + jv_oget(m, "length", 6)->n);
  }
  if (!rc && !jv_alen(results))
    rc = jq_emit(E, jv_ref(s->in), s->ip, s->k, s->kd);
  for (i = 0; !rc && i < jv_alen(results); i++) {
    jv r = jv_ref(jv_aget(results, i));
    r = jv_sappend(&E->R, r, jv_sp(s->in) + prev, jv_sl(s->in) - prev);
    rc = jq_emit(E, r, s->ip, s->k, s->kd);
  }
  jv_unref(&E->R, results);
  return rc;
}

typedef struct jq_subargs {
  const jq_node *n;
  jq_env *env;
  jv in, ip, re;
  jq_k k;
  void *kd;
  int global;
} jq_subargs;

static int jq_k_subflags(jq_ev *E, jv fl, jv p, void *d) {
  jq_subargs *a = d;
  jv args[3], matches, flags;
  jq_subc s;
  int rc;
  (void)p;
  if (fl.k != JV_STRING && fl.k != JV_NULL)
    return jq_kerr(E, fl, "is not a string");
  flags = fl.k == JV_STRING ? jv_ref(fl) : jv_str(&E->R, "", 0);
  if (a->global) flags = jv_sappend(&E->R, flags, "g", 1);
  args[0] = a->re;
  args[1] = flags;
  args[2] = jv_bool(0);
  rc = jqb_match_impl(E, a->in, args, &matches);
  jv_unref(&E->R, flags);
  if (rc) return rc;
  s.in = a->in;
  s.matches = matches;
  s.repl = a->n->args[1];
  s.env = a->env;
  s.ip = a->ip;
  s.k = a->k;
  s.kd = a->kd;
  rc = jq_sub_run(E, &s);
  jv_unref(&E->R, matches);
  return rc;
}

static int jq_k_subre(jq_ev *E, jv re, jv p, void *d) {
  jq_subargs *a = d, b = *a;
  (void)p;
  b.re = re;
  if (a->n->nargs == 3)
    return jq_eval(E, a->n->args[2], a->env, a->in, jq_pt_off(), jq_k_subflags,
                   &b);
  return jq_k_subflags(E, jv_null(), p, &b);
}

static int jq_subx(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                   jq_k k, void *kd, int global) {
  jq_subargs a;
  a.n = n;
  a.env = env;
  a.in = in;
  a.ip = ip;
  a.k = k;
  a.kd = kd;
  a.global = global;
  a.re = jv_null();
  if (in.k != JV_STRING)
    return jq_kerr(E, in, "cannot be matched, as it is not a string");
  return jq_eval(E, n->args[0], env, in, jq_pt_off(), jq_k_subre, &a);
}

static int jqx_sub(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                   jq_k k, void *kd) {
  return jq_subx(E, n, env, in, ip, k, kd, 0);
}
static int jqx_gsub(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                    jq_k k, void *kd) {
  return jq_subx(E, n, env, in, ip, k, kd, 1);
}

/* range: iterative, charged to the step limit. */
static int jq_range(jq_ev *E, double from, double upto, double by, jv ip,
                    jq_k k, void *kd) {
  double x;
  int rc;
  uint64_t n = 0;
  if (by == 0) return 0;
  for (x = from; by > 0 ? x < upto : x > upto; x += by) {
    if ((++n & 255) == 0 && (rc = cmd_tick(E->c, 1))) return rc;
    if (E->R.oom) return MSB_ENOMEM;
    if ((rc = k(E, jv_num(x), jq_pt_is_off(ip) ? ip : jq_pt_bad(), kd)))
      return rc;
  }
  return 0;
}

typedef struct jq_rgc {
  const jq_node *n;
  jq_env *env;
  jv in, ip;
  jq_k k;
  void *kd;
  jv v[3];
  int i;
} jq_rgc;

static int jq_k_range(jq_ev *E, jv v, jv p, void *d) {
  jq_rgc *c = d, c2 = *c;
  (void)p;
  if (v.k != JV_NUMBER) return jq_errf(E, "Range bounds must be numeric");
  c2.v[c->i] = v;
  c2.i = c->i + 1;
  if (c2.i < c->n->nargs)
    return jq_eval(E, c->n->args[c2.i], c->env, c->in, jq_pt_off(), jq_k_range,
                   &c2);
  if (c->n->nargs == 1) return jq_range(E, 0, c2.v[0].n, 1, c->ip, c->k, c->kd);
  return jq_range(E, c2.v[0].n, c2.v[1].n, c->n->nargs == 3 ? c2.v[2].n : 1,
                  c->ip, c->k, c->kd);
}

static int jqx_range(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                     jq_k k, void *kd) {
  jq_rgc c;
  c.n = n;
  c.env = env;
  c.in = in;
  c.ip = ip;
  c.k = k;
  c.kd = kd;
  c.i = 0;
  return jq_eval(E, n->args[0], env, in, jq_pt_off(), jq_k_range, &c);
}

/* ---- the table --------------------------------------------------------- */

static const struct jq_bi {
  const char *name;
  int arity;
  jq_sfn s;
  jq_xfn x;
} jq_bis[] = {{"_match_impl", 3, jqb_match_impl, NULL},
              {"_max_by_impl", 1, jqb_max_by, NULL},
              {"_min_by_impl", 1, jqb_min_by, NULL},
              {"_strindices", 1, jqb_strindices, NULL},
              {"abs", 0, jqb_abs, NULL},
              {"add", 0, jqb_add, NULL},
              {"bsearch", 1, jqb_bsearch, NULL},
              {"builtins", 0, jqb_builtins, NULL},
              {"contains", 1, jqb_contains, NULL},
              {"debug", 0, NULL, jqx_debug},
              {"delpaths", 1, jqb_delpaths, NULL},
              {"empty", 0, NULL, jqx_empty},
              {"endswith", 1, jqb_endswith, NULL},
              {"error", 0, jqb_error0, NULL},
              {"error", 1, jqb_error1, NULL},
              {"explode", 0, jqb_explode, NULL},
              {"flatten", 0, jqb_flatten, NULL},
              {"flatten", 1, jqb_flatten1, NULL},
              {"fromjson", 0, jqb_fromjson, NULL},
              {"getpath", 1, NULL, jqx_getpath},
              {"gmtime", 0, jqb_gmtime, NULL},
              {"group_by", 1, NULL, jqx_group_by},
              {"gsub", 2, NULL, jqx_gsub},
              {"gsub", 3, NULL, jqx_gsub},
              {"halt", 0, NULL, jqx_halt},
              {"halt_error", 1, NULL, jqx_halt_error},
              {"has", 1, jqb_has, NULL},
              {"implode", 0, jqb_implode, NULL},
              {"infinite", 0, jqb_infinite, NULL},
              {"input", 0, NULL, jqx_input},
              {"input_filename", 0, jqb_input_filename, NULL},
              {"input_line_number", 0, jqb_input_line_number, NULL},
              {"inputs", 0, NULL, jqx_inputs},
              {"isinfinite", 0, jqb_isinfinite, NULL},
              {"isnan", 0, jqb_isnan, NULL},
              {"isnormal", 0, jqb_isnormal, NULL},
              {"join", 1, jqb_join, NULL},
              {"keys", 0, jqb_keys, NULL},
              {"keys_unsorted", 0, jqb_keys_unsorted, NULL},
              {"length", 0, jqb_length, NULL},
              {"localtime", 0, jqb_gmtime, NULL},
              {"ltrimstr", 1, jqb_ltrimstr, NULL},
              {"max", 0, jqb_max, NULL},
              {"min", 0, jqb_min, NULL},
              {"mktime", 0, jqb_mktime, NULL},
              {"nan", 0, jqb_nan, NULL},
              {"not", 0, jqb_not, NULL},
              {"now", 0, jqb_now, NULL},
              {"path", 1, NULL, jqx_path},
              {"range", 1, NULL, jqx_range},
              {"range", 2, NULL, jqx_range},
              {"range", 3, NULL, jqx_range},
              {"recurse", 0, NULL, jqx_recurse0},
              {"recurse", 1, NULL, jqx_recurse1},
              {"repeat", 1, NULL, jqx_repeat},
              {"reverse", 0, jqb_reverse, NULL},
              {"rtrimstr", 1, jqb_rtrimstr, NULL},
              {"setpath", 2, jqb_setpath, NULL},
              {"sort", 0, jqb_sort, NULL},
              {"sort_by", 1, NULL, jqx_sort_by},
              {"split", 1, jqb_split, NULL},
              {"startswith", 1, jqb_startswith, NULL},
              {"stderr", 0, NULL, jqx_stderr},
              {"strflocaltime", 1, jqb_strftime, NULL},
              {"strftime", 1, jqb_strftime, NULL},
              {"strptime", 1, jqb_strptime, NULL},
              {"sub", 2, NULL, jqx_sub},
              {"sub", 3, NULL, jqx_sub},
              {"to_entries", 0, jqb_to_entries, NULL},
              {"tojson", 0, jqb_tojson, NULL},
              {"tonumber", 0, jqb_tonumber, NULL},
              {"tostring", 0, jqb_tostring, NULL},
              {"type", 0, jqb_type, NULL},
              {"unique", 0, jqb_unique, NULL},
              {"until", 2, NULL, jqx_until},
              {"utf8bytelength", 0, jqb_utf8bytelength, NULL},
              {"while", 2, NULL, jqx_while},
              {NULL, 0, NULL, NULL}};

#define JQ_MATH1 1000
#define JQ_MATH2 2000
#define JQ_MATHX 3000

static const char *const jq_mathx[] = {"frexp",   "modf", "ldexp", "scalb",
                                       "scalbln", "fma",  NULL};
static const int jq_mathx_ar[] = {0, 0, 2, 2, 2, 3};

int jq_native_find(const char *name, int arity) {
  int i;
  for (i = 0; jq_bis[i].name; i++)
    if (jq_bis[i].arity == arity && !strcmp(jq_bis[i].name, name)) return i;
  for (i = 0; arity == 0 && jq_math1[i].name; i++)
    if (!strcmp(jq_math1[i].name, name)) return JQ_MATH1 + i;
  for (i = 0; arity == 2 && jq_math2[i].name; i++)
    if (jq_math2[i].f && !strcmp(jq_math2[i].name, name)) return JQ_MATH2 + i;
  for (i = 0; jq_mathx[i]; i++)
    if (jq_mathx_ar[i] == arity && !strcmp(jq_mathx[i], name))
      return JQ_MATHX + i;
  return -1;
}

static int jqb_builtins(jq_ev *E, jv in, jv *a, jv *out) {
  int i;
  char t[64];
  (void)in, (void)a;
  *out = jv_arr(&E->R);
  for (i = 0; jq_bis[i].name; i++) {
    if (jq_bis[i].name[0] == '_') continue;
    snprintf(t, sizeof t, "%s/%d", jq_bis[i].name, jq_bis[i].arity);
    jv_apush(&E->R, out, jv_cstr(&E->R, t));
  }
  for (i = 0; jq_math1[i].name; i++) {
    snprintf(t, sizeof t, "%s/0", jq_math1[i].name);
    jv_apush(&E->R, out, jv_cstr(&E->R, t));
  }
  return 0;
}

/* Math natives: the index picks the function (set by the dispatcher in
 * E->brk's place would be clumsy; the call node is passed through a). */
static int jq_math_call(jq_ev *E, int bi, jv in, jv *a, jv *out) {
  int i;
  if (bi >= JQ_MATHX) {
    i = bi - JQ_MATHX;
    if (i <= 1) {
      double ip2;
      int e;
      if (in.k != JV_NUMBER) return jq_kerr(E, in, "number required");
      *out = jv_arr(&E->R);
      if (i == 0) {
        double m = frexp(in.n, &e);
        jv_apush(&E->R, out, jv_num(m));
        jv_apush(&E->R, out, jv_num(e));
      } else {
        double f = modf(in.n, &ip2);
        jv_apush(&E->R, out, jv_num(f));
        jv_apush(&E->R, out, jv_num(ip2));
      }
      return 0;
    }
    if (a[0].k != JV_NUMBER || a[1].k != JV_NUMBER ||
        (i == 5 && a[2].k != JV_NUMBER))
      return jq_kerr(E, a[0].k != JV_NUMBER ? a[0] : a[1], "number required");
    if (i == 5)
      *out = jv_num(fma(a[0].n, a[1].n, a[2].n));
    else
      *out = jv_num(ldexp(a[0].n, (int)a[1].n));
    return 0;
  }
  if (bi >= JQ_MATH2) {
    if (a[0].k != JV_NUMBER || a[1].k != JV_NUMBER)
      return jq_kerr(E, a[0].k != JV_NUMBER ? a[0] : a[1], "number required");
    *out = jv_num(jq_math2[bi - JQ_MATH2].f(a[0].n, a[1].n));
    return 0;
  }
  if (in.k != JV_NUMBER) return jq_kerr(E, in, "number required");
  *out = jv_num(jq_m1(jq_math1[bi - JQ_MATH1].name, in.n));
  return 0;
}

/* Simple natives: arguments evaluated first, the first varying slowest. */
typedef struct jq_sc {
  const jq_node *n;
  jq_env *env;
  jv in, ip;
  jq_k k;
  void *kd;
  jv a[3];
  int i, bi;
} jq_sc;

static int jq_simple_run(jq_ev *E, jq_sc *c) {
  jv r;
  int rc;
  if (c->bi >= JQ_MATH1)
    rc = jq_math_call(E, c->bi, c->in, c->a, &r);
  else
    rc = jq_bis[c->bi].s(E, c->in, c->a, &r);
  if (rc) return rc;
  return jq_emit(E, r, c->ip, c->k, c->kd);
}

static int jq_k_sarg(jq_ev *E, jv v, jv p, void *d) {
  jq_sc *c = d, c2 = *c;
  (void)p;
  c2.a[c->i] = v;
  c2.i = c->i + 1;
  if (c2.i == c->n->nargs) return jq_simple_run(E, &c2);
  return jq_eval(E, c->n->args[c2.i], c->env, c->in, jq_pt_off(), jq_k_sarg,
                 &c2);
}

int jq_call_native(jq_ev *E, const jq_node *n, jq_env *env, jv in, jv ip,
                   jq_k k, void *kd) {
  int bi = n->bi - 1;
  jq_sc c;
  if (bi < JQ_MATH1 && jq_bis[bi].x)
    return jq_bis[bi].x(E, n, env, in, ip, k, kd);
  memset(&c, 0, sizeof c);
  c.n = n;
  c.env = env;
  c.in = in;
  c.ip = ip;
  c.k = k;
  c.kd = kd;
  c.bi = bi;
  if (!n->nargs) return jq_simple_run(E, &c);
  return jq_eval(E, n->args[0], env, in, jq_pt_off(), jq_k_sarg, &c);
}
