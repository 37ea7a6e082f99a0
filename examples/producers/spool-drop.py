#!/usr/bin/env python3
"""Queue one HTTP write in a spool by the drop protocol of spool(5): usage SPOOL METHOD URL BODY.

Prints the write's id, and exits 0 only once the write survives a crash or power cut.
Copy it into your program; it needs nothing beyond Python's standard library.
"""
import json
import os
import re
import secrets
import socket
import sys
import time


def drop(spool, method, url, body):
    document = {"method": method, "url": url, "body": body,
                "idempotency_key": secrets.token_hex(16)}
    data = (json.dumps(document, ensure_ascii=False) + "\n").encode("utf-8")
    host = re.sub(r"[^A-Za-z0-9.-]", "", socket.gethostname())[:40] or "host"
    # Unique: the time in nanoseconds, this process, a random part; sorts by time.
    name = "%d.%d.%s.%s" % (time.time_ns(), os.getpid(), secrets.token_hex(4), host)
    temporary = os.path.join(spool, "tmp", name)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)  # the document on disk before its name appears in new/
    except BaseException:
        os.close(fd)
        os.unlink(temporary)
        raise
    os.close(fd)
    os.rename(temporary, os.path.join(spool, "new", name))  # no reader sees half a file
    new = os.open(os.path.join(spool, "new"), os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(new)  # the name itself survives a power cut
    finally:
        os.close(new)
    return name


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.stderr.write("usage: spool-drop.py SPOOL METHOD URL BODY\n")
        sys.exit(64)
    try:
        print(drop(*sys.argv[1:]))
    except OSError as error:
        sys.stderr.write("spool-drop.py: %s\n" % error)
        sys.exit(75)
