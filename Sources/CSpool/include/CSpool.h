#ifndef CSPOOL_H
#define CSPOOL_H

// eventfd: a Linux header that Swift's Glibc module does not bring in.
#include <sys/eventfd.h>

/// rename(2) that fails with EEXIST instead of replacing an existing target.
int cspool_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);

/// renameat2(2) with RENAME_EXCHANGE: the two names swap their files atomically; EINVAL where the file system
/// cannot.
int cspool_rename_exchange(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);

/// Whether `fd` lives on NFS (statfs's NFS_SUPER_MAGIC): fstatfs, which Swift's Glibc module lacks.
int cspool_is_nfs(int fd);

/// O_PATH (a GNU flag Glibc's module does not export): a descriptor that names a folder without opening it.
int cspool_o_path(void);

/// Whether the kernel started this program in secure mode (getauxval(AT_SECURE)): set-user-ID or
/// set-group-ID with a caller of other ids, or with capabilities; the caller chose its environment.
int cspool_is_secure(void);

/// syncfs(2): flushes the file system that holds fd (a GNU extension Glibc's module does not export).
int cspool_syncfs(int fd);

/// Whether the file system of fd may be written by other hosts: NFS, FUSE, CIFS/SMB, Ceph, 9P.
int cspool_is_shared(int fd);

/// Installs a SIGTERM and SIGINT handler that only writes to `eventfd` (async-signal-safe), on whichever
/// thread the signal lands, and ignores SIGPIPE.
int cspool_install_stop_handler(int eventfd);

/// Installs a SIGHUP handler that only writes to `eventfd`: a watcher's request to read its settings again.
int cspool_install_reload_handler(int eventfd);


/// A netlink socket subscribed to new addresses, routes and links (IPv4 and IPv6), non-blocking; -1 with errno.
int cspool_netlink_open(void);

/// Reads every message queued on `fd`: 1 when one from the kernel says an address or a default route was
/// added or a link came up, 0 when none does, -1 with errno on an error.
int cspool_netlink_drain(int fd);

/// pipe2(2) with O_CLOEXEC, which Swift's Glibc module lacks.
int cspool_pipe_cloexec(int fds[2]);

/// Names the calling thread (PR_SET_NAME, at most 15 bytes), as `top -H` and `ps -L` show it; prctl is variadic.
int cspool_set_thread_name(const char *name);

/// Copies the calling thread's name (PR_GET_NAME) into `name`, which holds at least 16 bytes.
int cspool_get_thread_name(char *name);

/// Starts `path` with `argv` and `envp` (NULL-terminated) in a process group of its own, in `/`, with `input`,
/// `output` and `errors` as descriptors 0, 1 and 2, every other descriptor closed, every signal at its
/// default and unblocked, and SIGKILL as its parent-death signal. Returns 0 with the child's pid in `pid`
/// once it has exec'd, else an errno value (the exec's own, for a program that cannot be run).
int cspool_spawn(const char *path, char *const argv[], char *const envp[], int input, int output, int errors, int *pid);

/// A pidfd for `pid` (readable once it has ended), close-on-exec; -1 with errno (ENOSYS before Linux 5.3).
int cspool_pidfd_open(int pid);

/// 1 when child `pid` has ended, leaving it unreaped (so that its process group cannot be reused); 0 while
/// it runs; -1 with errno.
int cspool_child_ended(int pid);

/// Reaps child `pid`: 0 with its exit code in `code` (or -1) and the signal that ended it in `signal` (or 0),
/// -1 with errno.
int cspool_reap(int pid, int *code, int *signal);
#endif
