/* order.h - the one stable sort and the one binary search of name tables,
 * shared by the core and the commands (glob results, ls and tree
 * listings; the command and builtin tables). */
#ifndef MSB_ORDER_H
#define MSB_ORDER_H

#include <stddef.h>

/* <0, 0 or >0 as a sorts before, with or after b; arg is the caller's. */
typedef int (*order_cmp)(const void *a, const void *b, void *arg);

/* Sorts the n elements of size bytes at v, stably (equal elements keep
 * their order, as GNU's listings do), in O(n log n). tmp is scratch space
 * for n elements that the caller owns, so sorting never allocates. */
void order_sort(void *v, size_t n, size_t size, void *tmp, order_cmp cmp,
                void *arg);

/* The entry named name in a table of n entries of size bytes, sorted
 * bytewise by their first member, a const char * name; NULL if none. */
const void *order_find_name(const void *table, size_t n, size_t size,
                            const char *name);

#endif
