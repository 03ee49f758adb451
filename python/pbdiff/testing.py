"""unittest support: mix ProtoAssertions into a TestCase for
assertProtoEqual(a, b, **options), with pbdiff's report as the failure."""

import pbdiff


class ProtoAssertions:
    """A mixin for unittest.TestCase."""

    def assertProtoEqual(self, first, second, msg=None, **options):
        """Fails unless first and second are equal in meaning; options are
        compare()'s (ignore=, keys=, float_margin=, ...)."""
        r = pbdiff._compare(first, second, report_limit=pbdiff.ASSERT_MAX_DIFFERENCES, **options)
        if not r.equal:
            self.fail(self._formatMessage(msg, pbdiff._assert_message(r)))

    def assertProtoNotEqual(self, first, second, msg=None, **options):
        r = pbdiff._compare(first, second, **options)
        if r.equal:
            self.fail(self._formatMessage(msg, "messages are equal in meaning"))
