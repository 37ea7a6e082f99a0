#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>
#include <signal.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "CSpool.h"

int cspool_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
    return renameat2(olddirfd, oldpath, newdirfd, newpath, RENAME_NOREPLACE);
}

int cspool_rename_exchange(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
    return renameat2(olddirfd, oldpath, newdirfd, newpath, RENAME_EXCHANGE);
}

int cspool_o_path(void) {
    return O_PATH;
}

int cspool_is_secure(void) {
    return getauxval(AT_SECURE) != 0;
}

int cspool_syncfs(int fd) {
    return syncfs(fd);
}

int cspool_is_nfs(int fd) {
    struct statfs info;
    return fstatfs(fd, &info) == 0 && info.f_type == 0x6969;
}

int cspool_is_shared(int fd) {
    struct statfs info;
    if (fstatfs(fd, &info) != 0) return 0;
    // NFS, FUSE (GlusterFS, sshfs, ...), CIFS, SMB2, Ceph, 9P: other hosts may write there unseen by inotify.
    switch ((unsigned long)info.f_type) {
    case 0x6969: case 0x65735546: case 0xFF534D42: case 0xFE534D42: case 0x00C36400: case 0x01021997: return 1;
    default: return 0;
    }
}

// The watcher's signals only write to an eventfd (async-signal-safe), which its loop polls: a signal is
// never lost between checking a flag and going to sleep. SIGTERM and SIGINT stop it, SIGHUP reloads it.
static volatile int stop_fd = -1, reload_fd = -1;

static void write_one(int fd) {
    uint64_t one = 1;
    if (fd >= 0) {
        ssize_t ignored = write(fd, &one, sizeof one);
        (void)ignored;
    }
}

static void stop_handler(int signal) { (void)signal; write_one(stop_fd); }

static void reload_handler(int signal) { (void)signal; write_one(reload_fd); }

static int install(int signal, void (*handler)(int)) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(signal, &action, NULL);
}

int cspool_install_stop_handler(int eventfd) {
    stop_fd = eventfd;
    // A closed stderr or socket must show up as EPIPE, not kill a worker holding claims.
    signal(SIGPIPE, SIG_IGN);
    if (install(SIGTERM, stop_handler) != 0) return -1;
    return install(SIGINT, stop_handler);
}

int cspool_install_reload_handler(int eventfd) {
    reload_fd = eventfd;
    return install(SIGHUP, reload_handler);
}

// rtnetlink, the kernel's news of addresses, routes and links: how a watcher learns that the network came
// back (the Linux counterpart of NWPathMonitor), instead of waiting out a backoff.
int cspool_netlink_open(void) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
    if (fd < 0) return -1;
    struct sockaddr_nl address;
    memset(&address, 0, sizeof address);
    address.nl_family = AF_NETLINK;
    address.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int cspool_netlink_drain(int fd) {
    // Aligned for the nlmsghdr casts; 16 KiB holds a burst of a link coming up.
    static _Thread_local char buffer[16384] __attribute__((aligned(8)));
    int changed = 0;
    for (;;) {
        struct sockaddr_nl sender;
        socklen_t senderLength = sizeof sender;
        ssize_t length = recvfrom(fd, buffer, sizeof buffer, 0, (struct sockaddr *)&sender, &senderLength);
        if (length < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return changed;
            // The kernel dropped messages for want of room: something changed.
            if (errno == ENOBUFS) { changed = 1; continue; }
            return -1;
        }
        if (length == 0) return changed;
        // Only the kernel's news counts: another process may send to this socket too.
        if (senderLength < sizeof sender || sender.nl_pid != 0) continue;
        int remaining = (int)length;
        for (struct nlmsghdr *header = (struct nlmsghdr *)buffer; NLMSG_OK(header, remaining); header = NLMSG_NEXT(header, remaining)) {
            // A new address, a new default route, a link that just came up: not every route or link change.
            if (header->nlmsg_type == RTM_NEWADDR) changed = 1;
            if (header->nlmsg_type == RTM_NEWROUTE && header->nlmsg_len >= NLMSG_LENGTH(sizeof(struct rtmsg))) {
                struct rtmsg *route = NLMSG_DATA(header);
                if (route->rtm_dst_len == 0) changed = 1;
            }
            if (header->nlmsg_type == RTM_NEWLINK && header->nlmsg_len >= NLMSG_LENGTH(sizeof(struct ifinfomsg))) {
                struct ifinfomsg *link = NLMSG_DATA(header);
                if ((link->ifi_flags & IFF_UP) && (link->ifi_change & (IFF_UP | IFF_RUNNING))) changed = 1;
            }
        }
    }
}

