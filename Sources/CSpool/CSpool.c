#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "CSpool.h"

int cspool_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
    return renameat2(olddirfd, oldpath, newdirfd, newpath, RENAME_NOREPLACE);
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

static volatile int stop_fd = -1;

static void stop_handler(int signal) {
    (void)signal;
    uint64_t one = 1;
    if (stop_fd >= 0) {
        ssize_t ignored = write(stop_fd, &one, sizeof one);
        (void)ignored;
    }
}

int cspool_install_stop_handler(int eventfd) {
    stop_fd = eventfd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = stop_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    // A closed stderr or socket must show up as EPIPE, not kill a worker holding claims.
    signal(SIGPIPE, SIG_IGN);
    if (sigaction(SIGTERM, &action, NULL) != 0) return -1;
    return sigaction(SIGINT, &action, NULL);
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

int cspool_spawn(const char *path, char *const argv[], char *const envp[], int input, int output, int errors, int *pid) {
    // A parent that ignored SIGCHLD would have the kernel reap handlers before their status is read.
    signal(SIGCHLD, SIG_DFL);
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) return rc;
    rc = posix_spawnattr_init(&attributes);
    if (rc != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return rc;
    }
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, input, 0);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, output, 1);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, errors, 2);
    // Nothing of spool-send's reaches the handler: not its working directory, descriptors or signal dispositions.
    if (rc == 0) rc = posix_spawn_file_actions_addchdir_np(&actions, "/");
    if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (rc == 0) rc = posix_spawnattr_setpgroup(&attributes, 0);
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attributes, &none);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attributes, &all);
    if (rc == 0) rc = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t child = 0;
    if (rc == 0) rc = posix_spawn(&child, path, &actions, &attributes, argv, envp);
    if (rc == 0) *pid = child;
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
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
