"""pbdiff's pytest plugin, on when the package is installed (entry point
pytest11): a failing `assert a == b` between two messages of one type
shows pbdiff's report instead of two reprs."""

import pbdiff


def _same_type_messages(left, right):
    try:
        from google.protobuf.message import Message
    except ImportError:
        return False
    return (isinstance(left, Message) and isinstance(right, Message) and
            left.DESCRIPTOR.full_name == right.DESCRIPTOR.full_name)


def pytest_assertrepr_compare(config, op, left, right):
    if op != "==" or not _same_type_messages(left, right):
        return None
    try:
        r = pbdiff._compare(left, right, report_limit=pbdiff.ASSERT_MAX_DIFFERENCES)
    except pbdiff.Error as e:  # leave it to pytest's own repr
        return [f"{left.DESCRIPTOR.full_name} messages (pbdiff could not compare them: {e})"]
    n = len(r.differences)
    if r.equal:  # == sees bytes-level differences pbdiff's rules call equal
        return [f"{left.DESCRIPTOR.full_name} messages differ for ==, "
                "but pbdiff finds them equal in meaning"]
    head = (f"{left.DESCRIPTOR.full_name} messages differ "
            f"({n} difference{'' if n == 1 else 's'}, pbdiff):")
    return [head] + str(r).rstrip("\n").split("\n")