// Handlers: posix_spawn and wait(2)'s status macros, which Swift cannot call or import.

int cspool_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

// The child's half, between vfork and exec: system calls only, nothing that allocates or locks (it runs on
// its parent's memory). The errno of a step that fails is written to `report`, a close-on-exec pipe, before
// the child exits: through the pipe and not the shared memory, because a sanitizer's vfork is a fork.
static void spawn_child(const char *path, char *const argv[], char *const envp[], int input, int output, int errors,
                        pid_t parent, int report) {
    // Dies with spool-send: a job whose worker is gone must not run on beside the run that recovers it,
    // which would run it a second time at once and could start the key's next job beside it.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) goto fail;
    if (setpgid(0, 0) != 0) goto fail;
    // Nothing of spool-send's reaches the handler: not its signal dispositions, mask, descriptors or directory.
    for (int number = 1; number < NSIG; number++) {
        if (number == SIGKILL || number == SIGSTOP) continue;
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = SIG_DFL;
        (void)sigaction(number, &action, NULL);
    }
    if (dup2(input, 0) < 0 || dup2(output, 1) < 0 || dup2(errors, 2) < 0) goto fail;
    if (chdir("/") != 0) goto fail;
    // All but the report pipe, which closes itself at exec (the parent made sure it is above 2).
    int closed = 0;
#ifdef SYS_close_range
    closed = (report == 3 || syscall(SYS_close_range, 3U, (unsigned)report - 1, 0U) == 0)
             && syscall(SYS_close_range, (unsigned)report + 1, ~0U, 0U) == 0;
#endif
    if (!closed) {
        // Before Linux 5.9: one by one, up to the limit.
        struct rlimit limit;
        int last = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < 65536 ? (int)limit.rlim_cur : 65536;
        for (int fd = 3; fd <= last; fd++) {
            if (fd != report) (void)close(fd);
        }
    }
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) != 0) goto fail;
    execve(path, argv, envp);
fail:;
    int failed = errno;
    (void)write(report, &failed, sizeof failed);
    _exit(127);
}

int cspool_spawn(const char *path, char *const argv[], char *const envp[], int input, int output, int errors, int *pid) {
    // A parent that ignored SIGCHLD would have the kernel reap handlers before their status is read.
    signal(SIGCHLD, SIG_DFL);
    // The child's report of a step that failed; the exec closes it empty. Above 2, where the child's dup2s of
    // its standard streams cannot reach it (fds 0-2 may be free in a parent started without them).
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return errno;
    if (report[1] < 3) {
        int moved = fcntl(report[1], F_DUPFD_CLOEXEC, 3);
        int moveError = errno;
        close(report[1]);
        if (moved < 0) {
            close(report[0]);
            return moveError;
        }
        report[1] = moved;
    }
    // Signals stay blocked across vfork, so that no handler of spool-send's runs in the child.
    sigset_t all, original;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &original);
    pid_t parent = getpid();
    // vfork, as posix_spawn does: no copy of a large process's page tables for each handler.
    pid_t child = vfork();
    if (child == 0) spawn_child(path, argv, envp, input, output, errors, parent, report[1]);
    int forkError = child < 0 ? errno : 0;
    pthread_sigmask(SIG_SETMASK, &original, NULL);
    close(report[1]);
    if (child < 0) {
        close(report[0]);
        return forkError;
    }
    // Nothing before end of file: the child exec'd. Otherwise it wrote why it could not, and exited.
    int failed = 0;
    ssize_t got;
    do { got = read(report[0], &failed, sizeof failed); } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof failed && failed != 0) {
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        return failed;
    }
    *pid = child;
    return 0;
}

int cspool_pidfd_open(int pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

int cspool_child_ended(int pid) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    int rc;
    do { rc = waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT); } while (rc != 0 && errno == EINTR);
    if (rc != 0) return -1;
    return info.si_pid == pid ? 1 : 0;
}

int cspool_reap(int pid, int *code, int *signal) {
    int status = 0;
    pid_t rc;
    do { rc = waitpid(pid, &status, 0); } while (rc < 0 && errno == EINTR);
    if (rc < 0) return -1;
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    *signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return 0;
}

int cspool_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

int cspool_get_thread_name(char *name) {
    return prctl(PR_GET_NAME, (unsigned long)name, 0, 0, 0);
}

