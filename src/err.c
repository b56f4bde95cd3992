/* err.c - names and descriptions of result codes.
 *
 * msb_strerror gives the text GNU tools print for the matching errno, so
 * commands can word diagnostics exactly like coreutils. */
#include "memsandbox.h"

typedef struct err_info {
  int code;
  const char *name;
  const char *text;
} err_info;

static const err_info err_table[] = {
    {MSB_OK, "MSB_OK", "Success"},
    {MSB_ENOENT, "MSB_ENOENT", "No such file or directory"},
    {MSB_EEXIST, "MSB_EEXIST", "File exists"},
    {MSB_ENOTDIR, "MSB_ENOTDIR", "Not a directory"},
    {MSB_EISDIR, "MSB_EISDIR", "Is a directory"},
    {MSB_ENOTEMPTY, "MSB_ENOTEMPTY", "Directory not empty"},
    {MSB_EINVAL, "MSB_EINVAL", "Invalid argument"},
    {MSB_ENOSPC, "MSB_ENOSPC", "No space left on device"},
    {MSB_EDQUOT, "MSB_EDQUOT", "Disk quota exceeded"},
    {MSB_EFBIG, "MSB_EFBIG", "File too large"},
    {MSB_ENAMETOOLONG, "MSB_ENAMETOOLONG", "File name too long"},
    {MSB_ELOOP, "MSB_ELOOP", "Too many levels of symbolic links"},
    {MSB_ENOMEM, "MSB_ENOMEM", "Cannot allocate memory"},
    {MSB_ELIMIT, "MSB_ELIMIT", "Execution limit exceeded"},
    {MSB_ESYNTAX, "MSB_ESYNTAX", "Syntax error"},
    {MSB_EPOLICY, "MSB_EPOLICY", "Permission denied"},
    {MSB_ECORRUPT, "MSB_ECORRUPT", "Malformed input"},
    {MSB_EMISUSE, "MSB_EMISUSE", "Invalid use of the API"},
    {MSB_ESTALE, "MSB_ESTALE", "Content hash does not match"},
    {MSB_EPERM, "MSB_EPERM", "Operation not permitted"},
    {MSB_EINCOMPLETE, "MSB_EINCOMPLETE", "Incomplete input"},
    {MSB_ENOTSUP, "MSB_ENOTSUP", "Operation not supported"},
    {MSB_EBUSY, "MSB_EBUSY", "Device or resource busy"},
    {MSB_ESECRET, "MSB_ESECRET", "Refusing to write a secret value"},
};

static const err_info *err_find(int code) {
  size_t i;
  for (i = 0; i < sizeof err_table / sizeof err_table[0]; i++)
    if (err_table[i].code == code) return &err_table[i];
  return 0;
}

const char *msb_code_name(int code) {
  const err_info *e = err_find(code);
  return e ? e->name : "MSB_EUNKNOWN";
}

const char *msb_strerror(int code) {
  const err_info *e = err_find(code);
  return e ? e->text : "Unknown error";
}
