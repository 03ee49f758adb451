/* pbdiff tests — the functions behind tu_cli.h. */
#include "tu_cli.h"

/* A Python check of a JUnit file: well-formed (minidom), one testsuite whose
 * counts match its test cases and testsuites', the test cases' names and
 * outcomes printed one per line as "NAME OUTCOME" (pass, failure:TYPE,
 * error). Every element has a time="SECONDS" with three decimals, and the
 * suite's is the same on both elements. */
static const char kJunitCheck[] =
    "import sys, xml.dom.minidom\n"
    "doc = xml.dom.minidom.parse(sys.argv[1])\n"
    "top = doc.documentElement\n"
    "assert top.tagName == 'testsuites', top.tagName\n"
    "suites = top.getElementsByTagName('testsuite')\n"
    "assert len(suites) == 1 and suites[0].getAttribute('name') == 'pbdiff'\n"
    "s = suites[0]\n"
    "cases = s.getElementsByTagName('testcase')\n"
    "fail = sum(1 for c in cases if c.getElementsByTagName('failure'))\n"
    "err = sum(1 for c in cases if c.getElementsByTagName('error'))\n"
    "for e in (top, s):\n"
    "    got = (e.getAttribute('tests'), e.getAttribute('failures'), e.getAttribute('errors'))\n"
    "    assert got == (str(len(cases)), str(fail), str(err)), got\n"
    "import re\n"
    "for e in [top, s] + list(cases):\n"
    "    assert re.fullmatch(r'[0-9]+\\.[0-9]{3}', e.getAttribute('time')), e.toxml()[:80]\n"
    "assert top.getAttribute('time') == s.getAttribute('time')\n"
    "print('tests=%d failures=%d errors=%d' % (len(cases), fail, err))\n"
    "for c in cases:\n"
    "    assert c.getAttribute('classname') == 'pbdiff'\n"
    "    f = c.getElementsByTagName('failure')\n"
    "    e = c.getElementsByTagName('error')\n"
    "    out = 'failure:' + f[0].getAttribute('type') if f else 'error' if e else 'pass'\n"
    "    sys.stdout.buffer.write(('%s %s\\n' % (c.getAttribute('name'), out)).encode('utf-8', 'backslashreplace'))\n"
    "    if f and f[0].firstChild is not None and len(sys.argv) > 2:\n"
    "        sys.stdout.buffer.write(('[' + f[0].firstChild.data + ']\\n').encode())\n";

void tu_put_junit_check(void) { tu_put_bytes("junit.py", kJunitCheck, sizeof kJunitCheck - 1); }
