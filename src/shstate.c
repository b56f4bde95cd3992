/* shstate.c - the shell session as snapshot records, and back.
 *
 * Encoding (pax global records, keys after "MEMSANDBOX."; all text is
 * ASCII because bytes outside 0x21-0x7e, '%' and, inside lists, ' ' and
 * '=' are written as %XX):
 *   shell            encoding version (SHSTATE_VERSION)
 *   set, shopt       the enabled `set -o` / `shopt` options, by name,
 *                    space-separated
 *   status           $?          random   $RANDOM generator state (hex)
 *   umask            octal       args     positional parameters (list)
 *   dirs             pushd stack (list)
 *   trap.EXIT, trap.ERR, trap.RETURN   trap commands
 *   alias.NAME       alias value
 *   var.NAME         "-" + attribute letters (a A i l n r u x, and _ for
 *                    declared without a value), then for a scalar " " and
 *                    the value, for arrays " IDX=VALUE" or " KEY=VALUE" per
 *                    element; associative arrays first give their bucket
 *                    count when not 1024 (" 4096"), then their elements in
 *                    an order whose insertion rebuilds bash's hash table,
 *                    which fixes its iteration order
 *   func.NAME        the definition as `declare -f NAME` prints it
 * Everything is written in a fixed order (variables and functions sorted
 * by name), so equal sessions give equal bytes.
 *
 * Loading never runs shell code: values are set through var.c and function
 * text goes through the parser only, which must yield exactly one
 * definition of that name. Anything malformed (bad escapes, unknown option
 * names, invalid names, duplicates) rejects the archive. Function locals,
 * the directory hash table and history do not exist between calls, so
 * nothing of them is saved. */
#include "shstate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "interp.h"
#include "memsandbox.h"
#include "parse.h"

typedef struct shstate_opt {
  const char *name;
  unsigned flag;
} shstate_opt;

/* The options the interpreter implements; sorted by name. */
static const shstate_opt shstate_setopts[] = {
    {"allexport", SH_O_ALLEXPORT}, {"braceexpand", SH_O_BRACE},
    {"errexit", SH_O_ERREXIT},     {"hashall", SH_O_HASHALL},
    {"noclobber", SH_O_NOCLOBBER}, {"noexec", SH_O_NOEXEC},
    {"noglob", SH_O_NOGLOB},       {"nounset", SH_O_NOUNSET},
    {"pipefail", SH_O_PIPEFAIL},   {"verbose", SH_O_VERBOSE},
    {"xtrace", SH_O_XTRACE},
};

static const shstate_opt shstate_shopts[] = {
    {"dotglob", SH_SO_DOTGLOB},
    {"expand_aliases", SH_SO_EXPAND_ALIASES},
    {"extglob", SH_SO_EXTGLOB},
    {"failglob", SH_SO_FAILGLOB},
    {"globstar", SH_SO_GLOBSTAR},
    {"inherit_errexit", SH_SO_INHERIT_ERREXIT},
    {"lastpipe", SH_SO_LASTPIPE},
    {"nocaseglob", SH_SO_NOCASEGLOB},
    {"nocasematch", SH_SO_NOCASEMATCH},
    {"nullglob", SH_SO_NULLGLOB},
};

#define SHSTATE_NOPT(t) (sizeof(t) / sizeof((t)[0]))
#define SHSTATE_BUCKETS 1024u /* an associative array's unsaved bucket count */

static const struct {
  unsigned attr;
  char c;
} shstate_attrs[] = {
    {VAR_ARRAY, 'a'}, {VAR_ASSOC, 'A'},   {VAR_INTEGER, 'i'},
    {VAR_LOWER, 'l'}, {VAR_NAMEREF, 'n'}, {VAR_READONLY, 'r'},
    {VAR_UPPER, 'u'}, {VAR_EXPORT, 'x'},  {VAR_NOVALUE, '_'},
};

/* ---- save ----------------------------------------------------------- */

