import CCurl
import SpoolTransport

/// The one table from libcurl's result codes to spool's transport failures, mirrored in spool-send(8)'s
/// "Transport errors". libcurl has already sent a request once more on a fresh connection when a reused
/// one turned out dead before answering, so what reaches this table failed on a fresh connection too.
enum CurlResultTable {
    static let refused = codes([CCURLE_COULDNT_CONNECT])
    static let dns = codes([CCURLE_COULDNT_RESOLVE_HOST, CCURLE_COULDNT_RESOLVE_PROXY])
    static let timeout = codes([CCURLE_OPERATION_TIMEDOUT])
    /// The request went out and no answer could be read. WEIRD_SERVER_REPLY and UNSUPPORTED_PROTOCOL ("HTTP/0.9
    /// when not allowed") are what libcurl says when it reads a broken server's leftovers as an answer; spool
    /// lets no other scheme than http and https through, so the second means nothing else here.
    static let lost = codes([
        CCURLE_GOT_NOTHING, CCURLE_SEND_ERROR, CCURLE_RECV_ERROR, CCURLE_PARTIAL_FILE, CCURLE_HTTP2,
        CCURLE_HTTP2_STREAM, CCURLE_WEIRD_SERVER_REPLY, CCURLE_UNSUPPORTED_PROTOCOL
    ])
    static let tls = codes([
        CCURLE_SSL_CONNECT_ERROR, CCURLE_SSL_ENGINE_NOTFOUND, CCURLE_SSL_ENGINE_SETFAILED,
        CCURLE_SSL_CERTPROBLEM, CCURLE_SSL_CIPHER, CCURLE_PEER_FAILED_VERIFICATION,
        CCURLE_SSL_ENGINE_INITFAILED, CCURLE_SSL_CACERT_BADFILE, CCURLE_SSL_SHUTDOWN_FAILED,
        CCURLE_SSL_CRL_BADFILE, CCURLE_SSL_ISSUER_ERROR, CCURLE_SSL_PINNEDPUBKEYNOTMATCH,
        CCURLE_SSL_INVALIDCERTSTATUS, CCURLE_SSL_CLIENTCERT
    ])

    /// The failure for `code`, with libcurl's own message (its error buffer, else its text for the code).
    static func failure(_ code: CURLcode, message: String) -> TransportError {
        let text = message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
        if refused.contains(code) { return .refused }
        if dns.contains(code) { return .dns }
        if timeout.contains(code) { return .timeout }
        if lost.contains(code) { return .lost(text) }
        if tls.contains(code) { return .tls(text) }
        return .other(text)
    }

    private static func codes(_ values: [Int]) -> Set<CURLcode> { Set(values.map { CURLcode($0) }) }
}
