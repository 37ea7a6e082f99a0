"""A FUSE file system for the tests that keeps only what was flushed, as LazyFS does: a passthrough to a
backing folder that remembers, per file, the bytes it held at its last fsync. A power cut loses every byte
written since; names (create, rename, unlink) are kept at once, as LazyFS keeps them. It logs the flushes
it receives (fsync, fsyncdir) and the renames and links that name files, so a test sees what reaches a FUSE server: syncfs(2) never does, since
libfuse has no handler for it. Like GlusterFS, it refuses RENAME_NOREPLACE (fusepy's rename takes no
flags), so spool moves by link and unlink there.

usage: lazyfs.py BACKING MOUNTPOINT LOG  (runs in the foreground until unmounted)

A look at MOUNTPOINT/.lazyfs-cut (stat, which then fails with ENOENT) writes LOG.cut: one line per regular file, "whole PATH" when the file holds what it held at
its last fsync, "lost PATH" otherwise (written since, or never flushed): what a power cut would leave.
"""
import errno
import os
import sys
import threading

from fusepy import FUSE, FuseOSError, Operations, fuse_get_context


class Lazy(Operations):
    def __init__(self, backing, log):
        self.backing = backing
        self.log = open(log, "a", buffering=1)
        self.cut_path = log + ".cut"
        # The bytes each inode held at its last fsync; an inode written since is missing or stale.
        self.flushed = {}
        self.guard = threading.Lock()

    def real(self, path):
        return os.path.join(self.backing, path.lstrip("/"))

    def owned(self, path):
        uid, gid, _ = fuse_get_context()
        os.lchown(self.real(path), uid, gid)

    def note(self, text):
        self.log.write(text + "\n")

    # Reads and names, passed through.
    def getattr(self, path, fh=None):
        if path == "/.lazyfs-cut":
            self.cut()
            raise FuseOSError(errno.ENOENT)
        st = os.lstat(self.real(path))
        keys = ("st_mode", "st_nlink", "st_uid", "st_gid", "st_size", "st_atime", "st_mtime", "st_ctime", "st_ino")
        return {key: getattr(st, key) for key in keys}

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self.real(path))

    def access(self, path, mode):
        if not os.access(self.real(path), mode):
            raise FuseOSError(errno.EACCES)

    def mkdir(self, path, mode):
        os.mkdir(self.real(path), mode)
        self.owned(path)

    def rmdir(self, path):
        os.rmdir(self.real(path))

    def chmod(self, path, mode):
        os.chmod(self.real(path), mode)

    def chown(self, path, uid, gid):
        os.lchown(self.real(path), uid, gid)

    def utimens(self, path, times=None):
        os.utime(self.real(path), times)

    def unlink(self, path):
        os.unlink(self.real(path))

    def link(self, target, source):
        os.link(self.real(source), self.real(target))
        self.note("link %s %s" % (source, target))

    def rename(self, old, new):
        os.rename(self.real(old), self.real(new))
        self.note("rename %s %s" % (old, new))

    def statfs(self, path):
        st = os.statvfs(self.real(path))
        keys = ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files", "f_flag",
                "f_frsize", "f_namemax")
        return {key: getattr(st, key) for key in keys}

    # Files.
    def create(self, path, mode, fi=None):
        fd = os.open(self.real(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        self.owned(path)
        return fd

    def open(self, path, flags):
        return os.open(self.real(path), flags & ~(os.O_CREAT | os.O_EXCL))

    def read(self, path, size, offset, fh):
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        return os.pwrite(fh, data, offset)

    def truncate(self, path, length, fh=None):
        with open(self.real(path), "r+b") as f:
            f.truncate(length)

    def flush(self, path, fh):
        return 0

    def release(self, path, fh):
        os.close(fh)

    def fsync(self, path, datasync, fh):
        # Read through the backing file by inode, not `fh`, which may be open for writing only.
        st = os.fstat(fh)
        with open("/proc/self/fd/%d" % fh, "rb") as f:
            data = f.read()
        with self.guard:
            self.flushed[st.st_ino] = data
        self.note("fsync %s" % path)

    def fsyncdir(self, path, datasync, fh):
        self.note("fsyncdir %s" % path)

    def cut(self):
        """What a power cut now would leave of each regular file."""
        lines = []
        for folder, _, names in os.walk(self.backing):
            for name in names:
                real = os.path.join(folder, name)
                st = os.lstat(real)
                with open(real, "rb") as f:
                    now = f.read()
                whole = self.flushed.get(st.st_ino) == now
                lines.append("%s /%s" % ("whole" if whole else "lost", os.path.relpath(real, self.backing)))
        with open(self.cut_path + ".tmp", "w") as f:
            f.write("\n".join(sorted(lines)) + "\n")
        os.rename(self.cut_path + ".tmp", self.cut_path)


def main():
    backing, mountpoint, log = sys.argv[1:4]
    lazy = Lazy(backing, log)
    FUSE(lazy, mountpoint, foreground=True, allow_other=True, default_permissions=True, use_ino=True)


if __name__ == "__main__":
    main()
