/* var.c - the shell variable store (see var.h).
 *
 * An open hash table of slots keyed by name; each slot keeps a stack of
 * bindings, top = visible (dynamic scoping: a function's `local` pushes a
 * binding, its return pops it). Each scope level records the slots it
 * pushed so popping costs O(locals). Associative arrays keep elements in
 * insertion order plus a small index; iteration reproduces bash 5's order
 * (its FNV-style hash modulo 1024 buckets, newest first within a bucket) so
 * `${!a[@]}` prints what bash prints. */
#include "var.h"

#include <string.h>

#include "memsandbox.h"

typedef struct var_slot {
  char *name;
  uint32_t h;
  var *top;
} var_slot;

typedef struct var_scope {
  var_slot **slots;
  size_t n, cap;
} var_scope;

struct var_store {
  mem *m;
  var_slot **tab; /* open addressing, power of two */
  size_t tabn, used;
  var_scope *scopes; /* scopes[0] unused (globals) */
  int level, scap;
  char **env;     /* cached environ */
  int env_dirty;
};

static uint32_t var_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

/* bash's hash_string, used only for assoc iteration order. */
static uint32_t var_bash_hash(const char *s) {
  uint32_t i = 2166136261u;
  for (; *s; s++) {
    i += (i << 1) + (i << 4) + (i << 7) + (i << 8) + (i << 24);
    i ^= (uint32_t)(uint8_t)*s;
  }
  return i;
}

/* Valid identifier: [A-Za-z_][A-Za-z0-9_]*. */
int var_valid_name(const char *s, size_t n) {
  size_t i;
  if (n == 0) return 0;
  for (i = 0; i < n; i++) {
    int c = (uint8_t)s[i];
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (i > 0 && c >= '0' && c <= '9')))
      return 0;
  }
  return 1;
}

/* Creates an empty store. */
var_store *var_create(mem *m) {
  var_store *vs = mem_zalloc(m, sizeof *vs);
  if (!vs) return NULL;
  vs->m = m;
  vs->tabn = 64;
  vs->tab = mem_zalloc(m, vs->tabn * sizeof *vs->tab);
  vs->env_dirty = 1;
  if (!vs->tab) {
    mem_free(m, vs);
    return NULL;
  }
  return vs;
}

static void var_free_values(mem *m, var *v) {
  size_t i;
  mem_free(m, v->val);
  v->val = NULL;
  for (i = 0; i < v->n; i++) {
    mem_free(m, v->el[i].key);
    mem_free(m, v->el[i].val);
  }
  mem_free(m, v->el);
  v->el = NULL;
  v->n = v->cap = 0;
}

static void var_free_binding(mem *m, var *v) {
  var_free_values(m, v);
  mem_free(m, v);
}

static void var_env_free(var_store *vs) {
  size_t i;
  if (!vs->env) return;
  for (i = 0; vs->env[i]; i++) mem_free(vs->m, vs->env[i]);
  mem_free(vs->m, vs->env);
  vs->env = NULL;
}

/* Frees everything. NULL accepted. */
void var_destroy(var_store *vs) {
  size_t i;
  int l;
  if (!vs) return;
  for (i = 0; i < vs->tabn; i++) {
    var_slot *s = vs->tab[i];
    if (!s) continue;
    while (s->top) {
      var *v = s->top;
      s->top = v->shadow;
      var_free_binding(vs->m, v);
    }
    mem_free(vs->m, s->name);
    mem_free(vs->m, s);
  }
  for (l = 0; l < vs->scap; l++) mem_free(vs->m, vs->scopes[l].slots);
  mem_free(vs->m, vs->scopes);
  mem_free(vs->m, vs->tab);
  var_env_free(vs);
  mem_free(vs->m, vs);
}

static var_slot **var_find_pos(var_slot **tab, size_t n, const char *name,
                               uint32_t h) {
  size_t i = h & (n - 1);
  while (tab[i]) {
    if (tab[i]->h == h && !strcmp(tab[i]->name, name)) return &tab[i];
    i = (i + 1) & (n - 1);
  }
  return &tab[i];
}

