/* policy.c - parsing the host's policy text and answering its questions.
 *
 * Approach. Command names live in two sorted arrays (binary search). Path
 * rules are sorted with '/' ordered before every other byte, so a rule's
 * descendants follow it contiguously and every string between a prefix
 * and a path that extends it also extends that prefix. Each rule records
 * its nearest ancestor rule. The longest-prefix lookup is then one binary
 * search for the greatest rule not above the path, followed by a walk up
 * its ancestor chain to the first rule that is a segment-wise prefix of
 * the path: no scan over all rules per path. */
#include "policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memsandbox.h"

static const char *const policy_ops[POLICY_OP_COUNT] = {
    "execute",        "read_file",       "write_file",
    "stat",           "list_entries",    "create_directory",
    "remove_path",    "copy_path",       "move_path",
    "create_symlink", "read_link",       "change_mode",
    "hash",           "checkpoint",      "rollback",
    "release",        "create_snapshot", "restore_snapshot",
    "fork",           "apply_patch"};

/* The operation's name. */
const char *policy_op_name(int op) {
  return op >= 0 && op < POLICY_OP_COUNT ? policy_ops[op] : "unknown";
}

/* Byte order with '/' first; 0 stands for the end of the string. */
static int policy_key(const char *s, size_t len, size_t i) {
  if (i >= len) return 0;
  return s[i] == '/' ? 1 : (unsigned char)s[i] + 2;
}

static int policy_cmp(const char *a, size_t alen, const char *b, size_t blen) {
  size_t i, n = alen > blen ? alen : blen;
  for (i = 0; i < n; i++) {
    int ka = policy_key(a, alen, i), kb = policy_key(b, blen, i);
    if (ka != kb) return ka < kb ? -1 : 1;
  }
  return 0;
}

/* Whether rule r is pfx of path segment-wise ("/a" covers "/a/b", never
 * "/ab"; "/" covers everything). */
static int policy_covers(const policy_rule *r, const char *path, size_t len) {
  if (r->len > len || memcmp(r->path, path, r->len)) return 0;
  return r->len == len || r->len == 1 || path[r->len] == '/';
}

static int policy_rule_order(const void *a, const void *b) {
  const policy_rule *x = a, *y = b;
  return policy_cmp(x->path, x->len, y->path, y->len);
}