/* Appends s[0..n) with %XX escapes; list: ' ' and '=' escaped too. */
static void shstate_esc(buf *b, const char *s, size_t n, int list) {
  static const char hex[] = "0123456789ABCDEF";
  size_t i, run = 0;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    int esc = c == '%' || c < 0x20 || c >= 0x7f || (list && c <= ' ') ||
              (list && c == '=');
    if (!list && (c == '\n' || c == '\t')) esc = 0;
    if (!esc) continue;
    buf_put(b, s + run, i - run);
    buf_putc(b, '%');
    buf_putc(b, hex[c >> 4]);
    buf_putc(b, hex[c & 15]);
    run = i + 1;
  }
  buf_put(b, s + run, n - run);
}

/* Appends one record MEMSANDBOX.<pre><escaped name> = val. */
static void shstate_rec(buf *rec, buf *key, const char *pre, const char *name,
                        const buf *val) {
  buf_clear(key);
  buf_puts(key, "MEMSANDBOX.");
  buf_puts(key, pre);
  if (name) shstate_esc(key, name, strlen(name), 1);
  if (key->err) {
    rec->err = key->err;
    return;
  }
  if (val->err) {
    rec->err = val->err;
    return;
  }
  arc_pax_record(rec, buf_str(key), val->len ? val->p : "", val->len);
}

static void shstate_opts(buf *v, const shstate_opt *t, size_t n, unsigned on) {
  size_t i;
  buf_clear(v);
  for (i = 0; i < n; i++)
    if (on & t[i].flag) {
      if (v->len) buf_putc(v, ' ');
      buf_puts(v, t[i].name);
    }
}

static void shstate_list(buf *v, char **items, int n) {
  int i;
  buf_clear(v);
  for (i = 0; i < n; i++) {
    if (i) buf_putc(v, ' ');
    shstate_esc(v, items[i], strlen(items[i]), 1);
  }
}

static int shstate_var(mem *m, buf *v, const var *x) {
  size_t i, n;
  var_elem **el;
  buf_clear(v);
  buf_putc(v, '-');
  for (i = 0; i < SHSTATE_NOPT(shstate_attrs); i++)
    if (x->attr & shstate_attrs[i].attr) buf_putc(v, shstate_attrs[i].c);
  if ((x->attr & VAR_ASSOC) && var_assoc_buckets(x) != SHSTATE_BUCKETS)
    buf_printf(v, " %zu", var_assoc_buckets(x));
  if (x->attr & (VAR_ARRAY | VAR_ASSOC)) {
    if (var_elems_rebuild(m, x, &el, &n)) return MSB_ENOMEM;
    for (i = 0; i < n; i++) {
      const var_elem *e = el[i];
      buf_putc(v, ' ');
      if (x->attr & VAR_ASSOC)
        shstate_esc(v, e->key, strlen(e->key), 1);
      else
        buf_printf(v, "%lld", (long long)e->idx);
      buf_putc(v, '=');
      shstate_esc(v, e->val, strlen(e->val), 1);
    }
    mem_free(m, el);
  } else if (x->val) {
    buf_putc(v, ' ');
    shstate_esc(v, x->val, strlen(x->val), 1);
  }
  return v->err;
}

static int shstate_namecmp(const void *a, const void *b) {
  const sh_func *const *x = a, *const *y = b;
  return strcmp((*x)->name, (*y)->name);
}

static int shstate_funcs(shell *sh, buf *rec, buf *key, buf *v, char *why,
                         size_t whylen) {
  const sh_func **fs;
  size_t i, n = 0;
  int rc = 0;
  if (!sh->funcused) return 0;
  fs = mem_alloc(sh->m, sh->funcused * sizeof *fs);
  if (!fs) return MSB_ENOMEM;
  for (i = 0; i < sh->funcn; i++)
    if (sh->funcs[i].name && sh->funcs[i].body) fs[n++] = &sh->funcs[i];
  qsort(fs, n, sizeof *fs, shstate_namecmp);
  for (i = 0; i < n && !rc; i++) {
    buf t;
    buf_init(&t, sh->m);
    rc = ast_print_function(&t, fs[i]->name, fs[i]->body, AST_PRINT_STACK_MAX);
    if (rc == MSB_ELIMIT) rc = MSB_ENOTSUP; /* nested too deeply */
    if (rc == MSB_ENOTSUP)
      snprintf(why, whylen,
               "function '%s' cannot be saved: its body cannot be printed "
               "back exactly",
               fs[i]->name);
    if (!rc) {
      buf_clear(v);
      shstate_esc(v, t.p, t.len, 0);
      shstate_rec(rec, key, "func.", fs[i]->name, v);
      rc = rec->err;
    }
    buf_finish(&t);
  }
  mem_free(sh->m, fs);
  return rc;
}

