/* pbdiff CLI — names as they are printed.  A file name comes from a
 * directory, a repository or git, and may hold a newline (which would forge
 * a line of the report) or an escape sequence (which would drive the
 * terminal), so every name goes out through pbd_Cli_AppendName, quoted as
 * git quotes paths (core.quotePath, its default): as it is when it holds
 * only printable ASCII other than `"` and `\`, else in double quotes with
 * C escapes (`\n`, `\t`, `\"`, `\\`, `\033`, and octal for every byte
 * above 0x7e).  Messages that embed a name made elsewhere (the library's
 * errors) go out through pbd_Cli_AppendEscaped, which escapes what would
 * leave the line or drive the terminal and nothing else. */
#include <stdio.h>
#include <string.h>

#include "names.h"

static bool needs_quotes(const char *name) {
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\') return true;
  return false;
}

/* One byte as a C escape: the named ones by letter, others in octal. */
static void escape_byte(pbd_Buf *b, unsigned char c) {
  static const char kRaw[] = "\a\b\t\n\v\f\r\"\\";
  static const char kLetter[] = "abtnvfr\"\\";
  const char *esc = c ? strchr(kRaw, c) : NULL;
  if (esc) pbd_Buf_Printf(b, "\\%c", kLetter[esc - kRaw]);
  else pbd_Buf_Printf(b, "\\%03o", c);
}

void pbd_Cli_AppendName(pbd_Buf *b, const char *prefix, const char *name) {
  if (!prefix) prefix = "";
  if (!needs_quotes(prefix) && !needs_quotes(name)) {
    pbd_Buf_AppendStr(b, prefix);
    pbd_Buf_AppendStr(b, name);
    return;
  }
  pbd_Buf_AppendChar(b, '"');
  for (int part = 0; part < 2; part++)
    for (const unsigned char *p = (const unsigned char *)(part ? name : prefix); *p; p++) {
      if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\') escape_byte(b, *p);
      else pbd_Buf_AppendChar(b, (char)*p);
    }
  pbd_Buf_AppendChar(b, '"');
}

const char *pbd_Cli_Name(const char *name, char *out, size_t n) {
  pbd_Buf b = {0};
  pbd_Cli_AppendName(&b, NULL, name);
  size_t len = b.oom || !b.data ? 0 : b.len;
  if (len >= n) len = n - 1; /* cut: still one line, and the message says which file */
  if (len) memcpy(out, b.data, len);
  out[len] = '\0';
  pbd_Buf_Free(&b);
  return out;
}

/* Whether a UTF-8 sequence is a C1 control (U+0080..U+009F, which some
 * terminals act on as they do on ESC). */
static bool c1_control(const unsigned char *p, size_t k) { return k == 2 && p[0] == 0xc2 && p[1] < 0xa0; }

void pbd_Cli_AppendEscaped(pbd_Buf *b, const char *text) {
  const unsigned char *p = (const unsigned char *)text;
  size_t n = strlen(text);
  for (size_t i = 0; i < n;) {
    if (p[i] < 0x20 || p[i] == 0x7f) {
      escape_byte(b, p[i++]);
      continue;
    }
    size_t k = p[i] < 0x80 ? 1 : pbd_Utf8_SequenceLength(p + i, n - i);
    if (k == 0 || c1_control(p + i, k)) { /* not UTF-8, or a control: as octal */
      size_t bad = k ? k : 1;
      for (size_t j = 0; j < bad; j++) escape_byte(b, p[i + j]);
      i += bad;
      continue;
    }
    pbd_Buf_Append(b, (const char *)p + i, k);
    i += k;
  }
}

void pbd_Cli_PutEscaped(FILE *f, const char *text) {
  pbd_Buf b = {0};
  pbd_Cli_AppendEscaped(&b, text);
  if (b.oom) fputs("(out of memory)", f);
  else if (b.data) fwrite(b.data, 1, b.len, f);
  pbd_Buf_Free(&b);
}