static int policy_str_order(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Index of the greatest rule <= path in rule order, or SIZE_MAX. */
static size_t policy_floor(const policy *p, const char *path, size_t len) {
  size_t lo = 0, hi = p->nrules;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const policy_rule *r = &p->rules[mid];
    if (policy_cmp(r->path, r->len, path, len) <= 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo ? lo - 1 : SIZE_MAX;
}

/* The mode of the longest covering rule. */
int policy_path_mode(const policy *p, const char *path, size_t len) {
  size_t i;
  if (!p || !p->nrules) return POLICY_RW;
  for (i = policy_floor(p, path, len); i != SIZE_MAX; i = p->rules[i].parent)
    if (policy_covers(&p->rules[i], path, len)) return p->rules[i].mode;
  return POLICY_RW;
}

/* The mode of the rule for exactly path, or -1. */
int policy_rule_mode(const policy *p, const char *path, size_t len) {
  size_t i;
  if (!p || !p->nrules) return -1;
  i = policy_floor(p, path, len);
  if (i == SIZE_MAX || p->rules[i].len != len ||
      memcmp(p->rules[i].path, path, len))
    return -1;
  return p->rules[i].mode;
}

/* The most restrictive mode strictly below path. */
int policy_below_mode(const policy *p, const char *path, size_t len) {
  size_t i;
  int worst = POLICY_RW;
  policy_rule self;
  if (!p || !p->nrules) return POLICY_RW;
  self.path = (char *)path;
  self.len = len;
  i = policy_floor(p, path, len);
  i = i == SIZE_MAX ? 0 : i + 1;
  for (; i < p->nrules && worst > POLICY_NONE; i++) {
    const policy_rule *r = &p->rules[i];
    if (r->len <= len || !policy_covers(&self, r->path, r->len)) break;
    if (r->mode < worst) worst = r->mode;
  }
  return worst;
}

static int policy_has(char *const *v, size_t n, const char *name) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(v[mid], name);
    if (!c) return 1;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0;
}

/* Whether one of the n sorted names is name, or names the same
 * implementation as name (when same is given). */
static int policy_lists(char *const *v, size_t n, const char *name,
                        policy_same_fn same) {
  size_t i;
  if (policy_has(v, n, name)) return 1;
  for (i = 0; same && i < n; i++)
    if (same(v[i], name)) return 1;
  return 0;
}

/* Whether a command may run: a deny rule wins, for its name and every
 * other name of its implementation. */
int policy_command_allowed(const policy *p, const char *name, int builtin,
                           policy_same_fn same) {
  if (!p) return 1;
  if (policy_lists(p->deny, p->ndeny, name, same)) return 0;
  return builtin || !p->nallow || policy_lists(p->allow, p->nallow, name, same);
}

/* Whether a host operation may run. */
int policy_op_allowed(const policy *p, int op) {
  if (!p) return 1;
  return op >= 0 && op < POLICY_OP_COUNT && ((p->ops >> op) & 1u);
}

/* Copies n strings into a new array in m; NULL when out of memory. */
static char **policy_copy_names(mem *m, char *const *src, size_t n) {
  char **dst = mem_zalloc(m, (n ? n : 1) * sizeof *dst);
  size_t i;
  if (!dst) return NULL;
  for (i = 0; i < n; i++)
    if (!(dst[i] = mem_strdup(m, src[i]))) return dst; /* caller checks */
  return dst;
}

/* A deep copy of src in m (a fork's allocator): MSB_ENOMEM leaves *out
 * NULL. */
int policy_copy(mem *m, const policy *src, policy **out) {
  policy *p = mem_zalloc(m, sizeof *p);
  size_t i;
  int ok;
  *out = NULL;
  if (!p) return MSB_ENOMEM;
  *p = *src;
  p->m = m;
  p->allow = policy_copy_names(m, src->allow, src->nallow);
  p->deny = policy_copy_names(m, src->deny, src->ndeny);
  p->rules = mem_zalloc(m, (src->nrules ? src->nrules : 1) * sizeof *p->rules);
  ok = p->allow && p->deny && p->rules;
  for (i = 0; ok && i < src->nrules; i++) {
    p->rules[i] = src->rules[i];
    ok = (p->rules[i].path = mem_strdup(m, src->rules[i].path)) != NULL;
  }
  for (i = 0; ok && i < src->nallow; i++) ok = p->allow[i] != NULL;
  for (i = 0; ok && i < src->ndeny; i++) ok = p->deny[i] != NULL;
  if (!ok) {
    /* free what was copied: NULL slots are fine for mem_free */
    if (!p->allow) p->nallow = 0;
    if (!p->deny) p->ndeny = 0;
    if (!p->rules) p->nrules = 0;
    policy_destroy(p);
    return MSB_ENOMEM;
  }
  *out = p;
  return 0;
}

/* Frees a policy; NULL accepted. */
void policy_destroy(policy *p) {
  size_t i;
  if (!p) return;
  for (i = 0; i < p->nallow; i++) mem_free(p->m, p->allow[i]);
  for (i = 0; i < p->ndeny; i++) mem_free(p->m, p->deny[i]);
  for (i = 0; i < p->nrules; i++) mem_free(p->m, p->rules[i].path);
  mem_free(p->m, p->allow);
  mem_free(p->m, p->deny);
  mem_free(p->m, p->rules);
  mem_free(p->m, p);
}

/* ---- parsing --------------------------------------------------------- */

typedef struct policy_line {
  size_t no;
  const char *s;
  size_t len;
} policy_line;

static int policy_bad(char *err, size_t errlen, size_t no, const char *fmt,
                      const char *arg, size_t arglen) {
  char head[48];
  if (!err || !errlen) return MSB_EINVAL;
  snprintf(head, sizeof head, "line %lu: ", (unsigned long)no);
  if (arglen > 200) arglen = 200;
  snprintf(err, errlen, fmt, head, (int)arglen, arg ? arg : "");
  return MSB_EINVAL;
}

static int policy_space(char c) { return c == ' ' || c == '\t'; }

/* Normalises a rule path: absolute (relative ones are taken against
 * /workspace), "." and ".." resolved lexically, no duplicate or trailing
 * '/'. Returns an owned string or NULL (*oom set when out of memory). */
static char *policy_norm(mem *m, const char *s, size_t len, size_t *outlen,
                         int *oom) {
  size_t cap = len + 12, n = 0, i = 0;
  char *o = mem_alloc(m, cap);
  *oom = o == NULL;
  if (!o) return NULL;
  if (!len || s[0] != '/') {
    memcpy(o, "/workspace", 10);
    n = 10;
  }
  while (i < len) {
    size_t j;
    while (i < len && s[i] == '/') i++;
    for (j = i; j < len && s[j] != '/'; j++) {
    }
    if (j == i) break;
    if (j - i == 1 && s[i] == '.') {
    } else if (j - i == 2 && s[i] == '.' && s[i + 1] == '.') {
      while (n > 0 && o[n - 1] != '/') n--;
      if (n > 0) n--;
    } else {
      o[n++] = '/';
      memcpy(o + n, s + i, j - i);
      n += j - i;
    }
    i = j;
  }
  if (!n) o[n++] = '/';
  o[n] = 0;
  *outlen = n;
  return o;
}

static int policy_push_name(policy *p, char ***v, size_t *n, const char *s,
                            size_t len) {
  char **nv = mem_realloc(p->m, *v, (*n + 1) * sizeof **v);
  if (!nv) return MSB_ENOMEM;
  *v = nv;
  nv[*n] = mem_strndup(p->m, s, len);
  if (!nv[*n]) return MSB_ENOMEM;
  (*n)++;
  return 0;
}

/* Sorts a name list and drops duplicates. */
static void policy_uniq(policy *p, char **v, size_t *n) {
  size_t i, k = 0;
  if (!*n) return;
  qsort(v, *n, sizeof *v, policy_str_order);
  for (i = 1; i < *n; i++) {
    if (!strcmp(v[i], v[k]))
      mem_free(p->m, v[i]);
    else
      v[++k] = v[i];
  }
  *n = k + 1;
}

/* The operation named s[0..len), or -1. */
int policy_op_lookup(const char *s, size_t len) {
  int i;
  for (i = 0; i < POLICY_OP_COUNT; i++)
    if (strlen(policy_ops[i]) == len && !memcmp(policy_ops[i], s, len))
      return i;
  return -1;
}

/* One non-empty, non-comment line: keyword and argument. */
static int policy_line_do(policy *p, const policy_line *ln, uint32_t *allow_ops,
                          uint32_t *deny_ops, int *any_allow_op, char *err,
                          size_t errlen) {
  const char *s = ln->s, *e = ln->s + ln->len, *kw, *arg;
  size_t kwlen, arglen;
  kw = s;
  while (s < e && !policy_space(*s)) s++;
  kwlen = (size_t)(s - kw);
  while (s < e && policy_space(*s)) s++;
  arg = s;
  arglen = (size_t)(e - s);
#define KW(x) (kwlen == sizeof x - 1 && !memcmp(kw, x, sizeof x - 1))
  if (KW("allow-command") || KW("deny-command")) {
    size_t k;
    if (!arglen)
      return policy_bad(err, errlen, ln->no, "%s%.*smissing command name", NULL,
                        0);
    for (k = 0; k < arglen; k++)
      if (policy_space(arg[k]) || arg[k] == '/')
        return policy_bad(err, errlen, ln->no,
                          "%sinvalid command name \"%.*s\"", arg, arglen);
    return KW("allow-command")
               ? policy_push_name(p, &p->allow, &p->nallow, arg, arglen)
               : policy_push_name(p, &p->deny, &p->ndeny, arg, arglen);
  }
  if (KW("allow-op") || KW("deny-op")) {
    int op = policy_op_lookup(arg, arglen);
    if (op < 0)
      return policy_bad(err, errlen, ln->no, "%sunknown operation \"%.*s\"",
                        arg, arglen);
    if (KW("allow-op")) {
      *allow_ops |= 1u << op;
      *any_allow_op = 1;
    } else {
      *deny_ops |= 1u << op;
    }
    return 0;
  }
  if (KW("path")) {
    const char *me = e, *ms;
    size_t plen;
    int mode, oom;
    policy_rule *nr;
    char *norm;
    size_t nlen;
    ms = me;
    while (ms > arg && !policy_space(ms[-1])) ms--;
    plen = (size_t)(ms - arg);
    while (plen && policy_space(arg[plen - 1])) plen--;
    if (!plen || ms == arg)
      return policy_bad(err, errlen, ln->no,
                        "%s%.*sexpected: path PREFIX none|read-only|"
                        "read-write",
                        NULL, 0);
    if ((size_t)(me - ms) == 4 && !memcmp(ms, "none", 4))
      mode = POLICY_NONE;
    else if ((size_t)(me - ms) == 9 && !memcmp(ms, "read-only", 9))
      mode = POLICY_RO;
    else if ((size_t)(me - ms) == 10 && !memcmp(ms, "read-write", 10))
      mode = POLICY_RW;
    else
      return policy_bad(err, errlen, ln->no,
                        "%sunknown access \"%.*s\" (none, read-only or "
                        "read-write)",
                        ms, (size_t)(me - ms));
    if (memchr(arg, 0, plen))
      return policy_bad(err, errlen, ln->no, "%s%.*spath contains NUL", NULL,
                        0);
    norm = policy_norm(p->m, arg, plen, &nlen, &oom);
    if (!norm) return MSB_ENOMEM;
    nr = mem_realloc(p->m, p->rules, (p->nrules + 1) * sizeof *nr);
    if (!nr) {
      mem_free(p->m, norm);
      return MSB_ENOMEM;
    }
    p->rules = nr;
    nr[p->nrules].path = norm;
    nr[p->nrules].len = nlen;
    nr[p->nrules].mode = mode;
    nr[p->nrules].parent = ln->no; /* the line, until policy_tree */
    p->nrules++;
    if (mode == POLICY_NONE) p->has_none = 1;
    return 0;
  }
#undef KW
  return policy_bad(err, errlen, ln->no, "%sunknown rule \"%.*s\"", kw, kwlen);
}

/* Sorts the rules, refuses two different modes for one prefix, drops
 * duplicates and links each rule to its nearest ancestor rule. */
static int policy_tree(policy *p, char *err, size_t errlen) {
  size_t i, k = 0, *stack, sp = 0;
  if (!p->nrules) return 0;
  qsort(p->rules, p->nrules, sizeof *p->rules, policy_rule_order);
  for (i = 1; i < p->nrules; i++) {
    policy_rule *a = &p->rules[k], *b = &p->rules[i];
    if (a->len == b->len && !memcmp(a->path, b->path, a->len)) {
      if (a->mode != b->mode) {
        size_t no = a->parent > b->parent ? a->parent : b->parent;
        return policy_bad(err, errlen, no, "%sconflicting rules for %.*s",
                          a->path, a->len);
      }
      mem_free(p->m, b->path);
      b->path = NULL;
      continue;
    }
    p->rules[++k] = *b;
  }
  for (i = k + 1; i < p->nrules; i++) p->rules[i].path = NULL;
  p->nrules = k + 1;
  stack = mem_alloc(p->m, p->nrules * sizeof *stack);
  if (!stack) return MSB_ENOMEM;
  for (i = 0; i < p->nrules; i++) {
    while (sp && !policy_covers(&p->rules[stack[sp - 1]], p->rules[i].path,
                                p->rules[i].len))
      sp--;
    p->rules[i].parent = sp ? stack[sp - 1] : SIZE_MAX;
    stack[sp++] = i;
  }
  mem_free(p->m, stack);
  return 0;
}

/* Parses the text form. */
int policy_parse(mem *m, const char *text, size_t len, policy **out, char *err,
                 size_t errlen) {
  policy *p;
  size_t i = 0, no = 0;
  uint32_t allow_ops = 0, deny_ops = 0;
  int any_allow_op = 0, rc = 0;
  *out = NULL;
  if (err && errlen) err[0] = 0;
  p = mem_zalloc(m, sizeof *p);
  if (!p) return MSB_ENOMEM;
  p->m = m;
  while (i < len && !rc) {
    policy_line ln;
    size_t j = i;
    while (j < len && text[j] != '\n') j++;
    ln.no = ++no;
    ln.s = text + i;
    ln.len = j - i;
    i = j + 1;
    while (ln.len && (policy_space(*ln.s))) ln.s++, ln.len--;
    while (ln.len &&
           (policy_space(ln.s[ln.len - 1]) || ln.s[ln.len - 1] == '\r'))
      ln.len--;
    if (!ln.len || ln.s[0] == '#') continue;
    if (memchr(ln.s, 0, ln.len))
      rc = policy_bad(err, errlen, no, "%s%.*scontains a NUL byte", NULL, 0);
    else
      rc = policy_line_do(p, &ln, &allow_ops, &deny_ops, &any_allow_op, err,
                          errlen);
  }
  if (!rc) rc = policy_tree(p, err, errlen);
  if (rc) {
    policy_destroy(p);
    return rc;
  }
  policy_uniq(p, p->allow, &p->nallow);
  policy_uniq(p, p->deny, &p->ndeny);
  p->ops =
      (any_allow_op ? allow_ops : ((1u << POLICY_OP_COUNT) - 1)) & ~deny_ops;
  *out = p;
  return 0;
}