static int var_grow(var_store *vs) {
  size_t n = vs->tabn * 2, i;
  var_slot **t = mem_zalloc(vs->m, n * sizeof *t);
  if (!t) return MSB_ENOMEM;
  for (i = 0; i < vs->tabn; i++)
    if (vs->tab[i])
      *var_find_pos(t, n, vs->tab[i]->name, vs->tab[i]->h) = vs->tab[i];
  mem_free(vs->m, vs->tab);
  vs->tab = t;
  vs->tabn = n;
  return 0;
}

static var_slot *var_slot_get(var_store *vs, const char *name, int create) {
  uint32_t h = var_hash(name);
  var_slot **p = var_find_pos(vs->tab, vs->tabn, name, h), *s;
  if (*p || !create) return *p;
  if ((vs->used + 1) * 2 > vs->tabn) {
    if (var_grow(vs)) return NULL;
    p = var_find_pos(vs->tab, vs->tabn, name, h);
  }
  s = mem_zalloc(vs->m, sizeof *s);
  if (!s) return NULL;
  s->name = mem_strdup(vs->m, name);
  if (!s->name) {
    mem_free(vs->m, s);
    return NULL;
  }
  s->h = h;
  *p = s;
  vs->used++;
  return s;
}

static var *var_binding_new(var_store *vs, var_slot *s, int level) {
  var *v = mem_zalloc(vs->m, sizeof *v);
  if (!v) return NULL;
  v->name = s->name;
  v->level = level;
  v->attr = VAR_NOVALUE;
  return v;
}

static int var_copy_binding(mem *m, const var *src, var *dst) {
  size_t i;
  *dst = *src;
  dst->val = NULL;
  dst->el = NULL;
  dst->n = dst->cap = 0;
  dst->shadow = NULL;
  if (src->val && !(dst->val = mem_strdup(m, src->val))) return MSB_ENOMEM;
  if (src->n) {
    dst->el = mem_zalloc(m, src->n * sizeof *dst->el);
    if (!dst->el) return MSB_ENOMEM;
    dst->cap = src->n;
    for (i = 0; i < src->n; i++) {
      dst->el[i] = src->el[i];
      dst->el[i].key = NULL;
      dst->el[i].val = mem_strdup(m, src->el[i].val);
      if (src->el[i].key) dst->el[i].key = mem_strdup(m, src->el[i].key);
      dst->n = i + 1;
      if (!dst->el[i].val || (src->el[i].key && !dst->el[i].key))
        return MSB_ENOMEM;
    }
  }
  return 0;
}

/* Deep copy. */
var_store *var_clone(const var_store *vs, mem *m) {
  var_store *c = mem_zalloc(m, sizeof *c);
  size_t i;
  if (!c) return NULL;
  c->m = m;
  c->env_dirty = 1;
  c->tab = mem_zalloc(m, vs->tabn * sizeof *c->tab);
  if (!c->tab) goto fail;
  c->tabn = vs->tabn; /* only once the table exists: var_destroy walks it */
  if (vs->scap) {
    c->scopes = mem_zalloc(m, (size_t)vs->scap * sizeof *c->scopes);
    if (!c->scopes) goto fail;
    c->scap = vs->scap;
  }
  c->level = vs->level;
  for (i = 0; i < vs->tabn; i++) {
    const var_slot *s = vs->tab[i];
    var_slot *d;
    var *v, **tail;
    if (!s) continue;
    d = mem_zalloc(m, sizeof *d);
    if (!d) goto fail;
    c->tab[i] = d;
    c->used++;
    d->h = s->h;
    if (!(d->name = mem_strdup(m, s->name))) goto fail;
    tail = &d->top;
    for (v = s->top; v; v = v->shadow) {
      var *nv = mem_zalloc(m, sizeof *nv);
      if (!nv) goto fail;
      *tail = nv;
      tail = &nv->shadow;
      if (var_copy_binding(m, v, nv)) goto fail;
      nv->name = d->name;
      /* record locals in the clone's scope lists */
      if (v->level > 0 && v->level < c->scap) {
        var_scope *sc = &c->scopes[v->level];
        if (sc->n == sc->cap) {
          size_t nc = sc->cap ? sc->cap * 2 : 8;
          var_slot **ns = mem_realloc(m, sc->slots, nc * sizeof *ns);
          if (!ns) goto fail;
          sc->slots = ns;
          sc->cap = nc;
        }
        sc->slots[sc->n++] = d;
      }
    }
  }
  return c;
fail:
  var_destroy(c);
  return NULL;
}

