// The part of libcurl's C API that spool calls, declared here so that building needs no -dev package:
// libcurl.so.4's ABI has been stable since 2006, and the values below are libcurl's own (curl/curl.h,
// curl/multi.h). Tests/SpoolTests/SpoolHTTP/CurlHeaderTests compares them with the real header when it
// is installed. The variadic curl_easy_setopt and curl_easy_getinfo cannot be called from Swift, so
// CCurl.c wraps them in one function per argument type.
#ifndef CCURL_H
#define CCURL_H

#include <stddef.h>
#include <stdint.h>

typedef void CURL;
typedef void CURLM;
typedef int CURLcode;
typedef int CURLMcode;

struct curl_slist {
    char *data;
    struct curl_slist *next;
};

enum {
    CCURLMSG_DONE = 1,
};

typedef struct {
    int msg;
    CURL *easy_handle;
    union {
        void *whatever;
        CURLcode result;
    } data;
} CURLMsg;

// Option numbers: type base (long 0, pointer 10000, function 20000, off_t 30000) plus the option's number.
enum {
    CCURLOPT_WRITEDATA = 10001,
    CCURLOPT_READDATA = 10009,
    CCURLOPT_READFUNCTION = 20012,
    CCURLOPT_LOW_SPEED_LIMIT = 19,
    CCURLOPT_LOW_SPEED_TIME = 20,
    CCURLOPT_UPLOAD = 46,
    CCURLOPT_INFILESIZE_LARGE = 30115,
    CCURLOPT_MAX_SEND_SPEED_LARGE = 30145,
    CCURLOPT_SEEKFUNCTION = 20167,
    CCURLOPT_SEEKDATA = 10168,
    CCURLOPT_URL = 10002,
    CCURLOPT_PROXY = 10004,
    CCURLOPT_ERRORBUFFER = 10010,
    CCURLOPT_WRITEFUNCTION = 20011,
    CCURLOPT_POSTFIELDS = 10015,
    CCURLOPT_HTTPHEADER = 10023,
    CCURLOPT_SSLCERT = 10025,
    CCURLOPT_HEADERDATA = 10029,
    CCURLOPT_CUSTOMREQUEST = 10036,
    CCURLOPT_NOBODY = 44,
    CCURLOPT_FOLLOWLOCATION = 52,
    CCURLOPT_CAINFO = 10065,
    CCURLOPT_FRESH_CONNECT = 74,
    CCURLOPT_HEADERFUNCTION = 20079,
    CCURLOPT_HTTP_VERSION = 84,
    CCURLOPT_SSLKEY = 10087,
    CCURLOPT_NOSIGNAL = 99,
    CCURLOPT_POSTFIELDSIZE_LARGE = 30120,
    CCURLOPT_TIMEOUT_MS = 155,
    CCURLOPT_CONNECTTIMEOUT_MS = 156,
    CCURLOPT_NOPROXY = 10177,
    CCURLOPT_TCP_KEEPALIVE = 213,
    CCURLOPT_PATH_AS_IS = 234,
    CCURLOPT_PIPEWAIT = 237,
    CCURLOPT_SUPPRESS_CONNECT_HEADERS = 265,
    CCURLOPT_SOCKOPTFUNCTION = 20148,
    CCURLOPT_PREREQFUNCTION = 20312,
    CCURLOPT_PREREQDATA = 10313,
    CCURLOPT_PROTOCOLS_STR = 10318,
};

enum {
    CCURLMOPT_PIPELINING = 3,
    CCURLMOPT_MAXCONNECTS = 6,
    CCURLMOPT_MAX_HOST_CONNECTIONS = 7,
    CCURLMOPT_MAX_CONCURRENT_STREAMS = 16,
};

enum {
    CCURLINFO_RESPONSE_CODE = 0x200000 + 2,
    CCURLINFO_HTTP_CONNECTCODE = 0x200000 + 22,
};

enum {
    CCURL_GLOBAL_ALL = 3,
    CCURLPIPE_MULTIPLEX = 2,
    CCURL_HTTP_VERSION_1_1 = 2,
    CCURL_HTTP_VERSION_2TLS = 4,
    CCURL_ERROR_SIZE = 256,
    CCURL_READFUNC_ABORT = 0x10000000,
    CCURL_SEEKFUNC_OK = 0,
    CCURL_SEEKFUNC_FAIL = 1,
};

