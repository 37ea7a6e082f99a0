// An LD_PRELOAD stand-in for file systems the test machine lacks, used by the fault tests only:
//   FAULTSHIM_NOREPLACE=EINVAL     renameat2(RENAME_NOREPLACE) fails with EINVAL, as on FUSE and several
//                                  network file systems (GlusterFS); plain rename and link still work.
//   FAULTSHIM_OPEN=ERRNO:PREFIX    openat of a name starting with PREFIX fails with ERRNO (EIO, ENOTCONN,
//                                  ESTALE, …), as on a disk or mount going bad under the spool.
//   FAULTSHIM_OPEN_PATH=ERRNO:PATH openat of exactly PATH (as the program names it) fails with ERRNO.
//   FAULTSHIM_OPEN_MARK=PREFIX:PATH
//                                  openat of a name starting with PREFIX first makes the file PATH, so a test
//                                  knows a document was opened (read) before it acts.
//   FAULTSHIM_STATVFS_ZERO=1       fstatvfs reports no free blocks, as FUSE file systems without statfs do.
//   FAULTSHIM_UNLINK_GATE=PATH     unlinkat in a folder named cur waits while PATH exists (at most 30 s), as
//                                  on a disk slow to free a file, until the test removes PATH.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

static int error_named(const char *name) {
    static const struct { const char *name; int value; } table[] = {
        {"EINVAL", EINVAL}, {"EIO", EIO}, {"ENOTCONN", ENOTCONN}, {"ESTALE", ESTALE}, {"EMFILE", EMFILE},
        {"ENOMEM", ENOMEM}, {"EACCES", EACCES}, {"EROFS", EROFS}, {"ENOSPC", ENOSPC},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(table[i].name, name) == 0) return table[i].value;
    }
    return EIO;
}

int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags) {
    static int (*real)(int, const char *, int, const char *, unsigned int);
    if (!real) real = dlsym(RTLD_NEXT, "renameat2");
    const char *mode = getenv("FAULTSHIM_NOREPLACE");
    if (mode && *mode && (flags & RENAME_NOREPLACE)) {
        errno = error_named(mode);
        return -1;
    }
    return real(olddirfd, oldpath, newdirfd, newpath, flags);
}

static int failing_open(const char *path) {
    const char *exact = getenv("FAULTSHIM_OPEN_PATH");
    const char *separator = exact ? strchr(exact, ':') : NULL;
    if (separator && strcmp(path, separator + 1) == 0) {
        char name[32];
        size_t length = (size_t)(separator - exact) < sizeof name - 1 ? (size_t)(separator - exact) : sizeof name - 1;
        memcpy(name, exact, length);
        name[length] = 0;
        return error_named(name);
    }
    const char *spec = getenv("FAULTSHIM_OPEN");
    if (!spec || !*spec) return 0;
    const char *colon = strchr(spec, ':');
    if (!colon) return 0;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strncmp(base, colon + 1, strlen(colon + 1)) != 0) return 0;
    char name[32];
    size_t length = (size_t)(colon - spec) < sizeof name - 1 ? (size_t)(colon - spec) : sizeof name - 1;
    memcpy(name, spec, length);
    name[length] = 0;
    return error_named(name);
}

// Makes the file after the colon of FAULTSHIM_OPEN_MARK when `path`'s last part starts with what is before it.
static void mark_open(const char *path) {
    const char *spec = getenv("FAULTSHIM_OPEN_MARK");
    if (!spec || !*spec) return;
    const char *colon = strchr(spec, ':');
    if (!colon) return;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strncmp(base, spec, (size_t)(colon - spec)) != 0) return;
    int fd = open(colon + 1, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) close(fd);
}

#define OPENAT(symbol)                                                           \
    int symbol(int dirfd, const char *path, int flags, ...) {                  \
        static int (*real)(int, const char *, int, ...);                        \
        if (!real) real = dlsym(RTLD_NEXT, #symbol);                            \
        mode_t mode = 0;                                                        \
        if (flags & (O_CREAT | O_TMPFILE)) {                                    \
            va_list arguments;                                                  \
            va_start(arguments, flags);                                         \
            mode = va_arg(arguments, mode_t);                                   \
            va_end(arguments);                                                  \
        }                                                                       \
        mark_open(path);                                                        \
        int error = failing_open(path);                                         \
        if (error) {                                                            \
            errno = error;                                                      \
            return -1;                                                          \
        }                                                                       \
        return real(dirfd, path, flags, mode);                                  \
    }
OPENAT(openat)
OPENAT(openat64)

#define FSTATVFS(symbol, type)                                                   \
    int symbol(int fd, struct type *buffer) {                                   \
        static int (*real)(int, struct type *);                                 \
        if (!real) real = dlsym(RTLD_NEXT, #symbol);                            \
        int result = real(fd, buffer);                                          \
        const char *zero = getenv("FAULTSHIM_STATVFS_ZERO");                    \
        if (result == 0 && zero && *zero) {                                     \
            buffer->f_bfree = 0;                                                \
            buffer->f_bavail = 0;                                               \
        }                                                                       \
        return result;                                                          \
    }
FSTATVFS(fstatvfs, statvfs)
FSTATVFS(fstatvfs64, statvfs64)

// Whether dirfd is a folder named cur (its path, from /proc).
static int is_cur(int dirfd) {
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
    ssize_t length = readlink(link, target, sizeof target - 1);
    if (length < 4) return 0;
    target[length] = 0;
    return strcmp(target + length - 4, "/cur") == 0;
}

int unlinkat(int dirfd, const char *path, int flags) {
    static int (*real)(int, const char *, int);
    if (!real) real = dlsym(RTLD_NEXT, "unlinkat");
    const char *gate = getenv("FAULTSHIM_UNLINK_GATE");
    if (gate && *gate && is_cur(dirfd)) {
        // The test's condition, looked at every millisecond; the deadline keeps a failed test from hanging.
        for (int waited = 0; access(gate, F_OK) == 0 && waited < 30000; waited++) usleep(1000);
    }
    return real(dirfd, path, flags);
}
