// The two functions of OpenSSL's libcrypto that the triage page's CSRF tokens need, declared by hand as
// CCurl declares libcurl's: building needs no -dev package, and the library is linked by its soname,
// libcrypto.so.3, which libcurl itself loads on every Debian and Ubuntu that spool runs on.
#pragma once
#include <stddef.h>

typedef struct evp_md_st EVP_MD;

/// SHA-256, for HMAC.
const EVP_MD *EVP_sha256(void);

/// HMAC of `data` under `key` (RFC 2104) into `md`, which holds EVP_MAX_MD_SIZE (64) bytes.
unsigned char *HMAC(const EVP_MD *evp_md, const void *key, int key_len, const unsigned char *data,
                    size_t data_len, unsigned char *md, unsigned int *md_len);

/// Compares `len` bytes in a time that does not depend on where they differ.
int CRYPTO_memcmp(const void *a, const void *b, size_t len);
