#ifndef CSPOOL_H
#define CSPOOL_H

/// rename(2) that fails with EEXIST instead of replacing an existing target.
int cspool_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);

#endif