// The result codes spool tells apart (curl/curl.h, enum CURLcode).
enum {
    CCURLE_OK = 0,
    CCURLE_UNSUPPORTED_PROTOCOL = 1,
    CCURLE_COULDNT_RESOLVE_PROXY = 5,
    CCURLE_COULDNT_RESOLVE_HOST = 6,
    CCURLE_COULDNT_CONNECT = 7,
    CCURLE_WEIRD_SERVER_REPLY = 8,
    CCURLE_HTTP2 = 16,
    CCURLE_PARTIAL_FILE = 18,
    CCURLE_WRITE_ERROR = 23,
    CCURLE_OPERATION_TIMEDOUT = 28,
    CCURLE_ABORTED_BY_CALLBACK = 42,
    CCURLE_SSL_CONNECT_ERROR = 35,
    CCURLE_GOT_NOTHING = 52,
    CCURLE_SSL_ENGINE_NOTFOUND = 53,
    CCURLE_SSL_ENGINE_SETFAILED = 54,
    CCURLE_SEND_ERROR = 55,
    CCURLE_RECV_ERROR = 56,
    CCURLE_SSL_CERTPROBLEM = 58,
    CCURLE_SSL_CIPHER = 59,
    CCURLE_PEER_FAILED_VERIFICATION = 60,
    CCURLE_SSL_ENGINE_INITFAILED = 66,
    CCURLE_SSL_CACERT_BADFILE = 77,
    CCURLE_SSL_SHUTDOWN_FAILED = 80,
    CCURLE_SSL_CRL_BADFILE = 82,
    CCURLE_SSL_ISSUER_ERROR = 83,
    CCURLE_SSL_PINNEDPUBKEYNOTMATCH = 90,
    CCURLE_SSL_INVALIDCERTSTATUS = 91,
    CCURLE_HTTP2_STREAM = 92,
    CCURLE_SSL_CLIENTCERT = 98,
};

CURLcode curl_global_init(long flags);
CURL *curl_easy_init(void);
void curl_easy_cleanup(CURL *handle);
void curl_easy_reset(CURL *handle);
const char *curl_easy_strerror(CURLcode code);
CURLM *curl_multi_init(void);
CURLMcode curl_multi_add_handle(CURLM *multi, CURL *easy);
CURLMcode curl_multi_remove_handle(CURLM *multi, CURL *easy);
CURLMcode curl_multi_perform(CURLM *multi, int *running);
CURLMcode curl_multi_poll(CURLM *multi, void *extra_fds, unsigned int extra_nfds, int timeout_ms, int *numfds);
CURLMcode curl_multi_wakeup(CURLM *multi);
CURLMsg *curl_multi_info_read(CURLM *multi, int *remaining);
const char *curl_multi_strerror(CURLMcode code);
struct curl_slist *curl_slist_append(struct curl_slist *list, const char *text);
void curl_slist_free_all(struct curl_slist *list);
char *curl_version(void);

/// The callback type of CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);

/// The callback type of CURLOPT_SEEKFUNCTION: `offset` from `origin` (SEEK_SET only, from libcurl).
typedef int (*ccurl_seek_callback)(void *context, int64_t offset, int origin);
CURLcode ccurl_setopt_seek_callback(CURL *handle, int option, ccurl_seek_callback value);

/// The callback types of CURLOPT_SOCKOPTFUNCTION and CURLOPT_PREREQFUNCTION.
typedef int (*ccurl_socket_callback)(void *context, int socket, int purpose);
typedef int (*ccurl_prerequest_callback)(void *context, char *remote_ip, char *local_ip, int remote_port, int local_port);

CURLcode ccurl_setopt_socket_callback(CURL *handle, int option, ccurl_socket_callback value);
CURLcode ccurl_setopt_prerequest_callback(CURL *handle, int option, ccurl_prerequest_callback value);
CURLcode ccurl_setopt_long(CURL *handle, int option, long value);
CURLcode ccurl_setopt_pointer(CURL *handle, int option, const void *value);
CURLcode ccurl_setopt_callback(CURL *handle, int option, ccurl_data_callback value);
CURLcode ccurl_setopt_offset(CURL *handle, int option, int64_t value);
CURLMcode ccurl_multi_setopt_long(CURLM *multi, int option, long value);
CURLcode ccurl_getinfo_long(CURL *handle, int info, long *value);

#endif
