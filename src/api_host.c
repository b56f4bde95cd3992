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

/* Opens a host operation of several calls. A denial runs the operation's
 * admission for its events and message, so it reads like a denied call. */
int msb_op_open(msb_sandbox *sb, const char *operation) {
  api_op o;
  int op, rc;
  API_CHECK(sb);
  op = operation ? policy_op_lookup(operation, strlen(operation)) : -1;
  if (op < 0) return api_fail(sb, MSB_EINVAL, "unknown operation");
  if (!sb->admitted && sb->pol && !policy_op_allowed(sb->pol, op)) {
    rc = api_op_begin(sb, &o, op, NULL, NULL, 0);
    return api_op_end(sb, &o, rc, NULL);
  }
  sb->admitted++;
  return api_ok(sb);
}

/* Closes the innermost msb_op_open. */
void msb_op_close(msb_sandbox *sb) {
  if (sb && sb->admitted) sb->admitted--;
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
