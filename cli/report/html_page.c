/* pbdiff CLI — the page around an HTML report (docs/html.md): one
 * self-contained document, its styles and its small script inline, so it
 * opens from disk or from a CI artifact without a network.  A content
 * security policy lets nothing load and only this script run (named by its
 * SHA-256), as a second wall behind the escaping of every value. */
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "pbdiff/pbdiff.h"
#include "report/html_impl.h"

void hp_escape(pbd_Buf *b, const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s, *end = p + n;
  while (p < end) {
    const unsigned char *run = p; /* plain characters, appended at once */
    while (p < end && *p >= 0x20 && *p < 0x7f && *p != '&' && *p != '<' && *p != '>' &&
           *p != '"' && *p != '\'')
      p++;
    pbd_Buf_Append(b, (const char *)run, (size_t)(p - run));
    if (p == end) break;
    unsigned char c = *p;
    const char *entity = c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;"
                       : c == '"' ? "&quot;" : c == '\'' ? "&#39;" : NULL;
    if (entity) {
      pbd_Buf_AppendStr(b, entity);
      p++;
    } else if (c == '\n' || c == '\t') {
      pbd_Buf_AppendChar(b, (char)c);
      p++;
    } else if (c < 0x20 || c == 0x7f) {
      pbd_Buf_AppendStr(b, "\xef\xbf\xbd");
      p++;
    } else {
      size_t k = pbd_Utf8_SequenceLength(p, (size_t)(end - p));
      if (k == 0) {
        pbd_Buf_AppendStr(b, "\xef\xbf\xbd");
        p++;
      } else {
        pbd_Buf_Append(b, (const char *)p, k);
        p += k;
      }
    }
  }
}

void hp_escape_str(pbd_Buf *b, const char *s) { hp_escape(b, s, strlen(s)); }

void hp_count(pbd_Buf *b, size_t n) {
  char digits[32];
  int len = snprintf(digits, sizeof digits, "%zu", n);
  for (int i = 0; i < len; i++) {
    if (i > 0 && (len - i) % 3 == 0) pbd_Buf_AppendStr(b, "&#8239;"); /* narrow no-break space */
    pbd_Buf_AppendChar(b, digits[i]);
  }
}

void hp_counts_cells(pbd_Buf *b, const size_t *counts) {
  size_t total = 0;
  for (int k = 0; k < kKinds; k++) total += counts[k];
  pbd_Buf_AppendStr(b, "<td class=\"n\">");
  hp_count(b, total);
  pbd_Buf_AppendStr(b, "</td>");
  for (int i = 0; i < kKinds; i++) {
    pbd_Buf_AppendStr(b, "<td class=\"n\">");
    if (counts[kPbd_KindOrder[i]]) hp_count(b, counts[kPbd_KindOrder[i]]);
    pbd_Buf_AppendStr(b, "</td>");
  }
}

void hp_counts_head(pbd_Buf *b, const char *first_col) {
  pbd_Buf_Printf(b, "<table class=\"counts\"><tr><th>%s</th><th>differences</th>", first_col);
  for (int i = 0; i < kKinds; i++) pbd_Buf_Printf(b, "<th>%s</th>", pbd_EditKind_String(kPbd_KindOrder[i]));
  pbd_Buf_AppendStr(b, "</tr>\n");
}

/* Light colours first, dark ones when the reader's system asks for them;
 * every pair of text and background colour has a contrast of at least 4.5. */