/* Appends the session's records (see shstate.h). */
int shstate_save(shell *sh, buf *rec, char *why, size_t whylen) {
  static const char *const traps[] = {"EXIT", "ERR", "RETURN"};
  buf key, v;
  var **vars = NULL;
  size_t i, nv = 0;
  int rc;
  why[0] = 0;
  buf_init(&key, sh->m);
  buf_init(&v, sh->m);
  buf_clear(&v);
  buf_puts(&v, SHSTATE_VERSION);
  shstate_rec(rec, &key, "shell", NULL, &v);
  shstate_opts(&v, shstate_setopts, SHSTATE_NOPT(shstate_setopts), sh->opts);
  shstate_rec(rec, &key, "set", NULL, &v);
  shstate_opts(&v, shstate_shopts, SHSTATE_NOPT(shstate_shopts), sh->shopts);
  shstate_rec(rec, &key, "shopt", NULL, &v);
  buf_clear(&v);
  buf_printf(&v, "%d", sh->status & 255);
  shstate_rec(rec, &key, "status", NULL, &v);
  buf_clear(&v);
  buf_printf(&v, "%016llx", (unsigned long long)sh->rng);
  shstate_rec(rec, &key, "random", NULL, &v);
  buf_clear(&v);
  buf_printf(&v, "%04o", sh->umask & 0777);
  shstate_rec(rec, &key, "umask", NULL, &v);
  if (sh->npos) {
    shstate_list(&v, sh->pos, sh->npos);
    shstate_rec(rec, &key, "args", NULL, &v);
  }
  if (sh->ndirs) {
    shstate_list(&v, sh->dirstack, sh->ndirs);
    shstate_rec(rec, &key, "dirs", NULL, &v);
  }
  for (i = 0; i < 3; i++) {
    const char *t = i == 0   ? sh->trap_exit
                    : i == 1 ? sh->trap_err
                             : sh->trap_return;
    if (!t) continue;
    buf_clear(&v);
    shstate_esc(&v, t, strlen(t), 0);
    shstate_rec(rec, &key, "trap.", traps[i], &v);
  }
  for (i = 0; i < sh->naliases; i++) {
    buf_clear(&v);
    shstate_esc(&v, sh->aliases[i].value, strlen(sh->aliases[i].value), 0);
    shstate_rec(rec, &key, "alias.", sh->aliases[i].name, &v);
  }
  rc = rec->err ? rec->err : var_list(sh->vars, sh->m, &vars, &nv);
  for (i = 0; !rc && i < nv; i++) {
    rc = shstate_var(sh->m, &v, vars[i]);
    if (!rc) shstate_rec(rec, &key, "var.", vars[i]->name, &v);
    if (!rc) rc = rec->err;
  }
  mem_free(sh->m, vars);
  if (!rc) rc = shstate_funcs(sh, rec, &key, &v, why, whylen);
  buf_finish(&key);
  buf_finish(&v);
  if (!rc && rec->err) rc = rec->err;
  return rc;
}

/* ---- load ----------------------------------------------------------- */

typedef struct shstate_in {
  shell *sh;
  buf tmp, tmp2, name;
  char *why;
  size_t whylen;
  int have_vars;
} shstate_in;

static int shstate_bad(shstate_in *in, const char *key, const char *what) {
  snprintf(in->why, in->whylen, "snapshot record 'MEMSANDBOX.%s': %s", key,
           what);
  return MSB_ECORRUPT;
}

static int shstate_hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes s[0..n) into out (cleared first); -1 for a bad or NUL escape or
 * a raw byte the encoder would have escaped. */
static int shstate_unesc(const char *s, size_t n, int list, buf *out) {
  size_t i;
  buf_clear(out);
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '%') {
      int hi, lo;
      if (i + 2 >= n) return -1;
      hi = shstate_hexval((unsigned char)s[i + 1]);
      lo = shstate_hexval((unsigned char)s[i + 2]);
      if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) return -1;
      buf_putc(out, hi * 16 + lo);
      i += 2;
      continue;
    }
    if ((c < 0x20 && !(!list && (c == '\n' || c == '\t'))) || c >= 0x7f ||
        (list && (c == ' ' || c == '=')))
      return -1;
    buf_putc(out, c);
  }
  return out->err;
}