/* Visible binding (no nameref resolution). */
var *var_lookup(var_store *vs, const char *name) {
  var_slot *s = var_slot_get(vs, name, 0);
  return s ? s->top : NULL;
}

/* Visible binding, following namerefs. */
var *var_get(var_store *vs, const char *name, const char **resolved) {
  int hops;
  var *v = NULL;
  for (hops = 0; hops < 9; hops++) {
    v = var_lookup(vs, name);
    if (!v || !(v->attr & VAR_NAMEREF) || !v->val || !*v->val) break;
    name = v->val;
  }
  if (resolved) *resolved = v ? v->name : name;
  return v;
}

/* Scalar value (element 0 / key "0" for arrays); NULL when unset. */
const char *var_value(var_store *vs, const char *name) {
  var *v = var_get(vs, name, NULL);
  if (!v || (v->attr & VAR_NOVALUE)) return NULL;
  if (v->attr & VAR_ARRAY) return var_index_get(v, 0);
  if (v->attr & VAR_ASSOC) return var_key_get(v, "0");
  return v->val;
}

static void var_mark(var_store *vs, const var *v) {
  if (v->attr & VAR_EXPORT) vs->env_dirty = 1;
}

static char *var_convert(mem *m, const var *v, const char *val,
                         const char *prefix) {
  size_t pl = prefix ? strlen(prefix) : 0, vl = strlen(val), i;
  char *s = mem_alloc(m, pl + vl + 1);
  if (!s) return NULL;
  if (pl) memcpy(s, prefix, pl);
  memcpy(s + pl, val, vl + 1);
  if (v->attr & (VAR_LOWER | VAR_UPPER))
    for (i = pl; i < pl + vl; i++) {
      if ((v->attr & VAR_LOWER) && s[i] >= 'A' && s[i] <= 'Z') s[i] += 32;
      if ((v->attr & VAR_UPPER) && s[i] >= 'a' && s[i] <= 'z') s[i] -= 32;
    }
  return s;
}

/* Binding for an assignment to name: the visible one, or a new global. */
var *var_bind(var_store *vs, const char *name, unsigned fl) {
  const char *rn = name;
  var *v = var_get(vs, name, &rn);
  var_slot *s;
  if (v && (v->attr & VAR_NAMEREF) && v->val && *v->val) rn = v->val;
  if (v && !(fl & VS_GLOBAL) && !strcmp(v->name, rn) &&
      !((v->attr & VAR_NAMEREF) && v->val && *v->val))
    return v;
  s = var_slot_get(vs, rn, 1);
  if (!s) return NULL;
  if (fl & VS_GLOBAL) {
    var **pp = &s->top;
    while (*pp && (*pp)->level > 0) pp = &(*pp)->shadow;
    if (*pp) return *pp;
    *pp = var_binding_new(vs, s, 0);
    return *pp;
  }
  if (s->top) return s->top;
  s->top = var_binding_new(vs, s, 0);
  return s->top;
}

static int var_elem_find(const var *v, int64_t idx, size_t *pos) {
  size_t lo = 0, hi = v->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v->el[mid].idx < idx)
      lo = mid + 1;
    else
      hi = mid;
  }
  *pos = lo;
  return lo < v->n && v->el[lo].idx == idx;
}

static int var_elem_reserve(mem *m, var *v) {
  if (v->n == v->cap) {
    size_t nc = v->cap ? v->cap * 2 : 4;
    var_elem *ne = mem_realloc(m, v->el, nc * sizeof *ne);
    if (!ne) return MSB_ENOMEM;
    v->el = ne;
    v->cap = nc;
  }
  return 0;
}