static const char kStyle[] =
    ":root{color-scheme:light dark;--bg:#ffffff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;"
    "--panel:#f6f8fa;--add:#116329;--addbg:#dafbe1;--del:#a40e26;--delbg:#ffebe9;"
    "--chg:#7d4e00;--mov:#0550ae;--movbg:#ddf4ff;--mark:#ffdf5d;--focus:#0969da}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;"
    "--line:#3d444d;--panel:#151b23;--add:#56d364;--addbg:#0f2d1b;--del:#ff7b72;"
    "--delbg:#3a1519;--chg:#e3b341;--mov:#79c0ff;--movbg:#0a2654;--mark:#7a5c00;"
    "--focus:#4493f8}}\n"
    "body{margin:0;padding:0 1rem 3rem;background:var(--bg);color:var(--fg);"
    "font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif}\n"
    "code,pre,.v{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}\n"
    "a{color:var(--focus)}\n"
    "#nav{position:sticky;top:0;z-index:2;background:var(--bg);border-bottom:1px solid var(--line);"
    "padding:.4rem 0;display:flex;gap:.6rem;align-items:center}\n"
    "#nav[hidden]{display:none}\n"
    "#nav button{font:inherit;color:var(--fg);background:var(--panel);border:1px solid var(--line);"
    "border-radius:6px;padding:.15rem .6rem;cursor:pointer}\n"
    "#where{color:var(--muted);overflow:hidden;text-overflow:ellipsis;white-space:nowrap}\n"
    "h1{font-size:1.3rem;margin:.8rem 0 .4rem}h2{font-size:1.1rem;margin:1.2rem 0 .4rem}\n"
    "table.meta th,table.counts th{text-align:left;color:var(--muted);font-weight:normal;"
    "padding-right:1rem}\n"
    "table.counts{border-collapse:collapse}table.counts td,table.counts th{"
    "border-bottom:1px solid var(--line);padding:.1rem .6rem .1rem 0}\n"
    "table.counts td.n{text-align:right}\n"
    ".kinds a,.kinds span{margin-right:.8rem}\n"
    ".path{user-select:all;-webkit-user-select:all;word-break:break-all}\n"
    ".t{color:var(--muted)}\n"
    "details.b{margin:.15rem 0 .15rem .4rem;padding-left:.8rem;border-left:1px solid var(--line)}\n"
    "details.b>summary{cursor:pointer;padding:.1rem 0}\n"
    ".fold{color:var(--muted);font-style:italic;margin:.15rem 0 .15rem 1.2rem}\n"
    ".d{border:1px solid var(--line);border-radius:6px;margin:.3rem 0 .3rem .4rem;"
    "padding:.3rem .5rem;background:var(--bg)}\n"
    ".d:focus{outline:3px solid var(--focus);outline-offset:1px}\n"
    ".dh{margin-bottom:.2rem}\n"
    ".k{font-weight:600;margin-right:.4rem}\n"
    ".k-changed>.dh .k{color:var(--chg)}.k-added>.dh .k{color:var(--add)}"
    ".k-removed>.dh .k{color:var(--del)}.k-moved>.dh .k{color:var(--mov)}"
    ".k-presence>.dh .k{color:var(--chg)}\n"
    ".sbs{display:grid;grid-template-columns:1fr 1fr;gap:.4rem}\n"
    ".sbs>div{padding:.2rem .4rem;border-radius:4px;min-width:0;overflow-wrap:anywhere}\n"
    ".sbs>.l{background:var(--delbg)}.sbs>.r{background:var(--addbg)}\n"
    ".k-moved .sbs>div{background:var(--movbg)}\n"
    ".side{display:block;font-size:11px;color:var(--muted);letter-spacing:.05em}\n"
    ".none{color:var(--muted);font-style:italic}\n"
    "pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}\n"
    "mark{background:var(--mark);color:inherit;border-radius:2px}\n"
    ".el{color:var(--muted)}\n"
    ".more{padding:.4rem .6rem;border:1px dashed var(--line);border-radius:6px}\n"
    "section.file{border-top:2px solid var(--line);margin-top:1.5rem}\n";

/* n / p (and j / k) move the focus to the next / previous difference,
 * opening the branches around it; the buttons do the same.  Without
 * script the <details> still fold and unfold. */
