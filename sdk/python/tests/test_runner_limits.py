"""The runner SDK's bounds, without a node: the reveal inbox holds at most ``max_jobs`` jobs and
``max_per_job`` distinct reveals per job, frees a job on ``forget``, and ``send_reveal``
retries a transient failure but not a refusal."""

import urllib.error

import pytest

from cowboy.runner import Reveal, RevealInbox, send_reveal


def reveal(i: int) -> Reveal:
    return Reveal(bytes([i]) * 20, b'{"v": 1}', 0, 10, bytes([i]) * 64)


def test_the_inbox_is_bounded_per_job_and_in_jobs():
    inbox = RevealInbox(max_jobs=1, max_per_job=2)
    try:
        job, other = b"\x01" * 32, b"\x02" * 32
        send_reveal(inbox.url, job, reveal(1))
        send_reveal(inbox.url, job, reveal(2))
        send_reveal(inbox.url, job, reveal(2))  # the same reveal again: no new slot
        with pytest.raises(urllib.error.HTTPError) as e:
            send_reveal(inbox.url, job, reveal(3), attempts=1)
        assert e.value.code == 429
        with pytest.raises(urllib.error.HTTPError) as e:
            send_reveal(inbox.url, other, reveal(1), attempts=1)
        assert e.value.code == 503
        got = inbox.reveals(job, {reveal(1).runner: reveal(1).commitment})
        assert list(got) == [reveal(1).runner]
        inbox.forget(job)
        assert inbox.reveals(job, {reveal(1).runner: reveal(1).commitment}) == {}
        send_reveal(inbox.url, other, reveal(1))
    finally:
        inbox.close()


def test_send_reveal_retries_transient_failures_only():
    inbox = RevealInbox()
    url = inbox.url
    inbox.close()
    # Nobody listens any more: every attempt is refused, and the last error is raised.
    with pytest.raises(OSError):
        send_reveal(url, b"\x01" * 32, reveal(1), attempts=2, backoff=0.0)
    # A malformed request is refused (400) at once, not retried.
    bad = RevealInbox()
    try:
        with pytest.raises(urllib.error.HTTPError) as e:
            send_reveal(bad.url + "/x", b"\x01" * 32, reveal(1), attempts=3, backoff=0.0)
        assert e.value.code == 400
    finally:
        bad.close()