/* Next space-separated item of *p..end: sets *s, *n; 0 at the end. */
static int shstate_item(const char **p, const char *end, const char **s,
                        size_t *n) {
  const char *q;
  if (*p >= end) return 0;
  q = memchr(*p, ' ', (size_t)(end - *p));
  if (!q) q = end;
  *s = *p;
  *n = (size_t)(q - *p);
  *p = q < end ? q + 1 : end;
  return 1;
}

static int shstate_load_opts(shstate_in *in, const char *key, const char *val,
                             const shstate_opt *t, size_t nt, unsigned *out) {
  const char *p = val, *end = val + strlen(val), *s;
  size_t n, i;
  *out = 0;
  while (shstate_item(&p, end, &s, &n)) {
    for (i = 0; i < nt; i++)
      if (strlen(t[i].name) == n && !memcmp(t[i].name, s, n)) break;
    if (i == nt) return shstate_bad(in, key, "unknown option name");
    *out |= t[i].flag;
  }
  return 0;
}

/* Decodes a list into a NULL-free owned array. */
static int shstate_load_list(shstate_in *in, const char *key, const char *val,
                             char ***out, int *count) {
  mem *m = in->sh->m;
  const char *p = val, *end = val + strlen(val), *s;
  size_t n, k = 0, cap = 0;
  char **a = NULL;
  int rc = 0;
  while (!rc && shstate_item(&p, end, &s, &n)) {
    if (k == cap) {
      char **na;
      cap = cap ? cap * 2 : 8;
      na = mem_realloc(m, a, cap * sizeof *na);
      if (!na) {
        rc = MSB_ENOMEM;
        break;
      }
      a = na;
    }
    if (k >= 1000000) rc = shstate_bad(in, key, "too many items");
    if (!rc && shstate_unesc(s, n, 1, &in->tmp))
      rc = in->tmp.err ? in->tmp.err : shstate_bad(in, key, "bad escape");
    if (!rc && !(a[k] = mem_strdup(m, buf_str(&in->tmp)))) rc = MSB_ENOMEM;
    if (!rc) k++;
  }
  if (rc) {
    while (k) mem_free(m, a[--k]);
    mem_free(m, a);
    return rc;
  }
  *out = a;
  *count = (int)k;
  return 0;
}

static void shstate_free_list(mem *m, char **a, int n) {
  while (n > 0) mem_free(m, a[--n]);
  mem_free(m, a);
}

/* Reads an associative array's optional leading bucket count (an item
 * without '='); nonzero when it is one bash cannot reach. */
static int shstate_buckets(var *v, const char **p, const char *end) {
  const char *s, *q = *p;
  size_t n, i, nb = 0;
  if (!shstate_item(&q, end, &s, &n) || memchr(s, '=', n)) return 0;
  for (i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9' || nb > SIZE_MAX / 10 - 1) return 1;
    nb = nb * 10 + (size_t)(s[i] - '0');
  }
  *p = q;
  return var_assoc_set_buckets(v, nb) != 0;
}

