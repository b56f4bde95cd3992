/* policy.h - the host's policy: which commands may run, what each path
 * prefix allows, and which host operations are allowed.
 *
 * A policy is parsed from the text form documented in memsandbox.h and is
 * immutable afterwards (only its denial counter moves). The filesystem
 * asks it for the access mode of resolved paths (vfs_walk_acc), the
 * interpreter whether a command name may run, and the API whether a host
 * operation may run. A sandbox without a policy holds a NULL pointer, so
 * the unrestricted path costs one pointer check. */
#ifndef MSB_POLICY_H
#define MSB_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"

/* Path access modes, ordered from the most to the least restrictive. */
enum { POLICY_NONE = 0, POLICY_RO = 1, POLICY_RW = 2 };

/* Host operation kinds (bits of policy_op_allowed). */
enum {
  POLICY_OP_EXECUTE,
  POLICY_OP_READ_FILE,
  POLICY_OP_WRITE_FILE,
  POLICY_OP_STAT,
  POLICY_OP_LIST_ENTRIES,
  POLICY_OP_CREATE_DIRECTORY,
  POLICY_OP_REMOVE_PATH,
  POLICY_OP_COPY_PATH,
  POLICY_OP_MOVE_PATH,
  POLICY_OP_CREATE_SYMLINK,
  POLICY_OP_READ_LINK,
  POLICY_OP_CHANGE_MODE,
  POLICY_OP_HASH,
  POLICY_OP_CHECKPOINT,
  POLICY_OP_ROLLBACK,
  POLICY_OP_RELEASE,
  POLICY_OP_CREATE_SNAPSHOT,
  POLICY_OP_RESTORE_SNAPSHOT,
  POLICY_OP_FORK,
  POLICY_OP_APPLY_PATCH,
  POLICY_OP_COUNT
};

typedef struct policy_rule {
  char *path;    /* normalised absolute prefix, no trailing '/' but "/" */
  size_t len;
  int mode;      /* POLICY_NONE, POLICY_RO, POLICY_RW */
  size_t parent; /* nearest rule that is a prefix of this one, or SIZE_MAX */
} policy_rule;

typedef struct policy {
  mem *m;
  char **allow; /* allowed command names, sorted; none = every command */
  size_t nallow;
  char **deny; /* denied command names, sorted */
  size_t ndeny;
  policy_rule *rules; /* sorted with '/' ordered first (see policy.c) */
  size_t nrules;
  int has_none;   /* some rule is POLICY_NONE */
  uint32_t ops;   /* bit i set: operation i allowed */
  uint64_t denied_paths; /* path denials the filesystem counted */
  uint64_t denied_cmds;  /* command denials the interpreter counted */
} policy;

/* Parses the text form into *out (caller destroys). An empty text gives a
 * policy that allows everything. On a bad line returns MSB_EINVAL and
 * writes "line N: reason" into err (errlen bytes); MSB_ENOMEM when out of
 * memory. */
int policy_parse(mem *m, const char *text, size_t len, policy **out, char *err,
                 size_t errlen);
void policy_destroy(policy *p);
/* Deep copy of src into m (for a fork); MSB_ENOMEM leaves *out NULL. */
int policy_copy(mem *m, const policy *src, policy **out);

/* The access mode of a normalised absolute path: the mode of the longest
 * rule that is a prefix of it segment-wise, POLICY_RW when none is. */
int policy_path_mode(const policy *p, const char *path, size_t len);
/* The mode of a rule for exactly this path, or -1 when there is none. */
int policy_rule_mode(const policy *p, const char *path, size_t len);
/* The most restrictive mode among rules strictly below path (POLICY_RW
 * when there are none): what removing or copying the subtree would touch. */
int policy_below_mode(const policy *p, const char *path, size_t len);
/* Whether two command names are one implementation (the shell answers:
 * `.` and `source`, `egrep` and `grep`, ...). */
typedef int (*policy_same_fn)(const char *a, const char *b);
/* Whether a command may run. builtin: the name is a shell builtin, which
 * an allow-list does not restrict (only deny-command does). Rules hold for
 * every name of an implementation: with same given, a rule naming any of
 * them applies to name. */
int policy_command_allowed(const policy *p, const char *name, int builtin,
                           policy_same_fn same);
/* Whether a host operation (POLICY_OP_*) may run. */
int policy_op_allowed(const policy *p, int op);
/* The operation's name as the text form and events spell it. */
const char *policy_op_name(int op);

/* The operation named s[0..len) (its policy name), or -1. */
int policy_op_lookup(const char *s, size_t len);

#endif