static int var_put_index(var_store *vs, var *v, int64_t idx, const char *val,
                         unsigned fl) {
  size_t pos;
  const char *old = NULL;
  char *nv;
  int found = var_elem_find(v, idx, &pos);
  if (found && (fl & VS_APPEND)) old = v->el[pos].val;
  nv = old ? var_convert(vs->m, v, val, old) : var_convert(vs->m, v, val, 0);
  if (!nv) return MSB_ENOMEM;
  if (found) {
    mem_free(vs->m, v->el[pos].val);
    v->el[pos].val = nv;
    return 0;
  }
  if (var_elem_reserve(vs->m, v)) {
    mem_free(vs->m, nv);
    return MSB_ENOMEM;
  }
  memmove(&v->el[pos + 1], &v->el[pos], (v->n - pos) * sizeof *v->el);
  memset(&v->el[pos], 0, sizeof *v->el);
  v->el[pos].idx = idx;
  v->el[pos].val = nv;
  v->n++;
  return 0;
}

static var_elem *var_assoc_find(const var *v, const char *key) {
  size_t i;
  uint32_t h = var_bash_hash(key);
  /* newest first: recently set keys are the likeliest to be read again */
  for (i = v->n; i-- > 0;)
    if (v->el[i].hash == h && !strcmp(v->el[i].key, key)) return &v->el[i];
  return NULL;
}

static int var_put_key(var_store *vs, var *v, const char *key, const char *val,
                       unsigned fl) {
  var_elem *e = var_assoc_find(v, key);
  char *nv, *nk;
  if (e) {
    nv = (fl & VS_APPEND) ? var_convert(vs->m, v, val, e->val)
                          : var_convert(vs->m, v, val, 0);
    if (!nv) return MSB_ENOMEM;
    mem_free(vs->m, e->val);
    e->val = nv;
    return 0;
  }
  if (var_elem_reserve(vs->m, v)) return MSB_ENOMEM;
  nv = var_convert(vs->m, v, val, 0);
  nk = mem_strdup(vs->m, key);
  if (!nv || !nk) {
    mem_free(vs->m, nv);
    mem_free(vs->m, nk);
    return MSB_ENOMEM;
  }
  e = &v->el[v->n++];
  e->idx = 0;
  e->key = nk;
  e->val = nv;
  e->hash = var_bash_hash(key);
  e->seq = v->seq++;
  return 0;
}

/* Scalar assignment. */
int var_set(var_store *vs, const char *name, const char *val, unsigned fl) {
  var *v = var_bind(vs, name, fl);
  char *nv;
  if (!v) return MSB_ENOMEM;
  if (v->attr & VAR_READONLY) return VAR_ERO;
  var_mark(vs, v);
  if (v->attr & VAR_ARRAY) {
    v->attr &= ~VAR_NOVALUE;
    return var_put_index(vs, v, 0, val, fl);
  }
  if (v->attr & VAR_ASSOC) {
    v->attr &= ~VAR_NOVALUE;
    return var_put_key(vs, v, "0", val, fl);
  }
  nv = ((fl & VS_APPEND) && v->val) ? var_convert(vs->m, v, val, v->val)
                                    : var_convert(vs->m, v, val, 0);
  if (!nv) return MSB_ENOMEM;
  mem_free(vs->m, v->val);
  v->val = nv;
  v->attr &= ~VAR_NOVALUE;
  return 0;
}

/* Converts a binding to an indexed array, keeping a scalar as element 0. */
static int var_to_array(var_store *vs, var *v) {
  if (v->attr & (VAR_ARRAY | VAR_ASSOC)) return 0;
  v->attr |= VAR_ARRAY;
  if (v->val) {
    char *s = v->val;
    int rc;
    v->val = NULL;
    rc = var_put_index(vs, v, 0, s, 0);
    mem_free(vs->m, s);
    return rc;
  }
  return 0;
}

