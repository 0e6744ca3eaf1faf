"""Trace specs for replay_mktrace written from python (the replay tests' lib.sh puts this
directory on PYTHONPATH): op() prints one record of process 100, back to back in time."""

_clock = [10]


def op(tid, text):
    """One op of thread tid, 1 ns long, starting 1 ns after the previous op's end."""
    t = _clock[0]
    print(f"100 {tid} {t} {t + 1} {text}")
    _clock[0] = t + 2