static int shstate_load_var(shstate_in *in, const char *key, const char *name,
                            const char *val) {
  var_store *vs = in->sh->vars;
  const char *p = val, *end = val + strlen(val), *s, *eq;
  unsigned attr = 0;
  size_t n, i;
  var *v;
  int rc = 0;
  if (!var_valid_name(name, strlen(name)))
    return shstate_bad(in, key, "invalid variable name");
  if (var_lookup(vs, name)) return shstate_bad(in, key, "duplicate variable");
  if (*p++ != '-') return shstate_bad(in, key, "missing attributes");
  for (; p < end && *p != ' '; p++) {
    for (i = 0; i < SHSTATE_NOPT(shstate_attrs); i++)
      if (shstate_attrs[i].c == *p) break;
    if (i == SHSTATE_NOPT(shstate_attrs))
      return shstate_bad(in, key, "unknown attribute");
    attr |= shstate_attrs[i].attr;
  }
  if ((attr & VAR_ARRAY) && (attr & VAR_ASSOC))
    return shstate_bad(in, key, "conflicting attributes");
  v = var_bind(vs, name, VS_GLOBAL);
  if (!v) return MSB_ENOMEM;
  if (attr & (VAR_ARRAY | VAR_ASSOC)) {
    if (p < end) p++;
    var_make_array(vs, v, (attr & VAR_ASSOC) != 0);
    if ((attr & VAR_ASSOC) && shstate_buckets(v, &p, end))
      return shstate_bad(in, key, "bad bucket count");
    while (!rc && shstate_item(&p, end, &s, &n)) {
      eq = memchr(s, '=', n);
      if (!eq) return shstate_bad(in, key, "element without '='");
      if (shstate_unesc(eq + 1, n - (size_t)(eq + 1 - s), 1, &in->tmp2))
        return in->tmp2.err ? in->tmp2.err : shstate_bad(in, key, "bad escape");
      if (attr & VAR_ASSOC) {
        if (shstate_unesc(s, (size_t)(eq - s), 1, &in->tmp))
          return in->tmp.err ? in->tmp.err : shstate_bad(in, key, "bad escape");
        if (var_key_get(v, buf_str(&in->tmp)))
          return shstate_bad(in, key, "duplicate key");
        rc = var_set_key(vs, name, buf_str(&in->tmp), buf_str(&in->tmp2), 0);
      } else {
        int64_t idx = 0;
        const char *d = s;
        if (d == eq) return shstate_bad(in, key, "bad index");
        for (; d < eq; d++) {
          if (*d < '0' || *d > '9' || idx > (INT64_MAX - 9) / 10)
            return shstate_bad(in, key, "bad index");
          idx = idx * 10 + (*d - '0');
        }
        if (var_index_end(v) > idx)
          return shstate_bad(in, key, "indexes out of order");
        rc = var_set_index(vs, name, idx, buf_str(&in->tmp2), 0);
      }
    }
  } else if (p < end) {
    p++;
    if (shstate_unesc(p, (size_t)(end - p), 1, &in->tmp))
      return in->tmp.err ? in->tmp.err : shstate_bad(in, key, "bad escape");
    rc = var_set(vs, name, buf_str(&in->tmp), 0);
  }
  if (rc) return rc > 0 ? shstate_bad(in, key, "cannot set") : rc;
  v = var_lookup(vs, name);
  if (!v) return MSB_ENOMEM;
  v->attr = attr;
  return 0;
}

static int shstate_load_func(shstate_in *in, const char *key, const char *name,
                             const char *val) {
  ast_tree *tree = NULL;
  ast_node *root = NULL, *f;
  int rc;
  if (interp_func_get(in->sh, name))
    return shstate_bad(in, key, "duplicate function");
  if (shstate_unesc(val, strlen(val), 0, &in->tmp))
    return in->tmp.err ? in->tmp.err : shstate_bad(in, key, "bad escape");
  rc = parse_string(in->sh->m, in->tmp.p ? in->tmp.p : "", in->tmp.len, 1,
                    PARSE_EXTGLOB, &tree, &root, NULL);
  if (rc == MSB_ENOMEM) return rc;
  f = !rc && root && root->kind == AST_LIST ? root->u.list.items : NULL;
  if (!f || f->next || f->kind != AST_FUNC || f->flags & AST_F_BG ||
      strcmp(f->u.func.name, name)) {
    ast_tree_release(tree);
    return shstate_bad(in, key, "not one definition of that function");
  }
  /* what loads must save again: refuse bodies the printer cannot print */
  buf_clear(&in->tmp);
  rc = ast_print_function(&in->tmp, name, f->u.func.body, AST_PRINT_STACK_MAX);
  if (rc == MSB_ENOTSUP || rc == MSB_ELIMIT)
    rc = shstate_bad(in, key, "a body that cannot be printed back");
  if (!rc) rc = interp_func_set(in->sh, name, f->u.func.body, tree);
  ast_tree_release(tree);
  return rc;
}

