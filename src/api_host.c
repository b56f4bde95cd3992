/* api_host.c - the host controls of the public API: msb_set_policy,
 * msb_op_open / msb_op_close and msb_events_take. The policy is checked by api_op_begin (operations) and
 * by the filesystem and shell (paths, commands); events are queued by
 * api_op_begin / api_op_end (api.c). */
#include <string.h>

#include "sandbox.h"

/* Replaces the policy atomically: the old one stays when the text is bad
 * or memory runs out. A policy that restricts nothing is stored as none,
 * so the unrestricted paths stay a pointer check. */
int msb_set_policy(msb_sandbox *sb, const char *text, size_t len) {
  policy *p = NULL;
  char why[256];
  int rc;
  API_CHECK(sb);
  if (!text && len) return api_fail(sb, MSB_EINVAL, "text is NULL");
  rc = policy_parse(&sb->m, text ? text : "", len, &p, why, sizeof why);
  if (rc == MSB_ENOMEM) return api_oom(sb);
  if (rc) return api_fail(sb, rc, "invalid policy: %s", why);
  if (!p->nallow && !p->ndeny && !p->nrules &&
      p->ops == (1u << POLICY_OP_COUNT) - 1) {
    policy_destroy(p);
    p = NULL;
  }
  policy_destroy(sb->pol);
  sb->pol = p;
  vfs_set_policy(sb->fs, p);
  return api_ok(sb);
}

/* Opens a host operation of several calls: the outermost one is an
 * operation of its own (its id, "operation.started", the admission check;
 * a denial reads like a denied call), its steps report under it. */
int msb_op_open(msb_sandbox *sb, const char *operation, const char *path) {
  int op, rc;
  API_CHECK(sb);
  op = operation ? policy_op_lookup(operation, strlen(operation)) : -1;
  if (op < 0) return api_fail(sb, MSB_EINVAL, "unknown operation");
  if (!sb->admitted) {
    rc = api_op_begin(sb, &sb->outer, op, path, NULL, 0);
    if (rc) return api_op_end(sb, &sb->outer, rc, NULL);
    sb->outer_rc = 0;
    api_x(&sb->outer_x);
  }
  sb->admitted++;
  return api_ok(sb);
}

/* The id of the operation msb_op_open opened or refused last (what its
 * events carry), 0 before any: a refused operation was created all the
 * same (the reference allocates its id before the policy decision). */
uint64_t msb_op_id(const msb_sandbox *sb) { return sb ? sb->outer.id : 0; }

/* Marks the open operation failed with code rc (a negative MSB_E*). */
void msb_op_fail(msb_sandbox *sb, int rc) {
  if (sb && sb->admitted && rc < 0) sb->outer_rc = rc;
}

/* Closes the innermost msb_op_open; the outermost one's terminal event. */
void msb_op_close(msb_sandbox *sb) {
  if (!sb || !sb->admitted) return;
  if (--sb->admitted == 0)
    api_op_end(sb, &sb->outer, sb->outer_rc,
               sb->outer_rc ? NULL : &sb->outer_x);
}

/* Records an operation the host carries out itself. */
int msb_op_record(msb_sandbox *sb, const char *operation) {
  api_op o;
  int op, rc;
  API_CHECK(sb);
  op = operation ? policy_op_lookup(operation, strlen(operation)) : -1;
  if (op < 0) return api_fail(sb, MSB_EINVAL, "unknown operation");
  rc = api_op_begin(sb, &o, op, NULL, NULL, 0);
  return api_op_end(sb, &o, rc ? rc : api_ok(sb), NULL);
}

/* Drains pending events. */
int msb_events_take(msb_sandbox *sb, char **json, size_t *len) {
  int rc;
  API_CHECK(sb);
  if (!json || !len)
    return api_fail(sb, MSB_EINVAL, "json and len are required");
  rc = events_take(&sb->ev, json, len);
  return rc ? api_oom(sb) : api_ok(sb);
}
