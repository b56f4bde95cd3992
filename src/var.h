/* var.h - shell variables: scalars, indexed and associative arrays,
 * attributes, and bash's dynamic scoping for function locals.
 *
 * Names hash to a slot; a slot holds a stack of bindings (the innermost
 * `local` on top), so lookup is O(1) and a function return pops exactly the
 * bindings its scope created. Values are NUL-terminated byte strings (bash
 * variables cannot hold NUL). Specials ($RANDOM, $LINENO...) are computed by
 * the interpreter, not stored here. */
#ifndef MSB_VAR_H
#define MSB_VAR_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "limits.h"
#include "mem.h"

/* Attributes (declare flags). */
#define VAR_EXPORT 0x1u
#define VAR_READONLY 0x2u
#define VAR_INTEGER 0x4u
#define VAR_LOWER 0x8u
#define VAR_UPPER 0x10u
#define VAR_NAMEREF 0x20u
#define VAR_ARRAY 0x40u   /* indexed array */
#define VAR_ASSOC 0x80u   /* associative array */
#define VAR_NOVALUE 0x100u /* declared (declare x / local x) but unset */

/* Errors beyond MSB_E* (positive so callers can tell them apart). */
#define VAR_ERO 1      /* readonly variable */
#define VAR_EBADNAME 2 /* not a valid identifier */
#define VAR_ECIRC 3    /* circular name reference */
#define VAR_ESELF 4    /* a nameref naming itself */

/* One array element. Indexed arrays keep their elements in an AVL tree
 * ordered by index (O(log n) lookup, insertion and removal at any index);
 * associative arrays in bash's own hash table layout, which fixes the
 * order `${!a[@]}` and `declare -p` print. */
typedef struct var_elem {
  int64_t idx;  /* indexed arrays */
  char *key;    /* associative arrays (NULL for indexed) */
  char *val;
  /* indexed: left and right subtrees; associative: link[0] is the next
   * element of the bucket chain */
  struct var_elem *link[2];
  uint32_t hash; /* associative: bash's hash of key */
  int height;    /* indexed: height of the subtree */
} var_elem;

typedef struct var {
  char *name;     /* shared with the slot (borrowed) */
  unsigned attr;
  int level;      /* scope level that created this binding (0 = global) */
  char *val;      /* scalar value (NULL when array or no value) */
  var_elem *root; /* indexed arrays: the tree */
  var_elem **bkt; /* associative arrays: bucket chains (NULL while empty) */
  size_t nbkt;    /* associative arrays: bucket count, a power of two */
  size_t n;       /* element count */
  struct var *shadow; /* the binding this one hides */
} var;

typedef struct var_store var_store;

var_store *var_create(mem *m);
void var_destroy(var_store *vs);
/* Deep copy (subshells, command substitution, clones). */
var_store *var_clone(const var_store *vs, mem *m);

/* Visible binding of name, NULL when none. Does not follow namerefs. */
var *var_lookup(var_store *vs, const char *name);
/* As var_lookup, following namerefs (at most 8 hops). *resolved receives
 * the final name (borrowed) when non-NULL. NULL for a circular chain and
 * for a nameref to an array element (see var_resolve). */
var *var_get(var_store *vs, const char *name, const char **resolved);
/* Where name's nameref chain ends: *target receives the final name
 * (borrowed; name itself when name is no nameref; "a[1]" for a reference
 * to an array element). 0, or VAR_ECIRC when the chain loops. */
int var_resolve(var_store *vs, const char *name, const char **target);
/* Whether target may be the value of nameref name: 0, VAR_EBADNAME (not
 * an identifier or identifier[subscript]) or VAR_ESELF. */
int var_nameref_check(const char *name, const char *target);
/* Scalar value or element 0 of an array; NULL when unset. */
const char *var_value(var_store *vs, const char *name);

/* Assignment flags. */
#define VS_GLOBAL 1u  /* bind at level 0 (declare -g) */
#define VS_APPEND 2u  /* += */
/* Sets a scalar (element 0 for arrays). Applies -l/-u. Returns 0,
 * VAR_ERO or MSB_ENOMEM. */
int var_set(var_store *vs, const char *name, const char *val, unsigned fl);
/* Sets element idx of an indexed array (created when absent); idx >= 0. */
int var_set_index(var_store *vs, const char *name, int64_t idx, const char *val,
                  unsigned fl);
/* Sets key of an associative array. */
int var_set_key(var_store *vs, const char *name, const char *key,
                const char *val, unsigned fl);
/* Finds or creates the binding name refers to (following namerefs); for
 * declare. Never NULL unless out of memory. */