/* Element assignment (indexed). */
int var_set_index(var_store *vs, const char *name, int64_t idx, const char *val,
                  unsigned fl) {
  var *v = var_bind(vs, name, fl);
  int rc;
  if (!v) return MSB_ENOMEM;
  if (v->attr & VAR_READONLY) return VAR_ERO;
  var_mark(vs, v);
  if (v->attr & VAR_ASSOC) {
    char k[24];
    int n = 0;
    uint64_t u = idx < 0 ? (uint64_t)0 - (uint64_t)idx : (uint64_t)idx;
    char t[24];
    do t[n++] = (char)('0' + u % 10);
    while ((u /= 10));
    rc = 0;
    if (idx < 0) k[rc++] = '-';
    while (n) k[rc++] = t[--n];
    k[rc] = 0;
    v->attr &= ~VAR_NOVALUE;
    return var_put_key(vs, v, k, val, fl);
  }
  if ((rc = var_to_array(vs, v))) return rc;
  v->attr &= ~VAR_NOVALUE;
  return var_put_index(vs, v, idx, val, fl);
}

/* Key assignment (assoc). */
int var_set_key(var_store *vs, const char *name, const char *key,
                const char *val, unsigned fl) {
  var *v = var_bind(vs, name, fl);
  if (!v) return MSB_ENOMEM;
  if (v->attr & VAR_READONLY) return VAR_ERO;
  var_mark(vs, v);
  v->attr &= ~VAR_NOVALUE;
  return var_put_key(vs, v, key, val, fl);
}

/* Empties v and makes it an array of the requested kind. */
int var_make_array(var_store *vs, var *v, int assoc) {
  var_mark(vs, v);
  var_free_values(vs->m, v);
  v->attr &= ~(VAR_ARRAY | VAR_ASSOC | VAR_NOVALUE);
  v->attr |= assoc ? VAR_ASSOC : VAR_ARRAY;
  return 0;
}

/* Unsets name: a local at the current level stays declared but valueless
 * (so the global stays hidden, as in bash); anything else is removed. */
int var_unset(var_store *vs, const char *name) {
  const char *rn = name;
  var *v = var_get(vs, name, &rn);
  var_slot *s;
  if (!v) return 0;
  if (v->attr & VAR_READONLY) return VAR_ERO;
  s = var_slot_get(vs, v->name, 0);
  vs->env_dirty = 1;
  if (v->level > 0) {
    var_free_values(vs->m, v);
    v->attr = VAR_NOVALUE;
    return 0;
  }
  if (s && s->top == v) {
    s->top = v->shadow;
    var_free_binding(vs->m, v);
  }
  return 0;
}

/* Removes one element. */
int var_unset_elem(var_store *vs, var *v, int64_t idx, const char *key) {
  size_t pos;
  if (v->attr & VAR_READONLY) return VAR_ERO;
  var_mark(vs, v);
  if (v->attr & VAR_ASSOC) {
    var_elem *e = var_assoc_find(v, key ? key : "");
    if (!e) return 0;
    pos = (size_t)(e - v->el);
  } else if (v->attr & VAR_ARRAY) {
    if (!var_elem_find(v, idx, &pos)) return 0;
  } else {
    if (idx == 0) return var_unset(vs, v->name);
    return 0;
  }
  mem_free(vs->m, v->el[pos].key);
  mem_free(vs->m, v->el[pos].val);
  memmove(&v->el[pos], &v->el[pos + 1], (v->n - pos - 1) * sizeof *v->el);
  v->n--;
  return 0;
}

/* Element idx of an indexed array (a scalar is element 0). */
const char *var_index_get(const var *v, int64_t idx) {
  size_t pos;
  if (v->attr & VAR_NOVALUE) return NULL;
  if (!(v->attr & (VAR_ARRAY | VAR_ASSOC))) return idx == 0 ? v->val : NULL;
  if (v->attr & VAR_ASSOC) return NULL;
  return var_elem_find(v, idx, &pos) ? v->el[pos].val : NULL;
}

/* Value of key in an associative array. */
const char *var_key_get(const var *v, const char *key) {
  var_elem *e;
  if (!(v->attr & VAR_ASSOC)) return NULL;
  e = var_assoc_find(v, key);
  return e ? e->val : NULL;
}

/* One past the highest index. */
int64_t var_index_end(const var *v) {
  if (v->attr & VAR_ARRAY) return v->n ? v->el[v->n - 1].idx + 1 : 0;
  return v->val ? 1 : 0;
}