static int shstate_load_alias(shstate_in *in, const char *key, const char *name,
                              const char *val) {
  shell *sh = in->sh;
  sh_alias *na;
  size_t i;
  for (i = 0; i < sh->naliases; i++)
    if (!strcmp(sh->aliases[i].name, name))
      return shstate_bad(in, key, "duplicate alias");
  if (!*name || strchr(name, '/') || strchr(name, '='))
    return shstate_bad(in, key, "invalid alias name");
  if (shstate_unesc(val, strlen(val), 0, &in->tmp))
    return in->tmp.err ? in->tmp.err : shstate_bad(in, key, "bad escape");
  na = mem_realloc(sh->m, sh->aliases, (sh->naliases + 1) * sizeof *na);
  if (!na) return MSB_ENOMEM;
  sh->aliases = na;
  na[sh->naliases].name = mem_strdup(sh->m, name);
  na[sh->naliases].value = mem_strdup(sh->m, buf_str(&in->tmp));
  if (!na[sh->naliases].name || !na[sh->naliases].value) {
    mem_free(sh->m, na[sh->naliases].name);
    mem_free(sh->m, na[sh->naliases].value);
    return MSB_ENOMEM;
  }
  sh->naliases++;
  return 0;
}

static int shstate_load_str(shstate_in *in, const char *key, const char *val,
                            char **slot) {
  char *s;
  if (*slot) return shstate_bad(in, key, "duplicate record");
  if (shstate_unesc(val, strlen(val), 0, &in->tmp))
    return in->tmp.err ? in->tmp.err : shstate_bad(in, key, "bad escape");
  s = mem_strdup(in->sh->m, buf_str(&in->tmp));
  if (!s) return MSB_ENOMEM;
  *slot = s;
  return 0;
}

static int shstate_num(const char *s, int base, uint64_t max, uint64_t *out) {
  uint64_t v = 0;
  if (!*s) return -1;
  for (; *s; s++) {
    int d = *s >= '0' && *s <= '9'   ? *s - '0'
            : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
                                     : 99;
    if (d >= base || v > (max - (uint64_t)d) / (uint64_t)base) return -1;
    v = v * (uint64_t)base + (uint64_t)d;
  }
  *out = v;
  return 0;
}

/* One record; seen: bit mask of the single records met so far. */
static int shstate_load_rec(shstate_in *in, const char *key, const char *val,
                            unsigned *seen) {
  static const char *const single[] = {"shell",  "set",   "shopt", "status",
                                       "random", "umask", "args",  "dirs"};
  shell *sh = in->sh;
  const char *name = NULL;
  uint64_t u;
  size_t i;
  int rc;
  for (i = 0; i < SHSTATE_NOPT(single); i++)
    if (!strcmp(key, single[i])) {
      if (*seen & (1u << i)) return shstate_bad(in, key, "duplicate record");
      *seen |= 1u << i;
      break;
    }
  if (!strncmp(key, "var.", 4) || !strncmp(key, "func.", 5) ||
      !strncmp(key, "alias.", 6) || !strncmp(key, "trap.", 5)) {
    const char *dot = strchr(key, '.') + 1;
    if (shstate_unesc(dot, strlen(dot), 1, &in->name) || !in->name.len)
      return in->name.err ? in->name.err : shstate_bad(in, key, "bad name");
    name = buf_str(&in->name);
  }
  if (!strcmp(key, "shell")) {
    if (strcmp(val, SHSTATE_VERSION))
      return shstate_bad(in, key, "unsupported session encoding version");
    return 0;
  }
  if (!strcmp(key, "set"))
    return shstate_load_opts(in, key, val, shstate_setopts,
                             SHSTATE_NOPT(shstate_setopts), &sh->opts);
  if (!strcmp(key, "shopt"))
    return shstate_load_opts(in, key, val, shstate_shopts,
                             SHSTATE_NOPT(shstate_shopts), &sh->shopts);
  if (!strcmp(key, "status")) {
    if (shstate_num(val, 10, 255, &u)) return shstate_bad(in, key, "bad value");
    sh->status = (int)u;
    return 0;
  }
  if (!strcmp(key, "random")) {
    if (strlen(val) != 16 || shstate_num(val, 16, UINT64_MAX, &u))
      return shstate_bad(in, key, "bad value");
    sh->rng = u;
    return 0;
  }
  if (!strcmp(key, "umask")) {
    if (shstate_num(val, 8, 0777, &u)) return shstate_bad(in, key, "bad value");
    sh->umask = (unsigned)u;
    return 0;
  }
  if (!strcmp(key, "args")) {
    char **a = NULL;
    int n = 0;
    rc = shstate_load_list(in, key, val, &a, &n);
    if (!rc) rc = interp_set_pos(sh, a, n);
    shstate_free_list(sh->m, a, n);
    return rc;
  }
  if (!strcmp(key, "dirs")) {
    char **a = NULL;
    int n = 0;
    rc = shstate_load_list(in, key, val, &a, &n);
    if (rc) return rc;
    for (i = 0; i < (size_t)n; i++)
      if (a[i][0] != '/') {
        shstate_free_list(sh->m, a, n);
        return shstate_bad(in, key, "relative directory");
      }
    sh->dirstack = a;
    sh->ndirs = n;
    return 0;
  }
  if (!strncmp(key, "trap.", 5)) {
    if (!strcmp(name, "EXIT"))
      return shstate_load_str(in, key, val, &sh->trap_exit);
    if (!strcmp(name, "ERR"))
      return shstate_load_str(in, key, val, &sh->trap_err);
    if (!strcmp(name, "RETURN"))
      return shstate_load_str(in, key, val, &sh->trap_return);
    return shstate_bad(in, key, "unknown trap");
  }
  if (!strncmp(key, "alias.", 6)) return shstate_load_alias(in, key, name, val);
  if (!strncmp(key, "func.", 5)) return shstate_load_func(in, key, name, val);
  if (!strncmp(key, "var.", 4)) {
    if (!in->have_vars) {
      /* the snapshot lists every variable: start from none */
      var_store *vs = var_create(sh->m);
      if (!vs) return MSB_ENOMEM;
      var_destroy(sh->vars);
      sh->vars = vs;
      in->have_vars = 1;
    }
    return shstate_load_var(in, key, name, val);
  }
  /* format, revision, root_hash, cwd belong to snap.c; later additions
   * of other records are ignored by this version */
  return 0;
}