var *var_bind(var_store *vs, const char *name, unsigned fl);
/* As var_bind for name itself, never following a nameref (declare -n). */
var *var_bind_self(var_store *vs, const char *name, unsigned fl);
/* Removes all values and attributes of a binding, making it an empty
 * indexed (assoc=0) or associative (assoc=1) array. */
int var_make_array(var_store *vs, var *v, int assoc);
/* Unsets a variable: 0, VAR_ERO; unknown names are fine. */
int var_unset(var_store *vs, const char *name);
/* As var_unset, but a nameref itself, not what it refers to (unset -n). */
int var_unset_ref(var_store *vs, const char *name);
/* Unsets one element (index or key). */
int var_unset_elem(var_store *vs, var *v, int64_t idx, const char *key);

/* Element access. */
const char *var_index_get(const var *v, int64_t idx);
const char *var_key_get(const var *v, const char *key);
/* Highest index + 1 of an indexed array (0 when empty). */
int64_t var_index_end(const var *v);
/* Elements in iteration order (assoc: bash's hash order). *out is an
 * array of borrowed element pointers allocated from m; caller frees. */
int var_elems(mem *m, const var *v, var_elem ***out, size_t *count);
/* As var_elems, but in an order whose insertion (var_set_key) into an
 * empty array of the same bucket count rebuilds the same layout. */
int var_elems_rebuild(mem *m, const var *v, var_elem ***out, size_t *count);
/* The element after e in iteration order, the first when e is NULL; NULL
 * at the end. O(1) amortised for assoc, O(log n) for indexed arrays. */
var_elem *var_elem_next(const var *v, const var_elem *e);
/* First element of an indexed array whose index is >= idx; NULL if none. */
var_elem *var_index_from(const var *v, int64_t idx);
/* Bucket count of an associative array (bash grows it from 1024 by 4x
 * whenever an insertion finds twice as many elements as buckets). */
size_t var_assoc_buckets(const var *v);
/* Sets the bucket count of an associative array that never held a key
 * (restoring a saved one); 0, or MSB_EINVAL unless a count bash can reach. */
int var_assoc_set_buckets(var *v, size_t nbkt);
/* Caps the element count of every array: an assignment that would add an
 * element past max fails with MSB_ELIMIT and stores "max_array_items" in
 * *limit (when not NULL and still unset). 0 = no cap. Clones inherit it. */
void var_set_limit(var_store *vs, uint64_t max, limit_id *limit);

/* The change log: while on, every change to an exported scalar (set,
 * unset, export, export -n) is recorded in order of occurrence, a name
 * keeping its last value and, after it, an unset (value NULL). Not cloned. */
typedef struct var_change {
  char *name;
  char *value; /* NULL: unset (or no longer exported) */
} var_change;
void var_log(var_store *vs, int on);
void var_log_clear(var_store *vs);
const var_change *var_log_get(const var_store *vs, size_t *n);
void var_log_var(var_store *vs, const var *v, int unset);
void var_log_keep_current(var_store *vs);

/* Scopes for function calls. */
void var_push_scope(var_store *vs);
void var_pop_scope(var_store *vs);
int var_level(const var_store *vs);
/* Creates a local binding at the current level (no value) unless one
 * exists there; returns it. */
var *var_local(var_store *vs, const char *name);

/* Removes every visible binding drop(ctx, v) selects, without allocating,
 * so it cannot fail (the end-of-exec scrub of secret values). Readonly
 * bindings go too. Meant for the global level. */
void var_drop_if(var_store *vs, int (*drop)(void *ctx, const var *v),
                 void *ctx);
/* Frees the names that no binding uses any more (set, then unset or
 * dropped), so that no copy of them stays in memory. Cannot fail; does
 * nothing inside a function scope. */
void var_compact(var_store *vs);
/* All visible variables sorted by name; *out from m, caller frees. */
int var_list(var_store *vs, mem *m, var ***out, size_t *count);
/* Exported "NAME=value" strings (NULL-terminated, cached until an exported
 * variable changes; borrowed). NULL on out of memory. */
char **var_environ(var_store *vs);

/* Marks the cached environ stale (after an attribute change). */
void var_changed(var_store *vs);

/* The declare letters of attr in the order bash prints them (declare -p,
 * ${x@a}): "aAinrxlu"'s subset, NUL-terminated; out holds 9 bytes.
 * Returns the letter count. */
int var_attr_letters(unsigned attr, char *out);

/* 1 when s[0..n) is a valid shell identifier. */
int var_valid_name(const char *s, size_t n);

#endif