static int var_assoc_cmp(const var_elem *a, const var_elem *b) {
  uint32_t ba = a->hash & 1023u, bb = b->hash & 1023u;
  if (ba != bb) return ba < bb ? -1 : 1;
  return a->seq > b->seq ? -1 : a->seq < b->seq;
}

static void var_sort_elems(var_elem **a, var_elem **tmp, size_t n) {
  size_t mid = n / 2, i = 0, j = mid, k = 0;
  if (n < 2) return;
  var_sort_elems(a, tmp, mid);
  var_sort_elems(a + mid, tmp, n - mid);
  while (i < mid && j < n)
    tmp[k++] = var_assoc_cmp(a[j], a[i]) < 0 ? a[j++] : a[i++];
  while (i < mid) tmp[k++] = a[i++];
  while (j < n) tmp[k++] = a[j++];
  memcpy(a, tmp, n * sizeof *a);
}

/* Elements in iteration order. */
int var_elems(mem *m, const var *v, var_elem ***out, size_t *count) {
  var_elem **a;
  size_t i;
  *out = NULL;
  *count = 0;
  if (!v->n) return 0;
  a = mem_alloc(m, v->n * sizeof *a);
  if (!a) return MSB_ENOMEM;
  for (i = 0; i < v->n; i++) a[i] = &v->el[i];
  if (v->attr & VAR_ASSOC) {
    var_elem **tmp = mem_alloc(m, v->n * sizeof *tmp);
    if (!tmp) {
      mem_free(m, a);
      return MSB_ENOMEM;
    }
    var_sort_elems(a, tmp, v->n);
    mem_free(m, tmp);
  }
  *out = a;
  *count = v->n;
  return 0;
}

/* Enters a function scope. */
void var_push_scope(var_store *vs) { vs->level++; }

/* Leaves a function scope, dropping its locals. */
void var_pop_scope(var_store *vs) {
  size_t i;
  if (vs->level <= 0) return;
  if (vs->level < vs->scap) {
    var_scope *sc = &vs->scopes[vs->level];
    for (i = sc->n; i-- > 0;) {
      var_slot *s = sc->slots[i];
      var *v = s->top;
      if (v && v->level == vs->level) {
        if (v->attr & VAR_EXPORT) vs->env_dirty = 1;
        s->top = v->shadow;
        var_free_binding(vs->m, v);
      }
    }
    sc->n = 0;
  }
  vs->level--;
}

/* Current function nesting level. */
int var_level(const var_store *vs) { return vs->level; }

/* Declares a local at the current level. */
var *var_local(var_store *vs, const char *name) {
  var_slot *s;
  var *v;
  var_scope *sc;
  if (vs->level == 0) return var_bind(vs, name, 0);
  s = var_slot_get(vs, name, 1);
  if (!s) return NULL;
  if (s->top && s->top->level == vs->level) return s->top;
  if (vs->level >= vs->scap) {
    int nc = vs->level + 8;
    var_scope *ns = mem_realloc(vs->m, vs->scopes, (size_t)nc * sizeof *ns);
    if (!ns) return NULL;
    memset(ns + vs->scap, 0, (size_t)(nc - vs->scap) * sizeof *ns);
    vs->scopes = ns;
    vs->scap = nc;
  }
  sc = &vs->scopes[vs->level];
  if (sc->n == sc->cap) {
    size_t nc = sc->cap ? sc->cap * 2 : 8;
    var_slot **nsl = mem_realloc(vs->m, sc->slots, nc * sizeof *nsl);
    if (!nsl) return NULL;
    sc->slots = nsl;
    sc->cap = nc;
  }
  v = var_binding_new(vs, s, vs->level);
  if (!v) return NULL;
  v->shadow = s->top;
  s->top = v;
  sc->slots[sc->n++] = s;
  return v;
}

