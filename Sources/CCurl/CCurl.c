// One non-variadic wrapper per argument type: Swift cannot call C's variadic functions.
#include "CCurl.h"

CURLcode curl_easy_setopt(CURL *handle, int option, ...);
CURLcode curl_easy_getinfo(CURL *handle, int info, ...);
CURLMcode curl_multi_setopt(CURLM *multi, int option, ...);

CURLcode ccurl_setopt_long(CURL *handle, int option, long value) { return curl_easy_setopt(handle, option, value); }
CURLcode ccurl_setopt_pointer(CURL *handle, int option, const void *value) { return curl_easy_setopt(handle, option, value); }
CURLcode ccurl_setopt_callback(CURL *handle, int option, ccurl_data_callback value) { return curl_easy_setopt(handle, option, value); }
CURLcode ccurl_setopt_offset(CURL *handle, int option, int64_t value) { return curl_easy_setopt(handle, option, (int64_t)value); }
CURLMcode ccurl_multi_setopt_long(CURLM *multi, int option, long value) { return curl_multi_setopt(multi, option, value); }
CURLcode ccurl_getinfo_long(CURL *handle, int info, long *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode ccurl_setopt_socket_callback(CURL *handle, int option, ccurl_socket_callback value) { return curl_easy_setopt(handle, option, value); }
CURLcode ccurl_setopt_prerequest_callback(CURL *handle, int option, ccurl_prerequest_callback value) { return curl_easy_setopt(handle, option, value); }
CURLcode ccurl_setopt_seek_callback(CURL *handle, int option, ccurl_seek_callback value) { return curl_easy_setopt(handle, option, value); }
