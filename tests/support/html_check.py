"""pbdiff tests -- checks an HTML report of --format html (docs/html.md) and
prints what it shows, one line each, for the C suites to compare:

    branch PATH | TYPE           an open branch of the tree (<details class="b">)
    box KIND PATH                 a difference (class "d"), in document order
    left TEXT / right TEXT        its two sides' text (whitespace squeezed)
    fold TEXT                     a line of unchanged siblings
    meta KEY VALUE                a row of the header's table
    more TEXT                     the line saying how many were not shown
    link TARGET                   a link in the header

It fails (exit 1, a message on stderr) when the page is not what the
format promises: tags not balanced, a script other than the one inline
script or one the page's content security policy does not name by its
hash, an event-handler attribute, anything that would load from
elsewhere, an id used twice, a link to no id, or a difference that is not
visible with JavaScript off (inside a <details> that is not open).
Usage: /usr/bin/python3 html_check.py FILE"""
import base64
import hashlib
import html.parser
import re
import sys

INLINE = {"a", "b", "code", "em", "i", "mark", "span", "strong"}
VOID = {"meta", "br", "hr", "img", "input", "link", "wbr", "col", "area", "base", "source"}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []  # (tag, attrs)
        self.errors = []
        self.scripts = []
        self.csp = None
        self.ids = set()
        self.links = []
        self.lines = []
        self.capture = None  # [kind, buffer, depth]
        self.box = None

    def fail(self, msg):
        self.errors.append("%s (line %d)" % (msg, self.getpos()[0]))

    def classes(self, attrs):
        return (dict(attrs).get("class") or "").split()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self.capture is not None and tag not in INLINE:
            self.capture[1].append(" ")
        for k, v in attrs:
            if k.startswith("on"):
                self.fail("event handler attribute %s" % k)
            if k in ("src", "srcset", "data", "action", "formaction", "poster", "background"):
                self.fail("%s= on <%s>" % (k, tag))
            if k == "href" and not (v or "").startswith("#"):
                self.fail("a link out of the page: %r" % v)
            if k == "style":
                self.fail("an inline style attribute")
        if tag in ("img", "iframe", "object", "embed", "link", "base", "form", "svg", "math"):
            self.fail("<%s> in the page" % tag)
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp = a.get("content")
        if "id" in a:
            if a["id"] in self.ids:
                self.fail("id %r twice" % a["id"])
            self.ids.add(a["id"])
        if tag == "a" and "href" in a:
            self.links.append(a["href"][1:])
            self.lines.append("link " + a["href"][1:])
        cls = self.classes(attrs)
        if tag == "div" and "d" in cls:
            for t, at in self.stack:
                if t == "details" and "open" not in dict(at):
                    self.fail("a difference inside a closed <details>")
            kind = [c[2:] for c in cls if c.startswith("k-")]
            self.box = {"kind": kind[0] if kind else "?", "path": None}
        if tag == "code" and "path" in cls and self.box is not None and self.box["path"] is None:
            self.start_capture("boxpath")
        elif tag == "summary" and self.stack and self.stack[-1][0] == "details" and \
                "b" in self.classes(self.stack[-1][1]):
            self.start_capture("branch")
        elif tag == "div" and ("l" in cls or "r" in cls) and self.stack and \
                "sbs" in self.classes(self.stack[-1][1]):
            self.start_capture("left" if "l" in cls else "right")
        elif tag == "div" and "fold" in cls:
            self.start_capture("fold")
        elif tag == "p" and "more" in cls:
            self.start_capture("more")
        elif tag == "tr" and self.stack and any(t == "table" and "meta" in self.classes(at)
                                                for t, at in self.stack):
            self.start_capture("meta")
        if tag == "script":
            if a:
                self.fail("a script with attributes")
            self.start_capture("script")
        if tag not in VOID:
            self.stack.append((tag, attrs))

    def start_capture(self, kind):
        if self.capture is None:
            self.capture = [kind, [], len(self.stack)]

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            self.fail("</%s> closes <%s>" % (tag, self.stack[-1][0] if self.stack else "nothing"))
            return
        _, attrs = self.stack.pop()
        if self.capture is not None and "side" in self.classes(attrs):
            self.capture[1].append(" ")  # a block of its own (CSS)
        if self.capture is not None and len(self.stack) == self.capture[2]:
            kind, buf, _ = self.capture
            self.capture = None
            text = "".join(buf)
            if kind == "script":
                self.scripts.append(text)
                return
            text = re.sub(r"\s+", " ", text).strip()
            if kind == "boxpath":
                self.box["path"] = text
                self.lines.append("box %s %s" % (self.box["kind"], text))
            elif kind == "branch":
                self.lines.append("branch " + text)
            elif kind == "meta":
                self.lines.append("meta " + text)
            else:
                self.lines.append(kind + " " + text)
        if tag == "div" and self.box is not None and not any(
                t == "div" and "d" in self.classes(at) for t, at in self.stack):
            self.box = None

    def handle_data(self, data):
        if self.capture is not None:
            self.capture[1].append(data)
        elif self.stack and self.stack[-1][0] == "script":
            self.fail("script text outside a capture")

    def handle_comment(self, data):
        self.fail("a comment in the page")


def main():
    text = open(sys.argv[1], encoding="utf-8", errors="strict").read()
    if not text.startswith("<!DOCTYPE html>\n"):
        print("html_check: no doctype", file=sys.stderr)
        return 1
    p = Page()
    p.feed(text)
    p.close()
    if p.stack:
        p.fail("unclosed: " + " ".join(t for t, _ in p.stack))
    if len(p.scripts) != 1:
        p.fail("%d scripts" % len(p.scripts))
    if not p.csp or "default-src 'none'" not in p.csp:
        p.fail("no content security policy that loads nothing: %r" % p.csp)
    elif p.scripts:
        digest = base64.b64encode(hashlib.sha256(p.scripts[0].encode()).digest()).decode()
        if ("'sha256-%s'" % digest) not in p.csp:
            p.fail("the policy does not name the script's hash")
    for target in p.links:
        if target not in p.ids:
            p.fail("a link to no id: #" + target)
    if p.errors:
        for e in p.errors[:20]:
            print("html_check: " + e, file=sys.stderr)
        return 1
    sys.stdout.write("".join(line + "\n" for line in p.lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