static void var_sort_names(var **a, var **tmp, size_t n) {
  size_t mid = n / 2, i = 0, j = mid, k = 0;
  if (n < 2) return;
  var_sort_names(a, tmp, mid);
  var_sort_names(a + mid, tmp, n - mid);
  while (i < mid && j < n)
    tmp[k++] = strcmp(a[j]->name, a[i]->name) < 0 ? a[j++] : a[i++];
  while (i < mid) tmp[k++] = a[i++];
  while (j < n) tmp[k++] = a[j++];
  memcpy(a, tmp, n * sizeof *a);
}

/* Visible bindings sorted by name. */
int var_list(var_store *vs, mem *m, var ***out, size_t *count) {
  size_t i, n = 0;
  var **a, **tmp;
  *out = NULL;
  *count = 0;
  a = mem_alloc(m, (vs->used + 1) * sizeof *a);
  tmp = mem_alloc(m, (vs->used + 1) * sizeof *a);
  if (!a || !tmp) {
    mem_free(m, a);
    mem_free(m, tmp);
    return MSB_ENOMEM;
  }
  for (i = 0; i < vs->tabn; i++)
    if (vs->tab[i] && vs->tab[i]->top) a[n++] = vs->tab[i]->top;
  var_sort_names(a, tmp, n);
  mem_free(m, tmp);
  *out = a;
  *count = n;
  return 0;
}

/* Drops the selected bindings. */
void var_drop_if(var_store *vs, int (*drop)(void *ctx, const var *v),
                 void *ctx) {
  size_t i;
  for (i = 0; i < vs->tabn; i++) {
    var_slot *s = vs->tab[i];
    while (s && s->top && drop(ctx, s->top)) {
      var *v = s->top;
      s->top = v->shadow;
      var_free_binding(vs->m, v);
      vs->env_dirty = 1;
    }
  }
}

/* Frees the slots no binding uses, rehashing in place: an allocation here
 * could fail, and this must not. Starting just after an empty slot, no
 * probe run wraps past the start, so moving each entry to the first free
 * place of its run leaves every run unbroken. */
void var_compact(var_store *vs) {
  size_t i, k, z = 0, n = vs->tabn;
  if (vs->level > 0) return; /* scope lists point at slots */
  for (i = 0; i < n; i++) {
    var_slot *s = vs->tab[i];
    if (s && !s->top) {
      mem_free(vs->m, s->name);
      mem_free(vs->m, s);
      vs->tab[i] = NULL;
      vs->used--;
    }
    if (!vs->tab[i]) z = i;
  }
  for (k = 1; k <= n; k++) {
    var_slot *s = vs->tab[(z + k) & (n - 1)];
    if (!s) continue;
    vs->tab[(z + k) & (n - 1)] = NULL;
    *var_find_pos(vs->tab, n, s->name, s->h) = s;
  }
}

/* Exported environment, cached. */
char **var_environ(var_store *vs) {
  var **list;
  size_t n, i, k = 0;
  if (!vs->env_dirty && vs->env) return vs->env;
  var_env_free(vs);
  if (var_list(vs, vs->m, &list, &n)) return NULL;
  vs->env = mem_zalloc(vs->m, (n + 1) * sizeof *vs->env);
  if (!vs->env) {
    mem_free(vs->m, list);
    return NULL;
  }
  for (i = 0; i < n; i++) {
    var *v = list[i];
    const char *val;
    size_t nl, vl;
    char *s;
    if (!(v->attr & VAR_EXPORT) || (v->attr & VAR_NOVALUE)) continue;
    if (v->attr & (VAR_ARRAY | VAR_ASSOC)) continue; /* bash skips arrays */
    val = v->val ? v->val : "";
    nl = strlen(v->name);
    vl = strlen(val);
    s = mem_alloc(vs->m, nl + vl + 2);
    if (!s) {
      mem_free(vs->m, list);
      var_env_free(vs);
      return NULL;
    }
    memcpy(s, v->name, nl);
    s[nl] = '=';
    memcpy(s + nl + 1, val, vl + 1);
    vs->env[k++] = s;
  }
  mem_free(vs->m, list);
  vs->env_dirty = 0;
  return vs->env;
}

/* Marks the environment cache stale. */
void var_changed(var_store *vs) { vs->env_dirty = 1; }
