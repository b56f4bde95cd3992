/* api_host.c - the host controls of the public API: msb_set_policy and
 * msb_events_take. The policy is checked by api_op_begin (operations) and
 * by the filesystem and shell (paths, commands); events are queued by
 * api_op_begin / api_op_end (api.c). */
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

/* Drains pending events. */
int msb_events_take(msb_sandbox *sb, char **json, size_t *len) {
  int rc;
  API_CHECK(sb);
  if (!json || !len)
    return api_fail(sb, MSB_EINVAL, "json and len are required");
  rc = events_take(&sb->ev, json, len);
  return rc ? api_oom(sb) : api_ok(sb);
}