static const char kScript[] =
    "(function(){\n"
    "var ds=document.querySelectorAll('.d'),cur=-1,nav=document.getElementById('nav'),"
    "pos=document.getElementById('pos'),where=document.getElementById('where');\n"
    "for(var i=0;i<ds.length;i++)ds[i].pbdIndex=i;\n"
    "if(nav&&ds.length)nav.hidden=false;\n"
    "function tell(i){if(pos)pos.textContent=(i+1)+' / '+ds.length;"
    "var p=ds[i].querySelector('.path');if(where)where.textContent=p?p.textContent:'';}\n"
    "function show(i){if(!ds.length)return;if(i<0)i=0;if(i>=ds.length)i=ds.length-1;cur=i;"
    "var el=ds[i];for(var p=el.parentNode;p&&p!==document;p=p.parentNode)"
    "if(p.tagName==='DETAILS')p.open=true;el.focus({preventScroll:true});"
    "el.scrollIntoView({block:'center'});tell(i);}\n"
    "document.addEventListener('keydown',function(e){if(e.ctrlKey||e.metaKey||e.altKey)return;"
    "var t=e.target&&e.target.tagName;if(t==='INPUT'||t==='TEXTAREA'||t==='SELECT')return;"
    "if(e.key==='n'||e.key==='j'){show(cur+1);e.preventDefault();}"
    "else if(e.key==='p'||e.key==='k'){show(cur<0?0:cur-1);e.preventDefault();}});\n"
    "document.addEventListener('focusin',function(e){var t=e.target;"
    "if(t&&t.pbdIndex!==undefined){cur=t.pbdIndex;tell(cur);}});\n"
    "var b=document.getElementById('next');if(b)b.addEventListener('click',function(){show(cur+1);});\n"
    "b=document.getElementById('prev');if(b)b.addEventListener('click',function(){show(cur<0?0:cur-1);});\n"
    "})();\n";

/* 'sha256-BASE64' of the script, for the policy. */
static void script_hash(pbd_Buf *b) {
  unsigned char md[EVP_MAX_MD_SIZE], text[4 * EVP_MAX_MD_SIZE / 3 + 4];
  unsigned int n = 0;
  if (!EVP_Digest(kScript, sizeof kScript - 1, md, &n, EVP_sha256(), NULL)) {
    pbd_Buf_AppendStr(b, "'none'"); /* no script then; the page still works */
    return;
  }
  EVP_EncodeBlock(text, md, (int)n);
  pbd_Buf_Printf(b, "'sha256-%s'", (const char *)text);
}

void hp_page_begin(pbd_Buf *b, const char *title) {
  pbd_Buf_AppendStr(b,
                    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                    "style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; script-src ");
  script_hash(b);
  pbd_Buf_AppendStr(b, "\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                       "<meta name=\"generator\" content=\"pbdiff " PBDIFF_VERSION "\">\n"
                       "<title>pbdiff: ");
  hp_escape_str(b, title);
  pbd_Buf_AppendStr(b, "</title>\n<style>\n");
  pbd_Buf_AppendStr(b, kStyle);
  pbd_Buf_AppendStr(b,
                    "</style>\n</head>\n<body>\n<div id=\"nav\" hidden><button id=\"prev\" "
                    "type=\"button\" title=\"previous difference (p)\">&#9664; previous</button>"
                    "<button id=\"next\" type=\"button\" title=\"next difference (n)\">next "
                    "&#9654;</button><span id=\"pos\"></span><code id=\"where\"></code></div>\n");
}

void hp_page_end(pbd_Buf *b) {
  pbd_Buf_AppendStr(b, "<script>");
  pbd_Buf_AppendStr(b, kScript);
  pbd_Buf_AppendStr(b, "</script>\n</body>\n</html>\n");
}

void hp_file_id(char out[16], const char *rel) {
  snprintf(out, 16, "f%08x-", (unsigned)(XXH3_64bits(rel, strlen(rel)) & 0xffffffffu));
}