/* Builds a session from records (see shstate.h). */
int shstate_load(mem *m, vfs *fs, const msb_limits *lim, uint64_t seed,
                 int64_t *clock_ns, const char *recs, size_t len, shell **out,
                 char *why, size_t whylen) {
  shstate_in in;
  unsigned seen = 0;
  size_t i = 0;
  int rc = 0;
  const char *cwd = NULL;
  *out = NULL;
  why[0] = 0;
  memset(&in, 0, sizeof in);
  in.sh = shell_create(m, fs, lim, seed, clock_ns);
  if (!in.sh) return MSB_ENOMEM;
  in.why = why;
  in.whylen = whylen;
  buf_init(&in.tmp, m);
  buf_init(&in.tmp2, m);
  buf_init(&in.name, m);
  while (!rc && recs && i < len) {
    const char *k = recs + i, *v = k + strlen(k) + 1;
    i = (size_t)(v - recs) + strlen(v) + 1;
    if (!strcmp(k, "cwd")) {
      if (cwd) rc = shstate_bad(&in, k, "duplicate record");
      cwd = v;
      continue;
    }
    rc = shstate_load_rec(&in, k, v, &seen);
  }
  if (!rc && cwd) {
    char *c;
    if (cwd[0] != '/') {
      rc = shstate_bad(&in, "cwd", "not an absolute path");
    } else if (!(c = mem_strdup(m, cwd))) {
      rc = MSB_ENOMEM;
    } else {
      mem_free(m, in.sh->cwd);
      in.sh->cwd = c;
      /* snapshots without variables (format 1) only moved the shell; a
       * PWD that is no absolute path is replaced, as bash does with an
       * inherited one at startup */
      const char *pwd = var_value(in.sh->vars, "PWD");
      if (!in.have_vars || (pwd && pwd[0] != '/')) {
        rc = var_set(in.sh->vars, "PWD", cwd, 0);
        if (rc > 0) rc = shstate_bad(&in, "var.PWD", "not a path");
      }
    }
  }
  if (!rc) var_changed(in.sh->vars);
  buf_finish(&in.tmp);
  buf_finish(&in.tmp2);
  buf_finish(&in.name);
  if (rc) {
    shell_destroy(in.sh);
    return rc;
  }
  *out = in.sh;
  return 0;
}
