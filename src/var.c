/* var.c - the shell variable store (see var.h).
 *
 * An open hash table of slots keyed by name; each slot keeps a stack of
 * bindings, top = visible (dynamic scoping: a function's `local` pushes a
 * binding, its return pops it). Each scope level records the slots it
 * pushed so popping costs O(locals). Indexed arrays are AVL trees keyed
 * by index. Associative arrays are bash 5's hash tables rebuilt exactly
 * (its FNV-style hash, 1024 buckets grown by 4x, new keys at the head of
 * their chain, iteration bucket by bucket), so lookups are O(1) and
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
  uint64_t max_items; /* element cap per array (0 = none) */
  limit_id *limit; /* where a refused element names its limit */
  var_change *log; /* exported variables' changes while logging, in order */
  size_t nlog, caplog;
  int logging;
};

#define VAR_ASSOC_BUCKETS 1024u /* bash's ASSOC_HASH_BUCKETS */
#define VAR_ASSOC_GROW 4u       /* bash's HASH_REHASH_MULTIPLIER */
/* Largest restorable bucket count (enough for 8M elements). */
#define VAR_ASSOC_MAX_BUCKETS (VAR_ASSOC_BUCKETS << 12)

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

int var_attr_letters(unsigned attr, char *out) {
  static const struct {
    unsigned attr;
    char c;
  } order[] = {{VAR_ARRAY, 'a'},   {VAR_ASSOC, 'A'},    {VAR_INTEGER, 'i'},
               {VAR_NAMEREF, 'n'}, {VAR_READONLY, 'r'}, {VAR_EXPORT, 'x'},
               {VAR_LOWER, 'l'},   {VAR_UPPER, 'u'}};
  int k = 0;
  size_t i;
  for (i = 0; i < sizeof order / sizeof order[0]; i++)
    if (attr & order[i].attr) out[k++] = order[i].c;
  out[k] = 0;
  return k;
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

static void var_elem_free(mem *m, var_elem *e) {
  mem_free(m, e->key);
  mem_free(m, e->val);
  mem_free(m, e);
}

/* Frees a subtree; recursion depth is the tree height, O(log n). */
static void var_tree_free(mem *m, var_elem *t) {
  while (t) {
    var_elem *r = t->link[1];
    var_tree_free(m, t->link[0]);
    var_elem_free(m, t);
    t = r;
  }
}

static void var_free_values(mem *m, var *v) {
  size_t b;
  mem_free(m, v->val);
  v->val = NULL;
  var_tree_free(m, v->root);
  v->root = NULL;
  for (b = 0; v->bkt && b < v->nbkt; b++)
    while (v->bkt[b]) {
      var_elem *e = v->bkt[b];
      v->bkt[b] = e->link[0];
      var_elem_free(m, e);
    }
  mem_free(m, v->bkt);
  v->bkt = NULL;
  v->n = 0;
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
  var_log_clear(vs);
  mem_free(vs->m, vs->log);
  mem_free(vs->m, vs);
}

/* ---- the change log (environment_changes) ----------------------------- */

/* Forgets the log. */
void var_log_clear(var_store *vs) {
  size_t i;
  for (i = 0; i < vs->nlog; i++) {
    mem_free(vs->m, vs->log[i].name);
    mem_free(vs->m, vs->log[i].value);
  }
  vs->nlog = 0;
}

/* Starts (on) or stops logging; starting forgets the last log. */
void var_log(var_store *vs, int on) {
  if (on) var_log_clear(vs);
  vs->logging = on;
}

/* The log (borrowed until the next change to the store). */
const var_change *var_log_get(const var_store *vs, size_t *n) {
  *n = vs->nlog;
  return vs->log;
}

/* Drops entry i, keeping the order. */
static void var_log_drop(var_store *vs, size_t i) {
  mem_free(vs->m, vs->log[i].name);
  mem_free(vs->m, vs->log[i].value);
  memmove(vs->log + i, vs->log + i + 1, (vs->nlog - i - 1) * sizeof *vs->log);
  vs->nlog--;
}

/* Records that exported name was set to value (NULL: unset). A name keeps
 * at most its last value and, after it, an unset, so the log stays as
 * small as the set of names however often a loop assigns. Out of memory
 * drops the record (the log is a report, not state). */
static void var_log_note(var_store *vs, const char *name, const char *value) {
  size_t i = vs->nlog;
  var_change *c;
  if (!vs->logging) return;
  while (i-- > 0) {
    if (strcmp(vs->log[i].name, name)) continue;
    if (!value && vs->log[i].value) continue; /* keep the set before unset */
    var_log_drop(vs, i);
  }
  if (vs->nlog == vs->caplog) {
    size_t cap = vs->caplog ? vs->caplog * 2 : 8;
    var_change *nl = mem_realloc(vs->m, vs->log, cap * sizeof *nl);
    if (!nl) return;
    vs->log = nl;
    vs->caplog = cap;
  }
  c = &vs->log[vs->nlog];
  c->name = mem_strdup(vs->m, name);
  c->value = value ? mem_strdup(vs->m, value) : NULL;
  if (!c->name || (value && !c->value)) {
    mem_free(vs->m, c->name);
    mem_free(vs->m, c->value);
    return;
  }
  vs->nlog++;
}

/* Keeps only values the store still holds (after a secret scrub, a value
 * set and then unset could hold a secret no scrub saw). */
void var_log_keep_current(var_store *vs) {
  size_t i = vs->nlog;
  while (i-- > 0) {
    const char *cur;
    var *v;
    if (!vs->log[i].value) continue;
    v = var_lookup(vs, vs->log[i].name);
    cur = v && (v->attr & VAR_EXPORT) ? v->val : NULL;
    if (!cur || strcmp(cur, vs->log[i].value)) var_log_drop(vs, i);
  }
}

/* Records v's change when it is an exported scalar. */
void var_log_var(var_store *vs, const var *v, int unset) {
  if (!(v->attr & VAR_EXPORT) || (v->attr & (VAR_ARRAY | VAR_ASSOC))) return;
  if (!unset && (v->attr & VAR_NOVALUE)) return; /* not in the environment */
  var_log_note(vs, v->name, unset ? NULL : v->val ? v->val : "");
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

/* A copy of e without its links; NULL when out of memory. */
static var_elem *var_elem_dup(mem *m, const var_elem *e) {
  var_elem *d = mem_zalloc(m, sizeof *d);
  if (!d) return NULL;
  *d = *e;
  d->link[0] = d->link[1] = NULL;
  d->val = mem_strdup(m, e->val);
  d->key = e->key ? mem_strdup(m, e->key) : NULL;
  if (!d->val || (e->key && !d->key)) {
    var_elem_free(m, d);
    return NULL;
  }
  return d;
}

/* Copies a subtree, shape and all; *ok is cleared when out of memory (the
 * partial copy stays linked, so freeing the root frees it). */
static var_elem *var_tree_copy(mem *m, const var_elem *t, int *ok) {
  var_elem *d;
  if (!t || !*ok) return NULL;
  if (!(d = var_elem_dup(m, t))) {
    *ok = 0;
    return NULL;
  }
  d->link[0] = var_tree_copy(m, t->link[0], ok);
  d->link[1] = var_tree_copy(m, t->link[1], ok);
  return d;
}

/* Copies the bucket chains in their order. */
static int var_chains_copy(mem *m, const var *src, var *dst) {
  size_t b;
  if (!src->bkt) return 0;
  if (!(dst->bkt = mem_zalloc(m, src->nbkt * sizeof *dst->bkt)))
    return MSB_ENOMEM;
  for (b = 0; b < src->nbkt; b++) {
    var_elem **tail = &dst->bkt[b];
    const var_elem *e;
    for (e = src->bkt[b]; e; e = e->link[0]) {
      if (!(*tail = var_elem_dup(m, e))) return MSB_ENOMEM;
      tail = &(*tail)->link[0];
    }
  }
  return 0;
}

static int var_copy_binding(mem *m, const var *src, var *dst) {
  int ok = 1;
  *dst = *src;
  dst->val = NULL;
  dst->root = NULL;
  dst->bkt = NULL;
  dst->shadow = NULL;
  if (src->val && !(dst->val = mem_strdup(m, src->val))) return MSB_ENOMEM;
  dst->root = var_tree_copy(m, src->root, &ok);
  if (!ok) return MSB_ENOMEM;
  return var_chains_copy(m, src, dst);
}

/* Deep copy. */
var_store *var_clone(const var_store *vs, mem *m) {
  var_store *c = mem_zalloc(m, sizeof *c);
  size_t i;
  if (!c) return NULL;
  c->m = m;
  c->env_dirty = 1;
  c->max_items = vs->max_items;
  c->limit = vs->limit;
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

/* bash gives up on a nameref chain after this many hops (a loop). */
#define VAR_NAMEREF_HOPS 8

static int var_is_ref(const var *v) {
  return v && (v->attr & VAR_NAMEREF) && v->val && *v->val;
}

int var_resolve(var_store *vs, const char *name, const char **target) {
  int hops;
  for (hops = 0; hops <= VAR_NAMEREF_HOPS; hops++) {
    var *v = var_lookup(vs, name);
    if (!var_is_ref(v)) {
      *target = name;
      return 0;
    }
    name = v->val;
  }
  *target = name;
  return VAR_ECIRC;
}

/* Visible binding, following namerefs. */
var *var_get(var_store *vs, const char *name, const char **resolved) {
  const char *rn = name;
  var *v = var_resolve(vs, name, &rn) ? NULL : var_lookup(vs, rn);
  if (resolved) *resolved = v ? v->name : rn;
  return v;
}

int var_nameref_check(const char *name, const char *target) {
  const char *br = strchr(target, '[');
  size_t n = br ? (size_t)(br - target) : strlen(target);
  if (!var_valid_name(target, n) ||
      (br && (target[strlen(target) - 1] != ']' || br[1] == ']')))
    return VAR_EBADNAME;
  if (!strcmp(name, target)) return VAR_ESELF;
  return 0;
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
  /* a loop or an array element: callers report those; bind name itself */
  if (var_resolve(vs, name, &rn) || strchr(rn, '[')) rn = name;
  return var_bind_self(vs, rn, fl);
}

var *var_bind_self(var_store *vs, const char *rn, unsigned fl) {
  var *v = var_lookup(vs, rn);
  var_slot *s;
  if (v && !(fl & VS_GLOBAL)) return v;
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

/* ---- indexed arrays: an AVL tree keyed by index ---------------------- */

static int var_height(const var_elem *t) { return t ? t->height : 0; }

static var_elem *var_fix_height(var_elem *t) {
  int l = var_height(t->link[0]), r = var_height(t->link[1]);
  t->height = 1 + (l > r ? l : r);
  return t;
}

/* Rotates t: dir 0 lifts the right child, 1 the left one. */
static var_elem *var_rotate(var_elem *t, int dir) {
  var_elem *c = t->link[!dir];
  t->link[!dir] = c->link[dir];
  c->link[dir] = var_fix_height(t);
  return var_fix_height(c);
}

/* Restores the AVL balance at t after one insertion or removal below. */
static var_elem *var_balance(var_elem *t) {
  int d = var_height(t->link[0]) - var_height(t->link[1]), s;
  var_elem *c;
  if (d >= -1 && d <= 1) return var_fix_height(t);
  s = d > 0; /* the taller side: 1 = left */
  c = t->link[!s];
  if (var_height(c->link[!s]) < var_height(c->link[s]))
    t->link[!s] = var_rotate(c, !s);
  return var_rotate(t, s);
}

/* Inserts e (its index absent from t); returns the new root. */
static var_elem *var_tree_put(var_elem *t, var_elem *e) {
  if (!t) {
    e->height = 1;
    return e;
  }
  t->link[e->idx > t->idx] = var_tree_put(t->link[e->idx > t->idx], e);
  return var_balance(t);
}

static var_elem *var_tree_popmin(var_elem *t, var_elem **min) {
  if (!t->link[0]) {
    *min = t;
    return t->link[1];
  }
  t->link[0] = var_tree_popmin(t->link[0], min);
  return var_balance(t);
}

/* Unlinks the element with index idx into *out (NULL when absent). */
static var_elem *var_tree_del(var_elem *t, int64_t idx, var_elem **out) {
  var_elem *m;
  if (!t) return NULL;
  if (idx != t->idx) {
    t->link[idx > t->idx] = var_tree_del(t->link[idx > t->idx], idx, out);
    return var_balance(t);
  }
  *out = t;
  if (!t->link[0] || !t->link[1]) return t->link[!t->link[0]];
  t->link[1] = var_tree_popmin(t->link[1], &m);
  m->link[0] = t->link[0];
  m->link[1] = t->link[1];
  return var_balance(m);
}

static var_elem *var_tree_find(const var *v, int64_t idx) {
  var_elem *t = v->root;
  while (t && t->idx != idx) t = t->link[idx > t->idx];
  return t;
}

/* ---- associative arrays: bash's hash table --------------------------- */

static var_elem **var_chain(const var *v, uint32_t h) {
  return &v->bkt[h & (v->nbkt - 1)];
}

static var_elem *var_assoc_find(const var *v, const char *key) {
  uint32_t h;
  var_elem *e;
  if (!v->bkt) return NULL;
  h = var_bash_hash(key);
  for (e = *var_chain(v, h); e; e = e->link[0])
    if (e->hash == h && !strcmp(e->key, key)) return e;
  return NULL;
}

/* bash's hash_rehash: old buckets in order, each chain from its head,
 * every element pushed on the head of its new chain. */
static int var_assoc_grow(mem *m, var *v) {
  size_t nb = v->nbkt * VAR_ASSOC_GROW, b;
  var_elem **old = v->bkt, **nw = mem_zalloc(m, nb * sizeof *nw);
  if (!nw) return MSB_ENOMEM;
  for (b = 0; b < v->nbkt; b++)
    while (old[b]) {
      var_elem *e = old[b], **c = &nw[e->hash & (nb - 1)];
      old[b] = e->link[0];
      e->link[0] = *c;
      *c = e;
    }
  mem_free(m, old);
  v->bkt = nw;
  v->nbkt = nb;
  return 0;
}

/* Makes room for one more key as bash's hash_insert does. */
static int var_assoc_room(mem *m, var *v) {
  if (!v->nbkt) v->nbkt = VAR_ASSOC_BUCKETS;
  if (!v->bkt) {
    v->bkt = mem_zalloc(m, v->nbkt * sizeof *v->bkt);
    return v->bkt ? 0 : MSB_ENOMEM;
  }
  return v->n >= v->nbkt * 2 ? var_assoc_grow(m, v) : 0;
}

/* ---- both ------------------------------------------------------------ */

/* Refuses an element past the store's cap. */
static int var_room(var_store *vs, const var *v) {
  if (!vs->max_items || v->n < vs->max_items) return 0;
  if (vs->limit && !*vs->limit) *vs->limit = LIMIT_MAX_ARRAY_ITEMS;
  return MSB_ELIMIT;
}

/* Sets e's value to val (converted per v's attributes, after the old one
 * when appending). */
static int var_elem_assign(mem *m, const var *v, var_elem *e, const char *val,
                           unsigned fl) {
  char *nv = var_convert(m, v, val, (fl & VS_APPEND) ? e->val : NULL);
  if (!nv) return MSB_ENOMEM;
  mem_free(m, e->val);
  e->val = nv;
  return 0;
}

/* A new element holding key (NULL for indexed) and val. */
static var_elem *var_elem_new(var_store *vs, const var *v, const char *key,
                              const char *val) {
  var_elem *e = mem_zalloc(vs->m, sizeof *e);
  if (!e) return NULL;
  if ((key && !(e->key = mem_strdup(vs->m, key))) ||
      var_elem_assign(vs->m, v, e, val, 0)) {
    var_elem_free(vs->m, e);
    return NULL;
  }
  return e;
}

static int var_put_index(var_store *vs, var *v, int64_t idx, const char *val,
                         unsigned fl) {
  var_elem *e = var_tree_find(v, idx);
  int rc;
  if (e) return var_elem_assign(vs->m, v, e, val, fl);
  if ((rc = var_room(vs, v))) return rc;
  if (!(e = var_elem_new(vs, v, NULL, val))) return MSB_ENOMEM;
  e->idx = idx;
  v->root = var_tree_put(v->root, e);
  v->n++;
  return 0;
}

static int var_put_key(var_store *vs, var *v, const char *key, const char *val,
                       unsigned fl) {
  var_elem *e = var_assoc_find(v, key), **c;
  int rc;
  if (e) return var_elem_assign(vs->m, v, e, val, fl);
  if ((rc = var_room(vs, v)) || (rc = var_assoc_room(vs->m, v))) return rc;
  if (!(e = var_elem_new(vs, v, key, val))) return MSB_ENOMEM;
  e->hash = var_bash_hash(key);
  c = var_chain(v, e->hash);
  e->link[0] = *c;
  *c = e;
  v->n++;
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
  var_log_var(vs, v, 0);
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

/* Empties v and makes it an array of the requested kind. An associative
 * array emptied to be associative again keeps its bucket count, as bash's
 * compound assignment does (assoc_create (h->nbuckets)). */
int var_make_array(var_store *vs, var *v, int assoc) {
  size_t nbkt = (assoc && (v->attr & VAR_ASSOC)) ? v->nbkt : 0;
  var_mark(vs, v);
  var_free_values(vs->m, v);
  v->nbkt = nbkt;
  v->attr &= ~(VAR_ARRAY | VAR_ASSOC | VAR_NOVALUE);
  v->attr |= assoc ? VAR_ASSOC : VAR_ARRAY;
  return 0;
}

/* Unsets name: a local at the current level stays declared but valueless
 * (so the global stays hidden, as in bash); anything else is removed. */
static int var_unset_binding(var_store *vs, var *v) {
  var_slot *s;
  if (!v) return 0;
  if (v->attr & VAR_READONLY) return VAR_ERO;
  s = var_slot_get(vs, v->name, 0);
  vs->env_dirty = 1;
  var_log_var(vs, v, 1);
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

int var_unset(var_store *vs, const char *name) {
  return var_unset_binding(vs, var_get(vs, name, NULL));
}

int var_unset_ref(var_store *vs, const char *name) {
  return var_unset_binding(vs, var_lookup(vs, name));
}

/* Unlinks key from its chain; NULL when absent. */
static var_elem *var_assoc_unlink(var *v, const char *key) {
  var_elem *e = var_assoc_find(v, key), **p;
  if (!e) return NULL;
  for (p = var_chain(v, e->hash); *p != e; p = &(*p)->link[0]) continue;
  *p = e->link[0];
  return e;
}

/* Removes one element. */
int var_unset_elem(var_store *vs, var *v, int64_t idx, const char *key) {
  var_elem *e = NULL;
  if (v->attr & VAR_READONLY) return VAR_ERO;
  var_mark(vs, v);
  if (v->attr & VAR_ASSOC)
    e = var_assoc_unlink(v, key ? key : "");
  else if (v->attr & VAR_ARRAY)
    v->root = var_tree_del(v->root, idx, &e);
  else if (idx == 0)
    return var_unset(vs, v->name);
  if (!e) return 0;
  var_elem_free(vs->m, e);
  v->n--;
  return 0;
}

/* Element idx of an indexed array (a scalar is element 0). */
const char *var_index_get(const var *v, int64_t idx) {
  const var_elem *e;
  if (v->attr & VAR_NOVALUE) return NULL;
  if (!(v->attr & (VAR_ARRAY | VAR_ASSOC))) return idx == 0 ? v->val : NULL;
  if (v->attr & VAR_ASSOC) return NULL;
  e = var_tree_find(v, idx);
  return e ? e->val : NULL;
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
  const var_elem *t = v->root;
  if (!(v->attr & VAR_ARRAY)) return v->val ? 1 : 0;
  if (!t) return 0;
  while (t->link[1]) t = t->link[1];
  return t->idx + 1;
}

/* The element after e. */
var_elem *var_elem_next(const var *v, const var_elem *e) {
  var_elem *t = v->root, *best = NULL;
  if (v->attr & VAR_ASSOC) {
    size_t b = e ? (e->hash & (v->nbkt - 1)) + 1 : 0;
    if (e && e->link[0]) return e->link[0];
    for (; v->bkt && b < v->nbkt; b++)
      if (v->bkt[b]) return v->bkt[b];
    return NULL;
  }
  if (!(v->attr & VAR_ARRAY)) return NULL;
  while (t)
    if (!e || t->idx > e->idx) {
      best = t;
      t = t->link[0];
    } else
      t = t->link[1];
  return best;
}

/* First element of an indexed array with an index >= idx. */
var_elem *var_index_from(const var *v, int64_t idx) {
  var_elem *t = v->root, *best = NULL;
  if (!(v->attr & VAR_ARRAY)) return NULL;
  while (t)
    if (t->idx >= idx) {
      best = t;
      t = t->link[0];
    } else
      t = t->link[1];
  return best;
}

/* Appends subtree t in index order. */
static void var_tree_list(var_elem *t, var_elem **a, size_t *k) {
  for (; t; t = t->link[1]) {
    var_tree_list(t->link[0], a, k);
    a[(*k)++] = t;
  }
}

/* Elements in iteration order; rebuild: each bucket chain reversed. */
static int var_elems_order(mem *m, const var *v, var_elem ***out, size_t *count,
                           int rebuild) {
  var_elem **a, *e;
  size_t k = 0, i, j;
  *out = NULL;
  *count = 0;
  if (!v->n) return 0;
  if (!(a = mem_alloc(m, v->n * sizeof *a))) return MSB_ENOMEM;
  if (v->attr & VAR_ASSOC)
    for (e = var_elem_next(v, NULL); e; e = var_elem_next(v, e)) a[k++] = e;
  else
    var_tree_list(v->root, a, &k);
  for (i = 0; rebuild && i < k; i = j) {
    size_t lo = i, hi;
    for (j = i + 1; j < k && a[j] == a[j - 1]->link[0]; j++) continue;
    for (hi = j - 1; lo < hi; lo++, hi--) {
      e = a[lo];
      a[lo] = a[hi];
      a[hi] = e;
    }
  }
  *out = a;
  *count = k;
  return 0;
}

/* Elements in iteration order. */
int var_elems(mem *m, const var *v, var_elem ***out, size_t *count) {
  return var_elems_order(m, v, out, count, 0);
}

/* Elements in an order that rebuilds the same layout. */
int var_elems_rebuild(mem *m, const var *v, var_elem ***out, size_t *count) {
  return var_elems_order(m, v, out, count, (v->attr & VAR_ASSOC) != 0);
}

/* Bucket count (bash's default before the first key). */
size_t var_assoc_buckets(const var *v) {
  return v->nbkt ? v->nbkt : VAR_ASSOC_BUCKETS;
}

/* Sets the bucket count of an empty associative array. */
int var_assoc_set_buckets(var *v, size_t nbkt) {
  size_t b;
  if (!(v->attr & VAR_ASSOC) || v->bkt) return MSB_EINVAL;
  for (b = VAR_ASSOC_BUCKETS; b < nbkt && b < VAR_ASSOC_MAX_BUCKETS;)
    b *= VAR_ASSOC_GROW;
  if (b != nbkt) return MSB_EINVAL;
  v->nbkt = nbkt;
  return 0;
}

/* Caps array sizes. */
void var_set_limit(var_store *vs, uint64_t max, limit_id *limit) {
  vs->max_items = max;
  vs->limit = limit;
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
