/* events.c - the bounded event queue and its JSON encoding.
 *
 * Each event is encoded once, when emitted, into one compact JSON line
 * with keys in a fixed order (see events.h), and appended to a pending
 * byte buffer; draining hands that buffer to the caller. Emitting never
 * fails the operation: an event that does not fit the bounds or the
 * memory is counted, and the drain reports the count in one
 * "events.dropped" event. */
#include "events.h"

#include <stdio.h>
#include <string.h>

#include "memsandbox.h"

/* Starts an empty queue. */
void events_init(events *q, mem *m) {
  memset(q, 0, sizeof *q);
  q->m = m;
}

/* Frees the pending lines. */
void events_finish(events *q) {
  mem_free(q->m, q->p);
  q->p = NULL;
  q->len = q->cap = q->count = 0;
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when invalid. */
static size_t events_utf8(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t need, i;
  unsigned long cp;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf)
    need = 2, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef)
    need = 3, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4)
    need = 4, cp = c & 0x07;
  else
    return 0;
  if (n < need) return 0;
  for (i = 1; i < need; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if ((need == 3 && cp < 0x800) || (need == 4 && cp < 0x10000) ||
      cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return need;
}

/* Appends a JSON string (see events.h). */
int events_add(buf *b, const char *s, size_t len) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  buf_putc(b, '"');
  while (i < len) {
    unsigned c = u[i];
    size_t k;
    if (c == '"' || c == '\\') {
      buf_putc(b, '\\');
      buf_putc(b, (int)c);
      i++;
    } else if (c == '\n') {
      buf_puts(b, "\\n");
      i++;
    } else if (c == '\t') {
      buf_puts(b, "\\t");
      i++;
    } else if (c < 0x20 || c == 0x7f) {
      buf_printf(b, "\\u%04x", c);
      i++;
    } else if ((k = events_utf8(u + i, len - i)) != 0) {
      buf_put(b, s + i, k);
      i += k;
    } else {
      buf_printf(b, "\\u%04x", c);
      i++;
    }
  }
  buf_putc(b, '"');
  return b->err;
}

static void events_num(buf *b, int *first, const char *key, uint64_t v) {
  buf_printf(b, "%s\"%s\":%llu", *first ? "" : ",", key, (unsigned long long)v);
  *first = 0;
}

/* Encodes one event as a JSON line (with its newline). */
static int events_encode(buf *b, uint64_t seq, const events_ev *ev) {
  size_t i;
  int first = 1;
  buf_printf(b, "{\"seq\":%llu,\"kind\":", (unsigned long long)seq);
  events_add(b, ev->kind, strlen(ev->kind));
  if (ev->operation)
    buf_printf(b, ",\"operation\":%llu", (unsigned long long)ev->operation);
  if (ev->op) {
    buf_puts(b, ",\"op\":");
    events_add(b, ev->op, strlen(ev->op));
  }
  if (ev->has & EVENTS_HAS_REV)
    buf_printf(b, ",\"revision\":%llu", (unsigned long long)ev->revision);
  if (ev->has & EVENTS_HAS_EXIT)
    buf_printf(b, ",\"exit_code\":%d", ev->exit_code);
  if (ev->npaths) {
    buf_puts(b, ",\"paths\":[");
    for (i = 0; i < ev->npaths && i < EVENTS_MAX_PATHS; i++) {
      if (i) buf_putc(b, ',');
      events_add(b, ev->paths[i], strlen(ev->paths[i]));
    }
    buf_putc(b, ']');
  }
  if (ev->has & (EVENTS_HAS_OUT | EVENTS_HAS_ERR | EVENTS_HAS_READ |
                 EVENTS_HAS_WRITTEN)) {
    buf_puts(b, ",\"bytes\":{");
    if (ev->has & EVENTS_HAS_OUT) events_num(b, &first, "stdout", ev->out);
    if (ev->has & EVENTS_HAS_ERR) events_num(b, &first, "stderr", ev->err);
    if (ev->has & EVENTS_HAS_READ) events_num(b, &first, "read", ev->read);
    if (ev->has & EVENTS_HAS_WRITTEN)
      events_num(b, &first, "written", ev->written);
    buf_putc(b, '}');
  }
  if (ev->has & EVENTS_HAS_COUNT)
    buf_printf(b, ",\"count\":%llu", (unsigned long long)ev->count);
  if (ev->limit) {
    buf_puts(b, ",\"limit\":");
    events_add(b, ev->limit, strlen(ev->limit));
  }
  if (ev->code) {
    buf_puts(b, ",\"code\":");
    events_add(b, ev->code, strlen(ev->code));
  }
  if (ev->reason) {
    buf_puts(b, ",\"reason\":");
    events_add(b, ev->reason, strlen(ev->reason));
  }
  buf_puts(b, "}\n");
  return b->err;
}

/* Queues an event or counts it as dropped. */
void events_emit(events *q, const events_ev *ev) {
  buf b;
  size_t need;
  q->seq++;
  if (q->count >= EVENTS_MAX) {
    q->dropped++;
    return;
  }
  buf_init(&b, q->m);
  if (events_encode(&b, q->seq, ev) || q->len + b.len > EVENTS_MAX_BYTES) {
    buf_finish(&b);
    q->dropped++;
    return;
  }
  need = q->len + b.len + 1;
  if (need > q->cap) {
    size_t cap = q->cap ? q->cap : 256;
    char *np;
    while (cap < need) cap *= 2;
    np = mem_realloc(q->m, q->p, cap);
    if (!np) {
      buf_finish(&b);
      q->dropped++;
      return;
    }
    q->p = np;
    q->cap = cap;
  }
  memcpy(q->p + q->len, b.p, b.len);
  q->len += b.len;
  q->p[q->len] = 0;
  q->count++;
  buf_finish(&b);
}

/* Drains the queue. */
int events_take(events *q, char **json, size_t *len) {
  buf b;
  *json = NULL;
  *len = 0;
  if (!q->count && !q->dropped) return 0;
  buf_init(&b, q->m);
  if (q->len) buf_put(&b, q->p, q->len);
  if (q->dropped) {
    events_ev ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = "events.dropped";
    ev.has = EVENTS_HAS_COUNT;
    ev.count = q->dropped;
    events_encode(&b, q->seq + 1, &ev);
  }
  if (b.err) {
    buf_finish(&b);
    return MSB_ENOMEM;
  }
  if (q->dropped) q->seq++;
  q->dropped = 0;
  *json = buf_steal(&b, len);
  events_finish(q);
  return 0;
}
