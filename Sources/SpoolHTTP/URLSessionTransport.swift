import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Spool
import Synchronization

/// Sends requests with the toolchain's URLSession, over keep-alive connections shared per origin.
///
/// Tasks are driven by delegate callbacks, never completion handlers: on Linux a task with a completion
/// handler follows redirects without asking, and on 302/307/308 it re-sends a PUT or POST with an empty
/// body. Here every redirect is refused and comes back as the 3xx answer it is.
public final class URLSessionTransport: NSObject, Transport, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: all mutable state is behind the two Mutexes.
    let timeout: Double
    let configuration: URLSessionConfiguration
    /// Made on first use, so that a cron run with nothing due never pays for setting up the HTTP stack.
    let lazySession = Mutex<URLSession?>(nil)
    let tasks = Mutex<[Int: TaskState]>([:])
    /// How much of a response body is kept for reasons.
    static let bodyLimit = 4096

    struct TaskState {
        var continuation: CheckedContinuation<Result<HTTPResponse, TransportFailure>, Never>
        var response: HTTPURLResponse?
        var body = Data()
        var timedOut = false
    }

    /// A transport whose every request gets at most `timeout` seconds in all, with up to `connections`
    /// connections per origin.
    public init(timeout: Double, connections: Int) {
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpMaximumConnectionsPerHost = max(1, connections)
        configuration.httpShouldSetCookies = false
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.configuration = configuration
        super.init()
    }

    var session: URLSession {
        lazySession.withLock { session in
            if let session { return session }
            let made = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
            session = made
            return made
        }
    }

    public func send(_ request: HTTPRequest) async -> Result<HTTPResponse, TransportFailure> {
        guard let url = URL(string: request.url) else { return .failure(.other("URL not understood by URLSession: \(request.url)")) }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        return await withCheckedContinuation { continuation in
            let task = session.dataTask(with: urlRequest)
            let id = task.taskIdentifier
            tasks.withLock { $0[id] = TaskState(continuation: continuation) }
            // A hard deadline for the whole exchange: URLSession's own timeouts reset as bytes trickle in.
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self, weak task] in
                guard let self, let task else { return }
                let pending = self.tasks.withLock { tasks -> Bool in
                    guard tasks[id] != nil else { return false }
                    tasks[id]!.timedOut = true
                    return true
                }
                if pending { task.cancel() }
            }
            task.resume()
        }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                           newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                           completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        tasks.withLock { $0[dataTask.taskIdentifier]?.response = response as? HTTPURLResponse }
        completionHandler(.allow)
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        tasks.withLock { tasks in
            guard var state = tasks[dataTask.taskIdentifier], state.body.count < Self.bodyLimit else { return }
            state.body.append(data.prefix(Self.bodyLimit - state.body.count))
            tasks[dataTask.taskIdentifier] = state
        }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let state = tasks.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let response = state.response ?? (task.response as? HTTPURLResponse)
        if let response {
            // A status line arrived: the server decided, even if the body was cut short.
            var headers: [String: String] = [:]
            for (name, value) in response.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            state.continuation.resume(returning: .success(HTTPResponse(status: response.statusCode, headers: headers, body: [UInt8](state.body))))
            return
        }
        state.continuation.resume(returning: .failure(Self.failure(error, timedOut: state.timedOut)))
    }

    /// Maps URLSession's errors to the failures spool tells apart.
    static func failure(_ error: Error?, timedOut: Bool) -> TransportFailure {
        if timedOut { return .timeout }
        guard let error = error as? URLError else { return .other(error.map { "\($0)" } ?? "no response") }
        switch error.code {
        case .cannotConnectToHost: return .refused
        case .networkConnectionLost: return .reset
        // On Linux a connection closed without any answer surfaces as badServerResponse (-1011).
        case .badServerResponse, .zeroByteResource: return .closedWithoutAnswer
        case .cannotFindHost, .dnsLookupFailed: return .dns
        case .timedOut: return .timeout
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
             .serverCertificateHasUnknownRoot, .clientCertificateRejected, .clientCertificateRequired:
            return .tls(error.localizedDescription)
        default: return .other("\(error.code.rawValue) \(error.localizedDescription)")
        }
    }
}
