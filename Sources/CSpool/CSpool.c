#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include "CSpool.h"

int cspool_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
    return renameat2(olddirfd, oldpath, newdirfd, newpath, RENAME_NOREPLACE);
}
